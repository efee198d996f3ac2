/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rdma_rxe: soft-RoCE, RDMA over Converged Ethernet v2 implemented in
 * software on top of any netdev.  This header is the driver's device
 * model: the device, its single port, and what the files share.
 *
 *	rxe.c			module init/exit, "rdma link add", device setup,
 *				port state and MTU
 *	rxe_net.c		UDP tunnel sockets, netdev notifier
 *	rxe_verbs.c		ib_device_ops: device, port, context, PD
 *	rxe_hw_counters.c	hw_counters
 *	rxe_index.c		numbers of objects (QPN, keys, ...)
 *	rxe_queue.c		shared ring buffers
 *	rxe_mmap.c		mapping them into applications
 *	rxe_{cq,qp,qp_attr,srq,mr,mw,ah,mcast}.c	the verbs objects
 */
#ifndef RXE_H
#define RXE_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "rxe_hw_counters.h"
#include "rxe_index.h"
#include "rxe_param.h"

/*
 * ABI version of the rxe uverbs driver data that rdma-core's rxe provider
 * checks; the 6.1 uapi header (rdma_user_rxe.h) does not define it.
 */
#define RXE_UVERBS_ABI_VERSION		2

struct rxe_port {
	/*
	 * Protects attr against concurrent readers (query_port) while the
	 * netdev notifier or modify_port change it.  Once the device is
	 * registered, state and MTU are only written with RTNL held, so
	 * that they and the port events they raise follow netdev events
	 * in order.
	 */
	spinlock_t		lock;
	struct ib_port_attr	attr;
};

struct rxe_dev {
	struct ib_device	ib_dev;		/* must be first */

	/*
	 * The netdev the device runs on, bound at creation and never
	 * changed.  Held (ndev_tracker) until the core frees the device
	 * (rxe_dealloc()), so that it stays valid for as long as any verb
	 * can run, even after NETDEV_UNREGISTER queued our unregistration.
	 */
	struct net_device	*ndev;
	netdevice_tracker	ndev_tracker;

	/* Limits reported by query_device; only sys_image_guid changes. */
	struct ib_device_attr	attr;

	struct rxe_port		port;

	atomic64_t		stats_counters[RXE_NUM_OF_COUNTERS];
	/*
	 * QP counter sets by counter id (rxe_hw_counters.c): the core
	 * serialises their allocation, binding and release.
	 */
	struct xarray		counter_sets;

	/*
	 * Object numbers, each kind in stock's range (rxe_param.h); the
	 * GSI QP holds QP number 1 in qp_index.
	 */
	struct rxe_index_space	qp_index;
	struct rxe_index_space	srq_index;
	struct rxe_index_space	mr_index;
	struct rxe_index_space	mw_index;
	struct rxe_index_space	ah_index;
	/* CQs need no number, only a count against max_cq. */
	atomic_t		num_cq;

	/*
	 * Multicast groups (rxe_mcast.c).  Attach and detach run in
	 * process context, serialised by mcg_lock.
	 */
	struct mutex		mcg_lock;
	/*
	 * The receive path reads the groups in softirq context under
	 * mcg_spin, which every change to the lists also takes.
	 */
	spinlock_t		mcg_spin;
	/* Written under both locks, read under either: */
	struct list_head	mcg_list;
	/* Protected by mcg_lock: */
	unsigned int		num_mcg;

	/* Packets dropped for their P_Key or Q_Key (rxe_recv.c). */
	atomic_t		bad_pkey_cntr;
	atomic_t		qkey_viol_cntr;
};

static inline struct rxe_dev *to_rdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct rxe_dev, ib_dev);
}

static inline void rxe_counter_inc(struct rxe_dev *rxe, enum rxe_counter index)
{
	atomic64_inc(&rxe->stats_counters[index]);
}

/* rxe.c */
void rxe_port_update_state(struct rxe_dev *rxe);
void rxe_port_update_mtu(struct rxe_dev *rxe);
void rxe_dealloc(struct ib_device *ibdev);

#endif /* RXE_H */
