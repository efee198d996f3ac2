/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * E810 device model: the PHY, the link and the MAC configuration.
 *
 * The port is an SFP28 cage with a 25GBASE-SR module that is always
 * plugged in (media available); it can also run 10GBASE-SR.  The link
 * is up when the driver has enabled the PHY (the enable-link bit of set
 * PHY config, or restart autonegotiation with link enable) and the
 * netdev's link is up.
 *
 * The driver learns about link changes from link status events: the
 * answer of get link status (0x0607), posted unasked on the admin
 * receive queue.  It enables them with that command's LSE bits and
 * chooses which changes report with the event mask (0x0613); the model
 * reports link up/down and speed changes.  The driver re-reads the
 * status, re-enabling events, after each one (ice_main.c ice_link_event),
 * so whether real firmware keeps them enabled does not matter; the
 * model keeps them until disabled.
 *
 * The port's state outlives a PF reset, as a real port's does: the
 * driver's rebuild after one re-sends neither its PHY configuration nor
 * its event mask (ice_main.c ice_rebuild).
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "net/net.h"
#include "e810.h"

/* Opcodes. */
#define E810_AQC_GET_PHY_CAPS       0x0600
#define E810_AQC_SET_PHY_CFG        0x0601
#define E810_AQC_SET_MAC_CFG        0x0603
#define E810_AQC_RESTART_AN         0x0605
#define E810_AQC_GET_LINK_STATUS    0x0607
#define E810_AQC_SET_EVENT_MASK     0x0613
#define E810_AQC_GET_PORT_OPTIONS   0x06ea

/* PHY types (the low 64-bit word; the model uses none of the high). */
#define PHY_TYPE_10GBASE_SR     BIT_ULL(14)
#define PHY_TYPE_25GBASE_SR     BIT_ULL(23)
#define E810_PHY_TYPES          (PHY_TYPE_25GBASE_SR | PHY_TYPE_10GBASE_SR)

/* Get PHY capabilities: the report mode in the parameters. */
#define GPC_PARAM0              2
#define GPC_MODE_M              0x000e
#define GPC_MODE_NVM            0x0000      /* the port without media */
#define GPC_MODE_MEDIA          0x0002      /* with the module plugged */
#define GPC_MODE_ACTIVE         0x0004      /* as the driver set it */
#define GPC_MODE_DFLT           0x0008      /* the default configuration */

/* Its answer. */
#define PC_TYPE_LOW             0
#define PC_TYPE_HIGH            8
#define PC_CAPS                 16
#define PC_LOW_POWER_AN         17
#define PC_EEE_CAP              18
#define PC_EEER                 20
#define PC_FEC                  34
#define PC_MOD_ENFORCE          35
#define PC_EXT_COMPLIANCE       36
#define PC_MOD_TYPE             37
#define PC_QUAL_COUNT           40
#define PC_FIXED_SIZE           48
#define PC_SIZE                 (PC_FIXED_SIZE + 16 * 32)

/* Capability bits (PC_CAPS). */
#define PHY_CAP_TX_PAUSE        BIT(0)
#define PHY_CAP_RX_PAUSE        BIT(1)
#define PHY_CAP_EN_LINK         BIT(3)
#define PHY_CAP_AUTO_FEC        BIT(7)
#define E810_PHY_CAPS   (PHY_CAP_TX_PAUSE | PHY_CAP_RX_PAUSE | PHY_CAP_AUTO_FEC)

/*
 * FEC: the port can do BASE-R (clause 74) and RS (clause 91) FEC at
 * 25G, and asks for either.
 */
#define FEC_25G_RS_528_REQ      BIT(2)
#define FEC_25G_KR_REQ          BIT(3)
#define FEC_25G_RS_CL91_EN      BIT(6)
#define FEC_25G_KR_CL74_EN      BIT(7)
#define E810_PHY_FEC    (FEC_25G_RS_528_REQ | FEC_25G_KR_REQ | \
                         FEC_25G_RS_CL91_EN | FEC_25G_KR_CL74_EN)

/* The module: SFP, extended compliance 25GBASE-SR. */
#define MOD_TYPE_SFP            0xa0
#define MOD_TYPE_SR             BIT(4)
#define EXT_COMPLIANCE_25G_SR   0x02

/* Set PHY config: its buffer. */
#define SPC_TYPE_LOW            0
#define SPC_TYPE_HIGH           8
#define SPC_CAPS                16
#define SPC_LOW_POWER_AN        17
#define SPC_EEE_CAP             18
#define SPC_EEER                20
#define SPC_FEC                 22
#define SPC_MOD_ENFORCE         23
#define SPC_SIZE                24

/* Its capability bits: those of PC_CAPS, and these. */
#define SPC_VALID_M             0xef
#define SPC_ENA_LINK            BIT(3)
#define SPC_AUTO_LINK_UPDT      BIT(5)
/* Bits the answer to "active configuration" has no room for. */
#define SPC_NOT_REPORTED        (BIT(3) | BIT(4) | BIT(5))

/* Set MAC config. */
#define SMC_MAX_FRAME           0
#define E810_MAX_FRAME          9728
#define E810_MIN_FRAME          64

/* Restart autonegotiation. */
#define RAN_FLAGS               2
#define RAN_LINK_ENABLE         BIT(2)

/* Get link status: LSE control in, LSE state out. */
#define GLS_FLAGS               2
#define GLS_LSE_M               0x3
#define GLS_LSE_DISABLE         0x2
#define GLS_LSE_ENABLE          0x3
#define GLS_LSE_IS_ENABLED      BIT(0)

/* The link status. */
#define LS_LINK_INFO            2
#define LS_AN_INFO              3
#define LS_MAX_FRAME            6
#define LS_CFG                  8
#define LS_SPEED                10
#define LS_TYPE_LOW             16
#define LS_TYPE_HIGH            24
#define LS_SIZE                 32

#define LS_LINK_UP              BIT(0)
#define LS_LINK_UP_PORT         BIT(5)
#define LS_MEDIA_AVAILABLE      BIT(6)
#define LS_SIGNAL_DETECT        BIT(7)
#define LS_AN_FEC_EN            BIT(3)
#define LS_AN_PAUSE_TX          BIT(5)
#define LS_AN_PAUSE_RX          BIT(6)
#define LS_AN_QUALIFIED         BIT(7)
#define LS_CFG_RS_528_FEC       BIT(1)
#define LS_SPEED_10G            BIT(5)
#define LS_SPEED_25G            BIT(7)

/* Set event mask: the events (bits set: not reported). */
#define SEM_MASK                8
#define SEM_LINK_UPDOWN         BIT(1)

struct E810Phy {
    /* The configuration set PHY config gave (the PHY types, mask-free). */
    uint64_t type_low;
    uint64_t type_high;
    uint8_t caps;               /* without the enable-link bit */
    uint8_t low_power_an;
    uint16_t eee_cap;
    uint16_t eeer;
    uint8_t fec;
    uint8_t mod_enforce;
    bool link_ena;              /* the PHY is on */

    uint16_t max_frame;         /* set MAC config */
    bool lse_ena;               /* link status events enabled */
    uint16_t event_mask;

    /* The link as last told (or not, with events off) to the driver. */
    bool up;
    uint16_t speed;
};

/* The configuration before the driver sets one: all types, PHY off. */
static void phy_set_defaults(E810Phy *p)
{
    memset(p, 0, sizeof(*p));
    p->type_low = E810_PHY_TYPES;
    p->caps = E810_PHY_CAPS;
    p->fec = E810_PHY_FEC;
    p->max_frame = E810_MAX_FRAME;
}

/* The fastest configured type: the one the link trains to. */
static uint64_t phy_active_type(E810Phy *p)
{
    if (p->type_low & PHY_TYPE_25GBASE_SR) {
        return PHY_TYPE_25GBASE_SR;
    }
    if (p->type_low & PHY_TYPE_10GBASE_SR) {
        return PHY_TYPE_10GBASE_SR;
    }
    return 0;
}

static uint16_t phy_type_speed(uint64_t type)
{
    switch (type) {
    case PHY_TYPE_25GBASE_SR:
        return LS_SPEED_25G;
    case PHY_TYPE_10GBASE_SR:
        return LS_SPEED_10G;
    default:
        return 0;
    }
}

static bool phy_peer_up(E810State *s)
{
    return s->nic && !qemu_get_queue(s->nic)->link_down;
}

bool e810_phy_link_up(E810State *s)
{
    E810Phy *p = s->phy;

    return p && p->link_ena && phy_active_type(p) && phy_peer_up(s);
}

/* Pause and FEC as negotiated: what the configuration asks for. */
static void phy_fill_an(E810Phy *p, uint8_t *ls)
{
    uint8_t an = LS_AN_QUALIFIED;

    if (p->caps & PHY_CAP_TX_PAUSE) {
        an |= LS_AN_PAUSE_TX;
    }
    if (p->caps & PHY_CAP_RX_PAUSE) {
        an |= LS_AN_PAUSE_RX;
    }
    if (phy_active_type(p) == PHY_TYPE_25GBASE_SR &&
        (p->fec & (FEC_25G_RS_528_REQ | FEC_25G_RS_CL91_EN))) {
        an |= LS_AN_FEC_EN;
        ls[LS_CFG] = LS_CFG_RS_528_FEC;
    }
    ls[LS_AN_INFO] = an;
}

/*
 * The link status, LS_SIZE bytes.  The PHY type stays the configured one
 * while the link is down, so the driver keeps seeing fibre media.
 */
static void phy_fill_status(E810State *s, uint8_t *ls)
{
    E810Phy *p = s->phy;
    uint8_t info = LS_MEDIA_AVAILABLE;

    memset(ls, 0, LS_SIZE);
    if (phy_peer_up(s)) {
        info |= LS_SIGNAL_DETECT;
    }
    if (e810_phy_link_up(s)) {
        info |= LS_LINK_UP | LS_LINK_UP_PORT;
        e810_put16(ls, LS_SPEED, phy_type_speed(phy_active_type(p)));
        phy_fill_an(p, ls);
    }
    ls[LS_LINK_INFO] = info;
    e810_put16(ls, LS_MAX_FRAME, p->max_frame);
    e810_put64(ls, LS_TYPE_LOW, phy_active_type(p));
    e810_put64(ls, LS_TYPE_HIGH, 0);
}

/*
 * The link may have changed (the PHY switched, the netdev's link moved,
 * the types changed): tell the driver when it asked to be told.
 */
static void phy_link_update(E810State *s)
{
    E810Phy *p = s->phy;
    bool up = e810_phy_link_up(s);
    uint16_t speed = up ? phy_type_speed(phy_active_type(p)) : 0;
    uint8_t params[16] = { 0 };
    uint8_t ls[LS_SIZE];

    if (up == p->up && speed == p->speed) {
        return;
    }
    p->up = up;
    p->speed = speed;
    if (!p->lse_ena || (p->event_mask & SEM_LINK_UPDOWN)) {
        return;
    }
    phy_fill_status(s, ls);
    e810_put16(params, GLS_FLAGS, GLS_LSE_IS_ENABLED);
    e810_aq_event(s, E810_AQC_GET_LINK_STATUS, params, ls, sizeof(ls));
}

void e810_phy_link_changed(E810State *s)
{
    if (s->phy) {
        phy_link_update(s);
    }
}

/* The capabilities of the port, with or without its module: the same. */
static void phy_fill_topo_caps(uint8_t *pc)
{
    e810_put64(pc, PC_TYPE_LOW, E810_PHY_TYPES);
    pc[PC_CAPS] = E810_PHY_CAPS;
    pc[PC_FEC] = E810_PHY_FEC;
    pc[PC_EXT_COMPLIANCE] = EXT_COMPLIANCE_25G_SR;
    pc[PC_MOD_TYPE] = MOD_TYPE_SFP;
    pc[PC_MOD_TYPE + 1] = MOD_TYPE_SR;
    pc[PC_MOD_TYPE + 2] = MOD_TYPE_SFP;
}

/*
 * The configuration in force, in the form the driver compares with what
 * it last set (ice_common.c ice_phy_caps_equals_cfg).
 */
static void phy_fill_active_caps(E810Phy *p, uint8_t *pc)
{
    uint8_t caps = p->caps & ~SPC_NOT_REPORTED;

    if (p->link_ena) {
        caps |= PHY_CAP_EN_LINK;
    }
    e810_put64(pc, PC_TYPE_LOW, p->type_low);
    e810_put64(pc, PC_TYPE_HIGH, p->type_high);
    pc[PC_CAPS] = caps;
    pc[PC_LOW_POWER_AN] = p->low_power_an;
    e810_put16(pc, PC_EEE_CAP, p->eee_cap);
    e810_put16(pc, PC_EEER, p->eeer);
    pc[PC_FEC] = p->fec;
    pc[PC_MOD_ENFORCE] = p->mod_enforce;
    pc[PC_EXT_COMPLIANCE] = EXT_COMPLIANCE_25G_SR;
    pc[PC_MOD_TYPE] = MOD_TYPE_SFP;
    pc[PC_MOD_TYPE + 1] = MOD_TYPE_SR;
    pc[PC_MOD_TYPE + 2] = MOD_TYPE_SFP;
}

/*
 * No qualified-module list (count 0).  A buffer shorter than the full
 * answer gets what fits, as long as the fixed part does.
 */
static uint16_t phy_get_caps(E810State *s, E810Cmd *c)
{
    uint16_t mode = e810_get16(e810_cmd_param(c, 0), GPC_PARAM0) & GPC_MODE_M;
    uint8_t pc[PC_SIZE] = { 0 };

    if (!c->buf || c->buf_len < PC_FIXED_SIZE) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: PHY caps buffer of %u bytes\n",
                      c->buf_len);
        return E810_AQ_RC_EINVAL;
    }
    switch (mode) {
    case GPC_MODE_NVM:
    case GPC_MODE_MEDIA:
    case GPC_MODE_DFLT:
        phy_fill_topo_caps(pc);
        break;
    case GPC_MODE_ACTIVE:
        phy_fill_active_caps(s->phy, pc);
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "e810: PHY caps report mode 0x%x\n",
                      mode);
        return E810_AQ_RC_EINVAL;
    }
    c->out_len = MIN(c->buf_len, PC_SIZE);
    memcpy(c->buf, pc, c->out_len);
    return E810_AQ_RC_OK;
}

/*
 * Kept, and in force at once when it says "automatic link update" (the
 * driver always does, ice_configure_phy); otherwise at the next restart
 * of autonegotiation.  Types the port cannot do are dropped; none left
 * is an error.
 */
static uint16_t phy_set_cfg(E810State *s, E810Cmd *c)
{
    E810Phy *p = s->phy;
    uint64_t types;
    uint8_t caps;

    if (!c->buf || c->buf_len < SPC_SIZE) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: PHY config buffer of %u bytes\n",
                      c->buf_len);
        return E810_AQ_RC_EINVAL;
    }
    caps = c->buf[SPC_CAPS];
    types = e810_get64(c->buf, SPC_TYPE_LOW) & E810_PHY_TYPES;
    if (caps & ~SPC_VALID_M) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: PHY config caps 0x%x\n", caps);
        return E810_AQ_RC_EINVAL;
    }
    if (!types) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: PHY config of no known type\n");
        return E810_AQ_RC_EINVAL;
    }
    p->type_low = types;
    p->type_high = 0;
    p->caps = caps & ~SPC_ENA_LINK;
    p->low_power_an = c->buf[SPC_LOW_POWER_AN];
    p->eee_cap = e810_get16(c->buf, SPC_EEE_CAP);
    p->eeer = e810_get16(c->buf, SPC_EEER);
    p->fec = c->buf[SPC_FEC];
    p->mod_enforce = c->buf[SPC_MOD_ENFORCE];
    if (caps & SPC_AUTO_LINK_UPDT) {
        p->link_ena = caps & SPC_ENA_LINK;
    }
    phy_link_update(s);
    return E810_AQ_RC_OK;
}

static uint16_t phy_set_mac_cfg(E810State *s, E810Cmd *c)
{
    uint16_t max_frame = e810_get16(e810_cmd_param(c, 0), SMC_MAX_FRAME);

    if (max_frame < E810_MIN_FRAME || max_frame > E810_MAX_FRAME) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: MAC max frame %u\n", max_frame);
        return E810_AQ_RC_EINVAL;
    }
    s->phy->max_frame = max_frame;
    return E810_AQ_RC_OK;
}

/* Restarts the link with the kept configuration, the PHY on or off. */
static uint16_t phy_restart_an(E810State *s, E810Cmd *c)
{
    uint8_t flags = *e810_cmd_param(c, RAN_FLAGS);

    s->phy->link_ena = flags & RAN_LINK_ENABLE;
    phy_link_update(s);
    return E810_AQ_RC_OK;
}

/*
 * The answer also switches events: LSE "enable" or "disable" (else no
 * change), and tells their state back.  The driver reads the current
 * status here, so the change it reports counts as told.
 */
static uint16_t phy_get_link_status(E810State *s, E810Cmd *c)
{
    E810Phy *p = s->phy;
    uint8_t *param = e810_cmd_param(c, 0);
    uint16_t lse = e810_get16(param, GLS_FLAGS) & GLS_LSE_M;

    if (!c->buf || c->buf_len < LS_SIZE) {
        qemu_log_mask(LOG_GUEST_ERROR, "e810: link status buffer of %u bytes\n",
                      c->buf_len);
        return E810_AQ_RC_EINVAL;
    }
    if (lse == GLS_LSE_ENABLE) {
        p->lse_ena = true;
    } else if (lse == GLS_LSE_DISABLE) {
        p->lse_ena = false;
    }
    p->up = e810_phy_link_up(s);
    p->speed = p->up ? phy_type_speed(phy_active_type(p)) : 0;
    phy_fill_status(s, c->buf);
    c->out_len = LS_SIZE;
    e810_put16(param, GLS_FLAGS, p->lse_ena ? GLS_LSE_IS_ENABLED : 0);
    return E810_AQ_RC_OK;
}

static uint16_t phy_set_event_mask(E810State *s, E810Cmd *c)
{
    s->phy->event_mask = e810_get16(e810_cmd_param(c, 0), SEM_MASK);
    return E810_AQ_RC_OK;
}

/*
 * Port split options came after FW API 1.5; the driver asks at probe
 * (ice_devlink.c ice_devlink_set_port_split_options) and goes on without
 * them.
 */
static uint16_t phy_get_port_options(E810State *s, E810Cmd *c)
{
    qemu_log_mask(LOG_UNIMP, "e810: port options\n");
    return E810_AQ_RC_ENOSYS;
}

const E810AqOp e810_phy_ops[] = {
    { E810_AQC_GET_PHY_CAPS, "get_phy_caps", phy_get_caps },
    { E810_AQC_SET_PHY_CFG, "set_phy_cfg", phy_set_cfg },
    { E810_AQC_SET_MAC_CFG, "set_mac_cfg", phy_set_mac_cfg },
    { E810_AQC_RESTART_AN, "restart_an", phy_restart_an },
    { E810_AQC_GET_LINK_STATUS, "get_link_status", phy_get_link_status },
    { E810_AQC_SET_EVENT_MASK, "set_event_mask", phy_set_event_mask },
    { E810_AQC_GET_PORT_OPTIONS, "get_port_options", phy_get_port_options },
    { 0, NULL, NULL }
};

void e810_phy_realize(E810State *s)
{
    s->phy = g_new0(E810Phy, 1);
    phy_set_defaults(s->phy);
}

void e810_phy_unrealize(E810State *s)
{
    g_free(s->phy);
    s->phy = NULL;
}

/*
 * Nothing: the port, its configuration and its events are not the PF's
 * (see the top of the file).
 */
void e810_phy_reset(E810State *s)
{
}
