// SPDX-License-Identifier: GPL-2.0-only
/*
 * The work scheduler: the PE sends a QP's packets through a queue set
 * of ice's transmit scheduler, named by a handle in the QP's context.
 * The tree on the PE side is a root, the VSI's node and one leaf per
 * traffic class in use; adding the leaf returns its queue set handle,
 * which ice then adds under the VSI (ice_add_rdma_qset) before the leaf
 * is enabled.  We use traffic class 0 only (no DCB yet): one leaf.
 *
 * The tree is built with the first QP (the MAD layer's QP1, during
 * registration) and removed with the last, as Debian's irdma does.
 *
 * Facts: the E810 scoping (WORK_SCHED_NODE's fields; the root is its
 * own parent; node 0 is the root), iidc.h (struct iidc_rdma_qset_params).
 */
#include "verbs.h"

#define IRDMA_WS_ROOT		0
#define IRDMA_WS_VSI_NODE	1
#define IRDMA_WS_LEAF		2

static int irdma_ws_node(struct irdma_dev *dev, u8 op, u16 id, u16 parent,
			 bool leaf, bool enable, u32 *ret)
{
	struct irdma_cqp_cmd cmd;
	int err;

	irdma_cqp_cmd_init(&cmd, IRDMA_CQP_OP_WORK_SCHED_NODE,
			   FIELD_PREP(IRDMA_WS_HDR_ID, id) |
			   FIELD_PREP(IRDMA_WS_HDR_PARENT, parent) |
			   FIELD_PREP(IRDMA_WS_HDR_NODE_OP, op) |
			   FIELD_PREP(IRDMA_WS_HDR_PRIO_TYPE,
				      IRDMA_WS_PRIO_WEIGHTED_RR) |
			   (leaf ? IRDMA_WS_HDR_LEAF : 0) |
			   (enable ? IRDMA_WS_HDR_ENABLE : 0));
	cmd.wqe[4] = FIELD_PREP(IRDMA_WS_VSI, dev->vsi) |
		     FIELD_PREP(IRDMA_WS_WEIGHT, 1);
	err = irdma_cqp_exec(dev, &cmd);
	if (!err && ret)
		*ret = cmd.ret;
	return err;
}

static int irdma_ws_build(struct irdma_dev *dev)
{
	struct irdma_ws *ws = &dev->ws;
	u32 handle;
	int err;

	err = irdma_ws_node(dev, IRDMA_WS_OP_ADD, IRDMA_WS_ROOT, IRDMA_WS_ROOT,
			    false, true, NULL);
	if (err)
		return err;
	err = irdma_ws_node(dev, IRDMA_WS_OP_ADD, IRDMA_WS_VSI_NODE,
			    IRDMA_WS_ROOT, false, true, NULL);
	if (err)
		goto del_root;
	err = irdma_ws_node(dev, IRDMA_WS_OP_ADD, IRDMA_WS_LEAF,
			    IRDMA_WS_VSI_NODE, true, false, &handle);
	if (err)
		goto del_vsi;
	ws->qs_handle = handle;
	err = irdma_ice_add_qset(dev, ws->qs_handle, &ws->teid);
	if (err)
		goto del_leaf;
	err = irdma_ws_node(dev, IRDMA_WS_OP_MODIFY, IRDMA_WS_LEAF,
			    IRDMA_WS_VSI_NODE, true, true, NULL);
	if (err)
		goto del_qset;
	return 0;

del_qset:
	irdma_ice_del_qset(dev, ws->qs_handle, ws->teid);
del_leaf:
	irdma_ws_node(dev, IRDMA_WS_OP_DELETE, IRDMA_WS_LEAF,
		      IRDMA_WS_VSI_NODE, true, false, NULL);
del_vsi:
	irdma_ws_node(dev, IRDMA_WS_OP_DELETE, IRDMA_WS_VSI_NODE,
		      IRDMA_WS_ROOT, false, false, NULL);
del_root:
	irdma_ws_node(dev, IRDMA_WS_OP_DELETE, IRDMA_WS_ROOT, IRDMA_WS_ROOT,
		      false, false, NULL);
	return err;
}

static void irdma_ws_remove(struct irdma_dev *dev)
{
	struct irdma_ws *ws = &dev->ws;

	irdma_ice_del_qset(dev, ws->qs_handle, ws->teid);
	irdma_ws_node(dev, IRDMA_WS_OP_DELETE, IRDMA_WS_LEAF,
		      IRDMA_WS_VSI_NODE, true, false, NULL);
	irdma_ws_node(dev, IRDMA_WS_OP_DELETE, IRDMA_WS_VSI_NODE,
		      IRDMA_WS_ROOT, false, false, NULL);
	irdma_ws_node(dev, IRDMA_WS_OP_DELETE, IRDMA_WS_ROOT, IRDMA_WS_ROOT,
		      false, false, NULL);
}

/* A QP's hold on the tree: built by the first, its handle in dev->ws. */
int irdma_ws_get(struct irdma_dev *dev)
{
	struct irdma_ws *ws = &dev->ws;
	int err = 0;

	mutex_lock(&ws->lock);
	if (!ws->users)
		err = irdma_ws_build(dev);
	if (!err)
		ws->users++;
	mutex_unlock(&ws->lock);
	return err;
}

void irdma_ws_put(struct irdma_dev *dev)
{
	struct irdma_ws *ws = &dev->ws;

	mutex_lock(&ws->lock);
	if (!--ws->users)
		irdma_ws_remove(dev);
	mutex_unlock(&ws->lock);
}
