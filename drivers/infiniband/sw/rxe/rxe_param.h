/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Limits and fixed attributes of a soft-RoCE device and its port: what
 * query_device and query_port report.  The values are the stock rxe
 * driver's, so that applications sized against it see the same device.
 */
#ifndef RXE_PARAM_H
#define RXE_PARAM_H

#include <linux/sizes.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_pack.h>
#include <rdma/ib_verbs.h>

#include "rxe_ibta15.h"

/* No IEEE OUI: the all-ones 24-bit value marks a software device. */
#define RXE_VENDOR_ID			0xffffff

#define RXE_DEVICE_CAP_FLAGS		(IB_DEVICE_BAD_PKEY_CNTR	| \
					 IB_DEVICE_BAD_QKEY_CNTR	| \
					 IB_DEVICE_AUTO_PATH_MIG	| \
					 IB_DEVICE_CHANGE_PHY_PORT	| \
					 IB_DEVICE_UD_AV_PORT_ENFORCE	| \
					 IB_DEVICE_PORT_ACTIVE_EVENT	| \
					 IB_DEVICE_SYS_IMAGE_GUID	| \
					 IB_DEVICE_RC_RNR_NAK_GEN	| \
					 IB_DEVICE_SRQ_RESIZE		| \
					 IB_DEVICE_MEM_MGT_EXTENSIONS	| \
					 IB_DEVICE_MEM_WINDOW		| \
					 IB_DEVICE_MEM_WINDOW_TYPE_2B	| \
					 RXE_DEVICE_ATOMIC_WRITE)

/*
 * Memory is the host's: any length, any page size from 4 KiB up.
 * IBK_ALLOW_USER_UNREG lets "rdma link del" unregister the device;
 * IBK_ON_DEMAND_PAGING: MRs with IB_ACCESS_ON_DEMAND (rxe_odp.c).
 */
#define RXE_MAX_MR_SIZE			U64_MAX
#define RXE_PAGE_SIZE_CAP		0xfffff000
#define RXE_KERNEL_CAP_FLAGS		(IBK_ALLOW_USER_UNREG | \
					 IBK_ON_DEMAND_PAGING)
/*
 * What ODP memory serves, by transport (rxe_odp.c): every operation of
 * RC and XRC; of UC and UD the sender's side, which works as RC's does.
 * Their receive side holds a request that misses as RC's does, but
 * nothing tests it yet, so it is not reported.  Explicit ODP only (no
 * implicit MR of the whole address space).
 */
#define RXE_ODP_RC_CAPS			(IB_ODP_SUPPORT_SEND | \
					 IB_ODP_SUPPORT_RECV | \
					 IB_ODP_SUPPORT_WRITE | \
					 IB_ODP_SUPPORT_READ | \
					 IB_ODP_SUPPORT_ATOMIC | \
					 IB_ODP_SUPPORT_SRQ_RECV)
#define RXE_ODP_UC_UD_CAPS		IB_ODP_SUPPORT_SEND

/* QP numbers 0 and 1 are the special QPs; 2..15 are reserved. */
#define RXE_MIN_QP_INDEX		16
#define RXE_MAX_QP_INDEX		SZ_1M
#define RXE_MAX_QP			(RXE_MAX_QP_INDEX - RXE_MIN_QP_INDEX)
#define RXE_GSI_QPN			1
/* RoCEv2 UDP source ports: 0xc000 plus 14 bits of hash of the QPN. */
#define RXE_ROCE_V2_SPORT_BASE		0xc000
#define RXE_ROCE_V2_SPORT_BITS		14
#define RXE_MAX_QP_WR			SZ_1M
#define RXE_MAX_SGE			32
#define RXE_MAX_INLINE_DATA		512
#define RXE_MAX_SGE_RD			32

#define RXE_MAX_CQ			SZ_1M
#define RXE_MAX_CQE			(SZ_32K - 1)

/*
 * MRs and MWs share the 20-bit index space of the keys (index << 8 |
 * 8-bit key): each gets one half, index 0 of the MR half unused.
 */
#define RXE_MAX_MR			(SZ_512K - 1)
#define RXE_MAX_MW			(SZ_512K - 1)
#define RXE_MIN_MR_INDEX		1
#define RXE_MAX_MR_INDEX		(RXE_MIN_MR_INDEX + RXE_MAX_MR - 1)
#define RXE_MIN_MW_INDEX		(SZ_512K + 1)
#define RXE_MAX_MW_INDEX		(RXE_MIN_MW_INDEX + RXE_MAX_MW - 1)
#define RXE_MAX_FMR_PAGE_LIST_LEN	512

#define RXE_MAX_PD			SZ_1M
#define RXE_MAX_AH			(SZ_32K - 1)
#define RXE_MIN_AH_INDEX		1
#define RXE_MAX_AH_INDEX		RXE_MAX_AH

/* SRQ numbers, as stock: from 0x20001 to the top of 20 bits. */
#define RXE_MIN_SRQ_INDEX		0x20001
#define RXE_MAX_SRQ_INDEX		0xfffff
#define RXE_MAX_SRQ			(RXE_MAX_SRQ_INDEX - RXE_MIN_SRQ_INDEX + 1)
#define RXE_MAX_SRQ_WR			SZ_1M
#define RXE_MAX_SRQ_SGE			27

/* Outstanding RDMA READ / atomic requests, per QP and per device. */
#define RXE_MAX_QP_RD_ATOM		128
#define RXE_MAX_QP_INIT_RD_ATOM		128
#define RXE_MAX_RES_RD_ATOM		0x3f000

#define RXE_MAX_MCAST_GRP		8192
#define RXE_MAX_MCAST_QP_ATTACH		56
#define RXE_MAX_TOT_MCAST_QP_ATTACH	(RXE_MAX_MCAST_GRP * \
					 RXE_MAX_MCAST_QP_ATTACH)

#define RXE_MAX_PKEYS			64
#define RXE_LOCAL_CA_ACK_DELAY		15

/* The single port. */
#define RXE_PORT			1
#define RXE_PORT_MAX_MTU		IB_MTU_4096
#define RXE_PORT_GID_TBL_LEN		1024
#define RXE_PORT_CAP_FLAGS		IB_PORT_CM_SUP
#define RXE_PORT_MAX_MSG_SZ		0x800000
#define RXE_PORT_PKEY_TBL_LEN		1
#define RXE_PORT_MAX_VL_NUM		1

/*
 * Room a RoCEv2 packet needs around its payload within the netdev MTU:
 * IPv6 header, UDP, BTH, RETH (the largest header in front of payload,
 * in RDMA WRITE First/Only) and the ICRC.  The path MTU is the largest
 * IB MTU that fits in what is left.  As stock: a netdev MTU of 1500
 * gives 1024, and 1104 is the smallest that does.
 */
#define RXE_RETH_BYTES			16
#define RXE_ROCE_HDR_OVERHEAD		(IB_GRH_BYTES + IB_UDP_BYTES +	\
					 IB_BTH_BYTES + RXE_RETH_BYTES + \
					 IB_ICRC_BYTES)

#endif /* RXE_PARAM_H */
