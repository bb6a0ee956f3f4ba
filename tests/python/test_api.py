"""The Python module's API (issue 37): parse and print, the passes as the seeds' API tables
call them, the pass context and pipeline, error mapping, the interpreter with NumPy."""
import numpy as np
import pytest

import tilewright
from tilewright import passes

# Seed 000's Before with the tile re-assigned: not in SSA form until ConvertToSSA runs.
NOT_SSA = """\
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[2, 3, 4], pl.FP32], out_0: pl.Out[pl.Tensor[[2, 3, 4], pl.FP32]]) -> pl.Tensor[[2, 3, 4], pl.FP32]:
        t: pl.Tile[[2, 3, 4], pl.FP32] = pl.load(x, [0, 0, 0], [2, 3, 4])
        t: pl.Tile[[2, 3, 4], pl.FP32] = pl.tile.add(t, t)
        out_0 = pl.store(t, [0, 0, 0], out_0)
        return out_0
"""

TWO_FUNCTIONS = """\
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def a(self, x: pl.Tensor[[4, 8], pl.FP32]) -> pl.Tensor[[4, 8], pl.FP32]:
        return x

    @pl.function(type=pl.FunctionType.InCore)
    def b(self, x: pl.Tensor[[4, 8], pl.INT32], out_0: pl.Out[pl.Tensor[[4, 8], pl.INT32]]) -> pl.Tensor[[4, 8], pl.INT32]:
        t: pl.Tile[[4, 8], pl.INT32] = pl.load(x, [0, 0], [4, 8])
        out_1: pl.Tensor[[4, 8], pl.INT32] = pl.store(t, [0, 0], out_0)
        return out_1
"""


# ---- seed 000 through the default pipeline (issue 37's "done when") -----------------------

def test_seed_000_default_pipeline_prints_the_seeds_after(seed000, root):  # FL-09 FL-13 FL-22
    lowered = passes.default_pipeline().run(seed000)
    text = str(lowered)
    assert "x_tile: pl.Tile[[6, 4], pl.FP32, pl.Mem.Vec]" in text
    # The 4th store operand the seed says the pass adds: the original N-d shape.
    assert "pl.tile.store(y_tile, [0, 0, 0], out_0, [2, 3, 4])" in text
    after = tilewright.parse_file(str(root / "tests/lit/seeds/Inputs/000_flatten_add_3d_as_written.after.pto"))
    tilewright.assert_structural_equal(lowered, passes.convert_to_ssa()(after))
    assert lowered.as_python() == text
    assert tilewright.equivalent(seed000, lowered)


def test_factories_as_the_seeds_call_them(seed000):
    flatten_pass = passes.flatten_tile_nd_to_2d()
    program_2d = flatten_pass(seed000)
    assert "pl.Tile[[6, 4]" in str(program_2d)
    assert str(seed000) != str(program_2d), "passes return a new program; the input is unchanged"
    assert "pl.Tile[[2, 3, 4]" in str(seed000)


@pytest.mark.parametrize("factory,name", [
    ("convert_to_ssa", "ConvertToSSA"),
    ("flatten_tile_nd_to_2d", "FlattenTileNdTo2D"),
    ("materialize_tensor_strides", "MaterializeTensorStrides"),
    ("fold_no_op_reshape", "FoldNoOpReshape"),
    ("canonicalize_tile_slice", "CanonicalizeTileSlice"),
])
def test_every_pass_by_factory_and_name(factory, name):
    p = getattr(passes, factory)()
    assert p.get_name() == name
    assert p.get_factory_name() == factory
    assert repr(p) == f"<tilewright.passes.{factory}()>"
    for spelling in (factory, factory.replace("_", "-"), name):
        assert passes.get_pass(spelling).get_name() == name


def test_pass_properties():  # seed 003's property table
    p = passes.flatten_tile_nd_to_2d()
    assert p.get_required_properties() == ["SSAForm", "IncoreTileOps", "NormalizedStmtStructure"]
    assert p.get_produced_properties() == ["SSAForm", "TileOps2D", "NormalizedStmtStructure"]
    assert p.get_invalidated_properties() == []


def test_unknown_pass_names_the_passes():
    with pytest.raises(ValueError, match=r"unknown pass 'flaten'.*flatten_tile_nd_to_2d"):
        passes.get_pass("flaten")


def test_pipeline_names_and_call(seed000):
    pipeline = passes.default_pipeline()
    assert pipeline.get_pass_names() == ["ConvertToSSA", "FlattenTileNdTo2D", "MaterializeTensorStrides"]
    built = passes.PassPipeline()
    for p in (passes.convert_to_ssa(), passes.flatten_tile_nd_to_2d()):
        built.add_pass(p)
    assert built.get_pass_names() == ["ConvertToSSA", "FlattenTileNdTo2D"]
    tilewright.assert_structural_equal(built(seed000), pipeline.run(seed000))


# ---- programs -----------------------------------------------------------------------------

def test_program_round_trips_and_describes_itself(seed000):
    assert seed000.name == "Before"
    assert seed000.functions == ["main_incore_0"]
    assert repr(seed000) == "<tilewright.Program 'Before': main_incore_0>"
    again = tilewright.parse(str(seed000))
    assert str(again) == str(seed000)
    assert tilewright.structural_equal(again, seed000)


def test_properties_and_verify():
    program = tilewright.parse(NOT_SSA, "not_ssa.pto")
    assert "SSAForm" not in program.properties()
    findings = program.verify("SSAForm")
    assert findings and findings[0].startswith("not_ssa.pto:6:")
    assert passes.convert_to_ssa()(program).verify("SSAForm") == []
    with pytest.raises(ValueError, match="unknown property 'SSA'.*SSAForm"):
        program.verify("SSA")


def test_assert_structural_equal_names_the_difference(seed000):
    with pytest.raises(AssertionError, match="programs differ"):
        tilewright.assert_structural_equal(seed000, passes.flatten_tile_nd_to_2d()(seed000))


# ---- errors -------------------------------------------------------------------------------

def test_malformed_text_is_a_located_value_error():
    with pytest.raises(ValueError) as raised:
        tilewright.parse("@pl.program\nclass P:\n    x = = 1\n", "bad.pto")
    lines = str(raised.value).splitlines()
    assert lines[0].startswith("bad.pto:3:")
    assert ": error: " in lines[0]
    assert lines[1].strip() == "x = = 1"
    assert lines[2].strip() == "^"


def test_missing_file_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="nowhere.pto"):
        tilewright.parse_file(str(tmp_path / "nowhere.pto"))


def test_pipeline_order_is_checked():
    program = tilewright.parse(NOT_SSA, "not_ssa.pto")
    with pytest.raises(ValueError, match="FlattenTileNdTo2D requires SSAForm") as raised:
        passes.flatten_tile_nd_to_2d()(program)
    assert "not_ssa.pto:6:" in str(raised.value), "the verifier's findings point into the text"
    assert "convert_to_ssa" in str(raised.value), "the report names the pass that establishes SSAForm"


def test_a_refused_program_is_a_value_error_with_the_key_phrase(root):  # FL-24
    program = tilewright.parse_file(str(root / "tests/lit/seeds/000_flatten_dynamic_physical_shape_rejected.pto"))
    with pytest.raises(ValueError, match="cannot be flattened to 2D"):
        passes.default_pipeline().run(program)


def test_internal_error_is_not_a_value_error(root):  # MT-07: a pass-ordering invariant
    assert issubclass(tilewright.InternalError, RuntimeError)
    assert not issubclass(tilewright.InternalError, ValueError)
    program = tilewright.parse_file(str(root / "tests/lit/seeds/001_materialize_unblocked_nz_rejected.pto"))
    with passes.PassContext(passes.VerificationLevel.NONE):
        with pytest.raises(tilewright.InternalError, match="internal error: MaterializeTensorStrides: NZ layout"):
            passes.materialize_tensor_strides()(program)


# ---- the pass context -----------------------------------------------------------------------

def test_context_collects_stats_and_timings(seed000):
    with passes.PassContext() as ctx:
        assert passes.current_context() is ctx
        passes.default_pipeline().run(seed000)
    assert passes.current_context() is not ctx
    assert ctx.stats["ConvertToSSA.functions changed"] == 1
    assert ctx.stats["FlattenTileNdTo2D.functions changed"] == 1
    assert [t["pass"] for t in ctx.timings] == ["ConvertToSSA", "FlattenTileNdTo2D", "MaterializeTensorStrides"]
    assert all(t["ms"] >= 0 and t["verify_ms"] >= 0 for t in ctx.timings)


def test_contexts_nest(seed000):
    with passes.PassContext(backend="ascend910b") as outer:
        with passes.PassContext(passes.VerificationLevel.ROUNDTRIP, backend="ascend950") as inner:
            assert passes.current_context().backend == "ascend950"
            passes.convert_to_ssa()(seed000)
        assert passes.current_context().backend == "ascend910b"
        assert inner.verification_level == passes.VerificationLevel.ROUNDTRIP
    assert outer.timings == [] and len(inner.timings) == 1


def test_verification_none_skips_the_order_check():
    program = tilewright.parse(NOT_SSA)
    with passes.PassContext(passes.VerificationLevel.NONE):
        passes.convert_to_ssa()(program)  # runs: nothing to check
    with pytest.raises(ValueError, match="requires SSAForm"):
        passes.flatten_tile_nd_to_2d()(program)


def test_semantic_verification_runs_the_interpreter(seed000):
    with passes.PassContext(passes.VerificationLevel.SEMANTIC, seed=3, trials=4):
        lowered = passes.default_pipeline().run(seed000)
    assert "pl.Tile[[6, 4]" in str(lowered)


def test_context_arguments_are_checked():
    with pytest.raises(ValueError, match="unknown backend 'ascend910'.*ascend910b"):
        passes.PassContext(backend="ascend910")
    with pytest.raises(ValueError, match="trials must be at least 1"):
        passes.PassContext(trials=0)


# ---- the interpreter ------------------------------------------------------------------------

def test_run_with_numpy_in_and_out(seed000):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for program in (seed000, passes.default_pipeline().run(seed000)):
        out = program.run(inputs={"x": x})
        assert list(out) == ["out_0"]
        assert out["out_0"].dtype == np.float32
        assert out["out_0"].shape == (2, 3, 4)
        np.testing.assert_array_equal(out["out_0"], x + x)


def test_run_converts_inputs_and_draws_the_rest(seed000):
    x = np.ones((2, 3, 4), dtype=np.float64)  # any numeric dtype is read
    np.testing.assert_array_equal(seed000.run(inputs={"x": x})["out_0"], 2 * x)
    first, again = seed000.run(seed=7)["out_0"], seed000.run(seed=7)["out_0"]
    np.testing.assert_array_equal(first, again)  # random inputs come from the seed


def test_run_entry_and_integer_outputs():
    program = tilewright.parse(TWO_FUNCTIONS)
    with pytest.raises(ValueError, match=r"several functions \(a, b\).*entry="):
        program.run()
    x = np.arange(32, dtype=np.int32).reshape(4, 8)
    out = program.run(inputs={"x": x}, entry="b")
    assert list(out) == ["out_0"], "the returned value is the Out parameter's buffer"
    assert out["out_0"].dtype == np.int32
    np.testing.assert_array_equal(out["out_0"], x)
    with pytest.raises(ValueError, match="no function 'c'"):
        program.run(entry="c")


def test_run_refuses_bad_inputs(seed000):
    with pytest.raises(ValueError, match=r"input 'x': shape \[4, 6\] does not match parameter 'x' of shape \[2, 3, 4\]"):
        seed000.run(inputs={"x": np.zeros((4, 6))})
    with pytest.raises(ValueError, match=r"input 'y' names no parameter of 'main_incore_0' \(its parameters: x, out_0\)"):
        seed000.run(inputs={"y": np.zeros((2, 3, 4))})
    with pytest.raises(ValueError, match="input 'x' is not a number or a numeric array"):
        seed000.run(inputs={"x": "text"})


# ---- equivalence ----------------------------------------------------------------------------

def test_equivalent_finds_a_changed_meaning(seed000):
    same = tilewright.equivalent(seed000, passes.default_pipeline().run(seed000), trials=4)
    assert same and same.ok and same.status == "equivalent" and same.trials_run == 4
    assert same.functions == ["main_incore_0"]
    changed = tilewright.parse(str(seed000).replace("pl.tile.add(x_tile, x_tile)", "pl.tile.mul(x_tile, x_tile)"))
    report = tilewright.equivalent(seed000, changed)
    assert not report
    assert report.status == "different"
    assert "out_0" in report.message and "reference" in report.message
    with pytest.raises(ValueError, match="trials must be at least 1"):
        tilewright.equivalent(seed000, changed, trials=0)


def test_version():
    assert tilewright.__version__.count(".") == 2
