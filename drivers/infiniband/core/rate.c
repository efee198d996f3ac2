// SPDX-License-Identifier: GPL-2.0-only
/*
 * Static rates of the IB link (enum ib_rate, IBTA vol. 1 "StaticRate"
 * encodings and the PortInfo speed and width tables): what each one is as
 * a multiple of the 2.5 Gb/s of a 1x SDR link, and in Mb/s.
 *
 * The multiple is the integer the IBTA rate-limiting arithmetic uses, so
 * the 64b/66b rates (FDR10 and later) round to the nearest step: 14 Gb/s
 * is 6 (not 5.6), 56 Gb/s is 22.  The Mb/s figures are the data rates of
 * each width and speed (FDR 14.0625 Gb/s per lane, EDR 25.78125, HDR
 * 53.125, NDR 106.25), truncated to whole Mb/s.  One table indexed by the
 * encoding serves all three conversions, so they cannot disagree.
 */
#include <linux/export.h>
#include <linux/kernel.h>
#include <rdma/ib_verbs.h>

struct ib_rate_info {
	u8 mult;	/* of 2.5 Gb/s; 0: not a rate */
	u32 mbps;
};

static const struct ib_rate_info ib_rates[] = {
	[IB_RATE_2_5_GBPS] = { 1, 2500 },
	[IB_RATE_5_GBPS] = { 2, 5000 },
	[IB_RATE_10_GBPS] = { 4, 10000 },
	[IB_RATE_20_GBPS] = { 8, 20000 },
	[IB_RATE_30_GBPS] = { 12, 30000 },
	[IB_RATE_40_GBPS] = { 16, 40000 },
	[IB_RATE_60_GBPS] = { 24, 60000 },
	[IB_RATE_80_GBPS] = { 32, 80000 },
	[IB_RATE_120_GBPS] = { 48, 120000 },
	[IB_RATE_14_GBPS] = { 6, 14062 },	/* 1x FDR */
	[IB_RATE_56_GBPS] = { 22, 56250 },	/* 4x FDR */
	[IB_RATE_112_GBPS] = { 45, 112500 },	/* 8x FDR */
	[IB_RATE_168_GBPS] = { 67, 168750 },	/* 12x FDR */
	[IB_RATE_25_GBPS] = { 10, 25781 },	/* 1x EDR */
	[IB_RATE_100_GBPS] = { 40, 103125 },	/* 4x EDR */
	[IB_RATE_200_GBPS] = { 80, 206250 },	/* 8x EDR */
	[IB_RATE_300_GBPS] = { 120, 309375 },	/* 12x EDR */
	[IB_RATE_28_GBPS] = { 11, 28125 },	/* 2x FDR */
	[IB_RATE_50_GBPS] = { 20, 53125 },	/* 1x HDR */
	[IB_RATE_400_GBPS] = { 160, 425000 },	/* 4x NDR */
	[IB_RATE_600_GBPS] = { 240, 637500 },	/* 12x HDR */
};

static const struct ib_rate_info *ib_rate_info(enum ib_rate rate)
{
	if ((unsigned int)rate >= ARRAY_SIZE(ib_rates) || !ib_rates[rate].mult)
		return NULL;
	return &ib_rates[rate];
}

/**
 * ib_rate_to_mult - a rate as a multiple of 2.5 Gb/s
 * @rate: the rate
 *
 * Return: the multiple, or -1 for IB_RATE_PORT_CURRENT and any value that
 * is not a rate.
 */
__attribute_const__ int ib_rate_to_mult(enum ib_rate rate)
{
	const struct ib_rate_info *info = ib_rate_info(rate);

	return info ? info->mult : -1;
}
EXPORT_SYMBOL(ib_rate_to_mult);

/**
 * mult_to_ib_rate - the rate of a multiple of 2.5 Gb/s
 * @mult: as ib_rate_to_mult() returns it
 *
 * Return: the rate, or IB_RATE_PORT_CURRENT when no rate has that multiple.
 */
__attribute_const__ enum ib_rate mult_to_ib_rate(int mult)
{
	unsigned int rate;

	for (rate = 0; rate < ARRAY_SIZE(ib_rates); rate++)
		if (ib_rates[rate].mult && ib_rates[rate].mult == mult)
			return rate;
	return IB_RATE_PORT_CURRENT;
}
EXPORT_SYMBOL(mult_to_ib_rate);

/**
 * ib_rate_to_mbps - a rate in Mb/s
 * @rate: the rate
 *
 * Return: its data rate in Mb/s, or -1 as ib_rate_to_mult().
 */
__attribute_const__ int ib_rate_to_mbps(enum ib_rate rate)
{
	const struct ib_rate_info *info = ib_rate_info(rate);

	return info ? info->mbps : -1;
}
EXPORT_SYMBOL(ib_rate_to_mbps);
