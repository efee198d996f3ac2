// SPDX-License-Identifier: GPL-2.0-only
/*
 * The RoCEv2 invariant CRC (IBTA vol. 1 annex A17.3.3): the CRC32 of
 * Ethernet over
 *
 *	8 bytes of 1s (standing for the LRH a RoCEv2 packet lacks),
 *	the IP header, the UDP header and the BTH, with the fields a
 *	router or switch may change replaced by 1s: IPv4 TOS, TTL and
 *	header checksum; IPv6 traffic class, flow label and hop limit;
 *	the UDP checksum; the BTH's reserved byte before the QPN (FECN,
 *	BECN),
 *	then the rest of the packet up to the ICRC (extension headers,
 *	payload, pad),
 *
 * complemented, and sent least significant byte first.  Packets carry
 * IPv4 headers without options only.
 */
#include <linux/crc32.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>

#include "rxe.h"
#include "rxe_engine.h"

/* The variant-masked headers: 1s, IP, UDP, BTH. */
#define RXE_ICRC_LRH		8
#define RXE_ICRC_PSEUDO_MAX	(RXE_ICRC_LRH + sizeof(struct ipv6hdr) + \
				 sizeof(struct udphdr) + sizeof(struct rxe_bth))

static u32 rxe_icrc_compute(const u8 *iph, const struct rxe_pkt_info *pkt)
{
	u8 buf[RXE_ICRC_PSEUDO_MAX];
	unsigned int iplen, len;
	struct udphdr *udph;
	u8 *ip = buf + RXE_ICRC_LRH;
	struct rxe_bth *bth;
	u32 crc;

	iplen = (iph[0] >> 4) == 6 ? sizeof(struct ipv6hdr) :
				     sizeof(struct iphdr);
	memset(buf, 0xff, RXE_ICRC_LRH);
	/* IP, UDP and BTH are contiguous in every packet rxe handles. */
	len = iplen + sizeof(*udph) + sizeof(*bth);
	memcpy(ip, iph, len);

	if (iplen == sizeof(struct ipv6hdr)) {
		struct ipv6hdr *ip6h = (struct ipv6hdr *)ip;

		/* Version stays, traffic class and flow label go. */
		ip6h->flow_lbl[0] = 0xff;
		ip6h->flow_lbl[1] = 0xff;
		ip6h->flow_lbl[2] = 0xff;
		ip[0] |= 0x0f;
		ip6h->hop_limit = 0xff;
	} else {
		struct iphdr *ip4h = (struct iphdr *)ip;

		ip4h->tos = 0xff;
		ip4h->ttl = 0xff;
		ip4h->check = htons(0xffff);
	}
	udph = (struct udphdr *)(ip + iplen);
	udph->check = htons(0xffff);
	bth = (struct rxe_bth *)(udph + 1);
	bth->qpn |= cpu_to_be32(~RXE_BTH_QPN_MASK);

	crc = crc32_le(~0U, buf, RXE_ICRC_LRH + len);
	/* Everything after the BTH up to the ICRC. */
	crc = crc32_le(crc, pkt->hdr + sizeof(*bth),
		       pkt->paylen - sizeof(*bth) - RXE_ICRC_SIZE);
	return ~crc;
}

u32 rxe_icrc(struct sk_buff *skb, const struct rxe_pkt_info *pkt)
{
	return rxe_icrc_compute(skb_network_header(skb), pkt);
}

int rxe_icrc_check(struct sk_buff *skb, const struct rxe_pkt_info *pkt)
{
	u32 wire = get_unaligned_le32(pkt->hdr + pkt->paylen - RXE_ICRC_SIZE);

	return wire == rxe_icrc(skb, pkt) ? 0 : -EINVAL;
}
