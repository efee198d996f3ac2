/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 device model: the embedded switch.  One physical port, the VSIs
 * the driver adds (their contexts kept whole: queue map, VLAN and RSS
 * options), the switch rules it adds (MAC, MAC+VLAN, VLAN prune,
 * ethertype, promiscuous, default VSI) with the VSI lists they point
 * to, the RSS keys and lookup tables, and the DCB/LLDP commands a port
 * without DCB answers.  e810_sw_rx_dest() uses all of it to steer a
 * received frame to one RX queue of the PF.
 *
 * The model runs in single VLAN mode: it declines the VLAN mode query,
 * which tells the driver the firmware cannot do double VLAN mode.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "qemu/log.h"
#include "net/eth.h"
#include "e810.h"

/*
 * Switch configuration: one physical port, port 0 of switch 0, owned by
 * PF 0 (what PF_FUNC_RID says, e810.c).
 */
#define E810_SW_ID                  0
#define E810_SW_LPORT               0
#define E810_SW_PF                  0
#define E810_SW_CFG_ELEM_SIZE       6
#define E810_SW_CFG_TYPE_PHYS_PORT  0
#define E810_SW_CFG_TYPE_SHIFT      14

/* Descriptor parameters of the switch configuration commands. */
#define E810_SW_CFG_ELEMENT         2
#define E810_SW_CFG_NUM_ELEMS       4
#define E810_PORT_PARAMS_FLAGS      0
#define E810_PORT_PARAMS_DVM        BIT(2)

/* Add/update/get/free VSI: parameters and response. */
#define E810_VSI_CMD_NUM            0
#define E810_VSI_CMD_FLAGS          6
#define E810_VSI_RESP_NUM           0
#define E810_VSI_RESP_USED          4
#define E810_VSI_RESP_FREE          6
#define E810_VSI_NUM_MASK           0x3ff
#define E810_VSI_NUM_VALID          BIT(15)
/* Hardware VSI numbers of one device: 0..767. */
#define E810_VSI_NUM_LIMIT          768

/* The VSI context (the command's 128-byte buffer) and its sections. */
#define E810_VSI_CTX_LEN            128
#define E810_VSI_VALID_SECTIONS     0
#define E810_VSI_SW_FLAGS2          4
#define E810_VSI_SW_RX_PRUNE_ENA    BIT(0)
#define E810_VSI_MAP_FLAGS          28
#define E810_VSI_MAP_NONCONTIG      BIT(0)
#define E810_VSI_Q_MAPPING          30      /* 16 words */
#define E810_VSI_Q_MAPPING_NUM      16
#define E810_VSI_TC_MAPPING         62      /* 8 words */
#define E810_VSI_TC_Q_OFFSET(w)     ((w) & 0x7ff)
#define E810_VSI_TC_Q_POW(w)        (((w) >> 11) & 0xf)
#define E810_VSI_Q_OPT_RSS          78
#define E810_VSI_RSS_LUT_TYPE(b)    ((b) & 0x3)
#define E810_VSI_RSS_LUT_VSI        0
#define E810_VSI_RSS_LUT_PF         2
#define E810_VSI_QUEUE_MASK         0x7ff

/* Which bytes each valid_sections bit of an update covers. */
typedef struct E810VsiSection {
    uint16_t bit;
    uint8_t off;
    uint8_t len;
} E810VsiSection;

static const E810VsiSection e810_vsi_sections[] = {
    { BIT(0), 2, 4 },           /* switch */
    { BIT(1), 6, 2 },           /* security */
    { BIT(2), 8, 8 },           /* (inner) VLAN */
    { BIT(3), 24, 4 },          /* outer tag */
    { BIT(4), 16, 4 },          /* ingress UP table */
    { BIT(5), 20, 4 },          /* egress UP table */
    { BIT(6), 28, 50 },         /* RX queue map and TC map */
    { BIT(7), 78, 6 },          /* queueing options (RSS, PE filter) */
    { BIT(8), 84, 4 },          /* outer UP table */
    { BIT(11), 90, 10 },        /* flow director */
    { BIT(12), 100, 4 },        /* PASID */
};

/* Switch rules: the element header and the lookup rule. */
#define E810_RULE_TYPE              0
#define E810_RULE_STATUS            2
#define E810_RULE_LKUP_RX           0
#define E810_RULE_LKUP_TX           1
#define E810_RULE_LG_ACT            2
#define E810_RULE_LIST_SET          3
#define E810_RULE_LIST_CLEAR        4
#define E810_RULE_PRUNE_SET         5
#define E810_RULE_PRUNE_CLEAR       6
#define E810_LKUP_RECIPE            4
#define E810_LKUP_SRC               6
#define E810_LKUP_ACT               8
#define E810_LKUP_INDEX             12
#define E810_LKUP_HDR_LEN           14
#define E810_LKUP_HDR               16
/* The header a rule matches: a dummy Ethernet header (DA, tag, TCI). */
#define E810_LKUP_HDR_MAX           16
#define E810_LKUP_HDR_DA            0
#define E810_LKUP_HDR_ETHTYPE       12
#define E810_LKUP_HDR_TCI           14
/* Large action and VSI list elements. */
#define E810_LG_ACT_SIZE            6
#define E810_LG_ACT_HDR             8
#define E810_LIST_INDEX             4
#define E810_LIST_NUM_VSI           6
#define E810_LIST_VSI               8

/* Lookup types: the recipe a rule names. */
#define E810_LKUP_ETHERTYPE         0
#define E810_LKUP_MAC               1
#define E810_LKUP_MAC_VLAN          2
#define E810_LKUP_PROMISC           3
#define E810_LKUP_VLAN              4
#define E810_LKUP_DFLT              5
#define E810_LKUP_ETHERTYPE_MAC     8
#define E810_LKUP_PROMISC_VLAN      9

/* A lookup rule's single action. */
#define E810_ACT_TYPE(a)            ((a) & 0x3)
#define E810_ACT_TYPE_VSI           0
#define E810_ACT_TYPE_QUEUE         1
#define E810_ACT_VSI(a)             (((a) >> 4) & 0x3ff)
#define E810_ACT_VSI_LIST           BIT(14)
#define E810_ACT_VALID              BIT(17)
#define E810_ACT_DROP               BIT(18)
#define E810_ACT_QUEUE(a)           (((a) >> 4) & 0x7ff)

/* RSS commands. */
#define E810_RSS_VSI_VALID          BIT(15)
#define E810_RSS_LUT_FLAGS          2
#define E810_RSS_LUT_CMD_TYPE(f)    ((f) & 0x3)
#define E810_RSS_LUT_CMD_VSI        0
#define E810_RSS_LUT_CMD_PF         1
#define E810_RSS_LUT_CMD_SIZE(f)    (((f) >> 2) & 0x3)
/* The key: 40 bytes of Toeplitz key, 12 of extended hash key. */
#define E810_RSS_KEY_LEN            40
#define E810_RSS_KEY_BUF_LEN        52
/* A VSI's own LUT (VSIQF_HLUT: 16 registers of 4 entries). */
#define E810_RSS_VSI_LUT_SIZE       64
/* The PF's LUT: 128, 512 or 2048 entries (the caps say 2048). */
#define E810_RSS_PF_LUT_MAX         2048

/* DCB: set/query PFC mode answer 0 (DCB disabled). */
#define E810_PFC_MODE               0

/* What the switch holds. */
#define E810_SW_MAX_RULES           512
#define E810_SW_MAX_LISTS           64
#define E810_SW_LIST_BITS           1024    /* VSI numbers: 10 bits */

typedef struct E810Vsi {
    bool used;
    uint16_t num;
    uint16_t flags;                 /* type: VF, VMDq2, PF */
    uint8_t ctx[E810_VSI_CTX_LEN];
    uint8_t rss_key[E810_RSS_KEY_BUF_LEN];
    uint8_t lut[E810_RSS_VSI_LUT_SIZE];
    bool lut_set;
} E810Vsi;

typedef struct E810SwRule {
    bool used;
    uint16_t type;                  /* LKUP_RX or LKUP_TX */
    uint16_t recipe;                /* E810_LKUP_* */
    uint16_t src;
    uint32_t act;
    uint16_t hdr_len;
    uint8_t hdr[E810_LKUP_HDR_MAX];
} E810SwRule;

/*
 * A VSI list: a replication list (what forwarding rules name) or a prune
 * list (what VLAN rules name); the two kinds are apart, as the ids the
 * driver allocates for them may be.
 */
typedef struct E810SwList {
    bool used;
    bool prune;
    uint16_t id;
    unsigned long members[BITS_TO_LONGS(E810_SW_LIST_BITS)];
} E810SwList;

struct E810Sw {
    bool dvm_asked;                 /* set port params asked for DVM */
    E810Vsi vsi[E810_NUM_VSI];
    E810SwRule rules[E810_SW_MAX_RULES];
    E810SwList lists[E810_SW_MAX_LISTS];
    uint8_t pf_lut[E810_RSS_PF_LUT_MAX];
    uint16_t pf_lut_size;           /* 0: never set */
};

/* A received frame as steering sees it. */
typedef struct E810Frame {
    const uint8_t *data;
    size_t len;
    const uint8_t *dst;
    uint16_t vid;                   /* 0 when untagged */
    uint16_t ethertype;             /* inside the VLAN tag, if any */
    size_t l3;                      /* offset of the L3 header */
} E810Frame;

/* VSIs */

static E810Vsi *e810_vsi_find(E810Sw *sw, uint16_t num)
{
    int i;

    for (i = 0; i < E810_NUM_VSI; i++) {
        if (sw->vsi[i].used && sw->vsi[i].num == num) {
            return &sw->vsi[i];
        }
    }
    return NULL;
}

static unsigned int e810_vsi_count(E810Sw *sw)
{
    unsigned int i, n = 0;

    for (i = 0; i < E810_NUM_VSI; i++) {
        n += sw->vsi[i].used;
    }
    return n;
}

/*
 * A free hardware VSI number.  0 is left unused: nothing needs it and a
 * zero in a context field then never names a live VSI.
 */
static bool e810_vsi_pick_num(E810Sw *sw, uint16_t *num)
{
    uint16_t n;

    for (n = 1; n < E810_VSI_NUM_LIMIT; n++) {
        if (!e810_vsi_find(sw, n)) {
            *num = n;
            return true;
        }
    }
    return false;
}

/* The VSI a command's descriptor names (number and valid bit), or NULL. */
static E810Vsi *e810_vsi_of_cmd(E810Sw *sw, E810Cmd *c, uint16_t valid)
{
    uint16_t v = e810_get16(e810_cmd_param(c, 0), 0);

    if (!(v & valid)) {
        return NULL;
    }
    return e810_vsi_find(sw, v & E810_VSI_NUM_MASK);
}

static void e810_vsi_answer(E810Sw *sw, E810Cmd *c, uint16_t num)
{
    uint8_t *p = e810_cmd_param(c, 0);
    unsigned int used = e810_vsi_count(sw);

    e810_put16(p, E810_VSI_RESP_NUM, num);
    e810_put16(p, E810_VSI_RESP_USED, used);
    e810_put16(p, E810_VSI_RESP_FREE, E810_NUM_VSI - used);
}

static uint16_t e810_vsi_ctx_word(const E810Vsi *v, size_t off)
{
    return e810_get16(v->ctx, off);
}

/* Lists */

static E810SwList *e810_list_find(E810Sw *sw, uint16_t id, bool prune)
{
    int i;

    for (i = 0; i < E810_SW_MAX_LISTS; i++) {
        if (sw->lists[i].used && sw->lists[i].id == id &&
            sw->lists[i].prune == prune) {
            return &sw->lists[i];
        }
    }
    return NULL;
}

static E810SwList *e810_list_get(E810Sw *sw, uint16_t id, bool prune)
{
    E810SwList *l = e810_list_find(sw, id, prune);
    int i;

    for (i = 0; !l && i < E810_SW_MAX_LISTS; i++) {
        if (!sw->lists[i].used) {
            l = &sw->lists[i];
            memset(l, 0, sizeof(*l));
            l->used = true;
            l->prune = prune;
            l->id = id;
        }
    }
    return l;
}

/* Whether VLAN rule action ACT names VSI (directly or by prune list). */
static bool e810_prune_names_vsi(E810Sw *sw, uint32_t act, uint16_t vsi)
{
    E810SwList *l;

    if (!(act & E810_ACT_VSI_LIST)) {
        return E810_ACT_VSI(act) == vsi;
    }
    l = e810_list_find(sw, E810_ACT_VSI(act), true);
    return l && test_bit(vsi % E810_SW_LIST_BITS, l->members);
}

/* Frames */

static bool e810_frame_parse(E810Frame *f, const uint8_t *data, size_t len)
{
    uint16_t type;

    if (len < ETH_HLEN) {
        return false;
    }
    memset(f, 0, sizeof(*f));
    f->data = data;
    f->len = len;
    f->dst = data;
    f->l3 = ETH_HLEN;
    type = lduw_be_p(data + 12);
    /* Single VLAN mode: only the 802.1Q tag is a VLAN. */
    if (type == ETH_P_VLAN && len >= ETH_HLEN + 4) {
        f->vid = lduw_be_p(data + 14) & 0xfff;
        type = lduw_be_p(data + 16);
        f->l3 += 4;
    }
    f->ethertype = type;
    return true;
}

static bool e810_is_bcast(const uint8_t *mac)
{
    static const uint8_t bcast[ETH_ALEN] = {
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff
    };

    return !memcmp(mac, bcast, ETH_ALEN);
}

/* 0 unicast, 1 multicast, 2 broadcast. */
static int e810_mac_class(const uint8_t *mac)
{
    if (e810_is_bcast(mac)) {
        return 2;
    }
    return mac[0] & 1;
}

/* Rules */

static uint16_t e810_rule_vid(const E810SwRule *r)
{
    return lduw_be_p(r->hdr + E810_LKUP_HDR_TCI) & 0xfff;
}

static bool e810_rule_da_is(const E810SwRule *r, const uint8_t *dst)
{
    return r->hdr_len >= ETH_ALEN &&
           !memcmp(r->hdr + E810_LKUP_HDR_DA, dst, ETH_ALEN);
}

static bool e810_rule_vid_is(const E810SwRule *r, uint16_t vid)
{
    return r->hdr_len >= E810_LKUP_HDR_MAX && e810_rule_vid(r) == vid;
}

static bool e810_rule_ethertype_is(const E810SwRule *r, uint16_t type)
{
    return r->hdr_len >= E810_LKUP_HDR_ETHTYPE + 2 &&
           lduw_be_p(r->hdr + E810_LKUP_HDR_ETHTYPE) == type;
}

/*
 * Which pass of the lookup a rule belongs to: ethertype rules first,
 * then exact addresses, then promiscuous rules, then the default VSI;
 * -1: the rule steers no received frame.  The driver adds MAC and
 * MAC+VLAN rules in the transmit direction, and they still decide what
 * a VSI receives; ethertype, promiscuous and default rules of the
 * transmit direction only act on what VSIs send (the driver's drop rules
 * for pause and LLDP frames, say).
 */
static int e810_rule_pass(const E810SwRule *r)
{
    bool rx = r->type == E810_RULE_LKUP_RX;

    switch (r->recipe) {
    case E810_LKUP_ETHERTYPE:
    case E810_LKUP_ETHERTYPE_MAC:
        return rx ? 0 : -1;
    case E810_LKUP_MAC:
    case E810_LKUP_MAC_VLAN:
        return 1;
    case E810_LKUP_PROMISC:
    case E810_LKUP_PROMISC_VLAN:
        return rx ? 2 : -1;
    case E810_LKUP_DFLT:
        return rx ? 3 : -1;
    default:
        return -1;
    }
}

static bool e810_rule_matches(const E810SwRule *r, const E810Frame *f)
{
    switch (r->recipe) {
    case E810_LKUP_ETHERTYPE:
        return e810_rule_ethertype_is(r, f->ethertype);
    case E810_LKUP_ETHERTYPE_MAC:
        return e810_rule_ethertype_is(r, f->ethertype) &&
               e810_rule_da_is(r, f->dst);
    case E810_LKUP_MAC:
        return e810_rule_da_is(r, f->dst);
    case E810_LKUP_MAC_VLAN:
        return e810_rule_da_is(r, f->dst) && e810_rule_vid_is(r, f->vid);
    case E810_LKUP_PROMISC:
        /* The rule's DA stands for its class: unicast, multicast, bcast. */
        return r->hdr_len >= ETH_ALEN &&
               e810_mac_class(r->hdr) == e810_mac_class(f->dst);
    case E810_LKUP_PROMISC_VLAN:
        return r->hdr_len >= ETH_ALEN &&
               e810_mac_class(r->hdr) == e810_mac_class(f->dst) &&
               e810_rule_vid_is(r, f->vid);
    case E810_LKUP_DFLT:
        return true;
    default:
        return false;
    }
}

static E810SwRule *e810_rule_find(E810Sw *sw, uint16_t index)
{
    if (index >= E810_SW_MAX_RULES || !sw->rules[index].used) {
        return NULL;
    }
    return &sw->rules[index];
}

static void e810_rule_take_hdr(E810SwRule *r, const uint8_t *hdr,
                               uint16_t hdr_len)
{
    memset(r->hdr, 0, sizeof(r->hdr));
    r->hdr_len = MIN(hdr_len, E810_LKUP_HDR_MAX);
    memcpy(r->hdr, hdr, r->hdr_len);
}

/*
 * VLAN pruning: with receive pruning on, a VSI takes a frame only when a
 * VLAN rule for the frame's VLAN (0 when untagged) names it.
 */
static bool e810_vlan_allowed(E810Sw *sw, const E810Vsi *v, uint16_t vid)
{
    int i;

    if (!(v->ctx[E810_VSI_SW_FLAGS2] & E810_VSI_SW_RX_PRUNE_ENA)) {
        return true;
    }
    for (i = 0; i < E810_SW_MAX_RULES; i++) {
        const E810SwRule *r = &sw->rules[i];

        if (r->used && r->recipe == E810_LKUP_VLAN &&
            e810_rule_vid_is(r, vid) &&
            e810_prune_names_vsi(sw, r->act, v->num)) {
            return true;
        }
    }
    return false;
}

/* The VSI a forwarding action delivers FRAME to, or NULL. */
static E810Vsi *e810_act_target(E810Sw *sw, uint32_t act, const E810Frame *f)
{
    E810SwList *l;
    E810Vsi *v;
    int i;

    if (!(act & E810_ACT_VSI_LIST)) {
        v = e810_vsi_find(sw, E810_ACT_VSI(act));
        return v && e810_vlan_allowed(sw, v, f->vid) ? v : NULL;
    }
    /*
     * The hardware copies the frame to every VSI of the list; the model
     * delivers one frame, to the list's first VSI that takes it.
     */
    l = e810_list_find(sw, E810_ACT_VSI(act), false);
    if (!l) {
        return NULL;
    }
    for (i = 0; i < E810_NUM_VSI; i++) {
        v = &sw->vsi[i];
        if (v->used && test_bit(v->num % E810_SW_LIST_BITS, l->members) &&
            e810_vlan_allowed(sw, v, f->vid)) {
            return v;
        }
    }
    return NULL;
}

/* RSS */

/* Toeplitz hash of IN with the 40-byte KEY. */
static uint32_t e810_toeplitz(const uint8_t *key, const uint8_t *in,
                              size_t n)
{
    uint32_t hash = 0;
    uint32_t window = ldl_be_p(key);
    size_t next = 32;               /* the key bit shifted in next */
    size_t i;
    int b;

    for (i = 0; i < n; i++) {
        for (b = 7; b >= 0; b--) {
            if (in[i] & (1u << b)) {
                hash ^= window;
            }
            window <<= 1;
            if (next < E810_RSS_KEY_LEN * 8 &&
                (key[next / 8] & (0x80 >> (next % 8)))) {
                window |= 1;
            }
            next++;
        }
    }
    return hash;
}

/*
 * The hash input: source and destination addresses of IPv4 or IPv6,
 * then the TCP or UDP ports (not for IPv4 fragments, nor behind IPv6
 * extension headers).  0: not IP, nothing to hash.
 */
static size_t e810_rss_input(const E810Frame *f, uint8_t *in)
{
    const uint8_t *l3 = f->data + f->l3;
    size_t room = f->len - f->l3;
    size_t n, l4;
    uint8_t proto;

    if (f->ethertype == ETH_P_IP && room >= 20 && (l3[0] >> 4) == 4) {
        l4 = (l3[0] & 0xf) * 4;
        if (l4 < 20 || l4 > room) {
            return 0;
        }
        memcpy(in, l3 + 12, 8);
        n = 8;
        proto = l3[9];
        if (lduw_be_p(l3 + 6) & 0x3fff) {
            return n;               /* a fragment: no ports */
        }
    } else if (f->ethertype == ETH_P_IPV6 && room >= 40 &&
               (l3[0] >> 4) == 6) {
        memcpy(in, l3 + 8, 32);
        n = 32;
        proto = l3[6];
        l4 = 40;
    } else {
        return 0;
    }
    if ((proto == IP_PROTO_TCP || proto == IP_PROTO_UDP) && l4 + 4 <= room) {
        memcpy(in + n, l3 + l4, 4);
        n += 4;
    }
    return n;
}

/* The LUT the VSI's context selects, and its size; false: none set. */
static bool e810_vsi_lut(E810Sw *sw, const E810Vsi *v, const uint8_t **lut,
                         unsigned int *size)
{
    switch (E810_VSI_RSS_LUT_TYPE(v->ctx[E810_VSI_Q_OPT_RSS])) {
    case E810_VSI_RSS_LUT_VSI:
        *lut = v->lut;
        *size = E810_RSS_VSI_LUT_SIZE;
        return v->lut_set;
    case E810_VSI_RSS_LUT_PF:
        *lut = sw->pf_lut;
        *size = sw->pf_lut_size;
        return sw->pf_lut_size != 0;
    default:
        /* Global LUTs are not modelled: no RSS. */
        return false;
    }
}

/*
 * The PF queue for the VSI's queue IDX: the contiguous map counts from
 * its first queue, the scattered one lists up to 16 queues.
 */
static bool e810_vsi_pf_queue(const E810Vsi *v, unsigned int idx,
                              uint16_t *queue)
{
    uint16_t first, count, q;

    if (e810_vsi_ctx_word(v, E810_VSI_MAP_FLAGS) & E810_VSI_MAP_NONCONTIG) {
        if (idx >= E810_VSI_Q_MAPPING_NUM) {
            return false;
        }
        q = e810_vsi_ctx_word(v, E810_VSI_Q_MAPPING + 2 * idx) &
            E810_VSI_QUEUE_MASK;
    } else {
        first = e810_vsi_ctx_word(v, E810_VSI_Q_MAPPING) &
                E810_VSI_QUEUE_MASK;
        count = e810_vsi_ctx_word(v, E810_VSI_Q_MAPPING + 2) &
                E810_VSI_QUEUE_MASK;
        if (idx >= count) {
            return false;
        }
        q = first + idx;
    }
    if (q >= E810_NUM_QUEUES) {
        return false;
    }
    *queue = q;
    return true;
}

/*
 * The queue of VSI V for frame F: RSS picks an entry of the VSI's LUT,
 * an index into traffic class 0's queue region (no DCB: every frame is
 * in TC 0); without RSS, the region's first queue.
 */
static bool e810_vsi_rx_queue(E810Sw *sw, const E810Vsi *v,
                              const E810Frame *f, uint16_t *queue,
                              uint32_t *hash)
{
    uint16_t tc0 = e810_vsi_ctx_word(v, E810_VSI_TC_MAPPING);
    unsigned int region = 1u << E810_VSI_TC_Q_POW(tc0);
    unsigned int idx = 0, lut_size;
    const uint8_t *lut;
    uint8_t in[36];
    size_t n;

    *hash = 0;
    if (e810_vsi_lut(sw, v, &lut, &lut_size)) {
        n = e810_rss_input(f, in);
        if (n) {
            *hash = e810_toeplitz(v->rss_key, in, n);
        }
        /* LUT sizes are powers of two; lut_size is at most 2048. */
        idx = lut[*hash & (lut_size - 1)] & (region - 1);
    }
    idx += E810_VSI_TC_Q_OFFSET(tc0);
    if (!e810_vsi_pf_queue(v, idx, queue)) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: VSI %u maps no RX queue for "
                      "its queue %u\n", v->num, idx);
        return false;
    }
    return true;
}

bool e810_sw_rx_dest(E810State *s, const uint8_t *frame, size_t len,
                     uint16_t *queue, uint32_t *hash)
{
    E810Sw *sw = s->sw;
    E810Frame f;
    E810Vsi *v;
    int pass, i;

    if (!sw || !e810_frame_parse(&f, frame, len)) {
        return false;
    }
    for (pass = 0; pass < 4; pass++) {
        for (i = 0; i < E810_SW_MAX_RULES; i++) {
            const E810SwRule *r = &sw->rules[i];

            if (!r->used || e810_rule_pass(r) != pass ||
                !e810_rule_matches(r, &f)) {
                continue;
            }
            if (E810_ACT_TYPE(r->act) == E810_ACT_TYPE_QUEUE) {
                /*
                 * To a queue (of a group: the model takes its first
                 * queue, with no VSI key to spread by).  The driver
                 * makes these only for advanced rules, which need
                 * recipes the model does not offer.
                 */
                *hash = 0;
                *queue = E810_ACT_QUEUE(r->act);
                return *queue < E810_NUM_QUEUES;
            }
            if (E810_ACT_TYPE(r->act) != E810_ACT_TYPE_VSI ||
                !(r->act & E810_ACT_VALID)) {
                continue;
            }
            if (r->act & E810_ACT_DROP) {
                return false;
            }
            v = e810_act_target(sw, r->act, &f);
            if (v) {
                return e810_vsi_rx_queue(sw, v, &f, queue, hash);
            }
        }
    }
    return false;
}

/* Switch configuration commands */

/* 0x0200: the switch's elements: its one physical port. */
static uint16_t e810_get_sw_cfg(E810State *s, E810Cmd *c)
{
    uint8_t *p = e810_cmd_param(c, 0);

    if (!c->buf || c->buf_len < E810_SW_CFG_ELEM_SIZE) {
        return E810_AQ_RC_EINVAL;
    }
    e810_put16(p, E810_SW_CFG_NUM_ELEMS, 0);
    if (e810_get16(p, E810_SW_CFG_ELEMENT) == 0) {
        e810_put16(c->buf, 0, (E810_SW_CFG_TYPE_PHYS_PORT <<
                               E810_SW_CFG_TYPE_SHIFT) | E810_SW_LPORT);
        e810_put16(c->buf, 2, E810_SW_ID);
        e810_put16(c->buf, 4, E810_SW_PF);
        e810_put16(p, E810_SW_CFG_NUM_ELEMS, 1);
        c->out_len = E810_SW_CFG_ELEM_SIZE;
    }
    /* Everything was returned: no next element. */
    e810_put16(p, E810_SW_CFG_ELEMENT, 0);
    return E810_AQ_RC_OK;
}

/* 0x0203: port parameters; the model stays in single VLAN mode. */
static uint16_t e810_set_port_params(E810State *s, E810Cmd *c)
{
    uint16_t flags = e810_get16(e810_cmd_param(c, 0), E810_PORT_PARAMS_FLAGS);

    s->sw->dvm_asked = flags & E810_PORT_PARAMS_DVM;
    if (s->sw->dvm_asked) {
        qemu_log_mask(LOG_UNIMP, "e810: double VLAN mode\n");
    }
    return E810_AQ_RC_OK;
}

/*
 * 0x020C/0x020D: VLAN mode parameters.  The query fails as on firmware
 * without double VLAN mode: the driver then stays in single VLAN mode
 * and sends no recipe commands to set up DVM (ice_vlan_mode.c).
 */
static uint16_t e810_set_vlan_mode(E810State *s, E810Cmd *c)
{
    return E810_AQ_RC_OK;
}

static uint16_t e810_get_vlan_mode(E810State *s, E810Cmd *c)
{
    return E810_AQ_RC_ENOSYS;
}

/* 0x0210: a new VSI with the whole context of the buffer. */
static uint16_t e810_add_vsi(E810State *s, E810Cmd *c)
{
    E810Sw *sw = s->sw;
    uint8_t *p = e810_cmd_param(c, 0);
    uint16_t req = e810_get16(p, E810_VSI_CMD_NUM);
    uint16_t num;
    E810Vsi *v = NULL;
    int i;

    if (!c->buf || c->buf_len < E810_VSI_CTX_LEN) {
        return E810_AQ_RC_EINVAL;
    }
    if (req & E810_VSI_NUM_VALID) {
        num = req & E810_VSI_NUM_MASK;
        if (num >= E810_VSI_NUM_LIMIT) {
            return E810_AQ_RC_EINVAL;
        }
        if (e810_vsi_find(sw, num)) {
            return E810_AQ_RC_EEXIST;
        }
    } else if (!e810_vsi_pick_num(sw, &num)) {
        return E810_AQ_RC_ENOSPC;
    }
    for (i = 0; !v && i < E810_NUM_VSI; i++) {
        if (!sw->vsi[i].used) {
            v = &sw->vsi[i];
        }
    }
    if (!v) {
        return E810_AQ_RC_ENOSPC;
    }
    memset(v, 0, sizeof(*v));
    v->used = true;
    v->num = num;
    v->flags = e810_get16(p, E810_VSI_CMD_FLAGS);
    memcpy(v->ctx, c->buf, E810_VSI_CTX_LEN);
    e810_vsi_answer(sw, c, num);
    return E810_AQ_RC_OK;
}

/* 0x0211: update the sections the context marks valid. */
static uint16_t e810_update_vsi(E810State *s, E810Cmd *c)
{
    E810Vsi *v = e810_vsi_of_cmd(s->sw, c, E810_VSI_NUM_VALID);
    uint16_t valid;
    size_t i;

    if (!c->buf || c->buf_len < E810_VSI_CTX_LEN) {
        return E810_AQ_RC_EINVAL;
    }
    if (!v) {
        return E810_AQ_RC_ENOENT;
    }
    valid = e810_get16(c->buf, E810_VSI_VALID_SECTIONS);
    for (i = 0; i < ARRAY_SIZE(e810_vsi_sections); i++) {
        const E810VsiSection *sec = &e810_vsi_sections[i];

        if (valid & sec->bit) {
            memcpy(v->ctx + sec->off, c->buf + sec->off, sec->len);
        }
    }
    e810_put16(v->ctx, E810_VSI_VALID_SECTIONS,
               e810_get16(v->ctx, E810_VSI_VALID_SECTIONS) | valid);
    e810_vsi_answer(s->sw, c, v->num);
    return E810_AQ_RC_OK;
}

/* 0x0212: the VSI's context. */
static uint16_t e810_get_vsi(E810State *s, E810Cmd *c)
{
    E810Vsi *v = e810_vsi_of_cmd(s->sw, c, E810_VSI_NUM_VALID);

    if (!c->buf) {
        return E810_AQ_RC_EINVAL;
    }
    if (!v) {
        return E810_AQ_RC_ENOENT;
    }
    c->out_len = MIN(c->buf_len, E810_VSI_CTX_LEN);
    memcpy(c->buf, v->ctx, c->out_len);
    e810_vsi_answer(s->sw, c, v->num);
    return E810_AQ_RC_OK;
}

/* Forget what points at VSI NUM: its rules and its list memberships. */
static void e810_vsi_forget(E810Sw *sw, uint16_t num)
{
    int i;

    for (i = 0; i < E810_SW_MAX_RULES; i++) {
        E810SwRule *r = &sw->rules[i];

        if (r->used && !(r->act & E810_ACT_VSI_LIST) &&
            E810_ACT_TYPE(r->act) != E810_ACT_TYPE_QUEUE &&
            E810_ACT_VSI(r->act) == num) {
            memset(r, 0, sizeof(*r));
        }
    }
    for (i = 0; i < E810_SW_MAX_LISTS; i++) {
        clear_bit(num % E810_SW_LIST_BITS, sw->lists[i].members);
    }
}

/* 0x0213: free a VSI. */
static uint16_t e810_free_vsi(E810State *s, E810Cmd *c)
{
    E810Vsi *v = e810_vsi_of_cmd(s->sw, c, E810_VSI_NUM_VALID);
    uint16_t num;

    if (!v) {
        return E810_AQ_RC_ENOENT;
    }
    num = v->num;
    memset(v, 0, sizeof(*v));
    e810_vsi_forget(s->sw, num);
    e810_vsi_answer(s->sw, c, num);
    return E810_AQ_RC_OK;
}

/* Switch rules */

enum {
    E810_RULES_ADD,
    E810_RULES_UPDATE,
    E810_RULES_REMOVE,
};

static uint16_t e810_lkup_add(E810Sw *sw, uint8_t *e, uint16_t hdr_len)
{
    E810SwRule *r = NULL;
    int i;

    for (i = 0; i < E810_SW_MAX_RULES; i++) {
        if (!sw->rules[i].used) {
            r = &sw->rules[i];
            break;
        }
    }
    if (!r) {
        return E810_AQ_RC_ENOSPC;
    }
    r->used = true;
    r->type = e810_get16(e, E810_RULE_TYPE);
    r->recipe = e810_get16(e, E810_LKUP_RECIPE);
    r->src = e810_get16(e, E810_LKUP_SRC);
    r->act = e810_get32(e, E810_LKUP_ACT);
    e810_rule_take_hdr(r, e + E810_LKUP_HDR, hdr_len);
    if (r->recipe > E810_LKUP_PROMISC_VLAN ||
        r->recipe == E810_LKUP_DFLT + 1 || r->recipe == E810_LKUP_DFLT + 2) {
        /* Kept, never matched: not one of the fixed lookup types. */
        qemu_log_mask(LOG_UNIMP, "e810: switch rule recipe %u\n", r->recipe);
    }
    e810_put16(e, E810_LKUP_INDEX, i);
    e810_put16(e, E810_RULE_STATUS, 0);
    return E810_AQ_RC_OK;
}

/* A lookup rule element (its header bytes follow the fixed part). */
static uint16_t e810_lkup_rule(E810Sw *sw, int op, uint8_t *e, size_t room,
                               size_t *len)
{
    uint16_t hdr_len;
    E810SwRule *r;

    if (room < E810_LKUP_HDR) {
        return E810_AQ_RC_EINVAL;
    }
    hdr_len = e810_get16(e, E810_LKUP_HDR_LEN);
    if (hdr_len > room - E810_LKUP_HDR) {
        return E810_AQ_RC_EINVAL;
    }
    *len = E810_LKUP_HDR + hdr_len;
    if (op == E810_RULES_ADD) {
        return e810_lkup_add(sw, e, hdr_len);
    }
    r = e810_rule_find(sw, e810_get16(e, E810_LKUP_INDEX));
    if (!r) {
        return E810_AQ_RC_ENOENT;
    }
    if (op == E810_RULES_REMOVE) {
        memset(r, 0, sizeof(*r));
        return E810_AQ_RC_OK;
    }
    /* An update changes the action; the match stays unless resent. */
    r->act = e810_get32(e, E810_LKUP_ACT);
    if (hdr_len) {
        e810_rule_take_hdr(r, e + E810_LKUP_HDR, hdr_len);
    }
    return E810_AQ_RC_OK;
}

/* A VSI (or prune) list element: set or clear its members. */
static uint16_t e810_list_rule(E810Sw *sw, int op, uint8_t *e, size_t room,
                               size_t *len)
{
    uint16_t type, id, n, i, vsi;
    bool clear, prune;
    E810SwList *l;

    if (room < E810_LIST_VSI) {
        return E810_AQ_RC_EINVAL;
    }
    type = e810_get16(e, E810_RULE_TYPE);
    id = e810_get16(e, E810_LIST_INDEX);
    n = e810_get16(e, E810_LIST_NUM_VSI);
    if (n > (room - E810_LIST_VSI) / 2) {
        return E810_AQ_RC_EINVAL;
    }
    *len = E810_LIST_VSI + 2 * n;
    clear = op == E810_RULES_REMOVE || type == E810_RULE_LIST_CLEAR ||
            type == E810_RULE_PRUNE_CLEAR;
    prune = type == E810_RULE_PRUNE_SET || type == E810_RULE_PRUNE_CLEAR;
    l = clear ? e810_list_find(sw, id, prune) : e810_list_get(sw, id, prune);
    if (!l) {
        return clear ? E810_AQ_RC_ENOENT : E810_AQ_RC_ENOSPC;
    }
    for (i = 0; i < n; i++) {
        vsi = e810_get16(e, E810_LIST_VSI + 2 * i) % E810_SW_LIST_BITS;
        if (clear) {
            clear_bit(vsi, l->members);
        } else {
            set_bit(vsi, l->members);
        }
    }
    /* An emptied list is gone: the driver frees its id next. */
    if (op == E810_RULES_REMOVE ||
        find_first_bit(l->members, E810_SW_LIST_BITS) >= E810_SW_LIST_BITS) {
        memset(l, 0, sizeof(*l));
    }
    return E810_AQ_RC_OK;
}

/*
 * A large action element: accepted, not modelled (the driver uses them
 * only for software markers).
 */
static uint16_t e810_lg_act_rule(uint8_t *e, size_t room, size_t *len)
{
    uint16_t n;

    if (room < E810_LG_ACT_HDR) {
        return E810_AQ_RC_EINVAL;
    }
    n = e810_get16(e, E810_LG_ACT_SIZE);
    if (n > (room - E810_LG_ACT_HDR) / 4) {
        return E810_AQ_RC_EINVAL;
    }
    *len = E810_LG_ACT_HDR + 4 * n;
    qemu_log_mask(LOG_UNIMP, "e810: switch large action\n");
    return E810_AQ_RC_OK;
}

static uint16_t e810_sw_rule_one(E810Sw *sw, int op, uint8_t *e, size_t room,
                                 size_t *len)
{
    if (room < 4) {
        return E810_AQ_RC_EINVAL;
    }
    switch (e810_get16(e, E810_RULE_TYPE)) {
    case E810_RULE_LKUP_RX:
    case E810_RULE_LKUP_TX:
        return e810_lkup_rule(sw, op, e, room, len);
    case E810_RULE_LG_ACT:
        return e810_lg_act_rule(e, room, len);
    case E810_RULE_LIST_SET:
    case E810_RULE_LIST_CLEAR:
    case E810_RULE_PRUNE_SET:
    case E810_RULE_PRUNE_CLEAR:
        return e810_list_rule(sw, op, e, room, len);
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "e810: switch rule type %u\n",
                      e810_get16(e, E810_RULE_TYPE));
        return E810_AQ_RC_EINVAL;
    }
}

/* 0x02A0/0x02A1/0x02A2: a buffer of N rule elements, one after another. */
static uint16_t e810_sw_rules(E810State *s, E810Cmd *c, int op)
{
    uint16_t n = e810_get16(e810_cmd_param(c, 0), 0);
    size_t off = 0, len = 0;
    uint16_t i, rc;

    if (!c->buf || !n) {
        return E810_AQ_RC_EINVAL;
    }
    for (i = 0; i < n; i++) {
        if (off >= c->buf_len) {
            return E810_AQ_RC_EINVAL;
        }
        rc = e810_sw_rule_one(s->sw, op, c->buf + off, c->buf_len - off,
                              &len);
        if (rc != E810_AQ_RC_OK) {
            return rc;
        }
        off += len;
    }
    /* The answer is the buffer, with the new rules' indexes filled in. */
    if (op == E810_RULES_ADD) {
        c->out_len = c->buf_len;
    }
    return E810_AQ_RC_OK;
}

static uint16_t e810_add_sw_rules(E810State *s, E810Cmd *c)
{
    return e810_sw_rules(s, c, E810_RULES_ADD);
}

static uint16_t e810_update_sw_rules(E810State *s, E810Cmd *c)
{
    return e810_sw_rules(s, c, E810_RULES_UPDATE);
}

static uint16_t e810_remove_sw_rules(E810State *s, E810Cmd *c)
{
    return e810_sw_rules(s, c, E810_RULES_REMOVE);
}

/*
 * 0x0290-0x0293: recipes and their profiles.  The driver sends them only
 * to set up double VLAN mode and for advanced (tc flower, switchdev)
 * rules; the model has the fixed recipes of the lookup types alone.
 */
static uint16_t e810_recipe(E810State *s, E810Cmd *c)
{
    qemu_log_mask(LOG_UNIMP, "e810: switch recipe command 0x%04x\n",
                  c->opcode);
    return E810_AQ_RC_ENOSYS;
}

/* RSS */

/* 0x0B02/0x0B04: a VSI's key. */
static uint16_t e810_set_rss_key(E810State *s, E810Cmd *c)
{
    E810Vsi *v = e810_vsi_of_cmd(s->sw, c, E810_RSS_VSI_VALID);

    if (!c->buf || c->buf_len < E810_RSS_KEY_LEN) {
        return E810_AQ_RC_EINVAL;
    }
    if (!v) {
        return E810_AQ_RC_ENOENT;
    }
    memcpy(v->rss_key, c->buf, MIN(c->buf_len, E810_RSS_KEY_BUF_LEN));
    return E810_AQ_RC_OK;
}

static uint16_t e810_get_rss_key(E810State *s, E810Cmd *c)
{
    E810Vsi *v = e810_vsi_of_cmd(s->sw, c, E810_RSS_VSI_VALID);

    if (!c->buf) {
        return E810_AQ_RC_EINVAL;
    }
    if (!v) {
        return E810_AQ_RC_ENOENT;
    }
    c->out_len = MIN(c->buf_len, E810_RSS_KEY_BUF_LEN);
    memcpy(c->buf, v->rss_key, c->out_len);
    return E810_AQ_RC_OK;
}

/* The PF LUT size a set command's flags give: 128, 512 or 2048. */
static unsigned int e810_pf_lut_size(uint16_t flags)
{
    static const unsigned int sizes[] = { 128, 512, 2048, 0 };

    return sizes[E810_RSS_LUT_CMD_SIZE(flags)];
}

/* 0x0B03/0x0B05: a VSI's own LUT (64 entries) or the PF's. */
static uint16_t e810_rss_lut(E810State *s, E810Cmd *c, bool set)
{
    E810Sw *sw = s->sw;
    E810Vsi *v = e810_vsi_of_cmd(sw, c, E810_RSS_VSI_VALID);
    uint16_t flags = e810_get16(e810_cmd_param(c, 0), E810_RSS_LUT_FLAGS);
    unsigned int size;

    if (!c->buf) {
        return E810_AQ_RC_EINVAL;
    }
    if (!v) {
        return E810_AQ_RC_ENOENT;
    }
    switch (E810_RSS_LUT_CMD_TYPE(flags)) {
    case E810_RSS_LUT_CMD_VSI:
        if (c->buf_len < E810_RSS_VSI_LUT_SIZE) {
            return E810_AQ_RC_EINVAL;
        }
        if (set) {
            memcpy(v->lut, c->buf, E810_RSS_VSI_LUT_SIZE);
            v->lut_set = true;
        } else {
            memcpy(c->buf, v->lut, E810_RSS_VSI_LUT_SIZE);
            c->out_len = E810_RSS_VSI_LUT_SIZE;
        }
        return E810_AQ_RC_OK;
    case E810_RSS_LUT_CMD_PF:
        if (!set) {
            /* The driver names no size when it reads the table back. */
            c->out_len = MIN(c->buf_len, sw->pf_lut_size);
            memcpy(c->buf, sw->pf_lut, c->out_len);
            return E810_AQ_RC_OK;
        }
        size = e810_pf_lut_size(flags);
        if (!size || c->buf_len < size) {
            return E810_AQ_RC_EINVAL;
        }
        memcpy(sw->pf_lut, c->buf, size);
        sw->pf_lut_size = size;
        return E810_AQ_RC_OK;
    default:
        qemu_log_mask(LOG_UNIMP, "e810: global RSS LUT\n");
        return E810_AQ_RC_EINVAL;
    }
}

static uint16_t e810_set_rss_lut(E810State *s, E810Cmd *c)
{
    return e810_rss_lut(s, c, true);
}

static uint16_t e810_get_rss_lut(E810State *s, E810Cmd *c)
{
    return e810_rss_lut(s, c, false);
}

/*
 * DCB and LLDP.  The port offers no DCB (the capabilities leave it out),
 * so the driver's DCB setup ends before it asks anything and DCB stays
 * off (ice_dcb.c:ice_init_dcb).  What is still sent gets the answers of
 * a port whose firmware LLDP agent does not run: the default MIB the
 * driver sets on each link up (ice_main.c:ice_set_dflt_mib) and agent
 * or filter controls are accepted and ignored; there is no MIB to read;
 * the PFC mode reads back 0, which means DCB is disabled.
 */
static uint16_t e810_dcb_accept(E810State *s, E810Cmd *c)
{
    return E810_AQ_RC_OK;
}

static uint16_t e810_dcb_no_mib(E810State *s, E810Cmd *c)
{
    return E810_AQ_RC_ENOENT;
}

static uint16_t e810_lldp_start(E810State *s, E810Cmd *c)
{
    return E810_AQ_RC_EPERM;
}

static uint16_t e810_pfc_mode(E810State *s, E810Cmd *c)
{
    *e810_cmd_param(c, 0) = E810_PFC_MODE;
    return E810_AQ_RC_OK;
}

const E810AqOp e810_sw_ops[] = {
    { 0x0200, "get_sw_cfg", e810_get_sw_cfg },
    { 0x0203, "set_port_params", e810_set_port_params },
    { 0x020C, "set_vlan_mode", e810_set_vlan_mode },
    { 0x020D, "get_vlan_mode", e810_get_vlan_mode },
    { 0x0210, "add_vsi", e810_add_vsi },
    { 0x0211, "update_vsi", e810_update_vsi },
    { 0x0212, "get_vsi_params", e810_get_vsi },
    { 0x0213, "free_vsi", e810_free_vsi },
    { 0x0290, "add_recipe", e810_recipe },
    { 0x0291, "recipe_to_profile", e810_recipe },
    { 0x0292, "get_recipe", e810_recipe },
    { 0x0293, "get_recipe_to_profile", e810_recipe },
    { 0x02A0, "add_sw_rules", e810_add_sw_rules },
    { 0x02A1, "update_sw_rules", e810_update_sw_rules },
    { 0x02A2, "remove_sw_rules", e810_remove_sw_rules },
    { 0x0302, "query_pfc_mode", e810_pfc_mode },
    { 0x0303, "set_pfc_mode", e810_pfc_mode },
    { 0x0A00, "lldp_get_mib", e810_dcb_no_mib },
    { 0x0A01, "lldp_set_mib_change", e810_dcb_accept },
    { 0x0A05, "lldp_stop", e810_dcb_accept },
    { 0x0A06, "lldp_start", e810_lldp_start },
    { 0x0A07, "get_cee_dcb_cfg", e810_dcb_no_mib },
    { 0x0A08, "lldp_set_local_mib", e810_dcb_accept },
    { 0x0A09, "lldp_stop_start_agent", e810_dcb_accept },
    { 0x0A0A, "lldp_filter_ctrl", e810_dcb_accept },
    { 0x0B02, "set_rss_key", e810_set_rss_key },
    { 0x0B03, "set_rss_lut", e810_set_rss_lut },
    { 0x0B04, "get_rss_key", e810_get_rss_key },
    { 0x0B05, "get_rss_lut", e810_get_rss_lut },
    { 0, NULL, NULL },
};

void e810_sw_realize(E810State *s)
{
    s->sw = g_new0(E810Sw, 1);
}

void e810_sw_unrealize(E810State *s)
{
    g_free(s->sw);
    s->sw = NULL;
}

/* A PF reset forgets every VSI, rule, list and table the driver made. */
void e810_sw_reset(E810State *s)
{
    memset(s->sw, 0, sizeof(*s->sw));
}
