"""Waiting for something the server does in the background (controllers,
watch streams, the etcd copy), shared by the end-to-end suites.

    assert eventually(lambda: used(srv, ns) == {...})
    assert eventually(check, 1.0)      # holds within a second

A check is judged by when it *started*: eventually() gives up only after
a call that started past the timeout failed, so a slow call (a kubectl
process, a loaded machine) cannot make a bound fail that the server met.
"""

import time


def eventually(check, timeout=10.0, interval=0.02):
    """Calls check() until it returns a true value, which is returned.
    Returns the last (false) value once a call started more than timeout
    seconds after this one failed."""
    deadline = time.monotonic() + timeout
    while True:
        started = time.monotonic()
        value = check()
        if value or started > deadline:
            return value
        time.sleep(interval)
