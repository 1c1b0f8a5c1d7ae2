"""The project's module-import graph, read from the sources with ``ast``.

Two kinds of edges: imports run when a module is loaded (module level, including class
bodies and ``try`` blocks) and imports placed inside functions. Imports under
``if TYPE_CHECKING:`` never run and are left out. A cycle is a strongly connected
component of more than one module.

An import inside a function says why on its line, after ``# deferred:`` (a heavy or
optional dependency loaded only when needed); ``Graph.unexplained`` lists those without.

Run ``python -m tests.import_graph`` to print the cycles and the function-local imports
of each package (``-v``: each of them, with its reason).
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engines", "firmware_bridge", "calibration", "vision", "companion")


@dataclass(frozen=True)
class Import:
    """One import statement of a project module, resolved to project modules."""

    source: str
    targets: tuple[str, ...]
    line: int
    local: bool
    """True when the import sits inside a function (it runs when the function is called)
    or under ``if __name__ == "__main__":``."""
    reason: str = ""
    """Why a function-local import is not at module level: the text after ``# deferred:``
    on one of the statement's lines (empty when there is none)."""


@dataclass
class Graph:
    modules: dict[str, Path] = field(default_factory=dict, repr=False)
    imports: list[Import] = field(default_factory=list, repr=False)

    def edges(self, *, with_local: bool) -> dict[str, set[str]]:
        """Project-internal edges; function-local imports only when ``with_local``."""
        out: dict[str, set[str]] = {name: set() for name in self.modules}
        for imp in self.imports:
            if imp.local and not with_local:
                continue
            # A module naming itself (``python -m pkg.mod`` importing ``pkg.mod`` under
            # its ``__main__`` guard) loads a second copy, not a cycle.
            out[imp.source].update(t for t in imp.targets if t in self.modules and t != imp.source)
        return out

    def cycles(self, *, with_local: bool, within: Iterable[str] = PACKAGES) -> list[list[str]]:
        """The strongly connected components that are cycles, each sorted, among the
        modules of the packages ``within``."""
        keep = tuple(within)
        edges = {
            src: {t for t in dsts if package_of(t) in keep}
            for src, dsts in self.edges(with_local=with_local).items()
            if package_of(src) in keep
        }
        found = []
        for component in strongly_connected(edges):
            if len(component) > 1:
                found.append(sorted(component))
        return sorted(found)

    def local_imports(self) -> list[Import]:
        return [imp for imp in self.imports if imp.local]

    def unexplained(self, within: Iterable[str] = PACKAGES) -> list[Import]:
        """Function-local imports without a ``# deferred:`` reason, in the modules named
        by ``within`` (a package, a subpackage or a module, with what lies under it)."""
        keep = tuple(within)
        return [
            imp
            for imp in self.local_imports()
            if not imp.reason and any(_under(imp.source, prefix) for prefix in keep)
        ]


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def package_of(module: str) -> str:
    return module.split(".", 1)[0]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def build(packages: Iterable[str] = PACKAGES) -> Graph:
    """Reads every module of ``packages`` under the repository root."""
    graph = Graph()
    for package in packages:
        for path in sorted((ROOT / package).rglob("*.py")):
            graph.modules[module_name(path)] = path
    for name, path in graph.modules.items():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        tree = ast.parse(text, filename=str(path))
        is_package = path.name == "__init__.py"
        for node, local in _import_nodes(tree):
            targets = tuple(_resolve(node, name, is_package, graph.modules))
            reason = _reason(lines[node.lineno - 1 : node.end_lineno or node.lineno])
            graph.imports.append(Import(name, targets, node.lineno, local, reason))
    return graph


DEFERRED = "# deferred:"


def _reason(lines: list[str]) -> str:
    for line in lines:
        if DEFERRED in line:
            return line.split(DEFERRED, 1)[1].strip()
    return ""


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _is_main_guard(test: ast.expr) -> bool:
    """``if __name__ == "__main__":`` runs only when the module is run as a script."""
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators)
    )


def _import_nodes(
    node: ast.AST, local: bool = False
) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child, local
        elif isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:
                yield from _import_nodes(other, local)
        elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) or (
            isinstance(child, ast.If) and _is_main_guard(child.test)
        ):
            yield from _import_nodes(child, True)
        else:
            yield from _import_nodes(child, local)


def _resolve(
    node: ast.Import | ast.ImportFrom, source: str, is_package: bool, modules: dict[str, Path]
) -> Iterator[str]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name
        return
    base = node.module or ""
    if node.level:
        parts = source.split(".")
        if not is_package:
            parts.pop()
        parts = parts[: len(parts) - (node.level - 1)]
        base = ".".join([*parts, base] if base else parts)
    for alias in node.names:
        submodule = f"{base}.{alias.name}"
        # ``from pkg import sub`` loads the submodule; ``from pkg import name`` loads pkg.
        yield submodule if submodule in modules else base


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    components.append(component)
    return components


def shortest_cycle(edges: dict[str, set[str]], members: list[str]) -> list[str]:
    """A shortest cycle through the first module of a component, for the report."""
    start = members[0]
    inside = set(members)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(edges[node] & inside):
                if child == start:
                    return [*paths[node], start]
                if child not in paths:
                    paths[child] = [*paths[node], child]
                    following.append(child)
        frontier = following
    return members


def report(graph: Graph) -> str:
    lines = []
    for with_local, title in ((False, "module-level imports"), (True, "all imports")):
        edges = graph.edges(with_local=with_local)
        found = graph.cycles(with_local=with_local)
        size = sum(len(c) for c in found)
        lines.append(f"cycles, {title}: {len(found)} ({size} modules)")
        for component in found:
            path = " -> ".join(shortest_cycle(edges, component))
            lines.append(f"  [{len(component)}] {', '.join(component)}")
            lines.append(f"      e.g. {path}")
    local = graph.local_imports()
    per_package = Counter(package_of(imp.source) for imp in local)
    modules = {
        package: {imp.source for imp in local if package_of(imp.source) == package}
        for package in PACKAGES
    }
    internal = Counter(
        package_of(imp.source) for imp in local if any(t in graph.modules for t in imp.targets)
    )
    unexplained = Counter(package_of(imp.source) for imp in graph.unexplained())
    lines.append(
        "function-local imports (all / of project modules / modules holding them / "
        "without a reason):"
    )
    for package in PACKAGES:
        lines.append(
            f"  {package:16} {per_package[package]:4} {internal[package]:4} "
            f"{len(modules[package]):4} {unexplained[package]:4}"
        )
    lines.append(
        f"  {'total':16} {len(local):4} {sum(internal.values()):4} "
        f"{len({imp.source for imp in local}):4} {sum(unexplained.values()):4}"
    )
    if "-v" in sys.argv:
        lines.append("function-local imports:")
        for imp in local:
            path = graph.modules[imp.source].relative_to(ROOT)
            why = f"  (deferred: {imp.reason})" if imp.reason else ""
            lines.append(f"  {path}:{imp.line} -> {', '.join(imp.targets)}{why}")
    sizes = sorted(
        ((len(p.read_text(encoding="utf-8").splitlines()), n) for n, p in graph.modules.items()),
        reverse=True,
    )
    lines.append("largest modules (lines):")
    lines.extend(f"  {count:5} {name}" for count, name in sizes[:10])
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(build()))
