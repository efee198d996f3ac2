// SPDX-License-Identifier: GPL-2.0-only
/*
 * Not built: the fixture of `scripts/coccicheck --self-test`.  Each
 * function holds a pattern a 6.1 semantic patch reports, so the check
 * is shown to fail on it.
 */
#include <linux/err.h>
#include <linux/slab.h>
#include <linux/string.h>

/* api/err_cast.cocci: ERR_PTR(PTR_ERR(p)) where ERR_CAST(p) is meant */
void *cocci_selftest_err_cast(void *p)
{
	if (IS_ERR(p))
		return ERR_PTR(PTR_ERR(p));
	return p;
}

/* api/memdup.cocci: kmalloc then memcpy is kmemdup */
void *cocci_selftest_memdup(const void *src, size_t len)
{
	void *p;

	p = kmalloc(len, GFP_KERNEL);

	if (!p)
		return NULL;
	memcpy(p, src, len);
	return p;
}
