/* SPDX-License-Identifier: GPL-2.0-only */
#include "trace/trace-hw_e810.h"
