"""Build step beyond pyproject.toml: the hand engine compiled to C with mypyc.

``engine/hand.py`` stays ordinary, fully typed Python (mypy --strict); mypyc
turns it into an extension module about twice as fast (docs/performance.md).
The extension is optional: where no C compiler is found the pure-Python module
is used, with the same behaviour.
"""

from mypyc.build import mypycify
from setuptools import setup

extensions = mypycify(["engine/hand.py"], opt_level="3")
for extension in extensions:
    extension.optional = True

setup(ext_modules=extensions)
