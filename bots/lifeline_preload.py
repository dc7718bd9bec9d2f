"""Imported only as the fork server's preload (``bots.lifeline.forkserver``): the fork server dies with the
process that started it. Importing it anywhere else would tie that process to its own parent."""

from bots.lifeline import hold

hold()
