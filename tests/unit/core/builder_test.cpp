// The C++ program builder (issue 2, item 2): programs built in C++ are the programs the
// parser reads from the same kernel written in pl text.
#include <doctest/doctest.h>

#include "tilewright/build/builder.hpp"
#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/text/parser.hpp"
#include "tilewright/text/printer.hpp"

using namespace tilewright;
using ir::DataType;
using ir::MemorySpace;

namespace {

ir::Program parse(const std::string& text) { return text::parse_program(text, "<builder test>", ops::builtin_registry()); }

void check_same(const ir::Program& built, const std::string& text) {
  ir::Program parsed = parse(text);
  auto diff = ir::structural_difference(built, parsed);
  INFO(text::print(built));
  CHECK_MESSAGE(!diff, (diff ? *diff : std::string()));
  // And the printer turns the built program into exactly the text.
  CHECK(text::print(built) == text::print(parsed));
}

const ir::Kwargs to_vec{{"target_memory", MemorySpace::Vec}};

}  // namespace

TEST_CASE("build: straight-line kernel with an orchestration caller") {
  build::ProgramBuilder program("Scale");
  auto& scale = program.function("scale", ir::FunctionType::InCore);
  auto x = scale.param("x", build::tensor({64, 64}, DataType::FP16, ir::TensorLayout::DN));
  auto out = scale.param("out_0", build::tensor({64, 64}, DataType::FP16), ir::ParamDirection::Out);
  auto t = scale.let("t", "tile.load", {x, build::ints({0, 0}), build::ints({64, 64}), build::ints({64, 64})}, to_vec);
  auto s = scale.let("s", "tile.muls", {t, build::f32(0.5)});
  scale.ret({scale.let("out_1", "tile.store", {s, build::ints({0, 0}), out})});

  auto& main = program.function("main", ir::FunctionType::Orchestration);
  auto mx = main.param("x", build::tensor({64, 64}, DataType::FP16, ir::TensorLayout::DN));
  auto mout = main.param("out_0", build::tensor({64, 64}, DataType::FP16), ir::ParamDirection::Out);
  main.ret({main.let("y", main.call_function(scale, {mx, mout}))});

  check_same(program.finish(), R"(# pypto.program: Scale
import pypto.language as pl

@pl.program
class Scale:
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[64, 64], pl.FP16, pl.TensorView(stride=[], layout=pl.TensorLayout.DN)], out_0: pl.Out[pl.Tensor[[64, 64], pl.FP16]]) -> pl.Tensor[[64, 64], pl.FP16]:
        y: pl.Tensor[[64, 64], pl.FP16] = self.scale(x, out_0)
        return y
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def scale(x: pl.Tensor[[64, 64], pl.FP16, pl.TensorView(stride=[], layout=pl.TensorLayout.DN)], out_0: pl.Out[pl.Tensor[[64, 64], pl.FP16]]) -> pl.Tensor[[64, 64], pl.FP16]:
        t: pl.Tile[[64, 64], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        s: pl.Tile[[64, 64], pl.FP16, pl.Mem.Vec] = pl.tile.muls(t, 0.5)
        out_1: pl.Tensor[[64, 64], pl.FP16] = pl.tile.store(s, [0, 0], out_0)
        return out_1)");
}

TEST_CASE("build: loop with a carried tile") {
  build::ProgramBuilder program("P");
  auto& k = program.function("kernel", ir::FunctionType::InCore);
  auto x = k.param("x", build::tensor({2, 4, 16}, DataType::FP32));
  auto out = k.param("out_0", build::tensor({2, 4, 16}, DataType::FP32), ir::ParamDirection::Out);
  auto a = k.let("a", "tile.load", {x, build::ints({0, 0, 0}), build::ints({2, 4, 16}), build::ints({2, 4, 16})}, to_vec);
  auto results = k.for_range("i", 0, 4, 1, {{"acc", a}}, [&](build::Block& body, const ir::Expr&, const auto& carried) {
    body.yield_({body.let("nxt", "tile.add", {carried[0], a})});
  });
  REQUIRE(results.size() == 1);
  k.ret({k.let("out_1", "tile.store", {results[0], build::ints({0, 0, 0}), out})});

  check_same(program.finish(), R"(# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def kernel(x: pl.Tensor[[2, 4, 16], pl.FP32], out_0: pl.Out[pl.Tensor[[2, 4, 16], pl.FP32]]) -> pl.Tensor[[2, 4, 16], pl.FP32]:
        a: pl.Tile[[2, 4, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 4, 16], [2, 4, 16], target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(4, init_values=(a,)):
            nxt: pl.Tile[[2, 4, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, a)
            acc_out: pl.Tile[[2, 4, 16], pl.FP32, pl.Mem.Vec] = pl.yield_(nxt)
        out_1: pl.Tensor[[2, 4, 16], pl.FP32] = pl.tile.store(acc_out, [0, 0, 0], out_0)
        return out_1)");
}

TEST_CASE("build: branch with a result") {
  build::ProgramBuilder program("P");
  auto& k = program.function("kernel", ir::FunctionType::InCore);
  auto x = k.param("x", build::tensor({8, 8}, DataType::FP32));
  auto flag = k.param("flag", build::scalar(DataType::INDEX));
  auto out = k.param("out_0", build::tensor({8, 8}, DataType::FP32), ir::ParamDirection::Out);
  auto a = k.let("a", "tile.load", {x, build::ints({0, 0}), build::ints({8, 8}), build::ints({8, 8})}, to_vec);
  auto r = k.if_(
      build::binary(ir::BinaryOp::Eq, flag, build::index(0)),
      [&](build::Block& b) { b.yield_({b.let("b", "tile.exp", {a})}); },
      [&](build::Block& b) { b.yield_({b.let("c", "tile.neg", {a})}); }, {"r"});
  k.ret({k.let("out_1", "tile.store", {r[0], build::ints({0, 0}), out})});

  check_same(program.finish(), R"(# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def kernel(x: pl.Tensor[[8, 8], pl.FP32], flag: pl.Scalar[pl.INDEX], out_0: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:
        a: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)
        if flag == 0:
            b: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(a)
            r: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.yield_(b)
        else:
            c: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.neg(a)
            r: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.yield_(c)
        out_1: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(r, [0, 0], out_0)
        return out_1)");
}

TEST_CASE("build: mistakes are the registry's diagnostics") {
  build::ProgramBuilder program("P");
  auto& k = program.function("kernel", ir::FunctionType::InCore);
  auto t = k.param("t", build::tile({16, 16}, DataType::FP32, MemorySpace::Vec));
  auto message = [&](auto&& f) -> std::string {
    try {
      f();
    } catch (const ir::Error& e) {
      return e.what();
    }
    return "<no error>";
  };
  CHECK(message([&] { k.let("y", "tile.exp2", {t}); }).find("tile.exp2") != std::string::npos);  // unknown op
  CHECK(message([&] { k.let("y", "tile.add", {t}); }).find("tile.add") != std::string::npos);    // arity
  CHECK(message([&] { k.let("y", "tile.add", {t, build::index(1)}); }).find("tile.add") != std::string::npos);
  CHECK(message([&] { build::binary(ir::BinaryOp::Add, build::index(1), build::f32(1.0)); }).find("cannot mix") !=
        std::string::npos);
  CHECK(message([&] {
          k.for_range("i", 0, 4, 1, {{"acc", t}}, [](build::Block&, const ir::Expr&, const auto&) {});
        }).find("must end with yield_") != std::string::npos);
}

// As the parser does (text_parser_test.cpp): the callee's Var `n` means nothing in the caller.
TEST_CASE("build: call_function binds the callee's scalar parameters in the result type to the arguments") {
  build::ProgramBuilder program("Bind");
  auto& rows = program.function("rows", ir::FunctionType::InCore);
  auto x = rows.param("x", build::tensor({8, 64}, DataType::FP32));
  auto n = rows.param("n", build::scalar(DataType::INDEX));
  rows.returns({build::tensor({n, 64}, DataType::FP32)});
  rows.ret({x});

  auto& main = program.function("main", ir::FunctionType::Orchestration);
  auto mx = main.param("x", build::tensor({8, 64}, DataType::FP32));
  auto m = main.param("m", build::scalar(DataType::INDEX));
  auto fixed = main.call_function(rows, {mx, build::index(4)});
  auto passed = main.call_function(rows, {mx, m});
  CHECK(ir::const_int(ir::as<ir::TensorType>(fixed->type)->shape.at(0)) == 4);
  CHECK(ir::as<ir::TensorType>(passed->type)->shape.at(0) == m);
  CHECK(ir::as<ir::TensorType>(rows.finish()->return_types[0])->shape.at(0) == n);
}
