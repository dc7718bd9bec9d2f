"""The browser client's code stays split by concern and readable: only net.js opens sockets, the state
never touches the page, and no line needs scrolling to read."""

from __future__ import annotations

import re
from pathlib import Path

WEB = Path(__file__).resolve().parents[1] / "web"
SOURCES = sorted([*WEB.glob("*.js"), *WEB.glob("*.css"), *WEB.glob("*.html")])


def test_only_the_network_module_opens_sockets_and_only_views_touch_the_page():
    for path in WEB.glob("*.js"):
        text = path.read_text()
        opens_sockets = "new WebSocket" in text
        assert opens_sockets == (path.name == "net.js"), path.name
        if path.name in ("net.js", "state.js", "describe.js", "handrank.js"):
            assert not re.search(r"\bdocument\.|from \"\./dom\.js\".*\bel\b", text), f"{path.name} draws"
    state = (WEB / "state.js").read_text()
    assert "import" not in state  # the table's state depends on nothing


def test_no_line_of_the_client_is_longer_than_120_characters():
    long = [f"{path.name}:{number}" for path in SOURCES
            for number, line in enumerate(path.read_text().splitlines(), start=1) if len(line) > 120]
    assert SOURCES and long == []
