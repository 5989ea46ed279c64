"""Ctrl-C during a long call, as a terminal sends it: from outside the
process. A fresh interpreter prepares the call, says that it starts it, and
the test sends it SIGINT a moment later; the interpreter reports whether the
call raised KeyboardInterrupt or returned, and when. The signal comes from
the parent, not from a thread of the child: such a thread needs the GIL to
send it, so a call that held the GIL would run to its end first and look as
if it had finished before the signal.

time.monotonic() is CLOCK_MONOTONIC on Linux, one clock for every process,
so the child's times and the parent's compare."""

import os
import select
import signal
import subprocess
import sys
import textwrap
import time

import pytest

CHILD = """
import os, signal, sys, time
# As an interactive interpreter has it, also where the test runner was
# started with SIGINT ignored (a background job of a shell without job control).
signal.signal(signal.SIGINT, signal.default_int_handler)
{setup}
print("calling", flush=True)
try:
    {call}
    end = time.monotonic()
    outcome = "finished"
except KeyboardInterrupt:
    end = time.monotonic()
    outcome = "interrupted"
# A SIGINT that comes after the call has nothing left to interrupt.
signal.signal(signal.SIGINT, signal.SIG_IGN)
print(outcome, end, flush=True)
os._exit(0)  # an abandoned call need not finish
"""


def interrupt_call(setup, call, delay=0.2, setup_timeout=120, timeout=60):
    """Runs `setup` (statements) in a fresh interpreter, then `call` (one
    statement), sends SIGINT `delay` seconds after the child says it calls,
    and checks what came of it. Skips where the call returned before the
    signal was sent; fails where it returned after it without raising
    KeyboardInterrupt, or still ran `timeout` seconds after it. Returns the
    seconds from sending SIGINT to the KeyboardInterrupt."""
    code = CHILD.format(setup=textwrap.dedent(setup), call=call)
    # From the root directory: `python -c` puts the working directory first on
    # sys.path, and ctest's is the build tree's python/, which holds glccl.
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, cwd="/", env=os.environ)
    try:
        ready, _, _ = select.select([child.stdout], [], [], setup_timeout)
        line = child.stdout.readline() if ready else ""
        if line.strip() != "calling":
            child.kill()
            _, errors = child.communicate()
            pytest.fail(f"the child did not reach the call within {setup_timeout} s: {line!r}\n{errors}")
        time.sleep(delay)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        try:
            output, errors = child.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            pytest.fail(f"the call still ran {timeout} s after SIGINT")
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 0, errors
    words = output.split()
    assert len(words) == 2 and words[0] in ("finished", "interrupted"), output + errors
    outcome, end = words[0], float(words[1])
    if outcome == "finished" and end < sent:
        pytest.skip(f"the call returned {sent - end:.2f} s before SIGINT was sent: nothing to interrupt")
    assert outcome != "finished", (f"the call went on past SIGINT and returned {end - sent:.2f} s after it "
                                   "without KeyboardInterrupt")
    return end - sent
