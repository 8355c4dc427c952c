"""The run of an end-to-end test: its processes, its cleanup, its waits.

Python 3, standard library only.  Every module of the harness starts its
processes through here, so that one place knows them all:

- HarnessError: what the harness raises when a node, the daemon or a tool
  does not do what it must (a check of the test raises checks.Failed).
- track() / untrack(): the processes to kill at the end; stop_process()
  (a signal, a deadline, then SIGKILL), kill9(), kill_children().
- add_exit_hook(), install_cleanup(): what runs at exit, also when a
  signal or the run's overall deadline (SIGALRM, exit status 124) ends it;
  own_tempdir(): a temporary directory removed then ($HJ_KEEP keeps it).
- wait_until(): polling a condition with a deadline, the one way a test
  waits; close_all(): closing several things, each even when one fails.
- all_threads_stopped() (a process paused by SIGSTOP), file_tail() (the
  end of a process's log for a message), free_port(), ROOT (the
  repository).
"""

import atexit
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class HarnessError(Exception):
    pass


# --------------------------------------------------------------------------
# Processes and exit hooks

_children = []          # Popen objects to kill at exit
_exit_hooks = []        # callables run after that (also on a signal)
_cleanup_installed = False


def add_exit_hook(fn):
    """fn() runs at exit, after the children are killed, also when a signal
    or the overall deadline ends the run (e.g. removing a temp directory)."""
    _exit_hooks.append(fn)


def _run_exit_hooks():
    while _exit_hooks:
        try:
            _exit_hooks.pop()()
        except Exception:
            pass


def track(proc):
    """proc (a Popen) is killed at exit unless untrack()ed first; returns it."""
    _children.append(proc)
    return proc


def untrack(proc):
    if proc in _children:
        _children.remove(proc)


def kill_children():
    """Kills every tracked process that is still running."""
    for p in list(_children):
        try:
            if p.poll() is None:
                try:
                    os.kill(p.pid, signal.SIGCONT)  # a paused one too
                except OSError:
                    pass
                p.kill()
                p.wait(timeout=10)
        except Exception:
            pass
        untrack(p)


# at exit: first the children are killed, then the hooks run (LIFO order)
atexit.register(_run_exit_hooks)
atexit.register(kill_children)


def own_tempdir(prefix):
    """A temporary directory removed at exit (kept when $HJ_KEEP is set)."""
    d = tempfile.mkdtemp(prefix=prefix)
    if not os.environ.get("HJ_KEEP"):
        add_exit_hook(lambda: shutil.rmtree(d, ignore_errors=True))
    return d


def install_cleanup(overall_timeout=None):
    """SIGINT/SIGTERM/SIGHUP handlers that kill every started process and run
    the exit hooks (atexit does the same at a normal exit); with
    overall_timeout, SIGALRM ends the whole run after that many seconds (exit
    status 124)."""
    global _cleanup_installed
    if not _cleanup_installed:
        def on_signal(signum, _frame):
            kill_children()
            _run_exit_hooks()
            sys.stderr.write("hj: stopped by signal %d\n" % signum)
            os._exit(128 + signum)

        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, on_signal)
        _cleanup_installed = True
    if overall_timeout:
        def on_alarm(_signum, _frame):
            kill_children()
            _run_exit_hooks()
            sys.stderr.write("hj: overall deadline of %ss exceeded\n" % overall_timeout)
            sys.stderr.flush()
            os._exit(124)
        signal.signal(signal.SIGALRM, on_alarm)
        signal.alarm(int(overall_timeout))


def stop_process(proc, sig, timeout):
    """Sends sig (after SIGCONT, for a paused one), waits up to timeout,
    then SIGKILL; the process is untracked.  Returns the exit code (None
    for a process never started)."""
    if proc is None:
        return None
    if proc.poll() is None:
        try:
            os.kill(proc.pid, signal.SIGCONT)
            os.kill(proc.pid, sig)
        except OSError:
            pass
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    untrack(proc)
    return proc.returncode


def kill9(thing):
    """kill -9: a node, a daemon (anything with its Popen in .proc), or a
    Popen.  Returns the exit status (-9), None when nothing was running."""
    proc = getattr(thing, "proc", thing)
    if proc is None:
        return None
    return stop_process(proc, signal.SIGKILL, 10)


def all_threads_stopped(pid):
    """Whether every thread of pid is in state T (stopped by a signal), as
    /proc/PID/task/*/stat says."""
    task = "/proc/%d/task" % pid
    for tid in os.listdir(task):
        try:
            with open(os.path.join(task, tid, "stat")) as f:
                stat = f.read()
        except FileNotFoundError:
            continue  # a thread that ended meanwhile
        if stat[stat.rindex(")") + 2] not in "Tt":
            return False
    return True


# --------------------------------------------------------------------------
# Waiting, closing, files, ports

def wait_until(pred, timeout, what="condition", interval=0.02):
    """Polls pred() until it returns a true value (returned) or the deadline
    passes (TimeoutError naming `what`)."""
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() >= deadline:
            raise TimeoutError("timed out after %.1fs waiting for %s" % (timeout, what))
        time.sleep(interval)


def close_all(*fns):
    """Calls each of fns in turn (None is passed over), every one of them
    even when one raises; then raises the first error, if any (a session's
    close(): the daemon, the node, a socket, a proxy)."""
    err = None
    for fn in fns:
        if fn is None:
            continue
        try:
            fn()
        except BaseException as e:  # noqa: BLE001 - the rest must close too
            err = err or e
    if err is not None:
        raise err


def file_tail(path, n=30):
    """The last n lines of a file (a process's log), or "(no PATH)"."""
    try:
        with open(path, "rb") as f:
            lines = f.read().decode("utf-8", "replace").splitlines()
        return "\n".join(lines[-n:])
    except OSError:
        return "(no %s)" % path


def free_port():
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
