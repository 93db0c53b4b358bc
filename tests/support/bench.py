"""Import a script under bench/ as a module, for tests that check what it computes."""

import importlib.util
import sys
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parents[2] / "bench"


def load_bench(name: str):
    """bench/NAME.py as the module NAME (registered first: dataclasses look it up)."""
    spec = importlib.util.spec_from_file_location(name, BENCH_DIR / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
