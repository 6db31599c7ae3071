"""Polars is loaded on first use by the command, so its decoders fork before it (aggregator.deferred_import)."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from types import ModuleType

import pytest

from aggregator.deferred_import import Deferred, defer

DECODER_NEEDS = """
import sys
from aggregator.deferred_import import defer
defer("polars")
import aggregator.run.pipeline
from aggregator.run.sample_values import SampleEvaluator, _plan, columns_for
evaluator = SampleEvaluator(None)
evaluator.row_decoder()
_plan(None)
columns_for(None)
print(type(sys.modules["polars"]).__name__)
import polars as pl
pl.DataFrame({"a": [1]})
print(type(sys.modules["polars"]).__name__)
"""


def test_what_a_decoding_process_needs_does_not_load_polars() -> None:
    """Importing the pipeline and building every family's decoder and row plan leaves Polars unloaded;
    the first real use loads it. Fails if a module touches ``pl.`` when it is imported."""
    done = subprocess.run([sys.executable, "-c", DECODER_NEEDS], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["Deferred", "module"]


@pytest.fixture
def fresh_module_name() -> Iterator[str]:
    name = "colorsys"
    sys.modules.pop(name, None)
    yield name
    sys.modules.pop(name, None)


def test_the_stand_in_imports_the_module_once_on_first_lookup(fresh_module_name: str) -> None:
    defer(fresh_module_name)
    stand_in = sys.modules[fresh_module_name]
    assert isinstance(stand_in, Deferred)
    import colorsys

    assert colorsys is stand_in
    found: list[object] = []
    threads = [threading.Thread(target=lambda: found.append(colorsys.rgb_to_hsv)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    real = sys.modules[fresh_module_name]
    assert not isinstance(real, Deferred) and isinstance(real, ModuleType)
    assert all(f is real.rgb_to_hsv for f in found)
    assert colorsys.rgb_to_hsv(1.0, 0.0, 0.0) == (0.0, 1.0, 1.0)


def test_an_imported_module_is_left_as_it_is() -> None:
    before = sys.modules["json"]
    defer("json")
    assert sys.modules["json"] is before
