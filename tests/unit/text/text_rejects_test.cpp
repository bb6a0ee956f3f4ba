// Issue 10, "programs that are wrong must be rejected, located, with the fix named": each
// of these was accepted before (and failed later in a pass, or silently miscompiled); each is
// now a user error at the user's text.
#include "text_test_util.hpp"
#include "tilewright/pass/pipeline.hpp"
#include "tilewright/passes/materialize_tensor_strides/pass.hpp"
#include "tilewright/passes/registry.hpp"

using namespace text_test;

namespace {

const char* kSig = "self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]";

std::string rejected(std::string_view body, std::string_view sig = kSig, std::string_view ret = "") {
  return error_of(program(body, sig, ret));
}

}  // namespace

TEST_CASE("a deduction error is always reported, whatever the annotation says") {
  // The annotation used to stand in for the failed deduction.
  std::string e = rejected("        a = pl.tile.load(x, [0, 0], [16, 16])\n"
                           "        b: pl.Tile[[8, 4], pl.INT8, pl.Mem.Vec] = pl.tile.create([8, 4], dtype=pl.INT8)\n"
                           "        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(a, b)\n"
                           "        return o\n");
  CHECK(contains(e, "9:"));
  CHECK(contains(e, "tile.add"));
  CHECK(contains(e, "do not broadcast"));
  e = rejected("        a = pl.tile.load(x, [0, 0], [16, 16])\n        b: pl.Ptr = pl.tile.exp(a)\n        return o\n");
  CHECK(contains(e, "8:12: the annotation of 'b' is pl.Ptr"));
  CHECK(contains(e, "another kind"));
}

TEST_CASE("annotation and deduced type: shape, rank, dtype and kind must agree (§6.4)") {
  const char* load = "        a = pl.tile.load(x, [0, 0], [16, 16])\n";
  // Same rank: every static dim.
  CHECK(contains(rejected(std::string(load) + "        b: pl.Tile[[16, 8], pl.FP32] = pl.tile.exp(a)\n        return o\n"),
                 "dim 1 is 8 but the value's is 16"));
  // Another rank: the element count.
  CHECK(contains(rejected(std::string(load) + "        b: pl.Tile[[128], pl.FP32] = pl.tile.exp(a)\n        return o\n"),
                 "it holds 128 elements but the value holds 256"));
  CHECK(contains(rejected(std::string(load) + "        b: pl.Tile[[16, 16], pl.FP16] = pl.tile.exp(a)\n        return o\n"),
                 "its dtype is pl.FP16 but the value's is pl.FP32"));
  CHECK(contains(rejected(std::string(load) + "        b: pl.Tensor[[16, 16], pl.FP32] = pl.tile.exp(a)\n        return o\n"),
                 "another kind"));
  CHECK(contains(rejected("        n: pl.Scalar[pl.INT32] = 1.5\n        return o\n"),
                 "its dtype is pl.INT32 but the value's is pl.FP32"));
  // A tensor annotation: rank and dims as written.
  CHECK(contains(rejected("        y: pl.Tensor[[16], pl.FP32] = x\n        return o\n"), "it has rank 1"));
}

TEST_CASE("tile.cast: a mode number outside the cast modes is refused, so every mode prints and reads back") {
  // Structured-fuzz finding: `mode=16` was accepted and printed as `mode='?'`.
  CHECK(contains(rejected("        a = pl.tile.load(x, [0, 0], [16, 16])\n"
                          "        h = pl.tile.cast(a, target_type=pl.FP16, mode=16)\n        return o\n"),
                 "kwarg 'mode' is 16, which is not a cast mode"));
  auto p = parse(program("        a = pl.tile.load(x, [0, 0], [16, 16])\n"
                         "        h = pl.tile.cast(a, target_type=pl.FP16, mode=6)\n        return x\n"));
  CHECK(contains(text::print(p), "mode='odd'"));
  check_reads_back(p);
}

TEST_CASE("kind errors the deducers see: a tile where a scalar belongs, and the reverse") {
  CHECK(contains(rejected("        a = pl.tile.load(x, [0, 0], [16, 16])\n        b = pl.tile.muls(a, a)\n        return o\n"),
                 "tile.muls: 'rhs' (argument 2) must be a scalar"));
  CHECK(contains(rejected("        s: pl.Scalar[pl.FP32] = 1.0\n        b = pl.tile.exp(s)\n        return o\n"),
                 "tile.exp: 'tile' (argument 1) must be a tile"));
  CHECK(contains(rejected("        a = pl.tile.load(x, [0, 0], [16, 1.5])\n        return o\n"),
                 "'shapes' (argument 3) must hold integer values"));
}

TEST_CASE("offsets, shapes and valid shapes: lengths, negative offsets, stores past the tensor") {
  CHECK(contains(rejected("        a = pl.tile.load(x, [0], [16, 16], [16, 16])\n        return o\n"),
                 "must be non-empty tuples of the same rank"));
  CHECK(contains(rejected("        a = pl.tile.load(x, [-1, 0], [16, 16])\n        return o\n"), "is negative in dim 0"));
  const char* load = "        a = pl.tile.load(x, [0, 0], [16, 16])\n";
  CHECK(contains(rejected(std::string(load) + "        r = pl.tile.store(a, [0, -16], o)\n        return r\n"),
                 "is negative in dim 1"));
  CHECK(contains(rejected(std::string(load) + "        r = pl.tile.store(a, [8, 0], o)\n        return r\n"),
                 "runs past the output tensor [16, 16] in dim 0 (24 > 16); the data would land outside the tensor"));
  CHECK(contains(rejected(std::string(load) + "        r = pl.tile.store(a, [0], o)\n        return r\n"),
                 "give one offset per tensor axis"));
  CHECK(contains(rejected(std::string(load) + "        r = pl.tile.store(a, [0, 0], o, [16])\n        return r\n"),
                 "must be a non-empty tuple of the rank of offsets"));
  CHECK(contains(rejected(std::string(load) + "        s = pl.tile.slice(a, [8, 8], [-8, 0])\n        return o\n"),
                 "negative"));
  // A load's window may pass the tensor's edge only with clamp=True (PyPTO's load semantics).
  CHECK(contains(rejected("        a = pl.tile.load(x, [8, 0], [16, 16])\n        return o\n"),
                 "reads past the source shape"));
  auto ok = parse(program("        a = pl.tile.load(x, [8, 0], [16, 16], clamp=True)\n        return o\n", kSig));
  CHECK(body(fn(ok)).size() == 2);
}

TEST_CASE("a return value must fit the declared return type") {
  std::string e = rejected("        a = pl.tile.load(x, [0, 0], [16, 16])\n        return a\n", kSig,
                           " -> pl.Tensor[[16, 16], pl.FP32]");
  CHECK(contains(e, "8:16: return value 1 of 'f' has type pl.Tile"));
  CHECK(contains(e, "declared to return pl.Tensor[[16, 16], pl.FP32]"));
  CHECK(contains(rejected("        return x, x\n", kSig, " -> pl.Tensor[[16, 16], pl.FP32]"),
                 "is declared to return 1 value but this return gives 2"));
  CHECK(contains(rejected("        return x\n", kSig, " -> pl.Tensor[[8, 16], pl.FP32]"), "dim 0 is 8"));
}

TEST_CASE("a bare pl.yield_ cannot close a loop that carries values") {
  std::string e = rejected("        for i, (acc,) in pl.range(4, init_values=(x,)):\n"
                           "            pl.yield_(acc)\n"
                           "        return o\n");
  CHECK(contains(e, "8:13:"));
  CHECK(contains(e, "acc_out = pl.yield_(...)"));
  e = rejected("        for (a, b) in pl.while_(init_values=(0, 1)):\n"
               "            pl.cond(a < 4)\n"
               "            pl.yield_(a + 1, b)\n"
               "        return o\n");
  CHECK(contains(e, "a_out, b_out = pl.yield_(...)"));
  // A bare yield that does not close the loop (inside a branch) is fine.
  auto p = parse(program("        for i, (acc,) in pl.range(4, init_values=(x,)):\n"
                         "            if i < 2:\n                pl.yield_(acc)\n"
                         "            r = pl.yield_(acc)\n"
                         "        return r\n"));
  CHECK(body(fn(p)).size() == 2);
}

TEST_CASE("an if that yields values needs an else branch that yields them too") {
  std::string e = rejected("        if n < 4:\n"
                           "            lo, hi = pl.yield_(1, 2)\n"
                           "        return o\n",
                           "self, n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]");
  CHECK(contains(e, "8:13:"));
  CHECK(contains(e, "has no else branch"));
  CHECK(contains(e, "add an else branch that yields them too"));
}

TEST_CASE("a loop result's annotation is checked as an assignment's is (§6.4), and keeps its carry's dtype") {
  // The carry starts from the literal 0 (INDEX). An INT32 result would read back as INDEX once
  // the loop yields two values (the target list then prints bare), so it is refused at the
  // target, naming the typed init that says it.
  std::string lit = rejected("        for i, (acc,) in pl.range(4, init_values=(0,)):\n"
                             "            acc2: pl.Scalar[pl.INT32] = pl.yield_(acc + 1)\n"
                             "        return o\n");
  CHECK(contains(lit, "8:13:"));
  CHECK(contains(lit, "a loop's result has its carry's type"));
  CHECK(contains(lit, "pl.const(0, pl.INT32)"));
  auto p = parse(program("        for i, (acc,) in pl.range(4, init_values=(pl.const(0, pl.INT32),)):\n"
                         "            acc2: pl.Scalar[pl.INT32] = pl.yield_(acc + 1)\n"
                         "        return x\n"));
  auto* loop = ir::as<ir::For>(body(fn(p)).front());
  REQUIRE(loop);
  REQUIRE(loop->return_vars.size() == 1);
  auto* t = ir::as<ir::ScalarType>(loop->return_vars[0]->type);
  REQUIRE(t);
  CHECK(t->dtype == ir::DataType::INT32);
  CHECK(contains(text::print(p), "acc2: pl.Scalar[pl.INT32] = pl.yield_("));
  check_reads_back(p);
  // A contradiction is an error at the target.
  std::string e = rejected("        for i, (acc,) in pl.range(4, init_values=(x,)):\n"
                           "            acc2: pl.Tensor[[8, 16], pl.FP32] = pl.yield_(acc)\n"
                           "        return o\n");
  CHECK(contains(e, "the annotation of 'acc2'"));
  CHECK(contains(e, "dim 0 is 8"));
}

TEST_CASE("every error user text can reach is located: tile dims, index overflow, axes, strides, NZ") {
  CHECK(contains(rejected("        t: pl.Tile[[0, 16], pl.FP32] = pl.tile.create([1, 16], dtype=pl.FP32)\n        return o\n"),
                 "7:21: a dimension of pl.Tile must be positive, got 0"));
  CHECK(contains(rejected("        return o\n", "self, x: pl.Tensor[[4611686018427387904, 4], pl.FP32]"),
                 "overflow"));
  CHECK(contains(rejected("        a = pl.tile.load(x, [9223372036854775807, 0], [16, 16])\n        return o\n"),
                 "overflows 64-bit index arithmetic"));
  CHECK(contains(rejected("        a = pl.tile.load(x, [0, 0], [16, 16])\n"
                          "        for i in pl.range(2):\n            b = pl.tile.transpose(a, i, 1)\n        return o\n"),
                 "must be a constant axis"));
  // Explicit strides are kept as written (MT-06; upstream reads any), so one that contradicts
  // its layout is reported once the tensor views must be canonical — as the user's error, at
  // the tensor, naming the stride.
  for (const char* view : {"pl.TensorView(stride=[1, 16], layout=pl.TensorLayout.ND)",
                           "pl.TensorView(stride=[8, 1], layout=pl.TensorLayout.ND)"}) {
    auto p = parse(program("        return o\n", std::string("self, x: pl.Tensor[[16, 16], pl.FP32, ") + view +
                                                 "], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]"));
    pass::Pipeline pipeline;
    pipeline.add(*passes::find_pass("materialize_tensor_strides"));
    pass::PassContext ctx;
    try {
      pipeline.run(p, ctx, pass::VerifyLevel::basic);
      FAIL("expected TensorViewCanonical to refuse " << view);
    } catch (const ir::Error& e) {
      CHECK(e.diagnostic().kind == ir::ErrorKind::user);
      CHECK(e.diagnostic().span.line == 6);
      CHECK(contains(e.diagnostic().message, "TensorView non-canonical"));
      CHECK(contains(e.diagnostic().message, "correct them or the layout"));
      CHECK((contains(e.diagnostic().message, "innermost stride") || contains(e.diagnostic().message, "stride[0]")));
    }
  }
  // An unblocked NZ tensor view breaks MaterializeTensorStrides' ordering invariant (seed 001,
  // MT-08): upstream's InternalError (issue 35), located at the tensor when it came from text.
  {
    auto p = parse(program("        return o\n", "self, x: pl.Tensor[[16, 16], pl.FP32, pl.TensorView(stride=[], "
                                               "layout=pl.TensorLayout.NZ)], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]"));
    pass::PassContext ctx;
    try {
      (void)passes::materialize_tensor_strides(p, ctx);
      FAIL("expected MaterializeTensorStrides to refuse an unblocked NZ tensor");
    } catch (const ir::Error& e) {
      CHECK(e.diagnostic().kind == ir::ErrorKind::internal);
      CHECK(e.diagnostic().span.line == 6);
      CHECK(contains(e.diagnostic().message, "NZ layout is tile-only"));
      CHECK(contains(e.diagnostic().message, "not blocked"));
    }
  }
  CHECK(contains(rejected("        a = pl.tile.load(x, [0, 0], [16, 16])\n"
                          "        b: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8.0, 16])] = a\n"
                          "        return o\n"),
                 "must be an integer expression"));
}
