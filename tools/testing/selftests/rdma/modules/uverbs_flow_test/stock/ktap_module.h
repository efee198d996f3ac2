/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * KTAP for the test-only modules of the rdma selftests.  Such a module
 * runs its cases when it is loaded and prints KTAP (version 1) into the
 * kernel log, each line prefixed with the module's name by the pr_fmt it
 * defines; its selftest relays the lines as its own test lines.  The
 * counts are in the module's read-only parameters passed and failed.
 *
 * Everything here is static, for the one source file of a module that
 * includes it: each module stays a single .ko that needs nothing but the
 * API it tests.
 */
#ifndef RDMA_SELFTESTS_KTAP_MODULE_H
#define RDMA_SELFTESTS_KTAP_MODULE_H

#include <linux/errno.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/stdarg.h>

static int passed;
module_param(passed, int, 0444);
static int failed;
module_param(failed, int, 0444);

/* The number of the last case reported. */
static int ktap_n;

/* The header: the version, then the plan of @cases cases. */
static inline void ktap_plan(int cases)
{
	pr_info("KTAP version 1\n");
	pr_info("1..%d\n", cases);
}

/* The next case, @name: passed if @ret is 0. */
static inline void ktap_result(int ret, const char *name)
{
	ktap_n++;
	if (!ret) {
		passed++;
		pr_info("ok %d %s\n", ktap_n, name);
	} else {
		failed++;
		pr_info("not ok %d %s\n", ktap_n, name);
	}
}

/* The next case, @name, not run for @why; KTAP counts it as passed. */
static inline void ktap_skip(const char *name, const char *why)
{
	ktap_n++;
	passed++;
	pr_info("ok %d %s # SKIP %s\n", ktap_n, name, why);
}

/*
 * Runs the case @name, @fn, if @ready, else skips it for @why.
 * Return: whether it ran and passed, which later cases may need.
 */
static inline bool ktap_run(const char *name, int (*fn)(void), bool ready,
			    const char *why)
{
	int ret;

	if (!ready) {
		ktap_skip(name, why);
		return false;
	}
	ret = fn();
	ktap_result(ret, name);
	return !ret;
}

/*
 * The last of the plan's @total cases, passed if all the others reported;
 * then the totals.
 */
static inline void ktap_all_ran(int total)
{
	ktap_result(ktap_n == total - 1 ? 0 : -EINVAL, "all cases ran");
	pr_info("# Totals: pass:%d fail:%d\n", passed, failed);
}

/* A diagnostic line, part of no case's result. */
#define ktap_diag(fmt, ...) pr_info("# " fmt "\n", ##__VA_ARGS__)

/* Whether @bad; if so, says what was wrong: "# cond: details". */
static inline __printf(3, 4) bool ktap_bad(bool bad, const char *cond,
					   const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (!bad)
		return false;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_info("# %s: %pV\n", cond, &vaf);
	va_end(args);
	return true;
}

/* if (KTAP_BAD(cond, fmt, ...)) return -EINVAL; */
#define KTAP_BAD(cond, fmt, ...) ktap_bad(!(cond), #cond, fmt, ##__VA_ARGS__)

#endif /* RDMA_SELFTESTS_KTAP_MODULE_H */
