# SPDX-License-Identifier: GPL-2.0-only
#
# What scripts/kabi-check and scripts/kabi-crc share: the modules we
# replace, the Module.symvers format, and the choice of the target tree.
"""Module.symvers files and the target kernel tree."""

import os
import platform
import re
import subprocess
import sys

# The modules we replace; stock's Module.symvers names them by path
# (drivers/infiniband/core/ib_core), ours by absolute path.
OUR_MODULES = ('ib_core', 'ib_cm', 'iw_cm', 'rdma_cm', 'ib_uverbs',
               'rdma_ucm', 'ib_umad', 'rdma_rxe')

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def die(msg):
    """A usage or setup error: exit status 2, as argparse's own."""
    print(f'{os.path.basename(sys.argv[0])}: {msg}', file=sys.stderr)
    sys.exit(2)


class Export:
    """One line of a Module.symvers: CRC, symbol, module, kind, namespace."""

    def __init__(self, line):
        fields = line.rstrip('\n').split('\t')
        if len(fields) != 5:
            raise ValueError(line)
        self.crc, self.name, self.path, self.kind, self.namespace = fields
        self.module = os.path.basename(self.path)


def read_symvers(path):
    """Map symbol -> Export; exit 2 when the file is unreadable."""
    exports = {}
    try:
        with open(path, encoding='utf-8') as f:
            for n, line in enumerate(f, 1):
                try:
                    e = Export(line)
                except ValueError:
                    die(f'{path}:{n}: not a Module.symvers line')
                exports[e.name] = e
    except OSError as err:
        die(f'{path}: {err.strerror}')
    return exports


def version_key(path):
    """Sort key: digits as numbers, as sort -V does for these names."""
    return [int(t) if t.isdigit() else t for t in re.split(r'(\d+)', path)]


def default_kdir():
    """The kernel tree, chosen as the top-level Makefile chooses it."""
    if os.environ.get('KDIR'):
        return os.environ['KDIR']
    if os.environ.get('KVER'):
        return '/lib/modules/' + os.environ['KVER'] + '/build'
    running = '/lib/modules/' + platform.release() + '/build'
    if os.path.isfile(running + '/Makefile'):
        return running
    try:
        headers = [os.path.join('/usr/src', d) for d in os.listdir('/usr/src')
                   if re.fullmatch(r'linux-headers-.*-amd64', d)]
    except OSError:
        headers = []
    return max(headers, key=version_key) if headers else None


def package_version(name):
    """The installed version of a Debian package, or None."""
    try:
        run = subprocess.run(['dpkg-query', '-W', '-f=${Version}', name],
                             stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True,
                             check=False)
    except OSError:
        return None
    return run.stdout.strip() if run.returncode == 0 and run.stdout else None


def kernel_release(kdir):
    """The release modules built in KDIR are for (UTS_RELEASE), or None."""
    path = os.path.join(kdir, 'include', 'generated', 'utsrelease.h')
    try:
        with open(path, encoding='utf-8') as f:
            found = re.search(r'UTS_RELEASE "(.*)"', f.read())
    except OSError:
        return None
    return found.group(1) if found else None


def stock_symvers(path=None):
    """The reference Module.symvers: PATH, else $KDIR/Module.symvers."""
    if path is not None:
        return path
    kdir = default_kdir()
    if kdir is None:
        die('no kernel tree (KDIR=): run make deps')
    return os.path.join(kdir, 'Module.symvers')
