"""The director's state pickled the same whether its classes are compiled or not (snapshots, server/storage.py).

mypyc compiles the classes a hand's settling runs through (setup.py). A
compiled instance has no ``__dict__`` and pickles its attributes as a dict; a
Python class with ``__slots__`` pickles ``(None, slots)``. A journal's snapshots
must load whichever way they were written and are read: an older journal, or
a machine where the extensions could not be built. A class that defines its
own pickling takes its state through here, so every form loads into both.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

# A pickled instance's state: its attributes, or a slotted Python class's ``(None, slots)``.
State = dict[str, Any] | tuple[Any, dict[str, Any]]


def attributes(instance: object) -> Iterable[str]:
    """The names of an instance's attributes: a compiled class lists them, a Python one keeps them in a dict."""
    names: tuple[str, ...] | None = getattr(type(instance), "__mypyc_attrs__", None)
    return vars(instance).keys() if names is None else names


def state(instance: object, names: Iterable[str]) -> dict[str, Any]:
    """The attributes ``names`` of ``instance`` that are set."""
    missing = object()
    values = ((name, getattr(instance, name, missing)) for name in names)
    return {name: value for name, value in values if value is not missing}


def restore(instance: object, pickled: State) -> None:
    """Give ``instance`` (built without its constructor) the attributes of any form of its state."""
    fields = pickled[1] if isinstance(pickled, tuple) else pickled
    for name, value in fields.items():
        setattr(instance, name, value)
