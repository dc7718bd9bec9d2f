"""The engine as it runs where no C compiler built its extensions (setup.py): a Python process that imports the
project's modules from their source, never the compiled ones beside them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Put before the code to run: engine and bots then come from .py files, and everything else as usual.
PREAMBLE = """
import importlib.machinery as machinery, os, sys
source_only = machinery.FileFinder.path_hook((machinery.SourceFileLoader, machinery.SOURCE_SUFFIXES))
def project_from_source(path):
    if os.path.relpath(os.path.realpath(path or "."), os.getcwd()).split(os.sep)[0] not in (".", "engine", "bots"):
        raise ImportError(path)
    return source_only(path)
sys.path_hooks.insert(0, project_from_source)
sys.path_importer_cache.clear()
import engine.hand
assert engine.hand.__file__.endswith(".py"), engine.hand.__file__
"""


def run_from_source(code: str, *args: str) -> str:
    """What ``code`` prints, run with ``args`` in a process whose engine and bots are Python."""
    done = subprocess.run([sys.executable, "-c", PREAMBLE + code, *args], cwd=ROOT, check=True,
                          capture_output=True, text=True)
    return done.stdout
