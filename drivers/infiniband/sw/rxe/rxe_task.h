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

#include <linux/atomic.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct rxe_qp;

enum rxe_task_state {
	RXE_TASK_IDLE,		/* not running, nothing asked */
	RXE_TASK_BUSY,		/* running, inline or as work */
	RXE_TASK_ARMED,		/* running, and asked to run again */
};

struct rxe_task {
	struct work_struct	work;
	struct rxe_qp		*qp;
	/* 0: call again; any other value: nothing left to do for now. */
	int			(*fn)(struct rxe_qp *qp);
	/*
	 * Called when a run stops calling fn (nothing left, budget spent,
	 * or stopped) while the run still owns the task: what fn held back
	 * for the run (packets to send together) goes now.  Optional.
	 */
	void			(*end)(struct rxe_qp *qp);
	/* An enum rxe_task_state, changed by exchange (rxe_task.c). */
	atomic_t		state;
	/* Set once by rxe_task_stop(): no run starts afterwards. */
	bool			stopped;
	/*
	 * Deferred work may run on any CPU (rxe_task_set_any_cpu()); read
	 * when the work is queued, changed by modify_qp at any time.
	 */
	bool			any_cpu;
};

void rxe_task_init(struct rxe_task *task, struct rxe_qp *qp,
		   int (*fn)(struct rxe_qp *qp),
		   void (*end)(struct rxe_qp *qp));
/*
 * Runs the task in the caller's context now, unless it is running (then
 * the runner goes round once more).  A run that has much to do hands the
 * rest to the workqueue instead of holding the caller (a softirq) long.
 */
void rxe_task_run(struct rxe_task *task);
/* Queues the task to run in process context. */
void rxe_task_sched(struct rxe_task *task);
/*
 * Whether the task's deferred work may run on any CPU rather than the
 * one that defers it: only for a QP none of whose packets pass a
 * netdev's per-CPU receive backlog (see rxe_task.c).
 */
void rxe_task_set_any_cpu(struct rxe_task *task, bool any_cpu);
/*
 * No run starts after this returns; a running one has finished.
 * Process context (it sleeps).
 */
void rxe_task_stop(struct rxe_task *task);

/* The module's workqueue of tasks (rxe.c: module init and exit). */
int rxe_task_wq_init(void);
void rxe_task_wq_exit(void);

#endif /* RXE_TASK_H */
