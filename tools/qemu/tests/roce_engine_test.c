/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit test of the RoCEv2 engine (tools/qemu/hw/roce/), built on the
 * host by roce_engine_test.sh: two engines with a tiny fake front end
 * each (guest memory = malloc'd buffers, keys = a table, time = a
 * virtual clock), wired back to back through a frame queue that can
 * drop, duplicate and reorder frames.  Prints KTAP.
 *
 *   roce_engine_test [-p PCAP] [-s SEED] [-v]
 *
 * -p writes the frames of the "capture" case to PCAP, for
 * roce_capture_check.py.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "roce.h"

#define SQ_SIZE     256
#define RQ_SIZE     256
#define MAX_QP      4
#define MAX_MR      16
#define MAX_CQE     1024
#define QUEUE_MAX   8192

/* The fake memory key's rights. */
#define MR_LOCAL_WRITE      1
#define MR_REMOTE_WRITE     2
#define MR_REMOTE_READ      4
#define MR_REMOTE_ATOMIC    8
#define MR_ALL              15

typedef struct FakeDev FakeDev;

typedef struct FakeMR {
    bool valid;
    uint32_t key;
    uint8_t *buf;
    uint64_t len;
    uint32_t access;
} FakeMR;

typedef struct FakeQP {
    RoceQP rq;
    FakeDev *dev;
    RoceQPAttr attr;
    bool use_srq;
    RoceSendWR *sq;
    uint32_t sq_pi;
    RoceRecvWR rqq[RQ_SIZE];
    uint32_t rq_pi, rq_ci;
    int64_t timer;              /* -1: not armed */
    bool sched;
    RoceCompletion scq[MAX_CQE];
    unsigned int n_scq;
    RoceCompletion rcq[MAX_CQE];
    unsigned int n_rcq;
    unsigned int errors;        /* qp_error calls */
    unsigned int local_ops;
} FakeQP;

struct FakeDev {
    RoceEngine eng;
    int id;
    FakeDev *peer;
    uint8_t mac[6];
    uint8_t gid4[16], gid6[16];
    FakeMR mr[MAX_MR];
    FakeQP *qp[MAX_QP];
    RoceRecvWR srq[RQ_SIZE];
    uint32_t srq_pi, srq_ci;
    /* One multicast group: its GID and the QPs attached. */
    uint8_t mgid[16];
    FakeQP *mc[MAX_QP];
    unsigned int n_mc;
};

/* The one XRC SRQ of the fake devices (an XRC target's use_srq). */
#define XRC_SRQN 0x77

/* ---- the wire ---- */

typedef struct Frame {
    FakeDev *dst;
    size_t len;
    uint8_t data[ROCE_FRAME_MAX];
} Frame;

enum { ACT_PASS, ACT_DROP, ACT_DUP, ACT_HOLD };

/* A rule: the nth..nth+count-1 frames of an opcode (-1: any) from dev. */
typedef struct Rule {
    int dev;                    /* -1: either */
    int opcode;                 /* BTH opcode, -1: any */
    int nth;                    /* 1-based */
    int count;                  /* 0: for ever */
    int act;
    int seen;
    int hit;
} Rule;

static Frame *queue;
static unsigned int q_head, q_len;
static Frame held;              /* ACT_HOLD: goes after the next frame */
static Frame dropped;           /* the first frame ACT_DROP took */
static bool have_held;
static Rule rules[8];
static int n_rules;
static int64_t now_ns;
static FILE *pcap;
static bool capture_on;
static unsigned int tx_by_op[256];
static bool verbose;
static unsigned int seed = 1;

static unsigned int rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return seed >> 8;
}

static void diag(const char *fmt, ...)
{
    va_list ap;

    printf("# ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

/* Where the BTH of a frame the engine built is. */
static const uint8_t *frame_bth(const uint8_t *f, size_t len)
{
    size_t off = 12;

    if (len > 14 && f[12] == 0x81 && f[13] == 0x00) {
        off += 4;
    }
    if (len < off + 2) {
        return NULL;
    }
    if (f[off] == 0x08 && f[off + 1] == 0x00) {
        off += 2 + 20 + 8;
    } else {
        off += 2 + 40 + 8;
    }
    return len >= off + 12 ? f + off : NULL;
}

static void pcap_write(const uint8_t *f, size_t len)
{
    uint32_t rec[4];

    rec[0] = (uint32_t)(now_ns / 1000000000);
    rec[1] = (uint32_t)(now_ns % 1000000000 / 1000);
    rec[2] = rec[3] = (uint32_t)len;
    fwrite(rec, sizeof(rec), 1, pcap);
    fwrite(f, len, 1, pcap);
}

static void enqueue(FakeDev *dst, const uint8_t *f, size_t len)
{
    Frame *fr;

    if (q_len == QUEUE_MAX) {
        return;
    }
    fr = &queue[(q_head + q_len++) % QUEUE_MAX];
    fr->dst = dst;
    fr->len = len;
    memcpy(fr->data, f, len);
}

static void wire_tx(FakeDev *src, const uint8_t *f, size_t len)
{
    const uint8_t *bth = frame_bth(f, len);
    int op = bth ? bth[0] : -1;
    int act = ACT_PASS, i;

    if (op >= 0) {
        tx_by_op[op]++;
    }
    if (pcap && capture_on) {
        pcap_write(f, len);
    }
    for (i = 0; i < n_rules; i++) {
        Rule *r = &rules[i];

        if ((r->dev >= 0 && r->dev != src->id) ||
            (r->opcode >= 0 && r->opcode != op)) {
            continue;
        }
        r->seen++;
        if (r->seen >= r->nth && (!r->count || r->seen < r->nth + r->count)) {
            act = r->act;
            r->hit++;
            break;
        }
    }
    if (verbose) {
        diag("t=%lld dev%d tx op 0x%x psn %u %s", (long long)now_ns, src->id,
             op, bth ? (bth[9] << 16 | bth[10] << 8 | bth[11]) : 0,
             act == ACT_DROP ? "DROPPED" : act == ACT_DUP ? "dup" :
             act == ACT_HOLD ? "held" : "");
    }
    switch (act) {
    case ACT_DROP:
        if (!dropped.len) {
            dropped.dst = src->peer;
            dropped.len = len;
            memcpy(dropped.data, f, len);
        }
        return;
    case ACT_DUP:
        enqueue(src->peer, f, len);
        enqueue(src->peer, f, len);
        return;
    case ACT_HOLD:
        held.dst = src->peer;
        held.len = len;
        memcpy(held.data, f, len);
        have_held = true;
        return;
    default:
        enqueue(src->peer, f, len);
        if (have_held) {
            have_held = false;
            enqueue(held.dst, held.data, held.len);
        }
    }
}

static void add_rule(int dev, int opcode, int nth, int count, int act)
{
    Rule *r = &rules[n_rules++];

    memset(r, 0, sizeof(*r));
    r->dev = dev;
    r->opcode = opcode;
    r->nth = nth;
    r->count = count;
    r->act = act;
}

/* ---- the fake front end ---- */

static FakeDev devs[2];

static FakeDev *dev_of(void *opaque)
{
    return opaque;
}

static FakeQP *fq_of(RoceQP *qp)
{
    return qp->opaque;
}

static int64_t fe_now(void *opaque)
{
    (void)opaque;
    return now_ns;
}

static void fe_timer_mod(void *opaque, RoceQP *qp, int64_t t)
{
    (void)opaque;
    fq_of(qp)->timer = t;
}

static void fe_timer_del(void *opaque, RoceQP *qp)
{
    (void)opaque;
    fq_of(qp)->timer = -1;
}

static void fe_schedule(void *opaque, RoceQP *qp)
{
    (void)opaque;
    fq_of(qp)->sched = true;
}

static void fe_tx(void *opaque, RoceQP *qp, const uint8_t *f, size_t len)
{
    (void)qp;
    wire_tx(dev_of(opaque), f, len);
}

static RoceQP *fe_lookup(void *opaque, uint32_t qpn)
{
    FakeDev *d = dev_of(opaque);
    int i;

    for (i = 0; i < MAX_QP; i++) {
        FakeQP *q = d->qp[i];

        if (!q) {
            continue;
        }
        if (qpn == 1 ? q->attr.type == ROCE_QPT_GSI : q->attr.qpn == qpn) {
            return &q->rq;
        }
    }
    return NULL;
}

static unsigned int fe_lookup_mcast(void *opaque, const uint8_t *mgid,
                                    RoceQP **qps, unsigned int max)
{
    FakeDev *d = dev_of(opaque);
    unsigned int i, n = 0;

    if (memcmp(mgid, d->mgid, 16)) {
        return 0;
    }
    for (i = 0; i < d->n_mc && n < max; i++) {
        qps[n++] = &d->mc[i]->rq;
    }
    return n;
}

static int fe_fetch_send(void *opaque, RoceQP *qp, uint32_t index,
                         RoceSendWR *wr)
{
    FakeQP *q = fq_of(qp);

    (void)opaque;
    if ((int32_t)(index - q->sq_pi) >= 0) {
        diag("BUG: fetch of WQE %u beyond the producer %u", index, q->sq_pi);
        return ROCE_WC_LOC_QP_OP_ERR;
    }
    *wr = q->sq[index % SQ_SIZE];
    return 0;
}

static int fe_take_recv(void *opaque, RoceQP *qp, RoceRecvWR *wr, bool flush)
{
    FakeDev *d = dev_of(opaque);
    FakeQP *q = fq_of(qp);

    if (q->use_srq) {
        if (q->attr.xrc == ROCE_XRC_TGT && !flush &&
            qp->xrc_srqn != XRC_SRQN) {
            return -1;
        }
        if (flush || d->srq_ci == d->srq_pi) {
            return 0;
        }
        *wr = d->srq[d->srq_ci++ % RQ_SIZE];
        return 1;
    }
    if (q->rq_ci == q->rq_pi) {
        return 0;
    }
    *wr = q->rqq[q->rq_ci++ % RQ_SIZE];
    return 1;
}

static FakeMR *find_mr(FakeDev *d, uint32_t key)
{
    int i;

    for (i = 0; i < MAX_MR; i++) {
        if (d->mr[i].valid && d->mr[i].key == key) {
            return &d->mr[i];
        }
    }
    return NULL;
}

static int fe_dma(void *opaque, RoceQP *qp, RoceMemOp op, uint32_t key,
                  uint64_t addr, void *buf, size_t len)
{
    FakeMR *mr = find_mr(dev_of(opaque), key);
    static const uint32_t need[] = {
        [ROCE_MEM_GATHER] = 0,
        [ROCE_MEM_SCATTER] = MR_LOCAL_WRITE,
        [ROCE_MEM_REMOTE_READ] = MR_REMOTE_READ,
        [ROCE_MEM_REMOTE_WRITE] = MR_REMOTE_WRITE,
    };
    uint64_t base;

    (void)qp;
    if (!mr) {
        return ROCE_MEM_EKEY;
    }
    if ((mr->access & need[op]) != need[op]) {
        return ROCE_MEM_EACCESS;
    }
    base = (uint64_t)(uintptr_t)mr->buf;
    if (addr < base || len > mr->len || addr - base > mr->len - len) {
        return ROCE_MEM_ERANGE;
    }
    if (buf) {
        if (op == ROCE_MEM_GATHER || op == ROCE_MEM_REMOTE_READ) {
            memcpy(buf, mr->buf + (addr - base), len);
        } else {
            memcpy(mr->buf + (addr - base), buf, len);
        }
    }
    return ROCE_MEM_OK;
}

static int fe_atomic(void *opaque, RoceQP *qp, uint32_t rkey, uint64_t va,
                     bool cmp_swp, uint64_t swap_add, uint64_t compare,
                     uint64_t *orig)
{
    FakeMR *mr = find_mr(dev_of(opaque), rkey);
    uint64_t base, v;
    uint8_t *p;

    (void)qp;
    if (!mr || !(mr->access & MR_REMOTE_ATOMIC)) {
        return mr ? ROCE_MEM_EACCESS : ROCE_MEM_EKEY;
    }
    base = (uint64_t)(uintptr_t)mr->buf;
    if (va < base || mr->len < 8 || va - base > mr->len - 8) {
        return ROCE_MEM_ERANGE;
    }
    p = mr->buf + (va - base);
    memcpy(&v, p, 8);
    *orig = v;
    if (cmp_swp) {
        if (v == compare) {
            v = swap_add;
        }
    } else {
        v += swap_add;
    }
    memcpy(p, &v, 8);
    return ROCE_MEM_OK;
}

static int fe_invalidate(void *opaque, RoceQP *qp, uint32_t rkey)
{
    FakeMR *mr = find_mr(dev_of(opaque), rkey);

    (void)qp;
    if (!mr) {
        return ROCE_MEM_EKEY;
    }
    mr->valid = false;
    return ROCE_MEM_OK;
}

static int fe_local_op(void *opaque, RoceQP *qp, const RoceSendWR *wr)
{
    (void)opaque;
    (void)wr;
    fq_of(qp)->local_ops++;
    return 0;
}

static void fe_complete(void *opaque, RoceQP *qp, const RoceCompletion *c)
{
    FakeQP *q = fq_of(qp);

    (void)opaque;
    if (verbose) {
        diag("dev%d qp 0x%x %s completion wr_id %llu status %d opcode %d "
             "len %u", dev_of(opaque)->id, q->attr.qpn,
             c->recv ? "recv" : "send", (unsigned long long)c->wr_id,
             c->status, c->opcode, c->byte_len);
    }
    if (c->recv) {
        if (q->n_rcq < MAX_CQE) {
            q->rcq[q->n_rcq++] = *c;
        }
    } else if (q->n_scq < MAX_CQE) {
        q->scq[q->n_scq++] = *c;
    }
}

static void fe_qp_error(void *opaque, RoceQP *qp)
{
    (void)opaque;
    fq_of(qp)->errors++;
    fq_of(qp)->attr.state = ROCE_QPS_ERR;
}

static const RoceOps fake_ops = {
    .now_ns = fe_now,
    .timer_mod = fe_timer_mod,
    .timer_del = fe_timer_del,
    .schedule = fe_schedule,
    .tx = fe_tx,
    .lookup_qp = fe_lookup,
    .lookup_mcast = fe_lookup_mcast,
    .fetch_send = fe_fetch_send,
    .take_recv = fe_take_recv,
    .dma = fe_dma,
    .atomic = fe_atomic,
    .invalidate = fe_invalidate,
    .local_op = fe_local_op,
    .complete = fe_complete,
    .qp_error = fe_qp_error,
};

/* ---- set-up ---- */

static void reset_world(void)
{
    int d, i;

    for (d = 0; d < 2; d++) {
        for (i = 0; i < MAX_QP; i++) {
            if (devs[d].qp[i]) {
                roce_qp_destroy(&devs[d].qp[i]->rq);
                free(devs[d].qp[i]->sq);
                free(devs[d].qp[i]);
            }
        }
        for (i = 0; i < MAX_MR; i++) {
            free(devs[d].mr[i].buf);
        }
        memset(&devs[d], 0, sizeof(devs[d]));
        roce_engine_init(&devs[d].eng, &fake_ops, &devs[d]);
        devs[d].id = d;
        devs[d].peer = &devs[!d];
        memcpy(devs[d].mac, "\x02\x00\x00\x00\x00\x01", 6);
        devs[d].mac[5] = 0x10 + d;
        memcpy(devs[d].gid4, "\0\0\0\0\0\0\0\0\0\0\xff\xff\x0a\xc8\x00", 15);
        devs[d].gid4[15] = 1 + d;
        memcpy(devs[d].gid6, "\xfd\x00\0\0\0\0\0\0\0\0\0\0\0\0\0", 15);
        devs[d].gid6[15] = 1 + d;
    }
    q_head = q_len = 0;
    have_held = false;
    dropped.len = 0;
    n_rules = 0;
    memset(tx_by_op, 0, sizeof(tx_by_op));
}

static FakeMR *reg_mr(FakeDev *d, size_t len, uint32_t access)
{
    int i;
    size_t j;

    for (i = 0; i < MAX_MR; i++) {
        FakeMR *mr = &d->mr[i];

        if (!mr->buf) {
            mr->valid = true;
            mr->key = 0x1000 + i * 0x100 + d->id;
            mr->buf = calloc(1, len ? len : 1);
            mr->len = len;
            mr->access = access;
            for (j = 0; j < len; j++) {
                mr->buf[j] = (uint8_t)rnd();
            }
            return mr;
        }
    }
    abort();
}

static uint64_t mr_addr(const FakeMR *mr, size_t off)
{
    return (uint64_t)(uintptr_t)mr->buf + off;
}

static void fill_av(RoceAV *av, FakeDev *s, FakeDev *d, bool v6)
{
    memset(av, 0, sizeof(*av));
    memcpy(av->smac, s->mac, 6);
    memcpy(av->dmac, d->mac, 6);
    av->ipv6 = v6;
    memcpy(av->sgid, v6 ? s->gid6 : s->gid4, 16);
    memcpy(av->dgid, v6 ? d->gid6 : d->gid4, 16);
    av->hop_limit = 64;
}

static FakeQP *new_qp(FakeDev *d, RoceQPType type, uint32_t qpn)
{
    FakeQP *q = calloc(1, sizeof(*q));
    int i;

    q->sq = calloc(SQ_SIZE, sizeof(RoceSendWR));
    q->dev = d;
    q->timer = -1;
    q->attr.type = type;
    q->attr.qpn = qpn;
    roce_qp_init(&q->rq, &d->eng, q);
    for (i = 0; i < MAX_QP; i++) {
        if (!d->qp[i]) {
            d->qp[i] = q;
            return q;
        }
    }
    abort();
}

static void qp_modify(FakeQP *q, RoceQPState st)
{
    q->attr.state = st;
    roce_qp_modify(&q->rq, &q->attr);
}

typedef struct PairOpts {
    RoceQPType type;
    uint32_t mtu;
    bool v6;
    bool vlan;
    uint32_t psn_a, psn_b;
    uint8_t retry_cnt, rnr_retry, timeout, min_rnr_timer;
    uint32_t access;
} PairOpts;

static FakeQP *qa, *qb;

static void connect_qp(FakeQP *q, FakeDev *s, FakeDev *d, uint32_t dqpn,
                       const PairOpts *o, uint32_t sq_psn, uint32_t rq_psn)
{
    q->attr.dest_qpn = dqpn;
    q->attr.pmtu = o->mtu;
    q->attr.sq_psn = sq_psn;
    q->attr.rq_psn = rq_psn;
    q->attr.retry_cnt = o->retry_cnt;
    q->attr.rnr_retry = o->rnr_retry;
    q->attr.timeout = o->timeout;
    q->attr.min_rnr_timer = o->min_rnr_timer;
    q->attr.max_rd_atomic = 4;
    q->attr.max_dest_rd_atomic = 4;
    q->attr.access = o->access;
    q->attr.qkey = 0x11111111;
    fill_av(&q->attr.av, s, d, o->v6);
    if (o->vlan) {
        q->attr.av.vlan_valid = true;
        q->attr.av.vlan = 0x2000 | 100;
    }
    qp_modify(q, ROCE_QPS_INIT);
    qp_modify(q, ROCE_QPS_RTR);
    qp_modify(q, ROCE_QPS_RTS);
}

static PairOpts defaults(RoceQPType type)
{
    PairOpts o;

    memset(&o, 0, sizeof(o));
    o.type = type;
    o.mtu = 1024;
    o.psn_a = 0x100;
    o.psn_b = 0x7000;
    o.retry_cnt = 7;
    o.rnr_retry = 7;
    o.timeout = 14;             /* 67 ms */
    o.min_rnr_timer = 1;        /* 10 us */
    o.access = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ |
               ROCE_ACCESS_REMOTE_ATOMIC;
    return o;
}

static void setup_pair(const PairOpts *o)
{
    reset_world();
    qa = new_qp(&devs[0], o->type, 0x11);
    qb = new_qp(&devs[1], o->type, 0x22);
    connect_qp(qa, &devs[0], &devs[1], 0x22, o, o->psn_a, o->psn_b);
    connect_qp(qb, &devs[1], &devs[0], 0x11, o, o->psn_b, o->psn_a);
}

/* ---- work ---- */

static RoceSendWR *wr_new(FakeQP *q, RoceWROpcode op, uint64_t wr_id)
{
    RoceSendWR *wr = &q->sq[q->sq_pi % SQ_SIZE];

    memset(wr, 0, sizeof(*wr));
    wr->opcode = op;
    wr->wr_id = wr_id;
    wr->flags = ROCE_WR_SIGNALED;
    return wr;
}

static void wr_sge(RoceSendWR *wr, const FakeMR *mr, size_t off, uint32_t len)
{
    RoceSGE *s = &wr->sge[wr->num_sge++];

    s->addr = mr_addr(mr, off);
    s->length = len;
    s->lkey = mr->key;
}

static void post(FakeQP *q)
{
    q->sq_pi++;
    roce_qp_sq_doorbell(&q->rq, q->sq_pi);
}

static RoceRecvWR *recv_new(FakeQP *q, uint64_t wr_id)
{
    RoceRecvWR *wr = &q->rqq[q->rq_pi % RQ_SIZE];

    memset(wr, 0, sizeof(*wr));
    wr->wr_id = wr_id;
    return wr;
}

static void recv_sge(RoceRecvWR *wr, const FakeMR *mr, size_t off,
                     uint32_t len)
{
    RoceSGE *s = &wr->sge[wr->num_sge++];

    s->addr = mr_addr(mr, off);
    s->length = len;
    s->lkey = mr->key;
}

static void post_recv(FakeQP *q)
{
    q->rq_pi++;
    roce_qp_rq_doorbell(&q->rq);
}

static void post_recv_buf(FakeQP *q, const FakeMR *mr, size_t off,
                          uint32_t len, uint64_t wr_id)
{
    RoceRecvWR *r = recv_new(q, wr_id);

    recv_sge(r, mr, off, len);
    post_recv(q);
}

/*
 * Runs the world until nothing happens or @max_ns of virtual time
 * passed: frames first (1 us each), then scheduled QPs, then timers.
 */
static void run_for(int64_t max_ns)
{
    int64_t end = now_ns + max_ns;
    unsigned int steps = 0;
    int d, i;

    while (steps++ < 10000000) {
        if (q_len) {
            Frame *f = &queue[q_head];

            q_head = (q_head + 1) % QUEUE_MAX;
            q_len--;
            now_ns += 1000;
            roce_engine_rx(&f->dst->eng, f->data, f->len);
            continue;
        }
        if (have_held) {
            have_held = false;
            enqueue(held.dst, held.data, held.len);
            continue;
        }
        {
            FakeQP *next = NULL, *s = NULL;

            for (d = 0; d < 2; d++) {
                for (i = 0; i < MAX_QP; i++) {
                    FakeQP *q = devs[d].qp[i];

                    if (!q) {
                        continue;
                    }
                    if (q->sched && !s) {
                        s = q;
                    }
                    if (q->timer >= 0 && (!next || q->timer < next->timer)) {
                        next = q;
                    }
                }
            }
            if (s) {
                s->sched = false;
                roce_qp_process(&s->rq);
                continue;
            }
            if (!next || next->timer > end) {
                return;
            }
            if (next->timer > now_ns) {
                now_ns = next->timer;
            }
            next->timer = -1;
            roce_qp_timer(&next->rq);
        }
    }
    diag("BUG: the world did not settle");
}

/* Only what the QPs send on their own: nothing is delivered. */
static void run_senders(void)
{
    bool again = true;
    int d, i;

    while (again) {
        again = false;
        for (d = 0; d < 2; d++) {
            for (i = 0; i < MAX_QP; i++) {
                FakeQP *q = devs[d].qp[i];

                if (q && q->sched) {
                    q->sched = false;
                    roce_qp_process(&q->rq);
                    again = true;
                }
            }
        }
    }
}

static void run(void)
{
    run_for(60LL * 1000000000);
}

/* ---- checks ---- */

static int failures;

#define CHECK(cond, ...) do {                                   \
        if (!(cond)) {                                          \
            failures++;                                         \
            diag("%s:%d: %s", __func__, __LINE__, #cond);       \
            diag(__VA_ARGS__);                                  \
        }                                                       \
    } while (0)

static bool cqe_is(const RoceCompletion *c, unsigned int n, unsigned int i,
                   uint64_t wr_id, RoceWCStatus st)
{
    if (i >= n) {
        diag("completion %u missing (%u)", i, n);
        return false;
    }
    if (c[i].wr_id != wr_id || c[i].status != st) {
        diag("completion %u: wr_id %llu status %d, expected %llu status %d",
             i, (unsigned long long)c[i].wr_id, c[i].status,
             (unsigned long long)wr_id, st);
        return false;
    }
    return true;
}

#define SCQ_IS(q, i, id, st) \
    CHECK(cqe_is((q)->scq, (q)->n_scq, i, id, st), "send completion")
#define RCQ_IS(q, i, id, st) \
    CHECK(cqe_is((q)->rcq, (q)->n_rcq, i, id, st), "recv completion")

/* ---- cases ---- */

/* An RC SEND of @len bytes from @src+soff to @dst+doff, checked. */
static void rc_send_check(uint32_t len, uint64_t id)
{
    FakeMR *src = reg_mr(qa->dev, len + 64, MR_ALL);
    FakeMR *dst = reg_mr(qb->dev, len + 64, MR_ALL);
    unsigned int ns = qa->n_scq, nr = qb->n_rcq;
    RoceSendWR *wr;

    post_recv_buf(qb, dst, 7, len + 16, id);
    wr = wr_new(qa, ROCE_WR_SEND, id);
    wr_sge(wr, src, 3, len);
    post(qa);
    run();
    SCQ_IS(qa, ns, id, ROCE_WC_SUCCESS);
    RCQ_IS(qb, nr, id, ROCE_WC_SUCCESS);
    if (qb->n_rcq > nr) {
        CHECK(qb->rcq[nr].byte_len == len, "byte_len %u, expected %u",
              qb->rcq[nr].byte_len, len);
        CHECK(qb->rcq[nr].opcode == ROCE_WC_RECV, "opcode");
    }
    CHECK(!memcmp(src->buf + 3, dst->buf + 7, len), "data of %u bytes", len);
}

static void t_rc_send_sizes(void)
{
    static const uint32_t sizes[] = { 1, 1023, 1024, 1025, 0, 4096, 10000 };
    PairOpts o = defaults(ROCE_QPT_RC);
    unsigned int i;

    setup_pair(&o);
    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        memset(tx_by_op, 0, sizeof(tx_by_op));
        rc_send_check(sizes[i], 100 + i);
        /* One ACK per message, the packets its size needs. */
        CHECK(tx_by_op[0x11] == 1, "%u ACKs for %u bytes", tx_by_op[0x11],
              sizes[i]);
        if (sizes[i] == 1025) {
            CHECK(tx_by_op[0x00] == 1 && tx_by_op[0x02] == 1 &&
                  tx_by_op[0x04] == 0, "1025 bytes: FIRST + LAST");
        }
        if (sizes[i] == 1024 || sizes[i] == 1) {
            CHECK(tx_by_op[0x04] == 1, "SEND_ONLY");
        }
    }
    CHECK(qa->errors == 0 && qb->errors == 0, "QP errors");
}

static void t_rc_send_psn_wrap(void)
{
    PairOpts o = defaults(ROCE_QPT_RC);

    o.psn_a = 0xfffffe;
    setup_pair(&o);
    rc_send_check(5000, 1);
    rc_send_check(3000, 2);
    CHECK(qb->rq.epsn == ((0xfffffe + 8) & 0xffffff), "epsn 0x%x",
          qb->rq.epsn);
}

static void t_rc_send_multi_sge(void)
{
    PairOpts o = defaults(ROCE_QPT_RC);
    FakeMR *src, *dst;
    RoceSendWR *wr;
    RoceRecvWR *r;
    uint8_t want[3000];

    o.mtu = 512;
    setup_pair(&o);
    src = reg_mr(qa->dev, 4096, MR_ALL);
    dst = reg_mr(qb->dev, 4096, MR_ALL);
    r = recv_new(qb, 9);
    recv_sge(r, dst, 0, 100);
    recv_sge(r, dst, 1000, 1);
    recv_sge(r, dst, 2000, 2000);
    post_recv(qb);
    wr = wr_new(qa, ROCE_WR_SEND, 9);
    wr_sge(wr, src, 0, 1000);
    wr_sge(wr, src, 3000, 700);
    wr_sge(wr, src, 1500, 300);
    post(qa);
    run();
    memcpy(want, src->buf, 1000);
    memcpy(want + 1000, src->buf + 3000, 700);
    memcpy(want + 1700, src->buf + 1500, 300);
    SCQ_IS(qa, 0, 9, ROCE_WC_SUCCESS);
    RCQ_IS(qb, 0, 9, ROCE_WC_SUCCESS);
    CHECK(!memcmp(dst->buf, want, 100) && dst->buf[1000] == want[100] &&
          !memcmp(dst->buf + 2000, want + 101, 1899), "scattered data");
}

static void t_rc_send_inline_imm(void)
{
    PairOpts o = defaults(ROCE_QPT_RC);
    FakeMR *dst;
    RoceSendWR *wr;

    setup_pair(&o);
    dst = reg_mr(qb->dev, 256, MR_ALL);
    post_recv_buf(qb, dst, 0, 256, 1);
    post_recv_buf(qb, dst, 128, 128, 2);
    wr = wr_new(qa, ROCE_WR_SEND, 1);
    wr->flags |= ROCE_WR_INLINE;
    wr->inline_len = 60;
    memset(wr->inline_data, 0xab, 60);
    post(qa);
    wr = wr_new(qa, ROCE_WR_SEND_IMM, 2);
    wr->flags = ROCE_WR_INLINE | ROCE_WR_SOLICITED; /* unsignaled */
    wr->inline_len = 5;
    memcpy(wr->inline_data, "hello", 5);
    wr->imm = 0xdeadbeef;
    post(qa);
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_SUCCESS);
    CHECK(qa->n_scq == 1, "unsignaled WQE completed: %u", qa->n_scq);
    CHECK(qa->rq.sq_ci == 2, "SQ consumer %u", qa->rq.sq_ci);
    RCQ_IS(qb, 0, 1, ROCE_WC_SUCCESS);
    RCQ_IS(qb, 1, 2, ROCE_WC_SUCCESS);
    CHECK(dst->buf[0] == 0xab && dst->buf[59] == 0xab, "inline data");
    CHECK(!memcmp(dst->buf + 128, "hello", 5), "second inline");
    CHECK(qb->n_rcq == 2 && (qb->rcq[1].flags & ROCE_WC_WITH_IMM) &&
          qb->rcq[1].imm == 0xdeadbeef, "immediate");
    CHECK(tx_by_op[0x05] == 1, "SEND_ONLY_IMM sent");
}

static void t_rc_write(void)
{
    PairOpts o = defaults(ROCE_QPT_RC);
    FakeMR *src, *dst, *rb;
    RoceSendWR *wr;

    setup_pair(&o);
    src = reg_mr(qa->dev, 8192, MR_ALL);
    dst = reg_mr(qb->dev, 8192, MR_ALL);
    rb = reg_mr(qb->dev, 64, MR_ALL);
    wr = wr_new(qa, ROCE_WR_WRITE, 1);
    wr_sge(wr, src, 0, 5000);
    wr->remote_addr = mr_addr(dst, 100);
    wr->rkey = dst->key;
    post(qa);
    wr = wr_new(qa, ROCE_WR_WRITE_IMM, 2);
    wr_sge(wr, src, 6000, 1024);
    wr->remote_addr = mr_addr(dst, 7000);
    wr->rkey = dst->key;
    wr->imm = 0x01020304;
    post(qa);
    post_recv_buf(qb, rb, 0, 64, 77);
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_SUCCESS);
    SCQ_IS(qa, 1, 2, ROCE_WC_SUCCESS);
    CHECK(!memcmp(src->buf, dst->buf + 100, 5000), "WRITE data");
    CHECK(!memcmp(src->buf + 6000, dst->buf + 7000, 1024), "WRITE_IMM data");
    RCQ_IS(qb, 0, 77, ROCE_WC_SUCCESS);
    CHECK(qb->n_rcq == 1 && qb->rcq[0].opcode == ROCE_WC_RECV_RDMA_WITH_IMM &&
          qb->rcq[0].imm == 0x01020304 && qb->rcq[0].byte_len == 1024,
          "WRITE_IMM completion");
    CHECK(tx_by_op[0x06] == 1 && tx_by_op[0x07] == 3 && tx_by_op[0x08] == 1 &&
          tx_by_op[0x0b] == 1, "WRITE opcodes");
}

static void t_rc_read(void)
{
    PairOpts o = defaults(ROCE_QPT_RC);
    FakeMR *dst, *src;
    RoceSendWR *wr;

    setup_pair(&o);
    dst = reg_mr(qa->dev, 20000, MR_ALL);
    src = reg_mr(qb->dev, 20000, MR_ALL);
    wr = wr_new(qa, ROCE_WR_READ, 1);
    wr_sge(wr, dst, 0, 4000);
    wr_sge(wr, dst, 5000, 6000);
    wr->remote_addr = mr_addr(src, 10);
    wr->rkey = src->key;
    post(qa);
    wr = wr_new(qa, ROCE_WR_READ, 2);
    wr_sge(wr, dst, 12000, 100);
    wr->remote_addr = mr_addr(src, 15000);
    wr->rkey = src->key;
    post(qa);
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_SUCCESS);
    SCQ_IS(qa, 1, 2, ROCE_WC_SUCCESS);
    CHECK(qa->n_scq == 2 && qa->scq[0].opcode == ROCE_WC_RDMA_READ &&
          qa->scq[0].byte_len == 10000, "READ completion");
    CHECK(!memcmp(dst->buf, src->buf + 10, 4000) &&
          !memcmp(dst->buf + 5000, src->buf + 4010, 6000), "READ data");
    CHECK(!memcmp(dst->buf + 12000, src->buf + 15000, 100), "READ 2 data");
    CHECK(tx_by_op[0x0d] == 1 && tx_by_op[0x0e] == 8 && tx_by_op[0x0f] == 1 &&
          tx_by_op[0x10] == 1 && tx_by_op[0x11] == 0, "READ responses");
}

static uint64_t ld64(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, 8);
    return v;
}

static void st64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

static void t_rc_atomics(void)
{
    PairOpts o = defaults(ROCE_QPT_RC);
    FakeMR *res, *mem;
    RoceSendWR *wr;

    setup_pair(&o);
    res = reg_mr(qa->dev, 64, MR_ALL);
    mem = reg_mr(qb->dev, 64, MR_ALL);
    st64(mem->buf + 8, 100);
    st64(mem->buf + 16, 5);
    wr = wr_new(qa, ROCE_WR_FETCH_ADD, 1);
    wr_sge(wr, res, 0, 8);
    wr->remote_addr = mr_addr(mem, 8);
    wr->rkey = mem->key;
    wr->compare_add = 23;
    post(qa);
    wr = wr_new(qa, ROCE_WR_CMP_SWP, 2);
    wr_sge(wr, res, 8, 8);
    wr->remote_addr = mr_addr(mem, 16);
    wr->rkey = mem->key;
    wr->compare_add = 5;
    wr->swap = 0x1122334455667788ull;
    post(qa);
    wr = wr_new(qa, ROCE_WR_CMP_SWP, 3);
    wr_sge(wr, res, 16, 8);
    wr->remote_addr = mr_addr(mem, 16);
    wr->rkey = mem->key;
    wr->compare_add = 5;        /* no longer 5: no swap */
    wr->swap = 77;
    post(qa);
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_SUCCESS);
    SCQ_IS(qa, 1, 2, ROCE_WC_SUCCESS);
    SCQ_IS(qa, 2, 3, ROCE_WC_SUCCESS);
    CHECK(ld64(mem->buf + 8) == 123, "FETCH_ADD result %llu",
          (unsigned long long)ld64(mem->buf + 8));
    CHECK(ld64(res->buf) == 100, "FETCH_ADD original");
    CHECK(ld64(res->buf + 8) == 5, "CMP_SWP original");
    CHECK(ld64(res->buf + 16) == 0x1122334455667788ull, "CMP_SWP 2 original");
    CHECK(ld64(mem->buf + 16) == 0x1122334455667788ull, "CMP_SWP memory");
    CHECK(tx_by_op[0x12] == 3, "ATOMIC_ACKs %u", tx_by_op[0x12]);
}

static void t_rc_send_inv(void)
{
    PairOpts o = defaults(ROCE_QPT_RC);
    FakeMR *src, *dst, *victim;
    RoceSendWR *wr;

    setup_pair(&o);
    src = reg_mr(qa->dev, 4096, MR_ALL);
    dst = reg_mr(qb->dev, 4096, MR_ALL);
    victim = reg_mr(qb->dev, 4096, MR_ALL);
    post_recv_buf(qb, dst, 0, 4096, 5);
    post_recv_buf(qb, dst, 0, 4096, 6);
    wr = wr_new(qa, ROCE_WR_SEND_INV, 1);
    wr_sge(wr, src, 0, 2000);
    wr->invalidate_rkey = victim->key;
    post(qa);
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_SUCCESS);
    RCQ_IS(qb, 0, 5, ROCE_WC_SUCCESS);
    CHECK(qb->n_rcq == 1 && (qb->rcq[0].flags & ROCE_WC_WITH_INV) &&
          qb->rcq[0].inv_rkey == victim->key, "invalidate in completion");
    CHECK(!victim->valid, "key invalidated");
    CHECK(tx_by_op[0x00] == 1 && tx_by_op[0x16] == 1, "SEND_LAST_INV");
    /* The key is gone: a WRITE with it is a remote access error. */
    wr = wr_new(qa, ROCE_WR_WRITE, 2);
    wr_sge(wr, src, 0, 10);
    wr->remote_addr = mr_addr(victim, 0);
    wr->rkey = victim->key;
    post(qa);
    run();
    SCQ_IS(qa, 1, 2, ROCE_WC_REM_ACCESS_ERR);
    CHECK(qa->errors == 1 && qb->errors == 1, "both QPs in error");
    RCQ_IS(qb, 1, 6, ROCE_WC_WR_FLUSH_ERR);
}

static void t_uc(void)
{
    PairOpts o = defaults(ROCE_QPT_UC);
    FakeMR *src, *dst, *wdst;
    RoceSendWR *wr;

    setup_pair(&o);
    src = reg_mr(qa->dev, 8192, MR_ALL);
    dst = reg_mr(qb->dev, 8192, MR_ALL);
    wdst = reg_mr(qb->dev, 8192, MR_ALL);
    post_recv_buf(qb, dst, 0, 8192, 1);
    post_recv_buf(qb, dst, 0, 8192, 2);
    wr = wr_new(qa, ROCE_WR_SEND, 1);
    wr_sge(wr, src, 0, 2048);
    post(qa);
    wr = wr_new(qa, ROCE_WR_WRITE, 2);
    wr_sge(wr, src, 2048, 3000);
    wr->remote_addr = mr_addr(wdst, 5);
    wr->rkey = wdst->key;
    post(qa);
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_SUCCESS);
    SCQ_IS(qa, 1, 2, ROCE_WC_SUCCESS);
    RCQ_IS(qb, 0, 1, ROCE_WC_SUCCESS);
    CHECK(!memcmp(src->buf, dst->buf, 2048), "UC SEND data");
    CHECK(!memcmp(src->buf + 2048, wdst->buf + 5, 3000), "UC WRITE data");
    CHECK(tx_by_op[0x11] == 0 && tx_by_op[0x20] == 1 && tx_by_op[0x22] == 1,
          "UC: FIRST, LAST, no ACK");

    /* A lost middle packet: the message is dropped, the WQE reused. */
    add_rule(0, 0x21, 1, 1, ACT_DROP);
    wr = wr_new(qa, ROCE_WR_SEND, 3);
    wr_sge(wr, src, 0, 3000);
    post(qa);
    wr = wr_new(qa, ROCE_WR_SEND, 4);
    wr_sge(wr, src, 4000, 1500);
    post(qa);
    run();
    CHECK(rules[0].hit == 1, "a SEND_MIDDLE was dropped");
    SCQ_IS(qa, 2, 3, ROCE_WC_SUCCESS);
    SCQ_IS(qa, 3, 4, ROCE_WC_SUCCESS);
    CHECK(qb->n_rcq == 2 && qb->rcq[1].byte_len == 1500, "only the second");
    CHECK(!memcmp(src->buf + 4000, dst->buf, 1500), "second message data");

    /* UC carries no READ. */
    wr = wr_new(qa, ROCE_WR_READ, 5);
    wr_sge(wr, src, 0, 8);
    post(qa);
    run();
    SCQ_IS(qa, 4, 5, ROCE_WC_LOC_QP_OP_ERR);
}

/* UD: a SEND to another device's UD QP with its GRH. */
static void ud_case(bool v6, bool vlan)
{
    PairOpts o = defaults(ROCE_QPT_UD);
    FakeMR *src, *dst;
    RoceSendWR *wr;

    o.v6 = v6;
    o.vlan = vlan;
    setup_pair(&o);
    src = reg_mr(qa->dev, 2048, MR_ALL);
    dst = reg_mr(qb->dev, 2048, MR_ALL);
    post_recv_buf(qb, dst, 0, 40 + 1024, 3);
    wr = wr_new(qa, ROCE_WR_SEND_IMM, 3);
    wr_sge(wr, src, 0, 1000);
    wr->imm = 42;
    fill_av(&wr->av, &devs[0], &devs[1], v6);
    if (vlan) {
        wr->av.vlan_valid = true;
        wr->av.vlan = 7;
    }
    wr->remote_qpn = 0x22;
    wr->remote_qkey = 0x11111111;
    post(qa);
    /* Too long for a datagram: a local length error. */
    wr = wr_new(qa, ROCE_WR_SEND, 4);
    wr_sge(wr, src, 0, 1025);
    fill_av(&wr->av, &devs[0], &devs[1], v6);
    wr->remote_qpn = 0x22;
    post(qa);
    run();
    SCQ_IS(qa, 0, 3, ROCE_WC_SUCCESS);
    SCQ_IS(qa, 1, 4, ROCE_WC_LOC_LEN_ERR);
    RCQ_IS(qb, 0, 3, ROCE_WC_SUCCESS);
    if (qb->n_rcq) {
        RoceCompletion *c = &qb->rcq[0];

        CHECK(c->byte_len == 1040 && c->src_qp == 0x11 &&
              (c->flags & ROCE_WC_GRH) && c->imm == 42 &&
              !!(c->flags & ROCE_WC_IPV6) == v6 &&
              !!(c->flags & ROCE_WC_VLAN) == vlan &&
              !memcmp(c->smac, devs[0].mac, 6), "UD completion");
    }
    if (v6) {
        CHECK(dst->buf[0] >> 4 == 6 && !memcmp(dst->buf + 8, devs[0].gid6, 16),
              "GRH: the IPv6 header");
    } else {
        static const uint8_t zero[20];

        CHECK(!memcmp(dst->buf, zero, 20) && dst->buf[20] == 0x45 &&
              !memcmp(dst->buf + 32, devs[0].gid4 + 12, 4),
              "GRH: 20 zeros and the IPv4 header");
    }
    CHECK(!memcmp(dst->buf + 40, src->buf, 1000), "UD payload after GRH");

    /* No receive WQE: dropped; one too small: a local length error. */
    wr = wr_new(qa, ROCE_WR_SEND, 5);
    wr_sge(wr, src, 0, 100);
    fill_av(&wr->av, &devs[0], &devs[1], v6);
    wr->remote_qpn = 0x22;
    wr->remote_qkey = 0x11111111;
    qp_modify(qa, ROCE_QPS_RESET);              /* out of ERR */
    qa->sq_pi = 0;
    qa->n_scq = 0;
    qa->attr.sq_psn = 0;
    qp_modify(qa, ROCE_QPS_INIT);
    qp_modify(qa, ROCE_QPS_RTR);
    qp_modify(qa, ROCE_QPS_RTS);
    wr = wr_new(qa, ROCE_WR_SEND, 5);
    wr_sge(wr, src, 0, 100);
    fill_av(&wr->av, &devs[0], &devs[1], v6);
    wr->remote_qpn = 0x22;
    wr->remote_qkey = 0x11111111;
    post(qa);
    run();
    CHECK(devs[1].eng.stats.ud_no_recv == 1 && qb->n_rcq == 1,
          "dropped without a receive WQE");
    post_recv_buf(qb, dst, 0, 100, 6);
    wr = wr_new(qa, ROCE_WR_SEND, 6);
    wr_sge(wr, src, 0, 100);
    fill_av(&wr->av, &devs[0], &devs[1], v6);
    wr->remote_qpn = 0x22;
    wr->remote_qkey = 0x11111111;
    post(qa);
    run();
    RCQ_IS(qb, 1, 6, ROCE_WC_LOC_LEN_ERR);
}

static void t_ud_ipv4(void)
{
    ud_case(false, false);
}

static void t_ud_ipv6_vlan(void)
{
    ud_case(true, true);
}

/*
 * UD multicast: a SEND to QPN 0xffffff and a group's GID reaches each
 * QP the receiving device attached to that group, and no other.
 */
static void t_ud_multicast(void)
{
    static const uint8_t group[16] = { [10] = 0xff, [11] = 0xff,
                                       239, 1, 1, 1 };
    PairOpts o = defaults(ROCE_QPT_UD);
    FakeQP *qc, *qd;
    FakeMR *src, *dst;
    RoceSendWR *wr;
    int i;

    setup_pair(&o);
    qc = new_qp(&devs[1], ROCE_QPT_UD, 0x33);
    qd = new_qp(&devs[1], ROCE_QPT_UD, 0x44);
    connect_qp(qc, &devs[1], &devs[0], 0, &o, 0, 0);
    connect_qp(qd, &devs[1], &devs[0], 0, &o, 0, 0);
    memcpy(devs[1].mgid, group, 16);
    devs[1].mc[0] = qb;
    devs[1].mc[1] = qc;
    devs[1].n_mc = 2;
    src = reg_mr(qa->dev, 2048, MR_ALL);
    dst = reg_mr(qb->dev, 4 * 2048, MR_ALL);
    post_recv_buf(qb, dst, 0, 2048, 1);
    post_recv_buf(qc, dst, 2048, 2048, 2);
    post_recv_buf(qd, dst, 4096, 2048, 3);
    for (i = 0; i < 2; i++) {
        wr = wr_new(qa, ROCE_WR_SEND, 10 + i);
        wr_sge(wr, src, 0, 500);
        fill_av(&wr->av, &devs[0], &devs[1], false);
        memcpy(wr->av.dgid, group, 16);
        memcpy(wr->av.dmac, "\x01\x00\x5e\x01\x01\x01", 6);
        wr->remote_qpn = ROCE_MCAST_QPN;
        wr->remote_qkey = 0x11111111;
        post(qa);
        run();
        SCQ_IS(qa, i, 10 + i, ROCE_WC_SUCCESS);
        /* The second time, the group has no QP left. */
        devs[1].n_mc = 0;
    }
    RCQ_IS(qb, 0, 1, ROCE_WC_SUCCESS);
    RCQ_IS(qc, 0, 2, ROCE_WC_SUCCESS);
    CHECK(qb->n_rcq == 1 && qc->n_rcq == 1 && qd->n_rcq == 0,
          "one copy to each attached QP, none to the other, none after");
    CHECK(!memcmp(dst->buf + 40, src->buf, 500) &&
          !memcmp(dst->buf + 2048 + 40, src->buf, 500), "multicast data");
    CHECK(devs[1].eng.stats.rx_mcast == 2 && devs[1].eng.stats.rx_no_qp == 1,
          "rx_mcast %llu, rx_no_qp %llu",
          (unsigned long long)devs[1].eng.stats.rx_mcast,
          (unsigned long long)devs[1].eng.stats.rx_no_qp);
}

/*
 * XRC: an initiator's SEND, WRITE and READ to a target, on XRC opcodes
 * with the XRCETH; the target receives into the SRQ the XRCETH names,
 * and a request naming another is a remote operation error.
 */
static void t_xrc(void)
{
    PairOpts o = defaults(ROCE_QPT_RC);
    FakeMR *src, *dst;
    RoceSendWR *wr;
    RoceRecvWR *r;

    reset_world();
    qa = new_qp(&devs[0], ROCE_QPT_RC, 0x11);
    qb = new_qp(&devs[1], ROCE_QPT_RC, 0x22);
    qa->attr.xrc = ROCE_XRC_INI;
    qb->attr.xrc = ROCE_XRC_TGT;
    qb->use_srq = true;
    connect_qp(qa, &devs[0], &devs[1], 0x22, &o, o.psn_a, o.psn_b);
    connect_qp(qb, &devs[1], &devs[0], 0x11, &o, o.psn_b, o.psn_a);
    src = reg_mr(qa->dev, 8192, MR_ALL);
    dst = reg_mr(qb->dev, 8192, MR_ALL);
    r = &devs[1].srq[devs[1].srq_pi++ % RQ_SIZE];
    memset(r, 0, sizeof(*r));
    r->wr_id = 55;
    recv_sge(r, dst, 0, 4096);
    wr = wr_new(qa, ROCE_WR_SEND, 1);
    wr_sge(wr, src, 0, 3000);
    wr->xrc_srqn = XRC_SRQN;
    post(qa);
    wr = wr_new(qa, ROCE_WR_WRITE, 2);
    wr_sge(wr, src, 0, 100);
    wr->remote_addr = mr_addr(dst, 5000);
    wr->rkey = dst->key;
    wr->xrc_srqn = XRC_SRQN;
    post(qa);
    wr = wr_new(qa, ROCE_WR_READ, 3);
    wr_sge(wr, src, 4096, 100);
    wr->remote_addr = mr_addr(dst, 5000);
    wr->rkey = dst->key;
    wr->xrc_srqn = XRC_SRQN;
    post(qa);
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_SUCCESS);
    SCQ_IS(qa, 1, 2, ROCE_WC_SUCCESS);
    SCQ_IS(qa, 2, 3, ROCE_WC_SUCCESS);
    RCQ_IS(qb, 0, 55, ROCE_WC_SUCCESS);
    CHECK(!memcmp(src->buf, dst->buf, 3000), "XRC SEND data");
    CHECK(!memcmp(src->buf + 4096, src->buf, 100), "XRC WRITE, READ data");
    CHECK(tx_by_op[0xa0] == 1 && tx_by_op[0xa1] == 1 && tx_by_op[0xa2] == 1 &&
          tx_by_op[0xaa] == 1 && tx_by_op[0xac] == 1 && tx_by_op[0xb0] == 1 &&
          tx_by_op[0xb1] >= 1 && tx_by_op[0x00] == 0 && tx_by_op[0x11] == 0,
          "XRC opcodes only");
    /* An SRQ the target does not know: a remote operation error. */
    wr = wr_new(qa, ROCE_WR_SEND, 4);
    wr_sge(wr, src, 0, 10);
    wr->xrc_srqn = XRC_SRQN + 1;
    post(qa);
    run();
    SCQ_IS(qa, 3, 4, ROCE_WC_REM_OP_ERR);
}

static void t_gsi_qkey(void)
{
    PairOpts o = defaults(ROCE_QPT_GSI);
    FakeMR *src, *dst;
    RoceSendWR *wr;

    setup_pair(&o);
    src = reg_mr(qa->dev, 512, MR_ALL);
    dst = reg_mr(qb->dev, 2048, MR_ALL);
    post_recv_buf(qb, dst, 0, 40 + 256, 1);
    post_recv_buf(qb, dst, 512, 40 + 256, 2);
    /* Q_Key 0x80010000 reaches QP1; any other does not. */
    wr = wr_new(qa, ROCE_WR_SEND, 1);
    wr_sge(wr, src, 0, 256);
    fill_av(&wr->av, &devs[0], &devs[1], false);
    wr->remote_qpn = 1;
    wr->remote_qkey = 0x12345678;
    post(qa);
    wr = wr_new(qa, ROCE_WR_SEND, 2);
    wr_sge(wr, src, 0, 256);
    fill_av(&wr->av, &devs[0], &devs[1], false);
    wr->remote_qpn = 1;
    wr->remote_qkey = ROCE_GSI_QKEY;
    post(qa);
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_SUCCESS);
    SCQ_IS(qa, 1, 2, ROCE_WC_SUCCESS);
    CHECK(qb->n_rcq == 1, "one GMP received: %u", qb->n_rcq);
    RCQ_IS(qb, 0, 1, ROCE_WC_SUCCESS);
    CHECK(qb->n_rcq == 1 && qb->rcq[0].src_qp == 1, "source QP 1");
    CHECK(!memcmp(dst->buf + 40, src->buf, 256), "GMP data");
}

/* A WRITE (or SEND) of @len while @op's @nth packet is dropped once. */
static void loss_case(int op, int nth, int act, RoceWROpcode wop,
                      uint32_t len, bool expect_timeout)
{
    PairOpts o = defaults(ROCE_QPT_RC);
    FakeMR *src, *dst;
    RoceSendWR *wr;
    int64_t t0;

    setup_pair(&o);
    src = reg_mr(qa->dev, len, MR_ALL);
    dst = reg_mr(qb->dev, len, MR_ALL);
    add_rule(-1, op, nth, 1, act);
    if (wop == ROCE_WR_READ) {
        wr = wr_new(qa, wop, 1);
        wr_sge(wr, dst == NULL ? src : src, 0, len);
        wr->remote_addr = mr_addr(dst, 0);
        wr->rkey = dst->key;
    } else {
        wr = wr_new(qa, wop, 1);
        wr_sge(wr, src, 0, len);
        wr->remote_addr = mr_addr(dst, 0);
        wr->rkey = dst->key;
        if (wop == ROCE_WR_SEND) {
            post_recv_buf(qb, dst, 0, len, 1);
        }
    }
    post(qa);
    wr = wr_new(qa, ROCE_WR_SEND, 2);
    wr_sge(wr, src, 0, 100);
    post_recv_buf(qb, dst, 0, 100, 2);
    /* The second message only after the first completed. */
    t0 = now_ns;
    run();
    CHECK(rules[0].hit == 1, "the rule hit %d times", rules[0].hit);
    SCQ_IS(qa, 0, 1, ROCE_WC_SUCCESS);
    CHECK(!memcmp(src->buf, dst->buf, len), "data intact after loss");
    CHECK((now_ns - t0 >= 60000000) == expect_timeout,
          "took %lld ns", (long long)(now_ns - t0));
    CHECK(qa->errors == 0 && qb->errors == 0, "no QP error");
    post(qa);
    run();
    SCQ_IS(qa, 1, 2, ROCE_WC_SUCCESS);
    if (wop == ROCE_WR_SEND) {
        CHECK(qb->n_rcq == 2, "one receive per message: %u", qb->n_rcq);
    }
}

static void t_loss_send_middle(void)
{
    loss_case(0x01, 2, ACT_DROP, ROCE_WR_SEND, 6000, false);
    CHECK(devs[1].eng.stats.seq_naks_sent == 1 &&
          devs[0].eng.stats.seq_naks_rcvd == 1, "one sequence NAK");
}

static void t_loss_write_last(void)
{
    /* The AckReq packet lost: only the timer finds out. */
    loss_case(0x08, 1, ACT_DROP, ROCE_WR_WRITE, 6000, true);
    CHECK(devs[0].eng.stats.timeouts == 1, "timeouts %llu",
          (unsigned long long)devs[0].eng.stats.timeouts);
}

static void t_loss_ack(void)
{
    loss_case(0x11, 1, ACT_DROP, ROCE_WR_SEND, 3000, true);
    CHECK(devs[1].eng.stats.dup_requests >= 1, "duplicates answered");
}

static void t_loss_read_request(void)
{
    loss_case(0x0c, 1, ACT_DROP, ROCE_WR_READ, 5000, true);
}

static void t_loss_read_middle(void)
{
    /* Found by the next response: the READ is asked again from there. */
    loss_case(0x0e, 2, ACT_DROP, ROCE_WR_READ, 8000, false);
    CHECK(devs[1].eng.stats.dup_requests == 1, "a duplicate READ replayed");
}

static void t_loss_read_last(void)
{
    loss_case(0x0f, 1, ACT_DROP, ROCE_WR_READ, 8000, true);
    CHECK(devs[1].eng.stats.dup_requests == 1, "a duplicate READ replayed");
}

static void t_loss_atomic_ack(void)
{
    PairOpts o = defaults(ROCE_QPT_RC);
    FakeMR *res, *mem;
    RoceSendWR *wr;

    setup_pair(&o);
    res = reg_mr(qa->dev, 64, MR_ALL);
    mem = reg_mr(qb->dev, 64, MR_ALL);
    st64(mem->buf, 1000);
    add_rule(1, 0x12, 1, 1, ACT_DROP);
    wr = wr_new(qa, ROCE_WR_FETCH_ADD, 1);
    wr_sge(wr, res, 0, 8);
    wr->remote_addr = mr_addr(mem, 0);
    wr->rkey = mem->key;
    wr->compare_add = 1;
    post(qa);
    run();
    CHECK(rules[0].hit == 1, "ATOMIC_ACK dropped");
    SCQ_IS(qa, 0, 1, ROCE_WC_SUCCESS);
    CHECK(ld64(mem->buf) == 1001, "executed once: %llu",
          (unsigned long long)ld64(mem->buf));
    CHECK(ld64(res->buf) == 1000, "the original value, replayed");
    CHECK(devs[1].eng.stats.dup_requests == 1, "duplicate answered");
}

static void t_loss_atomic_request(void)
{
    PairOpts o = defaults(ROCE_QPT_RC);
    FakeMR *res, *mem;
    RoceSendWR *wr;

    setup_pair(&o);
    res = reg_mr(qa->dev, 64, MR_ALL);
    mem = reg_mr(qb->dev, 64, MR_ALL);
    st64(mem->buf, 7);
    add_rule(0, 0x13, 1, 1, ACT_DROP);
    wr = wr_new(qa, ROCE_WR_CMP_SWP, 1);
    wr_sge(wr, res, 0, 8);
    wr->remote_addr = mr_addr(mem, 0);
    wr->rkey = mem->key;
    wr->compare_add = 7;
    wr->swap = 8;
    post(qa);
    run();
    CHECK(rules[0].hit == 1, "COMPARE_SWAP dropped");
    SCQ_IS(qa, 0, 1, ROCE_WC_SUCCESS);
    CHECK(ld64(mem->buf) == 8 && ld64(res->buf) == 7, "swapped once");
    CHECK(devs[0].eng.stats.timeouts == 1, "found by the timer");
}

/* The sequence NAK itself lost: the timer recovers. */
static void t_loss_nak(void)
{
    PairOpts o = defaults(ROCE_QPT_RC);
    FakeMR *src, *dst;
    RoceSendWR *wr;

    setup_pair(&o);
    src = reg_mr(qa->dev, 8192, MR_ALL);
    dst = reg_mr(qb->dev, 8192, MR_ALL);
    add_rule(0, 0x01, 1, 1, ACT_DROP);
    add_rule(1, 0x11, 1, 1, ACT_DROP);
    post_recv_buf(qb, dst, 0, 8192, 1);
    wr = wr_new(qa, ROCE_WR_SEND, 1);
    wr_sge(wr, src, 0, 5000);
    post(qa);
    run();
    CHECK(rules[0].hit == 1 && rules[1].hit == 1, "SEND_MIDDLE and NAK lost");
    CHECK(devs[1].eng.stats.seq_naks_sent >= 1 &&
          devs[0].eng.stats.seq_naks_rcvd == 0, "the NAK never arrived");
    CHECK(devs[0].eng.stats.timeouts == 1, "found by the timer");
    SCQ_IS(qa, 0, 1, ROCE_WC_SUCCESS);
    RCQ_IS(qb, 0, 1, ROCE_WC_SUCCESS);
    CHECK(qb->n_rcq == 1 && !memcmp(src->buf, dst->buf, 5000), "data");
}

/* An RNR NAK lost: the timer sends again, the next RNR NAK is heard. */
static void t_loss_rnr_nak(void)
{
    PairOpts o = defaults(ROCE_QPT_RC);
    FakeMR *src, *dst;
    RoceSendWR *wr;

    setup_pair(&o);
    src = reg_mr(qa->dev, 4096, MR_ALL);
    dst = reg_mr(qb->dev, 4096, MR_ALL);
    add_rule(1, 0x11, 1, 1, ACT_DROP);
    wr = wr_new(qa, ROCE_WR_SEND, 1);
    wr_sge(wr, src, 0, 100);
    post(qa);
    run_for(200000000);
    CHECK(rules[0].hit == 1, "RNR NAK lost");
    CHECK(devs[0].eng.stats.timeouts == 1 &&
          devs[0].eng.stats.rnr_naks_rcvd >= 1, "timeout, then RNR");
    post_recv_buf(qb, dst, 0, 4096, 1);
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_SUCCESS);
    CHECK(!memcmp(src->buf, dst->buf, 100), "data");
}

/* Requests the responder refuses as invalid: a NAK, both QPs to ERR. */
static void t_invalid_requests(void)
{
    PairOpts o = defaults(ROCE_QPT_RC);
    FakeMR *src, *dst;
    RoceSendWR *wr;
    uint8_t *bth;
    uint32_t crc;

    /* A SEND_MIDDLE where a message must start (opcode sequence). */
    setup_pair(&o);
    src = reg_mr(qa->dev, 4096, MR_ALL);
    dst = reg_mr(qb->dev, 4096, MR_ALL);
    post_recv_buf(qb, dst, 0, 4096, 1);
    add_rule(0, 0x00, 1, 1, ACT_DROP);
    add_rule(0, -1, 1, 0, ACT_DROP);            /* the rest too */
    wr = wr_new(qa, ROCE_WR_SEND, 1);
    wr_sge(wr, src, 0, 3000);
    post(qa);
    n_rules = 0;
    q_head = q_len = 0;
    CHECK(dropped.len > 0 && frame_bth(dropped.data, dropped.len)[0] == 0,
          "SEND_FIRST taken");
    bth = (uint8_t *)frame_bth(dropped.data, dropped.len);
    bth[0] = 0x01;
    crc = roce_icrc(dropped.data + 14, dropped.len - 14 - 4);
    memcpy(dropped.data + dropped.len - 4, &crc, 4);
    roce_engine_rx(&devs[1].eng, dropped.data, dropped.len);
    run();
    CHECK(qb->errors == 1, "responder in ERR");
    SCQ_IS(qa, 0, 1, ROCE_WC_REM_INV_REQ_ERR);
    RCQ_IS(qb, 0, 1, ROCE_WC_WR_FLUSH_ERR);

    /* A misaligned atomic. */
    setup_pair(&o);
    src = reg_mr(qa->dev, 64, MR_ALL);
    dst = reg_mr(qb->dev, 64, MR_ALL);
    wr = wr_new(qa, ROCE_WR_FETCH_ADD, 1);
    wr_sge(wr, src, 0, 8);
    wr->remote_addr = mr_addr(dst, 4);
    wr->rkey = dst->key;
    post(qa);
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_REM_INV_REQ_ERR);
    CHECK(qb->errors == 1, "responder in ERR");

    /* A WRITE longer than its RETH says. */
    setup_pair(&o);
    src = reg_mr(qa->dev, 4096, MR_ALL);
    dst = reg_mr(qb->dev, 4096, MR_ALL);
    add_rule(0, 0x0a, 1, 1, ACT_DROP);
    wr = wr_new(qa, ROCE_WR_WRITE, 1);
    wr_sge(wr, src, 0, 100);
    wr->remote_addr = mr_addr(dst, 0);
    wr->rkey = dst->key;
    post(qa);
    n_rules = 0;
    bth = (uint8_t *)frame_bth(dropped.data, dropped.len);
    bth[12 + 15] = 50;                          /* RETH length 100 -> 50 */
    crc = roce_icrc(dropped.data + 14, dropped.len - 14 - 4);
    memcpy(dropped.data + dropped.len - 4, &crc, 4);
    roce_engine_rx(&devs[1].eng, dropped.data, dropped.len);
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_REM_INV_REQ_ERR);
    CHECK(memcmp(src->buf, dst->buf, 50), "nothing written");
}

/* A READ of 100 packets: answered in rounds, a SEND queued behind it. */
static void t_long_read(void)
{
    PairOpts o = defaults(ROCE_QPT_RC);
    FakeMR *src, *dst, *rb;
    RoceSendWR *wr;
    unsigned int i;

    o.mtu = 256;
    setup_pair(&o);
    src = reg_mr(qa->dev, 30000, MR_ALL);
    dst = reg_mr(qb->dev, 30000, MR_ALL);
    rb = reg_mr(qb->dev, 4096, MR_ALL);
    post_recv_buf(qb, rb, 0, 4096, 1);
    wr = wr_new(qa, ROCE_WR_READ, 1);
    wr_sge(wr, src, 0, 25600);
    wr->remote_addr = mr_addr(dst, 0);
    wr->rkey = dst->key;
    post(qa);
    wr = wr_new(qa, ROCE_WR_SEND, 2);
    wr_sge(wr, src, 29000, 1000);
    post(qa);
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_SUCCESS);
    SCQ_IS(qa, 1, 2, ROCE_WC_SUCCESS);
    RCQ_IS(qb, 0, 1, ROCE_WC_SUCCESS);
    CHECK(!memcmp(src->buf, dst->buf, 25600), "READ data");
    CHECK(!memcmp(src->buf + 29000, rb->buf, 1000), "SEND data");
    CHECK(tx_by_op[0x0e] == 98, "%u READ middles", tx_by_op[0x0e]);

    /* Six READs, max_rd_atomic 4: four requests go, then two. */
    memset(tx_by_op, 0, sizeof(tx_by_op));
    for (i = 0; i < 6; i++) {
        wr = wr_new(qa, ROCE_WR_READ, 10 + i);
        wr_sge(wr, src, i * 100, 100);
        wr->remote_addr = mr_addr(dst, 1000 + i * 100);
        wr->rkey = dst->key;
        post(qa);
    }
    CHECK(tx_by_op[0x0c] == 4, "%u READ requests before answers",
          tx_by_op[0x0c]);
    run();
    for (i = 0; i < 6; i++) {
        SCQ_IS(qa, 2 + i, 10 + i, ROCE_WC_SUCCESS);
    }
    CHECK(!memcmp(src->buf, dst->buf + 1000, 600), "six READs");
}

static void t_dup_reorder(void)
{
    PairOpts o = defaults(ROCE_QPT_RC);
    FakeMR *src, *dst;
    RoceSendWR *wr;

    setup_pair(&o);
    src = reg_mr(qa->dev, 20000, MR_ALL);
    dst = reg_mr(qb->dev, 20000, MR_ALL);
    add_rule(0, -1, 1, 0, ACT_DUP);             /* every request twice */
    add_rule(1, -1, 1, 0, ACT_DUP);             /* every response too */
    wr = wr_new(qa, ROCE_WR_WRITE, 1);
    wr_sge(wr, src, 0, 10000);
    wr->remote_addr = mr_addr(dst, 0);
    wr->rkey = dst->key;
    post(qa);
    wr = wr_new(qa, ROCE_WR_READ, 2);
    wr_sge(wr, src, 10000, 9000);
    wr->remote_addr = mr_addr(dst, 500);
    wr->rkey = dst->key;
    post(qa);
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_SUCCESS);
    SCQ_IS(qa, 1, 2, ROCE_WC_SUCCESS);
    CHECK(!memcmp(src->buf, dst->buf, 10000), "WRITE data");
    CHECK(!memcmp(src->buf + 10000, dst->buf + 500, 9000), "READ data");

    /* Two WRITE packets swapped: a sequence NAK, then all again. */
    n_rules = 0;
    add_rule(0, 0x07, 2, 1, ACT_HOLD);
    wr = wr_new(qa, ROCE_WR_WRITE, 3);
    wr_sge(wr, src, 0, 8000);
    wr->remote_addr = mr_addr(dst, 12000);
    wr->rkey = dst->key;
    post(qa);
    run();
    CHECK(rules[0].hit == 1, "reordered");
    SCQ_IS(qa, 2, 3, ROCE_WC_SUCCESS);
    CHECK(!memcmp(src->buf, dst->buf + 12000, 8000), "reordered WRITE data");
    CHECK(qa->errors == 0 && qb->errors == 0, "no QP error");
}

static void t_window(void)
{
    PairOpts o = defaults(ROCE_QPT_RC);
    FakeMR *src, *dst;
    RoceSendWR *wr;
    uint32_t len = 300 * 256;

    o.mtu = 256;
    setup_pair(&o);
    src = reg_mr(qa->dev, len, MR_ALL);
    dst = reg_mr(qb->dev, len, MR_ALL);
    wr = wr_new(qa, ROCE_WR_WRITE, 1);
    wr_sge(wr, src, 0, len);
    wr->remote_addr = mr_addr(dst, 0);
    wr->rkey = dst->key;
    post(qa);
    /* Without ACKs, the window stops the requester at 128 packets. */
    run_senders();
    CHECK(q_len == 128, "%u packets sent unacknowledged", q_len);
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_SUCCESS);
    CHECK(!memcmp(src->buf, dst->buf, len), "300-packet WRITE");
    /* AckReq every 65 packets, and on the last. */
    CHECK(tx_by_op[0x11] == 5, "%u ACKs", tx_by_op[0x11]);
}

static void t_rnr(void)
{
    PairOpts o = defaults(ROCE_QPT_RC);
    FakeMR *src, *dst;
    RoceSendWR *wr;

    o.min_rnr_timer = 14;       /* 1.28 ms */
    setup_pair(&o);
    src = reg_mr(qa->dev, 4096, MR_ALL);
    dst = reg_mr(qb->dev, 4096, MR_ALL);
    wr = wr_new(qa, ROCE_WR_SEND, 1);
    wr_sge(wr, src, 0, 3000);
    post(qa);
    run_for(3000000);           /* a few RNR rounds */
    CHECK(devs[1].eng.stats.rnr_naks_sent >= 2, "RNR NAKs %llu",
          (unsigned long long)devs[1].eng.stats.rnr_naks_sent);
    CHECK(qa->n_scq == 0, "not completed yet");
    post_recv_buf(qb, dst, 0, 4096, 1);
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_SUCCESS);
    RCQ_IS(qb, 0, 1, ROCE_WC_SUCCESS);
    CHECK(!memcmp(src->buf, dst->buf, 3000), "data after RNR");

    /* A WRITE with immediate waits for its receive WQE the same way. */
    wr = wr_new(qa, ROCE_WR_WRITE_IMM, 2);
    wr_sge(wr, src, 0, 2500);
    wr->remote_addr = mr_addr(dst, 1000);
    wr->rkey = dst->key;
    wr->imm = 9;
    post(qa);
    run_for(3000000);
    CHECK(qa->n_scq == 1 && devs[1].eng.stats.rnr_naks_sent >= 3,
          "WRITE_IMM waits");
    post_recv_buf(qb, dst, 0, 16, 2);
    run();
    SCQ_IS(qa, 1, 2, ROCE_WC_SUCCESS);
    RCQ_IS(qb, 1, 2, ROCE_WC_SUCCESS);
    CHECK(!memcmp(src->buf, dst->buf + 1000, 2500), "WRITE data after RNR");
}

static void t_rnr_exhausted(void)
{
    PairOpts o = defaults(ROCE_QPT_RC);
    FakeMR *src;
    RoceSendWR *wr;

    o.rnr_retry = 2;
    setup_pair(&o);
    src = reg_mr(qa->dev, 4096, MR_ALL);
    wr = wr_new(qa, ROCE_WR_SEND, 1);
    wr_sge(wr, src, 0, 10);
    post(qa);
    wr = wr_new(qa, ROCE_WR_SEND, 2);
    wr->flags = 0;              /* unsignaled: flushed all the same */
    wr_sge(wr, src, 0, 10);
    post(qa);
    run();
    CHECK(devs[1].eng.stats.rnr_naks_sent == 3, "RNR NAKs %llu",
          (unsigned long long)devs[1].eng.stats.rnr_naks_sent);
    SCQ_IS(qa, 0, 1, ROCE_WC_RNR_RETRY_EXC_ERR);
    SCQ_IS(qa, 1, 2, ROCE_WC_WR_FLUSH_ERR);
    CHECK(qa->errors == 1 && qa->rq.attr.state == ROCE_QPS_ERR,
          "requester QP in error");
    /* Posted while in error: flushed at once. */
    wr = wr_new(qa, ROCE_WR_SEND, 3);
    post(qa);
    SCQ_IS(qa, 2, 3, ROCE_WC_WR_FLUSH_ERR);
}

static void t_retry_exceeded(void)
{
    PairOpts o = defaults(ROCE_QPT_RC);
    FakeMR *src;
    RoceSendWR *wr;

    o.retry_cnt = 3;
    setup_pair(&o);
    src = reg_mr(qa->dev, 4096, MR_ALL);
    add_rule(0, -1, 1, 0, ACT_DROP);            /* a dead link */
    wr = wr_new(qa, ROCE_WR_SEND, 1);
    wr_sge(wr, src, 0, 2000);
    post(qa);
    wr = wr_new(qa, ROCE_WR_READ, 2);
    wr_sge(wr, src, 0, 8);
    post(qa);
    run();
    CHECK(devs[0].eng.stats.timeouts == 4, "timeouts %llu",
          (unsigned long long)devs[0].eng.stats.timeouts);
    CHECK(rules[0].hit == 4 * 3, "%d packets sent", rules[0].hit);
    SCQ_IS(qa, 0, 1, ROCE_WC_RETRY_EXC_ERR);
    SCQ_IS(qa, 1, 2, ROCE_WC_WR_FLUSH_ERR);
    CHECK(qa->errors == 1, "QP in error");
}

static void t_remote_access(void)
{
    PairOpts o = defaults(ROCE_QPT_RC);
    FakeMR *src, *ro, *dst;
    RoceSendWR *wr;

    setup_pair(&o);
    src = reg_mr(qa->dev, 4096, MR_ALL);
    ro = reg_mr(qb->dev, 4096, MR_LOCAL_WRITE | MR_REMOTE_READ);
    dst = reg_mr(qb->dev, 4096, MR_ALL);
    post_recv_buf(qb, dst, 0, 4096, 10);
    /* A bad rkey. */
    wr = wr_new(qa, ROCE_WR_WRITE, 1);
    wr_sge(wr, src, 0, 100);
    wr->remote_addr = mr_addr(ro, 0);
    wr->rkey = 0xbad;
    post(qa);
    wr = wr_new(qa, ROCE_WR_SEND, 2);
    wr_sge(wr, src, 0, 100);
    post(qa);
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_REM_ACCESS_ERR);
    SCQ_IS(qa, 1, 2, ROCE_WC_WR_FLUSH_ERR);
    CHECK(qa->errors == 1 && qb->errors == 1, "both QPs in error");
    CHECK(qb->rq.attr.state == ROCE_QPS_ERR, "responder in ERR");
    RCQ_IS(qb, 0, 10, ROCE_WC_WR_FLUSH_ERR);

    /* A key without the right: WRITE to a read-only region. */
    setup_pair(&o);
    src = reg_mr(qa->dev, 4096, MR_ALL);
    ro = reg_mr(qb->dev, 4096, MR_LOCAL_WRITE | MR_REMOTE_READ);
    wr = wr_new(qa, ROCE_WR_WRITE, 1);
    wr_sge(wr, src, 0, 3000);
    wr->remote_addr = mr_addr(ro, 0);
    wr->rkey = ro->key;
    post(qa);
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_REM_ACCESS_ERR);

    /* Beyond the region: refused whole, before any response. */
    setup_pair(&o);
    src = reg_mr(qa->dev, 4096, MR_ALL);
    ro = reg_mr(qb->dev, 4096, MR_ALL);
    wr = wr_new(qa, ROCE_WR_READ, 1);
    wr_sge(wr, src, 0, 3000);
    wr->remote_addr = mr_addr(ro, 2000);
    wr->rkey = ro->key;
    post(qa);
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_REM_ACCESS_ERR);
    CHECK(tx_by_op[0x0d] == 0, "no READ response sent");

    /* The QP does not allow remote writes, nor reads. */
    o.access = ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC;
    setup_pair(&o);
    src = reg_mr(qa->dev, 4096, MR_ALL);
    ro = reg_mr(qb->dev, 4096, MR_ALL);
    wr = wr_new(qa, ROCE_WR_WRITE, 1);
    wr_sge(wr, src, 0, 100);
    wr->remote_addr = mr_addr(ro, 0);
    wr->rkey = ro->key;
    post(qa);
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_REM_ACCESS_ERR);
    CHECK(memcmp(src->buf, ro->buf, 100), "nothing written");
    o.access = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_ATOMIC;
    setup_pair(&o);
    src = reg_mr(qa->dev, 4096, MR_ALL);
    ro = reg_mr(qb->dev, 4096, MR_ALL);
    wr = wr_new(qa, ROCE_WR_READ, 1);
    wr_sge(wr, src, 0, 100);
    wr->remote_addr = mr_addr(ro, 0);
    wr->rkey = ro->key;
    post(qa);
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_REM_ACCESS_ERR);

    /* The QP does not allow remote atomics. */
    o.access = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ;
    setup_pair(&o);
    src = reg_mr(qa->dev, 64, MR_ALL);
    ro = reg_mr(qb->dev, 64, MR_ALL);
    wr = wr_new(qa, ROCE_WR_FETCH_ADD, 1);
    wr_sge(wr, src, 0, 8);
    wr->remote_addr = mr_addr(ro, 0);
    wr->rkey = ro->key;
    post(qa);
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_REM_ACCESS_ERR);
}

static void t_local_errors(void)
{
    PairOpts o = defaults(ROCE_QPT_RC);
    FakeMR *src, *dst;
    RoceSendWR *wr;

    /* A bad lkey on the send side. */
    setup_pair(&o);
    src = reg_mr(qa->dev, 4096, MR_ALL);
    wr = wr_new(qa, ROCE_WR_SEND, 1);
    wr_sge(wr, src, 0, 100);
    wr->sge[0].lkey = 0x777;
    post(qa);
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_LOC_PROT_ERR);
    CHECK(tx_by_op[0x04] == 0, "nothing sent");

    /* A receive buffer too small. */
    setup_pair(&o);
    src = reg_mr(qa->dev, 4096, MR_ALL);
    dst = reg_mr(qb->dev, 4096, MR_ALL);
    post_recv_buf(qb, dst, 0, 1000, 5);
    wr = wr_new(qa, ROCE_WR_SEND, 1);
    wr_sge(wr, src, 0, 3000);
    post(qa);
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_REM_INV_REQ_ERR);
    RCQ_IS(qb, 0, 5, ROCE_WC_LOC_LEN_ERR);

    /* A READ into a region without local write. */
    setup_pair(&o);
    src = reg_mr(qa->dev, 4096, MR_REMOTE_READ);
    dst = reg_mr(qb->dev, 4096, MR_ALL);
    wr = wr_new(qa, ROCE_WR_READ, 1);
    wr_sge(wr, src, 0, 100);
    wr->remote_addr = mr_addr(dst, 0);
    wr->rkey = dst->key;
    post(qa);
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_LOC_PROT_ERR);
}

static void t_local_op_fence(void)
{
    PairOpts o = defaults(ROCE_QPT_RC);
    FakeMR *src, *dst;
    RoceSendWR *wr;

    setup_pair(&o);
    src = reg_mr(qa->dev, 8192, MR_ALL);
    dst = reg_mr(qb->dev, 8192, MR_ALL);
    wr = wr_new(qa, ROCE_WR_READ, 1);
    wr_sge(wr, src, 0, 4000);
    wr->remote_addr = mr_addr(dst, 0);
    wr->rkey = dst->key;
    post(qa);
    wr = wr_new(qa, ROCE_WR_LOCAL, 2);
    post(qa);
    /* Fenced: leaves only once the READ is answered. */
    wr = wr_new(qa, ROCE_WR_WRITE, 3);
    wr->flags |= ROCE_WR_FENCE;
    wr_sge(wr, src, 0, 100);
    wr->remote_addr = mr_addr(dst, 6000);
    wr->rkey = dst->key;
    post(qa);
    CHECK(tx_by_op[0x0a] == 0, "the fenced WRITE waits");
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_SUCCESS);
    SCQ_IS(qa, 1, 2, ROCE_WC_SUCCESS);
    SCQ_IS(qa, 2, 3, ROCE_WC_SUCCESS);
    CHECK(qa->local_ops == 1 && qa->n_scq == 3 &&
          qa->scq[1].opcode == ROCE_WC_LOCAL, "local op in order");
    CHECK(!memcmp(dst->buf, src->buf, 100), "the WRITE after the READ");
}

/* The front end moves QPs to ERR, then RESET, and uses them again. */
static void t_modify_err_reset(void)
{
    PairOpts o = defaults(ROCE_QPT_RC);
    FakeMR *src, *dst;
    RoceSendWR *wr;

    setup_pair(&o);
    src = reg_mr(qa->dev, 4096, MR_ALL);
    dst = reg_mr(qb->dev, 4096, MR_ALL);
    add_rule(0, -1, 1, 0, ACT_DROP);
    post_recv_buf(qb, dst, 0, 4096, 1);
    post_recv_buf(qb, dst, 0, 4096, 2);
    wr = wr_new(qa, ROCE_WR_SEND, 1);
    wr_sge(wr, src, 0, 3000);
    post(qa);
    wr = wr_new(qa, ROCE_WR_WRITE, 2);
    wr->flags = 0;
    wr_sge(wr, src, 0, 10);
    wr->rkey = dst->key;
    wr->remote_addr = mr_addr(dst, 0);
    post(qa);
    run_for(1000000);
    CHECK(qa->n_scq == 0, "nothing completed yet");
    qp_modify(qa, ROCE_QPS_ERR);
    qp_modify(qb, ROCE_QPS_ERR);
    SCQ_IS(qa, 0, 1, ROCE_WC_WR_FLUSH_ERR);
    SCQ_IS(qa, 1, 2, ROCE_WC_WR_FLUSH_ERR);
    RCQ_IS(qb, 0, 1, ROCE_WC_WR_FLUSH_ERR);
    RCQ_IS(qb, 1, 2, ROCE_WC_WR_FLUSH_ERR);
    CHECK(qa->timer < 0, "no timer left in ERR");
    CHECK(qa->errors == 0, "no qp_error for the front end's own modify");

    /* RESET, reconnected with new PSNs: works as new. */
    n_rules = 0;
    qp_modify(qa, ROCE_QPS_RESET);
    qp_modify(qb, ROCE_QPS_RESET);
    qa->sq_pi = 0;
    qb->rq_pi = qb->rq_ci = 0;
    connect_qp(qa, &devs[0], &devs[1], 0x22, &o, 0x500000, 0x600000);
    connect_qp(qb, &devs[1], &devs[0], 0x11, &o, 0x600000, 0x500000);
    qa->n_scq = qb->n_rcq = 0;
    post_recv_buf(qb, dst, 0, 4096, 3);
    wr = wr_new(qa, ROCE_WR_SEND, 3);
    wr_sge(wr, src, 0, 3000);
    post(qa);
    run();
    SCQ_IS(qa, 0, 3, ROCE_WC_SUCCESS);
    RCQ_IS(qb, 0, 3, ROCE_WC_SUCCESS);
    CHECK(!memcmp(src->buf, dst->buf, 3000), "data after RESET");
}

static void t_srq(void)
{
    PairOpts o = defaults(ROCE_QPT_RC);
    FakeMR *src, *dst;
    RoceSendWR *wr;
    RoceRecvWR *r;

    setup_pair(&o);
    qb->use_srq = true;
    src = reg_mr(qa->dev, 4096, MR_ALL);
    dst = reg_mr(qb->dev, 4096, MR_ALL);
    r = &devs[1].srq[devs[1].srq_pi++ % RQ_SIZE];
    memset(r, 0, sizeof(*r));
    r->wr_id = 55;
    recv_sge(r, dst, 0, 4096);
    wr = wr_new(qa, ROCE_WR_SEND, 1);
    wr_sge(wr, src, 0, 2500);
    post(qa);
    run();
    SCQ_IS(qa, 0, 1, ROCE_WC_SUCCESS);
    RCQ_IS(qb, 0, 55, ROCE_WC_SUCCESS);
    CHECK(!memcmp(src->buf, dst->buf, 2500), "SRQ data");
}

static uint16_t csum16(const uint8_t *p, size_t len)
{
    uint32_t sum = 0;
    size_t i;

    for (i = 0; i + 1 < len; i += 2) {
        sum += p[i] << 8 | p[i + 1];
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return (uint16_t)~sum;
}

/* An IPv4 RoCEv2 frame's lengths, IP checksum and ICRC made right. */
static void fix_frame(uint8_t *f, size_t len)
{
    uint8_t *ip = f + 14;
    uint16_t c;
    uint32_t crc;

    if (len < 14 + 20 + 8) {
        return;
    }
    ip[2] = (uint8_t)((len - 14) >> 8);
    ip[3] = (uint8_t)(len - 14);
    ip[10] = ip[11] = 0;
    c = csum16(ip, 20);
    ip[10] = c >> 8;
    ip[11] = (uint8_t)c;
    ip[24] = (uint8_t)((len - 34) >> 8);
    ip[25] = (uint8_t)(len - 34);
    if (len >= 14 + 20 + 8 + 12 + 4) {
        crc = roce_icrc(ip, len - 14 - 4);
        memcpy(f + len - 4, &crc, 4);
    }
}

/* Frames of every kind, truncated, mutated and random, to an RC QP. */
/* The UC, UD and GSI QPs of the fuzz, per device. */
static FakeQP *xq[2][3];

/* Receive WQEs for every QP of the fuzz, whatever it consumed. */
static void fuzz_recvs(FakeMR *mr)
{
    FakeQP *q;
    int d, i;

    for (d = 0; d < 2; d++) {
        for (i = 0; i < MAX_QP; i++) {
            q = devs[d].qp[i];
            while (q && q->rq_pi - q->rq_ci < 64) {
                post_recv_buf(q, mr, 0, 8192, q->rq_pi);
            }
            if (q) {
                q->n_rcq = q->n_scq = 0;
            }
        }
    }
}

static void t_fuzz(void)
{
    static Frame corpus[256];
    PairOpts o = defaults(ROCE_QPT_RC);
    unsigned int n = 0, k, iter;
    FakeMR *src, *dst, *res;
    RoceSendWR *wr;
    uint8_t f[ROCE_FRAME_MAX], *exact;
    size_t len;

    /* A corpus: what a few exchanges put on the wire. */
    setup_pair(&o);
    src = reg_mr(qa->dev, 8192, MR_ALL);
    dst = reg_mr(qb->dev, 8192, MR_ALL);
    res = reg_mr(qa->dev, 64, MR_ALL);
    post_recv_buf(qb, dst, 0, 8192, 1);
    wr = wr_new(qa, ROCE_WR_SEND_IMM, 1);
    wr_sge(wr, src, 0, 3000);
    post(qa);
    wr = wr_new(qa, ROCE_WR_WRITE, 2);
    wr_sge(wr, src, 0, 3000);
    wr->remote_addr = mr_addr(dst, 0);
    wr->rkey = dst->key;
    post(qa);
    wr = wr_new(qa, ROCE_WR_READ, 3);
    wr_sge(wr, src, 0, 3000);
    wr->remote_addr = mr_addr(dst, 0);
    wr->rkey = dst->key;
    post(qa);
    wr = wr_new(qa, ROCE_WR_CMP_SWP, 4);
    wr_sge(wr, res, 0, 8);
    wr->remote_addr = mr_addr(dst, 8);
    wr->rkey = dst->key;
    post(qa);
    /* And a UC, a UD and a GSI QP on each side, with their frames. */
    o.type = ROCE_QPT_UC;
    for (k = 0; k < 2; k++) {
        xq[k][0] = new_qp(&devs[k], ROCE_QPT_UC, 0x44);
        connect_qp(xq[k][0], &devs[k], &devs[!k], 0x44, &o, 0x10, 0x10);
        xq[k][1] = new_qp(&devs[k], ROCE_QPT_UD, 0x33);
        connect_qp(xq[k][1], &devs[k], &devs[!k], 0, &o, 0, 0);
        xq[k][2] = new_qp(&devs[k], ROCE_QPT_GSI, 0x55);
        connect_qp(xq[k][2], &devs[k], &devs[!k], 0, &o, 0, 0);
    }
    fuzz_recvs(dst);
    wr = wr_new(xq[0][0], ROCE_WR_SEND_IMM, 5);
    wr_sge(wr, src, 0, 2500);
    post(xq[0][0]);
    wr = wr_new(xq[0][0], ROCE_WR_WRITE, 6);
    wr_sge(wr, src, 0, 2500);
    wr->remote_addr = mr_addr(dst, 0);
    wr->rkey = dst->key;
    post(xq[0][0]);
    for (k = 1; k < 3; k++) {
        wr = wr_new(xq[0][k], ROCE_WR_SEND_IMM, 7);
        wr_sge(wr, src, 0, 300);
        fill_av(&wr->av, &devs[0], &devs[1], false);
        wr->remote_qpn = k == 1 ? 0x33 : 1;
        wr->remote_qkey = k == 1 ? 0x11111111 : ROCE_GSI_QKEY;
        post(xq[0][k]);
    }
    while (q_len && n < 256) {
        Frame *fr = &queue[q_head];

        corpus[n++] = *fr;
        q_head = (q_head + 1) % QUEUE_MAX;
        q_len--;
        roce_engine_rx(&fr->dst->eng, fr->data, fr->len);
    }
    run();
    diag("corpus of %u frames, seed %u", n, seed);

    for (iter = 0; iter < 200000; iter++) {
        Frame *c = &corpus[rnd() % n];
        unsigned int kind = rnd() % 4;
        FakeDev *to = rnd() % 4 ? c->dst : c->dst->peer;

        len = c->len;
        memcpy(f, c->data, len);
        switch (kind) {
        case 0:                 /* truncated */
            len = rnd() % (len + 1);
            break;
        case 1:                 /* bytes flipped: the ICRC fails */
            for (k = 0; k < 1 + rnd() % 4; k++) {
                f[14 + rnd() % (len - 14)] ^= (uint8_t)(1 + rnd() % 255);
            }
            break;
        case 2:
            /*
             * Transport bytes flipped, maybe cut short, in a valid
             * envelope (lengths, checksums, ICRC): the parser's checks
             * and the state machines get them.
             */
            if (rnd() % 2) {
                len = 14 + 20 + 8 + rnd() % (len - 14 - 20 - 8 + 1);
            }
            for (k = 0; k < 1 + rnd() % 4 && len > 14 + 20 + 8; k++) {
                f[14 + 20 + 8 + rnd() % (len - 14 - 20 - 8)] ^=
                    (uint8_t)(1 + rnd() % 255);
            }
            fix_frame(f, len);
            break;
        default:                /* random */
            len = rnd() % (ROCE_FRAME_MAX + 1);
            for (k = 0; k < len; k++) {
                f[k] = (uint8_t)rnd();
            }
            break;
        }
        /* Exactly the frame's bytes, so that ASan sees any overrun. */
        exact = malloc(len ? len : 1);
        memcpy(exact, f, len);
        roce_engine_rx(&to->eng, exact, len);
        free(exact);
        if (iter % 64 == 0) {
            run_for(100000000);
            q_head = q_len = 0;
            /* QPs the fuzz put in error start over, to be fuzzed on. */
            if (qa->rq.attr.state == ROCE_QPS_ERR) {
                qp_modify(qa, ROCE_QPS_RESET);
                qa->sq_pi = 0;
                connect_qp(qa, &devs[0], &devs[1], 0x22, &o, o.psn_a,
                           o.psn_b);
            }
            if (qb->rq.attr.state == ROCE_QPS_ERR) {
                qp_modify(qb, ROCE_QPS_RESET);
                qb->sq_pi = 0;
                connect_qp(qb, &devs[1], &devs[0], 0x11, &o, o.psn_b,
                           o.psn_a);
            }
            for (k = 0; k < 6; k++) {
                FakeQP *x = xq[k / 3][k % 3];

                if (x->rq.attr.state == ROCE_QPS_ERR) {
                    qp_modify(x, ROCE_QPS_RESET);
                    x->sq_pi = 0;
                    x->rq_pi = x->rq_ci = 0;
                    connect_qp(x, x->dev, x->dev->peer, x->attr.dest_qpn,
                               &o, 0x10, 0x10);
                }
            }
            fuzz_recvs(dst);
        }
    }
    run();
    diag("rx %llu/%llu, malformed %llu/%llu, bad ICRC %llu/%llu",
         (unsigned long long)devs[0].eng.stats.rx_packets,
         (unsigned long long)devs[1].eng.stats.rx_packets,
         (unsigned long long)devs[0].eng.stats.rx_malformed,
         (unsigned long long)devs[1].eng.stats.rx_malformed,
         (unsigned long long)devs[0].eng.stats.rx_bad_icrc,
         (unsigned long long)devs[1].eng.stats.rx_bad_icrc);
    CHECK(devs[0].eng.stats.rx_malformed + devs[1].eng.stats.rx_malformed >
          1000, "malformed frames seen");
    CHECK(devs[0].eng.stats.rx_packets + devs[1].eng.stats.rx_packets -
          devs[0].eng.stats.rx_malformed - devs[1].eng.stats.rx_malformed >
          1000, "frames got past the parser");
}

/* The frames of a few message kinds, for roce_capture_check.py. */
static void t_capture(void)
{
    PairOpts o = defaults(ROCE_QPT_RC);
    FakeMR *src, *dst, *res;
    RoceSendWR *wr;
    int v6;

    capture_on = pcap != NULL;
    for (v6 = 0; v6 < 2; v6++) {
        o.type = ROCE_QPT_RC;
        o.v6 = v6;
        setup_pair(&o);
        src = reg_mr(qa->dev, 16384, MR_ALL);
        dst = reg_mr(qb->dev, 16384, MR_ALL);
        res = reg_mr(qa->dev, 64, MR_ALL);
        post_recv_buf(qb, dst, 0, 8192, 1);
        post_recv_buf(qb, dst, 0, 8192, 2);
        post_recv_buf(qb, dst, 0, 8192, 3);
        wr = wr_new(qa, ROCE_WR_SEND, 1);       /* 4 KiB at MTU 1024 */
        wr_sge(wr, src, 0, 4096);
        post(qa);
        run();
        wr = wr_new(qa, ROCE_WR_WRITE, 2);      /* 8 KiB */
        wr_sge(wr, src, 0, 8192);
        wr->remote_addr = mr_addr(dst, 0);
        wr->rkey = dst->key;
        post(qa);
        run();
        wr = wr_new(qa, ROCE_WR_READ, 3);       /* 8 KiB */
        wr_sge(wr, src, 0, 8192);
        wr->remote_addr = mr_addr(dst, 0);
        wr->rkey = dst->key;
        post(qa);
        run();
        wr = wr_new(qa, ROCE_WR_FETCH_ADD, 4);
        wr_sge(wr, res, 0, 8);
        wr->remote_addr = mr_addr(dst, 0);
        wr->rkey = dst->key;
        post(qa);
        run();
        wr = wr_new(qa, ROCE_WR_CMP_SWP, 5);
        wr_sge(wr, res, 0, 8);
        wr->remote_addr = mr_addr(dst, 0);
        wr->rkey = dst->key;
        post(qa);
        run();
        wr = wr_new(qa, ROCE_WR_WRITE_IMM, 6);
        wr_sge(wr, src, 0, 100);
        wr->remote_addr = mr_addr(dst, 0);
        wr->rkey = dst->key;
        post(qa);
        run();
        wr = wr_new(qa, ROCE_WR_SEND_IMM, 7);
        wr_sge(wr, src, 0, 1500);
        post(qa);
        run();
        CHECK(qa->n_scq == 7 && qa->scq[6].status == ROCE_WC_SUCCESS,
              "capture: RC messages done");

        o.type = ROCE_QPT_UC;                   /* UC 2 KiB */
        setup_pair(&o);
        src = reg_mr(qa->dev, 4096, MR_ALL);
        dst = reg_mr(qb->dev, 4096, MR_ALL);
        post_recv_buf(qb, dst, 0, 4096, 1);
        wr = wr_new(qa, ROCE_WR_SEND, 1);
        wr_sge(wr, src, 0, 2048);
        post(qa);
        run();
        CHECK(qb->n_rcq == 1, "capture: UC received");

        o.type = ROCE_QPT_UD;                   /* UD */
        setup_pair(&o);
        src = reg_mr(qa->dev, 4096, MR_ALL);
        dst = reg_mr(qb->dev, 4096, MR_ALL);
        post_recv_buf(qb, dst, 0, 4096, 1);
        wr = wr_new(qa, ROCE_WR_SEND, 1);
        wr_sge(wr, src, 0, 1000);
        fill_av(&wr->av, &devs[0], &devs[1], v6);
        wr->remote_qpn = 0x22;
        wr->remote_qkey = 0x11111111;
        post(qa);
        run();
        CHECK(qb->n_rcq == 1, "capture: UD received");
    }
    capture_on = false;
}

typedef struct Case {
    const char *name;
    void (*fn)(void);
} Case;

static const Case cases[] = {
    { "rc_send_sizes", t_rc_send_sizes },
    { "rc_send_psn_wrap", t_rc_send_psn_wrap },
    { "rc_send_multi_sge", t_rc_send_multi_sge },
    { "rc_send_inline_imm", t_rc_send_inline_imm },
    { "rc_write_write_imm", t_rc_write },
    { "rc_read_multi_packet", t_rc_read },
    { "rc_atomics", t_rc_atomics },
    { "rc_send_inv", t_rc_send_inv },
    { "uc_send_write_loss", t_uc },
    { "ud_ipv4_grh", t_ud_ipv4 },
    { "ud_ipv6_vlan_grh", t_ud_ipv6_vlan },
    { "ud_multicast", t_ud_multicast },
    { "xrc", t_xrc },
    { "gsi_qkey", t_gsi_qkey },
    { "loss_send_middle", t_loss_send_middle },
    { "loss_write_last", t_loss_write_last },
    { "loss_ack", t_loss_ack },
    { "loss_read_request", t_loss_read_request },
    { "loss_read_response_middle", t_loss_read_middle },
    { "loss_read_response_last", t_loss_read_last },
    { "loss_atomic_ack", t_loss_atomic_ack },
    { "loss_atomic_request", t_loss_atomic_request },
    { "loss_nak", t_loss_nak },
    { "loss_rnr_nak", t_loss_rnr_nak },
    { "invalid_requests", t_invalid_requests },
    { "long_read", t_long_read },
    { "duplicate_reorder", t_dup_reorder },
    { "window_300_packets", t_window },
    { "rnr_then_posted", t_rnr },
    { "rnr_retry_exhausted", t_rnr_exhausted },
    { "retry_exceeded", t_retry_exceeded },
    { "remote_access_errors", t_remote_access },
    { "local_errors", t_local_errors },
    { "local_op_fence", t_local_op_fence },
    { "modify_err_reset", t_modify_err_reset },
    { "srq", t_srq },
    { "capture", t_capture },
    { "fuzz", t_fuzz },
};

int main(int argc, char **argv)
{
    unsigned int n = sizeof(cases) / sizeof(cases[0]), i, failed = 0;
    const char *pcap_path = NULL, *only = NULL;
    int c;

    while ((c = getopt(argc, argv, "p:s:t:v")) != -1) {
        switch (c) {
        case 'p':
            pcap_path = optarg;
            break;
        case 's':
            if (sscanf(optarg, "%u", &seed) != 1) {
                return 2;
            }
            break;
        case 't':
            only = optarg;
            break;
        case 'v':
            verbose = true;
            break;
        default:
            fprintf(stderr, "usage: %s [-p PCAP] [-s SEED] [-t CASE] [-v]\n",
                    argv[0]);
            return 2;
        }
    }
    /* Lines out as they are printed: a sanitizer abort loses none. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    queue = calloc(QUEUE_MAX, sizeof(*queue));
    if (pcap_path) {
        static const uint32_t hdr[6] = {
            0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1
        };

        pcap = fopen(pcap_path, "wb");
        if (!pcap) {
            perror(pcap_path);
            return 2;
        }
        fwrite(hdr, sizeof(hdr), 1, pcap);
    }
    printf("KTAP version 1\n");
    printf("1..%u\n", only ? 1 : n);
    printf("# seed %u, sizeof(RoceQP) %zu, sizeof(RoceEngine) %zu\n", seed,
           sizeof(RoceQP), sizeof(RoceEngine));
    for (i = 0; i < n; i++) {
        if (only && strcmp(only, cases[i].name)) {
            continue;
        }
        failures = 0;
        now_ns = 1000000000;
        cases[i].fn();
        printf("%sok %u %s\n", failures ? "not " : "", only ? 1 : i + 1,
               cases[i].name);
        failed += failures != 0;
    }
    reset_world();
    free(queue);
    if (pcap) {
        fclose(pcap);
    }
    printf("# %u of %u failed\n", failed, only ? 1 : n);
    return failed ? 1 : 0;
}
