"""Every module-level cache under advisor/ and vendors/ is named in docs/architecture.md's table
of caches, and every name there still exists (decision 0087).

A cache here is what lives beside a module rather than in an object passed down: a function
decorated with ``functools.cache`` or ``lru_cache``; a module-level name bound to an empty dict,
list or set (a memo filled at run time), to a ``ContextVar`` or to one of
``advisor.domain.cache``'s classes; a name a function assigns with ``global``; and a class with a
``cached_property`` (named by its class)."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "docs" / "architecture.md"
CACHE_DECORATORS = {"cache", "lru_cache"}
CACHE_CLASSES = {"Latest", "PerObject", "PerObjects", "ContextVar"}
EMPTY_CONTAINERS = {"dict", "list", "set", "OrderedDict", "defaultdict", "WeakKeyDictionary"}


def called_name(node) -> str | None:
    """``lru_cache`` for ``@lru_cache``, ``@functools.lru_cache(maxsize=8)`` or ``lru_cache()``."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def is_empty_container(value) -> bool:
    if isinstance(value, ast.Dict):
        return not value.keys
    if isinstance(value, ast.List | ast.Set):
        return not value.elts
    return (
        isinstance(value, ast.Call)
        and not value.args
        and not value.keywords
        and called_name(value.func) in EMPTY_CONTAINERS
    )


def module_level_state(module: str, tree: ast.Module) -> set[str]:
    found = set()
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        cache = is_empty_container(value) or (
            isinstance(value, ast.Call) and called_name(value.func) in CACHE_CLASSES
        )
        if cache:
            found |= {f"{module}.{t.id}" for t in targets if isinstance(t, ast.Name)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            found |= {f"{module}.{name}" for name in node.names}
    return found


def decorated(module: str, body: list, prefix: str = "") -> set[str]:
    found = set()
    for node in body:
        if isinstance(node, ast.ClassDef):
            found |= decorated(module, node.body, f"{prefix}{node.name}.")
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and any(
                    called_name(d) == "cached_property" for d in item.decorator_list
                ):
                    found.add(f"{module}.{prefix}{node.name}")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(
            called_name(d) in CACHE_DECORATORS for d in node.decorator_list
        ):
            found.add(f"{module}.{prefix}{node.name}")
    return found


def caches_in_code() -> set[str]:
    found = set()
    for package in ("advisor", "vendors"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            tree = ast.parse(path.read_text(encoding="utf-8"))
            found |= module_level_state(module, tree) | decorated(module, tree.body)
    return found


def caches_in_table() -> set[str]:
    """The dotted names in backticks on the lines of the caches' table and the line after it
    (the registries that are not caches)."""
    text = TABLE.read_text(encoding="utf-8")
    section = text[text.index("## Caches") :]
    return set(re.findall(r"`((?:advisor|vendors)\.[\w.]+)`", section))


def test_every_module_level_cache_is_in_the_table():
    unlisted = caches_in_code() - caches_in_table()
    assert not unlisted, f"add to docs/architecture.md's table of caches: {sorted(unlisted)}"


def defined(name: str) -> bool:
    """Whether the dotted ``name`` is a module of ours or a name a module of ours defines."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        path = ROOT.joinpath(*parts[:end]).with_suffix(".py")
        if path.exists():
            if end == len(parts):
                return True
            attribute = re.escape(parts[end])
            pattern = rf"^(\s*(def|class)\s+{attribute}\b|{attribute}\s*[:=])"
            return re.search(pattern, path.read_text(encoding="utf-8"), re.MULTILINE) is not None
    return False


def test_the_table_names_only_what_exists():
    gone = {name for name in caches_in_table() if not defined(name)}
    assert not gone, f"no longer in the code: {sorted(gone)}"


def test_the_scan_finds_each_kind_of_cache():
    """The scan is not blind: one of each kind it looks for, in a module written here."""
    source = """
import functools
from contextvars import ContextVar
_MEMO = {}
_VAR = ContextVar("v")
_LATEST = Latest(8)
LABELS = {"a": 1}
@functools.lru_cache(maxsize=8)
def cached(x): return x
def reset():
    global _STAMP
    _STAMP = None
class Record:
    @functools.cached_property
    def derived(self): return 1
    @staticmethod
    @functools.cache
    def shape(): return 2
"""
    tree = ast.parse(source)
    found = module_level_state("m", tree) | decorated("m", tree.body)
    assert found == {
        "m._MEMO",
        "m._VAR",
        "m._LATEST",
        "m.cached",
        "m._STAMP",
        "m.Record",
        "m.Record.shape",
    }
