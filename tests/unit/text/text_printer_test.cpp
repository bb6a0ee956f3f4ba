// The `pl` printer: every rule of shared/spec/text_format.md §1–§5 on hand-built IR,
// compared byte for byte with what upstream's raw printer emits.
#include <cstdio>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include <tilewright/text/printer.hpp>

namespace {

using namespace tilewright;
using namespace tilewright::ir;
using text::print;

Expr idx(std::int64_t v) { return make_int(v); }
Expr scalar_var(const std::string& n, DataType dt = DataType::INDEX) {
  return make_var(n, scalar_type(dt));
}
Type tensor(std::vector<std::int64_t> dims, DataType dt = DataType::FP32,
            std::optional<TensorView> view = std::nullopt, Expr memref = nullptr) {
  std::vector<Expr> shape;
  for (auto d : dims) shape.push_back(idx(d));
  return make_tensor_type(std::move(shape), dt, std::move(view), std::move(memref));
}
Type tile(std::vector<std::int64_t> dims, DataType dt = DataType::FP32,
          std::optional<MemorySpace> mem = MemorySpace::Vec,
          std::optional<TileView> view = std::nullopt, Expr memref = nullptr) {
  std::vector<Expr> shape;
  for (auto d : dims) shape.push_back(idx(d));
  return make_tile_type(std::move(shape), dt, std::move(view), mem, std::move(memref));
}
Expr list(std::vector<std::int64_t> xs) {
  std::vector<Expr> es;
  for (auto x : xs) es.push_back(idx(x));
  return make_tuple(std::move(es));
}
Expr bin(BinaryOp op, Expr a, Expr b) {
  Type t = a->type;
  if (op >= BinaryOp::Eq && op <= BinaryOp::Or) t = scalar_type(DataType::BOOL);
  return make_expr(Binary{op, std::move(a), std::move(b)}, std::move(t));
}
Expr un(UnaryOp op, Expr a, Type t = nullptr) {
  if (!t) t = a->type;
  return make_expr(Unary{op, std::move(a)}, std::move(t));
}
Expr op_call(std::string_view op, std::vector<Expr> args, Kwargs kw, Type t, Kwargs attrs = {}) {
  return make_call(intern_op(op), std::move(args), std::move(kw), std::move(t), {},
                   std::move(attrs));
}
Stmt assign(Expr v, Expr value) { return make_stmt(Assign{std::move(v), std::move(value)}); }
Stmt eval(Expr e) { return make_stmt(Eval{std::move(e)}); }
Stmt ret(std::vector<Expr> vs) { return make_stmt(Return{std::move(vs)}); }
Stmt yield(std::vector<Expr> vs) { return make_stmt(Yield{std::move(vs)}); }
Stmt seq(std::vector<Stmt> ss) { return make_seq(std::move(ss)); }

Function fn(std::string name, std::vector<Param> params, std::vector<Type> rets, Stmt body,
            FunctionType type = FunctionType::Opaque, std::optional<Level> level = std::nullopt,
            std::optional<Role> role = std::nullopt, Kwargs attrs = {}) {
  return make_function(FunctionNode{std::move(name),
                                    std::move(params),
                                    std::move(rets),
                                    std::move(body),
                                    type,
                                    level,
                                    role,
                                    std::move(attrs),
                                    {}});
}

const char* kHeader = "# pypto.program: P\nimport pypto.language as pl\n\n";

}  // namespace

TEST_CASE("printer: %.17g float literals match printf and gain .0 (§4.1)") {
  for (double v : {0.5, 0.0, 2.0, 0.1, 1e17, 1e-5, 123456789.125, -3.0, 1e300, 5e-324, 1.0 / 3}) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    std::string expected = buf;
    if (expected.find_first_of(".eE") == std::string::npos) expected += ".0";
    CHECK(print(make_float(v)) == expected);
  }
  CHECK(print(make_float(0.1)) == "0.10000000000000001");
  CHECK(print(make_float(1e17)) == "1e+17");
  CHECK(print(make_float(1e-5)) == "1.0000000000000001e-05");
  CHECK(print(make_float(2.0)) == "2.0");
}

TEST_CASE("printer: constants (§4.1)") {
  CHECK(print(idx(42)) == "42");
  CHECK(print(idx(-1)) == "-1");
  CHECK(print(make_int(42, DataType::INT32)) == "pl.const(42, pl.INT32)");
  CHECK(print(make_int(-7, DataType::INT64)) == "pl.const(-7, pl.INT64)");
  CHECK(print(make_float(1.5, DataType::FP16)) == "pl.const(1.5, pl.FP16)");
  CHECK(print(make_float(1.0, DataType::FP16)) == "pl.const(1.0, pl.FP16)");
  CHECK(print(make_bool(true)) == "True");
  CHECK(print(make_bool(false)) == "False");
}

TEST_CASE("printer: all-constant trees print typed leaves, mixed trees bare (§4.1)") {
  CHECK(print(bin(BinaryOp::Add, idx(32), idx(32))) ==
        "pl.const(32, pl.INDEX) + pl.const(32, pl.INDEX)");
  auto a = scalar_var("a");
  CHECK(print(bin(BinaryOp::Add, bin(BinaryOp::Mul, a, idx(16)), idx(3))) == "a * 16 + 3");
  // A constant subtree inside a mixed tree is itself all-constant.
  CHECK(print(bin(BinaryOp::Add, a, bin(BinaryOp::Mul, idx(3), idx(4)))) ==
        "a + pl.const(3, pl.INDEX) * pl.const(4, pl.INDEX)");
}

TEST_CASE("printer: operators and parenthesisation (§4.3)") {
  auto a = scalar_var("a"), b = scalar_var("b");
  auto x = scalar_var("x", DataType::FP32), y = scalar_var("y", DataType::FP32);
  CHECK(print(bin(BinaryOp::FloorMod,
                  bin(BinaryOp::FloorDiv,
                      bin(BinaryOp::Mul, bin(BinaryOp::Add, a, b), bin(BinaryOp::Sub, a, idx(2))),
                      idx(4)),
                  idx(3))) == "(a + b) * (a - 2) // 4 % 3");
  CHECK(print(bin(BinaryOp::Sub, a, bin(BinaryOp::Sub, b, idx(1)))) == "a - (b - 1)");
  CHECK(print(bin(BinaryOp::Sub, bin(BinaryOp::FloatDiv, x, y), un(UnaryOp::Neg, x))) ==
        "x / y - -x");
  auto c1 = bin(
      BinaryOp::Or,
      bin(BinaryOp::And, bin(BinaryOp::Le, a, b), un(UnaryOp::Not, bin(BinaryOp::Eq, a, idx(3)))),
      bin(BinaryOp::Ne, b, idx(2)));
  CHECK(print(c1) == "a <= b and not a == 3 or b != 2");
  CHECK(print(bin(BinaryOp::Add, bin(BinaryOp::Min, a, b), bin(BinaryOp::Max, a, idx(16)))) ==
        "pl.min(a, b) + pl.max(a, 16)");
  CHECK(print(un(UnaryOp::Cast, a, scalar_type(DataType::INT32))) == "pl.cast(a, pl.INT32)");
  CHECK(print(bin(BinaryOp::Add, bin(BinaryOp::Shl, a, idx(2)), bin(BinaryOp::Shr, b, idx(1)))) ==
        "(a << 2) + (b >> 1)");
  CHECK(print(un(UnaryOp::Neg, bin(BinaryOp::Add, x, make_float(1.0)))) == "-(x + 1.0)");
  CHECK(print(un(UnaryOp::BitNot, a)) == "~a");
  CHECK(print(un(UnaryOp::Abs, a)) == "abs(a)");
  // ** is right-associative: the left child is parenthesised at equal precedence.
  CHECK(print(bin(BinaryOp::Pow, bin(BinaryOp::Pow, a, b), idx(2))) == "(a ** b) ** 2");
  CHECK(print(bin(BinaryOp::Pow, a, bin(BinaryOp::Pow, b, idx(2)))) == "a ** b ** 2");
  CHECK(print(bin(BinaryOp::Xor, a, b)) == "a xor b");
  CHECK(print(bin(BinaryOp::BitOr, bin(BinaryOp::BitAnd, a, b), bin(BinaryOp::BitXor, a, b))) ==
        "a & b | a ^ b");
}

TEST_CASE("printer: tuples (§4.4)") {
  auto a = scalar_var("a"), b = scalar_var("b");
  CHECK(print(make_tuple({a, b})) == "[a, b]");
  CHECK(print(make_tuple({})) == "[]");
  auto t = make_var("t", make_type(TupleType{{a->type, b->type}}));
  CHECK(print(make_expr(TupleGetItem{t, 1}, a->type)) == "t[1]");
}

TEST_CASE("printer: scalar, tensor and other types (§2.1–§2.4, §2.8)") {
  CHECK(print(scalar_type(DataType::INDEX)) == "pl.Scalar[pl.INDEX]");
  CHECK(print(scalar_type(DataType::FP8E4M3FN)) == "pl.Scalar[pl.FP8E4M3FN]");
  CHECK(print(tensor({16, 32})) == "pl.Tensor[[16, 32], pl.FP32]");
  // A top-level ConstInt dim prints bare whatever its dtype (§2.6).
  CHECK(print(make_tensor_type({make_int(4, DataType::INT64)}, DataType::FP16)) ==
        "pl.Tensor[[4], pl.FP16]");
  CHECK(print(tensor({8, 16}, DataType::FP32,
                     TensorView{{}, {idx(1), idx(8)}, TensorLayout::DN, PadValue::null})) ==
        "pl.Tensor[[8, 16], pl.FP32, pl.TensorView(stride=[1, 8], layout=pl.TensorLayout.DN)]");
  // stride= and layout= always print together, even an empty stride (§2.3).
  CHECK(print(tensor({8, 16}, DataType::FP32,
                     TensorView{{idx(4), idx(16)}, {}, TensorLayout::ND, PadValue::zero})) ==
        "pl.Tensor[[8, 16], pl.FP32, pl.TensorView(valid_shape=[4, 16], stride=[], "
        "layout=pl.TensorLayout.ND, pad=pl.PadValue.zero)]");
  CHECK(print(tensor({8, 16}, DataType::FP32,
                     TensorView{{idx(8), idx(16)}, {}, TensorLayout::ND, PadValue::null})) ==
        "pl.Tensor[[8, 16], pl.FP32]");
  Type dist = make_tensor_type({idx(4), idx(8)}, DataType::FP16,
                               TensorView{{}, {}, TensorLayout::DN, PadValue::null}, nullptr, true);
  CHECK(print(dist) ==
        "pld.DistributedTensor[[4, 8], pl.FP16, pl.TensorView(stride=[], "
        "layout=pl.TensorLayout.DN)]");
  CHECK(print(make_type(ArrayType{DataType::INT32, 4})) == "pl.Array[4, pl.INT32]");
  CHECK(print(make_type(TupleType{})) == "pl.Tuple[()]");
  CHECK(print(make_type(TupleType{{tensor({8}), scalar_type(DataType::TASK_ID)}})) ==
        "pl.Tuple[pl.Tensor[[8], pl.FP32], pl.Scalar[pl.TASK_ID]]");
  CHECK(print(marker_type(Marker::Ptr)) == "pl.Ptr");
  CHECK(print(marker_type(Marker::MemRefType)) == "pl.MemRefType");
  CHECK(print(marker_type(Marker::WindowBufferType)) == "pld.WindowBufferType");
  CHECK(print(unknown_type()) == "pl.UnknownType");
}

TEST_CASE("printer: composite dims print typed constant leaves (§2.6)") {
  auto m = scalar_var("M");
  CHECK(print(make_tensor_type({bin(BinaryOp::Mul, m, idx(4)), idx(16)}, DataType::FP32)) ==
        "pl.Tensor[[M * pl.const(4, pl.INDEX), 16], pl.FP32]");
  auto s = scalar_var("s"), c = scalar_var("c");
  TileView v = implicit_view({idx(16), idx(512)}, MemorySpace::Vec);
  v.valid_shape = {bin(BinaryOp::Min, idx(16), bin(BinaryOp::Sub, s, c)), idx(512)};
  CHECK(print(make_tile_type({idx(16), idx(512)}, DataType::FP32, v, MemorySpace::Vec)) ==
        "pl.Tile[[16, 512], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[pl.min(pl.const(16, "
        "pl.INDEX), s - c), 512])]");
}

TEST_CASE("printer: tile types and TileView fields against the implicit view (§2.5)") {
  CHECK(print(tile({16, 16})) == "pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec]");
  CHECK(print(tile({16, 16}, DataType::FP32, std::nullopt)) == "pl.Tile[[16, 16], pl.FP32]");
  TileView v = implicit_view({idx(16), idx(16)}, MemorySpace::Vec);
  v.valid_shape = {idx(8), idx(16)};
  v.pad = PadValue::zero;
  CHECK(print(tile({16, 16}, DataType::FP32, MemorySpace::Vec, v)) ==
        "pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, 16], "
        "pad=pl.PadValue.zero)]");
  // Only the fields that differ from the implicit (Vec: row_major, none_box, 512) view.
  TileView acc_like = implicit_view({idx(16), idx(16)}, MemorySpace::Acc);
  CHECK(print(tile({16, 16}, DataType::FP32, MemorySpace::Vec, acc_like)) ==
        "pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, "
        "slayout=pl.TileLayout.row_major, fractal=1024)]");
  // The implicit view itself is canonicalised away.
  CHECK(print(tile({128, 128}, DataType::FP32, MemorySpace::Acc, acc_like)) ==
        "pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc]");
  TileView mat = implicit_view({idx(16), idx(16)}, MemorySpace::Mat);
  mat.blayout = TileLayout::row_major;
  CHECK(print(tile({16, 16}, DataType::FP32, MemorySpace::Mat, mat)) ==
        "pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major)]");
  TileView more = implicit_view({idx(16), idx(16)}, MemorySpace::Vec);
  more.stride = {idx(16), idx(1)};
  more.start_offset = idx(8);
  CHECK(print(tile({16, 16}, DataType::FP32, MemorySpace::Vec, more)) ==
        "pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(stride=[16, 1], start_offset=8)]");
  TileView compact = implicit_view({idx(16), idx(16)}, MemorySpace::Acc);
  compact.valid_shape = {idx(4), idx(16)};
  compact.compact = CompactMode::normal;
  CHECK(print(tile({16, 16}, DataType::INT32, MemorySpace::Acc, compact)) ==
        "pl.Tile[[16, 16], pl.INT32, pl.Mem.Acc, pl.TileView(valid_shape=[4, 16], "
        "compact=pl.CompactMode.normal)]");
  // [R, 1] column vectors are col_major by the shape rule; a row_major view must print.
  TileView col = implicit_view({idx(16), idx(1)}, MemorySpace::Vec);
  CHECK(col.blayout == TileLayout::col_major);
  col.blayout = TileLayout::row_major;
  CHECK(print(tile({16, 1}, DataType::FP32, MemorySpace::Vec, col)) ==
        "pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.row_major)]");
}

TEST_CASE("printer: memrefs in signature and body (§2.7)") {
  auto ddr0 = make_var("mem_ddr_0", marker_type(Marker::Ptr));
  auto vec2 = make_var("mem_vec_2", marker_type(Marker::Ptr));
  auto mr = [](Expr base, Expr off, std::uint64_t size, std::int64_t slots = 1,
               Expr slot = nullptr) {
    return make_expr(MemRef{std::move(base), std::move(off), size, false, slots, std::move(slot)},
                     marker_type(Marker::MemRefType));
  };
  auto x = make_var("x", tensor({16, 64}, DataType::FP32, std::nullopt, mr(ddr0, idx(0), 4096)));
  auto a = make_var("a", tile({16, 64}, DataType::FP32, MemorySpace::Vec, std::nullopt,
                              mr(vec2, make_int(0, DataType::INT64), 4096)));
  auto i = scalar_var("i");
  auto slot = bin(BinaryOp::FloorMod, i, idx(2));
  auto b = make_var("b", tile({16, 64}, DataType::FP32, MemorySpace::Vec, std::nullopt,
                              mr(vec2, bin(BinaryOp::Mul, slot, idx(4096)), 4096, 2, slot)));
  auto ping = make_var("ping", marker_type(Marker::Ptr));
  auto c = make_var("c", tile({16, 64}, DataType::FP32, MemorySpace::Vec, std::nullopt,
                              make_expr(MemRef{ping, nullptr, 0, true, 1, nullptr},
                                        marker_type(Marker::MemRefType))));
  auto alloc = op_call("tile.alloc", {idx(static_cast<int>(MemorySpace::Vec)), idx(8192)}, {},
                       marker_type(Marker::Ptr));
  auto pinned = op_call("tile.alloc", {idx(static_cast<int>(MemorySpace::Vec)), idx(4096)},
                        {{"pinned", true}}, marker_type(Marker::Ptr));
  auto load = op_call("tile.load", {x}, {}, a->type);
  auto body = seq({assign(vec2, alloc), assign(ping, pinned), assign(a, load), assign(i, idx(1)),
                   assign(b, op_call("tile.exp", {a}, {}, b->type)),
                   assign(c, op_call("tile.exp", {b}, {}, c->type)), ret({a})});
  auto f = fn("k", {{x, ParamDirection::In}}, {a->type}, body, FunctionType::InCore,
              Level::CHIP_DIE, Role::SubWorker);
  CHECK(
      print(f) ==
      "@pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)\n"
      "def k(x: pl.Tensor[[16, 64], pl.FP32, pl.MemRef(\"mem_ddr_0\", 0, 4096)]) -> pl.Tile[[16, "
      "64], pl.FP32, pl.MemRef(\"mem_vec_2\", pl.const(0, pl.INT64), 4096), pl.Mem.Vec]:\n"
      "    mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)\n"
      "    ping: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, pinned=True)\n"
      "    a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), "
      "pl.Mem.Vec] = pl.tile.load(x)\n"
      "    i: pl.Scalar[pl.INDEX] = 1\n"
      "    b: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, i % 2 * 4096, 4096, slots=2)[i % 2], "
      "pl.Mem.Vec] = pl.tile.exp(a)\n"
      "    c: pl.Tile[[16, 64], pl.FP32, pl.MemRef(\"ping\"), pl.Mem.Vec] = pl.tile.exp(b)\n"
      "    return a");
  // A standalone type has no body: every base is quoted.
  CHECK(print(a->type) ==
        "pl.Tile[[16, 64], pl.FP32, pl.MemRef(\"mem_vec_2\", pl.const(0, pl.INT64), 4096), "
        "pl.Mem.Vec]");
}

TEST_CASE("printer: program header, decorators, self and SubWorker (§1.1, §1.2, §1.4)") {
  auto x = make_var("x", tensor({4, 4}, DataType::FP16));
  auto sub = fn("sub", {{x, ParamDirection::In}}, {x->type}, ret({x}), FunctionType::AIV,
                Level::AIV, Role::SubWorker, {{"auto_scope", false}});
  auto x2 = make_var("x", tensor({4, 4}, DataType::FP16));
  auto y = make_var("y", x2->type);
  auto host = fn("host", {{x2, ParamDirection::In}}, {x2->type},
                 seq({assign(y, make_function_call("sub", {x2}, y->type)), ret({y})}),
                 FunctionType::Orchestration, Level::CHIP, Role::Orchestrator);
  auto x3 = make_var("x", tensor({4, 4}, DataType::FP16));
  auto plain = fn("plain", {{x3, ParamDirection::In}}, {x3->type}, ret({x3}), FunctionType::Opaque,
                  std::nullopt, std::nullopt,
                  {{"auto_scope", false}, {"external_source", std::string("a\"b.py")}});
  auto p = make_program("P", {sub, host, plain});
  CHECK(print(p) ==
        std::string(kHeader) +
            "@pl.program\n"
            "class P:\n"
            "    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, "
            "role=pl.Role.SubWorker, auto_scope=False)\n"
            "    def sub(x: pl.Tensor[[4, 4], pl.FP16]) -> pl.Tensor[[4, 4], pl.FP16]:\n"
            "        return x\n"
            "    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, "
            "role=pl.Role.Orchestrator)\n"
            "    def host(self, x: pl.Tensor[[4, 4], pl.FP16]) -> pl.Tensor[[4, 4], pl.FP16]:\n"
            "        y: pl.Tensor[[4, 4], pl.FP16] = self.sub(x)\n"
            "        return y\n"
            "    @pl.function(auto_scope=False, external_source=\"a\\\"b.py\")\n"
            "    def plain(self, x: pl.Tensor[[4, 4], pl.FP16]) -> pl.Tensor[[4, 4], pl.FP16]:\n"
            "        return x");
  // Bare function: no self, bare call.
  CHECK(print(host) ==
        "@pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, "
        "role=pl.Role.Orchestrator)\n"
        "def host(x: pl.Tensor[[4, 4], pl.FP16]) -> pl.Tensor[[4, 4], pl.FP16]:\n"
        "    y: pl.Tensor[[4, 4], pl.FP16] = sub(x)\n"
        "    return y");
  // A class needs a body to read back: an empty program gets `pass` (upstream prints none).
  CHECK(print(make_program("", {})) ==
        "# pypto.program: Program\nimport pypto.language as pl\n\n@pl.program\nclass Program:\n    pass");
}

TEST_CASE("printer: topological function order, callees first in name order (§1.1)") {
  auto mk = [](std::string name, std::vector<std::string> callees) {
    std::vector<Stmt> body;
    for (auto& c : callees) body.push_back(eval(make_function_call(c, {}, unknown_type())));
    body.push_back(ret({}));
    return fn(std::move(name), {}, {}, seq(std::move(body)));
  };
  auto p = make_program(
      "P", {mk("main", {"zeta", "beta"}), mk("zeta", {"alpha"}), mk("beta", {}), mk("alpha", {})});
  std::string s = print(p);
  auto pos = [&](const char* n) { return s.find(std::string("def ") + n + "("); };
  CHECK(pos("alpha") < pos("beta"));
  CHECK(pos("beta") < pos("zeta"));
  CHECK(pos("zeta") < pos("main"));
  // A cycle falls back to name order.
  auto q = make_program("P", {mk("b", {"a"}), mk("a", {"b"}), mk("c", {})});
  std::string t = print(q);
  CHECK(t.find("def a(") < t.find("def b("));
  CHECK(t.find("def b(") < t.find("def c("));
}

TEST_CASE("printer: func_attr prologue, directions and returns (§1.3, §1.4, §1.5)") {
  auto a = make_var("a", tensor({4}, DataType::INT32));
  auto b = make_var("b", tensor({4}, DataType::INT32));
  auto c = make_var("c", tensor({4}, DataType::INT32));
  auto s = scalar_var("s", DataType::FP32);
  auto f = fn("f",
              {{a, ParamDirection::In},
               {b, ParamDirection::Out},
               {c, ParamDirection::InOut},
               {s, ParamDirection::In}},
              {a->type, s->type}, seq({ret({a, s})}), FunctionType::Opaque, std::nullopt,
              std::nullopt, {{"split", EnumText{"pl.SplitMode.UP_DOWN"}}, {"stationary", a}});
  CHECK(print(f) ==
        "@pl.function\n"
        "def f(a: pl.Tensor[[4], pl.INT32], b: pl.Out[pl.Tensor[[4], pl.INT32]], c: "
        "pl.InOut[pl.Tensor[[4], pl.INT32]], s: pl.Scalar[pl.FP32]) -> tuple[pl.Tensor[[4], "
        "pl.INT32], pl.Scalar[pl.FP32]]:\n"
        "    pl.func_attr({\"split\": pl.SplitMode.UP_DOWN, \"stationary\": a})\n"
        "    return a, s");
  auto g = fn("g", {}, {}, seq({}), FunctionType::Opaque, std::nullopt, std::nullopt,
              {{"split", EnumText{"pl.SplitMode.NONE"}}});
  CHECK(print(g) == "@pl.function\ndef g():\n    pass");
  auto tup = make_type(TupleType{{a->type, s->type}});
  auto h = fn("h", {}, {tup}, make_stmt(Yield{{}}));
  CHECK(print(h) ==
        "@pl.function\ndef h() -> pl.Tuple[pl.Tensor[[4], pl.INT32], pl.Scalar[pl.FP32]]:\n    "
        "return");
}

TEST_CASE("printer: op calls, prefixes and kwarg encodings (§4.5)") {
  auto t = make_var("t", tile({16, 64}));
  auto ty = tile({16, 64}, DataType::FP16);
  CHECK(print(op_call("tile.cast", {t},
                      {{"target_type", DataType::FP16}, {"mode", std::int64_t{2}}}, ty)) ==
        "pl.tile.cast(t, target_type=pl.FP16, mode='round')");
  CHECK(print(op_call("tile.cast", {t},
                      {{"target_type", DataType::FP16}, {"mode", std::int64_t{6}}}, ty)) ==
        "pl.tile.cast(t, target_type=pl.FP16, mode='odd')");
  CHECK(print(op_call("system.sync_src", {},
                      {{"set_pipe", std::int64_t{1}},
                       {"wait_pipe", std::int64_t{4}},
                       {"event_id", std::int64_t{0}}},
                      unknown_type())) ==
        "pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)");
  CHECK(print(op_call("system.sync_set", {idx(1)}, {{"pipe", std::int64_t{4}}}, unknown_type())) ==
        "pl.system.sync_set(1, pipe=pl.PipeType.V)");
  CHECK(print(op_call("tile.foo", {}, {{"pipe", std::int64_t{4}}}, unknown_type())) ==
        "pl.tile.foo(pipe=4)");
  CHECK(print(op_call("tile.store", {t}, {{"atomic", std::int64_t{1}}}, unknown_type())) ==
        "pl.tile.store(t, atomic=pl.AtomicType.Add)");
  // Upstream prints op kwarg strings raw (`s='it's'`), which no reader accepts; the quote is
  // escaped here so the text reads back.
  CHECK(print(op_call("tile.x", {},
                      {{"s", std::string("it's")},
                       {"f", 0.5},
                       {"b", true},
                       {"m", MemorySpace::Left},
                       {"l", TensorLayout::DN},
                       {"tl", TileLayout::col_major},
                       {"p", PadValue::zero}},
                      unknown_type())) ==
        "pl.tile.x(s='it\\'s', f=0.5, b=True, m=pl.Mem.Left, l=pl.TensorLayout.DN, "
        "tl=pl.TileLayout.col_major, p=pl.PadValue.zero)");
  // Keyword op names gain `_`; pld. ops are verbatim; dot-less names bare.
  CHECK(print(op_call("tile.and", {t, t}, {}, t->type)) == "pl.tile.and_(t, t)");
  CHECK(print(op_call("tensor.not", {t}, {}, t->type)) == "pl.tensor.not_(t)");
  CHECK(print(op_call("pld.tile.remote_store", {t}, {}, unknown_type())) ==
        "pld.tile.remote_store(t)");
  CHECK(print(op_call("foo", {t}, {}, unknown_type())) == "foo(t)");
  CHECK(print(op_call("tile.load", {t, list({0, 0}), list({16, 64}), list({16, 64})},
                      {{"target_memory", MemorySpace::Vec}}, t->type)) ==
        "pl.tile.load(t, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)");
}

TEST_CASE("printer: special call forms (§4.5)") {
  auto x = make_var("x", tensor({4, 8}));
  CHECK(print(op_call("tensor.add", {x, make_float(1.0)}, {}, x->type)) ==
        "pl.tensor.adds(x, 1.0)");
  CHECK(print(op_call("tensor.add", {x, x}, {}, x->type)) == "pl.tensor.add(x, x)");
  CHECK(print(op_call("tile.full", {list({16, 32}), make_float(0.0)}, {{"dtype", DataType::FP32}},
                      tile({16, 32}))) == "pl.tile.full([16, 32], dtype=pl.FP32, value=0.0)");
  CHECK(print(op_call("tile.full", {list({4, 32}), make_float(2.0, DataType::FP16)},
                      {{"dtype", DataType::FP16}}, tile({4, 32}, DataType::FP16))) ==
        "pl.tile.full([4, 32], dtype=pl.FP16, value=2.0)");
  CHECK(print(op_call("tensor.full", {list({4, 8}), make_float(2.5)}, {{"dtype", DataType::FP32}},
                      x->type)) == "pl.tensor.full([4, 8], dtype=pl.FP32, value=2.5)");
  auto t = make_var("t", tile({16, 32}));
  CHECK(print(op_call("tile.reinterpret_view", {t}, {{"dtype", DataType::INT32}}, t->type)) ==
        "pl.tile.reinterpret_view(t, dtype=pl.INT32)");
  CHECK(print(op_call("tile.reinterpret_view", {t, list({16, 64})}, {{"dtype", DataType::INT16}},
                      t->type)) == "pl.tile.reinterpret_view(t, dtype=pl.INT16, shape=[16, 64])");
  CHECK(print(op_call("tile.alloc", {idx(static_cast<int>(MemorySpace::Mat)), idx(4096)}, {},
                      marker_type(Marker::Ptr))) == "pl.tile.alloc(pl.Mem.Mat, 4096)");
  CHECK(print(op_call("tensor.alloc", {idx(static_cast<int>(MemorySpace::DDR)), idx(64)}, {},
                      marker_type(Marker::Ptr))) == "pl.tensor.alloc(pl.Mem.DDR, 64)");
  auto t1 = scalar_var("t1", DataType::TASK_ID), t2 = scalar_var("t2", DataType::TASK_ID);
  CHECK(print(op_call("system.task_dummy", {}, {{"deps", std::vector<Expr>{t1, t2}}}, t1->type)) ==
        "pl.system.task_dummy(deps=[t1, t2])");
  CHECK(print(op_call("system.task_dummy", {t1, t2}, {}, t1->type)) ==
        "pl.system.task_dummy(deps=[t1, t2])");
  auto ws = make_var("ws", tensor({64}, DataType::INT32));
  CHECK(print(op_call("system.syncall", {},
                      {{"mode", std::string("soft")},
                       {"core_type", std::string("aiv_only")},
                       {"gm_workspace", ws},
                       {"used_cores", std::int64_t{8}}},
                      unknown_type())) ==
        "pl.system.syncall(mode=\"soft\", core_type=\"aiv_only\", gm_workspace=ws, used_cores=8)");
  // The `name` of a window buffer is the name it is assigned to, so an assignment to that name
  // drops it; a different name, or no assignment at all, must keep it to survive a reparse.
  auto alloc = op_call("pld.tensor.alloc_window_buffer", {idx(64)}, {{"name", std::string("w")}},
                       marker_type(Marker::WindowBufferType));
  CHECK(print(assign(make_var("w", alloc->type), alloc)) ==
        "w: pld.WindowBufferType = pld.tensor.alloc_window_buffer(64)");
  CHECK(print(assign(make_var("v", alloc->type), alloc)) ==
        "v: pld.WindowBufferType = pld.tensor.alloc_window_buffer(64, name='w')");
  CHECK(print(alloc) == "pld.tensor.alloc_window_buffer(64, name='w')");
}

TEST_CASE("printer: regressions found by the parse/print fuzzer") {
  auto a = scalar_var("a"), b = scalar_var("b");
  auto f = scalar_var("f", DataType::BOOL);
  // `a < b == f` would read back as a chained comparison: comparisons nest in parentheses.
  CHECK(print(bin(BinaryOp::Eq, bin(BinaryOp::Lt, a, b), f)) == "(a < b) == f");
  CHECK(print(bin(BinaryOp::Ne, f, bin(BinaryOp::Ge, a, b))) == "f != (a >= b)");
  CHECK(print(bin(BinaryOp::And, bin(BinaryOp::Lt, a, b), f)) == "a < b and f");
  // A submit predicate is parenthesised like a scope predicate (§4.7).
  auto x = make_var("x", tensor({4}));
  auto tup = make_type(TupleType{{x->type, scalar_type(DataType::TASK_ID)}});
  auto submit = make_expr(Call{Callee{intern_op("submit"), Symbol("k")}, {x},
                               {{"predicate", bin(BinaryOp::Gt, a, idx(0))}}, {}},
                          tup);
  CHECK(print(submit) == "pl.submit(k, x, predicate=(a > 0))");
  // Strings stay Python literals whatever they hold; printable text is unchanged.
  CHECK(print(op_call("tile.gemv", {x, x}, {{"acc_phase", std::string("it's\n\\")}}, x->type)) ==
        "pl.tile.gemv(x, x, acc_phase='it\\'s\\n\\\\')");
  CHECK(print(op_call("tile.gemv", {x, x}, {{"acc_phase", std::string("plain \"text\"")}}, x->type)) ==
        "pl.tile.gemv(x, x, acc_phase='plain \"text\"')");
  CHECK(print(op_call("f", {}, {}, x->type, {{"k", std::string("a\"b\tc\x01\xc3\xa9")}})) ==
        "f(attrs={\"k\": \"a\\\"b\\tc\\x01\xc3\xa9\"})");
}

TEST_CASE("printer: attrs dicts and cross-function calls (§4.6, §4.7)") {
  auto x = make_var("x", tile({16, 16}));
  CHECK(print(op_call("tile.exp", {x}, {}, x->type,
                      {{"n", std::int64_t{3}},
                       {"note", std::string("fi\"rst")},
                       {"w", 0.25},
                       {"ok", true},
                       {"dt", DataType::FP16},
                       {"mem", MemorySpace::Vec},
                       {"ids", std::vector<std::int64_t>{0, 2}},
                       {"v", std::vector<Expr>{x}}})) ==
        "pl.tile.exp(x, attrs={\"n\": 3, \"note\": \"fi\\\"rst\", \"w\": 0.25, \"ok\": True, "
        "\"dt\": pl.FP16, \"mem\": pl.Mem.Vec, \"ids\": [0, 2], \"v\": [x]})");
  auto s = scalar_var("s");
  auto call = make_function_call(
      "kernel", {x, s}, x->type, {},
      {{"other", std::int64_t{1}},
       {"arg_directions", std::vector<ArgDirection>{ArgDirection::input, ArgDirection::scalar}},
       {"dump_vars", std::vector<Expr>{x}}});
  CHECK(print(call) ==
        "kernel(x, s, attrs={\"dump_vars\": [x], \"arg_directions\": [pl.adir.input, "
        "pl.adir.scalar], \"other\": 1})");
}

TEST_CASE("printer: submit carries the callee function (§4.7)") {
  auto a = make_var("a", tensor({4, 8}));
  auto tid = scalar_var("t1", DataType::TASK_ID);
  auto tup = make_type(TupleType{{a->type, tid->type}});
  auto tmp = make_var("_submit_tmp", tup);
  auto submit = make_expr(
      Call{Callee{intern_op("submit"), Symbol("kernel")}, {a}, {{"deps", std::vector<Expr>{tid}}}, {}},
      tup);
  auto main = fn("main", {{a, ParamDirection::In}, {tid, ParamDirection::In}}, {},
                 seq({assign(tmp, submit)}), FunctionType::Orchestration);
  auto ka = make_var("x", a->type);
  auto kernel = fn("kernel", {{ka, ParamDirection::In}}, {ka->type}, ret({ka}),
                   FunctionType::InCore, Level::CHIP_DIE, Role::SubWorker);
  std::string s = print(make_program("P", {main, kernel}));
  CHECK(s.find("def kernel(") < s.find("def main("));
  CHECK(s.find("_submit_tmp: pl.Tuple[pl.Tensor[[4, 8], pl.FP32], pl.Scalar[pl.TASK_ID]] = "
               "pl.submit(self.kernel, a, deps=[t1])") != std::string::npos);
}

TEST_CASE("printer: for loops, bound elision, init_values, stage and attrs (§3.4)") {
  auto n = scalar_var("n");
  auto a = scalar_var("a");
  auto i = scalar_var("i");
  auto s0 = make_iter_arg("s0", a->type, idx(0));
  auto s1 = scalar_var("s1");
  auto rv = scalar_var("s0_rv");
  auto loop = [&](Expr start, Expr stop, Expr step, ForKind kind = ForKind::range,
                  Kwargs attrs = {}) {
    return make_stmt(For{i,
                         start,
                         stop,
                         step,
                         {s0},
                         seq({assign(s1, bin(BinaryOp::Add, s0, i)), yield({s1})}),
                         {rv},
                         kind,
                         std::move(attrs)});
  };
  auto body_of = [&](Stmt s) { return print(fn("f", {{n, ParamDirection::In}}, {}, seq({s}))); };
  std::string pre = "@pl.function\ndef f(n: pl.Scalar[pl.INDEX]):\n    ";
  std::string post =
      ":\n        s1: pl.Scalar[pl.INDEX] = s0 + i\n        s0_rv: pl.Scalar[pl.INDEX] = "
      "pl.yield_(s1)";
  CHECK(body_of(loop(idx(0), idx(8), idx(1))) ==
        pre + "for i, (s0,) in pl.range(8, init_values=(0,))" + post);
  CHECK(body_of(loop(idx(2), n, idx(1))) ==
        pre + "for i, (s0,) in pl.range(2, n, init_values=(0,))" + post);
  CHECK(body_of(loop(idx(0), idx(64), idx(16))) ==
        pre + "for i, (s0,) in pl.range(0, 64, 16, init_values=(0,))" + post);
  CHECK(body_of(loop(n, idx(0), idx(-1))) ==
        pre + "for i, (s0,) in pl.range(n, 0, -1, init_values=(0,))" + post);
  // Only INDEX constants are elided.
  CHECK(body_of(loop(make_int(0, DataType::INT64), n, make_int(1, DataType::INT64))) ==
        pre +
            "for i, (s0,) in pl.range(pl.const(0, pl.INT64), n, pl.const(1, pl.INT64), "
            "init_values=(0,))" +
            post);
  CHECK(body_of(loop(idx(0), idx(4), idx(1), ForKind::pipeline,
                     {{"pipeline_stages", std::int64_t{2}}, {"tag", std::string("o")}})) ==
        pre + "for i, (s0,) in pl.pipeline(4, stage=2, init_values=(0,), attrs={\"tag\": \"o\"})" +
            post);
  CHECK(body_of(loop(idx(0), idx(4), idx(1), ForKind::parallel,
                     {{"unroll_hint", std::int64_t{2}}, {"ratio", 0.5}, {"hot", true}})) ==
        pre +
            "for i, (s0,) in pl.parallel(4, init_values=(0,), attrs={\"unroll_hint\": 2, "
            "\"ratio\": 0.5, \"hot\": True})" +
            post);
  // Two iter args: the yield is a plain tuple assignment, never annotated.
  auto x = make_iter_arg("x", a->type, a),
       y = make_iter_arg("y", scalar_type(DataType::FP32), make_float(1.0));
  auto xr = scalar_var("x_rv"), yr = scalar_var("y_rv", DataType::FP32);
  auto two = make_stmt(
      For{i, idx(0), idx(10), idx(1), {x, y}, yield({x, y}), {xr, yr}, ForKind::range, {}});
  CHECK(print(fn("g", {{a, ParamDirection::In}}, {}, two)) ==
        "@pl.function\ndef g(a: pl.Scalar[pl.INDEX]):\n    for i, (x, y) in pl.range(10, "
        "init_values=(a, 1.0)):\n        x_rv, y_rv = pl.yield_(x, y)");
  // No iter args; an unroll loop with iter args cannot be printed.
  auto plain = make_stmt(For{i,
                             idx(0),
                             idx(4),
                             idx(1),
                             {},
                             eval(op_call("system.bar_all", {}, {}, unknown_type())),
                             {},
                             ForKind::unroll,
                             {}});
  CHECK(print(plain) == "for i in pl.unroll(4):\n    pl.system.bar_all()");
  CHECK_THROWS_AS(print(loop(idx(0), idx(4), idx(1), ForKind::unroll)), Error);
}

TEST_CASE("printer: while loops, natural and with iter args (§3.5)") {
  auto n = scalar_var("n");
  auto k = make_iter_arg("k", n->type, idx(0));
  auto k2 = scalar_var("k2"), krv = scalar_var("k_rv");
  auto w = make_stmt(While{{k},
                           bin(BinaryOp::Lt, k, n),
                           seq({assign(k2, bin(BinaryOp::Add, k, idx(3))), yield({k2})}),
                           {krv}});
  auto p = make_iter_arg("p", n->type, krv), q = make_iter_arg("q", n->type, idx(1));
  auto prv = scalar_var("p_rv"), qrv = scalar_var("q_rv");
  auto w2 = make_stmt(While{{p, q}, bin(BinaryOp::Gt, p, idx(0)), yield({p, q}), {prv, qrv}});
  auto c = scalar_var("c");
  auto natural = make_stmt(While{{}, bin(BinaryOp::Lt, c, n), make_stmt(Break{}), {}});
  CHECK(print(fn("f", {{n, ParamDirection::In}}, {n->type},
                 seq({w, w2, assign(c, idx(0)), natural, ret({qrv})}))) ==
        "@pl.function\n"
        "def f(n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n"
        "    for (k,) in pl.while_(init_values=(0,)):\n"
        "        pl.cond(k < n)\n"
        "        k2: pl.Scalar[pl.INDEX] = k + 3\n"
        "        k_rv: pl.Scalar[pl.INDEX] = pl.yield_(k2)\n"
        "    for (p, q) in pl.while_(init_values=(k_rv, 1)):\n"
        "        pl.cond(p > 0)\n"
        "        p_rv, q_rv = pl.yield_(p, q)\n"
        "    c: pl.Scalar[pl.INDEX] = 0\n"
        "    while c < n:\n"
        "        break\n"
        "    return q_rv");
}

TEST_CASE("printer: if/else, nested if in else, comments, continue, pass (§3.3, §3.6, §3.8)") {
  auto a = scalar_var("a"), b = scalar_var("b");
  auto r = scalar_var("r");
  auto z = scalar_var("z");
  auto inner = make_stmt(If{bin(BinaryOp::Eq, b, idx(0)), yield({a}), yield({r}), {z}});
  auto outer_else = seq({inner, yield({z})});
  auto r2 = scalar_var("r2");
  auto top = make_stmt(If{bin(BinaryOp::Lt, a, b), yield({a}), yield({b}), {r}});
  auto second = make_stmt(If{bin(BinaryOp::Eq, a, idx(0)), yield({a}), outer_else, {r2}});
  auto flag = scalar_var("flag", DataType::BOOL);
  auto no_else =
      make_stmt(If{flag, make_stmt(Continue{}), nullptr, {}}, {}, Comments{{"note", "two"}});
  auto empty_else = make_stmt(If{flag, seq({}), seq({}), {}});
  auto bare_yield = make_stmt(If{flag, yield({}), nullptr, {}});
  CHECK(
      print(fn("f", {{a, ParamDirection::In}, {b, ParamDirection::In}, {flag, ParamDirection::In}},
               {}, seq({top, second, no_else, empty_else, bare_yield}))) ==
      "@pl.function\n"
      "def f(a: pl.Scalar[pl.INDEX], b: pl.Scalar[pl.INDEX], flag: pl.Scalar[pl.BOOL]):\n"
      "    if a < b:\n"
      "        r: pl.Scalar[pl.INDEX] = pl.yield_(a)\n"
      "    else:\n"
      "        r: pl.Scalar[pl.INDEX] = pl.yield_(b)\n"
      "    if a == 0:\n"
      "        r2: pl.Scalar[pl.INDEX] = pl.yield_(a)\n"
      "    else:\n"
      "        if b == 0:\n"
      "            z: pl.Scalar[pl.INDEX] = pl.yield_(a)\n"
      "        else:\n"
      "            z: pl.Scalar[pl.INDEX] = pl.yield_(r)\n"
      "        r2: pl.Scalar[pl.INDEX] = pl.yield_(z)\n"
      "    # note\n"
      "    # two\n"
      "    if flag:\n"
      "        continue\n"
      "    if flag:\n"
      "        pass\n"
      "    else:\n"
      "        pass\n"
      "    if flag:\n"
      "        pl.yield_()");
}

TEST_CASE("printer: scope forms (§3.7)") {
  auto x = make_var("x", tensor({16, 16}));
  auto t = make_var("t", tile({16, 16}));
  auto load = assign(t, op_call("tile.load", {x}, {}, t->type));
  auto tid = scalar_var("tid", DataType::TASK_ID);
  auto tid2 = scalar_var("tid2", DataType::TASK_ID);
  auto at = make_stmt(Scope{ScopeKind::at,
                            {},
                            {{"level", EnumText{"pl.Level.CORE_GROUP"}},
                             {"optimizations", EnumText{"[pl.split(pl.SplitMode.UP_DOWN)]"}},
                             {"name_hint", std::string("body")}},
                            tid,
                            load});
  // The task_invalid placeholder before a scope that binds it is folded into `as tid2`.
  auto placeholder = assign(tid2, op_call("system.task_invalid", {}, {}, tid2->type));
  auto p = scalar_var("p", DataType::BOOL);
  auto spmd = make_stmt(
      Scope{ScopeKind::spmd,
            {idx(2)},
            {{"deps", std::vector<Expr>{tid}}, {"predicate", Expr(p)}},
            tid2,
            make_stmt(Scope{
                ScopeKind::at, {}, {{"level", EnumText{"pl.Level.CORE_GROUP"}}}, nullptr, load})});
  auto cluster = make_stmt(
      Scope{ScopeKind::cluster, {}, {{"name_hint", std::string("grp")}}, nullptr, seq({})});
  auto rt = make_stmt(Scope{ScopeKind::scope, {}, {}, nullptr, load});
  auto manual = make_stmt(
      Scope{ScopeKind::scope, {}, {{"mode", EnumText{"pl.ScopeMode.MANUAL"}}}, nullptr, load});
  auto manual2 = make_stmt(Scope{ScopeKind::manual_scope, {}, {}, nullptr, load});
  auto bid = scalar_var("bid");
  auto spmd_for = make_stmt(Scope{ScopeKind::spmd_for, {idx(4)}, {}, bid, load});
  auto sid = scalar_var("sid");
  auto shard =
      eval(op_call("tile.aiv_shard", {t}, {{"split", std::int64_t{1}}, {"axis", std::int64_t{0}}},
                   unknown_type()));
  auto aiv = make_stmt(Scope{
      ScopeKind::split_aiv, {idx(2)}, {{"mode", EnumText{"pl.SplitMode.UP_DOWN"}}}, sid, shard});
  auto aiv_unbound = make_stmt(Scope{ScopeKind::split_aiv,
                                     {idx(2)},
                                     {{"mode", EnumText{"pl.SplitMode.UP_DOWN"}}},
                                     nullptr,
                                     seq({})});
  auto f = fn("main", {{x, ParamDirection::In}, {p, ParamDirection::In}}, {},
              seq({at, placeholder, spmd, cluster, rt, manual, manual2, spmd_for, aiv, aiv_unbound,
                   shard}));
  CHECK(print(f) ==
        "@pl.function\n"
        "def main(x: pl.Tensor[[16, 16], pl.FP32], p: pl.Scalar[pl.BOOL]):\n"
        "    with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)], "
        "name_hint=\"body\") as tid:\n"
        "        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x)\n"
        "    with pl.spmd(2, deps=[tid], predicate=(p)) as tid2:\n"
        "        with pl.at(level=pl.Level.CORE_GROUP):\n"
        "            t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x)\n"
        "    with pl.cluster(name_hint=\"grp\"):\n"
        "        pass\n"
        "    with pl.scope():\n"
        "        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x)\n"
        "    with pl.scope(mode=pl.ScopeMode.MANUAL):\n"
        "        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x)\n"
        "    with pl.scope(mode=pl.ScopeMode.MANUAL):\n"
        "        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x)\n"
        "    for bid in pl.spmd(4):\n"
        "        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x)\n"
        "    for sid in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n"
        "        pl.tile.aiv_shard(t, axis=0)\n"
        "    for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n"
        "        pass\n"
        "    pl.tile.aiv_shard(t, split=1, axis=0)");
}

TEST_CASE("printer: an AUTO scope around a loop body keeps the yield assignment (§3.7)") {
  auto i = scalar_var("i");
  auto a = make_iter_arg("a", i->type, idx(0));
  auto a2 = scalar_var("a2"), rv = scalar_var("a_rv");
  auto body = make_stmt(Scope{
      ScopeKind::scope, {}, {}, nullptr, seq({assign(a2, bin(BinaryOp::Add, a, i)), yield({a2})})});
  auto loop = make_stmt(For{i, idx(0), idx(4), idx(1), {a}, body, {rv}, ForKind::range, {}});
  CHECK(print(loop) ==
        "for i, (a,) in pl.range(4, init_values=(0,)):\n"
        "    with pl.scope():\n"
        "        a2: pl.Scalar[pl.INDEX] = a + i\n"
        "        a_rv: pl.Scalar[pl.INDEX] = pl.yield_(a2)");
}

TEST_CASE("printer: name disambiguation and free vars (§5.2)") {
  auto n = scalar_var("n");
  auto i1 = scalar_var("i"), i2 = scalar_var("i");
  auto a = make_iter_arg("a", n->type, idx(0));
  auto arv = scalar_var("a_rv");
  auto l1 = make_stmt(For{i1, idx(0), idx(4), idx(1), {a}, yield({i1}), {arv}, ForKind::range, {}});
  auto b = make_iter_arg("b", n->type, arv);
  auto brv = scalar_var("b_rv");
  auto l2 = make_stmt(For{
      i2, idx(0), n, idx(1), {b}, yield({bin(BinaryOp::Mul, b, i2)}), {brv}, ForKind::range, {}});
  // A param named like a later body Var keeps the bare name; the def takes `_1`, and a
  // name that is already unique (`i_1` is taken by nobody else here) is skipped over.
  auto x = scalar_var("x");
  auto x_dup = scalar_var("x");
  auto reserved = scalar_var("x_1");
  auto free = scalar_var("ghost");
  auto f = fn("f", {{n, ParamDirection::In}, {x, ParamDirection::In}}, {n->type},
              seq({l1, l2, assign(reserved, idx(1)), assign(x_dup, bin(BinaryOp::Add, x, free)),
                   ret({brv})}));
  CHECK(print(f) ==
        "@pl.function\n"
        "def f(n: pl.Scalar[pl.INDEX], x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n"
        "    for i, (a,) in pl.range(4, init_values=(0,)):\n"
        "        a_rv: pl.Scalar[pl.INDEX] = pl.yield_(i)\n"
        "    for i_1, (b,) in pl.range(n, init_values=(a_rv,)):\n"
        "        b_rv: pl.Scalar[pl.INDEX] = pl.yield_(b * i_1)\n"
        "    x_1: pl.Scalar[pl.INDEX] = 1\n"
        "    x_2: pl.Scalar[pl.INDEX] = x + ghost__FREE_VAR\n"
        "    return b_rv");
}

TEST_CASE("printer: program-level dynamic dims (§5.3)") {
  auto m = scalar_var("M"), nn = scalar_var("N"), bb = scalar_var("B"), m2 = scalar_var("M");
  auto x = make_var("x", make_tensor_type({m, nn}, DataType::FP32));
  auto y =
      make_var("y", make_tensor_type({bb, bin(BinaryOp::Add, m, idx(1)), idx(64)}, DataType::FP16));
  auto f = fn("f", {{x, ParamDirection::In}, {y, ParamDirection::In}}, {x->type}, ret({x}));
  auto z = make_var("z", make_tensor_type({m2}, DataType::FP32));
  auto g = fn("g", {{z, ParamDirection::In}}, {}, seq({}));
  CHECK(print(make_program("Dyn", {f, g})) ==
        "# pypto.program: Dyn\nimport pypto.language as pl\n\n"
        "B = pl.dynamic(\"B\")\n"
        "M = pl.dynamic(\"M\")\n"
        "M_1 = pl.dynamic(\"M_1\")\n"
        "N = pl.dynamic(\"N\")\n\n"
        "@pl.program\n"
        "class Dyn:\n"
        "    @pl.function\n"
        "    def f(self, x: pl.Tensor[[M, N], pl.FP32], y: pl.Tensor[[B, M + pl.const(1, "
        "pl.INDEX), 64], pl.FP16]) -> pl.Tensor[[M, N], pl.FP32]:\n"
        "        return x\n"
        "    @pl.function\n"
        "    def g(self, z: pl.Tensor[[M_1], pl.FP32]):\n"
        "        pass");
  // A dim Var defined as a parameter is not dynamic; a param read by a param TensorView's
  // valid_shape must be declared too, since the annotation is evaluated before the params.
  auto n = scalar_var("n");
  auto t = make_var("t", make_tile_type({idx(64), idx(32)}, DataType::FP32,
                                        TileView{{n, idx(32)},
                                                 {},
                                                 nullptr,
                                                 TileLayout::row_major,
                                                 TileLayout::none_box,
                                                 512,
                                                 PadValue::null,
                                                 CompactMode::null},
                                        MemorySpace::Vec));
  auto h = fn("h", {{n, ParamDirection::In}, {t, ParamDirection::In}}, {}, seq({}));
  CHECK(print(make_program("P", {h})).find("pl.dynamic") == std::string::npos);
  auto v = make_var("v", make_tensor_type({idx(16)}, DataType::FP32,
                                          TensorView{{n}, {}, TensorLayout::ND, PadValue::null}));
  auto k = fn("k", {{v, ParamDirection::In}, {n, ParamDirection::In}}, {}, seq({}));
  CHECK(print(make_program("P", {k})) ==
        std::string(kHeader) +
            "n = pl.dynamic(\"n\")\n\n@pl.program\nclass P:\n    @pl.function\n"
            "    def k(self, v: pl.Tensor[[16], pl.FP32, pl.TensorView(valid_shape=[n], stride=[], "
            "layout=pl.TensorLayout.ND)], n: pl.Scalar[pl.INDEX]):\n"
            "        pass");
}
