/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Deferred work of a QP's protocol roles (requester, completer,
 * responder).  A task runs its function until it reports that nothing is
 * left; it never runs twice at once, and a request to run while it is
 * running makes it run again rather than being lost.
 *
 * Owner: the requester/completer part (rxe_task.c).
 */
#ifndef RXE_TASK_H
#define RXE_TASK_H

#include <linux/types.h>
#include <linux/workqueue.h>

struct rxe_qp;

struct rxe_task {
	struct work_struct	work;
	struct rxe_qp		*qp;
	/* 0: call again; any other value: nothing left to do for now. */
	int			(*fn)(struct rxe_qp *qp);
	/* State and the rerun flag; see rxe_task.c. */
	unsigned long		state;
};

void rxe_task_init(struct rxe_task *task, struct rxe_qp *qp,
		   int (*fn)(struct rxe_qp *qp));
/* Runs the task in the caller's context now, unless it is running. */
void rxe_task_run(struct rxe_task *task);
/* Queues the task to run in process context. */
void rxe_task_sched(struct rxe_task *task);
/* No run starts after this returns; a running one has finished. */
void rxe_task_stop(struct rxe_task *task);

#endif /* RXE_TASK_H */
