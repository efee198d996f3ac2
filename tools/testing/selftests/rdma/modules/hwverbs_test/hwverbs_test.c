// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only module: the ib_core exports that hardware drivers and their
 * ULPs (mlx4/mlx5, ipoib, qedr, efa, irdma ...) use and no ULP of kverbs_test
 * does: IB header packing (ib_pack.h), static rates, the DMA block
 * iterator, and the verbs rxe has no op for (VFs, rdma netdevs, XRC,
 * WQs, CQ moderation, AH modify), which must answer as stock, and an
 * ODP registration, which answers as the device's ODP cap says.
 *
 * On load it runs its cases once on an existing rxe device (dev=,
 * default rxe0) and prints KTAP into the kernel log, each line prefixed
 * with "hwverbs_test: ".  Lines "# G ..." are its measurements (packed
 * bytes, rates, blocks, errnos): hwverbs.sh compares them with the ones
 * recorded on the stock stack (golden/hwverbs-stock.txt).  Everything it
 * made is gone when the load returns.
 *
 * Only exported API is used, so it builds against either stack; the few
 * exports stock declares in its private headers are in core_exports.h,
 * with stock's prototypes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/if_link.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/scatterlist.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_pack.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_verbs.h>
#include <rdma/iter.h>
#include <rdma/restrack.h>

#include "core_exports.h"
#include "ktap_module.h"

static char *kt_dev_name = "rxe0";
module_param_named(dev, kt_dev_name, charp, 0444);
MODULE_PARM_DESC(dev, "the RDMA device to test on");

#define KT_PORT		1
#define KT_NR_CASES	17

/* A measurement for the golden file: "# G <what> <value>". */
#define kt_golden(fmt, ...) pr_info("# G " fmt "\n", ##__VA_ARGS__)

static void kt_golden_hex(const char *what, const void *buf, size_t len)
{
	char hex[2 * 128 + 1];

	if (WARN_ON(len > 128))
		len = 128;
	bin2hex(hex, buf, len);
	hex[2 * len] = '\0';
	kt_golden("%s %zu %s", what, len, hex);
}

/* ---------------------------------------------------------------- */
/* Static rates                                                       */

static int kt_rates(void)
{
	int rate, mult, bad = 0;

	for (rate = 0; rate <= 24; rate++) {
		mult = ib_rate_to_mult(rate);
		kt_golden("rate %d mult %d mbps %d", rate, mult,
			  ib_rate_to_mbps(rate));
		if (mult > 0 && mult_to_ib_rate(mult) != rate)
			bad++;
	}
	for (mult = -1; mult <= 256; mult++)
		if (mult_to_ib_rate(mult) != IB_RATE_PORT_CURRENT)
			kt_golden("mult %d rate %d", mult, mult_to_ib_rate(mult));
	if (KTAP_BAD(!bad, "%d rates do not round-trip", bad))
		return -EINVAL;
	return 0;
}

/* ---------------------------------------------------------------- */
/* UD headers                                                         */

/* Addresses and keys, set after ib_ud_header_init(). */
static void kt_ud_addresses(struct ib_ud_header *h)
{
	static const u8 dmac[ETH_ALEN] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	static const u8 smac[ETH_ALEN] = { 0x02, 0x66, 0x77, 0x88, 0x99, 0xaa };
	int i;

	h->lrh.service_level = 5;
	h->lrh.virtual_lane = 3;
	h->lrh.destination_lid = cpu_to_be16(0x1234);
	h->lrh.source_lid = cpu_to_be16(0x0042);
	memcpy(h->eth.dmac_h, dmac, 4);
	memcpy(h->eth.dmac_l, dmac + 4, 2);
	memcpy(h->eth.smac_h, smac, 2);
	memcpy(h->eth.smac_l, smac + 2, 4);
	if (!h->vlan_present)
		h->eth.type = cpu_to_be16(h->ipv4_present ? ETH_P_IP :
					  ETH_P_IBOE);
	h->vlan.tag = cpu_to_be16(0x6007);
	h->vlan.type = cpu_to_be16(h->ipv4_present ? ETH_P_IP : ETH_P_IBOE);
	h->grh.traffic_class = 0x28;
	h->grh.flow_label = cpu_to_be32(0xabcde);
	h->grh.hop_limit = 64;
	for (i = 0; i < 16; i++) {
		h->grh.source_gid.raw[i] = 0xf0 + i;
		h->grh.destination_gid.raw[i] = 0x10 + i;
	}
	h->ip4.tos = 0x10;
	h->ip4.id = cpu_to_be16(0x4321);
	h->ip4.frag_off = htons(IP_DF);
	h->ip4.ttl = 64;
	h->ip4.saddr = cpu_to_be32(0x0ac80001);
	h->ip4.daddr = cpu_to_be32(0x0ac80002);
	h->udp.sport = cpu_to_be16(0xc001);
	h->udp.dport = cpu_to_be16(4791);
	h->bth.pkey = cpu_to_be16(0xffff);
	h->bth.destination_qpn = cpu_to_be32(0x000123);
	h->bth.psn = cpu_to_be32(0x00beef);
	h->bth.solicited_event = 1;
	h->deth.qkey = cpu_to_be32(0x80010000);
	h->deth.source_qpn = cpu_to_be32(0x000001);
	h->immediate_data = cpu_to_be32(0xdeadbeef);
	if (h->ipv4_present)
		h->ip4.check = ib_ud_ip4_csum(h);
}

struct kt_ud_case {
	const char *name;
	int payload, lrh, eth, vlan, grh, ip, udp, imm;
};

static const struct kt_ud_case kt_ud_cases[] = {
	{ "ib-local", 256, 1, 0, 0, 0, 0, 0, 0 },
	{ "ib-global-imm", 13, 1, 0, 0, 1, 0, 0, 1 },
	{ "roce1", 100, 0, 1, 0, 1, 0, 0, 0 },
	{ "roce1-vlan", 7, 0, 1, 1, 1, 0, 0, 1 },
	{ "roce2-ip4-imm", 1, 0, 1, 0, 0, 4, 1, 1 },
	{ "roce2-ip6-vlan", 4096, 0, 1, 1, 1, 6, 1, 0 },
	{ "ib-ip6-noudp", 2, 1, 0, 0, 0, 6, 0, 0 },
};

static u8 kt_buf[128];

static int kt_ud_pack(void)
{
	const struct kt_ud_case *c;
	struct ib_ud_header h;
	char what[48];
	int ret, len;

	for (c = kt_ud_cases; c < kt_ud_cases + ARRAY_SIZE(kt_ud_cases); c++) {
		ret = ib_ud_header_init(c->payload, c->lrh, c->eth, c->vlan,
					c->grh, c->ip, c->udp, c->imm, &h);
		if (KTAP_BAD(!ret, "%s: init %d", c->name, ret))
			return -EINVAL;
		kt_ud_addresses(&h);
		memset(kt_buf, 0xa5, sizeof(kt_buf));
		len = ib_ud_header_pack(&h, kt_buf);
		snprintf(what, sizeof(what), "ud %s", c->name);
		/* Four bytes more: what pack must not touch. */
		kt_golden_hex(what, kt_buf, min_t(int, len + 4, 128));
		if (h.ipv4_present)
			kt_golden("ud %s csum %04x", c->name,
				  be16_to_cpu((__force __be16)h.ip4.check));
	}
	/* UDP needs an IP header. */
	ret = ib_ud_header_init(8, 0, 1, 0, 1, 0, 1, 0, &h);
	kt_golden("ud udp-without-ip %d", ret);
	return ret == -EINVAL ? 0 : -EINVAL;
}

/* Every field of every header at once, with values wider than fields. */
static int kt_ud_all_fields(void)
{
	struct ib_ud_header h;
	u8 *p = (u8 *)&h;
	size_t i;
	int len;

	for (i = 0; i < sizeof(h); i++)
		p[i] = 0x3c ^ (i * 7);
	h.lrh_present = 1;
	h.eth_present = 1;
	h.vlan_present = 1;
	h.grh_present = 1;
	h.ipv4_present = 1;
	h.udp_present = 1;
	h.immediate_present = 1;
	memset(kt_buf, 0xff, sizeof(kt_buf));
	len = ib_ud_header_pack(&h, kt_buf);
	kt_golden_hex("ud all-fields", kt_buf, min_t(int, len + 4, 128));
	kt_golden("ud all-fields csum %04x",
		  be16_to_cpu((__force __be16)ib_ud_ip4_csum(&h)));
	return len == 118 ? 0 : -EINVAL;
}

/* IB packets unpack into what they were packed from; others are refused. */
static int kt_ud_unpack(void)
{
	struct ib_ud_header in, out;
	int ret, len;

	ret = ib_ud_header_init(13, 1, 0, 0, 1, 0, 0, 1, &in);
	if (ret)
		return ret;
	kt_ud_addresses(&in);
	memset(kt_buf, 0, sizeof(kt_buf));
	len = ib_ud_header_pack(&in, kt_buf);
	memset(&out, 0, sizeof(out));
	ret = ib_ud_header_unpack(kt_buf, &out);
	kt_golden("unpack global %d len %d", ret, len);
	if (KTAP_BAD(!ret, "unpack %d", ret) ||
	    KTAP_BAD(!memcmp(&in.lrh, &out.lrh, sizeof(in.lrh)), "LRH") ||
	    KTAP_BAD(!memcmp(&in.grh, &out.grh, sizeof(in.grh)), "GRH") ||
	    KTAP_BAD(!memcmp(&in.bth, &out.bth, sizeof(in.bth)), "BTH") ||
	    KTAP_BAD(!memcmp(&in.deth, &out.deth, sizeof(in.deth)), "DETH") ||
	    KTAP_BAD(out.grh_present && out.immediate_present &&
		     out.immediate_data == in.immediate_data, "flags"))
		return -EINVAL;
	kt_golden_hex("unpack lrh", &out.lrh, sizeof(out.lrh));
	kt_golden_hex("unpack bth", &out.bth, sizeof(out.bth));

	/* LRH version 1. */
	kt_buf[0] |= 0x01;
	kt_golden("unpack lver %d", ib_ud_header_unpack(kt_buf, &out));
	kt_buf[0] &= ~0x0f;
	/* Next header raw. */
	kt_buf[1] &= ~0x03;
	kt_golden("unpack lnh-raw %d", ib_ud_header_unpack(kt_buf, &out));
	kt_buf[1] |= IB_LNH_IBA_GLOBAL;
	/* Not UD: an RC SEND ONLY. */
	kt_buf[IB_LRH_BYTES + IB_GRH_BYTES] = IB_OPCODE_RC_SEND_ONLY;
	kt_golden("unpack rc %d", ib_ud_header_unpack(kt_buf, &out));
	/* GRH next header UDP. */
	kt_buf[IB_LRH_BYTES + IB_GRH_BYTES] = IB_OPCODE_UD_SEND_ONLY;
	kt_buf[IB_LRH_BYTES + 6] = IPPROTO_UDP;
	kt_golden("unpack nxthdr %d", ib_ud_header_unpack(kt_buf, &out));
	return 0;
}

/* ---------------------------------------------------------------- */
/* ib_pack()/ib_unpack() with fields of every kind                    */

struct kt_odd {
	u8 nib;
	__be16 eleven;
	__be32 twentyfour;
	__be64 forty;
	u8 bytes[12];
	u8 bit;
} __packed;

#define KT_ODD(f, size, w, b, n) {					\
	.struct_offset_bytes = offsetof(struct kt_odd, f),		\
	.struct_size_bytes = (size), .offset_words = (w),		\
	.offset_bits = (b), .size_bits = (n), .field_name = #f }

static const struct ib_field kt_odd_fields[] = {
	KT_ODD(forty, 8, 0, 3, 40),
	KT_ODD(nib, 1, 1, 11, 4),
	{ .offset_words = 1, .offset_bits = 15, .size_bits = 6, RESERVED },
	KT_ODD(eleven, 2, 1, 21, 11),
	KT_ODD(twentyfour, 4, 2, 4, 24),
	KT_ODD(bit, 1, 2, 31, 1),
	KT_ODD(bytes, 12, 3, 0, 96),
};

static int kt_pack_unpack(void)
{
	struct kt_odd in = {
		.nib = 0xfa, .eleven = cpu_to_be16(0xf5a5),
		.twentyfour = cpu_to_be32(0xff123456),
		.forty = cpu_to_be64(0xffffff0123456789ULL),
		.bytes = "abcdefghijk", .bit = 3,
	}, out = {};

	memset(kt_buf, 0x5a, sizeof(kt_buf));
	ib_pack(kt_odd_fields, ARRAY_SIZE(kt_odd_fields), &in, kt_buf);
	kt_golden_hex("pack odd", kt_buf, 28);
	ib_unpack(kt_odd_fields, ARRAY_SIZE(kt_odd_fields), kt_buf, &out);
	kt_golden_hex("unpack odd", &out, sizeof(out));
	return 0;
}

/* ---------------------------------------------------------------- */
/* DMA block iterator                                                 */

struct kt_sge {
	dma_addr_t addr;
	unsigned int len;
};

static const struct kt_sge kt_sges[] = {
	{ 0x10000800, 0x1800 },		/* ends on a 4K boundary */
	{ 0x10002000, 0x3000 },		/* continues it */
	{ 0x10005000, 0x0100 },		/* continues, short */
	{ 0x20000f00, 0x0200 },		/* crosses a boundary */
	{ 0x30000000, 0x2000 },
};

static int kt_blocks(void)
{
	static const unsigned long pgszs[] = { SZ_4K, SZ_8K, SZ_64K };
	struct scatterlist sgl[ARRAY_SIZE(kt_sges)];
	struct ib_block_iter biter;
	unsigned int i, nents;
	char line[256];
	int n, blocks;

	sg_init_table(sgl, ARRAY_SIZE(sgl));
	for (i = 0; i < ARRAY_SIZE(sgl); i++) {
		sg_dma_address(&sgl[i]) = kt_sges[i].addr;
		sg_dma_len(&sgl[i]) = kt_sges[i].len;
	}
	for (i = 0; i < ARRAY_SIZE(pgszs); i++) {
		for (nents = 1; nents <= ARRAY_SIZE(sgl); nents += 2) {
			n = 0;
			blocks = 0;
			line[0] = '\0';
			rdma_for_each_block(sgl, &biter, nents, pgszs[i]) {
				if (++blocks > 16)
					return -EINVAL;
				n += scnprintf(line + n, sizeof(line) - n, " %llx",
					       (u64)rdma_block_iter_dma_address(&biter));
			}
			kt_golden("blocks %lx %u%s", pgszs[i], nents, line);
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- */
/* On the device                                                      */

static struct {
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
} kt;

static int kt_vf(void)
{
	struct ifla_vf_guid ng, pg;
	struct ifla_vf_stats st;
	struct ifla_vf_info info;

	kt_golden("vf link_state %d",
		  ib_set_vf_link_state(kt.dev, 0, KT_PORT,
				       IFLA_VF_LINK_STATE_AUTO));
	kt_golden("vf config %d", ib_get_vf_config(kt.dev, 0, KT_PORT, &info));
	kt_golden("vf stats %d", ib_get_vf_stats(kt.dev, 0, KT_PORT, &st));
	kt_golden("vf get_guid %d", ib_get_vf_guid(kt.dev, 0, KT_PORT, &ng,
						   &pg));
	kt_golden("vf set_guid %d", ib_set_vf_guid(kt.dev, 0, KT_PORT, 1,
						   IFLA_VF_IB_NODE_GUID));
	return ib_get_vf_config(kt.dev, 0, KT_PORT, &info) == -EOPNOTSUPP ?
	       0 : -EINVAL;
}

static void kt_netdev_setup(struct net_device *ndev)
{
}

static int kt_netdev(void)
{
	struct net_device *ndev;

	ndev = rdma_alloc_netdev(kt.dev, KT_PORT, RDMA_NETDEV_IPOIB, "kt%d",
				 NET_NAME_UNKNOWN, kt_netdev_setup);
	kt_golden("netdev alloc %ld", IS_ERR(ndev) ? PTR_ERR(ndev) : 0L);
	if (!IS_ERR(ndev)) {
		free_netdev(ndev);
		return -EINVAL;
	}
	kt_golden("netdev init %d",
		  rdma_init_netdev(kt.dev, KT_PORT, RDMA_NETDEV_IPOIB, "kt%d",
				   NET_NAME_UNKNOWN, kt_netdev_setup, NULL));
	return 0;
}

static int kt_no_ops(void)
{
	struct ib_wq_init_attr wq_attr = {
		.wq_type = IB_WQT_RQ, .max_wr = 16, .max_sge = 1, .cq = kt.cq,
	};
	struct ib_sge sge = {};
	struct ib_xrcd *xrcd;
	struct ib_wq *wq;
	struct ib_mr *mr;
	bool odp;

	xrcd = ib_alloc_xrcd_user(kt.dev, NULL, NULL);
	kt_golden("xrcd %ld", IS_ERR(xrcd) ? PTR_ERR(xrcd) : 0L);
	if (!IS_ERR(xrcd))
		ib_dealloc_xrcd_user(xrcd, NULL);
	wq = ib_create_wq(kt.pd, &wq_attr);
	kt_golden("wq %ld", IS_ERR(wq) ? PTR_ERR(wq) : 0L);
	if (!IS_ERR(wq))
		ib_destroy_wq_user(wq, NULL);
	kt_golden("advise %d", ib_advise_mr(kt.pd,
					    IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH,
					    0, &sge, 1));
	kt_golden("moderation %d", rdma_set_cq_moderation(kt.cq, 4, 16));
	/*
	 * The core refuses ODP on a device without IBK_ON_DEMAND_PAGING
	 * (stock's rxe); our rxe has it, so there the registration, lazy
	 * and of an address nothing is mapped at, must succeed.
	 */
	odp = kt.dev->attrs.kernel_cap_flags & IBK_ON_DEMAND_PAGING;
	mr = ib_reg_user_mr(kt.pd, 0, PAGE_SIZE, 0,
			    IB_ACCESS_LOCAL_WRITE | IB_ACCESS_ON_DEMAND);
	kt_golden("reg_user_mr odp %ld", IS_ERR(mr) ? PTR_ERR(mr) : 0L);
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);
	if (KTAP_BAD(odp != IS_ERR(mr), "ODP cap %d, reg_user_mr %ld", odp,
		     IS_ERR(mr) ? PTR_ERR(mr) : 0L))
		return -EINVAL;
	return IS_ERR(xrcd) && IS_ERR(wq) ? 0 : -EINVAL;
}

static int kt_ah(void)
{
	struct rdma_ah_attr attr = {}, got = {};
	union ib_gid gid;
	struct ib_ah *ah;
	int ret;

	ret = rdma_query_gid(kt.dev, KT_PORT, 0, &gid);
	if (KTAP_BAD(!ret, "GID 0: %d", ret))
		return ret;
	attr.type = rdma_ah_find_type(kt.dev, KT_PORT);
	rdma_ah_set_port_num(&attr, KT_PORT);
	rdma_ah_set_grh(&attr, &gid, 0, 0, 64, 0);
	eth_broadcast_addr(attr.roce.dmac);
	attr.roce.dmac[0] = 0x02;
	ah = rdma_create_ah(kt.pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	if (KTAP_BAD(!IS_ERR(ah), "create %ld", PTR_ERR(ah)))
		return PTR_ERR(ah);

	ret = rdma_query_ah(ah, &got);
	kt_golden("ah query %d port %u sgid_index %u hop %u type %d", ret,
		  rdma_ah_get_port_num(&got), got.grh.sgid_index,
		  got.grh.hop_limit, got.type);
	if (!ret && KTAP_BAD(!memcmp(&got.grh.dgid, &gid, sizeof(gid)),
			     "dgid"))
		ret = -EINVAL;
	attr.type = RDMA_AH_ATTR_TYPE_IB;
	kt_golden("ah modify other-type %d", rdma_modify_ah(ah, &attr));
	attr.type = got.type;
	kt_golden("ah modify %d", rdma_modify_ah(ah, &attr));
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	return ret;
}

static int kt_cq_resize(void)
{
	struct ib_cq *cq;
	int ret;

	cq = ib_alloc_cq(kt.dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	ret = ib_resize_cq(cq, 64);
	kt_golden("cq resize %d big_enough %d", ret, cq->cqe >= 64);
	if (!ret && KTAP_BAD(cq->cqe >= 64, "cqe %d", cq->cqe))
		ret = -EINVAL;
	ib_free_cq(cq);
	return ret;
}

static int kt_usecnt(void)
{
	int pd0 = atomic_read(&kt.pd->usecnt);
	int cq0 = atomic_read(&kt.cq->usecnt);
	int pd1, cq1;

	ib_qp_usecnt_inc(kt.qp);
	pd1 = atomic_read(&kt.pd->usecnt);
	cq1 = atomic_read(&kt.cq->usecnt);
	ib_qp_usecnt_dec(kt.qp);
	kt_golden("usecnt pd +%d cq +%d", pd1 - pd0, cq1 - cq0);
	if (KTAP_BAD(pd1 == pd0 + 1 && cq1 == cq0 + 2, "pd %d->%d cq %d->%d",
		     pd0, pd1, cq0, cq1) ||
	    KTAP_BAD(atomic_read(&kt.pd->usecnt) == pd0 &&
		     atomic_read(&kt.cq->usecnt) == cq0, "not restored"))
		return -EINVAL;
	return 0;
}

static int kt_open_close(void)
{
	struct ib_qp_open_attr oa = { .qp_type = IB_QPT_RC };
	struct ib_xrcd xrcd = {};
	struct ib_qp *qp;

	kt_golden("close unshared %d", ib_close_qp(kt.qp));
	oa.qp_num = kt.qp->qp_num;
	qp = ib_open_qp(&xrcd, &oa);
	kt_golden("open rc %ld", IS_ERR(qp) ? PTR_ERR(qp) : 0L);
	return IS_ERR(qp) ? 0 : -EINVAL;
}

static int kt_restrack(void)
{
	rdma_restrack_sync(&kt.qp->res);
	rdma_restrack_begin_del(&kt.qp->res);
	rdma_restrack_abort_del(&kt.qp->res);
	rdma_restrack_sync(&kt.qp->res);
	/* The QP is still tracked; its destroy (at the end) must work. */
	return 0;
}

static int kt_cgroup(void)
{
	struct ib_rdmacg_object cg = {};
	int ret;

	ret = ib_rdmacg_try_charge(&cg, kt.dev, RDMACG_RESOURCE_HCA_OBJECT);
	kt_golden("rdmacg charge %d", ret);
	if (!ret)
		ib_rdmacg_uncharge(&cg, kt.dev, RDMACG_RESOURCE_HCA_OBJECT);
	return ret;
}

static void kt_sa_guid_cb(int status, struct ib_sa_guidinfo_rec *resp,
			  void *context)
{
}

static struct ib_sa_client kt_sa_client;

static int kt_sa_guid(void)
{
	struct ib_sa_guidinfo_rec rec = {};
	struct ib_sa_query *query;
	int ret;

	ib_sa_register_client(&kt_sa_client);
	ret = ib_sa_guid_info_rec_query(&kt_sa_client, kt.dev, KT_PORT, &rec,
					0, IB_MGMT_METHOD_GET, 1000,
					GFP_KERNEL, kt_sa_guid_cb, NULL,
					&query);
	ib_sa_unregister_client(&kt_sa_client);
	kt_golden("sa guidinfo %d", ret);
	return ret < 0 ? 0 : -EINVAL;
}

static int kt_cache(void)
{
	u64 prefix = ~0ULL;

	ib_get_cached_subnet_prefix(kt.dev, KT_PORT, &prefix);
	kt_golden("subnet_prefix %llx", prefix);
	return kt_sa_guid();
}

static int kt_setup(void)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	kt.dev = ib_device_get_by_name(kt_dev_name, RDMA_DRIVER_UNKNOWN);
	if (!kt.dev)
		return -ENODEV;
	kt.pd = ib_alloc_pd(kt.dev, 0);
	if (IS_ERR(kt.pd))
		goto err_dev;
	kt.cq = ib_alloc_cq(kt.dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (IS_ERR(kt.cq))
		goto err_pd;
	init.send_cq = kt.cq;
	init.recv_cq = kt.cq;
	kt.qp = ib_create_qp(kt.pd, &init);
	if (IS_ERR(kt.qp))
		goto err_cq;
	return 0;

err_cq:
	ib_free_cq(kt.cq);
err_pd:
	ib_dealloc_pd(kt.pd);
err_dev:
	ib_device_put(kt.dev);
	kt.dev = NULL;
	return -ENOMEM;
}

static int kt_teardown(void)
{
	int ret = ib_destroy_qp(kt.qp);

	kt_golden("destroy qp %d", ret);
	ib_free_cq(kt.cq);
	ib_dealloc_pd(kt.pd);
	ib_device_put(kt.dev);
	return ret;
}

static int __init hwverbs_test_init(void)
{
	bool dev;

	ktap_plan(KT_NR_CASES);
	ktap_run("static rates: tables and round trip", kt_rates, true, "");
	ktap_run("ud_header: init and pack of seven layouts", kt_ud_pack,
		 true, "");
	ktap_run("ud_header: every field packed", kt_ud_all_fields, true, "");
	ktap_run("ud_header: unpack and refusals", kt_ud_unpack, true, "");
	ktap_run("ib_pack/ib_unpack: odd fields", kt_pack_unpack, true, "");
	ktap_run("block iterator: blocks of an sg list", kt_blocks, true, "");

	dev = !kt_setup();
	ktap_run("VF ops without the driver's op", kt_vf, dev, "no device");
	ktap_run("rdma netdev without the driver's op", kt_netdev, dev,
		 "no device");
	ktap_run("XRC, WQ, advise, moderation without the op; ODP", kt_no_ops,
		 dev, "no device");
	ktap_run("AH query and modify", kt_ah, dev, "no device");
	ktap_run("CQ resize", kt_cq_resize, dev, "no device");
	ktap_run("QP usecnt inc/dec", kt_usecnt, dev, "no device");
	ktap_run("open/close of a QP that is not shared", kt_open_close, dev,
		 "no device");
	ktap_run("restrack sync, begin/abort del", kt_restrack, dev,
		 "no device");
	ktap_run("rdma cgroup charge", kt_cgroup, dev, "no device");
	ktap_run("cached subnet prefix, SA GuidInfo query", kt_cache, dev,
		 "no device");
	if (dev)
		kt_teardown();
	ktap_all_ran(KT_NR_CASES);
	return 0;
}

static void __exit hwverbs_test_exit(void)
{
}

module_init(hwverbs_test_init);
module_exit(hwverbs_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Test of the ib_core exports hardware drivers use");
