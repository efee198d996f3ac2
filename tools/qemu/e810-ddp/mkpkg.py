#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# Write a minimal DDP package for the E810 device model: the smallest
# file Debian 12's ice driver (6.1) loads instead of entering safe mode.
#
#   mkpkg.py OUT.pkg       (install as /lib/firmware/intel/ice/ddp/ice.pkg)
#
# It holds no parser program: the model has no parser to program.  What
# ice 6.1 needs of the file (ice_flex_pipe.c), all little-endian:
#
#   package header   format version 1.0.0.0, a segment count and the
#                    segments' offsets; every segment inside the file
#                    (ice_verify_pkg)
#   ICE segment      type 0x10 (ice_find_seg_in_pkg): type, format
#                    version, size, a 32-byte id; then the device table
#                    and the NVM table (counts only, both empty here),
#                    then the buffer table: a count and 4 KiB buffers
#                    (ice_find_buf_table)
#   buffer 0         the metadata section (type 1): the package
#                    version, 28-byte name and track id
#                    (ice_init_pkg_info); its type lacks bit 31, so
#                    ice downloads this buffer (ice_dwnld_cfg_bufs) and
#                    the device learns the package from it.  Then the
#                    Rx parser's boost TCAM (type 56): one entry for
#                    each tunnel label below, found by its address
#                    (ice_find_boost_entry; 88 bytes: address, key,
#                    hit index group, bit fields, zero but the address)
#   buffer 1         the Rx parser's TCAM labels (type 0x80000018, bit 31:
#                    never downloaded, read by ice only): TNL_VXLAN_PFn
#                    and TNL_GENEVE_PFn for each PF n, each naming its
#                    boost TCAM entry (ice_init_pkg_hints)
#
# The version must be 1.3.x.x (ice_chk_pkg_version); the segment's
# format version must have the major of the device's NVM package and no
# greater minor (ice_chk_pkg_compat; the model's NVM package is 1.3).
# Missing sections only leave ice's tables empty (ice_fill_tbl,
# ice_fill_hw_ptype): no double VLAN, and RSS/flow director profiles
# that the model takes but ignores.  The tunnel labels cannot be left
# out: without them ice offers its netdev to the UDP tunnel core with a
# VXLAN table of no entries, which udp_tunnel_nic_register() refuses
# with a WARN whenever the udp_tunnel module is loaded (by rdma_rxe, for
# one).  With them ice programs VXLAN and GENEVE ports (ethtool
# --show-tunnels) through 0x0C42 updates of these entries, which the
# model takes and, having no parser, ignores.
#
# ice then logs:
#   The DDP package was successfully loaded: oot-rdma minimal package
#   version 1.3.0.0
#
# Copyright (c) 2026 oot-rdma contributors

import struct
import sys

PKG_FORMAT_VER = (1, 0, 0, 0)
SEGMENT_TYPE_ICE = 0x10
SEG_FORMAT_VER = (1, 0, 0, 0)
SEG_ID = b"oot-rdma minimal package"
SID_METADATA = 1
SID_RXPARSER_BOOST_TCAM = 56
SID_LBL_RXPARSER_TMEM = 0x80000018
PKG_VER = (1, 3, 0, 0)
PKG_NAME = b"oot-rdma minimal package"
PKG_TRACK_ID = 0xc0000001

BUF_SIZE = 4096
NAME_SIZE = 32          # segment id
META_NAME_SIZE = 28     # metadata section name
LABEL_SIZE = 64         # a label's name
BOOST_ENTRY_SIZE = 88   # struct ice_boost_tcam_entry

# The tunnels ice looks for, by label prefix; the digit that follows is
# the PF whose they are (ice takes its own function's only).
TUNNELS = (b"TNL_VXLAN_PF", b"TNL_GENEVE_PF")
PFS = 8
BOOST_BASE = 0x100      # the first tunnel entry's boost TCAM address


def fixed(s, size):
    """S as a NUL-padded field of SIZE bytes, keeping one NUL at least."""
    if len(s) >= size:
        raise ValueError("%r does not fit %d bytes" % (s, size))
    return s.ljust(size, b"\0")


def metadata_section():
    return (bytes(PKG_VER) + fixed(PKG_NAME, META_NAME_SIZE) +
            struct.pack("<I", PKG_TRACK_ID))


def tunnel_labels():
    """(name, boost TCAM address) of each tunnel of each PF."""
    return [(prefix + b"%d" % pf, BOOST_BASE + i * PFS + pf)
            for i, prefix in enumerate(TUNNELS) for pf in range(PFS)]


def boost_tcam_section():
    """A boost TCAM entry at each tunnel label's address."""
    labels = tunnel_labels()
    body = struct.pack("<HH", len(labels), 0)
    for _, addr in labels:
        body += struct.pack("<HH", addr, 0).ljust(BOOST_ENTRY_SIZE, b"\0")
    return body


def label_section():
    labels = tunnel_labels()
    body = struct.pack("<H", len(labels))
    for name, addr in labels:
        body += struct.pack("<H", addr) + fixed(name, LABEL_SIZE)
    return body


def buffer(sections):
    """A 4 KiB package buffer holding SECTIONS, a list of (type, data)."""
    table = 4 + 8 * len(sections)
    entries, data = b"", b""
    for stype, body in sections:
        entries += struct.pack("<IHH", stype, table + len(data), len(body))
        data += body
    buf = struct.pack("<HH", len(sections), table + len(data)) + entries + data
    if len(buf) > BUF_SIZE:
        raise ValueError("sections overflow the buffer")
    return buf.ljust(BUF_SIZE, b"\0")


def ice_segment(bufs):
    body = (struct.pack("<I", 0) +          # device table: no entries
            struct.pack("<I", 0) +          # NVM table: no entries
            struct.pack("<I", len(bufs)) + b"".join(bufs))
    hdr_size = 4 + 4 + 4 + NAME_SIZE
    return (struct.pack("<I", SEGMENT_TYPE_ICE) + bytes(SEG_FORMAT_VER) +
            struct.pack("<I", hdr_size + len(body)) +
            fixed(SEG_ID, NAME_SIZE) + body)


def package(segments):
    hdr_size = 4 + 4 + 4 * len(segments)
    offsets, off = [], hdr_size
    for seg in segments:
        offsets.append(off)
        off += len(seg)
    return (bytes(PKG_FORMAT_VER) + struct.pack("<I", len(segments)) +
            struct.pack("<%dI" % len(segments), *offsets) + b"".join(segments))


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: %s OUT.pkg\n" % sys.argv[0])
        return 2
    pkg = package([ice_segment([
        buffer([(SID_METADATA, metadata_section()),
                (SID_RXPARSER_BOOST_TCAM, boost_tcam_section())]),
        buffer([(SID_LBL_RXPARSER_TMEM, label_section())]),
    ])])
    with open(sys.argv[1], "wb") as f:
        f.write(pkg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
