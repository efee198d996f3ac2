/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Declarations private to ib_core: shared between its files, never seen by
 * other modules.  What other modules see is the kernel's include/rdma/.
 */
#ifndef OOT_RDMA_CORE_PRIV_H
#define OOT_RDMA_CORE_PRIV_H

#include <linux/init.h>

/* netlink.c: the NETLINK_RDMA family, one kernel socket per netns. */
int __init rdma_nl_init(void);
void rdma_nl_exit(void);

/* nldev.c: the RDMA_NL_NLDEV client ("rdma" tool, libibverbs). */
void __init nldev_init(void);
void nldev_exit(void);

#endif /* OOT_RDMA_CORE_PRIV_H */
