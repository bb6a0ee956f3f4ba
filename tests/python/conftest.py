"""Shared fixtures for the Python module's tests (ctest runs them: `ctest -R python`)."""
import os
import pathlib

import pytest

# The repository, for the bundled kernels and the docs' examples; ctest sets it, and a run by
# hand from the checkout finds it from this file's place.
ROOT = pathlib.Path(os.environ.get("TILEWRIGHT_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


@pytest.fixture
def root():
    return ROOT


@pytest.fixture
def seed000(root):
    """Seed 000's Before, as the seed writes it (re-assigning `out_0`, as DSL users do)."""
    import tilewright

    return tilewright.parse_file(str(root / "tests/lit/seeds/000_flatten_add_3d_as_written.pto"))
