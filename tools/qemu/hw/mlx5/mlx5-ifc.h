/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mlx5 device model: the command and context layouts.
 *
 * The layouts are those of the target kernel's public
 * include/linux/mlx5/mlx5_ifc.h, included at build time from
 * linux-headers (scripts/qemu-build puts it on the include path; it is
 * never copied).  That header describes each structure as a struct of
 * u8 arrays in which one array element stands for one bit: the offset
 * of a member is its bit offset, its size its width in bits, and bits are
 * numbered from the most significant bit of the first big-endian dword.
 * The accessors below are ours, written from that convention.
 */

#ifndef HW_MLX5_IFC_H
#define HW_MLX5_IFC_H

#include "qemu/bitops.h"
#include "qemu/bswap.h"

/* The kernel types the header uses, and nothing else. */
typedef uint8_t u8;

#include <linux/mlx5/mlx5_ifc.h>

#define MLX5_BITS(typ)            struct mlx5_ifc_##typ##_bits
#define MLX5_BIT_OFF(typ, fld)    offsetof(MLX5_BITS(typ), fld)
#define MLX5_BIT_SZ(typ, fld)     sizeof(typeof_field(MLX5_BITS(typ), fld))
#define MLX5_ST_SZ_BYTES(typ)     (sizeof(MLX5_BITS(typ)) / 8)
#define MLX5_BYTE_OFF(typ, fld)   (MLX5_BIT_OFF(typ, fld) / 8)
#define MLX5_ADDR_OF(typ, p, fld) ((uint8_t *)(p) + MLX5_BYTE_OFF(typ, fld))

/* A field of up to 32 bits never crosses a dword: checked at build time. */
#define MLX5_FLD_CHECK32(typ, fld) \
    QEMU_BUILD_BUG_ON_ZERO((MLX5_BIT_OFF(typ, fld) & 31) + \
                           MLX5_BIT_SZ(typ, fld) > 32)
#define MLX5_FLD_CHECK64(typ, fld) \
    QEMU_BUILD_BUG_ON_ZERO((MLX5_BIT_OFF(typ, fld) & 63) || \
                           MLX5_BIT_SZ(typ, fld) != 64)

static inline uint32_t mlx5_get_bits(const void *p, size_t off, size_t sz)
{
    uint32_t dw = ldl_be_p((const uint8_t *)p + off / 32 * 4);

    if (sz == 32) {
        return dw;
    }
    return (dw >> (32 - sz - off % 32)) & ((1u << sz) - 1);
}

static inline void mlx5_set_bits(void *p, size_t off, size_t sz, uint32_t v)
{
    uint8_t *a = (uint8_t *)p + off / 32 * 4;
    unsigned int shift = 32 - sz - off % 32;
    uint32_t mask = sz == 32 ? ~0u : ((1u << sz) - 1) << shift;

    stl_be_p(a, (ldl_be_p(a) & ~mask) | ((v << shift) & mask));
}

#define MLX5_GET(typ, p, fld) \
    (mlx5_get_bits((p), MLX5_BIT_OFF(typ, fld), MLX5_BIT_SZ(typ, fld)) + \
     MLX5_FLD_CHECK32(typ, fld))
#define MLX5_SET(typ, p, fld, v) \
    mlx5_set_bits((p), MLX5_BIT_OFF(typ, fld) + MLX5_FLD_CHECK32(typ, fld), \
                  MLX5_BIT_SZ(typ, fld), (v))
#define MLX5_GET64(typ, p, fld) \
    ldq_be_p(MLX5_ADDR_OF(typ, p, fld) + MLX5_FLD_CHECK64(typ, fld))
#define MLX5_SET64(typ, p, fld, v) \
    stq_be_p(MLX5_ADDR_OF(typ, p, fld) + MLX5_FLD_CHECK64(typ, fld), (v))

#endif
