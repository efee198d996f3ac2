// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only module: what rdma_cm and ib_cm use of ib_core besides the MAD
 * layer: IP address resolution (rdma_resolve_ip(), rdma_addr_cancel(),
 * rdma_translate_ip()), AHs that answer a received packet, path records
 * (wire format, AH from a path), the SA client API on a RoCE port, the
 * GID type names, and ib_uverbs' copies into the user ABI layouts.
 *
 * On load it runs its cases once on an rxe device and prints KTAP
 * (version 1) into the kernel log, each line prefixed "addr_test: ";
 * addr_resolve.sh sets the topology up, passes its addresses as module
 * parameters and turns the lines into its own test lines.  The counts are
 * in the read-only parameters passed and failed.  Nothing it made is left
 * when the load returns.  A case whose parameter is not given is skipped.
 *
 * It uses only symbols both stacks export (the few that stock declares in
 * its private core_priv.h are declared in core_exports.h), so it builds
 * against the stock ib_core as well as ours.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <rdma/ib.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_marshall.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_verbs.h>

#include "ktap_module.h"

#include "core_exports.h"

static char *at_dev_name = "rxe0";
module_param_named(dev, at_dev_name, charp, 0444);
MODULE_PARM_DESC(dev, "the rxe device");
static char *at_netdev = "veth0";
module_param_named(netdev, at_netdev, charp, 0444);
MODULE_PARM_DESC(netdev, "its netdev");
static char *at_local4 = "";
module_param_named(local4, at_local4, charp, 0444);
MODULE_PARM_DESC(local4, "an IPv4 address of netdev");
static char *at_peer4 = "";
module_param_named(peer4, at_peer4, charp, 0444);
MODULE_PARM_DESC(peer4, "an IPv4 neighbour on netdev's link");
static char *at_peer_mac = "";
module_param_named(peer_mac, at_peer_mac, charp, 0444);
MODULE_PARM_DESC(peer_mac, "the neighbour's MAC (its IPv6 link-local comes from it)");
static char *at_silent4 = "";
module_param_named(silent4, at_silent4, charp, 0444);
MODULE_PARM_DESC(silent4, "an IPv4 address on netdev's subnet nobody has");
static char *at_unreach4 = "";
module_param_named(unreach4, at_unreach4, charp, 0444);
MODULE_PARM_DESC(unreach4, "an IPv4 address of an unreachable route");
static char *at_noroute4 = "";
module_param_named(noroute4, at_noroute4, charp, 0444);
MODULE_PARM_DESC(noroute4, "an IPv4 address without any route");

#define AT_PORT		1
/* A resolution's callback comes within this, even in a slow guest. */
#define AT_WAIT		(10 * HZ)
#define AT_TIMEOUT_MS	500
/* Resolutions started and cancelled at once, in the cancel cases. */
#define AT_CANCELS	64

static struct {
	struct ib_device *dev;
	struct net_device *ndev;
	int ifindex;
	u8 mac[ETH_ALEN];
	u8 peer_mac[ETH_ALEN];
	bool have_peer_mac;
	struct sockaddr_in local4, peer4, silent4, unreach4, noroute4;
	bool have_local4, have_peer4, have_silent4, have_unreach4;
	bool have_noroute4;
} at;

/* Expectation helpers: a diagnostic and -EINVAL when not met. */
#define AT_EQ(what, got, want) ({					\
	long long __g = (got), __w = (want);				\
	if (__g != __w)							\
		ktap_diag("%s: %lld, expected %lld", what, __g, __w);	\
	__g == __w ? 0 : -EINVAL;					\
})

static int at_mac_eq(const char *what, const u8 *got, const u8 *want)
{
	if (ether_addr_equal(got, want))
		return 0;
	ktap_diag("%s: %pM, expected %pM", what, got, want);
	return -EINVAL;
}

static bool at_parse4(const char *s, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	return *s && in4_pton(s, -1, (u8 *)&sin->sin_addr.s_addr, -1, NULL);
}

/* ------------------------------------------------------------------ */
/* rdma_resolve_ip()                                                    */

struct at_res {
	struct rdma_dev_addr da;
	struct completion done;
	atomic_t calls;
	int status;
	bool in_task;
	struct sockaddr_storage src;
	/* Set when the callback must prove it holds none of our locks. */
	struct rdma_dev_addr *idle;
};

static void at_res_cb(int status, struct sockaddr *src,
		      struct rdma_dev_addr *addr, void *context)
{
	struct at_res *r = context;

	r->status = status;
	r->in_task = in_task() && !irqs_disabled();
	memcpy(&r->src, src, rdma_addr_size(src));
	/* A cancel of nothing takes the resolver's lock: must not hang. */
	if (r->idle)
		rdma_addr_cancel(r->idle);
	atomic_inc(&r->calls);
	complete(&r->done);
}

static void at_res_init(struct at_res *r)
{
	memset(r, 0, sizeof(*r));
	r->da.net = &init_net;
	init_completion(&r->done);
	atomic_set(&r->calls, 0);
}

/*
 * Resolve @dst (from @src, may be NULL): the status, whether it came from
 * rdma_resolve_ip() itself (route errors, as on stock) or the callback.
 */
static int at_resolve(struct at_res *r, struct sockaddr *src,
		      struct sockaddr *dst, unsigned long timeout_ms)
{
	int ret;

	ret = rdma_resolve_ip(src, dst, &r->da, timeout_ms, at_res_cb, false,
			      r);
	if (ret)
		return ret;
	if (!wait_for_completion_timeout(&r->done, AT_WAIT)) {
		ktap_diag("no callback within %d s", AT_WAIT / HZ);
		rdma_addr_cancel(&r->da);
		return -EIO;
	}
	return r->status;
}

static int at_check_source(struct at_res *r, int network)
{
	return AT_EQ("bound_dev_if", r->da.bound_dev_if, at.ifindex) ?:
	       at_mac_eq("src_dev_addr", r->da.src_dev_addr, at.mac) ?:
	       AT_EQ("dev_type", r->da.dev_type, ARPHRD_ETHER) ?:
	       AT_EQ("network", r->da.network, network) ?:
	       AT_EQ("callbacks", atomic_read(&r->calls), 1) ?:
	       AT_EQ("callback in process context", r->in_task, 1);
}

static int at_resolve_own4(void)
{
	struct rdma_dev_addr idle = { .net = &init_net };
	struct sockaddr_in *src;
	struct at_res r;
	int ret;

	at_res_init(&r);
	r.idle = &idle;
	ret = at_resolve(&r, NULL, (struct sockaddr *)&at.local4,
			 AT_TIMEOUT_MS);
	if (AT_EQ("status", ret, 0))
		return -EINVAL;
	src = (struct sockaddr_in *)&r.src;
	if (src->sin_family != AF_INET ||
	    src->sin_addr.s_addr != at.local4.sin_addr.s_addr) {
		ktap_diag("source %pISc, expected %pI4", &r.src,
			  &at.local4.sin_addr);
		return -EINVAL;
	}
	return at_check_source(&r, RDMA_NETWORK_IB) ?:
	       at_mac_eq("dst_dev_addr (own)", r.da.dst_dev_addr, at.mac);
}

static int at_resolve_peer4(void)
{
	struct at_res r;
	int ret;

	at_res_init(&r);
	ret = at_resolve(&r, (struct sockaddr *)&at.local4,
			 (struct sockaddr *)&at.peer4, 5000);
	return AT_EQ("status", ret, 0) ?:
	       at_check_source(&r, RDMA_NETWORK_IB) ?:
	       at_mac_eq("dst_dev_addr", r.da.dst_dev_addr, at.peer_mac) ?:
	       AT_EQ("hoplimit", r.da.hoplimit,
		     READ_ONCE(init_net.ipv4.sysctl_ip_default_ttl));
}

/* The link-local address (and default GID) of a MAC: fe80::EUI-64. */
static void at_ll6(struct in6_addr *a, const u8 *mac)
{
	memset(a, 0, sizeof(*a));
	a->s6_addr[0] = 0xfe;
	a->s6_addr[1] = 0x80;
	addrconf_addr_eui48(&a->s6_addr[8], mac);
}

static int at_resolve_peer6(void)
{
	struct sockaddr_in6 dst;
	struct in6_addr own;
	struct at_res r;
	int ret;

	memset(&dst, 0, sizeof(dst));
	dst.sin6_family = AF_INET6;
	dst.sin6_scope_id = at.ifindex;
	at_ll6(&dst.sin6_addr, at.peer_mac);
	at_res_init(&r);
	/* Stock reads the link from bound_dev_if, not the scope id. */
	r.da.bound_dev_if = at.ifindex;
	ret = at_resolve(&r, NULL, (struct sockaddr *)&dst, 5000);
	if (AT_EQ("status", ret, 0))
		return -EINVAL;
	/* The source the route chose: our own link-local address. */
	at_ll6(&own, at.mac);
	if (r.src.ss_family != AF_INET6 ||
	    !ipv6_addr_equal(&((struct sockaddr_in6 *)&r.src)->sin6_addr,
			     &own)) {
		ktap_diag("source %pISc, expected %pI6c", &r.src, &own);
		return -EINVAL;
	}
	return at_check_source(&r, RDMA_NETWORK_IB) ?:
	       at_mac_eq("dst_dev_addr", r.da.dst_dev_addr, at.peer_mac) ?:
	       AT_EQ("hoplimit", r.da.hoplimit, 64);
}

static int at_resolve_silent(void)
{
	unsigned long start = jiffies;
	unsigned int ms;
	struct at_res r;
	int ret;

	at_res_init(&r);
	ret = at_resolve(&r, NULL, (struct sockaddr *)&at.silent4,
			 AT_TIMEOUT_MS);
	ms = jiffies_to_msecs(jiffies - start);
	ktap_diag("-ETIMEDOUT after %u ms (timeout %u ms)", ms, AT_TIMEOUT_MS);
	return AT_EQ("status", ret, -ETIMEDOUT) ?:
	       AT_EQ("no callback before the timeout", ms >= AT_TIMEOUT_MS - 20,
		     1) ?:
	       AT_EQ("callbacks", atomic_read(&r.calls), 1);
}

static int at_resolve_error(struct sockaddr_in *dst, int want)
{
	struct at_res r;
	int ret;

	at_res_init(&r);
	ret = at_resolve(&r, NULL, (struct sockaddr *)dst, AT_TIMEOUT_MS);
	return AT_EQ("status", ret, want);
}

static int at_resolve_bad_input(void)
{
	struct sockaddr_in6 src6 = { .sin6_family = AF_INET6 };
	struct at_res r;

	at_res_init(&r);
	return AT_EQ("mixed families",
		     rdma_resolve_ip((struct sockaddr *)&src6,
				     (struct sockaddr *)&at.local4, &r.da,
				     AT_TIMEOUT_MS, at_res_cb, false, &r),
		     -EINVAL) ?:
	       AT_EQ("callbacks", atomic_read(&r.calls), 0);
}

/*
 * Start resolutions and cancel each at once, toward an address that
 * resolves at once (its callback is queued) or never (it waits for the
 * neighbour): after rdma_addr_cancel() returns, no callback comes any
 * more, however long we wait past the timeout.
 */
static int at_cancel(struct sockaddr_in *dst)
{
	struct at_res *r;
	int calls[AT_CANCELS];
	int i, started = 0, ret = 0;

	r = kcalloc(AT_CANCELS, sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	for (i = 0; i < AT_CANCELS; i++) {
		at_res_init(&r[i]);
		if (rdma_resolve_ip(NULL, (struct sockaddr *)dst, &r[i].da,
				    AT_TIMEOUT_MS / 2, at_res_cb, false,
				    &r[i])) {
			calls[i] = -1;
			continue;
		}
		started++;
		/* Vary where the cancel lands relative to the work. */
		if (i % 4 == 1)
			udelay(10 * i);
		else if (i % 4 == 2)
			cond_resched();
		rdma_addr_cancel(&r[i].da);
		calls[i] = atomic_read(&r[i].calls);
	}
	msleep(AT_TIMEOUT_MS * 2);
	for (i = 0; i < AT_CANCELS; i++) {
		if (calls[i] < 0)
			continue;
		if (atomic_read(&r[i].calls) != calls[i] || calls[i] > 1) {
			ktap_diag("resolution %d: %d callbacks at cancel, %d later",
				  i, calls[i], atomic_read(&r[i].calls));
			ret = -EINVAL;
		}
	}
	kfree(r);
	return AT_EQ("resolutions started", started, AT_CANCELS) ?: ret;
}

/* ------------------------------------------------------------------ */
/* rdma_translate_ip() and the size helpers                             */

static int at_translate(void)
{
	struct rdma_dev_addr da = { .net = &init_net };
	struct sockaddr_in nobody = at.local4;
	int ret;

	ret = rdma_translate_ip((struct sockaddr *)&at.local4, &da);
	if (AT_EQ("own address", ret, 0) ||
	    AT_EQ("bound_dev_if", da.bound_dev_if, at.ifindex) ||
	    at_mac_eq("src_dev_addr", da.src_dev_addr, at.mac))
		return -EINVAL;

	/* 192.0.2.0/24 is documentation space: nobody here has it. */
	nobody.sin_addr.s_addr = htonl(0xc0000201);
	memset(&da, 0, sizeof(da));
	da.net = &init_net;
	ret = rdma_translate_ip((struct sockaddr *)&nobody, &da);
	if (AT_EQ("address nobody has", ret, -EADDRNOTAVAIL))
		return -EINVAL;

	memset(&da, 0, sizeof(da));
	da.net = &init_net;
	da.bound_dev_if = at.ifindex;
	ret = rdma_translate_ip((struct sockaddr *)&nobody, &da);
	if (AT_EQ("bound netdev, any address", ret, 0) ||
	    at_mac_eq("bound src_dev_addr", da.src_dev_addr, at.mac))
		return -EINVAL;

	memset(&da, 0, sizeof(da));
	da.net = &init_net;
	da.bound_dev_if = INT_MAX;
	ret = rdma_translate_ip((struct sockaddr *)&at.local4, &da);
	return AT_EQ("no such netdev", ret, -ENODEV);
}

static int at_addr_size(void)
{
	struct __kernel_sockaddr_storage kss = {};
	struct sockaddr_in6 in6 = {};

	kss.ss_family = AF_IB;
	in6.sin6_family = AF_IB;
	return AT_EQ("AF_INET", rdma_addr_size((struct sockaddr *)&at.local4),
		     sizeof(struct sockaddr_in)) ?:
	       AT_EQ("AF_IB in kss", rdma_addr_size_kss(&kss),
		     sizeof(struct sockaddr_ib)) ?:
	       AT_EQ("AF_IB in in6", rdma_addr_size_in6(&in6), 0) ?:
	       (in6.sin6_family = AF_INET6,
		AT_EQ("AF_INET6 in in6", rdma_addr_size_in6(&in6),
		      sizeof(in6))) ?:
	       (kss.ss_family = AF_UNIX,
		AT_EQ("AF_UNIX", rdma_addr_size_kss(&kss), 0));
}

/* ------------------------------------------------------------------ */
/* AH from a received packet                                            */

/* A RoCE v2/IPv4 receive buffer from @saddr to @daddr. */
static void at_ipv4_grh(struct ib_grh *grh, __be32 saddr, __be32 daddr)
{
	union rdma_network_hdr *hdr = (union rdma_network_hdr *)grh;
	struct iphdr *ip4 = &hdr->roce4grh;

	memset(grh, 0, sizeof(*grh));
	/* The unused first 20 bytes look like IPv6: only the sum tells. */
	grh->version_tclass_flow = cpu_to_be32(6 << 28);
	ip4->version = 4;
	ip4->ihl = 5;
	ip4->tos = 0x10;
	ip4->tot_len = htons(100);
	ip4->ttl = 64;
	ip4->protocol = IPPROTO_UDP;
	ip4->saddr = saddr;
	ip4->daddr = daddr;
	ip4->check = ip_fast_csum(ip4, 5);
}

static int at_hdr_version(const struct ib_grh *grh)
{
	return ib_get_rdma_header_version((const union rdma_network_hdr *)grh);
}

static int at_header_version(void)
{
	struct ib_grh grh;
	int ret;

	at_ipv4_grh(&grh, at.local4.sin_addr.s_addr, at.local4.sin_addr.s_addr);
	ret = AT_EQ("IPv4", at_hdr_version(&grh), 4);
	/* A bad sum: the IPv6 look wins. */
	((union rdma_network_hdr *)&grh)->roce4grh.check ^= htons(1);
	ret = ret ?: AT_EQ("IPv4, bad sum", at_hdr_version(&grh), 6);
	memset(&grh, 0, sizeof(grh));
	ret = ret ?: AT_EQ("garbage", at_hdr_version(&grh), 0);
	grh.version_tclass_flow = cpu_to_be32(6 << 28);
	return ret ?: AT_EQ("IPv6", at_hdr_version(&grh), 6);
}

static int at_check_reply(struct rdma_ah_attr *attr, const union ib_gid *dgid,
			  u8 tclass, u32 flow)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(attr);

	if (memcmp(&grh->dgid, dgid, sizeof(*dgid))) {
		ktap_diag("dgid %pI6, expected %pI6", &grh->dgid, dgid);
		return -EINVAL;
	}
	return AT_EQ("type", attr->type, RDMA_AH_ATTR_TYPE_ROCE) ?:
	       AT_EQ("GRH", !!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH), 1) ?:
	       AT_EQ("port", rdma_ah_get_port_num(attr), AT_PORT) ?:
	       AT_EQ("sgid_attr", !!grh->sgid_attr, 1) ?:
	       AT_EQ("sgid_attr type", grh->sgid_attr->gid_type,
		     IB_GID_TYPE_ROCE_UDP_ENCAP) ?:
	       AT_EQ("sgid is the packet's dgid",
		     !memcmp(&grh->sgid_attr->gid, dgid, sizeof(*dgid)), 1) ?:
	       AT_EQ("sgid_index", grh->sgid_index, grh->sgid_attr->index) ?:
	       AT_EQ("traffic class", grh->traffic_class, tclass) ?:
	       AT_EQ("flow label", grh->flow_label, flow) ?:
	       at_mac_eq("dmac", attr->roce.dmac, at.mac);
}

/* A packet from and to our own IPv4 address: the reply goes back to us. */
static int at_ah_from_wc4(void)
{
	struct ib_wc wc = { .wc_flags = IB_WC_GRH, .sl = 0 };
	struct rdma_ah_attr attr;
	union ib_gid own;
	struct ib_grh grh;
	struct ib_pd *pd;
	struct ib_ah *ah;
	int ret;

	at_ipv4_grh(&grh, at.local4.sin_addr.s_addr, at.local4.sin_addr.s_addr);
	ipv6_addr_set_v4mapped(at.local4.sin_addr.s_addr,
			       (struct in6_addr *)&own);
	ret = ib_init_ah_attr_from_wc(at.dev, AT_PORT, &wc, &grh, &attr);
	if (AT_EQ("from header", ret, 0))
		return -EINVAL;
	/* Traffic class and flow label come from the unused first word. */
	ret = at_check_reply(&attr, &own, 0, 0);
	rdma_destroy_ah_attr(&attr);
	if (ret)
		return ret;

	wc.wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
	wc.network_hdr_type = RDMA_NETWORK_IPV4;
	ret = ib_init_ah_attr_from_wc(at.dev, AT_PORT, &wc, &grh, &attr);
	if (AT_EQ("from network_hdr_type", ret, 0))
		return -EINVAL;
	ret = at_check_reply(&attr, &own, 0, 0);
	rdma_destroy_ah_attr(&attr);
	if (ret)
		return ret;

	pd = ib_alloc_pd(at.dev, 0);
	if (IS_ERR(pd))
		return AT_EQ("ib_alloc_pd", PTR_ERR(pd), 0);
	ah = ib_create_ah_from_wc(pd, &wc, &grh, AT_PORT);
	ret = AT_EQ("ib_create_ah_from_wc", PTR_ERR_OR_ZERO(ah), 0);
	if (!IS_ERR(ah))
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_dealloc_pd(pd);
	return ret;
}

/* The same over IPv6, from our link-local address to itself. */
static int at_ah_from_wc6(void)
{
	struct ib_wc wc = {
		.wc_flags = IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE,
		.network_hdr_type = RDMA_NETWORK_IPV6,
	};
	struct rdma_ah_attr attr;
	struct ib_grh grh = {};
	union ib_gid own;
	int ret;

	/* Our link-local address: our default GID. */
	at_ll6((struct in6_addr *)&own, at.mac);

	grh.version_tclass_flow = cpu_to_be32(6 << 28 | 0x28 << 20 | 0x12345);
	grh.next_hdr = IPPROTO_UDP;
	grh.hop_limit = 64;
	grh.sgid = own;
	grh.dgid = own;
	ret = ib_init_ah_attr_from_wc(at.dev, AT_PORT, &wc, &grh, &attr);
	if (AT_EQ("status", ret, 0))
		return -EINVAL;
	ret = at_check_reply(&attr, &own, 0x28, 0x12345);
	rdma_destroy_ah_attr(&attr);
	return ret;
}

static int at_ah_from_wc_bad(void)
{
	struct ib_wc wc = { .wc_flags = 0 };
	struct rdma_ah_attr attr;
	struct ib_grh grh;
	int ret;

	at_ipv4_grh(&grh, at.local4.sin_addr.s_addr, at.local4.sin_addr.s_addr);
	ret = ib_init_ah_attr_from_wc(at.dev, AT_PORT, &wc, &grh, &attr);
	if (AT_EQ("RoCE completion without GRH", ret, -EPROTOTYPE))
		return -EINVAL;
	/* Sent to an address that is not ours: no GID to answer from. */
	wc.wc_flags = IB_WC_GRH;
	at_ipv4_grh(&grh, at.local4.sin_addr.s_addr, htonl(0xc0000201));
	ret = ib_init_ah_attr_from_wc(at.dev, AT_PORT, &wc, &grh, &attr);
	if (!ret)
		rdma_destroy_ah_attr(&attr);
	return AT_EQ("not our GID", ret, -ENOENT);
}

/* ------------------------------------------------------------------ */
/* Path records                                                         */

static void at_path_fill(struct sa_path_rec *rec)
{
	int i;

	memset(rec, 0, sizeof(*rec));
	rec->rec_type = SA_PATH_REC_TYPE_IB;
	rec->service_id = cpu_to_be64(0x0102030405060708ULL);
	for (i = 0; i < 16; i++) {
		rec->dgid.raw[i] = 0x10 + i;
		rec->sgid.raw[i] = 0x20 + i;
	}
	rec->ib.dlid = cpu_to_be16(0x1234);
	rec->ib.slid = cpu_to_be16(0x5678);
	rec->ib.raw_traffic = 1;
	rec->flow_label = cpu_to_be32(0xabcde);
	rec->hop_limit = 0x40;
	rec->traffic_class = 0x28;
	rec->reversible = 1;
	rec->numb_path = 0x7f;
	rec->pkey = cpu_to_be16(0xffff);
	rec->qos_class = cpu_to_be16(0xabc);
	rec->sl = 0xd;
	rec->mtu_selector = 2;
	rec->mtu = IB_MTU_4096;
	rec->rate_selector = 2;
	rec->rate = 0x10;
	rec->packet_life_time_selector = 2;
	rec->packet_life_time = 0x12;
	rec->preference = 0x7;
}

/* at_path_fill()'s record on the wire (IBTA 15.2.5.16), worked by hand. */
static const u8 at_path_wire[64] = {
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
	0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
	0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27,
	0x28, 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f,
	0x12, 0x34, 0x56, 0x78,		/* DLID, SLID */
	0x8a, 0xbc, 0xde, 0x40,		/* raw, flow label, hop limit */
	0x28, 0xff, 0xff, 0xff,		/* tclass, reversible, numb, pkey */
	0xab, 0xcd, 0x85, 0x90,		/* qos, sl, mtu, rate */
	0x92, 0x07, 0x00, 0x00,		/* packet life time, preference */
	0x00, 0x00, 0x00, 0x00,
};

static int at_path_pack(void)
{
	struct sa_path_rec rec, back;
	u8 wire[64];

	at_path_fill(&rec);
	memset(wire, 0xa5, sizeof(wire));
	ib_sa_pack_path(&rec, wire);
	if (memcmp(wire, at_path_wire, sizeof(wire))) {
		ktap_diag("packed: %64phN", wire);
		ktap_diag("wanted: %64phN", at_path_wire);
		return -EINVAL;
	}
	memset(&back, 0, sizeof(back));
	back.rec_type = SA_PATH_REC_TYPE_IB;
	ib_sa_unpack_path(wire, &back);
	if (memcmp(&back, &rec, sizeof(rec))) {
		ktap_diag("unpacked: %*phN", (int)sizeof(back), &back);
		ktap_diag("original: %*phN", (int)sizeof(rec), &rec);
		return -EINVAL;
	}
	return 0;
}

/* Our own RoCE v2 GID of local4, held. */
static const struct ib_gid_attr *at_own_gid_attr(union ib_gid *gid)
{
	ipv6_addr_set_v4mapped(at.local4.sin_addr.s_addr,
			       (struct in6_addr *)gid);
	return rdma_find_gid_by_port(at.dev, gid, IB_GID_TYPE_ROCE_UDP_ENCAP,
				     AT_PORT, NULL);
}

static int at_ah_from_path(void)
{
	const struct ib_gid_attr *gid_attr;
	struct rdma_ah_attr attr;
	struct sa_path_rec rec;
	union ib_gid own;
	int ret;

	gid_attr = at_own_gid_attr(&own);
	if (IS_ERR(gid_attr))
		return AT_EQ("own GID", PTR_ERR(gid_attr), 0);

	memset(&rec, 0, sizeof(rec));
	rec.rec_type = SA_PATH_REC_TYPE_ROCE_V2;
	rec.sgid = own;
	rec.dgid = own;
	rec.hop_limit = 64;
	rec.traffic_class = 0x20;
	rec.flow_label = cpu_to_be32(0x777);
	rec.sl = 3;
	rec.rate = IB_RATE_10_GBPS;
	ether_addr_copy(rec.roce.dmac, at.peer_mac);

	ret = AT_EQ("without GID attribute",
		    ib_init_ah_attr_from_path(at.dev, AT_PORT, &rec, &attr,
					      NULL), -EINVAL);
	if (ret)
		goto out;
	ret = ib_init_ah_attr_from_path(at.dev, AT_PORT, &rec, &attr,
					gid_attr);
	if (AT_EQ("status", ret, 0)) {
		ret = -EINVAL;
		goto out;
	}
	ret = AT_EQ("route_resolved", rec.roce.route_resolved, 1) ?:
	      at_mac_eq("dmac", attr.roce.dmac, at.peer_mac) ?:
	      AT_EQ("sgid_attr", attr.grh.sgid_attr == gid_attr, 1) ?:
	      AT_EQ("sgid_index", attr.grh.sgid_index, gid_attr->index) ?:
	      AT_EQ("hop_limit", attr.grh.hop_limit, 64) ?:
	      AT_EQ("traffic_class", attr.grh.traffic_class, 0x20) ?:
	      AT_EQ("flow_label", attr.grh.flow_label, 0x777) ?:
	      AT_EQ("sl", rdma_ah_get_sl(&attr), 3) ?:
	      AT_EQ("static_rate", rdma_ah_get_static_rate(&attr),
		    IB_RATE_10_GBPS);
	rdma_destroy_ah_attr(&attr);
out:
	rdma_put_gid_attr(gid_attr);
	return ret;
}

static int at_ah_from_mcmember(void)
{
	struct ib_sa_mcmember_rec rec = {};
	struct rdma_ah_attr attr;
	int ret;

	ipv6_addr_set_v4mapped(at.local4.sin_addr.s_addr,
			       (struct in6_addr *)&rec.port_gid);
	ipv6_addr_set_v4mapped(htonl(0xe0000105),
			       (struct in6_addr *)&rec.mgid);
	rec.hop_limit = 1;
	rec.traffic_class = 0x10;
	ret = ib_init_ah_from_mcmember(at.dev, AT_PORT, &rec, at.ndev,
				       IB_GID_TYPE_ROCE_UDP_ENCAP, &attr);
	if (AT_EQ("status", ret, 0))
		return -EINVAL;
	ret = AT_EQ("dgid is the group",
		    !memcmp(&attr.grh.dgid, &rec.mgid, sizeof(rec.mgid)), 1) ?:
	      AT_EQ("sgid", !memcmp(&attr.grh.sgid_attr->gid, &rec.port_gid,
				    sizeof(rec.port_gid)), 1) ?:
	      AT_EQ("hop_limit", attr.grh.hop_limit, 1) ?:
	      AT_EQ("traffic_class", attr.grh.traffic_class, 0x10);
	rdma_destroy_ah_attr(&attr);
	return ret;
}

/* ------------------------------------------------------------------ */
/* The SA client API on a RoCE port                                     */

static int at_sa_mcast_cb(int status, struct ib_sa_multicast *mc)
{
	ktap_diag("unexpected join callback %d", status);
	return 0;
}

static void at_sa_path_cb(int status, struct sa_path_rec *resp, int n,
			  void *context)
{
	ktap_diag("unexpected path callback %d", status);
}

static int at_sa_roce(void)
{
	static struct ib_sa_client client;
	struct ib_sa_mcmember_rec mc = {};
	struct ib_sa_multicast *m;
	struct ib_sa_query *q = NULL;
	struct sa_path_rec rec;
	int ret;

	ib_sa_register_client(&client);
	at_path_fill(&rec);
	ret = AT_EQ("path query", ib_sa_path_rec_get(&client, at.dev, AT_PORT,
						     &rec, 0, 100, GFP_KERNEL,
						     at_sa_path_cb, NULL, &q),
		    -ENODEV);
	m = ib_sa_join_multicast(&client, at.dev, AT_PORT, &mc, 0, GFP_KERNEL,
				 at_sa_mcast_cb, NULL);
	ret = ret ?: AT_EQ("join", PTR_ERR_OR_ZERO(m), -ENODEV);
	ret = ret ?: AT_EQ("member record",
			   ib_sa_get_mcmember_rec(at.dev, AT_PORT, &mc.mgid,
						  &mc), -ENODEV);
	/* Returns at once: no query holds the client. */
	ib_sa_unregister_client(&client);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Names and masks                                                      */

static int at_names(void)
{
	return AT_EQ("type IB", strcmp(ib_cache_gid_type_str(IB_GID_TYPE_IB),
				       "IB/RoCE v1"), 0) ?:
	       AT_EQ("type v2",
		     strcmp(ib_cache_gid_type_str(IB_GID_TYPE_ROCE_UDP_ENCAP),
			    "RoCE v2"), 0) ?:
	       AT_EQ("type 7", strcmp(ib_cache_gid_type_str(7),
				      "Invalid GID type"), 0) ?:
	       AT_EQ("parse v2", ib_cache_gid_parse_type_str("RoCE v2\n"),
		     IB_GID_TYPE_ROCE_UDP_ENCAP) ?:
	       AT_EQ("parse v1", ib_cache_gid_parse_type_str("IB/RoCE v1"),
		     IB_GID_TYPE_IB) ?:
	       AT_EQ("parse prefix", ib_cache_gid_parse_type_str("RoCE"),
		     -EINVAL) ?:
	       AT_EQ("parse empty", ib_cache_gid_parse_type_str(""), -EINVAL) ?:
	       AT_EQ("rxe GID types",
		     roce_gid_type_mask_support(at.dev, AT_PORT),
		     BIT(IB_GID_TYPE_ROCE_UDP_ENCAP)) ?:
	       AT_EQ("transport CA", rdma_node_get_transport(RDMA_NODE_IB_CA),
		     RDMA_TRANSPORT_IB) ?:
	       AT_EQ("transport RNIC", rdma_node_get_transport(RDMA_NODE_RNIC),
		     RDMA_TRANSPORT_IWARP) ?:
	       AT_EQ("transport usNIC UDP",
		     rdma_node_get_transport(RDMA_NODE_USNIC_UDP),
		     RDMA_TRANSPORT_USNIC_UDP);
}

/* ------------------------------------------------------------------ */
/* ib_uverbs' copies into the user ABI                                  */

static int at_marshall(void)
{
	struct ib_user_path_rec upr;
	struct ib_uverbs_qp_attr uqp;
	struct sa_path_rec rec, back;
	struct ib_qp_attr qp = {};
	int ret;

	at_path_fill(&rec);
	memset(&upr, 0xa5, sizeof(upr));
	ib_copy_path_rec_to_user(&upr, &rec);
	ret = AT_EQ("user dlid", upr.dlid, rec.ib.dlid) ?:
	      AT_EQ("user slid", upr.slid, rec.ib.slid) ?:
	      AT_EQ("user raw_traffic", upr.raw_traffic, 1) ?:
	      AT_EQ("user flow_label", upr.flow_label, rec.flow_label) ?:
	      AT_EQ("user reversible", upr.reversible, 1) ?:
	      AT_EQ("user mtu", upr.mtu, IB_MTU_4096) ?:
	      AT_EQ("user preference", upr.preference, 7);
	if (ret)
		return ret;
	ib_copy_path_rec_from_user(&back, &upr);
	/* Back as an IB record; service id and QoS class are not in the ABI. */
	rec.service_id = 0;
	rec.qos_class = 0;
	if (memcmp(&back, &rec, sizeof(rec))) {
		ktap_diag("from user: %*phN", (int)sizeof(back), &back);
		ktap_diag("expected:  %*phN", (int)sizeof(rec), &rec);
		return -EINVAL;
	}

	qp.qp_state = IB_QPS_RTR;
	qp.path_mtu = IB_MTU_1024;
	qp.dest_qp_num = 0x123456;
	qp.cap.max_inline_data = 64;
	qp.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&qp.ah_attr, AT_PORT);
	rdma_ah_set_grh(&qp.ah_attr, &rec.dgid, 0x55, 3, 9, 0x20);
	qp.alt_timeout = 14;
	memset(&uqp, 0xa5, sizeof(uqp));
	uqp.qp_attr_mask = 0x1234;
	ib_copy_qp_attr_to_user(at.dev, &uqp, &qp);
	return AT_EQ("qp_attr_mask untouched", uqp.qp_attr_mask, 0x1234) ?:
	       AT_EQ("qp_state", uqp.qp_state, IB_QPS_RTR) ?:
	       AT_EQ("dest_qp_num", uqp.dest_qp_num, 0x123456) ?:
	       AT_EQ("max_inline_data", uqp.max_inline_data, 64) ?:
	       AT_EQ("is_global", uqp.ah_attr.is_global, 1) ?:
	       AT_EQ("dgid", !memcmp(uqp.ah_attr.grh.dgid, rec.dgid.raw, 16),
		     1) ?:
	       AT_EQ("flow_label", uqp.ah_attr.grh.flow_label, 0x55) ?:
	       AT_EQ("sgid_index", uqp.ah_attr.grh.sgid_index, 3) ?:
	       AT_EQ("hop_limit", uqp.ah_attr.grh.hop_limit, 9) ?:
	       AT_EQ("ah reserved", uqp.ah_attr.reserved, 0) ?:
	       AT_EQ("alt is_global", uqp.alt_ah_attr.is_global, 0) ?:
	       AT_EQ("alt grh zero", memchr_inv(&uqp.alt_ah_attr.grh, 0,
						sizeof(uqp.alt_ah_attr.grh)) ==
		     NULL, 1) ?:
	       AT_EQ("alt_timeout", uqp.alt_timeout, 14) ?:
	       AT_EQ("reserved zero", memchr_inv(uqp.reserved, 0,
						 sizeof(uqp.reserved)) == NULL,
		     1);
}

/* ------------------------------------------------------------------ */

static int at_resolve_unreach(void)
{
	return at_resolve_error(&at.unreach4, -EHOSTUNREACH);
}

static int at_resolve_noroute(void)
{
	return at_resolve_error(&at.noroute4, -ENETUNREACH);
}

static int at_cancel_own(void)
{
	return at_cancel(&at.local4);
}

static int at_cancel_silent(void)
{
	return at_cancel(&at.silent4);
}

/* The cases, in KTAP order; a case without its parameters is skipped. */
enum {
	AT_NEED_LOCAL4 = BIT(0),
	AT_NEED_PEER4 = BIT(1),
	AT_NEED_PEER_MAC = BIT(2),
	AT_NEED_SILENT4 = BIT(3),
	AT_NEED_UNREACH4 = BIT(4),
	AT_NEED_NOROUTE4 = BIT(5),
};

static const struct at_case {
	const char *name;
	int (*run)(void);
	unsigned int needs;
} at_cases[] = {
	{ "rdma_resolve_ip: own IPv4 address, from the route",
	  at_resolve_own4, AT_NEED_LOCAL4 },
	{ "rdma_resolve_ip: IPv4 neighbour, its MAC by ARP",
	  at_resolve_peer4, AT_NEED_LOCAL4 | AT_NEED_PEER4 | AT_NEED_PEER_MAC },
	{ "rdma_resolve_ip: IPv6 link-local neighbour, by ND",
	  at_resolve_peer6, AT_NEED_PEER_MAC },
	{ "rdma_resolve_ip: silent neighbour times out (-ETIMEDOUT)",
	  at_resolve_silent, AT_NEED_SILENT4 },
	{ "rdma_resolve_ip: unreachable route (-EHOSTUNREACH)",
	  at_resolve_unreach, AT_NEED_UNREACH4 },
	{ "rdma_resolve_ip: no route (-ENETUNREACH)",
	  at_resolve_noroute, AT_NEED_NOROUTE4 },
	{ "rdma_resolve_ip: mixed families (-EINVAL)",
	  at_resolve_bad_input, AT_NEED_LOCAL4 },
	{ "rdma_addr_cancel: resolved at once, no callback after",
	  at_cancel_own, AT_NEED_LOCAL4 },
	{ "rdma_addr_cancel: awaiting the neighbour, no callback after",
	  at_cancel_silent, AT_NEED_SILENT4 },
	{ "rdma_translate_ip: own, foreign, bound and bad netdev",
	  at_translate, AT_NEED_LOCAL4 },
	{ "rdma_addr_size*: families and containers",
	  at_addr_size, AT_NEED_LOCAL4 },
	{ "ib_get_rdma_header_version: IPv4, bad sum, IPv6, garbage",
	  at_header_version, AT_NEED_LOCAL4 },
	{ "ib_init_ah_attr_from_wc: RoCE v2/IPv4, and an AH from it",
	  at_ah_from_wc4, AT_NEED_LOCAL4 },
	{ "ib_init_ah_attr_from_wc: RoCE v2/IPv6 link-local",
	  at_ah_from_wc6, 0 },
	{ "ib_init_ah_attr_from_wc: no GRH, foreign GID",
	  at_ah_from_wc_bad, AT_NEED_LOCAL4 },
	{ "ib_sa_pack_path/unpack_path: wire image, round trip",
	  at_path_pack, 0 },
	{ "ib_init_ah_attr_from_path: RoCE v2 path",
	  at_ah_from_path, AT_NEED_LOCAL4 | AT_NEED_PEER_MAC },
	{ "ib_init_ah_from_mcmember: RoCE v2 group",
	  at_ah_from_mcmember, AT_NEED_LOCAL4 },
	{ "ib_sa_*: a RoCE port has no SA (-ENODEV)",
	  at_sa_roce, 0 },
	{ "GID type names, RoCE GID types, node transports",
	  at_names, 0 },
	{ "ib_copy_*_to_user/from_user: uapi layouts",
	  at_marshall, 0 },
	{ "rdma_resolve_ip: own IPv4 address again, after all that",
	  at_resolve_own4, AT_NEED_LOCAL4 },
};

static void at_run_all(void)
{
	unsigned int have = 0;
	int i;

	if (at.have_local4)
		have |= AT_NEED_LOCAL4;
	if (at.have_peer4)
		have |= AT_NEED_PEER4;
	if (at.have_peer_mac)
		have |= AT_NEED_PEER_MAC;
	if (at.have_silent4)
		have |= AT_NEED_SILENT4;
	if (at.have_unreach4)
		have |= AT_NEED_UNREACH4;
	if (at.have_noroute4)
		have |= AT_NEED_NOROUTE4;

	ktap_plan(ARRAY_SIZE(at_cases));
	for (i = 0; i < ARRAY_SIZE(at_cases); i++) {
		const struct at_case *c = &at_cases[i];

		if ((c->needs & have) == c->needs)
			ktap_result(c->run(), c->name);
		else
			ktap_skip(c->name, "parameter not given");
	}
}

static int __init addr_test_init(void)
{
	at.have_local4 = at_parse4(at_local4, &at.local4);
	at.have_peer4 = at_parse4(at_peer4, &at.peer4);
	at.have_silent4 = at_parse4(at_silent4, &at.silent4);
	at.have_unreach4 = at_parse4(at_unreach4, &at.unreach4);
	at.have_noroute4 = at_parse4(at_noroute4, &at.noroute4);
	at.have_peer_mac = *at_peer_mac && mac_pton(at_peer_mac, at.peer_mac);

	at.ndev = dev_get_by_name(&init_net, at_netdev);
	if (!at.ndev) {
		pr_err("no netdev %s\n", at_netdev);
		return -ENODEV;
	}
	at.ifindex = at.ndev->ifindex;
	ether_addr_copy(at.mac, at.ndev->dev_addr);
	at.dev = ib_device_get_by_name(at_dev_name, RDMA_DRIVER_UNKNOWN);
	if (!at.dev) {
		pr_err("no device %s\n", at_dev_name);
		dev_put(at.ndev);
		return -ENODEV;
	}
	at_run_all();
	ib_device_put(at.dev);
	dev_put(at.ndev);
	return 0;
}

static void __exit addr_test_exit(void)
{
}

module_init(addr_test_init);
module_exit(addr_test_exit);
MODULE_DESCRIPTION("Test-only: ib_core address resolution, AHs, SA API; KTAP");
MODULE_LICENSE("GPL");
