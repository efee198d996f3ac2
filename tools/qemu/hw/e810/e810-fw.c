/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 device model: firmware-level admin queue commands.
 *
 * The commands the driver sends around everything else: the firmware
 * and API versions, the driver's version, queue shutdown, ownership of
 * the shared resources (NVM, change lock, global configuration lock),
 * the device's and the function's capabilities, the port's MAC address,
 * PXE and PF configuration clearing, and the allocation of the small
 * hardware resources (VSI lists, recipes, profile IDs, TCAM entries,
 * counters) other commands then name by ID.
 *
 * The model reports FW API 1.5.0: the level the driver expects, below
 * the versions that switch on the link default override (1.5.2), the
 * LLDP filter control (1.7.1) and the default PHY configuration report
 * (1.7.3), so none of those paths run.
 *
 * There is one PF and no other driver to share the resources with, so
 * every resource request is granted.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "qemu/log.h"
#include "e810.h"

/* Opcodes. */
#define E810_AQC_GET_VER            0x0001
#define E810_AQC_DRIVER_VER         0x0002
#define E810_AQC_Q_SHUTDOWN         0x0003
#define E810_AQC_REQ_RES            0x0008
#define E810_AQC_RELEASE_RES        0x0009
#define E810_AQC_LIST_FUNC_CAPS     0x000a
#define E810_AQC_LIST_DEV_CAPS      0x000b
#define E810_AQC_MAC_READ           0x0107
#define E810_AQC_MAC_WRITE          0x0108
#define E810_AQC_CLEAR_PXE          0x0110
#define E810_AQC_ALLOC_RES          0x0208
#define E810_AQC_FREE_RES           0x0209
#define E810_AQC_CLEAR_PF_CFG       0x02a4

/* Get version: the answer, in the parameters. */
#define VER_ROM                 0
#define VER_FW_BUILD            4
#define VER_FW_BRANCH           8
#define VER_FW_MAJOR            9
#define VER_FW_MINOR            10
#define VER_FW_PATCH            11
#define VER_API_BRANCH          12
#define VER_API_MAJOR           13
#define VER_API_MINOR           14
#define VER_API_PATCH           15

/* What the model's firmware says it is. */
#define E810_FW_MAJOR           1
#define E810_FW_MINOR           5
#define E810_FW_PATCH           1
#define E810_FW_BUILD           0x00000001
#define E810_API_MAJOR          1
#define E810_API_MINOR          5
#define E810_API_PATCH          0

/* Queue shutdown: the driver is unloading. */
#define QSHUT_FLAGS             0
#define QSHUT_UNLOADING         BIT(0)

/* Request/release resource. */
#define RES_ID                  0
#define RES_ACCESS              2
#define RES_TIMEOUT             4
#define RES_NUMBER              8
#define RES_STATUS              12

#define RES_ID_NVM              1
#define RES_ID_SDP              2
#define RES_ID_CHANGE_LOCK      3
#define RES_ID_GLOBAL_LOCK      4
#define RES_ID_MAX              RES_ID_GLOBAL_LOCK

#define RES_ACCESS_READ         1
#define RES_ACCESS_WRITE        2

/*
 * The global configuration lock answers in its status field: 0 granted
 * (download the package), 1 someone else is downloading, 2 the package
 * is already there (the driver then skips the download).
 */
#define RES_GLOBAL_GRANTED      0

/* How long (ms) the owner may hold a resource, per resource. */
#define RES_NVM_READ_MS         3000
#define RES_NVM_WRITE_MS        180000
#define RES_CHANGE_LOCK_MS      1000
#define RES_GLOBAL_LOCK_MS      3000

/* List capabilities: the count of elements, in the parameters. */
#define CAPS_COUNT              4

/* One capability element. */
#define CAP_ID                  0
#define CAP_NUMBER              4       /* after two version bytes */
#define CAP_LOGICAL_ID          8
#define CAP_ELEM_SIZE           32

#define CAP_VALID_FUNCTIONS     0x0005
#define CAP_VSI                 0x0017
#define CAP_RSS                 0x0040
#define CAP_RXQS                0x0041
#define CAP_TXQS                0x0042
#define CAP_MSIX                0x0043
#define CAP_MAX_MTU             0x0047
#define CAP_RDMA                0x0051

/* The PF's RSS lookup table: 2048 entries, wide enough for our queues. */
#define E810_RSS_TABLE_SIZE     2048
#define E810_RSS_ENTRY_WIDTH    6       /* 2^6 = E810_NUM_QUEUES */
/* The MAC's largest frame, which the driver also programs. */
#define E810_MAX_FRAME          9728

/* Manage MAC read: flags and count in the parameters, entries in the buffer. */
#define MAC_READ_FLAGS          0
#define MAC_READ_NUM_ADDR       4
#define MAC_READ_LAN_VALID      BIT(4)
#define MAC_READ_PORT_VALID     BIT(6)
#define MAC_ENTRY_LPORT         0
#define MAC_ENTRY_TYPE          1
#define MAC_ENTRY_ADDR          2
#define MAC_ENTRY_SIZE          8
#define MAC_TYPE_LAN            0

/* Manage MAC write: the address in the parameters. */
#define MAC_WRITE_ADDR          2

/* Allocate/free resources: a header, then 16-bit resource IDs. */
#define ARES_NUM_ENTRIES        0
#define ARES_TYPE               0
#define ARES_NUM_ELEMS          2
#define ARES_ELEMS              4
#define ARES_TYPE_M             0x7f
#define ARES_SCAN_BOTTOM        BIT(12)

#define ARES_VSI_LIST_REP       0x03
#define ARES_VSI_LIST_PRUNE     0x04
#define ARES_RECIPE             0x05
#define ARES_FD_COUNTER_BLOCK   0x21
#define ARES_FD_PROF_ID         0x58
#define ARES_FD_TCAM            0x59
#define ARES_HASH_PROF_ID       0x60
#define ARES_HASH_TCAM          0x61

/*
 * A pool of resource IDs.  Both kinds of VSI list share one pool since
 * a switch rule names a list by its ID alone.  The recipes below
 * E810_FIRST_FREE_RECIPE are the hardware's lookups (MAC, VLAN,
 * promiscuous...), never handed out.  The profile ID and TCAM sizes are
 * those of the driver's FD and RSS tables (ice_flex_pipe.c blk_sizes),
 * which it indexes with the IDs it gets.
 */
typedef enum E810ResPool {
    E810_POOL_VSI_LIST,
    E810_POOL_RECIPE,
    E810_POOL_FD_COUNTER,
    E810_POOL_FD_PROF,
    E810_POOL_FD_TCAM,
    E810_POOL_HASH_PROF,
    E810_POOL_HASH_TCAM,
    E810_POOL_COUNT
} E810ResPool;

#define E810_FIRST_FREE_RECIPE  10

typedef struct E810PoolDesc {
    uint16_t first;     /* lowest ID handed out */
    uint16_t size;      /* IDs 0..size-1 exist */
} E810PoolDesc;

static const E810PoolDesc e810_pools[E810_POOL_COUNT] = {
    [E810_POOL_VSI_LIST]    = { 0, 512 },
    [E810_POOL_RECIPE]      = { E810_FIRST_FREE_RECIPE, 64 },
    [E810_POOL_FD_COUNTER]  = { 0, 128 },
    [E810_POOL_FD_PROF]     = { 0, 128 },
    [E810_POOL_FD_TCAM]     = { 0, 512 },
    [E810_POOL_HASH_PROF]   = { 0, 128 },
    [E810_POOL_HASH_TCAM]   = { 0, 512 },
};

#define E810_POOL_MAX           512

struct E810Fw {
    /* Resources (RES_ID_*) the driver holds. */
    bool held[RES_ID_MAX + 1];
    /* Per pool, the IDs handed out. */
    DECLARE_BITMAP(used[E810_POOL_COUNT], E810_POOL_MAX);
};

static uint16_t fw_get_ver(E810State *s, E810Cmd *c)
{
    uint8_t *p = e810_cmd_param(c, 0);

    memset(p, 0, 16);
    e810_put32(p, VER_FW_BUILD, E810_FW_BUILD);
    p[VER_FW_MAJOR] = E810_FW_MAJOR;
    p[VER_FW_MINOR] = E810_FW_MINOR;
    p[VER_FW_PATCH] = E810_FW_PATCH;
    p[VER_API_MAJOR] = E810_API_MAJOR;
    p[VER_API_MINOR] = E810_API_MINOR;
    p[VER_API_PATCH] = E810_API_PATCH;
    return E810_AQ_RC_OK;
}

/* The version and the driver's name string: noted by nobody. */
static uint16_t fw_driver_ver(E810State *s, E810Cmd *c)
{
    return E810_AQ_RC_OK;
}

/* An unloading driver holds nothing any more. */
static uint16_t fw_q_shutdown(E810State *s, E810Cmd *c)
{
    if (*e810_cmd_param(c, QSHUT_FLAGS) & QSHUT_UNLOADING) {
        memset(s->fw->held, 0, sizeof(s->fw->held));
    }
    return E810_AQ_RC_OK;
}

static uint32_t fw_res_timeout(uint16_t id, uint16_t access)
{
    switch (id) {
    case RES_ID_NVM:
        return access == RES_ACCESS_WRITE ? RES_NVM_WRITE_MS
                                          : RES_NVM_READ_MS;
    case RES_ID_CHANGE_LOCK:
        return RES_CHANGE_LOCK_MS;
    default:
        return RES_GLOBAL_LOCK_MS;
    }
}

/*
 * Granted, always: the only other owner could be this same PF.  For the
 * global configuration lock the driver reads the status field, not the
 * return code (ice_common.c ice_aq_req_res): "granted" makes it download
 * its package.  The model's package does not outlive a PF reset (every
 * probe starts with one), so "already loaded" (status 2, which real
 * firmware pairs with EEXIST) is never the right answer here.
 */
static uint16_t fw_req_res(E810State *s, E810Cmd *c)
{
    uint8_t *p = e810_cmd_param(c, 0);
    uint16_t id = e810_get16(p, RES_ID);
    uint16_t access = e810_get16(p, RES_ACCESS);

    if (id == 0 || id > RES_ID_MAX) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: request of resource %u\n", id);
        return E810_AQ_RC_EINVAL;
    }
    if (access != RES_ACCESS_READ && access != RES_ACCESS_WRITE) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: resource %u access %u\n",
                      id, access);
        return E810_AQ_RC_EINVAL;
    }
    s->fw->held[id] = true;
    e810_put32(p, RES_TIMEOUT, fw_res_timeout(id, access));
    e810_put16(p, RES_STATUS, RES_GLOBAL_GRANTED);
    return E810_AQ_RC_OK;
}

static uint16_t fw_release_res(E810State *s, E810Cmd *c)
{
    uint16_t id = e810_get16(e810_cmd_param(c, 0), RES_ID);

    if (id == 0 || id > RES_ID_MAX) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: release of resource %u\n", id);
        return E810_AQ_RC_EINVAL;
    }
    if (!s->fw->held[id]) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "e810: release of resource %u not held\n", id);
    }
    s->fw->held[id] = false;
    return E810_AQ_RC_OK;
}

/*
 * The capabilities, the same for the device and its one function.  No
 * 1588, flow director, SR-IOV or DCB: the driver leaves those features
 * off.  No pending NVM/OROM/netlist update: the mere presence of those
 * elements tells the driver one is pending (ice_parse_common_caps).
 * VALID_FUNCTIONS must be there: the driver divides by the count of its
 * bits.  RDMA=1 makes it plug the RoCE auxiliary device.  The first
 * queue and vector of the PF (phys_id) are 0.
 */
typedef struct E810Cap {
    uint16_t id;
    uint32_t number;
    uint32_t logical_id;
} E810Cap;

static const E810Cap e810_caps[] = {
    { CAP_VALID_FUNCTIONS, BIT(0), 0 },
    { CAP_VSI, E810_NUM_VSI, 0 },
    { CAP_RSS, E810_RSS_TABLE_SIZE, E810_RSS_ENTRY_WIDTH },
    { CAP_RXQS, E810_NUM_QUEUES, 0 },
    { CAP_TXQS, E810_NUM_QUEUES, 0 },
    { CAP_MSIX, E810_MSIX_VECTORS, 0 },
    { CAP_MAX_MTU, E810_MAX_FRAME, 0 },
    { CAP_RDMA, 1, 0 },
};

static void fw_fill_caps(uint8_t *out)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(e810_caps); i++) {
        uint8_t *elem = out + i * CAP_ELEM_SIZE;

        memset(elem, 0, CAP_ELEM_SIZE);
        e810_put16(elem, CAP_ID, e810_caps[i].id);
        e810_put32(elem, CAP_NUMBER, e810_caps[i].number);
        e810_put32(elem, CAP_LOGICAL_ID, e810_caps[i].logical_id);
    }
}

/*
 * A buffer too small gets ENOMEM with the count of elements the answer
 * has, so the driver can size the next try (ice_aq_list_caps).
 */
static uint16_t fw_list_caps(E810State *s, E810Cmd *c)
{
    unsigned int count = ARRAY_SIZE(e810_caps);
    size_t need = count * CAP_ELEM_SIZE;

    e810_put32(e810_cmd_param(c, 0), CAPS_COUNT, count);
    if (!c->buf || c->buf_len < need) {
        return E810_AQ_RC_ENOMEM;
    }
    fw_fill_caps(c->buf);
    c->out_len = need;
    return E810_AQ_RC_OK;
}

/* One address, the LAN one, which is also the port's. */
static uint16_t fw_mac_read(E810State *s, E810Cmd *c)
{
    uint8_t *p = e810_cmd_param(c, 0);
    uint8_t mac[6];

    if (!c->buf || c->buf_len < MAC_ENTRY_SIZE) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: MAC read buffer of %u bytes\n",
                      c->buf_len);
        return E810_AQ_RC_EINVAL;
    }
    e810_mac_addr(s, mac);
    memset(c->buf, 0, MAC_ENTRY_SIZE);
    c->buf[MAC_ENTRY_LPORT] = 0;
    c->buf[MAC_ENTRY_TYPE] = MAC_TYPE_LAN;
    memcpy(c->buf + MAC_ENTRY_ADDR, mac, sizeof(mac));
    c->out_len = MAC_ENTRY_SIZE;

    e810_put16(p, MAC_READ_FLAGS, MAC_READ_LAN_VALID | MAC_READ_PORT_VALID);
    p[MAC_READ_NUM_ADDR] = 1;
    return E810_AQ_RC_OK;
}

/*
 * A locally administered address (and wake-on-LAN settings): accepted.
 * Where received frames go is decided by the switch rules, not by this.
 */
static uint16_t fw_mac_write(E810State *s, E810Cmd *c)
{
    const uint8_t *mac = e810_cmd_param(c, MAC_WRITE_ADDR);
    static const uint8_t zero[6];

    if ((mac[0] & 1) || !memcmp(mac, zero, sizeof(zero))) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: MAC write of a bad address\n");
        return E810_AQ_RC_EINVAL;
    }
    return E810_AQ_RC_OK;
}

/* The model has no PXE mode to leave. */
static uint16_t fw_clear_pxe(E810State *s, E810Cmd *c)
{
    return E810_AQ_RC_OK;
}

/*
 * The PF's configuration goes; of it, this part holds the allocated
 * resource IDs.  (VSIs, rules and the scheduler tree are already gone:
 * the driver sends this right after its PF reset, ice_init_hw.)
 */
static uint16_t fw_clear_pf_cfg(E810State *s, E810Cmd *c)
{
    memset(s->fw->used, 0, sizeof(s->fw->used));
    return E810_AQ_RC_OK;
}

static bool fw_res_pool(uint16_t type, E810ResPool *pool)
{
    switch (type) {
    case ARES_VSI_LIST_REP:
    case ARES_VSI_LIST_PRUNE:
        *pool = E810_POOL_VSI_LIST;
        return true;
    case ARES_RECIPE:
        *pool = E810_POOL_RECIPE;
        return true;
    case ARES_FD_COUNTER_BLOCK:
        *pool = E810_POOL_FD_COUNTER;
        return true;
    case ARES_FD_PROF_ID:
        *pool = E810_POOL_FD_PROF;
        return true;
    case ARES_FD_TCAM:
        *pool = E810_POOL_FD_TCAM;
        return true;
    case ARES_HASH_PROF_ID:
        *pool = E810_POOL_HASH_PROF;
        return true;
    case ARES_HASH_TCAM:
        *pool = E810_POOL_HASH_TCAM;
        return true;
    default:
        return false;
    }
}

/* Are IDs first..first+n-1 all free (or all used, when USED)? */
static bool fw_run_is(const unsigned long *map, unsigned int first,
                      unsigned int n, bool used)
{
    unsigned int i;

    for (i = 0; i < n; i++) {
        if (test_bit(first + i, map) != used) {
            return false;
        }
    }
    return true;
}

/*
 * The lowest run of N free IDs, or with FROM_TOP the highest (the driver
 * asks for TCAM entries without an attribute mask "from the bottom" of
 * the table, its low priority end, ice_flex_pipe.c).  -1: none.
 */
static int fw_pool_find(E810Fw *fw, E810ResPool pool, unsigned int n,
                        bool from_top)
{
    const E810PoolDesc *d = &e810_pools[pool];
    unsigned int first = d->first;
    unsigned int last;
    unsigned int i;

    if (n == 0 || n > d->size - first) {
        return -1;
    }
    last = d->size - n;
    for (i = 0; i <= last - first; i++) {
        unsigned int at = from_top ? last - i : first + i;

        if (fw_run_is(fw->used[pool], at, n, false)) {
            return at;
        }
    }
    return -1;
}

/*
 * One entry: the type, a count N, then room for IDs.  N IDs in a row
 * are taken; the buffer gets as many of them as it has room for (a
 * counter block request names its size in N and has room for the first
 * ID only, ice_alloc_res_cntr).  Only the first entry is served: the
 * driver never sends more.
 */
static uint16_t fw_alloc_res(E810State *s, E810Cmd *c)
{
    uint16_t entries = e810_get16(e810_cmd_param(c, 0), ARES_NUM_ENTRIES);
    uint16_t type, n, room, i;
    E810ResPool pool;
    int base;

    if (entries == 0 || !c->buf || c->buf_len < ARES_ELEMS + 2) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: bad resource allocation\n");
        return E810_AQ_RC_EINVAL;
    }
    type = e810_get16(c->buf, ARES_TYPE);
    n = e810_get16(c->buf, ARES_NUM_ELEMS);
    if (!fw_res_pool(type & ARES_TYPE_M, &pool)) {
        qemu_log_mask(LOG_UNIMP, "e810: allocation of resource type 0x%x\n",
                      type & ARES_TYPE_M);
        return E810_AQ_RC_EINVAL;
    }
    if (n == 0) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: allocation of 0 resources\n");
        return E810_AQ_RC_EINVAL;
    }
    base = fw_pool_find(s->fw, pool, n, type & ARES_SCAN_BOTTOM);
    if (base < 0) {
        return E810_AQ_RC_ENOSPC;
    }
    bitmap_set(s->fw->used[pool], base, n);

    room = (c->buf_len - ARES_ELEMS) / 2;
    for (i = 0; i < n && i < room; i++) {
        e810_put16(c->buf, ARES_ELEMS + 2 * i, base + i);
    }
    c->out_len = c->buf_len;
    return E810_AQ_RC_OK;
}

/* Are IDs id..id+n-1 of POOL all handed out? */
static bool fw_ids_used(E810Fw *fw, E810ResPool pool, unsigned int id,
                        unsigned int n)
{
    return id < e810_pools[pool].size && n <= e810_pools[pool].size - id &&
           fw_run_is(fw->used[pool], id, n, true);
}

/*
 * The IDs to free are listed, N of them; a buffer with room for fewer
 * (a counter block, ice_free_res_cntr) names the first of a run of N.
 * All or nothing: any ID not handed out fails the command.
 */
static uint16_t fw_free_res(E810State *s, E810Cmd *c)
{
    E810Fw *fw = s->fw;
    uint16_t type, n, listed, i;
    E810ResPool pool;

    if (!c->buf || c->buf_len < ARES_ELEMS + 2) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: bad resource free\n");
        return E810_AQ_RC_EINVAL;
    }
    type = e810_get16(c->buf, ARES_TYPE);
    n = e810_get16(c->buf, ARES_NUM_ELEMS);
    if (!fw_res_pool(type & ARES_TYPE_M, &pool) || n == 0) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: free of %u resources type 0x%x\n",
                      n, type & ARES_TYPE_M);
        return E810_AQ_RC_EINVAL;
    }
    listed = (c->buf_len - ARES_ELEMS) / 2;
    if (listed < n) {
        uint16_t id = e810_get16(c->buf, ARES_ELEMS);

        if (!fw_ids_used(fw, pool, id, n)) {
            goto not_allocated;
        }
        bitmap_clear(fw->used[pool], id, n);
        return E810_AQ_RC_OK;
    }
    for (i = 0; i < n; i++) {
        if (!fw_ids_used(fw, pool, e810_get16(c->buf, ARES_ELEMS + 2 * i),
                         1)) {
            goto not_allocated;
        }
    }
    for (i = 0; i < n; i++) {
        clear_bit(e810_get16(c->buf, ARES_ELEMS + 2 * i), fw->used[pool]);
    }
    return E810_AQ_RC_OK;

not_allocated:
    qemu_log_mask(LOG_GUEST_ERROR,
                  "e810: free of unallocated resources of type 0x%x\n",
                  type & ARES_TYPE_M);
    return E810_AQ_RC_EINVAL;
}

const E810AqOp e810_fw_ops[] = {
    { E810_AQC_GET_VER, "get_ver", fw_get_ver },
    { E810_AQC_DRIVER_VER, "driver_ver", fw_driver_ver },
    { E810_AQC_Q_SHUTDOWN, "q_shutdown", fw_q_shutdown },
    { E810_AQC_REQ_RES, "req_res", fw_req_res },
    { E810_AQC_RELEASE_RES, "release_res", fw_release_res },
    { E810_AQC_LIST_FUNC_CAPS, "list_func_caps", fw_list_caps },
    { E810_AQC_LIST_DEV_CAPS, "list_dev_caps", fw_list_caps },
    { E810_AQC_MAC_READ, "manage_mac_read", fw_mac_read },
    { E810_AQC_MAC_WRITE, "manage_mac_write", fw_mac_write },
    { E810_AQC_CLEAR_PXE, "clear_pxe_mode", fw_clear_pxe },
    { E810_AQC_ALLOC_RES, "alloc_res", fw_alloc_res },
    { E810_AQC_FREE_RES, "free_res", fw_free_res },
    { E810_AQC_CLEAR_PF_CFG, "clear_pf_cfg", fw_clear_pf_cfg },
    { 0, NULL, NULL }
};

void e810_fw_realize(E810State *s)
{
    s->fw = g_new0(E810Fw, 1);
}

void e810_fw_unrealize(E810State *s)
{
    g_free(s->fw);
    s->fw = NULL;
}

/*
 * A PF reset releases the resources the PF held.  The allocated IDs stay
 * until the driver clears the PF's configuration: after a reset it
 * rebuilds with the IDs it already has (ice_main.c ice_rebuild sends no
 * clear_pf_cfg; ice_init_hw, at probe, does).
 */
void e810_fw_reset(E810State *s)
{
    memset(s->fw->held, 0, sizeof(s->fw->held));
}
