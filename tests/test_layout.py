"""The code's shape, held by tests: the tournament's state has one writer per field (its part), read through the
face everywhere else; no function is longer than a screen."""

from __future__ import annotations

import ast
import random
from pathlib import Path

from engine import pickling
from engine.state import State
from tests.tournaments import definition

ROOT = Path(__file__).parent.parent
# Where the tournament's state is changed: by its parts' methods, which the parts and the state itself hold.
OWNERS = {ROOT / "engine" / "state.py", *(ROOT / "engine" / "parts").glob("*.py")}
# What the face writes itself: the definition (the console's edit of a level to come) and the hands it dealt.
FACE_WRITES = {"definition", "hands_played"}
MUTATORS = {"append", "extend", "insert", "pop", "popitem", "remove", "clear", "add", "discard", "update",
            "setdefault", "sort", "reverse", "difference_update", "intersection_update"}
# The names a tournament goes by where it is read: a rule's ``t``, the server's director (and the face's self).
HOLDERS = {"t", "tournament", "director", "final"}


BUILT = State(definition(6), random.Random(1), lambda rng, players: None)
# The state's parts (and its ledger): their own methods change them.
PARTS = {name for name in pickling.attributes(BUILT)
         if type(getattr(BUILT, name)).__module__.startswith(("engine.parts", "engine.money"))}


def state_names() -> set[str]:
    """Every field of the state and every read the face offers of one."""
    reads = {name for name, value in vars(State).items() if not name.startswith("_") and not callable(value)}
    return reads | set(pickling.attributes(BUILT))


def holder(node: ast.expr, face: bool) -> bool:
    """Whether ``node`` names a tournament: ``t``, ``director``, ``runtime.director``, or the face's ``self``."""
    if isinstance(node, ast.Name):
        return node.id in HOLDERS or (face and node.id == "self")
    return isinstance(node, ast.Attribute) and node.attr == "director"


def field_of(target: ast.expr, face: bool) -> str | None:
    """The field ``target`` writes into: the state's (``t.stacks[p]``, ``t.status``) or a part's
    (``t.floor.where[p]``, as ``floor.where``), if it names one."""
    while isinstance(target, ast.Subscript):
        target = target.value
    if not isinstance(target, ast.Attribute):
        return None
    if holder(target.value, face):
        return target.attr
    inner = target.value
    if isinstance(inner, ast.Attribute) and holder(inner.value, face):
        return f"{inner.attr}.{target.attr}"
    return None


def writes(path: Path, names: set[str]) -> list[str]:
    """The places in ``path`` that write a field of the state, or of one of its parts, other than through the
    part's methods."""
    found = []
    face = path == ROOT / "engine" / "director.py"
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    for node in ast.walk(ast.parse(path.read_text())):
        targets: list[ast.expr] = []
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = [element for target in node.targets
                       for element in (target.elts if isinstance(target, ast.Tuple) else [target])]
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            targets = [node.func.value]
        changed_in_place = isinstance(node, ast.Call)
        for target in targets:
            field = field_of(target, face)
            if field is None or (field not in names and field.split(".")[0] not in names):
                continue
            if changed_in_place and field in PARTS:
                continue  # a part's own method: ``t.chips.clear()``
            if not (face and field in FACE_WRITES and isinstance(target, ast.Attribute)):
                found.append(f"{where}:{node.lineno} {field}")
    return found


def test_no_module_writes_the_tournaments_state_but_through_the_part_that_owns_it():
    """The rules (engine/*.py), the server and the bots change the state only by the parts' methods
    (``t.chips.admit(...)``), never by writing a field the face reads (``t.stacks[p] = ...``)."""
    names = state_names()
    assert {"stacks", "status", "chips_issued", "results", "prizes", "where", "level"} <= names
    sources = [path for package in ("engine", "server", "bots") for path in sorted((ROOT / package).rglob("*.py"))
               if path not in OWNERS]
    assert ROOT / "engine" / "floor.py" in sources and ROOT / "server" / "tournament" / "runtime.py" in sources
    assert [place for path in sources for place in writes(path, names)] == []


def test_the_gate_finds_a_write_to_the_state(tmp_path):
    """The gate above sees each way of writing a field: assigned, indexed, added to, deleted, or changed in place."""
    rule = tmp_path / "rule.py"
    rule.write_text("def f(t, director):\n    t.status = 1\n    t.stacks['p'] += 2\n    del t.results['p']\n"
                    "    director.add_ons.add('p')\n    t.chips.admit('p', 1)\n    t.floor.where.pop('p')\n")
    found = sorted(place.split()[-1] for place in writes(rule, state_names()))
    assert found == ["add_ons", "floor.where", "results", "stacks", "status"]


LONGEST_FUNCTION = 60  # lines from ``def`` to the last line, docstring included: a screen, read without scrolling


def long_functions(path: Path) -> list[str]:
    """The functions and methods of ``path`` longer than ``LONGEST_FUNCTION`` lines, with their length."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name}:{node.lineno} {node.name} "
            f"({node.end_lineno - node.lineno + 1} lines)"
            for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno is not None and node.end_lineno - node.lineno + 1 > LONGEST_FUNCTION]


def test_no_function_in_the_engine_the_server_or_the_bots_is_longer_than_a_screen():
    sources = [path for package in ("engine", "server", "bots") for path in sorted((ROOT / package).rglob("*.py"))]
    assert len(sources) > 100
    assert [place for path in sources for place in long_functions(path)] == []


def test_the_size_gate_counts_a_function_from_its_def_to_its_last_line(tmp_path):
    source = tmp_path / "long.py"
    body = "".join(f"x{i} = {i}\n" for i in range(LONGEST_FUNCTION - 1))
    indented = lambda depth: "".join(" " * depth + line + "\n" for line in body.splitlines())  # noqa: E731
    source.write_text(f"def fits():\n{indented(4)}\n\nclass C:\n    async def over(self):\n{indented(8)}"
                      "        return 1\n")
    assert long_functions(source) == [f"long.py:{LONGEST_FUNCTION + 4} over ({LONGEST_FUNCTION + 1} lines)"]
