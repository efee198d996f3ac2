/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Symbols ib_core exports without a public declaration: stock declares
 * them in its private core_priv.h (with these prototypes), which a test
 * module cannot include.
 */
#ifndef FAKEIB_TEST_CORE_EXPORTS_H
#define FAKEIB_TEST_CORE_EXPORTS_H

#include <rdma/ib_verbs.h>

struct ib_uqp_object;

struct ib_qp *ib_create_qp_user(struct ib_device *dev, struct ib_pd *pd,
				struct ib_qp_init_attr *attr,
				struct ib_udata *udata,
				struct ib_uqp_object *uobj, const char *caller);
void ib_get_cached_subnet_prefix(struct ib_device *device, u32 port_num,
				 u64 *sn_pfx);

#endif /* FAKEIB_TEST_CORE_EXPORTS_H */
