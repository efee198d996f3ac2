/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 model: the PE's QPs, as far as the control path goes.
 *
 * CREATE_QP and MODIFY_QP carry the address of a 256-byte context the
 * driver filled (queue addresses or PBLE indices, addresses, ports,
 * PSNs, keys, CQ numbers, the QP's completion context, its queue set
 * handle); the model copies it, with the QP's type and the state the
 * command moves it to, into its own table, and hands it to the RoCE data
 * path (e810-roce-qp.c).  DESTROY_QP forgets it, UPLOAD_CONTEXT hands the
 * copy back.
 * SUSPEND_QP (irdma's traffic class changes) completes with the
 * asynchronous event the driver waits for.  FLUSH_WQES has the data
 * path write a flush CQE on each queue it names (irdma's modify to
 * error, and its user QPs' "reflush" of WQEs posted in error), and the
 * event it asks for.
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "e810.h"
#include "e810-pe.h"

#define E810_QP_HDR_QPID(h)     extract64(h, 0, 24)
#define E810_QP_HDR_VQ          BIT_ULL(45)
#define E810_QP_HDR_TYPE(h)     extract64(h, 48, 3)
#define E810_QP_HDR_NEXT_STATE(h) extract64(h, 60, 3)

/* The context's completion context (qword 21). */
#define E810_QPC_COMPL_CTX      168

/* An asynchronous event's second qword. */
#define E810_AEQE_QPID_LOW(id)  ((uint64_t)(id) & 0x3ffff)
#define E810_AEQE_QPID_HI(id)   ((uint64_t)(((id) >> 18) & 1) << 46)
#define E810_AEQE_CODE(c)       ((uint64_t)(c) << 34)
#define E810_AE_QP_SUSPEND_COMPLETE 0x900

/* FLUSH_WQES: which queues, the codes' source; major 1 minor 1. */
#define E810_FWQE_GENERATE_AE   BIT_ULL(59)
#define E810_FWQE_USERFLCODE    BIT_ULL(60)
#define E810_FWQE_FLUSHSQ       BIT_ULL(61)
#define E810_FWQE_FLUSHRQ       BIT_ULL(62)
#define E810_FLUSH_DEFAULT      0x00010001

static E810PeQp *e810_pe_qp_find(E810Pe *pe, uint32_t id)
{
    return id < E810_PE_MAX_QPS ? pe->qp[id] : NULL;
}

/* Copy the driver's context into QP (create, modify). */
static uint32_t e810_pe_qp_load(E810State *s, E810PeQp *qp,
                                const uint8_t *wqe)
{
    uint64_t hdr = e810_wqe_hdr(wqe);

    qp->ctx_pa = e810_wqe_q(wqe, 2);
    qp->shadow_pa = e810_wqe_q(wqe, 5);
    if (!e810_dma_read(s, qp->ctx_pa, qp->ctx, sizeof(qp->ctx))) {
        return E810_PE_ERR_DMA;
    }
    qp->type = E810_QP_HDR_TYPE(hdr);
    qp->state = E810_QP_HDR_NEXT_STATE(hdr);
    qp->virt = hdr & E810_QP_HDR_VQ;
    return 0;
}

static uint32_t e810_pe_create_qp(E810State *s, E810Pe *pe,
                                  const uint8_t *wqe, uint32_t *ret)
{
    uint32_t id = E810_QP_HDR_QPID(e810_wqe_hdr(wqe));
    E810PeQp *qp;
    uint32_t status;

    if (id >= E810_PE_MAX_QPS || !e810_hmc_has(pe, E810_HMC_QP, id) ||
        pe->qp[id]) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: CREATE_QP %u\n", id);
        return E810_PE_ERR_INVAL;
    }
    qp = g_new0(E810PeQp, 1);
    status = e810_pe_qp_load(s, qp, wqe);
    if (status) {
        g_free(qp);
        return status;
    }
    pe->qp[id] = qp;
    e810_roce_qp_create(s, id, qp);
    return 0;
}

static uint32_t e810_pe_modify_qp(E810State *s, E810Pe *pe,
                                  const uint8_t *wqe, uint32_t *ret)
{
    uint32_t id = E810_QP_HDR_QPID(e810_wqe_hdr(wqe));
    E810PeQp *qp = e810_pe_qp_find(pe, id);
    uint32_t status;

    if (!qp) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: MODIFY_QP %u: no such QP\n",
                      id);
        return E810_PE_ERR_INVAL;
    }
    status = e810_pe_qp_load(s, qp, wqe);
    if (!status) {
        e810_roce_qp_modify(s, id, qp);
    }
    return status;
}

static uint32_t e810_pe_destroy_qp(E810State *s, E810Pe *pe,
                                   const uint8_t *wqe, uint32_t *ret)
{
    uint32_t id = E810_QP_HDR_QPID(e810_wqe_hdr(wqe));

    if (!e810_pe_qp_find(pe, id)) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: DESTROY_QP %u: no such QP\n",
                      id);
        return E810_PE_ERR_INVAL;
    }
    e810_roce_qp_free(pe->qp[id]);
    g_free(pe->qp[id]);
    pe->qp[id] = NULL;
    return 0;
}

static uint32_t e810_pe_upload_ctx(E810State *s, E810Pe *pe,
                                   const uint8_t *wqe, uint32_t *ret)
{
    E810PeQp *qp = e810_pe_qp_find(pe, E810_QP_HDR_QPID(e810_wqe_hdr(wqe)));

    if (!qp) {
        return E810_PE_ERR_INVAL;
    }
    if (!e810_dma_write(s, e810_wqe_q(wqe, 2), qp->ctx, sizeof(qp->ctx))) {
        return E810_PE_ERR_DMA;
    }
    return 0;
}

static uint32_t e810_pe_flush_wqes(E810State *s, E810Pe *pe,
                                   const uint8_t *wqe, uint32_t *ret)
{
    uint64_t hdr = e810_wqe_hdr(wqe), codes = e810_wqe_q(wqe, 2);
    uint32_t id = E810_QP_HDR_QPID(hdr);
    E810PeQp *qp = e810_pe_qp_find(pe, id);
    uint32_t sq_code = E810_FLUSH_DEFAULT, rq_code = E810_FLUSH_DEFAULT;

    if (!qp) {
        return E810_PE_ERR_INVAL;
    }
    if (hdr & E810_FWQE_USERFLCODE) {
        sq_code = codes >> 32;
        rq_code = (uint32_t)codes;
    }
    e810_roce_qp_flush(s, qp, hdr & E810_FWQE_FLUSHSQ,
                       hdr & E810_FWQE_FLUSHRQ, sq_code, rq_code);
    if (hdr & E810_FWQE_GENERATE_AE) {
        /* The event the driver asks for, about this QP. */
        uint64_t q1 = e810_wqe_q(wqe, 1);

        e810_pe_aeq_post(s, ldq_le_p(qp->ctx + E810_QPC_COMPL_CTX),
                         E810_AEQE_QPID_LOW(id) | E810_AEQE_QPID_HI(id) |
                         E810_AEQE_CODE(extract64(q1, 0, 16)) |
                         (uint64_t)extract64(q1, 16, 4) << 50);
    }
    return 0;
}

static uint32_t e810_pe_suspend_qp(E810State *s, E810Pe *pe,
                                   const uint8_t *wqe, uint32_t *ret)
{
    uint32_t id = E810_QP_HDR_QPID(e810_wqe_hdr(wqe));
    E810PeQp *qp = e810_pe_qp_find(pe, id);

    if (!qp) {
        return E810_PE_ERR_INVAL;
    }
    /* Nothing in flight: suspended at once, and the driver is told. */
    e810_pe_aeq_post(s, ldq_le_p(qp->ctx + E810_QPC_COMPL_CTX),
                     E810_AEQE_QPID_LOW(id) | E810_AEQE_QPID_HI(id) |
                     E810_AEQE_CODE(E810_AE_QP_SUSPEND_COMPLETE));
    return 0;
}

static uint32_t e810_pe_resume_qp(E810State *s, E810Pe *pe,
                                  const uint8_t *wqe, uint32_t *ret)
{
    uint32_t id = E810_QP_HDR_QPID(e810_wqe_hdr(wqe));

    return e810_pe_qp_find(pe, id) ? 0 : E810_PE_ERR_INVAL;
}

void e810_pe_qp_reset(E810Pe *pe)
{
    unsigned int i;

    for (i = 0; i < E810_PE_MAX_QPS; i++) {
        if (pe->qp[i]) {
            e810_roce_qp_free(pe->qp[i]);
        }
        g_free(pe->qp[i]);
        pe->qp[i] = NULL;
    }
}

const E810PeOp e810_pe_qp_ops[] = {
    { E810_CQP_CREATE_QP, "create_qp", e810_pe_create_qp },
    { E810_CQP_MODIFY_QP, "modify_qp", e810_pe_modify_qp },
    { E810_CQP_DESTROY_QP, "destroy_qp", e810_pe_destroy_qp },
    { E810_CQP_UPLOAD_CONTEXT, "upload_context", e810_pe_upload_ctx },
    { E810_CQP_FLUSH_WQES, "flush_wqes", e810_pe_flush_wqes },
    { E810_CQP_SUSPEND_QP, "suspend_qp", e810_pe_suspend_qp },
    { E810_CQP_RESUME_QP, "resume_qp", e810_pe_resume_qp },
    { 0, NULL, NULL }
};
