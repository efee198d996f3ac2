// SPDX-License-Identifier: GPL-2.0-only
/*
 * Refuses the distribution's own modules of our set while our ib_core is
 * loaded.
 *
 * Our modules share core-private structures with ib_core through public
 * ones (ib_client_nl_info, which rdma_ucm, ib_umad and ib_uverbs fill in
 * for the core; ib_uverbs_file; ...), and the layouts are ours, not
 * stock's.  Debian's ib_uverbs is refused by the symbol versions of two
 * exports (core.rst, "The exported ABI", class 3), but Debian's ib_cm,
 * iw_cm, rdma_cm, rdma_ucm, ib_umad and rdma_rxe import only exports that
 * carry Debian's CRC, so an insmod of their file would link them to our
 * code.  A module of another ABI must be refused, never loaded: a module
 * notifier fails such a module while it is COMING, before its init runs.
 *
 * What tells them apart: every module built out of a kernel tree (ours by
 * make or DKMS) lacks the "intree" modinfo tag, so the loader sets
 * TAINT_OOT_MODULE in its taints before the COMING notifiers run; the
 * distribution's modules carry the tag and never have that bit.
 *
 * The loader then undoes the load (the notifiers that saw COMING see
 * GOING, the module's references to us are dropped, its memory freed) and
 * finit_module() fails with our errno.
 *
 * The reverse holds as well: our ib_uverbs, ib_cm, iw_cm, rdma_cm,
 * rdma_ucm and ib_umad know our core's private layouts, not the
 * distribution's, so they must not link to Debian's ib_core either.  Each
 * calls ib_core_oot_check() first in its init: the distribution's ib_core
 * has no such export, so the loader refuses them there ("Unknown symbol",
 * ENOENT) before any of their code runs.  rdma_rxe is a driver on the
 * public API only and is not bound to our core.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/string.h>

#include "core_priv.h"

/*
 * Our set, but ib_core: a second ib_core never gets this far (its name is
 * taken while we are loaded).  ib_uverbs is listed although its symbol
 * versions already refuse it: should a CRC ever become Debian's, this
 * still holds.
 */
static const char * const ib_guarded_modules[] = {
	"ib_uverbs", "ib_cm", "iw_cm", "rdma_cm", "rdma_ucm", "ib_umad",
	"rdma_rxe",
};

static bool ib_guard_refuses(const struct module *mod)
{
	if (test_bit(TAINT_OOT_MODULE, &mod->taints))
		return false;
	return match_string(ib_guarded_modules, ARRAY_SIZE(ib_guarded_modules),
			    mod->name) >= 0;
}

/*
 * ENOEXEC is what the loader itself returns for a module built for another
 * kernel (a version magic that differs), the nearest case to this one:
 * insmod reports "Invalid module format", modprobe "Exec format error".
 * EPERM or EEXIST would suggest a missing privilege or a module already
 * loaded, and EINVAL ("Invalid parameters" to insmod) a bad argument.  The
 * log line says which module and why.
 */
static int ib_guard_notify(struct notifier_block *nb, unsigned long state,
			   void *data)
{
	struct module *mod = data;

	if (state != MODULE_STATE_COMING || !ib_guard_refuses(mod))
		return NOTIFY_DONE;

	pr_err("refusing the in-tree %s: its ABI is not that of this ib_core (oot-rdma); modprobe %s loads ours\n",
	       mod->name, mod->name);
	return notifier_from_errno(-ENOEXEC);
}

static struct notifier_block ib_guard_nb = {
	.notifier_call = ib_guard_notify,
};

/**
 * ib_core_oot_check - let one of our modules bind to this ib_core
 * @version: OOT_RDMA_VERSION of the caller's build
 *
 * Its existence is the check against the distribution's ib_core (see the
 * top of this file); here, a module of another release of ours, whose
 * layouts may differ, is refused as well.
 *
 * Return: 0, or -ENOEXEC (the caller returns it from its init).
 */
int ib_core_oot_check(const char *version)
{
	if (!strcmp(version, OOT_RDMA_VERSION))
		return 0;
	pr_err("refusing a module of oot-rdma %s: this ib_core is oot-rdma %s\n",
	       version, OOT_RDMA_VERSION);
	return -ENOEXEC;
}
EXPORT_SYMBOL(ib_core_oot_check);

int __init ib_module_guard_init(void)
{
	return register_module_notifier(&ib_guard_nb);
}

void ib_module_guard_exit(void)
{
	unregister_module_notifier(&ib_guard_nb);
}
