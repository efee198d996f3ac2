// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory regions: one memory key (mkey) of the device each.
 *
 * A user MR is an MTT key: the pinned pages' DMA addresses in blocks of
 * the largest page size the region's layout allows, all given inline in
 * CREATE_MKEY.  A DMA MR (kernel users) is a PA key over all of memory;
 * a fast registration MR (fastreg.c) a free key UMR WQEs enable.
 * The key's low byte is ours to choose (the PRM's variant): it changes
 * with each key we create, so that a key freed and reused by the device
 * does not match a stale lkey/rkey of a peer.
 */
#include "mlx5_ib.h"

/* The page sizes of an MTT key: 4 KiB to 1 GiB. */
#define MLX5_IB_MTT_PGSZ_BITMAP		GENMASK_ULL(30, 12)

/* The access flags our keys implement. */
#define MLX5_IB_MR_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
				 IB_ACCESS_RELAXED_ORDERING)

static atomic_t mlx5_ib_mkey_variant = ATOMIC_INIT(0);

void mlx5_ib_set_mkc(void *mkc, u32 pdn, int access, u8 mode)
{
	MLX5_SET(mkc, mkc, access_mode_1_0, mode & 3);
	MLX5_SET(mkc, mkc, access_mode_4_2, mode >> 2);
	MLX5_SET(mkc, mkc, a, !!(access & IB_ACCESS_REMOTE_ATOMIC));
	MLX5_SET(mkc, mkc, rw, !!(access & IB_ACCESS_REMOTE_WRITE));
	MLX5_SET(mkc, mkc, rr, !!(access & IB_ACCESS_REMOTE_READ));
	MLX5_SET(mkc, mkc, lw, !!(access & IB_ACCESS_LOCAL_WRITE));
	MLX5_SET(mkc, mkc, lr, 1);
	MLX5_SET(mkc, mkc, pd, pdn);
	MLX5_SET(mkc, mkc, qpn, 0xffffff);
	MLX5_SET(mkc, mkc, mkey_7_0, atomic_inc_return(&mlx5_ib_mkey_variant));
}

static struct mlx5_ib_mr *mlx5_ib_mr_alloc(void)
{
	return kzalloc(sizeof(struct mlx5_ib_mr), GFP_KERNEL);
}

void mlx5_ib_mr_publish(struct mlx5_ib_mr *mr)
{
	mr->ibmr.lkey = mr->mkey;
	mr->ibmr.rkey = mr->mkey;
}

struct ib_mr *mlx5_ib_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct mlx5_ib_dev *dev = to_mdev(ibpd->device);
	u32 in[MLX5_ST_SZ_DW(create_mkey_in)] = {};
	void *mkc = MLX5_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	struct mlx5_ib_mr *mr;
	int err;

	mr = mlx5_ib_mr_alloc();
	if (!mr)
		return ERR_PTR(-ENOMEM);

	mlx5_ib_set_mkc(mkc, to_mpd(ibpd)->pdn, access, MLX5_MKC_ACCESS_MODE_PA);
	MLX5_SET(mkc, mkc, length64, 1);
	err = mlx5_core_create_mkey(dev->mdev, &mr->mkey, in, sizeof(in));
	if (err) {
		kfree(mr);
		return ERR_PTR(mlx5_ib_cmd_status(dev, err));
	}
	mlx5_ib_mr_publish(mr);
	return &mr->ibmr;
}

/* CREATE_MKEY of an MTT key over @umem's blocks of 2^@shift bytes. */
static int mlx5_ib_create_mtt_mkey(struct mlx5_ib_dev *dev,
				   struct mlx5_ib_mr *mr, u32 pdn, u64 iova,
				   u64 length, int access, unsigned int shift)
{
	size_t nblocks = ib_umem_num_dma_blocks(mr->umem, 1UL << shift);
	size_t octs = DIV_ROUND_UP(nblocks, 2);
	void *mkc;
	int inlen;
	u32 *in;
	int err;

	/* The key's size fields hold 2^31 octwords; the device's limit is far below. */
	if (octs > S32_MAX / 16)
		return -ENOMEM;
	inlen = MLX5_ST_SZ_BYTES(create_mkey_in) + octs * 16;
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;

	mlx5_ib_buf_fill_pas(mr->umem, 1UL << shift,
			     (__be64 *)MLX5_ADDR_OF(create_mkey_in, in, klm_pas_mtt));

	mkc = MLX5_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	mlx5_ib_set_mkc(mkc, pdn, access, MLX5_MKC_ACCESS_MODE_MTT);
	/* The UMR QP may change its rights and PD in place (umr.c). */
	MLX5_SET(mkc, mkc, umr_en, 1);
	MLX5_SET64(mkc, mkc, start_addr, iova);
	MLX5_SET64(mkc, mkc, len, length);
	MLX5_SET(mkc, mkc, log_page_size, shift);
	MLX5_SET(mkc, mkc, translations_octword_size, octs);
	MLX5_SET(create_mkey_in, in, translations_octword_actual_size, octs);

	err = mlx5_core_create_mkey(dev->mdev, &mr->mkey, in, inlen);
	kvfree(in);
	return mlx5_ib_cmd_status(dev, err);
}

struct ib_mr *mlx5_ib_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				  u64 virt_addr, int access,
				  struct ib_udata *udata)
{
	struct mlx5_ib_dev *dev = to_mdev(ibpd->device);
	struct mlx5_ib_mr *mr;
	unsigned long pgsz;
	int err;

	if (access & ~MLX5_IB_MR_ACCESS)
		return ERR_PTR(-EOPNOTSUPP);
	if (!length)
		return ERR_PTR(-EINVAL);

	mr = mlx5_ib_mr_alloc();
	if (!mr)
		return ERR_PTR(-ENOMEM);

	mr->umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		goto err_free;
	}
	pgsz = ib_umem_find_best_pgsz(mr->umem, MLX5_IB_MTT_PGSZ_BITMAP,
				      virt_addr);
	if (!pgsz) {
		err = -EINVAL;
		goto err_umem;
	}

	err = mlx5_ib_create_mtt_mkey(dev, mr, to_mpd(ibpd)->pdn, virt_addr,
				      length, access, order_base_2(pgsz));
	if (err)
		goto err_umem;
	mr->access = access;
	mlx5_ib_mr_publish(mr);
	return &mr->ibmr;

err_umem:
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

/*
 * The key goes first: once DESTROY_MKEY returns, the device no longer
 * reaches the pages, which may then be unpinned.
 */
int mlx5_ib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct mlx5_ib_dev *dev = to_mdev(ibmr->device);
	struct mlx5_ib_mr *mr = to_mmr(ibmr);
	int err;

	err = mlx5_core_destroy_mkey(dev->mdev, mr->mkey);
	err = mlx5_ib_destroy_status(dev, err);
	if (err)
		return err;
	if (mr->pages)
		mlx5_ib_fr_free(dev, mr);
	ib_umem_release(mr->umem);
	kfree(mr);
	return 0;
}

/*
 * ibv_rereg_mr().  New rights or a new PD alone: the UMR QP changes the
 * key in place, so a peer that holds it keeps a valid key (as stock).
 * A new range: a new key over the region as it is to be (the rest as it
 * was); the core moves the handle to it and deregisters the old one.
 * The old key stays valid until then, so a failure leaves the MR as it
 * was.
 */
struct ib_mr *mlx5_ib_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				    u64 length, u64 virt_addr, int access,
				    struct ib_pd *pd, struct ib_udata *udata)
{
	struct mlx5_ib_dev *dev = to_mdev(ibmr->device);
	struct mlx5_ib_mr *mr = to_mmr(ibmr);
	int err;

	if (!mr->umem)
		return ERR_PTR(-EINVAL);
	if (!(flags & IB_MR_REREG_TRANS)) {
		if (!(flags & IB_MR_REREG_ACCESS))
			access = mr->access;
		if (access & ~MLX5_IB_MR_ACCESS)
			return ERR_PTR(-EOPNOTSUPP);
		err = mlx5_ib_umr_rereg(dev, mr, access,
					to_mpd(flags & IB_MR_REREG_PD ? pd : ibmr->pd)->pdn);
		if (!err) {
			mr->access = access;
			/* The core moves the MR to the new PD. */
			return NULL;
		}
		if (err != -EOPNOTSUPP)
			return ERR_PTR(err);
	}
	if (!(flags & IB_MR_REREG_TRANS)) {
		start = mr->umem->address;
		length = ibmr->length;
		virt_addr = ibmr->iova;
	}
	if (!(flags & IB_MR_REREG_ACCESS))
		access = mr->access;
	if (!(flags & IB_MR_REREG_PD))
		pd = ibmr->pd;
	return mlx5_ib_reg_user_mr(pd, start, length, virt_addr, access, udata);
}
