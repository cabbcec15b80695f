"""The layers of the project, checked on its source: engine → notation → bots → sim → front ends
and research adapters, each importing only the layers before it, and nothing outside the engine
importing a private engine name (one starting with ``_``, or missing from its module's
``__all__``)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "rummy500"

# What each part of the package may import of rummy500 (besides itself). The foundation (i18n,
# worker processes, the extras) is open to every layer.
FOUNDATION = {"i18n", "workers", "extras"}
ALLOWED: dict[str, set[str]] = {
    **{part: set() for part in FOUNDATION},
    "engine": set(),
    "notation": {"engine"},
    "bots": {"engine", "notation"},
    "sim": {"engine", "notation", "bots"},
    "review": {"engine", "notation", "bots"},
    "words": {"engine"},
    # rummy500 replay --step: a record drawn with rich, the moves in words
    "stepper": {"engine", "notation", "words"},
    "benchmarks": {"engine"},
    "tui": {"engine", "notation", "bots", "sim", "review", "words"},
    "server": {"engine", "notation", "bots", "sim", "review", "words"},
    "envs": {"engine", "notation", "bots", "sim"},
    "schemas": {"engine", "notation", "bots", "sim", "server"},
    # the command line and the package's own entry points put everything together
    "cli": {"*"},
    "__main__": {"*"},
    "__init__": {"engine", "notation", "bots"},
}


def part_of(path: Path) -> str:
    relative = path.relative_to(SRC)
    return relative.parts[0].removesuffix(".py")


def imports(path: Path) -> list[tuple[int, str, list[str]]]:
    """``(line, module, names)`` of every import of rummy500 in the file (module-level or not)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "rummy500" or node.module.startswith("rummy500."):
                found.append((node.lineno, node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("rummy500."):
                    found.append((node.lineno, alias.name, []))
    return found


def target_part(module: str, names: list[str]) -> list[str]:
    parts = module.split(".")
    if len(parts) >= 2:
        return [parts[1]]
    return names  # from rummy500 import engine, i18n…


SOURCES = sorted(p for p in SRC.rglob("*.py") if "migrations" not in p.parts)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(SRC)))
def test_each_layer_imports_only_the_layers_before_it(path: Path) -> None:
    part = part_of(path)
    allowed = ALLOWED.get(part)
    assert allowed is not None, f"{part}: a new part of the package: give it its layer here"
    for line, module, names in imports(path):
        for target in target_part(module, names):
            if target in (part, *FOUNDATION) or "*" in allowed:
                continue
            assert target in allowed, f"{path.name}:{line}: {part} may not import {module}"


@pytest.mark.parametrize(
    "path", [p for p in SOURCES if part_of(p) != "engine"], ids=lambda p: str(p.relative_to(SRC))
)
def test_nothing_outside_the_engine_imports_a_private_engine_name(path: Path) -> None:
    for line, module, names in imports(path):
        if module != "rummy500.engine" and not module.startswith("rummy500.engine."):
            continue
        target = importlib.import_module(module)
        public = set(getattr(target, "__all__", ()))
        for name in names:
            where = f"{path.relative_to(SRC)}:{line}"
            assert not name.startswith("_"), f"{where}: {name} is private to {module}"
            assert name in public, f"{where}: {name} is not in {module}.__all__"


def test_the_check_finds_a_private_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from rummy500.engine.movegen import _DISCARD\n")
    assert imports(bad) == [(1, "rummy500.engine.movegen", ["_DISCARD"])]


def engine_imports() -> dict[str, set[str]]:
    """Each module of the engine and the engine modules it imports (anywhere in the file)."""
    folder = SRC / "engine"
    modules = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
    graph = {}
    for name in modules:
        found = set()
        for _line, module, names in imports(folder / f"{name}.py"):
            if module.startswith("rummy500.engine."):
                found.add(module.split(".")[2])
            elif module == "rummy500.engine":
                found |= {n for n in names if n in modules}
        graph[name] = found - {name}
    return graph


def test_the_engine_modules_import_each_other_without_a_cycle() -> None:
    """errors.py is a leaf: cards → errors → reasons → cards is no circle (a later issue compiles
    the engine with mypyc)."""
    graph = engine_imports()
    assert graph["errors"] == set(), "errors.py imports nothing of the engine"
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, f"an import cycle: {' → '.join((*path, name))}"
        if name in done:
            return
        for target in sorted(graph[name]):
            visit(target, (*path, name))
        done.add(name)

    for name in sorted(graph):
        visit(name, ())


def server_imports() -> dict[str, set[str]]:
    """Each module of the server and the server modules it imports, anywhere in the file: under
    ``if TYPE_CHECKING:`` too. A circle of type-only imports is still a circle: neither module
    can be read, tested or moved without the other (the table ↔ hub circle was one)."""
    folder = SRC / "server"
    modules = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
    graph = {}
    for name in modules:
        found = set()
        for _line, module, names in imports(folder / f"{name}.py"):
            if module.startswith("rummy500.server."):
                found.add(module.split(".")[2])
            elif module == "rummy500.server":
                found |= {n for n in names if n in modules}
        graph[name] = found - {name}
    return graph


def import_cycle(graph: dict[str, set[str]]) -> tuple[str, ...] | None:
    """A cycle of ``graph`` (its modules in order, the first again last), or ``None``."""
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> tuple[str, ...] | None:
        if name in path:
            return (*path[path.index(name) :], name)
        if name in done:
            return None
        for target in sorted(graph.get(name, ())):
            cycle = visit(target, (*path, name))
            if cycle is not None:
                return cycle
        done.add(name)
        return None

    for name in sorted(graph):
        cycle = visit(name, ())
        if cycle is not None:
            return cycle
    return None


def test_the_server_modules_import_each_other_without_a_cycle() -> None:
    """The hub imports the table (live.py, play.py), never the other way round: a table receives
    the few services it uses (services.TableServices)."""
    cycle = import_cycle(server_imports())
    assert cycle is None, f"an import cycle in the server: {' → '.join(cycle)}"


def test_the_cycle_check_finds_a_type_only_cycle() -> None:
    graph = {"tables": {"live"}, "live": {"play", "clients"}, "play": {"tables"}, "clients": set()}
    assert import_cycle(graph) == ("live", "play", "tables", "live")
    assert import_cycle({**graph, "play": set()}) is None
