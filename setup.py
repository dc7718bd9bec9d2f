"""Build step beyond pyproject.toml: the hot modules compiled to C with mypyc.

They stay ordinary, fully typed Python (mypy --strict); mypyc turns each into
an extension module (docs/performance.md): the hand engine (about twice as
fast) and the bots' strategies (issue 60: the simulator's whole loop 1.15x per
core). The extensions are optional: where
no C compiler is found the pure-Python modules are used, with the same
behaviour.
"""

from mypyc.build import mypycify
from setuptools import setup

# Not the tables' classes (engine/table.py, seating.py, fenwick.py: 1.35x with them): a director's snapshot
# pickles them, and a compiled class with constructor arguments does not unpickle (docs/performance.md).
COMPILED = ["engine/hand.py", "bots/strategies.py"]
extensions = mypycify(COMPILED, opt_level="3")
for extension in extensions:
    extension.optional = True

setup(ext_modules=extensions)
