#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Create one address handle on rxe0 and print how it went.

    uverbs_ah.py DGID [SGID_INDEX]

DGID is a full IPv6 GID ("2001:0db8:...:0001").  Prints "ok" or the
errno name of the failure (ETIMEDOUT, EINVAL, ...).
"""
import errno
import sys

from pyverbs.addr import AH, AHAttr, GID, GlobalRoute
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError


def main():
    dgid = GID(sys.argv[1])
    sgid_index = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    with Context(name="rxe0") as ctx:
        with PD(ctx) as pd:
            gr = GlobalRoute(dgid=dgid, sgid_index=sgid_index)
            try:
                AH(pd, attr=AHAttr(port_num=1, is_global=1, gr=gr)).close()
                print("ok")
            except PyverbsRDMAError as e:
                print(errno.errorcode.get(e.error_code, str(e.error_code)))


main()
