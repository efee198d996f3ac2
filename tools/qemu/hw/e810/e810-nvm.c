/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 device model: the NVM (flash) and its shadow RAM.
 *
 * The device has no real flash behind it: at realize the model builds
 * the parts of an image that ice reads, and answers everything else of
 * the flash as erased (0xff).  The driver reads it through admin
 * command 0x0701 only, either as shadow RAM (the 64 KiB of words the
 * firmware loads at power-on) or, with the "flash only" flag, as the
 * raw flash; it never writes it except in a firmware update, which the
 * model refuses.
 *
 * What ice 6.1 reads at probe (ice_nvm.c: ice_init_nvm) and where the
 * model puts it:
 *
 *   GLNVM_GENS    shadow RAM size: 2^SR_SIZE KiB of words * 512; 6 here,
 *                 64 KiB (ice_init_nvm)
 *   GLNVM_FLA     LOCKED set: normal mode; clear would be "blank NVM
 *                 mode", which ice refuses (ice_init_nvm)
 *   flash size    ice_discover_flash_size bisects 0..16 MiB with 1-byte
 *                 flash reads; a read past the end must fail with EINVAL
 *                 (any other error fails probe).  The model's flash is
 *                 16 MiB, so a read reaching past 16 MiB gets EINVAL.
 *   SR 0x00       control word: bits 7:6 = 01 (valid), bits 3/4/5 the
 *                 active OROM/netlist/NVM bank, all 0: the first one
 *                 (ice_determine_active_flash_banks)
 *   SR 0x42-0x47  NVM, OROM and netlist bank pointers (bit 15: in 4 KiB
 *                 units) and sizes (4 KiB units); a module's second bank
 *                 follows its first (ice_get_flash_bank_offset)
 *   NVM bank      a CSS header (330 words, padded to 352) and then a
 *                 copy of the shadow RAM, from which ice takes
 *                 DEV_STARTER_VER (0x18) and EETRACK (0x2d/0x2e)
 *                 (ice_get_nvm_ver_info; its failure fails probe)
 *   OROM bank     a "$CIV" block at a 512-byte boundary whose bytes sum
 *                 to 0, with the combo version (ice_get_orom_civd_data;
 *                 ice reads the whole bank; failure is tolerated)
 *   netlist bank  module id 0x011b, the link topology length and node
 *                 count, then the 0x30-word ID block with the versions
 *                 (ice_get_netlist_info; failure is tolerated)
 *
 * Later, from the shadow RAM: the WoL word 0x19 (ice_is_wol_supported;
 * all ports' bits set: no WoL), and the Preserved Fields Area through
 * pointer 0x40 (ice_get_pfa_module_tlv): the PBA string TLV 0x16 for
 * "devlink dev info" (ice_read_pba_string) and the link default
 * override TLV 0x134, all zero: no override (ice_get_link_default_
 * override).  "ethtool -t" asks 0x0706 for the checksum (0xbaba: good).
 *
 * The versions this image reports (ethtool -i: "4.20 0x8001e810
 * 1.3236.0"):
 *
 *   NVM      4.20 (DEV_STARTER_VER 0x4020), EETRACK 0x8001e810
 *   OROM     1.3236.0 (combo version 0x010ca400)
 *   netlist  4.1.2000-1.20.0, build (hash) 0xe810c0de
 *   PBA      "OOTRDM-000"
 *
 * ice does not cross-check these against the firmware and API versions
 * of 0x0001 (e810-fw.c); it keys features on the API version alone.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/units.h"
#include "e810.h"

/* Registers (ice_hw_autogen.h). */
#define E810_GLNVM_GENS             0x000b6100
#define E810_GLNVM_GENS_SR_SIZE(v)  ((v) << 5)  /* bits 7:5, log2 KiB */
#define E810_GLNVM_FLA              0x000b6108
#define E810_GLNVM_FLA_LOCKED       BIT(6)

/* Admin commands. */
#define E810_AQC_NVM_READ           0x0701
#define E810_AQC_NVM_ERASE          0x0702
#define E810_AQC_NVM_UPDATE         0x0703
#define E810_AQC_NVM_CHECKSUM       0x0706
#define E810_AQC_NVM_WRITE_ACTIVATE 0x0707
#define E810_AQC_NVM_UPDATE_EMPR    0x0709
#define E810_AQC_NVM_PKG_DATA       0x070a
#define E810_AQC_NVM_PASS_COMP_TBL  0x070b

/*
 * The NVM commands' parameters: a 24-bit byte offset (low 16 bits, then
 * the high 8), flags, the module (0: the flat flash or shadow RAM), the
 * length.
 */
#define E810_NVM_P_OFFSET_LO        0
#define E810_NVM_P_OFFSET_HI        2
#define E810_NVM_P_FLAGS            3
#define E810_NVM_P_MODULE           4
#define E810_NVM_P_LENGTH           6
#define E810_NVM_FLAG_FLASH_ONLY    BIT(7)

/* 0x0706: flags at byte 0, the answer at bytes 2-3. */
#define E810_NVM_CSUM_P_FLAGS       0
#define E810_NVM_CSUM_P_VALUE       2
#define E810_NVM_CSUM_VERIFY        BIT(0)
#define E810_NVM_CSUM_CORRECT       0xbaba

/* Sizes: a shadow RAM sector and the largest read are 4 KiB. */
#define E810_FLASH_SIZE             (16 * MiB)
#define E810_SR_SIZE_LOG2_KB        6
#define E810_SR_BYTES               ((1 << E810_SR_SIZE_LOG2_KB) * KiB)
#define E810_SR_WORDS               (E810_SR_BYTES / 2)
#define E810_SR_SECTOR              4096

/* Shadow RAM words ice reads. */
#define E810_SR_CTRL_WORD           0x00
#define E810_SR_CTRL_VALID          (1 << 6)    /* bits 7:6 = 01 */
#define E810_SR_PBA_TLV             0x16        /* a PFA TLV type */
#define E810_SR_DEV_STARTER_VER     0x18
#define E810_SR_WOL_CFG             0x19
#define E810_SR_EETRACK_LO          0x2d
#define E810_SR_EETRACK_HI          0x2e
#define E810_SR_PFA_PTR             0x40
#define E810_SR_NVM_BANK_PTR        0x42
#define E810_SR_NVM_BANK_SIZE       0x43
#define E810_SR_OROM_BANK_PTR       0x44
#define E810_SR_OROM_BANK_SIZE      0x45
#define E810_SR_NETLIST_BANK_PTR    0x46
#define E810_SR_NETLIST_BANK_SIZE   0x47
#define E810_SR_LINK_OVERRIDE_TLV   0x134       /* a PFA TLV type */
#define E810_SR_PTR_4K_UNITS        BIT(15)

/* The versions (see the file comment). */
#define E810_NVM_VERSION            0x4020      /* 4.20: major 15:12 */
#define E810_NVM_EETRACK            0x8001e810
#define E810_OROM_COMBO_VER         ((1u << 24) | (3236u << 8) | 0)
#define E810_NETLIST_MAJOR          0x4
#define E810_NETLIST_MINOR          0x1
#define E810_NETLIST_TYPE           ((0x2000u << 16) | 0x1)
#define E810_NETLIST_REV            0x20
#define E810_NETLIST_CUST_VER       0x0
#define E810_NETLIST_HASH           0xe810c0de
static const char e810_pba[] = "OOTRDM-000";

/*
 * The flash layout (byte offsets; every bank is 4 KiB-aligned).  The
 * shadow RAM's image sits at the start of the flash.
 */
#define E810_FLASH_NVM_BANK         0x100000
#define E810_FLASH_NVM_BANK_SIZE    0x300000
#define E810_FLASH_OROM_BANK        0x700000
#define E810_FLASH_OROM_BANK_SIZE   0x020000
#define E810_FLASH_NETLIST_BANK     0x740000
#define E810_FLASH_NETLIST_BANK_SIZE 0x040000

/* In the NVM bank: the CSS header, then the shadow RAM's copy. */
#define E810_CSS_HEADER_WORDS       330
#define E810_NVM_SR_COPY_WORD       352         /* 330 rounded up to 32 */
#define E810_NVM_BANK_DATA          ((E810_NVM_SR_COPY_WORD + \
                                      E810_SR_WORDS) * 2)

/* In the OROM bank: the CIVD block at a 512-byte boundary. */
#define E810_CIVD_OFFSET            512
#define E810_CIVD_SIZE              74  /* sig, sum, ver, len, 32 UTF-16 */
#define E810_OROM_DATA              (E810_CIVD_OFFSET + E810_CIVD_SIZE)
static const char e810_combo_name[] = "oot-rdma 4.20";

/*
 * In the netlist bank (words): the module id, the TLV length, the link
 * topology module's length and node count, two words the model leaves
 * 0 and, with no nodes, the ID block at word 6.
 */
#define E810_NETLIST_MODULE_ID      0x011b
#define E810_NETLIST_W_TYPE         0
#define E810_NETLIST_W_TLV_LEN      1
#define E810_NETLIST_W_MODULE_LEN   2
#define E810_NETLIST_W_NODE_COUNT   3
#define E810_NETLIST_W_ID_BLK       6
#define E810_NETLIST_ID_BLK_WORDS   0x30
#define E810_NETLIST_WORDS          (E810_NETLIST_W_ID_BLK + \
                                     E810_NETLIST_ID_BLK_WORDS)
/* ID block words. */
#define E810_ID_MAJOR               0x02    /* low, then high word */
#define E810_ID_MINOR               0x04
#define E810_ID_TYPE                0x06
#define E810_ID_REV                 0x08
#define E810_ID_SHA(n)              (0x0a + (n))
#define E810_ID_CUST_VER            0x2f

/* The Preserved Fields Area, in shadow RAM words. */
#define E810_PFA_WORD               0x0800
#define E810_LINK_OVERRIDE_WORDS    40      /* 10 per port, 4 ports */

/* A stretch of the flash that holds data; the rest reads 0xff. */
typedef struct E810FlashArea {
    uint32_t base;
    uint32_t size;
    const uint8_t *data;
} E810FlashArea;

#define E810_FLASH_AREAS            7

struct E810Nvm {
    uint8_t sr[E810_SR_BYTES];
    uint8_t nvm_bank[E810_NVM_BANK_DATA];
    uint8_t orom_bank[E810_OROM_DATA];
    uint8_t netlist_bank[E810_NETLIST_WORDS * 2];
    E810FlashArea area[E810_FLASH_AREAS];
};

static void e810_sr_put(E810Nvm *nvm, unsigned int word, uint16_t v)
{
    e810_put16(nvm->sr, word * 2, v);
}

/* A TLV of the PFA at WORD: its type, length and LEN words of DATA. */
static unsigned int e810_pfa_tlv(E810Nvm *nvm, unsigned int word,
                                 uint16_t type, const uint16_t *data,
                                 uint16_t len)
{
    unsigned int i;

    e810_sr_put(nvm, word, type);
    e810_sr_put(nvm, word + 1, len);
    for (i = 0; i < len; i++) {
        e810_sr_put(nvm, word + 2 + i, data ? data[i] : 0);
    }
    return word + 2 + len;
}

/*
 * The PFA: its length word (which counts itself, the TLVs and one word
 * after them), the PBA TLV (its size word, counting itself, then two
 * characters a word, the first in the high byte) and the link default
 * override TLV.
 */
static void e810_build_pfa(E810Nvm *nvm)
{
    uint16_t pba[1 + (sizeof(e810_pba) - 1 + 1) / 2] = { 0 };
    unsigned int chars = sizeof(e810_pba) - 1;
    unsigned int i, end;

    pba[0] = ARRAY_SIZE(pba);
    for (i = 0; i < chars; i++) {
        pba[1 + i / 2] |= (uint8_t)e810_pba[i] << (i % 2 ? 0 : 8);
    }
    end = e810_pfa_tlv(nvm, E810_PFA_WORD + 1, E810_SR_PBA_TLV, pba,
                       ARRAY_SIZE(pba));
    end = e810_pfa_tlv(nvm, end, E810_SR_LINK_OVERRIDE_TLV, NULL,
                       E810_LINK_OVERRIDE_WORDS);
    e810_sr_put(nvm, end, 0);
    e810_sr_put(nvm, E810_PFA_WORD, end + 1 - E810_PFA_WORD);
}

static void e810_build_sr(E810Nvm *nvm)
{
    memset(nvm->sr, 0, sizeof(nvm->sr));
    e810_sr_put(nvm, E810_SR_CTRL_WORD, E810_SR_CTRL_VALID);
    e810_sr_put(nvm, E810_SR_DEV_STARTER_VER, E810_NVM_VERSION);
    e810_sr_put(nvm, E810_SR_WOL_CFG, 0xffff);
    e810_sr_put(nvm, E810_SR_EETRACK_LO, E810_NVM_EETRACK & 0xffff);
    e810_sr_put(nvm, E810_SR_EETRACK_HI, E810_NVM_EETRACK >> 16);
    e810_sr_put(nvm, E810_SR_PFA_PTR, E810_PFA_WORD);
    e810_sr_put(nvm, E810_SR_NVM_BANK_PTR,
                E810_SR_PTR_4K_UNITS | E810_FLASH_NVM_BANK / 4096);
    e810_sr_put(nvm, E810_SR_NVM_BANK_SIZE, E810_FLASH_NVM_BANK_SIZE / 4096);
    e810_sr_put(nvm, E810_SR_OROM_BANK_PTR,
                E810_SR_PTR_4K_UNITS | E810_FLASH_OROM_BANK / 4096);
    e810_sr_put(nvm, E810_SR_OROM_BANK_SIZE,
                E810_FLASH_OROM_BANK_SIZE / 4096);
    e810_sr_put(nvm, E810_SR_NETLIST_BANK_PTR,
                E810_SR_PTR_4K_UNITS | E810_FLASH_NETLIST_BANK / 4096);
    e810_sr_put(nvm, E810_SR_NETLIST_BANK_SIZE,
                E810_FLASH_NETLIST_BANK_SIZE / 4096);
    e810_build_pfa(nvm);
}

/* The NVM bank: a blank CSS header, then the shadow RAM as built. */
static void e810_build_nvm_bank(E810Nvm *nvm)
{
    memset(nvm->nvm_bank, 0, E810_NVM_SR_COPY_WORD * 2);
    memcpy(nvm->nvm_bank + E810_NVM_SR_COPY_WORD * 2, nvm->sr,
           sizeof(nvm->sr));
}

/* The OROM bank: erased but for the CIVD block. */
static void e810_build_orom_bank(E810Nvm *nvm)
{
    uint8_t *civd = nvm->orom_bank + E810_CIVD_OFFSET;
    unsigned int len = sizeof(e810_combo_name) - 1;
    uint8_t sum = 0;
    unsigned int i;

    memset(nvm->orom_bank, 0xff, sizeof(nvm->orom_bank));
    memset(civd, 0, E810_CIVD_SIZE);
    memcpy(civd, "$CIV", 4);
    e810_put32(civd, 5, E810_OROM_COMBO_VER);
    civd[9] = len;
    for (i = 0; i < len; i++) {
        e810_put16(civd, 10 + i * 2, (uint8_t)e810_combo_name[i]);
    }
    for (i = 0; i < E810_CIVD_SIZE; i++) {
        sum += civd[i];
    }
    civd[4] = -sum;     /* all the block's bytes sum to 0 */
}

static void e810_netlist_put(E810Nvm *nvm, unsigned int word, uint16_t v)
{
    e810_put16(nvm->netlist_bank, word * 2, v);
}

static void e810_netlist_put32(E810Nvm *nvm, unsigned int id_word,
                               uint32_t v)
{
    e810_netlist_put(nvm, E810_NETLIST_W_ID_BLK + id_word, v & 0xffff);
    e810_netlist_put(nvm, E810_NETLIST_W_ID_BLK + id_word + 1, v >> 16);
}

static void e810_build_netlist_bank(E810Nvm *nvm)
{
    uint16_t module_len = E810_NETLIST_WORDS - E810_NETLIST_W_MODULE_LEN;

    memset(nvm->netlist_bank, 0, sizeof(nvm->netlist_bank));
    e810_netlist_put(nvm, E810_NETLIST_W_TYPE, E810_NETLIST_MODULE_ID);
    e810_netlist_put(nvm, E810_NETLIST_W_TLV_LEN, module_len);
    e810_netlist_put(nvm, E810_NETLIST_W_MODULE_LEN, module_len);
    e810_netlist_put(nvm, E810_NETLIST_W_NODE_COUNT, 0);
    e810_netlist_put32(nvm, E810_ID_MAJOR, E810_NETLIST_MAJOR);
    e810_netlist_put32(nvm, E810_ID_MINOR, E810_NETLIST_MINOR);
    e810_netlist_put32(nvm, E810_ID_TYPE, E810_NETLIST_TYPE);
    e810_netlist_put32(nvm, E810_ID_REV, E810_NETLIST_REV);
    /* ice shows the hash's leftmost 4 bytes: SHA words 15 and 14. */
    e810_netlist_put32(nvm, E810_ID_SHA(14), E810_NETLIST_HASH);
    e810_netlist_put(nvm, E810_NETLIST_W_ID_BLK + E810_ID_CUST_VER,
                     E810_NETLIST_CUST_VER);
}

static void e810_flash_area(E810Nvm *nvm, unsigned int i, uint32_t base,
                            const uint8_t *data, uint32_t size)
{
    nvm->area[i] = (E810FlashArea) { .base = base, .size = size,
                                     .data = data };
}

/*
 * Both banks of each module hold the same image: the first is active,
 * and the second, which ice reads only for a pending update's
 * versions, agrees with it.
 */
static void e810_build_flash(E810Nvm *nvm)
{
    e810_build_sr(nvm);
    e810_build_nvm_bank(nvm);
    e810_build_orom_bank(nvm);
    e810_build_netlist_bank(nvm);

    e810_flash_area(nvm, 0, 0, nvm->sr, sizeof(nvm->sr));
    e810_flash_area(nvm, 1, E810_FLASH_NVM_BANK, nvm->nvm_bank,
                    sizeof(nvm->nvm_bank));
    e810_flash_area(nvm, 2, E810_FLASH_NVM_BANK + E810_FLASH_NVM_BANK_SIZE,
                    nvm->nvm_bank, sizeof(nvm->nvm_bank));
    e810_flash_area(nvm, 3, E810_FLASH_OROM_BANK, nvm->orom_bank,
                    sizeof(nvm->orom_bank));
    e810_flash_area(nvm, 4,
                    E810_FLASH_OROM_BANK + E810_FLASH_OROM_BANK_SIZE,
                    nvm->orom_bank, sizeof(nvm->orom_bank));
    e810_flash_area(nvm, 5, E810_FLASH_NETLIST_BANK, nvm->netlist_bank,
                    sizeof(nvm->netlist_bank));
    e810_flash_area(nvm, 6,
                    E810_FLASH_NETLIST_BANK + E810_FLASH_NETLIST_BANK_SIZE,
                    nvm->netlist_bank, sizeof(nvm->netlist_bank));
}

/* LEN bytes of flash from OFFSET (within the flash: checked by caller). */
static void e810_flash_read(E810Nvm *nvm, uint32_t offset, uint8_t *out,
                            uint32_t len)
{
    unsigned int i;

    memset(out, 0xff, len);
    for (i = 0; i < E810_FLASH_AREAS; i++) {
        const E810FlashArea *a = &nvm->area[i];
        uint32_t start = MAX(offset, a->base);
        uint32_t end = MIN(offset + len, a->base + a->size);

        if (start < end) {
            memcpy(out + (start - offset), a->data + (start - a->base),
                   end - start);
        }
    }
}

/*
 * 0x0701, read: LENGTH bytes from OFFSET into the buffer.  Without the
 * "flash only" flag the read is of the shadow RAM, and like the
 * firmware's may not cross one of its 4 KiB sectors (ice_read_flat_nvm
 * splits its reads so).  Past the end of either: EINVAL, which
 * ice_discover_flash_size takes for "beyond the flash".  ice reads
 * module 0 only (ICE_AQC_NVM_START_POINT); other modules are refused.
 */
static uint16_t e810_nvm_read(E810State *s, E810Cmd *c)
{
    uint32_t offset = e810_get16(e810_cmd_param(c, E810_NVM_P_OFFSET_LO), 0) |
                      *e810_cmd_param(c, E810_NVM_P_OFFSET_HI) << 16;
    uint8_t flags = *e810_cmd_param(c, E810_NVM_P_FLAGS);
    uint16_t module = e810_get16(e810_cmd_param(c, E810_NVM_P_MODULE), 0);
    uint16_t len = e810_get16(e810_cmd_param(c, E810_NVM_P_LENGTH), 0);

    if (!c->buf || !len || len > c->buf_len) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: NVM read of %u bytes into "
                      "a buffer of %u\n", len, c->buf_len);
        return E810_AQ_RC_EINVAL;
    }
    if (module) {
        qemu_log_mask(LOG_UNIMP, "e810: NVM read of module 0x%04x\n",
                      module);
        return E810_AQ_RC_EINVAL;
    }
    if (flags & E810_NVM_FLAG_FLASH_ONLY) {
        if ((uint64_t)offset + len > E810_FLASH_SIZE) {
            return E810_AQ_RC_EINVAL;
        }
        e810_flash_read(s->nvm, offset, c->buf, len);
    } else {
        if ((uint64_t)offset + len > E810_SR_BYTES ||
            offset / E810_SR_SECTOR != (offset + len - 1) / E810_SR_SECTOR) {
            qemu_log_mask(LOG_GUEST_ERROR, "e810: shadow RAM read of %u "
                          "bytes at 0x%x\n", len, offset);
            return E810_AQ_RC_EINVAL;
        }
        memcpy(c->buf, s->nvm->sr + offset, len);
    }
    c->out_len = len;
    return E810_AQ_RC_OK;
}

/*
 * 0x0706: the shadow RAM checksum.  Verify answers "correct" (the image
 * is the model's own); recalculate would write the NVM: refused.
 */
static uint16_t e810_nvm_checksum(E810State *s, E810Cmd *c)
{
    uint8_t flags = *e810_cmd_param(c, E810_NVM_CSUM_P_FLAGS);

    if (flags != E810_NVM_CSUM_VERIFY) {
        qemu_log_mask(LOG_UNIMP, "e810: NVM checksum flags 0x%x\n", flags);
        return E810_AQ_RC_EPERM;
    }
    e810_put16(e810_cmd_param(c, E810_NVM_CSUM_P_VALUE), 0,
               E810_NVM_CSUM_CORRECT);
    return E810_AQ_RC_OK;
}

/*
 * Erase, write, activate, EMP reset and the PLDM update steps: the
 * model's flash is read-only, so a firmware update ("devlink dev flash")
 * fails at its first step with EPERM, which ice reports and gives up on.
 */
static uint16_t e810_nvm_refuse(E810State *s, E810Cmd *c)
{
    qemu_log_mask(LOG_UNIMP, "e810: NVM update command 0x%04x refused\n",
                  c->opcode);
    return E810_AQ_RC_EPERM;
}

const E810AqOp e810_nvm_ops[] = {
    { E810_AQC_NVM_READ, "nvm_read", e810_nvm_read },
    { E810_AQC_NVM_ERASE, "nvm_erase", e810_nvm_refuse },
    { E810_AQC_NVM_UPDATE, "nvm_update", e810_nvm_refuse },
    { E810_AQC_NVM_CHECKSUM, "nvm_checksum", e810_nvm_checksum },
    { E810_AQC_NVM_WRITE_ACTIVATE, "nvm_write_activate", e810_nvm_refuse },
    { E810_AQC_NVM_UPDATE_EMPR, "nvm_update_empr", e810_nvm_refuse },
    { E810_AQC_NVM_PKG_DATA, "nvm_pkg_data", e810_nvm_refuse },
    { E810_AQC_NVM_PASS_COMP_TBL, "nvm_pass_component_tbl",
      e810_nvm_refuse },
    { 0, NULL, NULL },
};

bool e810_nvm_reg_read(E810State *s, hwaddr addr, uint32_t *val)
{
    switch (addr) {
    case E810_GLNVM_GENS:
        *val = E810_GLNVM_GENS_SR_SIZE(E810_SR_SIZE_LOG2_KB);
        return true;
    case E810_GLNVM_FLA:
        *val = E810_GLNVM_FLA_LOCKED;
        return true;
    default:
        return false;
    }
}

void e810_nvm_realize(E810State *s)
{
    s->nvm = g_new0(E810Nvm, 1);
    e810_build_flash(s->nvm);
}

void e810_nvm_unrealize(E810State *s)
{
    g_free(s->nvm);
    s->nvm = NULL;
}

/* The image is the device's, not the driver's: a reset keeps it. */
void e810_nvm_reset(E810State *s)
{
}
