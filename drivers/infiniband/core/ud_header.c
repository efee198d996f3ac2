// SPDX-License-Identifier: GPL-2.0-only
/*
 * The headers of a UD send built by software (struct ib_ud_header of
 * <rdma/ib_pack.h>): drivers that put QP1 or IPoIB packets on the wire
 * themselves (mlx4, mlx5, qedr, ocrdma) fill the structure with
 * ib_ud_header_init(), set addresses, and ib_ud_header_pack() writes it.
 *
 * The field tables are the header layouts of the IBTA (vol. 1 ch. 5: LRH
 * 7.7, GRH 8.3, BTH 9.2, DETH 9.3), of RoCE v1 (Ethernet and 802.1Q) and
 * RoCE v2 (IPv4 RFC 791, UDP RFC 768).  Every bit of each header is in
 * its table, reserved ones as zeros, so a packed header depends on the
 * structure alone, never on what the buffer held.
 */
#include <linux/export.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <net/checksum.h>
#include <rdma/ib_pack.h>

/*
 * Field @f of struct ib_unpacked_@hdr, @size bytes wide there, on the
 * wire @bits long at bit @bit of word @word.  (The selftest ud_header
 * packs and unpacks every field with distinct values, against stock.)
 */
#define UD_FIELD(hdr, f, size, word, bit, bits) {			\
	.struct_offset_bytes = offsetof(struct ib_unpacked_##hdr, f),	\
	.struct_size_bytes = (size),					\
	.offset_words = (word), .offset_bits = (bit),			\
	.size_bits = (bits), .field_name = #hdr ":" #f }
#define UD_RESERVED(word, bit, bits) {					\
	.offset_words = (word), .offset_bits = (bit),			\
	.size_bits = (bits), RESERVED }

/* Local Route Header (IB). */
static const struct ib_field ud_lrh_fields[] = {
	UD_FIELD(lrh, virtual_lane, 1, 0, 0, 4),
	UD_FIELD(lrh, link_version, 1, 0, 4, 4),
	UD_FIELD(lrh, service_level, 1, 0, 8, 4),
	UD_RESERVED(0, 12, 2),
	UD_FIELD(lrh, link_next_header, 1, 0, 14, 2),
	UD_FIELD(lrh, destination_lid, 2, 0, 16, 16),
	UD_RESERVED(1, 0, 5),
	UD_FIELD(lrh, packet_length, 2, 1, 5, 11),
	UD_FIELD(lrh, source_lid, 2, 1, 16, 16),
};

/* Ethernet II (RoCE): the MACs split at word boundaries as the struct. */
static const struct ib_field ud_eth_fields[] = {
	UD_FIELD(eth, dmac_h, 4, 0, 0, 32),
	UD_FIELD(eth, dmac_l, 2, 1, 0, 16),
	UD_FIELD(eth, smac_h, 2, 1, 16, 16),
	UD_FIELD(eth, smac_l, 4, 2, 0, 32),
	UD_FIELD(eth, type, 2, 3, 0, 16),
};

/* 802.1Q tag: TCI, then the encapsulated EtherType. */
static const struct ib_field ud_vlan_fields[] = {
	UD_FIELD(vlan, tag, 2, 0, 0, 16),
	UD_FIELD(vlan, type, 2, 0, 16, 16),
};

/* Global Route Header (IB, and the IPv6 header of RoCE v2). */
static const struct ib_field ud_grh_fields[] = {
	UD_FIELD(grh, ip_version, 1, 0, 0, 4),
	UD_FIELD(grh, traffic_class, 1, 0, 4, 8),
	UD_FIELD(grh, flow_label, 4, 0, 12, 20),
	UD_FIELD(grh, payload_length, 2, 1, 0, 16),
	UD_FIELD(grh, next_header, 1, 1, 16, 8),
	UD_FIELD(grh, hop_limit, 1, 1, 24, 8),
	UD_FIELD(grh, source_gid, 16, 2, 0, 128),
	UD_FIELD(grh, destination_gid, 16, 6, 0, 128),
};

/* IPv4 header without options (RoCE v2). */
static const struct ib_field ud_ip4_fields[] = {
	UD_FIELD(ip4, ver, 1, 0, 0, 4),
	UD_FIELD(ip4, hdr_len, 1, 0, 4, 4),
	UD_FIELD(ip4, tos, 1, 0, 8, 8),
	UD_FIELD(ip4, tot_len, 2, 0, 16, 16),
	UD_FIELD(ip4, id, 2, 1, 0, 16),
	UD_FIELD(ip4, frag_off, 2, 1, 16, 16),
	UD_FIELD(ip4, ttl, 1, 2, 0, 8),
	UD_FIELD(ip4, protocol, 1, 2, 8, 8),
	UD_FIELD(ip4, check, 2, 2, 16, 16),
	UD_FIELD(ip4, saddr, 4, 3, 0, 32),
	UD_FIELD(ip4, daddr, 4, 4, 0, 32),
};

/* UDP header (RoCE v2). */
static const struct ib_field ud_udp_fields[] = {
	UD_FIELD(udp, sport, 2, 0, 0, 16),
	UD_FIELD(udp, dport, 2, 0, 16, 16),
	UD_FIELD(udp, length, 2, 1, 0, 16),
	UD_FIELD(udp, csum, 2, 1, 16, 16),
};

/* Base Transport Header. */
static const struct ib_field ud_bth_fields[] = {
	UD_FIELD(bth, opcode, 1, 0, 0, 8),
	UD_FIELD(bth, solicited_event, 1, 0, 8, 1),
	UD_FIELD(bth, mig_req, 1, 0, 9, 1),
	UD_FIELD(bth, pad_count, 1, 0, 10, 2),
	UD_FIELD(bth, transport_header_version, 1, 0, 12, 4),
	UD_FIELD(bth, pkey, 2, 0, 16, 16),
	UD_RESERVED(1, 0, 8),
	UD_FIELD(bth, destination_qpn, 4, 1, 8, 24),
	UD_FIELD(bth, ack_req, 1, 2, 0, 1),
	UD_RESERVED(2, 1, 7),
	UD_FIELD(bth, psn, 4, 2, 8, 24),
};

/* Datagram Extended Transport Header. */
static const struct ib_field ud_deth_fields[] = {
	UD_FIELD(deth, qkey, 4, 0, 0, 32),
	UD_RESERVED(1, 0, 8),
	UD_FIELD(deth, source_qpn, 4, 1, 8, 24),
};

/* IBTA next header of a GRH followed by a BTH (IPv6 RoCE v1, IB). */
#define UD_GRH_NEXT_BTH	0x1b

/**
 * ib_ud_ip4_csum - the IPv4 header checksum of a RoCE v2 header
 * @header: with ip4 filled in
 *
 * Computed over a 20-byte header (version 4, no options) made of the
 * ip4 fields with a zero checksum, whatever ip4.ver and ip4.hdr_len say.
 *
 * Return: the value for header->ip4.check.
 */
__sum16 ib_ud_ip4_csum(struct ib_ud_header *header)
{
	const struct ib_unpacked_ip4 *ip4 = &header->ip4;
	struct iphdr iph = {
		.version = 4,
		.ihl = 5,
		.tos = ip4->tos,
		.tot_len = ip4->tot_len,
		.id = ip4->id,
		.frag_off = ip4->frag_off,
		.ttl = ip4->ttl,
		.protocol = ip4->protocol,
		.saddr = ip4->saddr,
		.daddr = ip4->daddr,
	};

	return ip_fast_csum(&iph, iph.ihl);
}
EXPORT_SYMBOL(ib_ud_ip4_csum);

/**
 * ib_ud_header_init - prepare the headers of a UD SEND ONLY
 * @payload_bytes: the payload that follows them
 * @lrh_present: with an LRH (IB)
 * @eth_present: with an Ethernet header (RoCE)
 * @vlan_present: with an 802.1Q tag (eth.type becomes ETH_P_8021Q)
 * @grh_present: with a GRH (ignored when @ip_version is set)
 * @ip_version: 4 or 6 for an IP header (RoCE v2; 6 is the GRH), else 0
 * @udp_present: with a UDP header, which needs @ip_version
 * @immediate_present: SEND ONLY with immediate
 * @header: zeroed, then filled with the lengths, versions, next headers
 *	and opcode; addresses, keys and QPNs are the caller's to set
 *
 * Lengths count the headers that follow each one, the payload padded to
 * 4 bytes and the ICRC (the LRH's in 4-byte words, including itself).
 *
 * Return: 0, or -EINVAL for UDP without IPv4 or IPv6.
 */
int ib_ud_header_init(int payload_bytes, int lrh_present, int eth_present,
		      int vlan_present, int grh_present, int ip_version,
		      int udp_present, int immediate_present,
		      struct ib_ud_header *header)
{
	/* From the BTH to the end of the packet, before any padding. */
	int transport = IB_BTH_BYTES + IB_DETH_BYTES + payload_bytes +
			IB_ICRC_BYTES;
	int udp = udp_present ? IB_UDP_BYTES : 0;
	bool grh = ip_version == 6 || (grh_present && !ip_version);

	memset(header, 0, sizeof(*header));
	if (udp_present && ip_version != 4 && ip_version != 6)
		return -EINVAL;

	if (lrh_present) {
		header->lrh.link_next_header = grh && !ip_version ?
					       IB_LNH_IBA_GLOBAL :
					       IB_LNH_IBA_LOCAL;
		header->lrh.packet_length =
			cpu_to_be16(DIV_ROUND_UP(IB_LRH_BYTES +
						 (grh && !ip_version ?
						  IB_GRH_BYTES : 0) +
						 transport, 4));
	}

	if (vlan_present)
		header->eth.type = cpu_to_be16(ETH_P_8021Q);

	if (grh) {
		header->grh.ip_version = 6;
		header->grh.payload_length =
			cpu_to_be16(round_up(udp + transport, 4));
		header->grh.next_header = udp_present ? IPPROTO_UDP :
							UD_GRH_NEXT_BTH;
	}

	if (ip_version == 4) {
		header->ip4.ver = 4;
		header->ip4.hdr_len = 5;	/* 32-bit words, no options */
		header->ip4.tot_len = cpu_to_be16(IB_IP4_BYTES + udp +
						  transport);
		header->ip4.protocol = IPPROTO_UDP;
	}
	if (udp_present)
		header->udp.length = cpu_to_be16(IB_UDP_BYTES + transport);

	header->bth.opcode = immediate_present ?
			     IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE :
			     IB_OPCODE_UD_SEND_ONLY;
	header->bth.pad_count = -payload_bytes & 3;

	header->lrh_present = lrh_present;
	header->eth_present = eth_present;
	header->vlan_present = vlan_present;
	header->grh_present = grh;
	header->ipv4_present = ip_version == 4;
	header->udp_present = udp_present;
	header->immediate_present = immediate_present;
	return 0;
}
EXPORT_SYMBOL(ib_ud_header_init);

/* One header of a packet, and whether a struct ib_ud_header has it. */
struct ud_part {
	const struct ib_field *fields;
	int nfields;
	int bytes;
	size_t offset;		/* of the unpacked header in ib_ud_header */
	bool always;		/* BTH, DETH; else: */
	size_t present;		/* offset of its *_present flag */
};

/* The headers in wire order; the immediate data follows the DETH. */
static const struct ud_part ud_parts[] = {
	{ .fields = ud_lrh_fields, .nfields = ARRAY_SIZE(ud_lrh_fields),
	  .bytes = IB_LRH_BYTES, .offset = offsetof(struct ib_ud_header, lrh),
	  .present = offsetof(struct ib_ud_header, lrh_present) },
	{ .fields = ud_eth_fields, .nfields = ARRAY_SIZE(ud_eth_fields),
	  .bytes = IB_ETH_BYTES, .offset = offsetof(struct ib_ud_header, eth),
	  .present = offsetof(struct ib_ud_header, eth_present) },
	{ .fields = ud_vlan_fields, .nfields = ARRAY_SIZE(ud_vlan_fields),
	  .bytes = IB_VLAN_BYTES, .offset = offsetof(struct ib_ud_header, vlan),
	  .present = offsetof(struct ib_ud_header, vlan_present) },
	{ .fields = ud_grh_fields, .nfields = ARRAY_SIZE(ud_grh_fields),
	  .bytes = IB_GRH_BYTES, .offset = offsetof(struct ib_ud_header, grh),
	  .present = offsetof(struct ib_ud_header, grh_present) },
	{ .fields = ud_ip4_fields, .nfields = ARRAY_SIZE(ud_ip4_fields),
	  .bytes = IB_IP4_BYTES, .offset = offsetof(struct ib_ud_header, ip4),
	  .present = offsetof(struct ib_ud_header, ipv4_present) },
	{ .fields = ud_udp_fields, .nfields = ARRAY_SIZE(ud_udp_fields),
	  .bytes = IB_UDP_BYTES, .offset = offsetof(struct ib_ud_header, udp),
	  .present = offsetof(struct ib_ud_header, udp_present) },
	{ .fields = ud_bth_fields, .nfields = ARRAY_SIZE(ud_bth_fields),
	  .bytes = IB_BTH_BYTES, .offset = offsetof(struct ib_ud_header, bth),
	  .always = true },
	{ .fields = ud_deth_fields, .nfields = ARRAY_SIZE(ud_deth_fields),
	  .bytes = IB_DETH_BYTES, .offset = offsetof(struct ib_ud_header, deth),
	  .always = true },
};

/**
 * ib_ud_header_pack - write the headers of a UD send
 * @header: as ib_ud_header_init() and the caller made it
 * @buf: room for every header present (and 4 bytes of immediate data)
 *
 * Return: the number of bytes written.
 */
int ib_ud_header_pack(struct ib_ud_header *header, void *buf)
{
	const struct ud_part *part;
	int len = 0;

	for (part = ud_parts; part < ud_parts + ARRAY_SIZE(ud_parts); part++) {
		if (!part->always &&
		    !*(int *)((void *)header + part->present))
			continue;
		ib_pack(part->fields, part->nfields,
			(void *)header + part->offset, buf + len);
		len += part->bytes;
	}
	if (header->immediate_present) {
		memcpy(buf + len, &header->immediate_data,
		       sizeof(header->immediate_data));
		len += sizeof(header->immediate_data);
	}
	return len;
}
EXPORT_SYMBOL(ib_ud_header_pack);

/**
 * ib_ud_header_unpack - read the headers of a received IB UD packet
 * @buf: the packet, from its LRH
 * @header: filled with the LRH, the GRH if there is one, the BTH, the
 *	DETH and the immediate data; the other parts are left as they are
 *
 * Only what a UD SEND ONLY on an IB link may be is accepted: LRH version
 * 0, next header IBA local or global (then a GRH of IP version 6 with
 * next header BTH), a UD SEND ONLY opcode, transport version 0.
 *
 * Return: 0, or -EINVAL (and a warning) for any other packet.
 */
int ib_ud_header_unpack(void *buf, struct ib_ud_header *header)
{
	ib_unpack(ud_lrh_fields, ARRAY_SIZE(ud_lrh_fields), buf, &header->lrh);
	buf += IB_LRH_BYTES;
	if (header->lrh.link_version) {
		pr_warn("%s: LRH link version %u\n", __func__,
			header->lrh.link_version);
		return -EINVAL;
	}

	if (header->lrh.link_next_header == IB_LNH_IBA_GLOBAL) {
		header->grh_present = 1;
		ib_unpack(ud_grh_fields, ARRAY_SIZE(ud_grh_fields), buf,
			  &header->grh);
		buf += IB_GRH_BYTES;
		if (header->grh.ip_version != 6) {
			pr_warn("%s: GRH IP version %u\n", __func__,
				header->grh.ip_version);
			return -EINVAL;
		}
		if (header->grh.next_header != UD_GRH_NEXT_BTH) {
			pr_warn("%s: GRH next header 0x%02x\n", __func__,
				header->grh.next_header);
			return -EINVAL;
		}
	} else if (header->lrh.link_next_header == IB_LNH_IBA_LOCAL) {
		header->grh_present = 0;
	} else {
		pr_warn("%s: LRH next header %u\n", __func__,
			header->lrh.link_next_header);
		return -EINVAL;
	}

	ib_unpack(ud_bth_fields, ARRAY_SIZE(ud_bth_fields), buf, &header->bth);
	buf += IB_BTH_BYTES;
	if (header->bth.opcode == IB_OPCODE_UD_SEND_ONLY) {
		header->immediate_present = 0;
	} else if (header->bth.opcode ==
		   IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE) {
		header->immediate_present = 1;
	} else {
		pr_warn("%s: BTH opcode 0x%02x\n", __func__,
			header->bth.opcode);
		return -EINVAL;
	}
	if (header->bth.transport_header_version) {
		pr_warn("%s: BTH transport version %u\n", __func__,
			header->bth.transport_header_version);
		return -EINVAL;
	}

	ib_unpack(ud_deth_fields, ARRAY_SIZE(ud_deth_fields), buf,
		  &header->deth);
	buf += IB_DETH_BYTES;
	if (header->immediate_present)
		memcpy(&header->immediate_data, buf,
		       sizeof(header->immediate_data));
	return 0;
}
EXPORT_SYMBOL(ib_ud_header_unpack);
