"""Who holds which entries (rules.md M.50-M.51, L.48): the persons behind a multi-entry field and a final's
qualified stacks.

An entry is a person of its own until it is grouped: only persons with
several entries are kept, so a field of single entries costs nothing here
and the seating draws take their fast path (``person_of`` is None).
"""

from __future__ import annotations

from collections.abc import Iterable, Set

from mypy_extensions import mypyc_attr

from engine.seating import Person, person_of


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class People:
    """Entries grouped by person, and a final's qualified entry per person. Written only through its methods:
    registration and re-entry group entries, a flight's qualification records its stacks."""

    def __init__(self) -> None:
        self._person: dict[str, str] = {}  # entry -> person, only for people with several entries
        self._entries_of: dict[str, set[str]] = {}  # person -> their entries, the reverse of _person
        self._qualified: dict[str, str] = {}  # a final's person -> the entry their counted stack is on (L.48)
        self.qualified_entries: set[str] = set()  # a final: every entry a flight sent

    def person(self, entry: str) -> str:
        """Who holds ``entry``: their person, or the entry itself when it is a person of its own."""
        return self._person.get(entry, entry)

    def grouped(self, entry: str) -> bool:
        """Whether ``entry`` belongs to a person (rather than being one of its own)."""
        return entry in self._person

    def several(self) -> bool:
        """Whether anyone holds several entries."""
        return bool(self._person)

    def person_of(self) -> Person | None:
        """The multi-entry constraint for the seating draws, or None when every entry is a person of its own
        (their fast path)."""
        return person_of(self._person) if self._person else None

    def entries_of(self, person: str) -> Set[str]:
        return self._entries_of.get(person, frozenset())

    def known(self, person: str) -> bool:
        """Whether ``person`` has entries grouped under them."""
        return person in self._entries_of

    def groups(self) -> Iterable[set[str]]:
        return self._entries_of.values()

    def belongs(self, entry: str, person: str) -> None:
        self._person[entry] = person
        self._entries_of.setdefault(person, set()).add(entry)

    def forget(self, entry: str) -> None:
        """An entry unregistered: its person no longer holds it."""
        person = self._person.pop(entry, None)
        if person is not None:
            self._entries_of[person].discard(entry)

    def qualified_entry(self, person: str) -> str | None:
        """The entry a person's counted stack is on in a final, if they qualified (L.48)."""
        return self._qualified.get(person)

    def qualify(self, person: str, entry: str) -> None:
        """``entry`` is a stack a flight sent for ``person``; the first one counts for them (L.48)."""
        self._qualified.setdefault(person, entry)
        self.qualified_entries.add(entry)

    def unqualify(self, entry: str) -> None:
        """A qualified entry withdrawn from the final: it no longer counts for its person."""
        self.qualified_entries.discard(entry)
        for person, counted in list(self._qualified.items()):
            if counted == entry:
                del self._qualified[person]
