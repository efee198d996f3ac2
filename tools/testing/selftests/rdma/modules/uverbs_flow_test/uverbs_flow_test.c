// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only module, never part of the default build: a device "uvflow%d"
 * with the receive side of RSS and flow steering (rxe has neither), so
 * that the selftests (uverbs_flow.sh) can drive ib_uverbs' extended
 * commands CREATE/DESTROY_FLOW, CREATE/MODIFY/DESTROY_WQ,
 * CREATE/DESTROY_RWQ_IND_TBL and MODIFY_CQ on both stacks.  Nothing
 * moves: its objects are bookkeeping, and each call the core makes of
 * the driver is written down for the test to compare.
 *
 *	CQs		any size; moderation recorded
 *	QPs		RC, UD and RAW_PACKET, maybe over an indirection
 *			table
 *	WQs		receive WQs (type 0), numbered from 1; a modify
 *			records the states and flags
 *	tables		of any size the core allows
 *	flows		any rule on a UD or raw QP; the specs as the
 *			driver received them are recorded
 *	counters	bookkeeping (flows may count into them)
 *
 * /sys/module/uverbs_flow_test/parameters/
 *	live		the driver objects that exist now:
 *			"cqs qps wqs tables flows counters"
 *	last		what the last driver call was given, one line
 *	fail		write an op's name (create_flow, create_wq,
 *			create_rwq_ind_table, create_qp, modify_cq): its
 *			next call fails with -EMSGSIZE, an errno the core
 *			never makes up itself
 *	remove		write 1: unregister the device (once)
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "stub_ibdev.h"

struct uvflow_device {
	struct ib_device ibdev;
};

struct uvflow_tbl {
	struct ib_rwq_ind_table ibtbl;
};

/* The core allocates counters at the size the driver declares. */
struct uvflow_counters {
	struct ib_counters ibcounters;
};

enum { LIVE_CQ, LIVE_QP, LIVE_WQ, LIVE_TBL, LIVE_FLOW, LIVE_COUNTERS, LIVE_N };

static atomic_t uvflow_live[LIVE_N];
static struct ib_device *uvflow_dev;
static DEFINE_MUTEX(uvflow_remove_lock);
static bool uvflow_removed;
static atomic_t uvflow_wqn = ATOMIC_INIT(0);

/* The record of the last call, and the op to fail next; under uvflow_lock. */
static DEFINE_MUTEX(uvflow_lock);
static char uvflow_last[512];
static char uvflow_fail[32];

static __printf(1, 2) void record(const char *fmt, ...)
{
	va_list ap;

	mutex_lock(&uvflow_lock);
	va_start(ap, fmt);
	vsnprintf(uvflow_last, sizeof(uvflow_last), fmt, ap);
	va_end(ap);
	mutex_unlock(&uvflow_lock);
}

/* Whether @op is the one to fail now (once). */
static bool failing(const char *op)
{
	bool fail;

	mutex_lock(&uvflow_lock);
	fail = !strcmp(uvflow_fail, op);
	if (fail)
		uvflow_fail[0] = '\0';
	mutex_unlock(&uvflow_lock);
	return fail;
}

static int uvflow_query_device(struct ib_device *dev,
			       struct ib_device_attr *attr,
			       struct ib_udata *udata)
{
	attr->max_qp = 64;
	attr->max_qp_wr = 1024;
	attr->max_send_sge = 4;
	attr->max_recv_sge = 4;
	attr->max_cq = 64;
	attr->max_cqe = 4096;
	attr->max_pd = 64;
	attr->max_wq_type_rq = 64;
	attr->rss_caps.max_rwq_indirection_tables = 64;
	attr->rss_caps.max_rwq_indirection_table_size = 1 << 13;
	attr->raw_packet_caps = IB_RAW_PACKET_CAP_CVLAN_STRIPPING;
	return 0;
}

static int uvflow_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			    struct ib_udata *udata)
{
	cq->cqe = attr->cqe;
	atomic_inc(&uvflow_live[LIVE_CQ]);
	return 0;
}

static int uvflow_modify_cq(struct ib_cq *cq, u16 count, u16 period)
{
	if (failing("modify_cq"))
		return -EMSGSIZE;
	record("modify_cq count %u period %u", count, period);
	return 0;
}

static int uvflow_destroy_cq(struct ib_cq *cq, struct ib_udata *udata)
{
	atomic_dec(&uvflow_live[LIVE_CQ]);
	return 0;
}

static int uvflow_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *init,
			    struct ib_udata *udata)
{
	static atomic_t qpn = ATOMIC_INIT(1);

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UD:
	case IB_QPT_RAW_PACKET:
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (failing("create_qp"))
		return -EMSGSIZE;
	qp->qp_num = atomic_inc_return(&qpn) & 0xffffff;
	record("create_qp type %d send_cq %s recv_cq %s table %s send_wr %u recv_wr %u",
	       init->qp_type, init->send_cq ? "yes" : "no",
	       init->recv_cq ? "yes" : "no",
	       init->rwq_ind_tbl ? "yes" : "no", init->cap.max_send_wr,
	       init->cap.max_recv_wr);
	atomic_inc(&uvflow_live[LIVE_QP]);
	return 0;
}

static int uvflow_destroy_qp(struct ib_qp *qp, struct ib_udata *udata)
{
	atomic_dec(&uvflow_live[LIVE_QP]);
	return 0;
}

static struct ib_wq *uvflow_create_wq(struct ib_pd *pd,
				      struct ib_wq_init_attr *init,
				      struct ib_udata *udata)
{
	struct ib_wq *wq;

	if (init->wq_type != IB_WQT_RQ)
		return ERR_PTR(-EINVAL);
	if (failing("create_wq"))
		return ERR_PTR(-EMSGSIZE);
	wq = kzalloc(sizeof(*wq), GFP_KERNEL);
	if (!wq)
		return ERR_PTR(-ENOMEM);
	wq->wq_num = atomic_inc_return(&uvflow_wqn);
	wq->state = IB_WQS_RESET;
	record("create_wq type %d max_wr %u max_sge %u flags %#x cq %s handler %s",
	       init->wq_type, init->max_wr, init->max_sge, init->create_flags,
	       init->cq ? "yes" : "no", init->event_handler ? "yes" : "no");
	/* It answers a little more than asked, as hardware rounds up. */
	init->max_wr = roundup_pow_of_two(max(init->max_wr, 1U));
	atomic_inc(&uvflow_live[LIVE_WQ]);
	return wq;
}

static int uvflow_modify_wq(struct ib_wq *wq, struct ib_wq_attr *attr,
			    u32 mask, struct ib_udata *udata)
{
	record("modify_wq mask %#x cur %d new %d flags %#x/%#x", mask,
	       attr->curr_wq_state, attr->wq_state, attr->flags,
	       attr->flags_mask);
	if (mask & IB_WQ_STATE)
		wq->state = attr->wq_state;
	return 0;
}

static int uvflow_destroy_wq(struct ib_wq *wq, struct ib_udata *udata)
{
	kfree(wq);
	atomic_dec(&uvflow_live[LIVE_WQ]);
	return 0;
}

static int uvflow_create_rwq_ind_table(struct ib_rwq_ind_table *tbl,
				       struct ib_rwq_ind_table_init_attr *init,
				       struct ib_udata *udata)
{
	static atomic_t tbln = ATOMIC_INIT(0);
	u32 i, n = 1U << init->log_ind_tbl_size;
	char wqns[64] = "";
	size_t len = 0;

	if (failing("create_rwq_ind_table"))
		return -EMSGSIZE;
	for (i = 0; i < n && len < sizeof(wqns) - 12; i++)
		len += scnprintf(wqns + len, sizeof(wqns) - len, " %u",
				 init->ind_tbl[i]->wq_num);
	tbl->ind_tbl_num = atomic_inc_return(&tbln);
	record("create_rwq_ind_table log %u wqns%s", init->log_ind_tbl_size,
	       wqns);
	atomic_inc(&uvflow_live[LIVE_TBL]);
	return 0;
}

static int uvflow_destroy_rwq_ind_table(struct ib_rwq_ind_table *tbl)
{
	atomic_dec(&uvflow_live[LIVE_TBL]);
	return 0;
}

/* One spec as the driver sees it, appended to @buf. */
static size_t describe_spec(char *buf, size_t room, const union ib_flow_spec *s)
{
	size_t n = scnprintf(buf, room, " %#x/%u", s->type, s->size);

	switch (s->type & ~IB_FLOW_SPEC_INNER) {
	case IB_FLOW_SPEC_ETH:
		n += scnprintf(buf + n, room - n, " %pM/%pM %04x/%04x %04x",
			       s->eth.val.dst_mac, s->eth.mask.dst_mac,
			       be16_to_cpu(s->eth.val.ether_type),
			       be16_to_cpu(s->eth.mask.ether_type),
			       be16_to_cpu(s->eth.val.vlan_tag));
		break;
	case IB_FLOW_SPEC_IPV4:
		n += scnprintf(buf + n, room - n, " %pI4/%pI4 %pI4",
			       &s->ipv4.val.dst_ip, &s->ipv4.mask.dst_ip,
			       &s->ipv4.val.src_ip);
		break;
	case IB_FLOW_SPEC_IPV6:
		n += scnprintf(buf + n, room - n, " %pI6c label %#x/%#x",
			       s->ipv6.val.dst_ip,
			       be32_to_cpu(s->ipv6.val.flow_label),
			       be32_to_cpu(s->ipv6.mask.flow_label));
		break;
	case IB_FLOW_SPEC_TCP:
	case IB_FLOW_SPEC_UDP:
		n += scnprintf(buf + n, room - n, " %u/%#x",
			       be16_to_cpu(s->tcp_udp.val.dst_port),
			       be16_to_cpu(s->tcp_udp.mask.dst_port));
		break;
	case IB_FLOW_SPEC_VXLAN_TUNNEL:
		n += scnprintf(buf + n, room - n, " vni %#x",
			       be32_to_cpu(s->tunnel.val.tunnel_id));
		break;
	case IB_FLOW_SPEC_ACTION_TAG:
		n += scnprintf(buf + n, room - n, " tag %#x",
			       s->flow_tag.tag_id);
		break;
	case IB_FLOW_SPEC_ACTION_COUNT:
		n += scnprintf(buf + n, room - n, " counters %s",
			       s->flow_count.counters ? "yes" : "no");
		break;
	}
	return n;
}

static struct ib_flow *uvflow_create_flow(struct ib_qp *qp,
					  struct ib_flow_attr *attr,
					  struct ib_udata *udata)
{
	const u8 *spec = (const u8 *)(attr + 1);
	struct ib_flow *flow;
	char specs[384] = "";
	size_t len = 0;
	unsigned int i;

	if (failing("create_flow"))
		return ERR_PTR(-EMSGSIZE);
	flow = kzalloc(sizeof(*flow), GFP_KERNEL);
	if (!flow)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < attr->num_of_specs; i++) {
		const union ib_flow_spec *s = (const void *)spec;

		len += describe_spec(specs + len, sizeof(specs) - len, s);
		spec += s->size;
	}
	record("create_flow qp %s type %d prio %u port %u flags %#x specs %u size %u:%s",
	       qp->qp_type == IB_QPT_UD ? "ud" : "raw", attr->type,
	       attr->priority, attr->port, attr->flags, attr->num_of_specs,
	       attr->size, specs);
	atomic_inc(&uvflow_live[LIVE_FLOW]);
	return flow;
}

static int uvflow_destroy_flow(struct ib_flow *flow)
{
	kfree(flow);
	atomic_dec(&uvflow_live[LIVE_FLOW]);
	return 0;
}

static int uvflow_create_counters(struct ib_counters *counters,
				  struct uverbs_attr_bundle *attrs)
{
	atomic_inc(&uvflow_live[LIVE_COUNTERS]);
	return 0;
}

static int uvflow_destroy_counters(struct ib_counters *counters)
{
	atomic_dec(&uvflow_live[LIVE_COUNTERS]);
	return 0;
}

/* Nothing mapped: nothing to revoke. */
static void uvflow_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

/* The rest of the device: stub_ibdev.h. */
static const struct ib_device_ops uvflow_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,

	.query_device = uvflow_query_device,
	.create_cq = uvflow_create_cq,
	.modify_cq = uvflow_modify_cq,
	.destroy_cq = uvflow_destroy_cq,
	.create_qp = uvflow_create_qp,
	.destroy_qp = uvflow_destroy_qp,
	.create_wq = uvflow_create_wq,
	.modify_wq = uvflow_modify_wq,
	.destroy_wq = uvflow_destroy_wq,
	.create_rwq_ind_table = uvflow_create_rwq_ind_table,
	.destroy_rwq_ind_table = uvflow_destroy_rwq_ind_table,
	.create_flow = uvflow_create_flow,
	.destroy_flow = uvflow_destroy_flow,
	.create_counters = uvflow_create_counters,
	.destroy_counters = uvflow_destroy_counters,
	.disassociate_ucontext = uvflow_disassociate_ucontext,

	INIT_RDMA_OBJ_SIZE(ib_rwq_ind_table, uvflow_tbl, ibtbl),
	INIT_RDMA_OBJ_SIZE(ib_counters, uvflow_counters, ibcounters),
};

static int live_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d %d %d %d %d %d\n",
			  atomic_read(&uvflow_live[LIVE_CQ]),
			  atomic_read(&uvflow_live[LIVE_QP]),
			  atomic_read(&uvflow_live[LIVE_WQ]),
			  atomic_read(&uvflow_live[LIVE_TBL]),
			  atomic_read(&uvflow_live[LIVE_FLOW]),
			  atomic_read(&uvflow_live[LIVE_COUNTERS]));
}

static const struct kernel_param_ops live_ops = {
	.get = live_get,
};
module_param_cb(live, &live_ops, NULL, 0444);

static int last_get(char *buf, const struct kernel_param *kp)
{
	int n;

	mutex_lock(&uvflow_lock);
	n = sysfs_emit(buf, "%s\n", uvflow_last);
	mutex_unlock(&uvflow_lock);
	return n;
}

static const struct kernel_param_ops last_ops = {
	.get = last_get,
};
module_param_cb(last, &last_ops, NULL, 0444);

static int fail_set(const char *val, const struct kernel_param *kp)
{
	mutex_lock(&uvflow_lock);
	strscpy(uvflow_fail, val, sizeof(uvflow_fail));
	strim(uvflow_fail);
	mutex_unlock(&uvflow_lock);
	return 0;
}

static const struct kernel_param_ops fail_ops = {
	.set = fail_set,
};
module_param_cb(fail, &fail_ops, NULL, 0200);

static void uvflow_remove(void)
{
	mutex_lock(&uvflow_remove_lock);
	if (!uvflow_removed) {
		ib_unregister_device(uvflow_dev);
		uvflow_removed = true;
	}
	mutex_unlock(&uvflow_remove_lock);
}

static int remove_set(const char *val, const struct kernel_param *kp)
{
	uvflow_remove();
	return 0;
}

static const struct kernel_param_ops remove_ops = {
	.set = remove_set,
};
module_param_cb(remove, &remove_ops, NULL, 0200);

static int __init uvflow_init(void)
{
	struct uvflow_device *dev;
	int ret;

	dev = ib_alloc_device(uvflow_device, ibdev);
	if (!dev)
		return -ENOMEM;
	uvflow_dev = &dev->ibdev;
	uvflow_dev->node_type = RDMA_NODE_IB_CA;
	uvflow_dev->phys_port_cnt = 1;
	uvflow_dev->num_comp_vectors = 1;
	ib_set_device_ops(uvflow_dev, &uvflow_ops);
	ib_set_device_ops(uvflow_dev, &stub_ibdev_ops);
	ret = ib_register_device(uvflow_dev, "uvflow%d", NULL);
	if (ret)
		ib_dealloc_device(uvflow_dev);
	return ret;
}

static void __exit uvflow_exit(void)
{
	uvflow_remove();
	ib_dealloc_device(uvflow_dev);
}

module_init(uvflow_init);
module_exit(uvflow_exit);

MODULE_DESCRIPTION("oot-rdma selftest: a device with flow steering, WQs and RSS tables");
MODULE_LICENSE("GPL");
MODULE_VERSION(OOT_RDMA_VERSION);
