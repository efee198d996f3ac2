// SPDX-License-Identifier: GPL-2.0-only
/*
 * The PBLE pool: runs of physical buffer list entries (PBLEs) in the
 * HMC's PBLE object, for the page lists of queues and memory regions.
 * The device reads a PBLE by its index into that object, at FPM address
 * base + 8 * index; the driver writes it through the kernel mapping of
 * the segment holding it.
 *
 * The PBLE object is the largest by far (1 Mi entries, 8 MiB, on the
 * model) and mostly unused, so unlike the other objects (hmc.c) it is
 * backed on demand: its span of FPM space is cut at segment (2 MiB)
 * boundaries, and a segment gets a direct 2 MiB page, and its SD, the
 * first time a run fits nowhere already backed.  Segments stay until
 * irdma_pble_fini(): the pool never shrinks, as a segment freed and
 * wanted again would cost a CQP command and a 2 MiB allocation each
 * time.
 *
 * The object need not start on a segment boundary: its first segment
 * may hold the end of the other objects too, which hmc.c has backed
 * already (any SD below dev->hmc.nsd).  Such a segment uses hmc.c's
 * page, and the pool never programs or frees it.
 *
 * A run lies within one segment, so its entries are contiguous in
 * kernel memory too; each segment keeps a bitmap of the PBLEs in use.
 */
#include <linux/bitmap.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/slab.h>

#include "irdma.h"
#include "hmc.h"

#define IRDMA_PBLE_SIZE		sizeof(__le64)
#define IRDMA_PBLES_PER_SD	(IRDMA_HMC_SD_SIZE / IRDMA_PBLE_SIZE)

/* The part of the PBLE object in one segment. */
struct irdma_pble_seg {
	u32 sd;			/* its SD, from the FPM space's start */
	u32 first;		/* the index of its first PBLE */
	u32 n;			/* how many PBLEs it holds */
	__le64 *va;		/* PBLE @first; NULL: not backed yet */
	struct irdma_dma page;	/* the pool's own page; unset: hmc.c's */
	unsigned long *used;	/* n bits: PBLEs in a run */
};

struct irdma_pble_pool {
	/*
	 * Serialises irdma_pble_get() and irdma_pble_put(): every segment's
	 * va, page and used.  A mutex, since backing a segment sleeps.
	 */
	struct mutex lock;
	u64 base;		/* FPM address of PBLE 0 */
	u32 first_sd;		/* the SD holding PBLE 0 */
	u32 nseg;
	struct irdma_pble_seg seg[];
};

int irdma_pble_init(struct irdma_dev *dev)
{
	const struct irdma_hmc_obj *o = &dev->hmc.obj[IRDMA_HMC_PBLE];
	u64 end = o->base + (u64)o->cnt * IRDMA_PBLE_SIZE;
	struct irdma_pble_seg *s;
	struct irdma_pble_pool *pool;
	u64 lo, hi;
	u32 nseg, i;

	/* The commit's bases are 512-aligned: PBLEs never straddle SDs. */
	nseg = o->cnt ? (end - 1) / IRDMA_HMC_SD_SIZE -
			o->base / IRDMA_HMC_SD_SIZE + 1 : 0;
	pool = kzalloc(struct_size(pool, seg, nseg), GFP_KERNEL);
	if (!pool)
		return -ENOMEM;
	mutex_init(&pool->lock);
	pool->base = o->base;
	pool->first_sd = o->base / IRDMA_HMC_SD_SIZE;
	pool->nseg = nseg;
	for (i = 0; i < nseg; i++) {
		s = &pool->seg[i];
		s->sd = pool->first_sd + i;
		lo = max_t(u64, o->base, (u64)s->sd * IRDMA_HMC_SD_SIZE);
		hi = min_t(u64, end, (u64)(s->sd + 1) * IRDMA_HMC_SD_SIZE);
		s->first = (lo - o->base) / IRDMA_PBLE_SIZE;
		s->n = (hi - lo) / IRDMA_PBLE_SIZE;
	}
	dev->pble = pool;
	return 0;
}

/* Give segment @s memory and, unless hmc.c has, its SD. */
static int irdma_pble_back(struct irdma_dev *dev, struct irdma_pble_pool *pool,
			   struct irdma_pble_seg *s)
{
	u64 off = (pool->base + (u64)s->first * IRDMA_PBLE_SIZE) %
		  IRDMA_HMC_SD_SIZE;
	struct irdma_sd_entry e;
	void *va;
	int err;

	lockdep_assert_held(&pool->lock);
	s->used = bitmap_zalloc(s->n, GFP_KERNEL);
	if (!s->used)
		return -ENOMEM;
	if (s->sd < dev->hmc.nsd) {
		va = dev->hmc.sd[s->sd].va;
	} else {
		err = irdma_dma_alloc(dev, &s->page, IRDMA_HMC_SD_SIZE);
		if (err)
			goto free_used;
		irdma_sd_entry_set(dev, &e, s->sd, s->page.pa);
		err = irdma_hmc_update_sds(dev, &e, 1);
		if (err) {
			dev_err(dev->dma, "PBLE segment %u: SD error %d\n",
				s->sd, err);
			goto free_page;
		}
		va = s->page.va;
	}
	s->va = va + off;
	return 0;

free_page:
	irdma_dma_free(dev, &s->page);
free_used:
	bitmap_free(s->used);
	s->used = NULL;
	return err;
}

int irdma_pble_get(struct irdma_dev *dev, u32 n, struct irdma_pble *p)
{
	struct irdma_pble_pool *pool = dev->pble;
	struct irdma_pble_seg *s = NULL;
	unsigned long bit = 0;
	int err = -ENOMEM;
	u32 i;

	if (!n)
		return -EINVAL;
	if (!pool || n > IRDMA_PBLES_PER_SD)
		return -ENOMEM;

	mutex_lock(&pool->lock);
	/* A segment already backed first: memory is added only at need. */
	for (i = 0; i < pool->nseg; i++) {
		s = &pool->seg[i];
		if (!s->va || s->n < n)
			continue;
		bit = bitmap_find_next_zero_area(s->used, s->n, 0, n, 0);
		if (bit + n <= s->n)
			goto found;
	}
	for (i = 0; i < pool->nseg; i++) {
		s = &pool->seg[i];
		if (s->va || s->n < n)
			continue;
		err = irdma_pble_back(dev, pool, s);
		if (err)
			break;
		bit = 0;
		goto found;
	}
	mutex_unlock(&pool->lock);
	return err;

found:
	bitmap_set(s->used, bit, n);
	mutex_unlock(&pool->lock);
	p->idx = s->first + bit;
	p->n = n;
	p->va = s->va + bit;
	return 0;
}

void irdma_pble_put(struct irdma_dev *dev, struct irdma_pble *p)
{
	struct irdma_pble_pool *pool = dev->pble;
	struct irdma_pble_seg *s;
	u64 sd;

	if (!p->n || !p->va)
		return;
	sd = (pool->base + (u64)p->idx * IRDMA_PBLE_SIZE) / IRDMA_HMC_SD_SIZE;
	if (WARN_ON(sd - pool->first_sd >= pool->nseg))
		return;
	s = &pool->seg[sd - pool->first_sd];
	if (WARN_ON(p->idx - s->first + p->n > s->n))
		return;
	mutex_lock(&pool->lock);
	bitmap_clear(s->used, p->idx - s->first, p->n);
	mutex_unlock(&pool->lock);
	memset(p, 0, sizeof(*p));
}

/* Best effort: with the CQP gone the device is too. */
static void irdma_pble_clear_sds(struct irdma_dev *dev,
				 const struct irdma_sd_entry *e, unsigned int n)
{
	int err;

	err = irdma_hmc_update_sds(dev, e, n);
	if (err)
		dev_dbg(dev->dma, "PBLE segments not cleared (%d)\n", err);
}

/* Invalidate the SDs the pool set, then free it all. */
void irdma_pble_fini(struct irdma_dev *dev)
{
	struct irdma_pble_pool *pool = dev->pble;
	struct irdma_sd_entry e[IRDMA_HMC_SDS_PER_CMD];
	struct irdma_pble_seg *s;
	unsigned int n = 0;
	u32 i;

	if (!pool)
		return;
	for (i = 0; i < pool->nseg; i++) {
		s = &pool->seg[i];
		if (!s->page.va)
			continue;
		irdma_sd_entry_clear(dev, &e[n++], s->sd);
		if (n == ARRAY_SIZE(e)) {
			irdma_pble_clear_sds(dev, e, n);
			n = 0;
		}
	}
	if (n)
		irdma_pble_clear_sds(dev, e, n);
	for (i = 0; i < pool->nseg; i++) {
		s = &pool->seg[i];
		irdma_dma_free(dev, &s->page);
		bitmap_free(s->used);
	}
	mutex_destroy(&pool->lock);
	kfree(pool);
	dev->pble = NULL;
}
