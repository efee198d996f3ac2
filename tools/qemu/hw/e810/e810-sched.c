/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 device model: the transmit scheduler tree.
 *
 * The firmware owns a tree of scheduling elements, each named by a TEID:
 * the port's root (layer 0), one TC node per traffic class (layer 1),
 * then generic elements down to the queue group layer (7), whose
 * children are the leaves (layer 8): LAN TX queues and RDMA queue sets.
 * The model has nine layers, like the E810, so that the layer numbers
 * the driver derives from their count (queue group: layers - 2, VSI:
 * layers - 4, aggregator: layers - 6) land on 7, 5 and 3.
 *
 * After a reset the tree is the firmware's default one: a single branch
 * root - TC 0 - entry point (layer 2, where the driver's part of the
 * tree starts) - one generic element per layer 3..7 - a leaf.  The
 * driver reads it (get default topology), deletes everything from the
 * entry point down, and builds its own elements under the TC node.
 *
 * The tree is only bookkeeping: TEIDs, parents, the element data the
 * driver configured, children counted against the sibling group sizes
 * the model reports.  No rate limit or weight is applied to traffic.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "e810.h"

/* Admin queue opcodes of this part. */
#define E810_AQC_GET_DFLT_TOPO          0x0400
#define E810_AQC_ADD_SCHED_ELEMS        0x0401
#define E810_AQC_CFG_SCHED_ELEMS        0x0403
#define E810_AQC_GET_SCHED_ELEMS        0x0404
#define E810_AQC_MOVE_SCHED_ELEMS       0x0408
#define E810_AQC_SUSPEND_SCHED_ELEMS    0x0409
#define E810_AQC_RESUME_SCHED_ELEMS     0x040a
#define E810_AQC_QUERY_PORT_ETS         0x040e
#define E810_AQC_DELETE_SCHED_ELEMS     0x040f
#define E810_AQC_ADD_RL_PROFILES        0x0410
#define E810_AQC_QUERY_SCHED_RES        0x0412
#define E810_AQC_REMOVE_RL_PROFILES     0x0415
#define E810_AQC_ADD_RDMA_QSET          0x0c33

/* Descriptor parameters of the element commands: count in, count out. */
#define E810_SCHED_P_NUM_REQ    0
#define E810_SCHED_P_NUM_RESP   2
/* Get default topology: the port, and the number of branches out. */
#define E810_TOPO_P_PORT        0
#define E810_TOPO_P_BRANCHES    1
/* Query port ETS: the root's TEID. */
#define E810_ETS_P_PORT_TEID    0
/* Add RDMA queue sets: the number of groups. */
#define E810_QSET_P_NUM_GRPS    0

/* The layers. */
#define E810_SCHED_LAYERS       9
#define E810_SCHED_L_ROOT       0
#define E810_SCHED_L_TC         1
#define E810_SCHED_L_ENTRY      2
#define E810_SCHED_L_QGRP       7
#define E810_SCHED_L_LEAF       8

/*
 * The node table.  A TEID is the node's slot in its low bits and the
 * slot's generation above them: a TEID the driver kept after its node
 * was deleted names nothing, even once the slot is used again.  No TEID
 * is 0 (generations start at 1), which e810_sched_add_leaf() returns
 * for "no leaf".
 */
#define E810_SCHED_MAX_NODES    1024
#define E810_SCHED_SLOT_BITS    10
#define E810_SCHED_SLOT_MASK    (E810_SCHED_MAX_NODES - 1)
#define E810_SCHED_GEN_MASK     ((1u << (32 - E810_SCHED_SLOT_BITS)) - 1)
#define E810_SCHED_NO_TEID      0xffffffffu
#define E810_SCHED_MAX_QSETS    256

/* Element types. */
#define E810_ELEM_ROOT_PORT     1
#define E810_ELEM_TC            2
#define E810_ELEM_SE_GENERIC    3
#define E810_ELEM_ENTRY_POINT   4
#define E810_ELEM_LEAF          5

/* An element's data, 16 bytes. */
#define E810_ELEM_TYPE          0
#define E810_ELEM_VALID         1
#define E810_ELEM_GENERIC       2
#define E810_ELEM_FLAGS         3
#define E810_ELEM_CIR_PROF      4
#define E810_ELEM_CIR_ALLOC     6
#define E810_ELEM_EIR_PROF      8
#define E810_ELEM_EIR_ALLOC     10
#define E810_ELEM_SRL_ID        12
#define E810_ELEM_DATA_SIZE     16

#define E810_ELEM_VALID_GENERIC BIT(0)
#define E810_ELEM_VALID_CIR     BIT(1)
#define E810_ELEM_VALID_EIR     BIT(2)
#define E810_ELEM_VALID_SHARED  BIT(3)
#define E810_ELEM_FLAG_SUSPEND  BIT(0)
/* The driver's default weight; what the firmware's own elements carry. */
#define E810_ELEM_DFLT_WEIGHT   4

/* An element with its parent's TEID and its own, 24 bytes. */
#define E810_ED_PARENT          0
#define E810_ED_TEID            4
#define E810_ED_DATA            8
#define E810_ED_SIZE            24

/* A group's header (add, delete, topology branch): parent, count. */
#define E810_GRP_PARENT         0
#define E810_GRP_NUM            4
#define E810_GRP_HDR_SIZE       8
/* A branch of the default topology has room for one element a layer. */
#define E810_TOPO_BRANCH_SIZE   (E810_GRP_HDR_SIZE + \
                                 E810_SCHED_LAYERS * E810_ED_SIZE)

/* A move group's header: source parent, destination parent, count. */
#define E810_MOVE_SRC           0
#define E810_MOVE_DST           4
#define E810_MOVE_NUM           8
#define E810_MOVE_HDR_SIZE      12

/* Query scheduler resources: general properties, then one per layer. */
#define E810_RES_PHYS_LEVELS    0
#define E810_RES_LOGIC_LEVELS   2
#define E810_RES_MAX_DEV_CGDS   5
#define E810_RES_MAX_PF_CGDS    6
#define E810_RES_RDMA_QSETS     8
#define E810_RES_LAYER(l)       (32 + (l) * 32)
#define E810_RES_SIZE           E810_RES_LAYER(E810_SCHED_LAYERS)
#define E810_LAYER_LOGICAL      0
#define E810_LAYER_MAX_DEV      2
#define E810_LAYER_MAX_PF       4
#define E810_LAYER_MAX_SIBL     10
#define E810_LAYER_MAX_CIR      12
#define E810_LAYER_MAX_EIR      14
#define E810_LAYER_MAX_SRL      16

/* Query port ETS answer. */
#define E810_ETS_TC_VALID       0
#define E810_ETS_UP2TC          4
#define E810_ETS_BW_SHARE       8
#define E810_ETS_TC_TEID(tc)    (32 + (tc) * 4)
#define E810_ETS_SIZE           64
#define E810_MAX_TC             8

/* A rate limit profile, 12 bytes; its level is its layer + 1. */
#define E810_RL_LEVEL           0
#define E810_RL_FLAGS           1
#define E810_RL_ID              2
#define E810_RL_SIZE            12
#define E810_RL_TYPE_MASK       0x3
#define E810_RL_CIR             0
#define E810_RL_EIR             1
#define E810_RL_SRL             2
#define E810_RL_TYPES           3
/* Profiles of a type a layer takes (layers 1-8; the root has none). */
#define E810_RL_PER_LAYER       4
#define E810_RL_MAX             (E810_SCHED_LAYERS * E810_RL_TYPES * \
                                 E810_RL_PER_LAYER)
/* Profile 0 is the default one that always exists. */
#define E810_RL_DFLT_ID         0
#define E810_RL_NO_ID           0xffff

/* An RDMA queue set group: parent, count, then 24-byte entries. */
#define E810_QSET_GRP_PARENT    0
#define E810_QSET_GRP_NUM       4
#define E810_QSET_GRP_HDR_SIZE  8
#define E810_QSET_ID            0
#define E810_QSET_TEID          4
#define E810_QSET_INFO          8
#define E810_QSET_SIZE          24

/*
 * Sibling group size of each layer: how many children a node of the
 * layer above may have.  The driver sizes each node's child array by
 * it and counts children in a byte, so all stay below 256.  8 queues a
 * queue group, 8 groups an element of layer 6, 8 of those a VSI: one
 * VSI node holds 512 queues, more than the PF has.
 */
static const uint16_t e810_sched_sibl[E810_SCHED_LAYERS] = {
    1, E810_MAX_TC, 8, 32, 32, 64, 8, 8, 8,
};

typedef enum E810SchedKind {
    E810_SCHED_FREE = 0,
    E810_SCHED_FW,      /* the firmware's: root, TC, the default chain */
    E810_SCHED_SE,      /* the driver's (add elements) */
    E810_SCHED_TXQ,     /* a LAN TX queue's leaf (e810-lan.c) */
    E810_SCHED_QSET,    /* an RDMA queue set's leaf */
} E810SchedKind;

typedef struct E810SchedNode {
    uint32_t teid;              /* 0: the slot is free */
    uint32_t gen;               /* of the slot's last TEID */
    uint16_t parent;            /* slot; the root's is its own */
    uint16_t nchildren;
    uint16_t qset_id;           /* an RDMA queue set's, the driver's name */
    uint8_t layer;
    uint8_t kind;
    uint8_t data[E810_ELEM_DATA_SIZE];  /* as get elements reports it */
} E810SchedNode;

typedef struct E810RlProfile {
    bool used;
    uint8_t elem[E810_RL_SIZE];
} E810RlProfile;

struct E810Sched {
    E810SchedNode node[E810_SCHED_MAX_NODES];
    unsigned int nused;
    E810RlProfile prof[E810_RL_MAX];
    uint16_t next_prof_id;
};

/* The root is made first and never deleted. */
#define E810_SCHED_ROOT_SLOT    0

/* The node TEID names: its slot, or -1. */
static int sched_find(E810Sched *sc, uint32_t teid)
{
    unsigned int slot = teid & E810_SCHED_SLOT_MASK;

    if (teid == 0 || sc->node[slot].teid != teid) {
        return -1;
    }
    return slot;
}

static uint32_t sched_parent_teid(E810Sched *sc, int slot)
{
    if (slot == E810_SCHED_ROOT_SLOT) {
        return E810_SCHED_NO_TEID;
    }
    return sc->node[sc->node[slot].parent].teid;
}

/* Room under PARENT for N more children. */
static bool sched_has_room(E810Sched *sc, int parent, unsigned int n)
{
    E810SchedNode *p = &sc->node[parent];

    if (p->layer >= E810_SCHED_L_LEAF) {
        return false;
    }
    return p->nchildren + n <= e810_sched_sibl[p->layer + 1] &&
           sc->nused + n <= E810_SCHED_MAX_NODES;
}

static void sched_default_data(uint8_t *d, uint8_t type)
{
    memset(d, 0, E810_ELEM_DATA_SIZE);
    d[E810_ELEM_TYPE] = type;
    d[E810_ELEM_VALID] = E810_ELEM_VALID_GENERIC | E810_ELEM_VALID_CIR |
                         E810_ELEM_VALID_EIR;
    e810_put16(d, E810_ELEM_CIR_PROF, E810_RL_DFLT_ID);
    e810_put16(d, E810_ELEM_CIR_ALLOC, E810_ELEM_DFLT_WEIGHT);
    e810_put16(d, E810_ELEM_EIR_PROF, E810_RL_DFLT_ID);
    e810_put16(d, E810_ELEM_EIR_ALLOC, E810_ELEM_DFLT_WEIGHT);
}

/*
 * A new node under PARENT (-1: the root), its slot; -1 when the table is
 * full.  The caller has checked the parent's room.
 */
static int sched_alloc(E810Sched *sc, int parent, E810SchedKind kind,
                       uint8_t type)
{
    E810SchedNode *n;
    int slot;

    for (slot = 0; slot < E810_SCHED_MAX_NODES; slot++) {
        if (!sc->node[slot].teid) {
            break;
        }
    }
    if (slot == E810_SCHED_MAX_NODES) {
        return -1;
    }
    n = &sc->node[slot];
    n->gen = (n->gen + 1) & E810_SCHED_GEN_MASK;
    if (!n->gen) {
        n->gen = 1;
    }
    n->teid = (n->gen << E810_SCHED_SLOT_BITS) | slot;
    n->nchildren = 0;
    n->qset_id = 0;
    n->kind = kind;
    if (parent < 0) {
        n->parent = slot;
        n->layer = E810_SCHED_L_ROOT;
    } else {
        n->parent = parent;
        n->layer = sc->node[parent].layer + 1;
        sc->node[parent].nchildren++;
    }
    sched_default_data(n->data, type);
    sc->nused++;
    return slot;
}

/* Free a childless node (the generation stays, for the next TEID). */
static void sched_free(E810Sched *sc, int slot)
{
    E810SchedNode *n = &sc->node[slot];

    if (slot != E810_SCHED_ROOT_SLOT) {
        sc->node[n->parent].nchildren--;
    }
    n->teid = 0;
    n->kind = E810_SCHED_FREE;
    n->nchildren = 0;
    sc->nused--;
}

/* The child of SLOT in the lowest slot, or -1. */
static int sched_first_child(E810Sched *sc, int slot)
{
    int i;

    if (!sc->node[slot].nchildren) {
        return -1;
    }
    for (i = 0; i < E810_SCHED_MAX_NODES; i++) {
        if (i != slot && sc->node[i].teid && sc->node[i].parent == slot) {
            return i;
        }
    }
    return -1;
}

static void sched_put_elem(E810Sched *sc, int slot, uint8_t *p)
{
    e810_put32(p, E810_ED_PARENT, sched_parent_teid(sc, slot));
    e810_put32(p, E810_ED_TEID, sc->node[slot].teid);
    memcpy(p + E810_ED_DATA, sc->node[slot].data, E810_ELEM_DATA_SIZE);
}

/*
 * Take the configurable part of element data D: the valid sections,
 * generic, CIR, EIR and shared limit.  The type and the flags are the
 * firmware's (reserved in what the driver sends).
 */
static void sched_set_data(E810SchedNode *n, const uint8_t *d)
{
    n->data[E810_ELEM_VALID] = d[E810_ELEM_VALID];
    n->data[E810_ELEM_GENERIC] = d[E810_ELEM_GENERIC];
    memcpy(n->data + E810_ELEM_CIR_PROF, d + E810_ELEM_CIR_PROF,
           E810_ELEM_DATA_SIZE - E810_ELEM_CIR_PROF);
}

/*
 * The firmware's default tree: one branch, one node a layer, the entry
 * point at layer 2 and a leaf at the bottom.
 */
static void sched_build_default(E810Sched *sc)
{
    int slot;
    int layer;

    memset(sc, 0, sizeof(*sc));
    sc->next_prof_id = E810_RL_DFLT_ID + 1;

    slot = sched_alloc(sc, -1, E810_SCHED_FW, E810_ELEM_ROOT_PORT);
    slot = sched_alloc(sc, slot, E810_SCHED_FW, E810_ELEM_TC);
    slot = sched_alloc(sc, slot, E810_SCHED_FW, E810_ELEM_ENTRY_POINT);
    for (layer = E810_SCHED_L_ENTRY + 1; layer < E810_SCHED_L_LEAF; layer++) {
        slot = sched_alloc(sc, slot, E810_SCHED_FW, E810_ELEM_SE_GENERIC);
    }
    sched_alloc(sc, slot, E810_SCHED_FW, E810_ELEM_LEAF);
}

/* The TC node of TC 0 (the only one): the root's child. */
static int sched_tc_node(E810Sched *sc)
{
    return sched_first_child(sc, E810_SCHED_ROOT_SLOT);
}

static void sched_set_resp(E810Cmd *c, uint16_t n)
{
    e810_put16(e810_cmd_param(c, E810_SCHED_P_NUM_RESP), 0, n);
}

static uint16_t sched_num_req(E810Cmd *c)
{
    return e810_get16(e810_cmd_param(c, E810_SCHED_P_NUM_REQ), 0);
}

/*
 * 0x0400: the default topology.  The port number is not checked: the PF
 * has one port, whatever number the switch configuration gave it.  The
 * branch is the chain of first children from the root, which after a
 * reset is the whole default tree.
 */
static uint16_t sched_get_dflt_topo(E810State *s, E810Cmd *c)
{
    E810Sched *sc = s->sched;
    int slot = E810_SCHED_ROOT_SLOT;
    unsigned int n = 0;
    uint8_t *br = c->buf;

    if (!br || c->buf_len < E810_TOPO_BRANCH_SIZE) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "e810: get default topology: buffer of %u bytes\n",
                      c->buf_len);
        return E810_AQ_RC_EINVAL;
    }
    memset(br, 0, E810_TOPO_BRANCH_SIZE);
    e810_put32(br, E810_GRP_PARENT, E810_SCHED_NO_TEID);
    while (slot >= 0 && n < E810_SCHED_LAYERS) {
        sched_put_elem(sc, slot, br + E810_GRP_HDR_SIZE + n * E810_ED_SIZE);
        n++;
        slot = sched_first_child(sc, slot);
    }
    e810_put16(br, E810_GRP_NUM, n);
    *e810_cmd_param(c, E810_TOPO_P_BRANCHES) = 1;
    c->out_len = E810_TOPO_BRANCH_SIZE;
    return E810_AQ_RC_OK;
}

/* 0x0412: the layers and what each takes. */
static uint16_t sched_query_res(E810State *s, E810Cmd *c)
{
    uint8_t *b = c->buf;
    int l;

    if (!b || c->buf_len < E810_RES_SIZE) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "e810: query scheduler resources: buffer of %u bytes\n",
                      c->buf_len);
        return E810_AQ_RC_EINVAL;
    }
    memset(b, 0, E810_RES_SIZE);
    e810_put16(b, E810_RES_PHYS_LEVELS, E810_SCHED_LAYERS);
    e810_put16(b, E810_RES_LOGIC_LEVELS, E810_SCHED_LAYERS);
    b[E810_RES_MAX_DEV_CGDS] = 1;
    b[E810_RES_MAX_PF_CGDS] = 1;
    e810_put16(b, E810_RES_RDMA_QSETS, E810_SCHED_MAX_QSETS);
    for (l = 0; l < E810_SCHED_LAYERS; l++) {
        uint8_t *p = b + E810_RES_LAYER(l);
        uint16_t nprof = l == E810_SCHED_L_ROOT ? 0 : E810_RL_PER_LAYER;

        p[E810_LAYER_LOGICAL] = l;
        e810_put16(p, E810_LAYER_MAX_DEV, E810_SCHED_MAX_NODES);
        e810_put16(p, E810_LAYER_MAX_PF, E810_SCHED_MAX_NODES);
        e810_put16(p, E810_LAYER_MAX_SIBL, e810_sched_sibl[l]);
        e810_put16(p, E810_LAYER_MAX_CIR, nprof);
        e810_put16(p, E810_LAYER_MAX_EIR, nprof);
        e810_put16(p, E810_LAYER_MAX_SRL, nprof);
    }
    c->out_len = E810_RES_SIZE;
    return E810_AQ_RC_OK;
}

/* 0x0404: elements by TEID (the buffer holds the TEIDs asked for). */
static uint16_t sched_get_elems(E810State *s, E810Cmd *c)
{
    E810Sched *sc = s->sched;
    unsigned int n = sched_num_req(c);
    unsigned int i;

    if (!n || !c->buf || n * E810_ED_SIZE > c->buf_len) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "e810: get elements: %u in %u bytes\n", n, c->buf_len);
        return E810_AQ_RC_EINVAL;
    }
    for (i = 0; i < n; i++) {
        uint8_t *e = c->buf + i * E810_ED_SIZE;
        uint32_t teid = e810_get32(e, E810_ED_TEID);
        int slot = sched_find(sc, teid);

        if (slot < 0) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "e810: get elements: no TEID 0x%x\n", teid);
            sched_set_resp(c, i);
            c->out_len = i * E810_ED_SIZE;
            return E810_AQ_RC_EINVAL;
        }
        sched_put_elem(sc, slot, e);
    }
    sched_set_resp(c, n);
    c->out_len = n * E810_ED_SIZE;
    return E810_AQ_RC_OK;
}

/*
 * One group of add elements at *OFF: N generic elements under a parent
 * of layers 1-6 (the driver's part of the tree, entry layer to queue
 * group layer).  All or none; their TEIDs go into the buffer.
 */
static uint16_t sched_add_group(E810Sched *sc, E810Cmd *c, unsigned int *off)
{
    uint8_t *g = c->buf + *off;
    unsigned int n, end, i;
    uint32_t parent_teid;
    int parent;

    if (*off + E810_GRP_HDR_SIZE > c->buf_len) {
        return E810_AQ_RC_EINVAL;
    }
    parent_teid = e810_get32(g, E810_GRP_PARENT);
    n = e810_get16(g, E810_GRP_NUM);
    end = *off + E810_GRP_HDR_SIZE + n * E810_ED_SIZE;
    if (!n || end > c->buf_len) {
        return E810_AQ_RC_EINVAL;
    }
    parent = sched_find(sc, parent_teid);
    if (parent < 0 || sc->node[parent].layer < E810_SCHED_L_ENTRY - 1 ||
        sc->node[parent].layer >= E810_SCHED_L_QGRP) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "e810: add elements: parent 0x%x takes none\n",
                      parent_teid);
        return E810_AQ_RC_EINVAL;
    }
    for (i = 0; i < n; i++) {
        uint8_t *e = g + E810_GRP_HDR_SIZE + i * E810_ED_SIZE;

        if (e810_get32(e, E810_ED_PARENT) != parent_teid ||
            e[E810_ED_DATA + E810_ELEM_TYPE] != E810_ELEM_SE_GENERIC) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "e810: add elements: element %u is no generic "
                          "element of 0x%x\n", i, parent_teid);
            return E810_AQ_RC_EINVAL;
        }
    }
    if (!sched_has_room(sc, parent, n)) {
        return E810_AQ_RC_ENOSPC;
    }
    for (i = 0; i < n; i++) {
        uint8_t *e = g + E810_GRP_HDR_SIZE + i * E810_ED_SIZE;
        int slot = sched_alloc(sc, parent, E810_SCHED_SE,
                               E810_ELEM_SE_GENERIC);

        sched_set_data(&sc->node[slot], e + E810_ED_DATA);
        e810_put32(e, E810_ED_TEID, sc->node[slot].teid);
    }
    *off = end;
    return E810_AQ_RC_OK;
}

/* One group of an element command at *OFF, which it moves past. */
typedef uint16_t (*SchedGroupFn)(E810Sched *sc, E810Cmd *c, unsigned int *off);

/*
 * NGRP groups (at least one, in a buffer), in order, until one fails;
 * *DONE says how many went through (their changes stay, as the
 * firmware's do).
 */
static uint16_t sched_groups(E810State *s, E810Cmd *c, unsigned int ngrp,
                             SchedGroupFn fn, unsigned int *done)
{
    unsigned int off = 0;
    uint16_t rc = E810_AQ_RC_OK;

    for (*done = 0; *done < ngrp; (*done)++) {
        rc = fn(s->sched, c, &off);
        if (rc) {
            break;
        }
    }
    return rc;
}

/*
 * The generic element commands: groups counted in the parameters, the
 * answer the number of groups that went through.
 */
static uint16_t sched_elem_groups(E810State *s, E810Cmd *c, SchedGroupFn fn)
{
    unsigned int ngrp = sched_num_req(c), done;
    uint16_t rc;

    if (!ngrp || !c->buf) {
        return E810_AQ_RC_EINVAL;
    }
    rc = sched_groups(s, c, ngrp, fn, &done);
    sched_set_resp(c, done);
    return rc;
}

/* 0x0401: the new TEIDs go into the buffer. */
static uint16_t sched_add_elems(E810State *s, E810Cmd *c)
{
    uint16_t rc = sched_elem_groups(s, c, sched_add_group);

    if (c->buf) {
        c->out_len = c->buf_len;
    }
    return rc;
}

/*
 * The elements delete elements takes: the driver's, and the firmware's
 * default chain below the TC node (the driver removes it at start).  A
 * queue's or queue set's leaf goes with its queue (0x0C31).
 */
static uint16_t sched_check_delete(E810Sched *sc, int slot, int parent)
{
    E810SchedNode *n = &sc->node[slot];

    if (n->parent != parent || slot == E810_SCHED_ROOT_SLOT) {
        return E810_AQ_RC_EINVAL;
    }
    if (n->kind == E810_SCHED_TXQ || n->kind == E810_SCHED_QSET ||
        n->layer < E810_SCHED_L_ENTRY) {
        return E810_AQ_RC_EPERM;
    }
    if (n->nchildren) {
        return E810_AQ_RC_EBUSY;
    }
    return E810_AQ_RC_OK;
}

/* One group of delete elements at *OFF: all or none. */
static uint16_t sched_delete_group(E810Sched *sc, E810Cmd *c,
                                   unsigned int *off)
{
    uint8_t *g = c->buf + *off;
    unsigned int n, end, i;
    uint32_t parent_teid;
    int parent;

    if (*off + E810_GRP_HDR_SIZE > c->buf_len) {
        return E810_AQ_RC_EINVAL;
    }
    parent_teid = e810_get32(g, E810_GRP_PARENT);
    n = e810_get16(g, E810_GRP_NUM);
    end = *off + E810_GRP_HDR_SIZE + n * 4;
    if (!n || end > c->buf_len) {
        return E810_AQ_RC_EINVAL;
    }
    parent = sched_find(sc, parent_teid);
    if (parent < 0) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "e810: delete elements: no parent 0x%x\n", parent_teid);
        return E810_AQ_RC_EINVAL;
    }
    for (i = 0; i < n; i++) {
        uint32_t teid = e810_get32(g, E810_GRP_HDR_SIZE + i * 4);
        int slot = sched_find(sc, teid);
        uint16_t rc;

        rc = slot < 0 ? E810_AQ_RC_EINVAL :
                        sched_check_delete(sc, slot, parent);
        if (rc) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "e810: delete elements: 0x%x under 0x%x: %u\n",
                          teid, parent_teid, rc);
            return rc;
        }
    }
    for (i = 0; i < n; i++) {
        int slot = sched_find(sc, e810_get32(g, E810_GRP_HDR_SIZE + i * 4));

        /* Looked up again: a TEID named twice is gone the second time. */
        if (slot >= 0) {
            sched_free(sc, slot);
        }
    }
    *off = end;
    return E810_AQ_RC_OK;
}

/* 0x040F: the answer is the number of groups deleted. */
static uint16_t sched_delete_elems(E810State *s, E810Cmd *c)
{
    return sched_elem_groups(s, c, sched_delete_group);
}

/*
 * One group of move elements at *OFF: children of one parent to another
 * of the same layer (the driver moves a VSI node under its aggregator).
 * All or none.
 */
static uint16_t sched_move_group(E810Sched *sc, E810Cmd *c, unsigned int *off)
{
    uint8_t *g = c->buf + *off;
    unsigned int n, end, i;
    int src, dst;

    if (*off + E810_MOVE_HDR_SIZE > c->buf_len) {
        return E810_AQ_RC_EINVAL;
    }
    src = sched_find(sc, e810_get32(g, E810_MOVE_SRC));
    dst = sched_find(sc, e810_get32(g, E810_MOVE_DST));
    n = e810_get16(g, E810_MOVE_NUM);
    end = *off + E810_MOVE_HDR_SIZE + n * 4;
    if (!n || end > c->buf_len) {
        return E810_AQ_RC_EINVAL;
    }
    /* TC nodes stay under the root, and leaves have no children. */
    if (src < 0 || dst < 0 || sc->node[src].layer != sc->node[dst].layer ||
        sc->node[dst].layer < E810_SCHED_L_TC ||
        sc->node[dst].layer >= E810_SCHED_L_LEAF) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "e810: move elements: from 0x%x to 0x%x\n",
                      e810_get32(g, E810_MOVE_SRC),
                      e810_get32(g, E810_MOVE_DST));
        return E810_AQ_RC_EINVAL;
    }
    for (i = 0; i < n; i++) {
        int slot = sched_find(sc, e810_get32(g, E810_MOVE_HDR_SIZE + i * 4));

        if (slot < 0 || sc->node[slot].parent != src) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "e810: move elements: 0x%x is no child of 0x%x\n",
                          e810_get32(g, E810_MOVE_HDR_SIZE + i * 4),
                          sc->node[src].teid);
            return E810_AQ_RC_EINVAL;
        }
    }
    if (src != dst && sc->node[dst].nchildren + n >
                      e810_sched_sibl[sc->node[dst].layer + 1]) {
        return E810_AQ_RC_ENOSPC;
    }
    for (i = 0; i < n; i++) {
        int slot = sched_find(sc, e810_get32(g, E810_MOVE_HDR_SIZE + i * 4));

        /* A TEID named twice has moved already. */
        if (slot >= 0 && sc->node[slot].parent == src && src != dst) {
            sc->node[src].nchildren--;
            sc->node[dst].nchildren++;
            sc->node[slot].parent = dst;
        }
    }
    *off = end;
    return E810_AQ_RC_OK;
}

/* 0x0408: the answer is the number of groups moved. */
static uint16_t sched_move_elems(E810State *s, E810Cmd *c)
{
    return sched_elem_groups(s, c, sched_move_group);
}

/*
 * 0x0403: new data for elements (weights, priorities, rate limit
 * profiles).  Kept and reported back; the model does not shape traffic.
 */
static uint16_t sched_cfg_elems(E810State *s, E810Cmd *c)
{
    E810Sched *sc = s->sched;
    unsigned int n = sched_num_req(c);
    unsigned int i;

    if (!n || !c->buf || n * E810_ED_SIZE > c->buf_len) {
        return E810_AQ_RC_EINVAL;
    }
    for (i = 0; i < n; i++) {
        uint8_t *e = c->buf + i * E810_ED_SIZE;
        int slot = sched_find(sc, e810_get32(e, E810_ED_TEID));

        if (slot < 0) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "e810: configure elements: no TEID 0x%x\n",
                          e810_get32(e, E810_ED_TEID));
            sched_set_resp(c, i);
            return E810_AQ_RC_EINVAL;
        }
        sched_set_data(&sc->node[slot], e + E810_ED_DATA);
    }
    sched_set_resp(c, n);
    return E810_AQ_RC_OK;
}

/* 0x0409 and 0x040A: the buffer is a list of TEIDs; all or none. */
static uint16_t sched_suspend_resume(E810State *s, E810Cmd *c, bool suspend)
{
    E810Sched *sc = s->sched;
    unsigned int n = sched_num_req(c);
    unsigned int i;

    if (!n || !c->buf || n * 4 > c->buf_len) {
        return E810_AQ_RC_EINVAL;
    }
    for (i = 0; i < n; i++) {
        if (sched_find(sc, e810_get32(c->buf, i * 4)) < 0) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "e810: suspend/resume elements: no TEID 0x%x\n",
                          e810_get32(c->buf, i * 4));
            sched_set_resp(c, 0);
            return E810_AQ_RC_EINVAL;
        }
    }
    for (i = 0; i < n; i++) {
        uint8_t *d = sc->node[sched_find(sc, e810_get32(c->buf, i * 4))].data;

        if (suspend) {
            d[E810_ELEM_FLAGS] |= E810_ELEM_FLAG_SUSPEND;
        } else {
            d[E810_ELEM_FLAGS] &= ~E810_ELEM_FLAG_SUSPEND;
        }
    }
    sched_set_resp(c, n);
    return E810_AQ_RC_OK;
}

static uint16_t sched_suspend_elems(E810State *s, E810Cmd *c)
{
    return sched_suspend_resume(s, c, true);
}

static uint16_t sched_resume_elems(E810State *s, E810Cmd *c)
{
    return sched_suspend_resume(s, c, false);
}

/*
 * 0x040E: the port's ETS configuration.  DCB is off: TC 0 alone, every
 * user priority on it, all the bandwidth; the other TCs' TEIDs are
 * "none", which the driver skips (any other value it looks up).
 */
static uint16_t sched_query_port_ets(E810State *s, E810Cmd *c)
{
    E810Sched *sc = s->sched;
    uint32_t port = e810_get32(e810_cmd_param(c, E810_ETS_P_PORT_TEID), 0);
    int tc = sched_tc_node(sc);
    int i;

    if (!c->buf || c->buf_len < E810_ETS_SIZE) {
        return E810_AQ_RC_EINVAL;
    }
    if (port != sc->node[E810_SCHED_ROOT_SLOT].teid) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "e810: query port ETS: 0x%x is no root\n", port);
        return E810_AQ_RC_EINVAL;
    }
    memset(c->buf, 0, E810_ETS_SIZE);
    c->buf[E810_ETS_TC_VALID] = tc >= 0 ? BIT(0) : 0;
    c->buf[E810_ETS_BW_SHARE] = 100;
    for (i = 0; i < E810_MAX_TC; i++) {
        e810_put32(c->buf, E810_ETS_TC_TEID(i),
                   i == 0 && tc >= 0 ? sc->node[tc].teid : E810_SCHED_NO_TEID);
    }
    c->out_len = E810_ETS_SIZE;
    return E810_AQ_RC_OK;
}

static unsigned int rl_type(const uint8_t *e)
{
    return e[E810_RL_FLAGS] & E810_RL_TYPE_MASK;
}

static bool rl_id_used(E810Sched *sc, uint16_t id)
{
    int i;

    for (i = 0; i < E810_RL_MAX; i++) {
        if (sc->prof[i].used &&
            e810_get16(sc->prof[i].elem, E810_RL_ID) == id) {
            return true;
        }
    }
    return id == E810_RL_DFLT_ID || id == E810_RL_NO_ID;
}

static uint16_t rl_new_id(E810Sched *sc)
{
    while (rl_id_used(sc, sc->next_prof_id)) {
        sc->next_prof_id++;
    }
    return sc->next_prof_id++;
}

/* The free entry for a profile of LEVEL and TYPE, or -1 (layer full). */
static int rl_free_entry(E810Sched *sc, uint8_t level, unsigned int type)
{
    int i, free_i = -1, count = 0;

    for (i = 0; i < E810_RL_MAX; i++) {
        E810RlProfile *p = &sc->prof[i];

        if (!p->used) {
            free_i = free_i < 0 ? i : free_i;
        } else if (p->elem[E810_RL_LEVEL] == level &&
                   rl_type(p->elem) == type) {
            count++;
        }
    }
    return count < E810_RL_PER_LAYER ? free_i : -1;
}

/*
 * 0x0410: rate limit profiles, one a 12-byte entry; each gets an ID,
 * written into its entry.  Levels are layers + 1; the root's takes none.
 */
static uint16_t sched_add_rl_profiles(E810State *s, E810Cmd *c)
{
    E810Sched *sc = s->sched;
    unsigned int n = sched_num_req(c);
    unsigned int i;

    if (!n || !c->buf || n * E810_RL_SIZE > c->buf_len) {
        return E810_AQ_RC_EINVAL;
    }
    c->out_len = n * E810_RL_SIZE;
    for (i = 0; i < n; i++) {
        uint8_t *e = c->buf + i * E810_RL_SIZE;
        uint8_t level = e[E810_RL_LEVEL];
        int slot;

        sched_set_resp(c, i);
        if (level < E810_SCHED_L_TC + 1 || level > E810_SCHED_LAYERS ||
            rl_type(e) >= E810_RL_TYPES) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "e810: add RL profile: level %u type %u\n",
                          level, rl_type(e));
            return E810_AQ_RC_EINVAL;
        }
        slot = rl_free_entry(sc, level, rl_type(e));
        if (slot < 0) {
            return E810_AQ_RC_ENOSPC;
        }
        e810_put16(e, E810_RL_ID, rl_new_id(sc));
        sc->prof[slot].used = true;
        memcpy(sc->prof[slot].elem, e, E810_RL_SIZE);
    }
    sched_set_resp(c, n);
    return E810_AQ_RC_OK;
}

/* Whether a node of the profile's layer still names it. */
static bool rl_in_use(E810Sched *sc, const uint8_t *prof)
{
    uint16_t id = e810_get16(prof, E810_RL_ID);
    static const struct {
        uint8_t valid;
        uint8_t off;
    } field[E810_RL_TYPES] = {
        [E810_RL_CIR] = { E810_ELEM_VALID_CIR, E810_ELEM_CIR_PROF },
        [E810_RL_EIR] = { E810_ELEM_VALID_EIR, E810_ELEM_EIR_PROF },
        [E810_RL_SRL] = { E810_ELEM_VALID_SHARED, E810_ELEM_SRL_ID },
    };
    unsigned int t = rl_type(prof);
    int i;

    for (i = 0; i < E810_SCHED_MAX_NODES; i++) {
        E810SchedNode *n = &sc->node[i];

        if (n->teid && n->layer + 1 == prof[E810_RL_LEVEL] &&
            (n->data[E810_ELEM_VALID] & field[t].valid) &&
            e810_get16(n->data, field[t].off) == id) {
            return true;
        }
    }
    return false;
}

/* 0x0415: remove profiles, matched by level, type and ID. */
static uint16_t sched_remove_rl_profiles(E810State *s, E810Cmd *c)
{
    E810Sched *sc = s->sched;
    unsigned int n = sched_num_req(c);
    unsigned int i;

    if (!n || !c->buf || n * E810_RL_SIZE > c->buf_len) {
        return E810_AQ_RC_EINVAL;
    }
    for (i = 0; i < n; i++) {
        const uint8_t *e = c->buf + i * E810_RL_SIZE;
        int j;

        sched_set_resp(c, i);
        for (j = 0; j < E810_RL_MAX; j++) {
            const uint8_t *p = sc->prof[j].elem;

            if (sc->prof[j].used && p[E810_RL_LEVEL] == e[E810_RL_LEVEL] &&
                rl_type(p) == rl_type(e) &&
                e810_get16(p, E810_RL_ID) == e810_get16(e, E810_RL_ID)) {
                break;
            }
        }
        if (j == E810_RL_MAX) {
            return E810_AQ_RC_ENOENT;
        }
        if (rl_in_use(sc, sc->prof[j].elem)) {
            return E810_AQ_RC_EBUSY;
        }
        sc->prof[j].used = false;
    }
    sched_set_resp(c, n);
    return E810_AQ_RC_OK;
}

static bool sched_qset_named(E810Sched *sc, int parent, uint16_t id)
{
    int i;

    for (i = 0; i < E810_SCHED_MAX_NODES; i++) {
        E810SchedNode *n = &sc->node[i];

        if (n->teid && n->kind == E810_SCHED_QSET && n->parent == parent &&
            n->qset_id == id) {
            return true;
        }
    }
    return false;
}

static unsigned int sched_num_qsets(E810Sched *sc)
{
    unsigned int i, count = 0;

    for (i = 0; i < E810_SCHED_MAX_NODES; i++) {
        count += sc->node[i].teid && sc->node[i].kind == E810_SCHED_QSET;
    }
    return count;
}

/*
 * Whether the N queue sets of group G can go under PARENT: a queue group
 * node with room, IDs that name no other set of the parent (disabling
 * one names it by parent and ID).
 */
static uint16_t sched_check_qsets(E810Sched *sc, const uint8_t *g,
                                  unsigned int n, int parent)
{
    unsigned int i, j;

    if (parent < 0 || sc->node[parent].layer != E810_SCHED_L_QGRP) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "e810: add RDMA qset: parent 0x%x is no queue group\n",
                      e810_get32(g, E810_QSET_GRP_PARENT));
        return E810_AQ_RC_EINVAL;
    }
    for (i = 0; i < n; i++) {
        const uint8_t *e = g + E810_QSET_GRP_HDR_SIZE + i * E810_QSET_SIZE;
        uint16_t id = e810_get16(e, E810_QSET_ID);

        for (j = 0; j < i; j++) {
            if (e810_get16(g, E810_QSET_GRP_HDR_SIZE + j * E810_QSET_SIZE +
                           E810_QSET_ID) == id) {
                return E810_AQ_RC_EEXIST;
            }
        }
        if (sched_qset_named(sc, parent, id)) {
            return E810_AQ_RC_EEXIST;
        }
    }
    if (!sched_has_room(sc, parent, n) ||
        sched_num_qsets(sc) + n > E810_SCHED_MAX_QSETS) {
        return E810_AQ_RC_ENOSPC;
    }
    return E810_AQ_RC_OK;
}

/* One group of add RDMA queue sets at *OFF: all or none. */
static uint16_t sched_qset_group(E810Sched *sc, E810Cmd *c, unsigned int *off)
{
    uint8_t *g = c->buf + *off;
    unsigned int n, end, i;
    uint16_t rc;
    int parent;

    if (*off + E810_QSET_GRP_HDR_SIZE > c->buf_len) {
        return E810_AQ_RC_EINVAL;
    }
    parent = sched_find(sc, e810_get32(g, E810_QSET_GRP_PARENT));
    n = e810_get16(g, E810_QSET_GRP_NUM);
    end = *off + E810_QSET_GRP_HDR_SIZE + n * E810_QSET_SIZE;
    if (!n || end > c->buf_len) {
        return E810_AQ_RC_EINVAL;
    }
    rc = sched_check_qsets(sc, g, n, parent);
    if (rc) {
        return rc;
    }
    for (i = 0; i < n; i++) {
        uint8_t *e = g + E810_QSET_GRP_HDR_SIZE + i * E810_QSET_SIZE;
        int slot = sched_alloc(sc, parent, E810_SCHED_QSET, E810_ELEM_LEAF);

        sc->node[slot].qset_id = e810_get16(e, E810_QSET_ID);
        sched_set_data(&sc->node[slot], e + E810_QSET_INFO);
        e810_put32(e, E810_QSET_TEID, sc->node[slot].teid);
    }
    *off = end;
    return E810_AQ_RC_OK;
}

/*
 * 0x0C33: RDMA queue sets, leaves under queue group nodes; the TEIDs go
 * into the buffer.  They are disabled with 0x0C31 (e810-lan.c), which
 * names them by parent and ID: e810_sched_del_qset().
 */
static uint16_t sched_add_rdma_qset(E810State *s, E810Cmd *c)
{
    unsigned int ngrp = *e810_cmd_param(c, E810_QSET_P_NUM_GRPS), done;
    uint16_t rc;

    if (!ngrp || !c->buf) {
        return E810_AQ_RC_EINVAL;
    }
    rc = sched_groups(s, c, ngrp, sched_qset_group, &done);
    c->out_len = c->buf_len;
    return rc;
}

/* The other parts' interface (e810.h): e810-lan.c's 0x0C30 and 0x0C31. */

uint32_t e810_sched_add_leaf(E810State *s, uint32_t parent)
{
    E810Sched *sc = s->sched;
    int p = sched_find(sc, parent);
    int slot;

    if (p < 0 || sc->node[p].layer != E810_SCHED_L_QGRP ||
        !sched_has_room(sc, p, 1)) {
        return 0;
    }
    slot = sched_alloc(sc, p, E810_SCHED_TXQ, E810_ELEM_LEAF);
    return slot < 0 ? 0 : sc->node[slot].teid;
}

bool e810_sched_del_leaf(E810State *s, uint32_t teid)
{
    E810Sched *sc = s->sched;
    int slot = sched_find(sc, teid);

    if (slot < 0 || sc->node[slot].layer != E810_SCHED_L_LEAF) {
        return false;
    }
    sched_free(sc, slot);
    return true;
}

/*
 * Disable an RDMA queue set: the one named QSET_ID (without 0x0C31's
 * type bit) under the queue group PARENT.  False when there is none.
 */
bool e810_sched_del_qset(E810State *s, uint32_t parent, uint16_t qset_id)
{
    E810Sched *sc = s->sched;
    int p = sched_find(sc, parent);
    int i;

    if (p < 0) {
        return false;
    }
    for (i = 0; i < E810_SCHED_MAX_NODES; i++) {
        E810SchedNode *n = &sc->node[i];

        if (n->teid && n->kind == E810_SCHED_QSET && n->parent == p &&
            n->qset_id == qset_id) {
            sched_free(sc, i);
            return true;
        }
    }
    return false;
}

void e810_sched_realize(E810State *s)
{
    s->sched = g_new0(E810Sched, 1);
    sched_build_default(s->sched);
}

void e810_sched_unrealize(E810State *s)
{
    g_free(s->sched);
    s->sched = NULL;
}

/*
 * After a reset the firmware's default tree is back, with the same
 * TEIDs as at power-on: the driver reads the tree anew and keeps no
 * TEID across a reset.
 */
void e810_sched_reset(E810State *s)
{
    sched_build_default(s->sched);
}

const E810AqOp e810_sched_ops[] = {
    { E810_AQC_GET_DFLT_TOPO, "get default topology", sched_get_dflt_topo },
    { E810_AQC_ADD_SCHED_ELEMS, "add scheduler elements", sched_add_elems },
    { E810_AQC_CFG_SCHED_ELEMS, "configure scheduler elements",
      sched_cfg_elems },
    { E810_AQC_GET_SCHED_ELEMS, "get scheduler elements", sched_get_elems },
    { E810_AQC_MOVE_SCHED_ELEMS, "move scheduler elements",
      sched_move_elems },
    { E810_AQC_SUSPEND_SCHED_ELEMS, "suspend scheduler elements",
      sched_suspend_elems },
    { E810_AQC_RESUME_SCHED_ELEMS, "resume scheduler elements",
      sched_resume_elems },
    { E810_AQC_QUERY_PORT_ETS, "query port ETS", sched_query_port_ets },
    { E810_AQC_DELETE_SCHED_ELEMS, "delete scheduler elements",
      sched_delete_elems },
    { E810_AQC_ADD_RL_PROFILES, "add RL profiles", sched_add_rl_profiles },
    { E810_AQC_QUERY_SCHED_RES, "query scheduler resources",
      sched_query_res },
    { E810_AQC_REMOVE_RL_PROFILES, "remove RL profiles",
      sched_remove_rl_profiles },
    { E810_AQC_ADD_RDMA_QSET, "add RDMA queue sets", sched_add_rdma_qset },
    { 0, NULL, NULL },
};
