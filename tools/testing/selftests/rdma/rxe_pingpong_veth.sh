#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rxe_pingpong.sh's cases between two devices, rxe1 and rxe2, on the two
# ends of a veth pair (rxe_topo.sh): every packet crosses the veth.
PP_TOPO=two exec "$(dirname "$0")/rxe_pingpong.sh"
