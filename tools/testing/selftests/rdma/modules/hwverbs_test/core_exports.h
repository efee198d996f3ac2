/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Symbols ib_core exports without a public declaration: stock declares
 * them in its private core_priv.h and restrack.h (with these prototypes),
 * which a test module cannot include.
 */
#ifndef HWVERBS_TEST_CORE_EXPORTS_H
#define HWVERBS_TEST_CORE_EXPORTS_H

#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>

void ib_get_cached_subnet_prefix(struct ib_device *device, u32 port_num,
				 u64 *sn_pfx);
void ib_qp_usecnt_inc(struct ib_qp *qp);
void ib_qp_usecnt_dec(struct ib_qp *qp);
int ib_rdmacg_try_charge(struct ib_rdmacg_object *cg_obj,
			 struct ib_device *device,
			 enum rdmacg_resource_type resource_index);
void ib_rdmacg_uncharge(struct ib_rdmacg_object *cg_obj,
			struct ib_device *device,
			enum rdmacg_resource_type resource_index);
void rdma_restrack_sync(struct rdma_restrack_entry *res);
void rdma_restrack_begin_del(struct rdma_restrack_entry *res);
void rdma_restrack_abort_del(struct rdma_restrack_entry *res);

#endif /* HWVERBS_TEST_CORE_EXPORTS_H */
