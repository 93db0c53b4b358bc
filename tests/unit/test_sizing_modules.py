"""The code reads by part: no hand-written module of the product (advisor/, vendors/, config/;
migrations are generated) is longer than a newcomer can read, and advisor/domain/sizing has no
import circle (not even one only type checkers follow) and keeps the bench-only sweep outside
the product's imports."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SIZING = ROOT / "advisor" / "domain" / "sizing"
PREFIX = "advisor.domain.sizing"
SWEEP = "advisor.domain.sizing.compute.sweep"
MOST_LINES = 1200
PRODUCT = ("advisor", "vendors", "config")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def sizing_modules() -> dict[str, Path]:
    return {module_name(p): p for p in SIZING.rglob("*.py")}


def imported(path: Path, name: str) -> set[str]:
    """Every module ``path`` imports anywhere in it (under ``if TYPE_CHECKING:`` too), with
    ``from package import submodule`` read as the submodule."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def edges() -> dict[str, set[str]]:
    """Within the sizing package: who imports whom. Importing ``a.b.c`` runs ``a.b``'s
    ``__init__`` first, so it counts as importing the packages above it too, except those the
    importer is itself inside (Python is already running them)."""
    modules = sizing_modules()
    graph = {}
    for name, path in modules.items():
        targets = set()
        for target in imported(path, name):
            parts = target.split(".")
            for end in range(len(parts), 0, -1):
                candidate = ".".join(parts[:end])
                if candidate in modules and candidate != name:
                    inside = name.startswith(candidate + ".")
                    if not inside:
                        targets.add(candidate)
        graph[name] = targets
    return graph


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def hand_written_modules() -> list[Path]:
    """Every Python module of the product but the migrations (``makemigrations`` writes them)."""
    return [
        path
        for folder in PRODUCT
        for path in sorted((ROOT / folder).rglob("*.py"))
        if "migrations" not in path.relative_to(ROOT).parts
    ]


def too_long(paths: list[Path], root: Path = ROOT) -> dict[str, int]:
    found = {}
    for path in paths:
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MOST_LINES:
            found[str(path.relative_to(root))] = lines
    return found


def test_no_hand_written_module_is_longer_than_a_newcomer_can_read():
    modules = hand_written_modules()
    assert ROOT / "advisor" / "domain" / "scenario" / "model.py" in modules
    assert ROOT / "config" / "urls.py" in modules
    assert not any("migrations" in path.parts for path in modules)
    long = too_long(modules)
    assert not long, (
        f"split these by what a newcomer looks for (at most {MOST_LINES} lines): {long}"
    )


def test_the_length_check_sees_a_long_module(tmp_path):
    short, long = tmp_path / "short.py", tmp_path / "long.py"
    short.write_text("x = 1\n" * MOST_LINES, encoding="utf-8")
    long.write_text("x = 1\n" * (MOST_LINES + 1), encoding="utf-8")
    assert too_long([short, long], root=tmp_path) == {"long.py": MOST_LINES + 1}


def test_the_sizing_modules_import_each_other_one_way():
    assert cycle(edges()) is None, cycle(edges())


def test_the_cycle_finder_sees_a_type_only_circle(tmp_path):
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycle(graph) == ["a", "b", "c", "a"]
    path = tmp_path / "probe.py"
    path.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from x.y import Z\n",
        encoding="utf-8",
    )
    assert {"x.y", "x.y.Z"} <= imported(path, "probe")


def test_only_the_bench_and_tests_use_the_sweep():
    users = []
    for path in [*(ROOT / "advisor").rglob("*.py"), *(ROOT / "vendors").rglob("*.py")]:
        name = module_name(path)
        if name != SWEEP and SWEEP in imported(path, name):
            users.append(name)
    assert not users, users
    assert SWEEP in imported(ROOT / "bench" / "sizing_speed.py", "sizing_speed")
