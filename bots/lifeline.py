"""Processes that die with the process that started them, whatever kills it (even SIGKILL, which no handler
sees): Linux's parent-death signal, ``prctl(PR_SET_PDEATHSIG, SIGKILL)``.

A server's plan and the lab play their runs in a pool of processes started by
multiprocessing's fork server. Without this, a server killed with ``kill -9``
left the fork server, its resource tracker and the pool's idle workers running
(about 50 MB each): a worker waits on a queue whose other end it holds itself,
so it never reads the end of it. Now the fork server (``bots.lifeline_preload``)
and every process it forks die with their parent, and the resource tracker
reads the end of its pipe once they are gone, and exits. Elsewhere than Linux
this does nothing.

The signal is armed in the child, which may start late (a worker imports the
program first): a parent that died before then is caught by its pid, which
the child is given, rather than by ``getppid`` alone, which by then names the
process that adopted it.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
from multiprocessing.context import ForkServerContext

PR_SET_PDEATHSIG = 1  # linux/prctl.h
PARENT = "MTTSIM_LIFELINE_PARENT"  # the environment's word to a fork server on the process that started it


def hold(parent: int) -> None:
    """This process gets SIGKILL when ``parent``, the process that started it, ends (the thread that started
    it, for a parent with several); a parent already gone means exit at once."""
    if not sys.platform.startswith("linux"):
        return
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(0)


def forkserver() -> ForkServerContext:
    """The fork server's context, its server started with ``bots.lifeline_preload``, which holds it to this
    process. The preload takes effect where the fork server starts, so every start goes through here (the lab's
    pool, the simulator's workers beside a thread)."""
    os.environ[PARENT] = str(os.getpid())
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["bots.lifeline_preload"])
    return context
