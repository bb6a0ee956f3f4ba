// The reference interpreter on hand-written programs: element arithmetic, windows and
// views, valid regions, control flow, calls, and the equivalence check itself.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "tilewright/interp/equivalence.hpp"
#include "tilewright/interp/npy.hpp"
#include "tilewright/text/parser.hpp"

using namespace tilewright;
using interp::Buffer;
using interp::TensorRef;

namespace {

std::string program(const std::string& functions, const std::string& dyn = "") {
  return "# pypto.program: P\nimport pypto.language as pl\n" + dyn + "\n@pl.program\nclass P:\n" + functions;
}

const std::string kIncore =
    "    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)\n";

ir::Program parse(const std::string& text) { return text::parse_program(text, "test.pto"); }

std::shared_ptr<Buffer> buffer(std::string name, std::size_t n, bool defined = true) {
  auto b = std::make_shared<Buffer>();
  b->name = std::move(name);
  b->data.resize(n);
  b->defined.assign(n, defined ? 1 : 0);
  for (std::size_t i = 0; i < n; ++i) b->data[i] = defined ? static_cast<double>(i) : 0.0;
  return b;
}

interp::EquivalenceReport equivalent(const std::string& a, const std::string& b, int trials = 4) {
  interp::EquivalenceOptions o;
  o.trials = trials;
  o.seed = 7;
  return interp::check_equivalent(parse(a), parse(b), o);
}

}  // namespace

TEST_CASE("interp numeric: FP16/BF16/FP8 rounding, saturation and cast modes") {
  using interp::DataType;
  using interp::CastMode;
  CHECK(interp::store_rounded(1.0 + 1.0 / 2048, DataType::FP16) == 1.0);              // tie → even
  CHECK(interp::store_rounded(1.0 + 3.0 / 2048, DataType::FP16) == 1.0 + 2.0 / 1024);  // tie → even (up)
  CHECK(interp::store_rounded(1e6, DataType::FP16) == 65504.0);                      // saturates
  CHECK(interp::store_rounded(1.0 + 1.0 / 256, DataType::BF16) == 1.0);
  CHECK(interp::store_rounded(1000.0, DataType::FP8E4M3FN) == 448.0);
  CHECK(interp::store_rounded(1e9, DataType::FP8E5M2) == 57344.0);
  CHECK(interp::store_rounded(300.0, DataType::INT8) == 44.0);  // wraps
  CHECK(interp::store_rounded(0.1, DataType::FP32) == static_cast<double>(0.1f));
  // The seven modes on 2.5 and -2.5 into INT32.
  auto c = [](double v, CastMode m) { return interp::cast_value(v, DataType::FP32, DataType::INT32, m); };
  CHECK(c(2.5, CastMode::rint) == 2);
  CHECK(c(2.5, CastMode::round) == 3);
  CHECK(c(2.5, CastMode::floor) == 2);
  CHECK(c(2.5, CastMode::ceil) == 3);
  CHECK(c(2.5, CastMode::trunc) == 2);
  CHECK(c(2.5, CastMode::odd) == 3);
  CHECK(c(-2.5, CastMode::round) == -3);
  CHECK(c(-2.5, CastMode::floor) == -3);
  CHECK(c(-2.5, CastMode::trunc) == -2);
  CHECK(c(3e9, CastMode::rint) == 2147483647.0);  // saturates
  // Round to odd in FP16: 1 + 2^-11 lies between 1 and 1 + 2^-10; the odd neighbour is the latter.
  CHECK(interp::cast_value(1.0 + 1.0 / 2048, DataType::FP32, DataType::FP16, CastMode::odd) == 1.0 + 1.0 / 1024);
  // Bit patterns.
  CHECK(interp::encode_bits(1.0, DataType::FP16) == 0x3C00);
  CHECK(interp::encode_bits(-2.0, DataType::BF16) == 0xC000);
  CHECK(interp::decode_bits(0x7BFF, DataType::FP16) == 65504.0);
  CHECK(interp::decode_bits(0x0001, DataType::FP16) == std::ldexp(1.0, -24));
  CHECK(interp::decode_bits(0xFF, DataType::INT8) == -1.0);
  CHECK(interp::encode_bits(interp::decode_bits(0x3F800000, DataType::FP32), DataType::FP32) == 0x3F800000);
}

TEST_CASE("interp: a 3-D load, add and store run element by element (FL-13, FL-22)") {
  auto p = parse(program(kIncore + R"(    def kernel(x: pl.Tensor[[2, 3, 4], pl.FP32], out_0: pl.Out[pl.Tensor[[2, 3, 4], pl.FP32]]) -> pl.Tensor[[2, 3, 4], pl.FP32]:
        t: pl.Tile[[2, 3, 4], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 3, 4], [2, 3, 4], target_memory=pl.Mem.Vec)
        y: pl.Tile[[2, 3, 4], pl.FP32, pl.Mem.Vec] = pl.tile.add(t, t)
        out_1: pl.Tensor[[2, 3, 4], pl.FP32] = pl.tile.store(y, [0, 0, 0], out_0)
        return out_1
)"));
  auto x = buffer("x", 24), out = buffer("out", 24, false);
  interp::Interpreter run(p);
  auto r = run.call("kernel", {TensorRef{x}, TensorRef{out}});
  REQUIRE(r.size() == 1);
  CHECK(r[0].tensor()->buffer == out);
  for (std::size_t i = 0; i < 24; ++i) {
    CHECK(out->defined[i]);
    CHECK(out->data[i] == 2.0 * static_cast<double>(i));
  }
}

TEST_CASE("interp: a tensor is read through its declared view, so a wrong stride changes the result (MT-03)") {
  // DN [4, 8]: element (r, c) sits at r + 4c.
  auto dn = program(kIncore + R"(    def kernel(x: pl.Tensor[[4, 8], pl.FP32, pl.TensorView(stride=[], layout=pl.TensorLayout.DN)], out_0: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        t: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [4, 8], [4, 8], target_memory=pl.Mem.Vec)
        out_1: pl.Tensor[[4, 8], pl.FP32] = pl.tile.store(t, [0, 0], out_0)
        return out_1
)");
  auto p = parse(dn);
  auto x = buffer("x", 32), out = buffer("out", 32, false);
  interp::Interpreter(p).call("kernel", {TensorRef{x}, TensorRef{out}});
  CHECK(out->data[0 * 8 + 1] == 4.0);   // (0, 1) ← offset 4
  CHECK(out->data[1 * 8 + 0] == 1.0);   // (1, 0) ← offset 1
  CHECK(out->data[3 * 8 + 7] == 31.0);  // (3, 7) ← offset 3 + 28
  // The materialized form is equivalent; a wrong explicit stride is not.
  std::string good = dn, bad = dn;
  good.replace(good.find("stride=[]"), 9, "stride=[1, 4]");
  bad.replace(bad.find("stride=[]"), 9, "stride=[1, 8]");
  CHECK(equivalent(dn, good).ok());
  auto r = equivalent(dn, bad);
  CHECK(r.status == interp::EquivalenceReport::Status::different);
  CHECK(r.message.find("out_0") != std::string::npos);
}

TEST_CASE("interp: elements outside a valid region are undefined, never stored, never compared") {
  auto p = parse(program(kIncore + R"(    def kernel(x: pl.Tensor[[4, 8], pl.FP32], out_0: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        t: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[2, 8])] = pl.tile.load(x, [0, 0], [4, 8], [2, 8], target_memory=pl.Mem.Vec)
        out_1: pl.Tensor[[4, 8], pl.FP32] = pl.tile.store(t, [0, 0], out_0)
        return out_1
)"));
  auto x = buffer("x", 32), out = buffer("out", 32, false);
  interp::Interpreter run(p);
  run.call("kernel", {TensorRef{x}, TensorRef{out}});
  for (std::size_t i = 0; i < 32; ++i) CHECK(out->defined[i] == (i < 16));
  CHECK(run.note_count() == 0);
}

TEST_CASE("interp: an undefined element stored into a tensor's valid region is reported") {
  auto p = parse(program(kIncore + R"(    def kernel(out_0: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        t: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.create([4, 8], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        out_1: pl.Tensor[[4, 8], pl.FP32] = pl.tile.store(t, [0, 0], out_0)
        return out_1
)"));
  auto out = buffer("out", 32, false);
  interp::Interpreter run(p);
  run.call("kernel", {TensorRef{out}});
  REQUIRE(run.note_count() == 1);
  CHECK(run.notes()[0].message.find("32 undefined element(s)") != std::string::npos);
  CHECK(run.notes()[0].span.line == 9);
}

TEST_CASE("interp: FP16 tiles round on every store; casts follow their mode") {
  auto p = parse(program(kIncore + R"(    def kernel(x: pl.Tensor[[1, 16], pl.FP32], out_0: pl.Out[pl.Tensor[[1, 16], pl.FP16]], out_1: pl.Out[pl.Tensor[[1, 16], pl.INT32]]) -> pl.Tensor[[1, 16], pl.FP16]:
        t: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [1, 16], [1, 16], target_memory=pl.Mem.Vec)
        h: pl.Tile[[1, 16], pl.FP16, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.FP16, mode='round')
        g: pl.Tile[[1, 16], pl.FP16, pl.Mem.Vec] = pl.tile.adds(h, 0.0009765625)
        i: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.INT32, mode='floor')
        out_2: pl.Tensor[[1, 16], pl.FP16] = pl.tile.store(g, [0, 0], out_0)
        out_3: pl.Tensor[[1, 16], pl.INT32] = pl.tile.store(i, [0, 0], out_1)
        return out_2
)"));
  auto x = buffer("x", 16), o0 = buffer("o0", 16, false), o1 = buffer("o1", 16, false);
  o0->dtype = interp::DataType::FP16;
  o1->dtype = interp::DataType::INT32;
  x->data[0] = 2049.0;  // FP16 spacing at 2048 is 2: round → 2050 (ties away), then +2^-10 is lost
  x->data[1] = -1.5;
  interp::Interpreter(p).call("kernel", {TensorRef{x}, TensorRef{o0}, TensorRef{o1}});
  CHECK(o0->data[0] == 2050.0);
  CHECK(o0->data[2] == 2.0);  // 2 + 2^-10 rounds back to 2 in FP16 (spacing 2^-9 at 2)
  CHECK(o0->data[1] == -1.5 + 1.0 / 1024);
  CHECK(o1->data[1] == -2.0);  // floor
}

TEST_CASE("interp: batch_matmul broadcasts batch dims; matmul_acc honours init_cond") {
  auto bmm = program(kIncore + R"(    def kernel(a: pl.Tensor[[2, 1, 4, 8], pl.FP16], b: pl.Tensor[[1, 3, 8, 4], pl.FP16], out_0: pl.Out[pl.Tensor[[2, 3, 4, 4], pl.FP32]]) -> pl.Tensor[[2, 3, 4, 4], pl.FP32]:
        x: pl.Tile[[2, 1, 4, 8], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0, 0], [2, 1, 4, 8], [2, 1, 4, 8], target_memory=pl.Mem.Mat)
        y: pl.Tile[[1, 3, 8, 4], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0, 0, 0], [1, 3, 8, 4], [1, 3, 8, 4], target_memory=pl.Mem.Mat)
        c: pl.Tile[[2, 3, 4, 4], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(x, y)
        out_1: pl.Tensor[[2, 3, 4, 4], pl.FP32] = pl.tile.store(c, [0, 0, 0, 0], out_0)
        return out_1
)");
  auto p = parse(bmm);
  auto a = buffer("a", 64), b = buffer("b", 96), out = buffer("out", 96, false);
  for (auto& v : a->data) v = std::fmod(v, 5.0) - 2.0;
  for (auto& v : b->data) v = std::fmod(v, 3.0) - 1.0;
  interp::Interpreter(p).call("kernel", {TensorRef{a}, TensorRef{b}, TensorRef{out}});
  // out[i, j, m, n] = Σ_k a[i, 0, m, k] * b[0, j, k, n]
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int m = 0; m < 4; ++m)
        for (int n = 0; n < 4; ++n) {
          double s = 0;
          for (int k = 0; k < 8; ++k) s += a->data[i * 32 + m * 8 + k] * b->data[j * 32 + k * 4 + n];
          CHECK(out->data[((i * 3 + j) * 4 + m) * 4 + n] == s);
        }
  auto acc = [](const std::string& cond) {
    return program(kIncore + R"(    def kernel(a: pl.Tensor[[16, 16], pl.FP16], out_0: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat)
        l: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.tile.move(x, target_memory=pl.Mem.Left)
        r: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.tile.move(x, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l, r)
        d: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c, l, r)" + cond + R"()
        out_1: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(d, [0, 0], out_0)
        return out_1
)");
  };
  auto twice = acc(""), once = acc(", True");
  auto x = buffer("a", 256), o1 = buffer("o", 256, false), o2 = buffer("o", 256, false);
  for (auto& v : x->data) v = std::fmod(v, 4.0);
  interp::Interpreter(parse(twice)).call("kernel", {TensorRef{x}, TensorRef{o1}});
  interp::Interpreter(parse(once)).call("kernel", {TensorRef{x}, TensorRef{o2}});
  for (std::size_t i = 0; i < 256; ++i) CHECK(o1->data[i] == 2 * o2->data[i]);
  CHECK(!equivalent(twice, once).ok());
}

TEST_CASE("interp: loops carry iter_args, branches yield return_vars, orchestration calls kernels") {
  auto p = parse(program(kIncore + R"(    def kernel(x: pl.Tensor[[4, 8], pl.FP32], n: pl.Scalar[pl.INDEX], out_0: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        t: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [4, 8], [4, 8], target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(0, n, 1, init_values=(t,)):
            nxt: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, t)
            acc_rv: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.yield_(nxt)
        if n > 2:
            s: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.muls(acc_rv, 10.0)
            r: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.yield_(s)
        else:
            r: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.yield_(acc_rv)
        out_1: pl.Tensor[[4, 8], pl.FP32] = pl.tile.store(r, [0, 0], out_0)
        return out_1
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[4, 8], pl.FP32], out_0: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        y: pl.Tensor[[4, 8], pl.FP32] = self.kernel(x, 3, out_0)
        return y
)"));
  auto x = buffer("x", 32), out = buffer("out", 32, false);
  interp::Interpreter run(p);
  run.call("main", {TensorRef{x}, TensorRef{out}});
  for (std::size_t i = 0; i < 32; ++i) CHECK(out->data[i] == 40.0 * static_cast<double>(i));
  auto out2 = buffer("out", 32, false);
  interp::Interpreter(p).call("kernel", {TensorRef{x}, interp::Scalar{interp::DataType::INDEX, 1, true}, TensorRef{out2}});
  for (std::size_t i = 0; i < 32; ++i) CHECK(out2->data[i] == 2.0 * static_cast<double>(i));
}

TEST_CASE("interp: transpose, transpose_view, slice, assemble, reshape and reinterpret_view") {
  auto p = parse(program(kIncore + R"(    def kernel(x: pl.Tensor[[4, 8], pl.FP32], out_0: pl.Out[pl.Tensor[[8, 4], pl.FP32]], out_1: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[8, 4], pl.FP32]:
        t: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [4, 8], [4, 8], target_memory=pl.Mem.Vec)
        tt: pl.Tile[[8, 4], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(t, 0, 1)
        v: pl.Tile[[8, 4], pl.FP32, pl.Mem.Vec] = pl.tile.transpose_view(t)
        d: pl.Tile[[8, 4], pl.FP32, pl.Mem.Vec] = pl.tile.sub(tt, v)
        e: pl.Tile[[8, 4], pl.FP32, pl.Mem.Vec] = pl.tile.add(d, tt)
        s: pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [2, 8], [2, 0])
        a: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.assemble(t, s, [0, 0])
        r: pl.Tile[[2, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(a, [2, 16])
        h: pl.Tile[[2, 32], pl.INT16, pl.Mem.Vec] = pl.tile.reinterpret_view(r, dtype=pl.INT16)
        f: pl.Tile[[2, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reinterpret_view(h, dtype=pl.FP32)
        g: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(f, [4, 8])
        o2: pl.Tensor[[8, 4], pl.FP32] = pl.tile.store(e, [0, 0], out_0)
        o3: pl.Tensor[[4, 8], pl.FP32] = pl.tile.store(g, [0, 0], out_1)
        return o2
)"));
  auto x = buffer("x", 32), o0 = buffer("o0", 32, false), o1 = buffer("o1", 32, false);
  for (auto& v : x->data) v = v * 0.75 - 3.0;
  interp::Interpreter(p).call("kernel", {TensorRef{x}, TensorRef{o0}, TensorRef{o1}});
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 4; ++c) CHECK(o0->data[r * 4 + c] == x->data[c * 8 + r]);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c) CHECK(o1->data[r * 8 + c] == x->data[((r < 2 ? r + 2 : r) * 8) + c]);
}

TEST_CASE("interp: an op it cannot run is an error naming it; windows past a tensor cannot run") {
  auto p = parse(program(kIncore + R"(    def kernel(x: pl.Tensor[[4, 8], pl.FP32], n: pl.Scalar[pl.INDEX], out_0: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        t: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [n, 0], [4, 8], [4, 8], target_memory=pl.Mem.Vec)
        u: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.aiv_shard(t, split=1, lane_stride=8)
        out_1: pl.Tensor[[4, 8], pl.FP32] = pl.tile.store(u, [0, 0], out_0)
        return out_1
)"));
  auto run = [&](double n) {
    auto x = buffer("x", 32), out = buffer("out", 32, false);
    interp::Interpreter(p).call("kernel", {TensorRef{x}, interp::Scalar{interp::DataType::INDEX, n, true}, TensorRef{out}});
  };
  try {
    run(0);
    FAIL("expected an error");
  } catch (const interp::RunError& e) {
    CHECK(e.kind() == interp::RunErrorKind::unsupported);
    CHECK(std::string(e.what()).find("tile.aiv_shard") != std::string::npos);
  }
  try {
    run(1);
    FAIL("expected an error");
  } catch (const interp::RunError& e) {
    CHECK(e.kind() == interp::RunErrorKind::cannot_run);
    CHECK(std::string(e.what()).find("runs past the tensor") != std::string::npos);
    CHECK(e.span().line == 8);
  }
}

// Fuzzing found a load at an offset near INT64_MAX: its address arithmetic overflowed (UBSan) before the
// window was found to run past the tensor. Indices beyond 2^40 are refused as not modelled.
TEST_CASE("interp: an index beyond 2^40, constant or passed in, is refused as not modelled, not overflowed") {
  auto refused = [&](const std::string& offsets, double n, const std::string& extra = "") {
    auto p = parse(program(kIncore + "    def kernel(x: pl.Tensor[[4, 8], pl.FP32], n: pl.Scalar[pl.INDEX], out_0: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:\n"
                                     "        t: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, " + offsets + ", [4, 8], [4, 8], target_memory=pl.Mem.Vec" + extra + ")\n"
                                     "        out_1: pl.Tensor[[4, 8], pl.FP32] = pl.tile.store(t, [0, 0], out_0)\n"
                                     "        return out_1\n"));
    auto x = buffer("x", 32), out = buffer("out", 32, false);
    try {
      interp::Interpreter(p).call("kernel", {TensorRef{x}, interp::Scalar{interp::DataType::INDEX, n, true}, TensorRef{out}});
      FAIL("expected an error for " << offsets);
    } catch (const interp::RunError& e) {
      CHECK(e.kind() == interp::RunErrorKind::unsupported);
      CHECK(std::string(e.what()).find("2^40") != std::string::npos);
      CHECK(e.span().line == 8);
    }
  };
  refused("[0, 1125899906842624]", 0, ", clamp=True");  // 2^50; without clamp deduction refuses it
  refused("[n, 0]", 1125899906842624.0);  // 2^50
}

// Fuzzing (repro_30) found tensor.cast, whose result type is its annotation (no deduction),
// annotated [17, 32] over a [16, 32] operand: the cast read past the operand. An element-wise
// op whose result differs from its operand in size is refused, located.
TEST_CASE("interp: tensor.cast and tensor.exp annotated with another size are refused, not read past") {
  for (const std::string op : {"pl.tensor.cast(x, target_type=pl.FP32, mode='rint')", "pl.tensor.exp(x)"}) {
    auto p = parse(program(
        "    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP)\n"
        "    def main(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[17, 32], pl.FP32]:\n"
        "        y: pl.Tensor[[17, 32], pl.FP32] = " + op + "\n"
        "        return y\n"));
    try {
      interp::Interpreter(p).call("main", {TensorRef{buffer("x", 16 * 32)}});
      FAIL("expected an error for " << op);
    } catch (const interp::RunError& e) {
      CHECK(e.kind() == interp::RunErrorKind::invalid);
      CHECK(std::string(e.what()).find("the operand [16, 32] and the result [17, 32] differ in size") != std::string::npos);
      CHECK(e.span().line == 8);
    }
  }
}

TEST_CASE("interp: dynamic dims take their value by name; valid tails from pl.min") {
  auto text = program(kIncore + R"(    def kernel(x: pl.Tensor[[S, 8], pl.FP32], out_0: pl.Out[pl.Tensor[[S, 8], pl.FP32]]) -> pl.Tensor[[S, 8], pl.FP32]:
        for c, (o,) in pl.range(0, S, 4, init_values=(out_0,)):
            valid: pl.Scalar[pl.INDEX] = pl.min(4, S - c)
            t: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[valid, 8])] = pl.tile.load(x, [c, 0], [4, 8], [valid, 8], target_memory=pl.Mem.Vec)
            u: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[valid, 8])] = pl.tile.muls(t, 2.0)
            o2: pl.Tensor[[S, 8], pl.FP32] = pl.tile.store(u, [c, 0], o)
            o_rv: pl.Tensor[[S, 8], pl.FP32] = pl.yield_(o2)
        return o_rv
)", "S = pl.dynamic(\"S\")\n\n");
  auto p = parse(text);
  interp::RunOptions ro;
  ro.dims["S"] = 10;
  auto x = buffer("x", 80), out = buffer("out", 80, false);
  interp::Interpreter(p, ro).call("kernel", {TensorRef{x}, TensorRef{out}});
  for (std::size_t i = 0; i < 80; ++i) {
    CHECK(out->defined[i]);
    CHECK(out->data[i] == 2.0 * static_cast<double>(i));
  }
  // Without a value for S, the run names it.
  auto x2 = buffer("x", 80), out2 = buffer("out", 80, false);
  try {
    interp::Interpreter(p).call("kernel", {TensorRef{x2}, TensorRef{out2}});
    FAIL("expected an error");
  } catch (const interp::RunError& e) {
    CHECK(std::string(e.what()).find("--dims=S=") != std::string::npos);
  }
  auto r = equivalent(text, text, 8);
  CHECK(r.ok());
  CHECK(r.trials_run == 8);
}

TEST_CASE("interp npy: write and read back; shape mismatches are named") {
  interp::NpyArray a;
  a.dtype = interp::DataType::FP16;
  a.shape = {2, 3};
  a.data = {1, 2, 3, -0.5, 65504, 0.25};
  std::string bytes = interp::npy_encode(a);
  CHECK(bytes.substr(1, 5) == "NUMPY");
  auto b = interp::npy_decode(bytes, "a.npy");
  CHECK(b.dtype == interp::DataType::FP16);
  CHECK(b.shape == interp::Dims{2, 3});
  CHECK(b.data == a.data);
  try {
    (void)interp::npy_decode("garbage", "g.npy");
    FAIL("expected an error");
  } catch (const interp::RunError& e) {
    CHECK(std::string(e.what()).find("g.npy") != std::string::npos);
  }
}

#include "tilewright/interp/driver.hpp"
#include "tilewright/passes/registry.hpp"

TEST_CASE("interp driver: --dims lists, and --verify=semantic names the pass that changed the meaning") {
  std::string error;
  auto dims = interp::parse_dims("S=37,B=2", error);
  REQUIRE(dims);
  CHECK(dims->at("S") == 37);
  CHECK(dims->at("B") == 2);
  CHECK(!interp::parse_dims("S=", error));
  CHECK(error.find("NAME=VALUE") != std::string::npos);
  CHECK(!interp::parse_dims("S=-1", error));

  std::string add = program(kIncore + R"(    def kernel(x: pl.Tensor[[2, 3, 8], pl.FP32], out_0: pl.Out[pl.Tensor[[2, 3, 8], pl.FP32]]) -> pl.Tensor[[2, 3, 8], pl.FP32]:
        t: pl.Tile[[2, 3, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 3, 8], [2, 3, 8], target_memory=pl.Mem.Vec)
        y: pl.Tile[[2, 3, 8], pl.FP32, pl.Mem.Vec] = pl.tile.add(t, t)
        out_1: pl.Tensor[[2, 3, 8], pl.FP32] = pl.tile.store(y, [0, 0, 0], out_0)
        return out_1
)");
  std::string sub = add;
  sub.replace(sub.find("tile.add"), 8, "tile.sub");
  interp::EquivalenceOptions o;
  o.trials = 2;
  pass::PassContext ctx;
  pass::Pipeline good(passes::default_pipeline());
  CHECK_NOTHROW(good.run(parse(add), ctx, pass::VerifyLevel::basic, interp::semantic_instrument(o)));
  pass::Pipeline bad;
  pass::PassInfo breaker;
  breaker.name = "Breaker";
  breaker.factory = "breaker";
  bad.add(pass::AnyPass{breaker, [&](const ir::Program&, pass::PassContext&) { return parse(sub); }});
  try {
    bad.run(parse(add), ctx, pass::VerifyLevel::none, interp::semantic_instrument(o));
    FAIL("expected the semantic check to fail");
  } catch (const ir::Error& e) {
    CHECK(e.diagnostic().message.find("pass Breaker changed the meaning") != std::string::npos);
    CHECK(e.diagnostic().message.find("out_0") != std::string::npos);
  }
}

#include <filesystem>
#include <fstream>

TEST_CASE("interp driver: --run reads .npy inputs through the parameter's view, writes outputs, names shape mismatches") {
  auto p = parse(program(kIncore + R"(    def kernel(x: pl.Tensor[[4, 8], pl.FP32, pl.TensorView(stride=[], layout=pl.TensorLayout.DN)], out_0: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        t: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [4, 8], [4, 8], target_memory=pl.Mem.Vec)
        u: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t, 3.0)
        out_1: pl.Tensor[[4, 8], pl.FP32] = pl.tile.store(u, [0, 0], out_0)
        return out_1
)"));
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "tilewright-interp-run-test";
  fs::remove_all(dir);
  fs::create_directories(dir / "in");
  interp::NpyArray x;
  x.shape = {4, 8};
  for (int i = 0; i < 32; ++i) x.data.push_back(i);  // logical (r, c) = 8r + c
  std::ofstream(dir / "in" / "x.npy", std::ios::binary) << interp::npy_encode(x);
  auto r = interp::run_entry(p, "kernel", (dir / "in").string(), (dir / "out").string(), 1, {});
  CHECK(r.summary.find("out_0: [4, 8] FP32") != std::string::npos);
  std::ifstream in(dir / "out" / "out_0.npy", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  auto out = interp::npy_decode(bytes, "out_0.npy");
  REQUIRE(out.data.size() == 32);
  for (int i = 0; i < 32; ++i) CHECK(out.data[static_cast<std::size_t>(i)] == 3.0 * i);
  x.shape = {8, 4};
  std::ofstream(dir / "in" / "x.npy", std::ios::binary | std::ios::trunc) << interp::npy_encode(x);
  try {
    (void)interp::run_entry(p, "kernel", (dir / "in").string(), "", 1, {});
    FAIL("expected a shape mismatch");
  } catch (const interp::RunError& e) {
    CHECK(std::string(e.what()).find("shape [8, 4] does not match parameter 'x' of shape [4, 8]") != std::string::npos);
    CHECK(e.span().line == 7);
  }
  fs::remove_all(dir);
}

TEST_CASE("interp driver: run_function takes arrays in memory, reads them through the view, refuses a stray name") {
  auto p = parse(program(kIncore + R"(    def kernel(x: pl.Tensor[[4, 8], pl.FP32, pl.TensorView(stride=[], layout=pl.TensorLayout.DN)], s: pl.Scalar[pl.FP32], out_0: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        t: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [4, 8], [4, 8], target_memory=pl.Mem.Vec)
        u: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t, s)
        out_1: pl.Tensor[[4, 8], pl.FP32] = pl.tile.store(u, [0, 0], out_0)
        return out_1
)"));
  interp::NamedArrays given;
  interp::NpyArray x;
  x.shape = {4, 8};
  for (int i = 0; i < 32; ++i) x.data.push_back(i);
  given["x"] = x;
  given["s"] = interp::NpyArray{interp::DataType::FP32, {}, {2.5}, {}};
  interp::RunOutcome r = interp::run_function(p, "kernel", given, 1, {});
  REQUIRE(r.outputs.size() == 1);
  CHECK(r.outputs[0].name == "out_0");
  CHECK(r.outputs[0].undefined == 0);
  REQUIRE(r.outputs[0].value.data.size() == 32);
  for (int i = 0; i < 32; ++i) CHECK(r.outputs[0].value.data[static_cast<std::size_t>(i)] == 2.5 * i);
  REQUIRE(r.sources.size() == 3);
  CHECK(std::string(r.sources[0].second) == "given");
  CHECK(std::string(r.sources[2].second) == "undefined (Out)");
  given["y"] = x;
  try {
    (void)interp::run_function(p, "kernel", given, 1, {});
    FAIL("expected the stray input to be refused");
  } catch (const interp::RunError& e) {
    CHECK(std::string(e.what()) ==
          "input 'y' names no parameter of 'kernel' (its parameters: x, s, out_0); rename it after a parameter or remove it");
  }
}

namespace {

// Runs a one-tile kernel over x = 0, 1, 2, … ([2, 8]) and returns out's 16 elements; `body`
// computes `r` from the tile `t` (and from `s`, t + 100, a second tile).
std::vector<double> run_2x8(const std::string& body, const std::string& out_type = "pl.FP32", std::size_t cols = 8) {
  const std::string shape = "[2, " + std::to_string(cols) + "]";
  auto p = parse(program(kIncore + "    def kernel(x: pl.Tensor[[2, 8], pl.FP32], out_0: pl.Out[pl.Tensor[" + shape + ", " +
                         out_type + "]]) -> pl.Tensor[" + shape + ", " + out_type + "]:\n" +
                         "        t: pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [2, 8], [2, 8], target_memory=pl.Mem.Vec)\n" +
                         "        s: pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, 100.0)\n" + body +
                         "        out_1 = pl.tile.store(r, [0, 0], out_0)\n        return out_1\n"));
  auto x = buffer("x", 16), out = buffer("out", 2 * cols, false);
  interp::Interpreter(p).call("kernel", {TensorRef{x}, TensorRef{out}});
  std::vector<double> v;
  for (std::size_t i = 0; i < out->data.size(); ++i) v.push_back(out->defined[i] ? out->data[i] : -999.0);
  return v;
}

}  // namespace

// Issue 34: the fused ternary ops, prelu, the partial ops and the arg reductions run.
TEST_CASE("interp: addc/subc/addsc/subsc, prelu, part_*, row/col argmax and argmin") {
  // addc: t + s + t = 3i + 100; subc: t - s + t = i - 100.
  CHECK(run_2x8("        r = pl.tile.addc(t, s, t)\n")[5] == 115.0);
  CHECK(run_2x8("        r = pl.tile.subc(t, s, t)\n")[5] == -95.0);
  // addsc: t + 2 + s = 2i + 102; subsc: t - 2 + s = 2i + 98.
  CHECK(run_2x8("        r = pl.tile.addsc(t, 2.0, s)\n")[3] == 108.0);
  CHECK(run_2x8("        r = pl.tile.subsc(t, 2.0, s)\n")[3] == 104.0);
  // prelu: negative inputs scaled by the slope tile.
  auto pre = run_2x8("        n = pl.tile.adds(t, -4.0)\n        r = pl.tile.prelu(n, s, t)\n");
  CHECK(pre[1] == -3.0 * 101.0);
  CHECK(pre[6] == 2.0);
  // part_add: where only one operand is valid, that one.
  auto part = run_2x8("        h = pl.tile.set_validshape(s, 1, 8)\n        r = pl.tile.part_add(t, h)\n");
  CHECK(part[2] == 2.0 + 102.0);    // row 0: both valid
  CHECK(part[10] == 10.0);          // row 1: only t
  // row_argmax of 0..7 is 7, row_argmin 0; col_argmax over two rows is 1.
  auto rmax = run_2x8("        w = pl.tile.create([2, 8], dtype=pl.FP32, target_memory=pl.Mem.Vec)\n"
                      "        r = pl.tile.row_argmax(t, w)\n",
                      "pl.INT32", 1);
  CHECK(rmax == std::vector<double>{7.0, 7.0});
  auto rmin = run_2x8("        w = pl.tile.create([2, 8], dtype=pl.FP32, target_memory=pl.Mem.Vec)\n"
                      "        r = pl.tile.row_argmin(t, w)\n",
                      "pl.INT32", 1);
  CHECK(rmin == std::vector<double>{0.0, 0.0});
}

// Issue 34: compare packs one bit per element along each row (bit c % 8 of byte c / 8, lowest
// first; padding bits 0), select reads the same bits; cmp_type 0..5 is eq, ne, lt, le, gt, ge.
TEST_CASE("interp: tile.cmp/cmps pack a row predicate; tile.sel/sels select through it") {
  const std::string mask = "pl.Tile[[2, 32], pl.UINT8, pl.Mem.Vec, pl.TileView(valid_shape=[2, 1])]";
  // t = 0..15 over two rows; t > 4.5 is columns 5..7 of row 0 (0b11100000) and all of row 1.
  auto gt = run_2x8("        m: " + mask + " = pl.tile.cmps(t, 4.5, cmp_type=4)\n"
                    "        r = pl.tile.cast(m, target_type=pl.FP32, mode=0)\n",
                    "pl.FP32", 32);
  CHECK(gt[0] == 224.0);
  CHECK(gt[32] == 255.0);
  CHECK(gt[1] == -999.0);  // past the mask's valid bytes: undefined
  // lt with a tile operand: t < s everywhere; eq never.
  auto lt = run_2x8("        m: " + mask + " = pl.tile.cmp(t, s, cmp_type=2)\n"
                    "        r = pl.tile.cast(m, target_type=pl.FP32, mode=0)\n",
                    "pl.FP32", 32);
  CHECK(lt[0] == 255.0);
  auto eq = run_2x8("        m: " + mask + " = pl.tile.cmp(t, s, cmp_type=0)\n"
                    "        r = pl.tile.cast(m, target_type=pl.FP32, mode=0)\n",
                    "pl.FP32", 32);
  CHECK(eq[32] == 0.0);
  // sel: t where t > 4.5, else s; sels: t there, else -1.
  auto sel = run_2x8("        m: " + mask + " = pl.tile.cmps(t, 4.5, cmp_type=4)\n"
                     "        r = pl.tile.sel(m, t, s, t)\n");
  CHECK(sel[4] == 104.0);
  CHECK(sel[5] == 5.0);
  CHECK(sel[9] == 9.0);
  auto sels = run_2x8("        m: " + mask + " = pl.tile.cmps(t, 4.5, cmp_type=3)\n"
                      "        r = pl.tile.sels(m, t, s, -1.0)\n");
  CHECK(sels[4] == 4.0);
  CHECK(sels[5] == -1.0);
  CHECK(sels[15] == -1.0);
  // A mask too narrow for its rows cannot be read.
  CHECK_THROWS_WITH_AS(run_2x8("        m: pl.Tile[[1, 32], pl.UINT8, pl.Mem.Vec] = pl.tile.cmps(t, 4.5, cmp_type=4)\n"
                               "        r = pl.tile.sel(m, t, s, t)\n"),
                       doctest::Contains("does not hold one bit per element"), interp::RunError);
}

// Issue 34: fillpad_expand keeps the valid elements at their index and pads the rest, the
// grown part included; an array is a value, zero-filled when created.
TEST_CASE("interp: tile.fillpad_expand pads the grown tile; array.create/get_element/update_element") {
  auto grown = run_2x8("        h = pl.tile.set_validshape(t, 1, 5)\n"
                       "        r = pl.tile.fillpad_expand(h, [2, 16], pad_value=pl.PadValue.min)\n",
                       "pl.FP32", 16);
  CHECK(grown[4] == 4.0);
  CHECK(grown[5] == -INFINITY);   // outside the valid columns
  CHECK(grown[12] == -INFINITY);  // beyond the source's 8 columns
  CHECK(grown[16] == -INFINITY);  // row 1 is not valid
  auto same = run_2x8("        r = pl.tile.fillpad_expand(t, [2, 16])\n", "pl.FP32", 16);
  CHECK(same[17] == 9.0);  // row 1, column 1 keeps its index, not its linear position
  CHECK(same[31] == 0.0);
  auto arr = run_2x8("        a: pl.Array[4, pl.INT32] = pl.array.create(4, dtype=pl.INT32)\n"
                     "        a1: pl.Array[4, pl.INT32] = pl.array.update_element(a, 2, 7)\n"
                     "        a2: pl.Array[4, pl.INT32] = pl.array.update_element(a1, 2, 9)\n"
                     "        e: pl.Scalar[pl.INT32] = pl.array.get_element(a2, 2)\n"
                     "        f: pl.Scalar[pl.INT32] = pl.array.get_element(a1, 2)\n"
                     "        u = pl.tile.adds(t, e)\n"
                     "        r = pl.tile.adds(u, f)\n");
  CHECK(arr[1] == 1.0 + 9.0 + 7.0);  // a1 still holds 7: update_element made a new array
  auto unwritten = run_2x8("        a: pl.Array[4, pl.INT32] = pl.array.create(4, dtype=pl.INT32)\n"
                           "        e: pl.Scalar[pl.INT32] = pl.array.get_element(a, 1)\n"
                           "        r = pl.tile.adds(t, e)\n");
  CHECK(unwritten[0] == 0.0);  // zero-filled, as upstream's generated code declares it
  CHECK_THROWS_WITH_AS(run_2x8("        a: pl.Array[4, pl.INT32] = pl.array.create(4, dtype=pl.INT32)\n"
                               "        e: pl.Scalar[pl.INT32] = pl.array.get_element(a, 4)\n"
                               "        r = pl.tile.adds(t, e)\n"),
                       doctest::Contains("outside the array of 4"), interp::RunError);
}

// Issue 34: the distributed load and store run on the window buffer they name, as local
// memory (the peer selects which rank's copy; the interpreter has one).
TEST_CASE("interp: pld.tile.remote_load and remote_store read and write the named tensor") {
  // Row 1 of x, valid on its first 4 columns, lands in row 0 of r; the rest stays undefined.
  auto rl = run_2x8("        h: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 4])] = "
                    "pld.tile.remote_load(x, 3, [1, 0], [1, 8], [1, 4])\n"
                    "        r = pl.tile.fillpad(h)\n");
  CHECK(rl[0] == 8.0);
  CHECK(rl[3] == 11.0);
  CHECK(rl[4] == 0.0);  // fillpad's zero where the load left the tile invalid
  // remote_store writes s into the output tensor; r (t) is then stored over row 0 only.
  auto rs = run_2x8("        pld.tile.remote_store(s, out_0, 1, [0, 0])\n"
                    "        r: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [1, 8], [1, 8], target_memory=pl.Mem.Vec)\n");
  CHECK(rs[1] == 1.0);
  CHECK(rs[9] == 109.0);
}

namespace interp_generators {

// The first row of t as a [1, 8] tile (values 0..7), via gather with a counted index.
const std::string kRow =
    "        up: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.tile.ci(0, [1, 8], dtype=pl.INT32)\n"
    "        row: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.gather(t, up, up)\n";

std::vector<double> first(const std::vector<double>& v, std::size_t n) { return {v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n)}; }

}  // namespace interp_generators

// Issue 34: the generators, gathers, scatters and sorts run, on the semantics upstream's
// documentation and pto-isa's reference give them (worked numbers below).
TEST_CASE("interp: tile.ci and tile.tri generate; gather, gather_mask, scatter, scatter_mask, scatter_update move elements") {
  using interp_generators::first;
  using interp_generators::kRow;
  auto down = run_2x8("        r: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.ci(100, [1, 16], dtype=pl.INT32, descending=True)\n",
                      "pl.INT32", 16);
  CHECK(down[0] == 100.0);
  CHECK(down[15] == 85.0);
  CHECK(down[16] == -999.0);  // ci writes the first row only
  // tril with the diagonal one to the right; triu from the diagonal.
  auto lower = run_2x8("        r: pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec] = pl.tile.tri(1, [2, 8], dtype=pl.FP32)\n");
  CHECK(first(lower, 3) == std::vector<double>{1, 1, 0});
  CHECK(std::vector<double>(lower.begin() + 8, lower.begin() + 12) == std::vector<double>{1, 1, 1, 0});
  auto upper = run_2x8("        r: pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec] = pl.tile.tri(0, [2, 8], dtype=pl.FP32, upper=True)\n");
  CHECK(first(upper, 2) == std::vector<double>{1, 1});
  CHECK(std::vector<double>(upper.begin() + 8, upper.begin() + 10) == std::vector<double>{0, 1});
  // gather reads flat offsets: 15, 14, … is row 1 reversed.
  auto g = run_2x8("        ix: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.tile.ci(15, [1, 8], dtype=pl.INT32, descending=True)\n"
                   "        r: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.gather(t, ix, ix)\n");
  CHECK(first(g, 8) == std::vector<double>{15, 14, 13, 12, 11, 10, 9, 8});
  CHECK_THROWS_WITH_AS(run_2x8("        ix: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.tile.ci(16, [1, 8], dtype=pl.INT32)\n"
                               "        r: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.gather(t, ix, ix)\n"),
                       doctest::Contains("index 16 is outside the 16 elements"), interp::RunError);
  // P1010 keeps the odd columns of each row.
  auto odd = run_2x8("        r: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.tile.gather_mask(t, mask_pattern=2)\n", "pl.FP32", 4);
  CHECK(odd == std::vector<double>{1, 3, 5, 7, 9, 11, 13, 15});
  // scatter into s (t + 100): flat element 15 - k becomes k.
  auto sc = run_2x8(kRow + "        ix: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.tile.ci(15, [1, 8], dtype=pl.INT32, descending=True)\n"
                           "        r: pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec] = pl.tile.scatter(s, row, ix)\n");
  CHECK(first(sc, 2) == std::vector<double>{100, 101});
  CHECK(std::vector<double>(sc.begin() + 8, sc.end()) == std::vector<double>{7, 6, 5, 4, 3, 2, 1, 0});
  // scatter_mask P0101: row 0's even columns take row's elements, the odd keep s.
  auto sm = run_2x8("        half: pl.Tile[[2, 4], pl.FP32, pl.Mem.Vec] = pl.tile.gather_mask(t, mask_pattern=2)\n"
                    "        r: pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec] = pl.tile.scatter_mask(s, half, mask_pattern=1)\n");
  CHECK(first(sm, 4) == std::vector<double>{1, 101, 3, 103});
  // scatter_update: input row 1 becomes src row 0.
  auto su = run_2x8(kRow + "        one: pl.Tile[[1, 1], pl.INT32, pl.Mem.Vec] = pl.tile.ci(1, [1, 1], dtype=pl.INT32)\n"
                           "        r: pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec] = pl.tile.scatter_update(s, one, row, dim=-2)\n");
  CHECK(su[0] == 100.0);
  CHECK(std::vector<double>(su.begin() + 8, su.end()) == std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7});
}

// Issue 34: the GM gather and scatter address a packed row-major tensor by flat element
// offset (mgather's row mode by row); gatherb copies 32-byte blocks at byte offsets.
TEST_CASE("interp: tile.mgather (element, row, out-of-range modes), tile.mscatter and tile.gatherb") {
  using interp_generators::first;
  using interp_generators::kRow;
  const std::string down = "        ix: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.tile.ci(15, [1, 8], dtype=pl.INT32, descending=True)\n";
  // Element mode: x's flat elements 15, 14, …; row 1 of the output stays unwritten.
  auto e = run_2x8(down + "        r: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.mgather(x, ix, coalesce=1, target_memory=pl.Mem.Vec)\n");
  CHECK(first(e, 8) == std::vector<double>{15, 14, 13, 12, 11, 10, 9, 8});
  CHECK(e[8] == -999.0);
  // Row mode: rows 1 and 0 of x.
  auto rows = run_2x8("        ix: pl.Tile[[1, 2], pl.INT32, pl.Mem.Vec] = pl.tile.ci(1, [1, 2], dtype=pl.INT32, descending=True)\n"
                      "        r: pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec] = pl.tile.mgather(x, ix, coalesce=0, target_memory=pl.Mem.Vec)\n");
  CHECK(first(rows, 2) == std::vector<double>{8, 9});
  CHECK(rows[8] == 0.0);
  // Indices 14..17 over 16 elements: clamped, wrapped, read as zero, or left to the target.
  auto oob = [&](int mode) {
    return first(run_2x8("        ix: pl.Tile[[1, 4], pl.INT32, pl.Mem.Vec] = pl.tile.ci(14, [1, 4], dtype=pl.INT32)\n"
                         "        r: pl.Tile[[1, 4], pl.FP32, pl.Mem.Vec] = pl.tile.mgather(x, ix, coalesce=1, gather_oob=" +
                             std::to_string(mode) + ", target_memory=pl.Mem.Vec)\n",
                         "pl.FP32", 4),
                 4);
  };
  CHECK(oob(1) == std::vector<double>{14, 15, 15, 15});
  CHECK(oob(2) == std::vector<double>{14, 15, 0, 1});
  CHECK(oob(3) == std::vector<double>{14, 15, 0, 0});
  CHECK_THROWS_WITH_AS(oob(0), doctest::Contains("index 16 is outside the 16 elements of mem [2, 8]"), interp::RunError);
  // A DN tensor is not packed row-major: not modelled, rather than guessed.
  auto dn = parse(program(kIncore + "    def kernel(x: pl.Tensor[[2, 8], pl.FP32, pl.TensorView(stride=[], layout=pl.TensorLayout.DN)]) -> pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec]:\n" +
                          down + "        r: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.mgather(x, ix, coalesce=1, target_memory=pl.Mem.Vec)\n"
                                 "        return r\n"));
  CHECK_THROWS_WITH_AS(interp::Interpreter(dn).call("kernel", {TensorRef{buffer("x", 16)}}),
                       doctest::Contains("is modelled on packed row-major tensors only"), interp::RunError);
  // mscatter: x's row 0 (0..7) into out's flat elements 15 - k; out's row 0 stays unwritten.
  auto sc = run_2x8(kRow + down + "        o: pl.Tensor[[2, 8], pl.FP32] = pl.tile.mscatter(row, ix, out_0)\n"
                                  "        r: pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(o, [0, 0], [2, 8], [2, 8], target_memory=pl.Mem.Vec)\n");
  CHECK(sc[0] == -999.0);
  CHECK(std::vector<double>(sc.begin() + 8, sc.end()) == std::vector<double>{7, 6, 5, 4, 3, 2, 1, 0});
  CHECK_THROWS_WITH_AS(run_2x8(kRow + "        ix: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.tile.ci(9, [1, 8], dtype=pl.INT32)\n"
                                      "        o: pl.Tensor[[2, 8], pl.FP32] = pl.tile.mscatter(row, ix, out_0)\n"
                                      "        r = pl.tile.adds(t, 0.0)\n"),
                       doctest::Contains("index 16 is outside the 16 elements of the output tensor"), interp::RunError);
  // gatherb: offsets 0, 32, 0, 32, … (bytes) pick t's 8-float blocks: row 0, row 1, row 0, …
  const std::string offsets =
      "        k: pl.Tile[[1, 8], pl.UINT32, pl.Mem.Vec] = pl.tile.ci(0, [1, 8], dtype=pl.UINT32)\n"
      "        odd: pl.Tile[[1, 8], pl.UINT32, pl.Mem.Vec] = pl.tile.ands(k, 1)\n"
      "        off: pl.Tile[[1, 8], pl.UINT32, pl.Mem.Vec] = pl.tile.shls(odd, 5)\n";
  auto gb = run_2x8(offsets + "        r: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.gatherb(t, off)\n", "pl.FP32", 64);
  CHECK(first(gb, 3) == std::vector<double>{0, 1, 2});
  CHECK(std::vector<double>(gb.begin() + 8, gb.begin() + 11) == std::vector<double>{8, 9, 10});
  CHECK(gb[16] == 0.0);
  // output_dtype reads the same bytes: 1.0f is 0x3F800000.
  auto bits = run_2x8(offsets + "        r: pl.Tile[[1, 64], pl.INT32, pl.Mem.Vec] = pl.tile.gatherb(t, off, output_dtype=pl.INT32)\n",
                      "pl.INT32", 64);
  CHECK(bits[1] == 1065353216.0);
  CHECK_THROWS_WITH_AS(run_2x8("        k: pl.Tile[[1, 8], pl.UINT32, pl.Mem.Vec] = pl.tile.ci(1, [1, 8], dtype=pl.UINT32)\n"
                               "        off: pl.Tile[[1, 8], pl.UINT32, pl.Mem.Vec] = pl.tile.shls(k, 5)\n"
                               "        r: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.gatherb(t, off)\n",
                               "pl.FP32", 64),
                       doctest::Contains("offset 64 names a 32-byte block past the 64 bytes of src"), interp::RunError);
}

// Issue 34: gather_row copies one window of a GM tensor into a window of dst, in place: the
// rest of dst keeps its elements; transpose=True lays window rows down dst's columns.
TEST_CASE("interp: tile.gather_row writes a tensor window into dst, transposed or not") {
  const std::string r = "        r: pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec] = ";
  auto plain = run_2x8(r + "pl.tile.gather_row(s, x, [1, 0], [0, 2], [1, 4])\n");
  CHECK(std::vector<double>(plain.begin() + 8, plain.begin() + 13) == std::vector<double>{2, 3, 4, 5, 112});
  CHECK(plain[0] == 100.0);
  auto part = run_2x8(r + "pl.tile.gather_row(s, x, [0, 0], [1, 0], [2, 8], valid_shape=[1, 3])\n");
  CHECK(std::vector<double>(part.begin(), part.begin() + 4) == std::vector<double>{8, 9, 10, 103});
  CHECK(part[8] == 108.0);
  auto down = run_2x8(r + "pl.tile.gather_row(s, x, [0, 4], [1, 0], [1, 2], transpose=True)\n");
  CHECK(down[4] == 8.0);
  CHECK(down[12] == 9.0);
  CHECK(down[5] == 105.0);
  CHECK_THROWS_WITH_AS(run_2x8(r + "pl.tile.gather_row(s, x, [0, 0], [1, 6], [1, 4])\n"),
                       doctest::Contains("runs past the tensor [2, 8]"), interp::RunError);
}

TEST_CASE("interp: tile.sort32 sorts blocks into (value, index) pairs; mrgsort_format1/2 merge them") {
  using interp_generators::first;
  using interp_generators::kRow;
  const std::string sorted = kRow + "        id: pl.Tile[[1, 8], pl.UINT32, pl.Mem.Vec] = pl.tile.ci(0, [1, 8], dtype=pl.UINT32)\n"
                                    "        p: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.sort32(row, id)\n";
  // Values descending in the even lanes; the odd lanes carry the indices' bits.
  auto vals = run_2x8(sorted + "        r: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.gather_mask(p, mask_pattern=1)\n");
  CHECK(first(vals, 8) == std::vector<double>{7, 6, 5, 4, 3, 2, 1, 0});
  auto idx = run_2x8(sorted + "        r: pl.Tile[[1, 8], pl.UINT32, pl.Mem.Vec] = pl.tile.gather_mask(p, mask_pattern=2, output_dtype=pl.UINT32)\n", "pl.UINT32");
  CHECK(first(idx, 8) == std::vector<double>{7, 6, 5, 4, 3, 2, 1, 0});
  // Equal values keep their order.
  auto ties = run_2x8(kRow + "        z: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.muls(row, 0.0)\n"
                             "        id: pl.Tile[[1, 8], pl.UINT32, pl.Mem.Vec] = pl.tile.ci(0, [1, 8], dtype=pl.UINT32)\n"
                             "        p: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.sort32(z, id)\n"
                             "        r: pl.Tile[[1, 8], pl.UINT32, pl.Mem.Vec] = pl.tile.gather_mask(p, mask_pattern=2, output_dtype=pl.UINT32)\n",
                      "pl.UINT32");
  CHECK(first(ties, 8) == std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7});
  // Two sorted lists (0..7 with indices 0..7, 0.5..7.5 with 8..15) merged.
  const std::string two = sorted + "        b: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.adds(row, 0.5)\n"
                                   "        id8: pl.Tile[[1, 8], pl.UINT32, pl.Mem.Vec] = pl.tile.ci(8, [1, 8], dtype=pl.UINT32)\n"
                                   "        q: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.sort32(b, id8)\n";
  // Merges p and q (mrgsort_format2 kwargs `kw`) and reads lanes of pattern `mask` as `dt`.
  auto merge2 = [&](const std::string& kw, int mask, const std::string& dt) {
    return run_2x8(two + "        tmp: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([1, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)\n"
                         "        m: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.mrgsort_format2(p, q, tmp" + kw + ")\n"
                         "        r: pl.Tile[[1, 16], " + dt + ", pl.Mem.Vec] = pl.tile.gather_mask(m, mask_pattern=" + std::to_string(mask) +
                       (dt == "pl.FP32" ? "" : ", output_dtype=" + dt) + ")\n",
                   dt, 16);
  };
  auto merged = merge2("", 2, "pl.UINT32");
  CHECK(first(merged, 4) == std::vector<double>{15, 7, 14, 6});
  CHECK(merged[15] == 0.0);
  // exhausted=True stops when the first list runs out: 0.5 is the last pair written.
  auto stopped = merge2(", exhausted=True", 1, "pl.FP32");
  CHECK(stopped[14] == 0.5);
  CHECK(stopped[15] == -999.0);
  // format1: four runs of 8 lanes (4 pairs) merged into one.
  auto one = run_2x8(two + "        pq: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.concat(p, q)\n"
                           "        m: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.mrgsort_format1(pq, 8)\n"
                           "        r: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.gather_mask(m, mask_pattern=1)\n",
                     "pl.FP32", 16);
  CHECK(first(one, 4) == std::vector<double>{7.5, 7, 6.5, 6});
  CHECK(one[15] == 0.0);
}

namespace {

// Runs an orchestration function over x = 0, 1, … ([2, 4], of layout `layout`) and returns
// the elements of the tensor `r` it returns, in its buffer's order (-999 where undefined).
std::vector<double> run_tensor_ops(const std::string& body, const std::string& ret, const std::string& layout = "") {
  const std::string x_type = layout.empty() ? "pl.Tensor[[2, 4], pl.FP32]"
                                            : "pl.Tensor[[2, 4], pl.FP32, pl.TensorView(stride=[], layout=" + layout + ")]";
  auto p = parse(program(
      "    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)\n"
      "    def main(self, x: " + x_type + ") -> " + ret + ":\n" + body + "        return r\n"));
  auto x = buffer("x", 8);
  std::vector<interp::Value> out = interp::Interpreter(p).call("main", {TensorRef{x}});
  REQUIRE(out.size() == 1);
  std::vector<double> v;
  if (const interp::Scalar* s = out[0].scalar()) {
    v.push_back(s->defined ? s->value : -999.0);
    return v;
  }
  REQUIRE(out[0].tensor() != nullptr);
  const Buffer& b = *out[0].tensor()->buffer;
  for (std::size_t i = 0; i < b.data.size(); ++i) v.push_back(b.defined[i] ? b.data[i] : -999.0);
  return v;
}

}  // namespace

// Issue 34: orchestration's tensor arithmetic, reductions and element access run, reading
// each operand through its type (a DN tensor column by column).
TEST_CASE("interp: tensor element-wise ops, reductions, tensor.read and tensor.write") {
  // 3x, element [1, 3] overwritten, then row sums: 0+3+6+9, 12+15+18+100.
  CHECK(run_tensor_ops("        y: pl.Tensor[[2, 4], pl.FP32] = pl.tensor.muls(x, 2.0)\n"
                       "        z: pl.Tensor[[2, 4], pl.FP32] = pl.tensor.add(x, y)\n"
                       "        w: pl.Tensor[[2, 4], pl.FP32] = pl.tensor.write(z, [1, 3], 100.0)\n"
                       "        r: pl.Tensor[[2, 1], pl.FP32] = pl.tensor.row_sum(w)\n",
                       "pl.Tensor[[2, 1], pl.FP32]") == std::vector<double>{18.0, 145.0});
  CHECK(run_tensor_ops("        r: pl.Tensor[[4], pl.FP32] = pl.tensor.col_sum(x, keep_dim=False)\n",
                       "pl.Tensor[[4], pl.FP32]") == std::vector<double>{4.0, 6.0, 8.0, 10.0});
  CHECK(run_tensor_ops("        r: pl.Tensor[[1, 4], pl.INT32] = pl.tensor.col_argmax(x)\n",
                       "pl.Tensor[[1, 4], pl.INT32]") == std::vector<double>{1.0, 1.0, 1.0, 1.0});
  CHECK(run_tensor_ops("        r: pl.Tensor[[2, 1], pl.INT32] = pl.tensor.row_argmin(x)\n",
                       "pl.Tensor[[2, 1], pl.INT32]") == std::vector<double>{0.0, 0.0});
  // A [1, 4] row broadcast over both rows.
  CHECK(run_tensor_ops("        c: pl.Tensor[[1, 4], pl.FP32] = pl.tensor.col_max(x)\n"
                       "        r: pl.Tensor[[2, 4], pl.FP32] = pl.tensor.sub(x, c)\n",
                       "pl.Tensor[[2, 4], pl.FP32]") == std::vector<double>{-4, -4, -4, -4, 0, 0, 0, 0});
  // A DN tensor holds [2, 4] column by column: element [0, 1] is buffer element 2.
  CHECK(run_tensor_ops("        e: pl.Scalar[pl.FP32] = pl.tensor.read(x, [0, 1])\n"
                       "        r: pl.Tensor[[2, 1], pl.FP32] = pl.tensor.row_max(x)\n",
                       "pl.Tensor[[2, 1], pl.FP32]", "pl.TensorLayout.DN") == std::vector<double>{6.0, 7.0});
  CHECK(run_tensor_ops("        r: pl.Scalar[pl.FP32] = pl.tensor.read(x, [0, 1])\n", "pl.Scalar[pl.FP32]",
                       "pl.TensorLayout.DN") == std::vector<double>{2.0});
}

// Issue 34: tensor.slice reads its window through the source's type into a fresh tensor.
TEST_CASE("interp: tensor.slice reads its window; drop_dims and valid_shape shape it; a write into it is refused") {
  CHECK(run_tensor_ops("        r: pl.Tensor[[1, 2], pl.FP32] = pl.tensor.slice(x, [1, 2], [1, 1])\n",
                       "pl.Tensor[[1, 2], pl.FP32]") == std::vector<double>{5.0, 6.0});
  CHECK(run_tensor_ops("        r: pl.Tensor[[2], pl.FP32] = pl.tensor.slice(x, [1, 2], [1, 1], [], [0])\n",
                       "pl.Tensor[[2], pl.FP32]") == std::vector<double>{5.0, 6.0});
  // Column-major source: [1, 1] and [1, 2] are buffer elements 3 and 5; only [1, 1] is valid.
  CHECK(run_tensor_ops("        r: pl.Tensor[[1, 2], pl.FP32, pl.TensorView(valid_shape=[1, 1], stride=[], layout=pl.TensorLayout.ND)] = "
                       "pl.tensor.slice(x, [1, 2], [1, 1], [1, 1])\n",
                       "pl.Tensor[[1, 2], pl.FP32]", "pl.TensorLayout.DN") == std::vector<double>{3.0, -999.0});
  // A write into a slice, which upstream's view would pass to the source, refuses to run.
  CHECK_THROWS_WITH_AS(run_tensor_ops("        s: pl.Tensor[[1, 2], pl.FP32] = pl.tensor.slice(x, [1, 2], [0, 0])\n"
                       "        w: pl.Tensor[[1, 2], pl.FP32] = pl.tensor.write(s, [0, 0], 50.0)\n"
                       "        r: pl.Scalar[pl.FP32] = pl.tensor.read(x, [0, 0])\n",
                       "pl.Scalar[pl.FP32]"),
                       doctest::Contains("writes through a tensor.slice or tensor.reinterpret_view are not modelled"), interp::RunError);
}

// Issue 34: tensor.reinterpret_view reads the bytes of the elements as another dtype, along
// the contiguous axis: a DN tensor's columns, so its buffer reads as the same bytes either way;
// tensor.alloc names an allocation and computes nothing.
TEST_CASE("interp: tensor.reinterpret_view reads the same bytes as another dtype; tensor.alloc") {
  // x[0, 1] = 1.0f = 0x3F800000: INT16 lanes 0 and 16256 (little-endian).
  auto nd = run_tensor_ops("        r: pl.Tensor[[2, 8], pl.INT16] = pl.tensor.reinterpret_view(x, dtype=pl.INT16)\n",
                           "pl.Tensor[[2, 8], pl.INT16]");
  CHECK(std::vector<double>(nd.begin(), nd.begin() + 4) == std::vector<double>{0, 0, 0, 16256});
  const std::string dn_t = "pl.Tensor[[4, 4], pl.INT16, pl.TensorView(stride=[], layout=pl.TensorLayout.DN)]";
  auto dn = run_tensor_ops("        r: " + dn_t + " = pl.tensor.reinterpret_view(x, dtype=pl.INT16)\n", dn_t, "pl.TensorLayout.DN");
  CHECK(dn == nd);
  CHECK(run_tensor_ops("        p: pl.Ptr = pl.tensor.alloc(pl.Mem.DDR, 64)\n        r: pl.Scalar[pl.FP32] = pl.tensor.read(x, [1, 0])\n",
                       "pl.Scalar[pl.FP32]") == std::vector<double>{4.0});
  CHECK_THROWS_WITH_AS(run_tensor_ops("        v: pl.Tensor[[2, 8], pl.INT16] = pl.tensor.reinterpret_view(x, dtype=pl.INT16)\n"
                                      "        w: pl.Tensor[[2, 8], pl.INT16] = pl.tensor.write(v, [0, 0], pl.const(5, pl.INT16))\n"
                                      "        r: pl.Scalar[pl.FP32] = pl.tensor.read(x, [0, 0])\n",
                                      "pl.Scalar[pl.FP32]"),
                       doctest::Contains("are not modelled"), interp::RunError);
}

// Issue 34: tensor.exp/cast/transpose run as their tile counterparts on the elements read
// through each operand's type; tensor.matmul and tensor.assemble (in place, as upstream's
// result keeps the target's memory).
TEST_CASE("interp: tensor.exp, cast, transpose, matmul and assemble") {
  auto e = run_tensor_ops("        r: pl.Tensor[[2, 4], pl.FP32] = pl.tensor.exp(x)\n", "pl.Tensor[[2, 4], pl.FP32]");
  CHECK(e[1] == doctest::Approx(std::exp(1.0)).epsilon(1e-6));
  // 0, 0.5, 1, 1.5, … rounded half away from zero (mode 2).
  CHECK(run_tensor_ops("        h: pl.Tensor[[2, 4], pl.FP32] = pl.tensor.muls(x, 0.5)\n"
                       "        r: pl.Tensor[[2, 4], pl.INT32] = pl.tensor.cast(h, target_type=pl.INT32, mode=2)\n",
                       "pl.Tensor[[2, 4], pl.INT32]") == std::vector<double>{0, 1, 1, 2, 2, 3, 3, 4});
  CHECK(run_tensor_ops("        r: pl.Tensor[[4, 2], pl.FP32] = pl.tensor.transpose(x, 0, 1)\n", "pl.Tensor[[4, 2], pl.FP32]") ==
        std::vector<double>{0, 4, 1, 5, 2, 6, 3, 7});
  // x times its transpose.
  CHECK(run_tensor_ops("        r: pl.Tensor[[2, 2], pl.FP32] = pl.tensor.matmul(x, x, b_trans=True)\n",
                       "pl.Tensor[[2, 2], pl.FP32]") == std::vector<double>{14, 38, 38, 126});
  // [1, 2] written at [1, 2] of zeros; added at [0, 0] of x.
  CHECK(run_tensor_ops("        y: pl.Tensor[[2, 4], pl.FP32] = pl.tensor.muls(x, 0.0)\n"
                       "        s: pl.Tensor[[1, 2], pl.FP32] = pl.tensor.slice(x, [1, 2], [0, 1])\n"
                       "        r: pl.Tensor[[2, 4], pl.FP32] = pl.tensor.assemble(y, s, [1, 2])\n",
                       "pl.Tensor[[2, 4], pl.FP32]") == std::vector<double>{0, 0, 0, 0, 0, 0, 1, 2});
  CHECK(run_tensor_ops("        y: pl.Tensor[[2, 4], pl.FP32] = pl.tensor.muls(x, 1.0)\n"
                       "        s: pl.Tensor[[1, 2], pl.FP32] = pl.tensor.slice(x, [1, 2], [0, 1])\n"
                       "        r: pl.Tensor[[2, 4], pl.FP32] = pl.tensor.assemble(y, s, [0, 0], atomic=1)\n",
                       "pl.Tensor[[2, 4], pl.FP32]") == std::vector<double>{1, 3, 2, 3, 4, 5, 6, 7});
}

// Issue 34: a value too large to allocate is refused up front, located, with its size.
TEST_CASE("interp: a tensor beyond the allocation budget is refused, located, before anything runs") {
  auto big = program(kIncore + R"(    def kernel(x: pl.Tensor[[8192, 8192], pl.FP32], out_0: pl.Out[pl.Tensor[[2, 8], pl.FP32]]) -> pl.Tensor[[2, 8], pl.FP32]:
        t: pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [2, 8], [2, 8], target_memory=pl.Mem.Vec)
        out_1 = pl.tile.store(t, [0, 0], out_0)
        return out_1
)");
  auto r = equivalent(big, big);
  CHECK(r.status == interp::EquivalenceReport::Status::unsupported);
  CHECK(r.message.find("parameter 'x' [8192, 8192] needs 67108864 elements") != std::string::npos);
  CHECK(interp::element_count({1 << 30, 1 << 30, 1 << 30}) == INT64_MAX);  // saturates, never overflows
}
