/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The verbs objects of rxe.  The core allocates them at the size
 * INIT_RDMA_OBJ_SIZE() gives in rxe_dev_ops, with the ib_* object first.
 * The protocol engine fills them in.
 */
#ifndef RXE_VERBS_H
#define RXE_VERBS_H

#include <rdma/ib_verbs.h>

struct rxe_ucontext {
	struct ib_ucontext	ibuc;
};

struct rxe_dev;

struct rxe_pd {
	struct ib_pd		ibpd;
	struct rxe_dev		*rxe;
};

struct rxe_ah {
	struct ib_ah		ibah;
};

struct rxe_cq {
	struct ib_cq		ibcq;
};

struct rxe_srq {
	struct ib_srq		ibsrq;
};

struct rxe_qp {
	struct ib_qp		ibqp;
};

struct rxe_mw {
	struct ib_mw		ibmw;
};

extern const struct ib_device_ops rxe_dev_ops;

#endif /* RXE_VERBS_H */
