// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only module, never part of the default build: loading it makes the
 * kernel report a warning, so that the harness's failure detector can be
 * shown to catch one (scripts/test-harness).
 */
#include <linux/module.h>
#include <linux/bug.h>

static int __init oot_warn_init(void)
{
	WARN(1, "oot_warn: deliberate warning for the harness self-test\n");
	return 0;
}

static void __exit oot_warn_exit(void)
{
}

module_init(oot_warn_init);
module_exit(oot_warn_exit);

MODULE_DESCRIPTION("oot-rdma harness self-test: warns on load");
MODULE_LICENSE("GPL");
MODULE_VERSION(OOT_RDMA_VERSION);
