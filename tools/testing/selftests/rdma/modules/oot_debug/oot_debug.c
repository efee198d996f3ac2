// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only module, never part of the default build: on load it commits,
 * on purpose, the three defects the debug-kernel tier exists to catch, so
 * that scripts/test-harness --kernel debug can show the VM verdict fails
 * on each report:
 *
 *	leak=1    allocations nobody points to (kmemleak)
 *	oob=1     a read one byte past an allocation (KASAN)
 *	lockdep=1 two mutexes taken in both orders (lockdep; the two orders
 *	          run one after the other, so nothing deadlocks)
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mutex.h>
#include <linux/compiler.h>

static bool leak;
module_param(leak, bool, 0444);
MODULE_PARM_DESC(leak, "leak one allocation");

static bool oob;
module_param(oob, bool, 0444);
MODULE_PARM_DESC(oob, "read past the end of an allocation");

static bool lockdep;
module_param(lockdep, bool, 0444);
MODULE_PARM_DESC(lockdep, "take two mutexes in both orders");

static DEFINE_MUTEX(oot_debug_a);
static DEFINE_MUTEX(oot_debug_b);

/*
 * Several: a stale copy of the last pointer may survive in a stack that
 * kmemleak scans, each allocation's frames overwrite the previous one's.
 */
static noinline void oot_debug_leak(void)
{
	void *p;
	int i;

	for (i = 0; i < 4; i++) {
		p = kmalloc(64, GFP_KERNEL);
		/* Hide it from the compiler, which would drop the call. */
		OPTIMIZER_HIDE_VAR(p);
	}
}

static noinline void oot_debug_oob(void)
{
	char *p = kmalloc(8, GFP_KERNEL);
	size_t i = 8;

	if (!p)
		return;
	OPTIMIZER_HIDE_VAR(i);
	pr_info("oot_debug: read past the end: %d\n", READ_ONCE(p[i]));
	kfree(p);
}

static noinline void oot_debug_lockdep(void)
{
	mutex_lock(&oot_debug_a);
	mutex_lock(&oot_debug_b);
	mutex_unlock(&oot_debug_b);
	mutex_unlock(&oot_debug_a);

	mutex_lock(&oot_debug_b);
	mutex_lock(&oot_debug_a);
	mutex_unlock(&oot_debug_a);
	mutex_unlock(&oot_debug_b);
}

/*
 * The overread goes last: a KASAN report taints the kernel as "lockdep
 * now unreliable", which turns lockdep off for the rest of the boot, so
 * an inversion after it would never be reported.
 */
static int __init oot_debug_init(void)
{
	if (lockdep)
		oot_debug_lockdep();
	if (leak)
		oot_debug_leak();
	if (oob)
		oot_debug_oob();
	return 0;
}

static void __exit oot_debug_exit(void)
{
}

module_init(oot_debug_init);
module_exit(oot_debug_exit);

MODULE_DESCRIPTION("oot-rdma debug-tier self-test: leaks, overreads, inverts locks on request");
MODULE_LICENSE("GPL");
MODULE_VERSION(OOT_RDMA_VERSION);
