// SPDX-License-Identifier: GPL-2.0-only
/* Placeholder: see core_priv.h for what this file will own. */
