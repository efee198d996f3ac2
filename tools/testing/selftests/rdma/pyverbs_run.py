#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Run rdma-core's pyverbs test suite; print one outcome a test.

    pyverbs_run.py [--out FILE] [--test-timeout SEC] [--netdev-from-parent]
                   [NAME...] [-- ARGS...]

The suite is the distribution's (Debian ships it partly gzipped under
/usr/share/doc/rdma-core/tests): a copy is unpacked into a temporary
directory and run there, with ARGS for its own parser (--dev rxe0 --gid
0 ...).  NAME picks a test module, class or test ("test_pd",
"test_qp.QPTest.test_query_rc_qp"); default: all of them.

The suite finds a device's network interface in
/sys/class/infiniband/DEV/device/net/, which an rxe device has on
neither stack (it has no parent device), so every rdmacm test would skip
with "doesn't have net interface".  With --netdev-from-parent the
interface is the one rxe's own "parent" attribute names, on both stacks
alike, and those tests run.

Output (FILE, default stdout): one line "TEST_ID OUTCOME" a test, sorted;
OUTCOME is pass, skip, fail or error.  unittest's own report goes to
stderr.  A test still running after SEC seconds (default 60) is
interrupted by SIGALRM and counts as an error, so that one hang does not
stop the rest; a hang in uninterruptible sleep is left to the caller's
bound (scripts/vm --timeout, the selftest timeout).
"""
import argparse
import gzip
import os
import shutil
import signal
import sys
import tempfile
import time
import unittest

SUITE = "/usr/share/doc/rdma-core/tests"


def unpack(dest):
    """Copy the suite to dest/tests, gunzipping what is compressed.  Its
    __init__.py is left out: it imports every test module of the suite,
    which costs seconds under TCG when a few are run; modules are loaded
    by name instead (all of them without names)."""
    tests = os.path.join(dest, "tests")
    os.mkdir(tests)
    for name in os.listdir(SUITE):
        src = os.path.join(SUITE, name)
        if name == "__init__.py":
            open(os.path.join(tests, name), "w").close()
        elif name.endswith(".gz"):
            with gzip.open(src) as f, open(os.path.join(tests, name[:-3]), "wb") as t:
                shutil.copyfileobj(f, t)
        else:
            shutil.copy(src, tests)
    return tests


class Hang(Exception):
    pass


class Outcomes(unittest.TextTestResult):
    """Records one outcome a test id, and bounds each test's duration."""
    test_timeout = 60

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.outcomes = {}
        self.t0 = 0

    def startTest(self, test):
        self.t0 = time.monotonic()
        signal.alarm(self.test_timeout)
        super().startTest(test)

    def stopTest(self, test):
        signal.alarm(0)
        super().stopTest(test)
        self.stream.write("  %s: %.1f s\n" % (test.id(), time.monotonic() - self.t0))

    def _set(self, test, outcome):
        # A failing tearDown after a pass must not hide the failure.
        if self.outcomes.get(test.id()) in (None, "pass", "skip"):
            self.outcomes[test.id()] = outcome

    def addSuccess(self, test):
        super().addSuccess(test)
        self._set(test, "pass")

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._set(test, "pass")

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._set(test, "skip")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._set(test, "fail")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._set(test, "fail")

    def addError(self, test, err):
        super().addError(test, err)
        self._set(test, "error")


def alarm(signum, frame):
    raise Hang("still running after %d s" % Outcomes.test_timeout)


def netdev_from_parent():
    """Teach the suite's base class where an rxe device's interface is:
    its lookup (device/net/ in sysfs) finds nothing for a device without a
    parent, and then it runs no rdmacm test.  The address and MAC are
    found as the suite finds them, from "ip -j addr show"."""
    from tests import base

    lookup = base.RDMATestCase._get_ip_mac

    def get_ip_mac(self, dev, port, idx):
        sysfs = "/sys/class/infiniband/%s" % dev
        if os.path.exists(sysfs + "/device/net/") or \
           not os.path.exists(sysfs + "/parent"):
            return lookup(self, dev, port, idx)
        with open(sysfs + "/parent") as f:
            ifname = f.read().strip()
        try:
            ip, mac = self.get_ip_mac_address(ifname)
        except (KeyError, IndexError):
            ip, mac = None, None
        self.args.append([dev, port, idx, ip, mac])

    base.RDMATestCase._get_ip_mac = get_ip_mac


def main():
    argv = sys.argv[1:]
    suite_args = []
    if "--" in argv:
        suite_args = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/dev/stdout")
    ap.add_argument("--test-timeout", type=int, default=60)
    ap.add_argument("--netdev-from-parent", action="store_true")
    ap.add_argument("names", nargs="*")
    a = ap.parse_args(argv)
    # The debug-kernel tier scales every bound (scripts/vm).
    Outcomes.test_timeout = a.test_timeout * int(
        os.environ.get("OOT_TIMEOUT_SCALE", "1"))

    tmp = tempfile.mkdtemp()
    try:
        tests_dir = unpack(tmp)
        # The suite imports its parser as the top-level "args_parser" and
        # itself as the package "tests"; it reads its options from argv.
        sys.path[:0] = [tests_dir, tmp]
        sys.argv = [sys.argv[0]] + suite_args
        from args_parser import parser
        parser.parse_args()
        if a.netdev_from_parent:
            netdev_from_parent()
        names = a.names or sorted(f[:-3] for f in os.listdir(tests_dir)
                                  if f.startswith("test_") and f.endswith(".py"))
        suite = unittest.TestLoader().loadTestsFromNames("tests." + n for n in names)
        signal.signal(signal.SIGALRM, alarm)
        runner = unittest.TextTestRunner(stream=sys.stderr, verbosity=2,
                                         resultclass=Outcomes)
        result = runner.run(suite)
    finally:
        shutil.rmtree(tmp)
    with open(a.out, "w") as f:
        for tid in sorted(result.outcomes):
            f.write("%s %s\n" % (tid, result.outcomes[tid]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
