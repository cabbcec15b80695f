"""The layers of the project, checked on its source: engine → notation → bots → sim → front ends
and research adapters, each importing only the layers before it, and nothing outside the engine
importing a private engine name (one starting with ``_``, or missing from its module's
``__all__``). Within every package the modules import each other without a circle, and no
module anywhere reaches for another module's private names (``from x import _y``, ``x._y``)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "rummy500"

# What each part of the package may import of rummy500 (besides itself). The foundation (i18n,
# worker processes, the extras, which build of the engine runs) is open to every layer.
FOUNDATION = {"i18n", "workers", "extras", "builds"}
ALLOWED: dict[str, set[str]] = {
    **{part: set() for part in FOUNDATION},
    "engine": set(),
    "notation": {"engine"},
    "bots": {"engine", "notation"},
    "sim": {"engine", "notation", "bots"},
    "review": {"engine", "notation", "bots"},
    "words": {"engine"},
    "guide": {"engine"},
    # rummy500 replay --step: a record drawn with rich, the moves in words
    "stepper": {"engine", "notation", "words"},
    "benchmarks": {"engine"},
    "tui": {"engine", "notation", "bots", "sim", "review", "words", "guide"},
    "server": {"engine", "notation", "bots", "sim", "review", "words", "guide"},
    "envs": {"engine", "notation", "bots", "sim"},
    # rummy500 cluster and bench server: run the server from outside (nothing imports them)
    "bench": {"server"},
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


# --- every package: no circle of imports, no private name of another module -------------------

#: Imports allowed to close a circle: none since the server's table receives ``TableServices``
#: (issue 33 item 4). An entry names the import to remove; the test below says when it is gone.
CIRCLES_ALLOWED: set[tuple[str, str]] = set()


def module_name(path: Path) -> str:
    """``rummy500.server.live`` for ``src/rummy500/server/live.py``; a package's ``__init__.py``
    is the package itself."""
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in SOURCES}
PACKAGES = sorted(m for m, p in MODULES.items() if p.name == "__init__.py")


def package_of(module: str) -> str:
    return module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]


def imported_modules(path: Path) -> set[str]:
    """The modules of rummy500 a file imports, anywhere in it (at the top, in a function, for
    type hints only): ``from rummy500.server import lobby`` imports ``rummy500.server.lobby``,
    ``from rummy500.engine import Game`` the package ``rummy500.engine``."""
    found = set()
    for _line, module, names in imports(path):
        named = {f"{module}.{n}" for n in names} & MODULES.keys()
        found |= named or {module}
        if len(named) < len(names):  # some names are the module's own
            found.add(module)
    return found & MODULES.keys()


def package_graph(package: str) -> dict[str, set[str]]:
    """Each module of ``package`` (its ``__init__`` included) and the modules of the same
    package it imports, less :data:`CIRCLES_ALLOWED`."""
    members = {m for m in MODULES if package_of(m) == package}
    return {
        m: {
            t
            for t in imported_modules(MODULES[m]) & members
            if t != m and (m, t) not in CIRCLES_ALLOWED
        }
        for m in members
    }


def find_circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of the graph, as the modules along it (the first again at the end), or None."""
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> list[str] | None:
        if name in path:
            return [*path[path.index(name) :], name]
        if name in done:
            return None
        for target in sorted(graph[name]):
            if circle := visit(target, (*path, name)):
                return circle
        done.add(name)
        return None

    for name in sorted(graph):
        if circle := visit(name, ()):
            return circle
    return None


@pytest.mark.parametrize("package", PACKAGES)
def test_the_modules_of_a_package_import_each_other_without_a_circle(package: str) -> None:
    circle = find_circle(package_graph(package))
    assert circle is None, f"an import circle in {package}: {' → '.join(circle)}"


def test_every_allowed_circle_is_still_there() -> None:
    for module, target in sorted(CIRCLES_ALLOWED):
        assert target in imported_modules(MODULES[module]), (
            f"{module} no longer imports {target}: remove the pair from CIRCLES_ALLOWED"
        )


def test_the_check_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
    assert find_circle(graph) == ["a", "b", "c", "a"]
    assert find_circle({"a": {"b"}, "b": set()}) is None


def test_the_package_imports_itself_by_absolute_names() -> None:
    """The checks here read ``from rummy500.x import y`` and ``import rummy500.x``: a relative
    import (``from .x import y``) would pass them unseen."""
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        relative = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level]
        assert not relative, f"{path.relative_to(SRC)}: relative imports at lines {relative}"


def is_private(name: str) -> bool:
    """``_y``, not ``__y__``, and not ``_``: gettext's name for "translate this"
    (:func:`rummy500.i18n._`), public by a convention older than this project."""
    return name.startswith("_") and name != "_" and not name.endswith("__")


def private_uses(path: Path) -> list[str]:
    """``line: what`` for each private name of another module the file imports
    (``from rummy500.x import _y``) or reaches through a name it imported from rummy500
    (``x._y``, ``rummy500.x._y``, ``Game._y``)."""
    tree = ast.parse(path.read_text(), str(path))
    imported: set[str] = set()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rummy500"):
            for alias in node.names:
                if is_private(alias.name):
                    found.append(f"{node.lineno}: from {node.module} import {alias.name}")
                imported.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("rummy500"):
                    imported.add(alias.asname or alias.name.partition(".")[0])
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and is_private(node.attr):
            root = node.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in imported:
                found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


@pytest.mark.parametrize("path", sorted(SRC.rglob("*.py")), ids=lambda p: str(p.relative_to(SRC)))
def test_no_module_uses_a_private_name_of_another(path: Path) -> None:
    """A name shared on purpose is public in its module (an engine-internal one stays out of the
    module's ``__all__``); one that is not belongs in the module that uses it."""
    uses = private_uses(path)
    assert not uses, f"{path.relative_to(SRC)}, private names of other modules: {'; '.join(uses)}"


def test_the_check_finds_private_names(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import rummy500.engine.movegen\n"
        "import rummy500.engine.deal as deal\n"
        "from rummy500.engine import movegen, Game\n"
        "from rummy500.engine.movegen import _BIT\n"
        "from rummy500.i18n import _\n"
        "x = movegen._held, deal._Hand, rummy500.engine.movegen._PASS, Game._record, _('a')\n"
        "y = Game.__name__, len.__doc__, self._mine\n"
    )
    assert sorted(private_uses(bad)) == [
        "4: from rummy500.engine.movegen import _BIT",
        "6: Game._record",
        "6: deal._Hand",
        "6: movegen._held",
        "6: rummy500.engine.movegen._PASS",
    ]


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
