"""No import cycles: every module imports alone, and the graph of imports has no cycle.

The graph is read from the sources (``tests.import_graph``); the imports themselves run
in forked children (``tests.import_alone``). ``python -m tests.import_graph`` prints the
cycles and the function-local imports of each package.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest

from tests.import_graph import PACKAGES, ROOT, Graph, build

CLEAN = ("engines",)
"""Packages with no cycle even counting imports placed inside functions."""

KNOWN_CYCLES: set[tuple[str, ...]] = set()
"""Cycles that only close through imports inside functions, outside ``CLEAN``. This set
may only shrink: a test fails when a new cycle appears, and when one here is gone (so
that it is taken off)."""


@pytest.fixture(scope="module")
def graph() -> Graph:
    return build()


def test_no_cycle_among_module_level_imports(graph: Graph) -> None:
    assert graph.cycles(with_local=False) == []


def test_clean_packages_have_no_cycle_even_through_function_imports(graph: Graph) -> None:
    assert graph.cycles(with_local=True, within=CLEAN) == []


def test_other_cycles_are_the_known_ones(graph: Graph) -> None:
    found = {tuple(cycle) for cycle in graph.cycles(with_local=True)}
    assert found - KNOWN_CYCLES == set(), "a new import cycle"
    assert KNOWN_CYCLES - found == set(), "a known cycle is gone: take it off KNOWN_CYCLES"


def test_clean_packages_import_only_third_party_modules_inside_functions(graph: Graph) -> None:
    """Inside ``CLEAN`` packages, an import is put in a function only to defer a heavy
    or optional dependency, never to dodge a cycle between project modules."""
    deferred = [
        (imp.source, imp.line, imp.targets)
        for imp in graph.local_imports()
        if imp.source.split(".")[0] in CLEAN and any(t in graph.modules for t in imp.targets)
    ]
    assert deferred == []


EXPLAINED = (
    "engines",
    "firmware_bridge",
    "calibration",
    "vision",
    "companion",
)
"""Packages (or subpackages, or modules) whose every function-local import says why it is
deferred (``# deferred: ...`` on its line): the whole tree."""


def test_function_local_imports_say_why_they_are_deferred(graph: Graph) -> None:
    unexplained = [f"{imp.source}:{imp.line}" for imp in graph.unexplained(EXPLAINED)]
    assert unexplained == [], "an import inside a function without '# deferred: <reason>'"


def _import_alone(modules: list[str]) -> dict[str, str | None]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.import_alone", *modules],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=900,
    )
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return {row["module"]: row["error"] for row in rows}


def _check_imported_alone(modules: list[str]) -> None:
    errors = _import_alone(modules)
    assert sorted(errors) == sorted(modules)
    kivy_missing = importlib.util.find_spec("kivy") is None
    failures = {}
    for module, error in errors.items():
        if error is None:
            continue
        if error.startswith("missing:kivy") and kivy_missing:
            continue  # the app's modules need Kivy, which is not installed here
        failures[module] = error
    assert failures == {}


def _modules(graph: Graph, packages: tuple[str, ...]) -> list[str]:
    """The modules of ``packages``, except ``__main__`` files (importing one runs it)."""
    return [
        name
        for name in graph.modules
        if name.split(".")[0] in packages and not name.endswith(".__main__")
    ]


def test_engines_and_firmware_bridge_modules_import_alone(graph: Graph) -> None:
    _check_imported_alone(_modules(graph, ("engines", "firmware_bridge")))


@pytest.mark.slow
def test_every_module_imports_alone(graph: Graph) -> None:
    """About a minute: the app's modules each load Kivy's widgets and layouts."""
    others = tuple(p for p in PACKAGES if p not in ("engines", "firmware_bridge"))
    _check_imported_alone(_modules(graph, others))
