// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel SRQs: the RMP's linked list of WQEs in mlx5_core's DMA pages.
 *
 * The device starts at WQE 0 and, each time a message needs a WQE while
 * the record's counter is ahead of its own, takes the WQE it is at and
 * follows that WQE's link.  The free WQEs form the same chain: posting
 * fills the one at @head and moves along its link; a completed WQE is
 * linked after @tail, the last free one, which is never posted, so the
 * device never follows a link that may still change.
 */
#include "mlx5_ib.h"

static struct mlx5_wqe_srq_next_seg *
mlx5_ib_srq_wqe(struct mlx5_ib_srq *srq, u16 index)
{
	return mlx5_frag_buf_get_wqe(&srq->fbc, index);
}

int mlx5_ib_create_kernel_srq(struct mlx5_ib_dev *dev, struct mlx5_ib_srq *srq,
			      struct ib_srq_init_attr *attr, u32 entries,
			      u32 wqe_shift)
{
	struct mlx5_core_dev *mdev = dev->mdev;
	u32 i;
	int err;

	srq->kernel = true;
	spin_lock_init(&srq->list_lock);
	srq->wrid = kvcalloc(entries, sizeof(*srq->wrid), GFP_KERNEL);
	if (!srq->wrid)
		return -ENOMEM;
	err = mlx5_db_alloc(mdev, &srq->kdb);
	if (err)
		goto err_wrid;
	srq->kdb.db[0] = 0;
	err = mlx5_frag_buf_alloc_node(mdev, entries << wqe_shift, &srq->buf,
				       mdev->priv.numa_node);
	if (err)
		goto err_db;
	mlx5_init_fbc(srq->buf.frags, wqe_shift, ilog2(entries), &srq->fbc);
	for (i = 0; i < entries; i++)
		mlx5_ib_srq_wqe(srq, i)->next_wqe_index =
			cpu_to_be16((i + 1) & (entries - 1));
	srq->head = 0;
	srq->tail = entries - 1;
	srq->counter = 0;

	err = mlx5_ib_create_rmp(dev, srq, to_mpd(srq->ibsrq.pd)->pdn, entries,
				 wqe_shift, attr->attr.srq_limit, 0,
				 srq->kdb.dma);
	if (err)
		goto err_buf;
	mlx5_ib_srq_created(srq, &attr->attr, entries, wqe_shift);
	return 0;

err_buf:
	mlx5_frag_buf_free(mdev, &srq->buf);
err_db:
	mlx5_db_free(mdev, &srq->kdb);
err_wrid:
	kvfree(srq->wrid);
	return err;
}

/* After DESTROY_RMP: the device reads the list no more. */
void mlx5_ib_destroy_kernel_srq(struct mlx5_ib_dev *dev, struct mlx5_ib_srq *srq)
{
	mlx5_frag_buf_free(dev->mdev, &srq->buf);
	mlx5_db_free(dev->mdev, &srq->kdb);
	kvfree(srq->wrid);
}

int mlx5_ib_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr)
{
	struct mlx5_ib_srq *srq = to_msrq(ibsrq);
	struct mlx5_wqe_srq_next_seg *next;
	struct mlx5_wqe_data_seg *d;
	unsigned long flags;
	u16 posted;
	int err = 0;
	int i, n;

	if (!srq->kernel) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	spin_lock_irqsave(&srq->list_lock, flags);
	posted = srq->counter;
	for (; wr; wr = wr->next) {
		if (wr->num_sge > srq->max_sge)
			err = -EINVAL;
		else if (srq->head == srq->tail)
			err = -ENOMEM;
		if (err) {
			*bad_wr = wr;
			break;
		}
		next = mlx5_ib_srq_wqe(srq, srq->head);
		d = (struct mlx5_wqe_data_seg *)(next + 1);
		for (i = 0, n = 0; i < wr->num_sge; i++) {
			if (!wr->sg_list[i].length)
				continue;
			d[n].byte_count = cpu_to_be32(wr->sg_list[i].length);
			d[n].lkey = cpu_to_be32(wr->sg_list[i].lkey);
			d[n].addr = cpu_to_be64(wr->sg_list[i].addr);
			n++;
		}
		if (n < srq->max_sge) {
			d[n].byte_count = 0;
			d[n].lkey = cpu_to_be32(MLX5_INVALID_LKEY);
			d[n].addr = 0;
		}
		srq->wrid[srq->head] = wr->wr_id;
		srq->head = be16_to_cpu(next->next_wqe_index);
		srq->counter++;
	}
	if (srq->counter != posted) {
		/* The WQEs before the record that offers them. */
		wmb();
		srq->kdb.db[0] = cpu_to_be32(srq->counter);
	}
	spin_unlock_irqrestore(&srq->list_lock, flags);
	return err;
}

/*
 * The WQE at @index completed (its CQE's WQE counter): its wr_id, and
 * the WQE joins the free list's end.
 */
u64 mlx5_ib_srq_complete(struct mlx5_ib_srq *srq, u16 index)
{
	unsigned long flags;
	u64 wr_id;

	index &= srq->max_wr;
	spin_lock_irqsave(&srq->list_lock, flags);
	wr_id = srq->wrid[index];
	mlx5_ib_srq_wqe(srq, srq->tail)->next_wqe_index = cpu_to_be16(index);
	srq->tail = index;
	spin_unlock_irqrestore(&srq->list_lock, flags);
	return wr_id;
}
