#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""A driver's own namespace in the ioctl API, raw, and each call's outcome.

    uverbs_ns.py check     run every case; print "CASE: got X, want Y" for
                           each mismatch, then "done"; exit 1 on a mismatch
    uverbs_ns.py measure   print every case's outcome, as the EXPECTED
                           table below is written

The device is uvns0 of the test module uverbs_ns_test (see its head):
driver objects of the handle table (THING) and of an fd (CHAN), one that
IS_SUPPORTED refuses (OFF), a handle of any type (PEEK), a driver method
on PD, a mandatory driver attribute on QUERY_CONTEXT.  An outcome is
"ok" or the errno's name, then what it answered, then how many destroy
callbacks of the module ran during the case, by reason ("destroy close
driver_remove abort"): a create, a destroy, closing the file or an fd,
process exit, and removing the device each destroy what they should,
through the driver's callbacks, with the reason stock gives.  Each case
runs on a fresh open with a context (write() GET_CONTEXT); the last
removes the device.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# pylint: disable=wrong-import-position
import uverbs_raw  # noqa: E402
from uverbs_raw import (Failed, Out, attr, check_main, handle,  # noqa: E402
                        uverbs_of, written)

NS = 1 << 12
THING, OFF, CHAN = NS, NS + 1, NS + 2
T_CREATE, T_DESTROY, T_PEEK, T_USE_OFF, T_USE_OFF_OPT = NS, NS + 1, NS + 2, NS + 3, NS + 4
A_HANDLE, A_VALUE, A_PD, A_OUT = NS, NS + 1, NS + 2, NS + 3
OBJ_DEVICE, OBJ_PD = 0, 1
QUERY_CONTEXT = 4
PARAMS = "/sys/module/uverbs_ns_test/parameters/"
MANDATORY = 1


def destroyed():
    with open(PARAMS + "destroyed") as f:
        return [int(x) for x in f.read().split()]


def call(u, obj, method, attrs=b""):
    """The call's outcome and buffer; the device's driver id is 0."""
    return u.call(obj, method, attrs, driver_id=0)


def thing(u, pd=None):
    attrs = handle(A_HANDLE, 0) + attr(A_VALUE, 7, length=4)
    if pd is not None:
        attrs += handle(A_PD, pd)
    res, buf = call(u, THING, T_CREATE, attrs)
    if res != "ok":
        raise Failed("THING CREATE: " + res)
    return written(buf, 0)


def chan(u):
    res, buf = call(u, CHAN, NS, handle(A_HANDLE, 0))
    if res != "ok":
        raise Failed("CHAN CREATE: " + res)
    return written(buf, 0)


def peek(u, h):
    out = Out(A_OUT)
    res, _ = call(u, THING, T_PEEK, handle(A_HANDLE, h) + out.attr)
    return res if res != "ok" else "ok %#x" % out.u32()


CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


@case
def thing_create(u):
    thing(u)
    return "ok"


@case
def thing_create_with_a_pd(u):
    thing(u, u.pd())
    return "ok"


@case
def thing_create_with_a_stale_pd(u):
    return call(u, THING, T_CREATE, handle(A_HANDLE, 0) + attr(A_VALUE, 7, length=4) +
                handle(A_PD, 0xdead))[0]


@case
def thing_create_without_its_value(u):
    return call(u, THING, T_CREATE, handle(A_HANDLE, 0))[0]


@case
def thing_destroy(u):
    return call(u, THING, T_DESTROY, handle(A_HANDLE, thing(u)))[0]


@case
def thing_destroy_twice(u):
    h = thing(u)
    call(u, THING, T_DESTROY, handle(A_HANDLE, h))
    return call(u, THING, T_DESTROY, handle(A_HANDLE, h))[0]


@case
def thing_destroy_given_a_pd(u):
    return call(u, THING, T_DESTROY, handle(A_HANDLE, u.pd()))[0]


@case
def pd_destroy_given_a_thing(u):
    return call(u, OBJ_PD, 0, handle(0, thing(u)))[0]


@case
def peek_a_thing(u):
    return peek(u, thing(u))


@case
def peek_a_pd(u):
    return peek(u, u.pd())


@case
def peek_nothing(u):
    return peek(u, 0xdead)


@case
def off_create(u):
    return call(u, OFF, NS, handle(A_HANDLE, 0))[0]


@case
def use_off_mandatory(u):
    return call(u, THING, T_USE_OFF, handle(A_HANDLE, thing(u)))[0]


@case
def use_off_optional_absent(u):
    return call(u, THING, T_USE_OFF_OPT)[0]


@case
def use_off_optional_given(u):
    return call(u, THING, T_USE_OFF_OPT, handle(A_HANDLE, thing(u)))[0]


@case
def pd_driver_method(u):
    out = Out(A_OUT)
    res, _ = call(u, OBJ_PD, NS, handle(A_HANDLE, u.pd()) + out.attr)
    return res if res != "ok" else "ok %#x" % out.u32()


@case
def query_context_with_driver_attr(u):
    out = Out(A_OUT)
    res, _ = call(u, OBJ_DEVICE, QUERY_CONTEXT, out.attr)
    return res if res != "ok" else "ok %#x" % out.u32()


@case
def query_context_without_driver_attr(u):
    return call(u, OBJ_DEVICE, QUERY_CONTEXT)[0]


@case
def unknown_driver_method(u):
    return call(u, THING, NS + 9)[0]


@case
def unknown_driver_object(u):
    return call(u, NS + 7, NS)[0]


@case
def chan_create_then_close_its_fd(u):
    os.close(chan(u))
    return "ok"


@case
def close_destroys_things_and_chans(u):
    thing(u)
    thing(u)
    chan(u)
    u.close()
    u.fd = os.open("/dev/null", os.O_RDONLY)
    u.async_fd = None
    return "ok"


@case
def exit_of_the_last_holder_destroys_things(u):
    pid = os.fork()
    if pid == 0:
        try:
            thing(u)
            thing(u)
        finally:
            os._exit(0)
    # the child's exit closes the file's last reference
    u.close()
    u.fd = os.open("/dev/null", os.O_RDONLY)
    u.async_fd = None
    os.waitpid(pid, 0)
    return "ok"


@case
def removal_destroys_and_then_eio(u):
    thing(u)
    thing(u)
    chan(u)
    with open(PARAMS + "remove", "w") as f:
        f.write("1")
    return call(u, THING, T_CREATE, handle(A_HANDLE, 0) + attr(A_VALUE, 7, length=4))[0]


def run(fn):
    """fn on a fresh context: its outcome and the destroy callbacks run."""
    u = uverbs_raw.Uverbs()
    before = destroyed()
    try:
        u.context()
        res = fn(u)
    except Failed as e:
        res = "setup failed (%s)" % e
    finally:
        u.close()
    after = destroyed()
    return "%s; destroyed %s" % (res, " ".join(str(a - b) for a, b in zip(after, before)))


# Measured on the stock stack (scripts/vm --stock): uverbs_ns.py measure
EXPECTED = {
    'thing_create': 'ok; destroyed 0 1 0 0',
    'thing_create_with_a_pd': 'ok; destroyed 0 1 0 0',
    'thing_create_with_a_stale_pd': 'ENOENT; destroyed 0 0 0 0',
    'thing_create_without_its_value': 'EINVAL; destroyed 0 0 0 0',
    'thing_destroy': 'ok; destroyed 1 0 0 0',
    'thing_destroy_twice': 'ENOENT; destroyed 1 0 0 0',
    'thing_destroy_given_a_pd': 'EINVAL; destroyed 0 0 0 0',
    'pd_destroy_given_a_thing': 'EINVAL; destroyed 0 1 0 0',
    'peek_a_thing': 'ok 0x1000; destroyed 0 1 0 0',
    'peek_a_pd': 'ok 0x1; destroyed 0 0 0 0',
    'peek_nothing': 'ENOENT; destroyed 0 0 0 0',
    'off_create': 'EPROTONOSUPPORT; destroyed 0 0 0 0',
    'use_off_mandatory': 'EPROTONOSUPPORT; destroyed 0 1 0 0',
    'use_off_optional_absent': 'ok; destroyed 0 0 0 0',
    'use_off_optional_given': 'EINVAL; destroyed 0 1 0 0',
    'pd_driver_method': 'ok 0x5a5a; destroyed 0 0 0 0',
    'query_context_with_driver_attr': 'ok 0x77; destroyed 0 0 0 0',
    'query_context_without_driver_attr': 'EINVAL; destroyed 0 0 0 0',
    'unknown_driver_method': 'EPROTONOSUPPORT; destroyed 0 0 0 0',
    'unknown_driver_object': 'EPROTONOSUPPORT; destroyed 0 0 0 0',
    'chan_create_then_close_its_fd': 'ok; destroyed 0 1 0 0',
    'close_destroys_things_and_chans': 'ok; destroyed 0 3 0 0',
    'exit_of_the_last_holder_destroys_things': 'ok; destroyed 0 2 0 0',
    'removal_destroys_and_then_eio': 'EIO; destroyed 0 0 3 0',
}


def main():
    uverbs_raw.DEV = uverbs_of("uvns0")
    return check_main(__doc__, CASES, EXPECTED, run)


if __name__ == "__main__":
    sys.exit(main())
