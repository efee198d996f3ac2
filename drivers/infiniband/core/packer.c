// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_pack() and ib_unpack(): move the fields of a host structure to and
 * from a wire header, as a table of struct ib_field (<rdma/ib_pack.h>)
 * describes them.
 *
 * Wire headers are big-endian bit strings.  A field sits at bit
 * @offset_bits (0 the most significant) of 32-bit word @offset_words and
 * is @size_bits long.  In the structure it is @struct_size_bytes wide, in
 * network order (u8, __be16, __be32, __be64), or a byte array for fields
 * longer than 64 bits (GIDs), which must then be byte-aligned.  An entry
 * with @struct_size_bytes 0 is reserved: packed as zeros, not unpacked.
 *
 * A field of up to 32 bits is read and written through the 32-bit word
 * it lies in, a longer one up to 64 bits through the 64-bit window that
 * starts at its word: a field never crosses its window (the IBTA aligns
 * them so), and a header may end right after a 32-bit word, so a short
 * field must not touch the next one.  Bits outside the field keep their
 * value: a table packs a header field by field into the caller's buffer.
 */
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <rdma/ib_pack.h>
#include <asm/unaligned.h>

/* The structure's value of a field, from its network-order storage. */
static u64 ib_field_get(const struct ib_field *f, const void *structure)
{
	const void *p = structure + f->struct_offset_bytes;

	switch (f->struct_size_bytes) {
	case 1:
		return *(const u8 *)p;
	case 2:
		return get_unaligned_be16(p);
	case 4:
		return get_unaligned_be32(p);
	case 8:
		return get_unaligned_be64(p);
	}
	pr_warn("ib_pack: field %s: no %zu-byte values\n", f->field_name,
		f->struct_size_bytes);
	return 0;
}

static void ib_field_set(const struct ib_field *f, void *structure, u64 val)
{
	void *p = structure + f->struct_offset_bytes;

	switch (f->struct_size_bytes) {
	case 1:
		*(u8 *)p = val;
		return;
	case 2:
		put_unaligned_be16(val, p);
		return;
	case 4:
		put_unaligned_be32(val, p);
		return;
	case 8:
		put_unaligned_be64(val, p);
		return;
	}
	pr_warn("ib_unpack: field %s: no %zu-byte values\n", f->field_name,
		f->struct_size_bytes);
}

/* The bytes of a field longer than 64 bits, which must be whole bytes. */
static void *ib_field_bytes(const struct ib_field *f, void *buf)
{
	if (f->offset_bits % 8 || f->size_bits % 8)
		pr_warn("ib_pack: field %s (%d bits at bit %d) is not byte-aligned\n",
			f->field_name, f->size_bits, f->offset_bits);
	return buf + f->offset_words * 4 + f->offset_bits / 8;
}

/*
 * Where in its window (32 or 64 bits, see the top) a field of @width
 * bits lies: the shift of its least significant bit and its mask.
 */
static void ib_field_span(const struct ib_field *f, int width, int *shift,
			  u64 *mask)
{
	*shift = width - f->offset_bits - f->size_bits;
	*mask = (U64_MAX >> (64 - f->size_bits)) << *shift;
}

static void ib_pack_field(const struct ib_field *f, const void *structure,
			  void *buf)
{
	void *word = buf + f->offset_words * 4;
	u64 val = 0, mask;
	int shift;

	if (f->size_bits <= 0)
		return;
	if (f->size_bits > 64) {
		void *dst = ib_field_bytes(f, buf);

		if (f->struct_size_bytes)
			memcpy(dst, structure + f->struct_offset_bytes,
			       f->size_bits / 8);
		else
			memset(dst, 0, f->size_bits / 8);
		return;
	}

	if (f->struct_size_bytes)
		val = ib_field_get(f, structure);
	if (f->size_bits <= 32) {
		ib_field_span(f, 32, &shift, &mask);
		put_unaligned_be32((get_unaligned_be32(word) & ~mask) |
				   ((val << shift) & mask), word);
	} else {
		ib_field_span(f, 64, &shift, &mask);
		put_unaligned_be64((get_unaligned_be64(word) & ~mask) |
				   ((val << shift) & mask), word);
	}
}

/**
 * ib_pack - pack a structure into a wire header
 * @desc: the fields, as described at the top of this file
 * @desc_len: number of entries in @desc
 * @structure: the host structure to read
 * @buf: the header to write; bits no entry covers are left as they are
 */
void ib_pack(const struct ib_field *desc, int desc_len, void *structure,
	     void *buf)
{
	int i;

	for (i = 0; i < desc_len; i++)
		ib_pack_field(&desc[i], structure, buf);
}
EXPORT_SYMBOL(ib_pack);

static void ib_unpack_field(const struct ib_field *f, const void *buf,
			    void *structure)
{
	const void *word = buf + f->offset_words * 4;
	u64 mask;
	int shift;

	if (f->size_bits <= 0)
		return;
	if (f->size_bits > 64) {
		memcpy(structure + f->struct_offset_bytes,
		       ib_field_bytes(f, (void *)buf), f->size_bits / 8);
		return;
	}

	if (f->size_bits <= 32) {
		ib_field_span(f, 32, &shift, &mask);
		ib_field_set(f, structure,
			     (get_unaligned_be32(word) & mask) >> shift);
	} else {
		ib_field_span(f, 64, &shift, &mask);
		ib_field_set(f, structure,
			     (get_unaligned_be64(word) & mask) >> shift);
	}
}

/**
 * ib_unpack - unpack a wire header into a structure
 * @desc: the fields, as described at the top of this file
 * @desc_len: number of entries in @desc
 * @buf: the header to read
 * @structure: the host structure to write; reserved entries are skipped
 */
void ib_unpack(const struct ib_field *desc, int desc_len, void *buf,
	       void *structure)
{
	int i;

	for (i = 0; i < desc_len; i++)
		if (desc[i].struct_size_bytes)
			ib_unpack_field(&desc[i], buf, structure);
}
EXPORT_SYMBOL(ib_unpack);
