"""Build step beyond pyproject.toml: the hot modules compiled to C with mypyc.

They stay ordinary, fully typed Python (mypy --strict); mypyc turns each into
an extension module (docs/performance.md): the hand engine (about twice as
fast), the bots' strategies, the director and the parts and policies a hand's
deal and settling run through, and the simulator's loop and its processes
(docs/performance.md). The extensions are optional: where no C compiler is
found the pure-Python modules are used, with the same behaviour, and a
snapshot written by either loads into the other (engine/pickling.py).
"""

from mypyc.build import mypycify
from setuptools import setup

# A class a director's snapshot pickles is compiled ``serializable`` (unpickled without its constructor) and
# ``allow_interpreted_subclasses``: mypy 2.4.1 gives a serializable class alone a constructor that skips
# ``__init__`` when Python code calls it. The face's methods that are the policies' functions are class
# variables (engine/director.py), as a compiled class keeps any other class attribute per instance.
COMPILED = [
    "engine/hand.py", "engine/table.py", "engine/seating.py", "engine/fenwick.py",
    "engine/floor.py", "engine/eliminations.py", "engine/rebuys.py", "engine/clock.py", "engine/handforhand.py",
    "engine/cards.py", "engine/pickling.py", "engine/evaluate.py", "engine/windows.py",
    "engine/lateentry.py", "engine/state.py", "engine/director.py",
    *(f"engine/parts/{part}.py" for part in (
        "busts", "buys", "clock", "floor", "heads", "pending", "people", "progress", "purse", "results", "roster",
        "rounds", "stacks")),
    "bots/strategies.py", "bots/playing.py", "bots/simulation.py",
]
extensions = mypycify(COMPILED, opt_level="3")
for extension in extensions:
    extension.optional = True

setup(ext_modules=extensions)
