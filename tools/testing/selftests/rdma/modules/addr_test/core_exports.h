/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Symbols ib_core exports without a public declaration: both the stock
 * kernel and oot-rdma declare them in their private core_priv.h, which a
 * test module cannot include.
 */
#ifndef ADDR_TEST_CORE_EXPORTS_H
#define ADDR_TEST_CORE_EXPORTS_H

#include <rdma/ib_verbs.h>

const char *ib_cache_gid_type_str(enum ib_gid_type gid_type);
int ib_cache_gid_parse_type_str(const char *buf);
unsigned long roce_gid_type_mask_support(struct ib_device *ib_dev, u32 port);

#endif /* ADDR_TEST_CORE_EXPORTS_H */
