"""Imported only as the fork server's preload (``bots.lifeline.forkserver``): the fork server dies with the
process that started it, and so does every process forked below it, each with its own parent (a hook after
each fork, armed before anything else runs in the child). Importing it anywhere else would tie that process to
its parent."""

import os

from bots.lifeline import PARENT, hold

hold(int(os.environ.get(PARENT, os.getppid())))
forking = [os.getpid()]  # the process that forks, read in it just before each fork
os.register_at_fork(before=lambda: forking.__setitem__(0, os.getpid()), after_in_child=lambda: hold(forking[0]))
