"""The suite's markers, given by where a test lives (or what it is), so that a quick loop is one command:
``./dev test -m "not browser and not cluster and not process"`` leaves out Chromium, nats-server and the tests
that start mttsim processes (docs/architecture.md, "Tests")."""

from __future__ import annotations

import pytest

BY_MODULE = {
    "cluster": {"test_cluster"},
    "process": {"test_cluster", "test_crash_recovery", "test_demo", "test_serve_cli"},
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        module = item.module.__name__.rpartition(".")[2] if item.module is not None else ""
        if module.startswith("test_browser"):
            item.add_marker(pytest.mark.browser)
        for marker, modules in BY_MODULE.items():
            if module in modules:
                item.add_marker(marker)
        if hasattr(getattr(item, "obj", None), "hypothesis"):  # given by hypothesis's @given
            item.add_marker(pytest.mark.property)
