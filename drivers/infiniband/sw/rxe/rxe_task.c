// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tasks of the protocol engine (see rxe_task.h).
 *
 * Latency decides the design: the requester runs inline in post_send
 * and the responder and completer in the receive softirq (or, over
 * loopback, the sender's context), so that a small message costs no
 * context switch.  A run that keeps finding work (a long message, a
 * backlog) gives up the caller after a budget of calls and continues as
 * work, so that neither a softirq nor a post_send is held for long.
 *
 * The work runs on the CPU that deferred it (a per-CPU workqueue), not
 * wherever an unbound one would put it: a packet sent to a netdev such
 * as veth is queued to the receive backlog of the CPU that sends it, so
 * a run that continued on another CPU would let its later packets
 * overtake its earlier ones (a READ's last response before its middle
 * ones, measured), which the peer takes for loss and answers with a
 * NAK or a retry.  Staying on one CPU keeps one run's packets in order.
 * A QP whose peer is on this host sends nothing through a backlog: its
 * packets are handed to the receiver in the sender's context, in
 * order, whichever CPU that is.  Its work goes to an unbound workqueue
 * instead, to run beside the application that posted it (typically
 * busy-polling its CQ) rather than behind it on the same CPU.
 *
 * The state machine makes a task single-threaded: only the caller that
 * moves it from IDLE to BUSY runs it (or queues it); anyone asking while
 * it is BUSY moves it to ARMED, and the runner, when its function
 * reports nothing left, goes round again instead of going IDLE.  A
 * request is thus never lost, and the function never runs twice at
 * once.
 *
 * The state is changed by compare-and-exchange, without a lock: every
 * packet and post passes here two or three times, and a lock taken in
 * any context would mask interrupts each time (under TCG, unmasking
 * them ends a translation block).  A successful exchange is a full
 * barrier, which gives the orderings the lock gave:
 *
 * - What a caller asked for (a packet queued, a WQE posted, an event
 *   bit set) is visible to the run that the caller's exchange
 *   guarantees: the runner's next exchange, ARMED to BUSY, comes after
 *   it.  A caller that finds the task ARMED exchanges nothing: it has
 *   a barrier of its own before it looks (rxe_task_claim()).
 * - A run that goes IDLE has finished with the task's data before the
 *   next claimer's exchange from IDLE.
 * - stopped against a claim: the stopper writes stopped, then reads the
 *   state; a claimer exchanges the state, then reads stopped.  With a
 *   barrier between each pair, one of them sees the other: either the
 *   claimer backs off, or rxe_task_stop() waits for the run, which sees
 *   stopped before its next call of the function.
 */
#include <linux/delay.h>
#include <linux/sched.h>

#include "rxe_task.h"

/* Calls of the function before an inline run moves to the workqueue. */
#define RXE_TASK_INLINE_BUDGET	64
/* Calls of the function before a work item requeues itself (fairness). */
#define RXE_TASK_WORK_BUDGET	1024

static struct workqueue_struct *rxe_task_wq;
static struct workqueue_struct *rxe_task_wq_any;

/*
 * Ends a round of the task when fn has nothing left: true when the task
 * is now IDLE (or stopped), false when someone asked meanwhile and the
 * caller must go round again.
 */
static bool rxe_task_done(struct rxe_task *task)
{
	int old = atomic_read(&task->state), new;

	do {
		new = old == RXE_TASK_ARMED && !READ_ONCE(task->stopped) ?
		      RXE_TASK_BUSY : RXE_TASK_IDLE;
	} while (!atomic_try_cmpxchg(&task->state, &old, new));
	return new == RXE_TASK_IDLE;
}

/*
 * The task stays BUSY: the work item continues this run.  On a per-CPU
 * workqueue, queue_work() picks the calling CPU, or the one the item is
 * still running on when it requeues itself (see the top comment).
 */
static void rxe_task_defer(struct rxe_task *task)
{
	queue_work(READ_ONCE(task->any_cpu) ? rxe_task_wq_any : rxe_task_wq,
		   &task->work);
}

/*
 * A change takes effect at the next deferral.  The work item is never
 * on both workqueues at once: it is queued only by the run that owns
 * the BUSY task, once per run.
 */
void rxe_task_set_any_cpu(struct rxe_task *task, bool any_cpu)
{
	WRITE_ONCE(task->any_cpu, any_cpu);
}

/* The run is over, for now or for good: see rxe_task.end. */
static void rxe_task_end(struct rxe_task *task)
{
	if (task->end)
		task->end(task->qp);
}

/* Runs a BUSY task for up to @budget calls; true if it still is BUSY. */
static bool rxe_task_do(struct rxe_task *task, int budget)
{
	int n;

	for (n = 0; n < budget; n++) {
		if (READ_ONCE(task->stopped)) {
			rxe_task_end(task);
			rxe_task_done(task);
			return false;
		}
		if (!task->fn(task->qp))
			continue;
		/* Before the task can go IDLE and another run start. */
		rxe_task_end(task);
		if (rxe_task_done(task))
			return false;
	}
	rxe_task_end(task);
	return true;
}

static void rxe_task_work(struct work_struct *work)
{
	struct rxe_task *task = container_of(work, struct rxe_task, work);

	if (rxe_task_do(task, RXE_TASK_WORK_BUDGET))
		rxe_task_defer(task);
}

void rxe_task_init(struct rxe_task *task, struct rxe_qp *qp,
		   int (*fn)(struct rxe_qp *qp),
		   void (*end)(struct rxe_qp *qp))
{
	INIT_WORK(&task->work, rxe_task_work);
	task->qp = qp;
	task->fn = fn;
	task->end = end;
	atomic_set(&task->state, RXE_TASK_IDLE);
	task->stopped = false;
	task->any_cpu = false;
}

/* True if the caller moved the task from IDLE to BUSY and must run it. */
static bool rxe_task_claim(struct rxe_task *task)
{
	int old, new;

	/* What was asked for, before the state that says who sees it. */
	smp_mb();
	old = atomic_read(&task->state);
	do {
		if (old == RXE_TASK_ARMED)
			return false;
		new = old == RXE_TASK_IDLE ? RXE_TASK_BUSY : RXE_TASK_ARMED;
	} while (!atomic_try_cmpxchg(&task->state, &old, new));
	if (new == RXE_TASK_ARMED)
		return false;

	/* After the exchange: see the top comment. */
	if (unlikely(READ_ONCE(task->stopped))) {
		atomic_set(&task->state, RXE_TASK_IDLE);
		return false;
	}
	return true;
}

void rxe_task_run(struct rxe_task *task)
{
	if (!rxe_task_claim(task))
		return;
	if (rxe_task_do(task, RXE_TASK_INLINE_BUDGET))
		rxe_task_defer(task);
}

void rxe_task_sched(struct rxe_task *task)
{
	if (rxe_task_claim(task))
		rxe_task_defer(task);
}

static bool rxe_task_idle(struct rxe_task *task)
{
	return atomic_read(&task->state) == RXE_TASK_IDLE;
}

/*
 * After stopped is set, no claim succeeds; a run in progress (inline
 * elsewhere, or a queued or running work item) sees stopped at its next
 * call and goes IDLE.  The work item is flushed so that it is not queued
 * either once we return: the task's memory may go right after.
 */
void rxe_task_stop(struct rxe_task *task)
{
	WRITE_ONCE(task->stopped, true);
	/* Before the state is read: see the top comment. */
	smp_mb();

	for (;;) {
		flush_work(&task->work);
		if (rxe_task_idle(task))
			break;
		/* An inline run on another CPU: it ends within a call. */
		usleep_range(50, 100);
	}
	flush_work(&task->work);
}

int rxe_task_wq_init(void)
{
	/* Per-CPU, not WQ_UNBOUND: see the top comment. */
	rxe_task_wq = alloc_workqueue("rxe_wq", WQ_MEM_RECLAIM, 0);
	if (!rxe_task_wq)
		return -ENOMEM;
	rxe_task_wq_any = alloc_workqueue("rxe_wq_any",
					  WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	if (!rxe_task_wq_any) {
		destroy_workqueue(rxe_task_wq);
		return -ENOMEM;
	}
	return 0;
}

void rxe_task_wq_exit(void)
{
	destroy_workqueue(rxe_task_wq_any);
	destroy_workqueue(rxe_task_wq);
}
