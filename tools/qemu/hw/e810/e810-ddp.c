/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 device model: the DDP package (the parser and classifier
 * program the driver downloads at probe).
 *
 * ice reads its package file (intel/ice/ddp/ice.pkg; Debian ships it
 * only in non-free firmware; tools/qemu/e810-ddp/mkpkg.py makes a free
 * minimal one), sends the ICE segment's 4 KiB buffers with 0x0C40, and
 * then asks 0x0C43 which package is active.  Without one it runs in
 * safe mode: no RDMA (ice_main.c: ice_load_pkg).  The model keeps no
 * parser: it checks each buffer's framing, takes the package's version,
 * name and track id from its metadata section, as the firmware does,
 * and reports them.
 *
 * What ice 6.1 does and checks (ice_flex_pipe.c):
 *
 *   ice_init_pkg_info      the version (4 bytes) and name (28) of the
 *                          ICE segment's metadata section (type 1)
 *   ice_chk_pkg_compat     0x0C43: for the package "in NVM", the ICE
 *                          segment's format major must equal its major
 *                          and the format minor be at most its minor
 *   ice_dwnld_cfg_bufs     with the global config lock (0x0008, e810-
 *                          fw.c), 0x0C40 per buffer, each 4096 bytes,
 *                          the last flagged; it stops before the first
 *                          buffer whose first section type has bit 31
 *                          (metadata only, never sent).  A failure's
 *                          status: ENOSEC/EBADSIG/ESVN/EBADMAN/EBADBUF
 *                          mean signature or security trouble (EBADMAN/
 *                          EBADBUF even reset the device); anything else
 *                          is "unknown error": safe mode.
 *   ice_get_pkg_info       0x0C43, a 164-byte buffer (4 entries): the
 *                          active entry's version, name and track id
 *   ice_get_ddp_pkg_state  success when the active package's version
 *                          and name equal the file's metadata; else a
 *                          1.3.x.x active package counts as "compatible,
 *                          already loaded"; anything else: safe mode
 *   ice_vlan_mode.c        0x0C41 upload of the metadata-init section,
 *                          to see whether the package can do double
 *                          VLAN; any failure means "no": single VLAN
 *   ice_upd_prof_hw et al. 0x0C42 with section updates (flow profiles
 *                          for RSS and flow director, tunnels); their
 *                          failures are logged at debug level only
 *
 * Buffer framing (ice_pkg_val_buf, ice_pkg_enum_section): a section
 * count (1-511) and the end of the data (12-4096), then 8-byte section
 * entries (type, offset, size) whose sections lie in the buffer
 * (offset >= 12, size 1-4084).
 *
 * Before any download the model reports one package, as a real E810
 * reports the one in its NVM: in NVM, active at boot and active,
 * version 1.3.0.0 (see e810_nvm_pkg).  After one, that entry stays (in
 * NVM, active at boot) and the downloaded package follows it as the
 * active one.  Real devices keep a downloaded package across a PF reset
 * (the firmware then answers the global config lock with "done" and ice
 * keeps using it); only a global reset drops it.  The model forgets it
 * on every reset: as long as e810-fw.c then grants the lock, ice just
 * downloads it again, as it does on real hardware after a global reset.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "e810.h"

#define E810_AQC_DOWNLOAD_PKG       0x0c40
#define E810_AQC_UPLOAD_SECTION     0x0c41
#define E810_AQC_UPDATE_PKG         0x0c42
#define E810_AQC_GET_PKG_INFO_LIST  0x0c43

/* 0x0C40/0x0C42: parameter byte 0. */
#define E810_PKG_P_FLAGS            0
#define E810_PKG_LAST_BUF           BIT(0)

/* 0x0C40/0x0C42 on error: where in the buffer, and why (model codes). */
#define E810_PKG_ERR_OFFSET         0
#define E810_PKG_ERR_INFO           4
#define E810_PKG_ERR_RESP_LEN       8
#define E810_PKG_ERR_HEADER         1   /* count or data end */
#define E810_PKG_ERR_SECTION        2   /* an entry or its section */
#define E810_PKG_ERR_NO_METADATA    3   /* last buffer, no metadata */

/* A package buffer's header and section entries. */
#define E810_BUF_SECTION_COUNT      0
#define E810_BUF_DATA_END           2
#define E810_BUF_ENTRIES            4
#define E810_BUF_ENTRY_SIZE         8
#define E810_BUF_ENTRY_TYPE         0
#define E810_BUF_ENTRY_OFFSET       4
#define E810_BUF_ENTRY_SIZE_FIELD   6
#define E810_BUF_MIN_SECTIONS       1
#define E810_BUF_MAX_SECTIONS       511
#define E810_BUF_MIN_DATA_END       12
#define E810_BUF_MAX_DATA_END       4096
#define E810_SECT_MIN_OFFSET        12
#define E810_SECT_MIN_SIZE          1
#define E810_SECT_MAX_SIZE          4084

/* The metadata section: version, name, track id. */
#define E810_SID_METADATA           1
#define E810_META_VER               0
#define E810_META_NAME              4
#define E810_META_TRACK_ID          32
#define E810_META_SIZE              36
#define E810_PKG_NAME_LEN           28

/* 0x0C43: a count, then 40-byte entries. */
#define E810_PKG_INFO_COUNT         0
#define E810_PKG_INFO_ENTRIES       4
#define E810_PKG_INFO_SIZE          40
#define E810_PKG_INFO_VER           0
#define E810_PKG_INFO_NAME          4
#define E810_PKG_INFO_TRACK_ID      32
#define E810_PKG_INFO_IN_NVM        36
#define E810_PKG_INFO_ACTIVE        37
#define E810_PKG_INFO_ACTIVE_AT_BOOT 38
#define E810_PKG_INFO_MODIFIED      39

/* A package as 0x0C43 describes it. */
typedef struct E810PkgInfo {
    uint8_t ver[4];             /* major, minor, update, draft */
    char name[E810_PKG_NAME_LEN];
    uint32_t track_id;
} E810PkgInfo;

/*
 * The package in the model's NVM: never downloaded from, but listed as
 * real firmware lists its own.  1.3 is the version ice 6.1 supports
 * (ICE_PKG_SUPP_VER_MAJ/MNR), so a file whose ICE segment format is
 * 1.0-1.3 passes ice_chk_pkg_compat.
 */
static const E810PkgInfo e810_nvm_pkg = {
    .ver = { 1, 3, 0, 0 },
    .name = "E810 model NVM package",
    .track_id = 0xc0000000,
};

struct E810Ddp {
    /* A download under way: its buffers so far had this metadata. */
    bool downloading;
    bool pending_has_meta;
    E810PkgInfo pending;

    /* The downloaded package, and whether 0x0C42 has changed it. */
    bool loaded;
    bool modified;
    E810PkgInfo active;
};

static uint16_t e810_pkg_error(E810Cmd *c, uint32_t offset, uint32_t info)
{
    if (c->buf_len >= E810_PKG_ERR_RESP_LEN) {
        e810_put32(c->buf, E810_PKG_ERR_OFFSET, offset);
        e810_put32(c->buf, E810_PKG_ERR_INFO, info);
        c->out_len = E810_PKG_ERR_RESP_LEN;
    }
    return E810_AQ_RC_EINVAL;
}

static void e810_take_metadata(E810PkgInfo *info, const uint8_t *sect)
{
    memcpy(info->ver, sect + E810_META_VER, sizeof(info->ver));
    memcpy(info->name, sect + E810_META_NAME, sizeof(info->name));
    info->track_id = e810_get32(sect, E810_META_TRACK_ID);
}

/*
 * Check the framing of the package buffer in C (its sections inside the
 * buffer the driver sent) and, when META is not NULL, take the metadata
 * section, if one is there, into META (*HAS_META set).  An error status
 * with the failing field's offset in the response, or OK.
 */
static uint16_t e810_pkg_buf_check(E810Cmd *c, E810PkgInfo *meta,
                                   bool *has_meta)
{
    uint16_t count, data_end, i;

    if (!c->buf || c->buf_len < E810_BUF_MIN_DATA_END) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: package buffer of %u bytes\n",
                      c->buf_len);
        return E810_AQ_RC_EINVAL;
    }
    count = e810_get16(c->buf, E810_BUF_SECTION_COUNT);
    data_end = e810_get16(c->buf, E810_BUF_DATA_END);
    if (count < E810_BUF_MIN_SECTIONS || count > E810_BUF_MAX_SECTIONS ||
        data_end < E810_BUF_MIN_DATA_END || data_end > c->buf_len ||
        E810_BUF_ENTRIES + count * E810_BUF_ENTRY_SIZE > data_end) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: package buffer with %u "
                      "sections, data end %u, length %u\n",
                      count, data_end, c->buf_len);
        return e810_pkg_error(c, E810_BUF_SECTION_COUNT,
                              E810_PKG_ERR_HEADER);
    }
    for (i = 0; i < count; i++) {
        size_t entry = E810_BUF_ENTRIES + i * E810_BUF_ENTRY_SIZE;
        uint32_t type = e810_get32(c->buf, entry + E810_BUF_ENTRY_TYPE);
        uint16_t off = e810_get16(c->buf, entry + E810_BUF_ENTRY_OFFSET);
        uint16_t size = e810_get16(c->buf,
                                   entry + E810_BUF_ENTRY_SIZE_FIELD);

        if (off < E810_SECT_MIN_OFFSET || size < E810_SECT_MIN_SIZE ||
            size > E810_SECT_MAX_SIZE || off + size > c->buf_len) {
            qemu_log_mask(LOG_GUEST_ERROR, "e810: package section %u: "
                          "type 0x%x at %u, %u bytes\n",
                          i, type, off, size);
            return e810_pkg_error(c, entry, E810_PKG_ERR_SECTION);
        }
        if (meta && type == E810_SID_METADATA && size >= E810_META_SIZE) {
            e810_take_metadata(meta, c->buf + off);
            *has_meta = true;
        }
    }
    return E810_AQ_RC_OK;
}

/*
 * 0x0C40: one buffer of the ICE segment.  The first starts a download;
 * the one flagged last ends it, and its package (the metadata section's
 * version and name) becomes the active one.
 */
static uint16_t e810_download_pkg(E810State *s, E810Cmd *c)
{
    E810Ddp *ddp = s->ddp;
    bool last = *e810_cmd_param(c, E810_PKG_P_FLAGS) & E810_PKG_LAST_BUF;
    uint16_t rc;

    if (!ddp->downloading) {
        ddp->downloading = true;
        ddp->pending_has_meta = false;
        memset(&ddp->pending, 0, sizeof(ddp->pending));
    }
    rc = e810_pkg_buf_check(c, &ddp->pending, &ddp->pending_has_meta);
    if (rc != E810_AQ_RC_OK) {
        ddp->downloading = false;
        return rc;
    }
    if (!last) {
        return E810_AQ_RC_OK;
    }
    ddp->downloading = false;
    if (!ddp->pending_has_meta) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: package without a metadata "
                      "section\n");
        return e810_pkg_error(c, 0, E810_PKG_ERR_NO_METADATA);
    }
    ddp->active = ddp->pending;
    ddp->loaded = true;
    ddp->modified = false;
    return E810_AQ_RC_OK;
}

/*
 * 0x0C42: section updates to the active package (flow profiles, tunnel
 * ports).  The model keeps no parser tables, so a well-framed update is
 * taken and marks the package modified.
 */
static uint16_t e810_update_pkg(E810State *s, E810Cmd *c)
{
    uint16_t rc = e810_pkg_buf_check(c, NULL, NULL);

    if (rc == E810_AQ_RC_OK) {
        s->ddp->modified = true;
    }
    return rc;
}

/*
 * 0x0C41: read sections of the active package back.  The model has no
 * package contents to show; ice asks only for the metadata-init section
 * (double VLAN support) and takes any failure as "single VLAN only".
 * ENOENT: no such section.
 */
static uint16_t e810_upload_section(E810State *s, E810Cmd *c)
{
    qemu_log_mask(LOG_UNIMP, "e810: package section upload\n");
    return E810_AQ_RC_ENOENT;
}

static void e810_put_pkg_info(uint8_t *entry, const E810PkgInfo *info,
                              bool in_nvm, bool active, bool at_boot,
                              bool modified)
{
    memcpy(entry + E810_PKG_INFO_VER, info->ver, sizeof(info->ver));
    memcpy(entry + E810_PKG_INFO_NAME, info->name, sizeof(info->name));
    e810_put32(entry, E810_PKG_INFO_TRACK_ID, info->track_id);
    entry[E810_PKG_INFO_IN_NVM] = in_nvm;
    entry[E810_PKG_INFO_ACTIVE] = active;
    entry[E810_PKG_INFO_ACTIVE_AT_BOOT] = at_boot;
    entry[E810_PKG_INFO_MODIFIED] = modified;
}

/*
 * 0x0C43: the packages the device knows: the NVM's, active until a
 * download, then the downloaded one, active.  A buffer too small for
 * them: ENOMEM.
 */
static uint16_t e810_get_pkg_info_list(E810State *s, E810Cmd *c)
{
    E810Ddp *ddp = s->ddp;
    uint32_t count = ddp->loaded ? 2 : 1;
    size_t len = E810_PKG_INFO_ENTRIES + count * E810_PKG_INFO_SIZE;
    uint8_t *entry;

    if (!c->buf || c->buf_len < len) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: package info list into %u "
                      "bytes\n", c->buf_len);
        return E810_AQ_RC_ENOMEM;
    }
    memset(c->buf, 0, len);
    e810_put32(c->buf, E810_PKG_INFO_COUNT, count);
    entry = c->buf + E810_PKG_INFO_ENTRIES;
    e810_put_pkg_info(entry, &e810_nvm_pkg, true, !ddp->loaded, true, false);
    if (ddp->loaded) {
        entry += E810_PKG_INFO_SIZE;
        e810_put_pkg_info(entry, &ddp->active, false, true, false,
                          ddp->modified);
    }
    c->out_len = len;
    return E810_AQ_RC_OK;
}

const E810AqOp e810_ddp_ops[] = {
    { E810_AQC_DOWNLOAD_PKG, "download_pkg", e810_download_pkg },
    { E810_AQC_UPLOAD_SECTION, "upload_section", e810_upload_section },
    { E810_AQC_UPDATE_PKG, "update_pkg", e810_update_pkg },
    { E810_AQC_GET_PKG_INFO_LIST, "get_pkg_info_list",
      e810_get_pkg_info_list },
    { 0, NULL, NULL },
};

void e810_ddp_realize(E810State *s)
{
    s->ddp = g_new0(E810Ddp, 1);
}

void e810_ddp_unrealize(E810State *s)
{
    g_free(s->ddp);
    s->ddp = NULL;
}

void e810_ddp_reset(E810State *s)
{
    memset(s->ddp, 0, sizeof(*s->ddp));
}
