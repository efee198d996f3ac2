// SPDX-License-Identifier: GPL-2.0-only
/*
 * The PE's event queues and the MSI-X vectors that announce them: the
 * completion event queues (CEQs), on which an armed CQ's completion puts
 * the CQ's number, and the asynchronous event queue (AEQ), on which the
 * device reports QP and CQ errors and state changes.  This file lays
 * the EQs out over the vectors ice gave us, creates them through the
 * CQP, takes their interrupts and hands each entry to the verbs code
 * (irdma_cq_event(), irdma_async_event()).
 *
 * Vector layout, as Debian's irdma (hw.c): with more vectors than online
 * CPUs, vector 0 serves the AEQ alone and vectors 1.. one CEQ each, at
 * most one CEQ per CPU; otherwise vector 0 serves the AEQ and CEQ 0
 * together and vectors 0.. one CEQ each.  A vector has one handler and
 * one tasklet: CEQ 0's serves the AEQ as well when they share.
 *
 * Interrupt flow: the device masks a vector as it fires it (automask);
 * the hard handler only schedules the vector's tasklet, which reads the
 * rings and enables the vector again.  A cause that came in meanwhile
 * stays latched and fires on that enable, so no event is lost between
 * the last read and the enable.  The work stays in a tasklet, not a
 * threaded handler, because kernel ULPs expect their CQs' completion
 * handlers to be called in softirq context, as Debian's irdma does.
 *
 * Locking: an EQ's ring position (head, polarity) is read and moved
 * only by the tasklet of the vector serving it, and a tasklet never
 * runs beside itself, so the rings need no lock.  The shared tasklet
 * reads the AEQ only while aeq.up is set (release on create, and
 * irdma_eqs_destroy() waits out a run in progress after clearing it).
 * Create and destroy run in process context, under the caller's
 * serialisation of probe and remove.
 */
#include "irdma.h"

/*
 * Entries one tasklet run takes from one EQ before it yields the CPU
 * and schedules itself again, the vector still masked: a flood of
 * events must not keep the softirq, and other tasklets, from running.
 */
#define IRDMA_EQ_BUDGET		64

static struct device *irdma_log_dev(struct irdma_dev *dev)
{
	return &dev->pf->adev->dev;
}

/* Vector 0 serves CEQ 0 and the AEQ (fixed by the layout). */
static bool irdma_aeq_shared(struct irdma_dev *dev)
{
	return dev->nceq && dev->aeq.msix == dev->ceq[0].msix;
}

/* An EQ's interrupt cause: on, not throttled, to the EQ's vector. */
static u32 irdma_eq_int_ctl(struct irdma_eq *eq)
{
	return IRDMA_INT_CTL_CAUSE_ENA |
	       FIELD_PREP(IRDMA_INT_CTL_ITR_INDX, IRDMA_ITR_NONE) |
	       FIELD_PREP(IRDMA_INT_CTL_MSIX_INDX, eq->msix);
}

/*
 * Unmask a vector.  ITR index 3 updates no interval (ice's own idiom
 * for its misc vector); CLEARPBA clears the MSI-X pending bit only, a
 * latched cause still fires.
 */
static void irdma_vec_enable(struct irdma_dev *dev, u16 msix)
{
	irdma_wr32(dev, IRDMA_GLINT_DYN_CTL(msix),
		   IRDMA_DYN_CTL_INTENA | IRDMA_DYN_CTL_CLEARPBA |
		   FIELD_PREP(IRDMA_DYN_CTL_ITR_INDX, IRDMA_ITR_NONE));
}

static void irdma_vec_disable(struct irdma_dev *dev, u16 msix)
{
	irdma_wr32(dev, IRDMA_GLINT_DYN_CTL(msix), 0);
}

/*
 * Read up to a budget of CEQEs, each the number of a CQ that completed
 * while armed.  Each is acknowledged (PFPE_CQACK) before its CQ's
 * handler runs, as Debian does, so that a handler that arms its CQ
 * again does so after the acknowledgment.  Returns whether the CEQ is
 * empty.
 */
static bool irdma_ceq_poll(struct irdma_dev *dev, struct irdma_eq *eq)
{
	u32 ncq = dev->hmc.obj[IRDMA_HMC_CQ].cnt;
	unsigned int n;
	__le64 *e;
	u64 ctx;

	for (n = 0; n < IRDMA_EQ_BUDGET; n++) {
		e = irdma_ring_peek(&eq->ring, 0);
		if (!e)
			return true;
		ctx = FIELD_GET(IRDMA_CEQE_CTX, le64_to_cpu(e[0]));
		irdma_ring_advance(&eq->ring);
		/* A value the device hands back: only ever a CQ number. */
		if (ctx >= ncq) {
			dev_warn_ratelimited(irdma_log_dev(dev),
					     "CEQ %u: entry for no CQ (0x%llx)\n",
					     eq->id, ctx);
			continue;
		}
		irdma_wr32(dev, IRDMA_PFPE_CQACK, (u32)ctx);
		irdma_cq_event(dev, (u32)ctx);
	}
	return !irdma_ring_peek(&eq->ring, 0);
}

/*
 * Read up to a budget of AEQEs and give the device back their slots
 * (PFPE_AEQALLOC, once per run).  Returns whether the AEQ is empty.
 */
static bool irdma_aeq_poll(struct irdma_dev *dev, struct irdma_eq *eq)
{
	unsigned int n;
	u64 ctx, info;
	__le64 *e;
	u32 id;

	for (n = 0; n < IRDMA_EQ_BUDGET; n++) {
		e = irdma_ring_peek(&eq->ring, 1);
		if (!e)
			break;
		ctx = le64_to_cpu(e[0]);
		info = le64_to_cpu(e[1]);
		irdma_ring_advance(&eq->ring);
		if (info & IRDMA_AEQE_OVERFLOW)
			dev_warn_ratelimited(irdma_log_dev(dev),
					     "AEQ overflowed: asynchronous events were lost\n");
		id = FIELD_GET(IRDMA_AEQE_QPCQID_LO, info) |
		     (u32)FIELD_GET(IRDMA_AEQE_QPCQID_HI, info) << 18;
		irdma_async_event(dev, FIELD_GET(IRDMA_AEQE_AE_ID, info),
				  FIELD_GET(IRDMA_AEQE_SRC, info), id, ctx);
	}
	if (n)
		irdma_wr32(dev, IRDMA_PFPE_AEQALLOC, n);
	return n < IRDMA_EQ_BUDGET || !irdma_ring_peek(&eq->ring, 1);
}

/* Whether the shared tasklet may read the AEQ's ring. */
static bool irdma_aeq_ready(struct irdma_dev *dev)
{
	/* Pairs with the release in irdma_aeq_create(). */
	return smp_load_acquire(&dev->aeq.up);
}

/*
 * A vector's bottom half: the vector is masked until it returns with
 * every ring it serves empty; with work left it runs again first.
 */
static void irdma_eq_tasklet(struct tasklet_struct *t)
{
	struct irdma_eq *eq = from_tasklet(eq, t, tasklet);
	struct irdma_dev *dev = eq->dev;
	bool done;

	if (eq == &dev->aeq) {
		done = irdma_aeq_poll(dev, eq);
	} else {
		done = irdma_ceq_poll(dev, eq);
		if (eq == &dev->ceq[0] && irdma_aeq_shared(dev) &&
		    irdma_aeq_ready(dev))
			done = irdma_aeq_poll(dev, &dev->aeq) && done;
	}
	if (!done) {
		tasklet_schedule(t);
		return;
	}
	irdma_vec_enable(dev, eq->msix);
}

static irqreturn_t irdma_eq_irq(int irq, void *data)
{
	struct irdma_eq *eq = data;

	tasklet_schedule(&eq->tasklet);
	return IRQ_HANDLED;
}

/*
 * Take EQ's vector: handler, affinity hint (the CPU the layout gives
 * it), cause routing (CTL_REG), unmasking.  The tasklet then runs once:
 * an entry the device wrote before its cause was on raised nothing.
 */
static int irdma_eq_irq_on(struct irdma_dev *dev, struct irdma_eq *eq,
			   u32 ctl_reg, unsigned int cpu)
{
	int err;

	tasklet_setup(&eq->tasklet, irdma_eq_tasklet);
	err = request_irq(eq->irq, irdma_eq_irq, 0, eq->name, eq);
	if (err) {
		dev_err(irdma_log_dev(dev), "%s: IRQ %u request failed: %d\n",
			eq->name, eq->irq, err);
		return err;
	}
	eq->irq_on = true;
	irq_update_affinity_hint(eq->irq, cpumask_of(cpu));
	irdma_wr32(dev, ctl_reg, irdma_eq_int_ctl(eq));
	irdma_vec_enable(dev, eq->msix);
	tasklet_schedule(&eq->tasklet);
	return 0;
}

/* Undo irdma_eq_irq_on(); the cause must be off already. */
static void irdma_eq_irq_off(struct irdma_dev *dev, struct irdma_eq *eq)
{
	if (!eq->irq_on)
		return;
	irdma_vec_disable(dev, eq->msix);
	irq_update_affinity_hint(eq->irq, NULL);
	free_irq(eq->irq, eq);
	tasklet_kill(&eq->tasklet);
	/* The tasklet's last run may have unmasked the vector again. */
	irdma_vec_disable(dev, eq->msix);
	eq->irq_on = false;
}

/*
 * DESTROY_CEQ / DESTROY_AEQ of an EQ the device has, best effort:
 * Debian's fields (the size, and the CEQ's number in the header).  A
 * device that never answered may still write the ring, so then the
 * ring is kept, not freed.
 */
static void irdma_eq_remove(struct irdma_dev *dev, struct irdma_eq *eq,
			    u8 op, u64 hdr)
{
	struct irdma_cqp_cmd cmd;
	int err;

	irdma_cqp_cmd_init(&cmd, op, hdr);
	cmd.wqe[2] = FIELD_PREP(IRDMA_EQ_SIZE, eq->ring.size);
	err = irdma_cqp_exec(dev, &cmd);
	eq->up = false;
	if (err == -ETIMEDOUT) {
		dev_warn(irdma_log_dev(dev),
			 "%s: no answer to its removal; ring left allocated\n",
			 eq->name);
		eq->ring.mem.va = NULL;
	} else if (err) {
		dev_warn(irdma_log_dev(dev),
			 "%s: removal refused, status 0x%x\n", eq->name,
			 cmd.status);
	}
}

static int irdma_ceq_create(struct irdma_dev *dev, struct irdma_eq *eq)
{
	u32 size = min_t(u32, dev->hmc.obj[IRDMA_HMC_CQ].cnt,
			 IRDMA_CEQ_MAX_SIZE);
	struct irdma_cqp_cmd cmd;
	int err;

	err = irdma_ring_alloc(dev, &eq->ring, max(size, 1U), IRDMA_CEQE_SIZE);
	if (err)
		return err;
	/*
	 * Contiguous, so no PBLEs; TPH and ITR no-expire stay off, as in
	 * Debian.
	 */
	irdma_cqp_cmd_init(&cmd, IRDMA_CQP_OP_CREATE_CEQ,
			   FIELD_PREP(IRDMA_EQ_HDR_CEQ, eq->id));
	cmd.wqe[2] = FIELD_PREP(IRDMA_EQ_SIZE, eq->ring.size);
	cmd.wqe[4] = eq->ring.mem.pa;
	cmd.wqe[7] = FIELD_PREP(IRDMA_EQ_VSI, dev->vsi);
	err = irdma_cqp_exec(dev, &cmd);
	if (err) {
		dev_err(irdma_log_dev(dev), "CEQ %u: create failed: %d (0x%x)\n",
			eq->id, err, cmd.status);
		return err;
	}
	eq->up = true;
	return irdma_eq_irq_on(dev, eq, IRDMA_GLINT_CEQCTL(eq->id),
			       cpumask_local_spread(eq->id,
						    dev_to_node(dev->dma)));
}

static void irdma_ceq_destroy(struct irdma_dev *dev, struct irdma_eq *eq)
{
	irdma_wr32(dev, IRDMA_GLINT_CEQCTL(eq->id), 0);
	irdma_eq_irq_off(dev, eq);
	if (eq->up)
		irdma_eq_remove(dev, eq, IRDMA_CQP_OP_DESTROY_CEQ,
				FIELD_PREP(IRDMA_EQ_HDR_CEQ, eq->id));
	irdma_ring_free(dev, &eq->ring);
}

static int irdma_aeq_create(struct irdma_dev *dev)
{
	struct irdma_hmc_obj *obj = dev->hmc.obj;
	struct irdma_eq *eq = &dev->aeq;
	struct irdma_cqp_cmd cmd;
	u32 size;
	int err;

	/* Room for an event of every QP and CQ at once, as Debian sizes it. */
	size = min_t(u32, obj[IRDMA_HMC_QP].cnt + obj[IRDMA_HMC_CQ].cnt,
		     IRDMA_AEQ_MAX_SIZE);
	err = irdma_ring_alloc(dev, &eq->ring, max(size, 1U), IRDMA_AEQE_SIZE);
	if (err)
		return err;
	irdma_cqp_cmd_init(&cmd, IRDMA_CQP_OP_CREATE_AEQ, 0);
	cmd.wqe[2] = FIELD_PREP(IRDMA_EQ_SIZE, eq->ring.size);
	cmd.wqe[4] = eq->ring.mem.pa;
	err = irdma_cqp_exec(dev, &cmd);
	if (err) {
		dev_err(irdma_log_dev(dev), "AEQ: create failed: %d (0x%x)\n",
			err, cmd.status);
		return err;
	}
	/* The ring is ready: CEQ 0's tasklet may read it from now on. */
	smp_store_release(&eq->up, true);
	if (!irdma_aeq_shared(dev))
		return irdma_eq_irq_on(dev, eq, IRDMA_PFINT_AEQCTL,
				       cpumask_local_spread(0,
							    dev_to_node(dev->dma)));
	irdma_wr32(dev, IRDMA_PFINT_AEQCTL, irdma_eq_int_ctl(eq));
	tasklet_schedule(&dev->ceq[0].tasklet);
	return 0;
}

static void irdma_aeq_destroy(struct irdma_dev *dev)
{
	struct irdma_eq *eq = &dev->aeq;
	struct tasklet_struct *t = &dev->ceq[0].tasklet;
	bool up = eq->up;

	irdma_wr32(dev, IRDMA_PFINT_AEQCTL, 0);
	if (irdma_aeq_shared(dev)) {
		/*
		 * CEQ 0's vector stays: stop its tasklet reading the AEQ,
		 * and wait out a run that may have seen it up.
		 */
		WRITE_ONCE(eq->up, false);
		if (dev->ceq[0].irq_on) {
			tasklet_disable(t);
			tasklet_enable(t);
		}
	} else {
		irdma_eq_irq_off(dev, eq);
	}
	if (up)
		irdma_eq_remove(dev, eq, IRDMA_CQP_OP_DESTROY_AEQ, 0);
	irdma_ring_free(dev, &eq->ring);
}

/*
 * Give each EQ its vector and name, and set dev->nceq: as many CEQs as
 * vectors that can serve one, within what the device and we support.
 */
static int irdma_eqs_layout(struct irdma_dev *dev)
{
	struct irdma_ice *ice = &dev->pf->ice;
	const char *pci = pci_name(ice->pdev);
	unsigned int ncpu = num_online_cpus();
	unsigned int nvec = min_t(unsigned int, ice->nvec, IRDMA_MAX_VECTORS);
	unsigned int first, i;
	bool shared;

	if (!nvec)
		return -EINVAL;
	shared = nvec <= ncpu;
	if (!shared)
		nvec = min(nvec, ncpu + 1);
	first = shared ? 0 : 1;
	dev->nceq = min3(nvec - first, dev->hmc.max_ceqs,
			 (unsigned int)IRDMA_MAX_CEQS);
	dev->nceq = max(dev->nceq, 1U);

	dev->aeq.dev = dev;
	dev->aeq.id = 0;
	dev->aeq.msix = ice->vec[0].index;
	dev->aeq.irq = ice->vec[0].irq;
	snprintf(dev->aeq.name, sizeof(dev->aeq.name), "irdma-%s-aeq", pci);
	for (i = 0; i < dev->nceq; i++) {
		struct irdma_eq *eq = &dev->ceq[i];

		eq->dev = dev;
		eq->id = i;
		eq->msix = ice->vec[first + i].index;
		eq->irq = ice->vec[first + i].irq;
		snprintf(eq->name, sizeof(eq->name),
			 shared && !i ? "irdma-%s-aeq-ceq%u" : "irdma-%s-ceq%u",
			 pci, i);
	}
	dev_dbg(irdma_log_dev(dev),
		"%u CEQs on MSI-X %u..; AEQ on %u%s (%u vectors, %u CPUs)\n",
		dev->nceq, dev->ceq[0].msix, dev->aeq.msix,
		shared ? ", shared" : "", ice->nvec, ncpu);
	return 0;
}

/*
 * Lay out and create the CEQs, then the AEQ (Debian's order), each with
 * its vector working.  On failure, whatever was made is undone.
 */
int irdma_eqs_create(struct irdma_dev *dev)
{
	unsigned int i;
	int err;

	err = irdma_eqs_layout(dev);
	if (err)
		return err;
	for (i = 0; i < dev->nceq; i++) {
		err = irdma_ceq_create(dev, &dev->ceq[i]);
		if (err)
			goto undo;
	}
	err = irdma_aeq_create(dev);
	if (err)
		goto undo;
	return 0;

undo:
	irdma_eqs_destroy(dev);
	return err;
}

/*
 * Undo irdma_eqs_create(), whole or partial, in Debian's order: the AEQ,
 * then CEQs n-1..1, then CEQ 0 (whose vector the AEQ may share).  Every
 * step checks its own flag, so a second call does nothing.
 */
void irdma_eqs_destroy(struct irdma_dev *dev)
{
	unsigned int i;

	if (!dev->nceq)
		return;
	irdma_aeq_destroy(dev);
	for (i = dev->nceq; i-- > 0;)
		irdma_ceq_destroy(dev, &dev->ceq[i]);
	dev->nceq = 0;
}
