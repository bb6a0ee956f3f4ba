// Type deduction of the ops the passes create, match or re-deduce (ir_ops.md §B.3).
#include "ops_test_util.hpp"

using namespace ops_test;

namespace {
ir::TileView view_with_valid(std::vector<ir::Expr> valid, std::optional<MemorySpace> mem = MemorySpace::Vec,
                             std::vector<ir::Expr> shape = {}) {
  ir::TileView v = ir::implicit_view(shape, mem);
  v.valid_shape = std::move(valid);
  return v;
}
ir::TileLayoutTriple layout_of(const ir::Expr& e) {
  auto v = ir::effective_view(T(e));
  return {v.blayout, v.slayout, v.fractal};
}
const ir::TileLayoutTriple k_nz{TileLayout::col_major, TileLayout::row_major, 512};
const ir::TileLayoutTriple k_zn{TileLayout::row_major, TileLayout::col_major, 512};
const ir::TileLayoutTriple k_nd{TileLayout::row_major, TileLayout::none_box, 512};
const ir::TileLayoutTriple k_acc{TileLayout::col_major, TileLayout::row_major, 1024};
ir::Kwargs to(MemorySpace m) { return {{"target_memory", m}}; }
}  // namespace

TEST_CASE("deduce tile.load: memory views and window valid shape") {
  auto x = tensor("x", {64, 128}, DataType::FP16);
  auto vec = call("tile.load", {x, tup({0, 0}), tup({16, 32}), tup({16, 32})}, to(MemorySpace::Vec));
  CHECK(T(vec).memory == MemorySpace::Vec);
  CHECK_FALSE(T(vec).view.has_value());
  auto mat = call("tile.load", {x, tup({0, 0}), tup({16, 32}), tup({16, 32})}, to(MemorySpace::Mat));
  CHECK(layout_of(mat) == k_nz);
  CHECK_FALSE(T(mat).view.has_value());  // NZ is Mat's implicit layout
  // A DN source swaps NZ to ZN.
  auto dn = tensor("d", {64, 128}, DataType::FP16, ir::TensorView{{}, {}, ir::TensorLayout::DN, ir::PadValue::null});
  CHECK(layout_of(call("tile.load", {dn, tup({0, 0}), tup({16, 32}), tup({16, 32})}, to(MemorySpace::Mat))) == k_zn);
  // A single-row Mat window is an ND row vector (GEMV / bias).
  auto row = call("tile.load", {x, tup({0, 0}), tup({1, 32}), tup({1, 32})}, to(MemorySpace::Mat));
  CHECK(layout_of(row) == k_nd);
  // Non-Mat with a unit last window dim reads column-major.
  auto col = call("tile.load", {x, tup({0, 0}), tup({16, 1}), tup({16, 1})}, to(MemorySpace::Vec));
  CHECK(layout_of(col).blayout == TileLayout::col_major);
  // Partial valid from the requested tuple; symbolic offsets keep the full window.
  auto part = call("tile.load", {x, tup({0, 0}), tup({16, 16}), tup({8, 16})}, to(MemorySpace::Vec));
  CHECK(valid_of(part) == V{8, 16});
  auto i = sym("i");
  auto sym_off = call("tile.load",
                      {x, tup({ir::make_expr(ir::Binary{ir::BinaryOp::Mul, i, I(16)}, i->type), I(0)}),
                       tup({16, 32}), tup({16, 32})},
                      to(MemorySpace::Vec));
  CHECK_FALSE(T(sym_off).view.has_value());
  auto s = sym("s");
  auto dyn = call("tile.load", {x, tup({0, 0}), tup({16, 32}), tup({s, I(32)})}, to(MemorySpace::Vec));
  CHECK(ir::valid_shape(T(dyn))[0] == s);
  // The read past the tensor's edge clamps the valid extent only with clamp=True.
  CHECK(error_of([&] { call("tile.load", {x, tup({56, 0}), tup({16, 32}), tup({16, 32})}, to(MemorySpace::Vec)); })
            .find("reads past the source shape [64, 128]") != std::string::npos);
  auto clamped = call("tile.load", {x, tup({56, 0}), tup({16, 32}), tup({16, 32})},
                      {{"target_memory", MemorySpace::Vec}, {"clamp", true}});
  CHECK(valid_of(clamped) == V{8, 32});
  // Window rank differs from the tensor rank: valid taken verbatim.
  auto x3 = tensor("x3", {2, 16, 512}, DataType::FP16);
  auto r2 = call("tile.load", {x3, tup({0, 0}), tup({16, 512}), tup({10, 512})}, to(MemorySpace::Vec));
  CHECK(valid_of(r2) == V{10, 512});
  // MX scale sources need Mat.
  auto mx = tensor("m", {64, 2}, DataType::FP8E8M0, ir::TensorView{{}, {}, ir::TensorLayout::MX_A_ZZ, ir::PadValue::null});
  auto scale = call("tile.load", {mx, tup({0, 0}), tup({64, 2}), tup({64, 2})}, to(MemorySpace::Mat));
  CHECK(layout_of(scale) == ir::TileLayoutTriple{TileLayout::row_major, TileLayout::row_major, 32});
  CHECK(error_of([&] { call("tile.load", {mx, tup({0, 0}), tup({64, 2}), tup({64, 2})}, to(MemorySpace::Vec)); })
            .find("target_memory=pl.Mem.Mat") != std::string::npos);
  CHECK(error_of([&] { call("tile.load", {x, tup({0, 0}), tup({16, 32}), tup({16})}); }).find("same rank") !=
        std::string::npos);
}

TEST_CASE("deduce tile.store: 3 and 4 arguments, valid-region growth, atomic dtypes") {
  auto t = tile("t", {16, 32}, DataType::FP32);
  auto out = tensor("out", {64, 32}, DataType::FP32);
  auto s3 = call("tile.store", {t, tup({16, 0}), out});
  CHECK(s3->type == out->type);
  auto out3 = tensor("o3", {2, 16, 32}, DataType::FP32);
  auto s4 = call("tile.store", {t, tup({1, 0, 0}), out3, tup({1, 16, 32})});
  CHECK(s4->type == out3->type);
  auto partial = ir::make_var(
      "p", ir::make_tensor_type(dims({64, 32}), DataType::FP32, ir::TensorView{dims({16, 32}), {}, ir::TensorLayout::ND,
                                                                              ir::PadValue::null}));
  auto grown = call("tile.store", {t, tup({16, 0}), partial});
  CHECK(ints(ir::valid_shape(*ir::tensor_type(grown))) == V{32, 32});
  auto i8 = tile("i8", {16, 32}, DataType::UINT8);
  CHECK(error_of([&] { call("tile.store", {i8, tup({0, 0}), out}, {{"atomic", std::int64_t{1}}}); })
            .find("atomic add is not supported for UINT8") != std::string::npos);
  CHECK(error_of([&] { call("tile.store", {t, tup({0, 0}), out, tup({16})}); }).find("rank of offsets") !=
        std::string::npos);
}

TEST_CASE("deduce tile.create / tile.full") {
  auto acc = call("tile.create", {tup({16, 64})}, {{"dtype", DataType::FP32}, {"target_memory", MemorySpace::Acc}});
  CHECK(T(acc).memory == MemorySpace::Acc);
  CHECK_FALSE(T(acc).view.has_value());
  auto zn = call("tile.create", {tup({32, 16})},
                 {{"dtype", DataType::BF16}, {"target_memory", MemorySpace::Mat}, {"transpose", true}});
  CHECK(layout_of(zn) == k_zn);
  auto flat = call("tile.create", {tup({32, 16})},
                   {{"dtype", DataType::BF16}, {"target_memory", MemorySpace::Mat}, {"flat_layout", true}});
  CHECK(T(flat).memory == MemorySpace::Mat);
  CHECK(layout_of(flat) == k_nd);
  auto mat = call("tile.create", {tup({32, 16})}, {{"dtype", DataType::BF16}, {"target_memory", MemorySpace::Mat}});
  CHECK(layout_of(mat) == k_nz);  // double canonicalisation picks up Mat's implicit layout
  auto colvec = call("tile.create", {tup({16, 1})}, {{"dtype", DataType::FP32}, {"target_memory", MemorySpace::Vec}});
  CHECK_FALSE(T(colvec).view.has_value());
  // Seed 003: compact Acc seeds for loop-carry narrowing (FL-66).
  auto compact = call("tile.create", {tup({64, 256})},
                      {{"dtype", DataType::INT32}, {"target_memory", MemorySpace::Acc}, {"compact", true}});
  REQUIRE(T(compact).view.has_value());
  CHECK(ir::effective_view(T(compact)).compact == ir::CompactMode::normal);
  CHECK(layout_of(compact) == k_acc);
  CHECK(error_of([&] { call("tile.create", {tup({16, 0})}, {{"dtype", DataType::FP32}}); })
            .find("positive integer constants") != std::string::npos);
  CHECK(error_of([&] {
          call("tile.create", {tup({16, 16})}, {{"dtype", DataType::FP32}, {"target_memory", MemorySpace::LeftScale}});
        }).find("cannot create a tile in LeftScale") != std::string::npos);
  CHECK(error_of([&] {
          call("tile.create", {tup({16, 16})}, {{"dtype", DataType::FP32}, {"target_memory", MemorySpace::Vec},
                                                 {"transpose", true}});
        }).find("transpose=True needs") != std::string::npos);
  auto full = call("tile.full", {tup({16, 32}), ir::make_float(0.0)}, {{"dtype", DataType::FP32}});
  CHECK(T(full).memory == MemorySpace::Vec);
  CHECK_FALSE(T(full).view.has_value());
  // [N, 1] keeps an explicit row_major view (the default view, not the shape rule).
  auto fcol = call("tile.full", {tup({16, 1}), ir::make_float(0.0)}, {{"dtype", DataType::FP32}});
  REQUIRE(T(fcol).view.has_value());
  CHECK(ir::effective_view(T(fcol)).blayout == TileLayout::row_major);
  CHECK(error_of([&] { call("tile.full", {tup({16, 32}), sym("v")}, {{"dtype", DataType::FP32}}); })
            .find("numeric constant") != std::string::npos);
}

TEST_CASE("deduce tile.move / read / write / extract") {
  auto v = tile("v", {16, 32}, DataType::FP16, MemorySpace::Vec);
  auto m = call("tile.move", {v}, to(MemorySpace::Mat));
  CHECK(T(m).memory == MemorySpace::Mat);
  CHECK(layout_of(m) == k_nz);
  auto r = call("tile.move", {m}, to(MemorySpace::Right));
  CHECK(layout_of(r).blayout == TileLayout::row_major);
  CHECK(layout_of(r).slayout == TileLayout::col_major);
  // Into Vec the source arrangement is kept.
  auto back = call("tile.move", {m}, to(MemorySpace::Vec));
  CHECK(layout_of(back).blayout == TileLayout::col_major);
  auto over = call("tile.move", {m}, {{"target_memory", MemorySpace::Vec}, {"blayout", TileLayout::row_major},
                                      {"slayout", TileLayout::none_box}});
  CHECK(layout_of(over) == k_nd);
  CHECK(error_of([&] { call("tile.move", {v}); }).find("'target_memory' is required") != std::string::npos);

  CHECK(call("tile.read", {v, tup({0, 1})})->type == ir::scalar_type(DataType::FP16));
  CHECK(error_of([&] { call("tile.read", {v, tup({0})}); }) ==
        "tile.read: expects 2 indices for a rank-2 tile, got 1");
  auto w = call("tile.write", {v, tup({0, 1}), ir::make_float(1.0, DataType::FP16)});
  CHECK(w->type == v->type);
  CHECK(error_of([&] { call("tile.write", {v, tup({0, 1}), ir::make_float(1.0)}); })
            .find("value dtype FP32 must equal the tile dtype FP16") != std::string::npos);

  auto src = tile("src", dims({64, 64}), DataType::FP16, MemorySpace::Mat, view_with_valid({sym("n"), I(64)}, MemorySpace::Mat));
  auto left = call("tile.extract", {src, I(0), I(0), tup({16, 64})}, to(MemorySpace::Left));
  CHECK(T(left).memory == MemorySpace::Left);
  CHECK(layout_of(left) == ir::TileLayoutTriple{TileLayout::row_major, TileLayout::row_major, 512});
  CHECK(ir::effective_view(T(left)).compact == ir::CompactMode::normal);  // valid rows narrowed by n
  auto full_src = tile("f", {64, 64}, DataType::FP16, MemorySpace::Mat);
  auto right = call("tile.extract", {full_src, I(0), I(16), tup({64, 16})}, to(MemorySpace::Right));
  CHECK(layout_of(right) == k_zn);
  CHECK(ir::effective_view(T(right)).compact == ir::CompactMode::null);
  auto vec = call("tile.extract", {full_src, I(16), I(0), tup({16, 64})});
  CHECK(T(vec).memory == MemorySpace::Vec);  // kwarg default
  CHECK(error_of([&] { call("tile.extract", {full_src, I(56), I(0), tup({16, 64})}); })
            .find("reads past the source shape") != std::string::npos);
}

TEST_CASE("deduce tile.slice / reshape / reinterpret_view / set_validshape") {
  auto a = tile("a", {32, 64}, DataType::FP32);
  auto s = call("tile.slice", {a, tup({16, 32}), tup({16, 32})});
  CHECK(shape_of(s) == V{16, 32});
  CHECK(T(s).memory == MemorySpace::Vec);
  auto pv = tile("pv", dims({32, 64}), DataType::FP32, MemorySpace::Vec, view_with_valid(dims({20, 64})));
  auto s2 = call("tile.slice", {pv, tup({16, 64}), tup({16, 0})});
  CHECK(valid_of(s2) == V{4, 64});
  auto s3 = call("tile.slice", {a, tup({16, 32}), tup({0, 0}), tup({8, 32})}, {{"pad_value", ir::PadValue::zero}});
  CHECK(valid_of(s3) == V{8, 32});
  CHECK(ir::effective_view(T(s3)).pad == ir::PadValue::zero);
  auto a3 = tile("a3", {4, 16, 32}, DataType::FP32);
  auto dropped = call("tile.slice", {a3, tup({1, 16, 32}), tup({2, 0, 0}), tup(std::vector<ir::Expr>{}), tup({0})});
  CHECK(shape_of(dropped) == V{16, 32});
  CHECK(error_of([&] { call("tile.slice", {a, tup({16, 32}), tup({24, 0})}); })
            .find("reads past the source shape [32, 64]") != std::string::npos);
  CHECK(error_of([&] { call("tile.slice", {a3, tup({2, 16, 32}), tup({0, 0, 0}), tup(std::vector<ir::Expr>{}), tup({0})}); })
            .find("not a unit dim") != std::string::npos);

  auto r = call("tile.reshape", {a, tup({2048, 1})});
  CHECK(shape_of(r) == V{2048, 1});
  CHECK(T(r).memory == MemorySpace::Vec);
  auto p3 = tile("p3", dims({1, 16, 512}), DataType::FP16, MemorySpace::Vec, view_with_valid(dims({1, 10, 512})));
  auto flat = call("tile.reshape", {p3, tup({16, 512})});
  CHECK(valid_of(flat) == V{10, 512});
  auto p2 = tile("p2", dims({16, 64}), DataType::FP16, MemorySpace::Vec, view_with_valid(dims({16, 32})));
  CHECK(error_of([&] { call("tile.reshape", {p2, tup({1024, 1})}); }).find("is not a rectangle") != std::string::npos);
  CHECK(error_of([&] { call("tile.reshape", {a, tup({16, 16})}); }) ==
        "tile.reshape: cannot reshape [32, 64] (2048 elements) to [16, 16] (256 elements)");

  auto rv = call("tile.reinterpret_view", {a}, {{"dtype", DataType::INT16}});
  CHECK(shape_of(rv) == V{32, 128});
  CHECK(T(rv).dtype == DataType::INT16);
  CHECK(T(rv).memory == MemorySpace::Vec);
  auto back = call("tile.reinterpret_view", {rv}, {{"dtype", DataType::FP32}});
  CHECK(shape_of(back) == V{32, 64});
  auto shaped = call("tile.reinterpret_view", {a, tup({32, 256})}, {{"dtype", DataType::INT8}});
  CHECK(shape_of(shaped) == V{32, 256});
  auto nz = tile("nz", {32, 64}, DataType::FP16, MemorySpace::Mat);
  CHECK(error_of([&] { call("tile.reinterpret_view", {nz}, {{"dtype", DataType::INT16}}); }).find("none_box") !=
        std::string::npos);

  auto sv = call("tile.set_validshape", {a, sym("r"), I(64)});
  CHECK(ir::valid_shape(T(sv)).size() == 2);
  CHECK(T(sv).memory == MemorySpace::Vec);
  CHECK(error_of([&] { call("tile.set_validshape", {a, I(40), I(64)}); }) ==
        "tile.set_validshape: valid extent 40 is outside [0, 32]");
}

TEST_CASE("deduce tile.transpose_view / transpose / assemble / concat") {
  auto m = tile("m", {32, 16}, DataType::FP16, MemorySpace::Mat);
  auto tv = call("tile.transpose_view", {m});
  CHECK(shape_of(tv) == V{16, 32});
  CHECK(layout_of(tv) == k_zn);  // NZ ↔ ZN
  auto a = tile("a", {2, 8, 16}, DataType::FP32);
  auto t3 = call("tile.transpose", {a, I(-1), I(1)});
  CHECK(shape_of(t3) == V{2, 16, 8});
  auto tmp = tile("tmp", {2, 16, 8}, DataType::FP32);
  CHECK(shape_of(call("tile.transpose", {a, I(1), I(2), tmp})) == V{2, 16, 8});
  CHECK(error_of([&] { call("tile.transpose", {a, I(1), I(1)}); }) ==
        "tile.transpose: axis1 and axis2 must differ, both are 1");
  CHECK(error_of([&] { call("tile.transpose", {a, I(3), I(1)}); }).find("must be a constant axis in [-3, 3)") !=
        std::string::npos);

  auto acc = tile("acc", {32, 16}, DataType::FP32);
  auto page = tile("page", {8, 16}, DataType::FP32);
  auto as = call("tile.assemble", {acc, page, tup({16, 0})});
  CHECK(same(as->type, acc->type));
  auto empty_acc = tile("e", dims({32, 16}), DataType::FP32, MemorySpace::Vec, view_with_valid(dims({8, 16})));
  auto grown = call("tile.assemble", {empty_acc, page, tup({8, 0})});
  CHECK(valid_of(grown) == V{16, 16});
  CHECK(error_of([&] { call("tile.assemble", {empty_acc, page, tup({16, 0})}); })
            .find("does not leave a rectangular valid region") != std::string::npos);
  CHECK(error_of([&] { call("tile.assemble", {acc, page, tup({28, 0})}); }).find("does not fit the target") !=
        std::string::npos);
  auto bf = tile("bf", {32, 16}, DataType::BF16);
  CHECK(T(call("tile.assemble", {bf, page, tup({0, 0})})).dtype == DataType::BF16);  // FIXPIPE downcast
  CHECK(error_of([&] { call("tile.assemble", {page, bf, tup({0, 0})}); }).find("only FP32 into BF16/FP16") !=
        std::string::npos);

  auto c = call("tile.concat", {tile("x", {16, 8}, DataType::FP32), tile("y", {16, 24}, DataType::FP32)});
  CHECK(shape_of(c) == V{16, 32});
  CHECK(error_of([&] { call("tile.concat", {tile("x", {16, 8}, DataType::FP32), tile("y", {8, 8}, DataType::FP32)}); })
            .find("row counts differ") != std::string::npos);
}

TEST_CASE("deduce element-wise families") {
  auto a = tile("a", dims({16, 32}), DataType::FP16, MemorySpace::Vec, view_with_valid(dims({8, 32})));
  auto b = tile("b", {1, 32}, DataType::FP32);
  auto add = call("tile.add", {a, b});
  CHECK(shape_of(add) == V{16, 32});
  CHECK(T(add).dtype == DataType::FP32);  // float promotion to the wider type
  CHECK(valid_of(add) == V{8, 32});       // first operand's valid shape
  CHECK(T(add).memory == MemorySpace::Vec);
  auto i32 = tile("i", {16, 32}, DataType::INT32);
  auto u32 = tile("u", {16, 32}, DataType::UINT32);
  CHECK(T(call("tile.and", {u32, i32})).dtype == DataType::INT32);
  CHECK(T(call("tile.shl", {tile("s", {16, 32}, DataType::INT16), i32})).dtype == DataType::INT16);
  CHECK(error_of([&] { call("tile.and", {a, i32}); }) ==
        "tile.and: 'lhs' (argument 1) must be an integer tile, got FP16");
  auto f = tile("f", {16, 32}, DataType::FP32);
  CHECK(T(call("tile.div", {f, f})).dtype == DataType::FP32);
  CHECK(error_of([&] { call("tile.div", {f, b}); }).find("must be equal (no broadcasting)") != std::string::npos);
  CHECK(error_of([&] { call("tile.div", {i32, i32}, {{"high_precision", true}}); })
            .find("high_precision=True applies to float tiles only") != std::string::npos);
  CHECK(shape_of(call("tile.muls", {a, ir::make_float(2.0)})) == V{16, 32});
  CHECK(T(call("tile.muls", {a, ir::make_float(2.0)})).dtype == DataType::FP16);
  CHECK(T(call("tile.shls", {i32, I(2)})).dtype == DataType::INT32);
  CHECK(error_of([&] { call("tile.subs", {u32, I(1)}); }).find("has dtype UINT32; supported:") != std::string::npos);
  CHECK(T(call("tile.rem", {f, f, f})).dtype == DataType::FP32);
  CHECK(T(call("tile.addc", {f, f, f})).dtype == DataType::FP32);
  CHECK(T(call("tile.addsc", {f, ir::make_float(1.0), f})).dtype == DataType::FP32);
  CHECK(T(call("tile.sel", {u32, f, f, f})).dtype == DataType::FP32);
  auto e = call("tile.exp", {a});
  CHECK(same(e->type, ir::make_tile_type(dims({16, 32}), DataType::FP16, view_with_valid(dims({8, 32})), MemorySpace::Vec)));
  CHECK(error_of([&] { call("tile.sin", {a}); }) == "tile.sin: 'tile' (argument 1) has dtype FP16; supported: FP32");
  CHECK(error_of([&] { call("tile.log", {i32}); }).find("supported: FP16, FP32") != std::string::npos);
  CHECK(error_of([&] { call("tile.rsqrt", {f, a}); }).find("must match the input's dtype and shape") !=
        std::string::npos);
  auto cast = call("tile.cast", {a}, {{"target_type", DataType::FP32}, {"mode", std::int64_t{2}}});
  CHECK(T(cast).dtype == DataType::FP32);
  CHECK(valid_of(cast) == V{8, 32});
  CHECK(error_of([&] { call("tile.cast", {f}, {{"target_type", DataType::FP32}, {"mode", std::int64_t{2}}}); }) ==
        "tile.cast: casting FP32 to itself; drop the cast");
  auto fp = call("tile.fillpad", {a}, {{"pad_value", ir::PadValue::max}});
  CHECK(valid_of(fp) == V{16, 32});
  CHECK(ir::effective_view(T(fp)).pad == ir::PadValue::max);
  CHECK(error_of([&] { call("tile.fillpad", {a}, {{"pad_value", ir::PadValue::null}}); }).find("must not be null") !=
        std::string::npos);
  CHECK(shape_of(call("tile.fillpad_expand", {a, tup({32, 32})})) == V{32, 32});
  CHECK(T(call("tile.expands", {a, ir::make_float(1.0)})).dtype == DataType::FP32);
}

TEST_CASE("deduce reductions and broadcasts") {
  auto a = tile("a", dims({16, 32}), DataType::FP32, MemorySpace::Vec, view_with_valid(dims({8, 32})));
  auto tmp = tile("t", {16, 32}, DataType::FP32);
  auto rs = call("tile.row_sum", {a, tmp});
  CHECK(shape_of(rs) == V{16, 1});
  CHECK(valid_of(rs) == V{8, 1});
  CHECK(layout_of(rs).blayout == TileLayout::col_major);
  CHECK(T(call("tile.row_argmax", {a, tmp})).dtype == DataType::INT32);
  CHECK(error_of([&] { call("tile.row_sum", {a, tile("s", {8, 32}, DataType::FP32)}); })
            .find("must not be smaller than the input shape [16, 32]") != std::string::npos);
  auto cs = call("tile.col_max", {a});
  CHECK(shape_of(cs) == V{1, 32});
  CHECK(layout_of(cs).blayout == TileLayout::row_major);
  CHECK(shape_of(call("tile.col_sum", {a})) == V{1, 32});
  auto rv = tile("rv", {16, 1}, DataType::FP32);
  auto re = call("tile.row_expand_sub", {a, rv});
  CHECK(shape_of(re) == V{16, 32});
  CHECK(valid_of(re) == V{8, 32});
  CHECK(error_of([&] { call("tile.row_expand_mul", {a, tile("w", {16, 2}, DataType::FP32)}); })
            .find("must have a last dim of 1") != std::string::npos);
  auto ce = call("tile.col_expand_mul", {a, tile("c", {1, 32}, DataType::FP32)});
  CHECK(shape_of(ce) == V{16, 32});
  // The valid region is the first operand's; one of lower rank is broadcast along the
  // result's leading axes (found by fuzzing: a [32] first operand gave a [4, 32] result a
  // one-entry valid_shape, which no reader accepts).
  auto row = tile("row", dims({32}), DataType::FP32, MemorySpace::Vec, view_with_valid(dims({20})));
  auto wide = tile("wide", {4, 32}, DataType::FP32);
  auto sum = call("tile.add", {row, wide});
  CHECK(shape_of(sum) == V{4, 32});
  CHECK(valid_of(sum) == V{4, 20});
  CHECK(valid_of(call("tile.add", {wide, row})) == V{4, 32});
  CHECK(valid_of(call("tile.addc", {row, wide, wide})) == V{4, 20});
}

TEST_CASE("deduce matmul family") {
  auto l = tile("l", {16, 64}, DataType::FP16, MemorySpace::Left);
  auto r = tile("r", {64, 32}, DataType::FP16, MemorySpace::Right);
  auto mm = call("tile.matmul", {l, r});
  CHECK(shape_of(mm) == V{16, 32});
  CHECK(T(mm).dtype == DataType::FP32);
  CHECK(T(mm).memory == MemorySpace::Acc);
  CHECK_FALSE(T(mm).view.has_value());
  auto li = tile("li", {16, 64}, DataType::INT8, MemorySpace::Left);
  auto ri = tile("ri", {64, 32}, DataType::INT8, MemorySpace::Right);
  CHECK(T(call("tile.matmul", {li, ri})).dtype == DataType::INT32);
  // Narrowed valid rows are stamped compact.
  auto ln = tile("ln", dims({16, 64}), DataType::FP16, MemorySpace::Left, view_with_valid({sym("m"), I(64)}, MemorySpace::Left));
  CHECK(ir::effective_view(T(call("tile.matmul", {ln, r}))).compact == ir::CompactMode::normal);
  CHECK(error_of([&] { call("tile.matmul", {l, tile("k", {32, 32}, DataType::FP16, MemorySpace::Right)}); }) ==
        "tile.matmul: lhs [16, 64] and rhs [32, 32] disagree on K (64 vs 32)");
  CHECK(error_of([&] { call("tile.matmul", {l, ri}); }) == "tile.matmul: lhs dtype FP16 must equal rhs dtype INT8");
  auto acc = tile("acc", {16, 32}, DataType::FP32, MemorySpace::Acc);
  auto ma = call("tile.matmul_acc", {acc, l, r});
  CHECK(same(ma->type, acc->type));
  CHECK(same(call("tile.matmul_acc", {acc, l, r, ir::make_bool(true)})->type, acc->type));
  CHECK(error_of([&] { call("tile.matmul_acc", {acc, l, r, I(1)}); }).find("init_cond must be a BOOL scalar") !=
        std::string::npos);
  CHECK(error_of([&] { call("tile.matmul_acc", {tile("a2", {16, 32}, DataType::INT32, MemorySpace::Acc), l, r}); }) ==
        "tile.matmul_acc: acc dtype INT32 must be the accumulator dtype FP32");
  auto bias = tile("b", {1, 32}, DataType::FP32, MemorySpace::Bias);
  CHECK(shape_of(call("tile.matmul_bias", {l, r, bias})) == V{16, 32});
  CHECK(error_of([&] { call("tile.matmul_bias", {l, r, tile("b2", {1, 16}, DataType::FP32, MemorySpace::Bias)}); }) ==
        "tile.matmul_bias: bias must be [1, 32], got [1, 16]");
  auto row = tile("row", {1, 64}, DataType::FP16, MemorySpace::Left);
  auto gv = call("tile.gemv", {row, r});
  CHECK(shape_of(gv) == V{16, 32});
  CHECK(valid_of(gv) == V{1, 32});
  CHECK(layout_of(gv) == k_acc);
  CHECK(same(call("tile.gemv_acc", {ir::make_var("g", gv->type), row, r})->type, gv->type));
  CHECK(error_of([&] { call("tile.gemv", {l, r}); }) == "tile.gemv: lhs must be a single row, got [16, 64]");
  CHECK(error_of([&] { call("tile.gemv", {row, r}, {{"acc_phase", std::string("half")}}); })
            .find("acc_phase must be") != std::string::npos);

  auto bl = tile("bl", {4, 16, 64}, DataType::FP16, MemorySpace::Left);
  auto br = tile("br", {1, 64, 32}, DataType::FP16, MemorySpace::Right);
  auto bm = call("tile.batch_matmul", {bl, br});
  CHECK(shape_of(bm) == V{4, 16, 32});
  CHECK(T(bm).memory == MemorySpace::Acc);
  CHECK(shape_of(call("tile.batch_matmul", {l, r})) == V{16, 32});
  auto bacc = tile("bacc", {4, 16, 32}, DataType::FP32, MemorySpace::Acc);
  CHECK(same(call("tile.batch_matmul_acc", {bacc, bl, br})->type, bacc->type));
  CHECK(error_of([&] { call("tile.batch_matmul_acc", {tile("x", {2, 16, 32}, DataType::FP32, MemorySpace::Acc), bl, br}); })
            .find("must have the product shape [4, 16, 32]") != std::string::npos);
  CHECK(error_of([&] { call("tile.batch_matmul", {bl, tile("y", {3, 64, 32}, DataType::FP16, MemorySpace::Right)}); }) ==
        "tile.batch_matmul: batch dims [4] and [3] do not broadcast");

  auto ml = tile("ml", {16, 64}, DataType::FP8E4M3FN, MemorySpace::Left);
  auto mr = tile("mr", {64, 32}, DataType::FP8E4M3FN, MemorySpace::Right);
  auto ls = tile("ls", {16, 2}, DataType::FP8E8M0, MemorySpace::LeftScale);
  auto rs = tile("rs", {2, 32}, DataType::FP8E8M0, MemorySpace::RightScale);
  auto mx = call("tile.matmul_mx", {ml, ls, mr, rs});
  CHECK(T(mx).dtype == DataType::FP32);
  CHECK(shape_of(mx) == V{16, 32});
  CHECK(error_of([&] { call("tile.matmul_mx", {l, ls, mr, rs}); }).find("must be FP8E4M3FN, got FP16") !=
        std::string::npos);
}

TEST_CASE("deduce tensor.view / create / reshape / arithmetic") {
  auto x = tensor("x", {2, 8, 16}, DataType::FP16);
  auto v = call("tensor.view", {x, tup({16, 16})});
  const auto& t = *ir::tensor_type(v);
  CHECK(ints(t.shape) == V{16, 16});
  REQUIRE(t.view.has_value());
  CHECK(ints(t.view->stride) == V{16, 1});  // explicit row-major strides stay explicit
  auto dn = call("tensor.view", {tensor("y", {8, 4}, DataType::FP32)}, {{"layout", ir::TensorLayout::DN}});
  const auto& d = *ir::tensor_type(dn);
  CHECK(ints(d.shape) == V{4, 8});
  CHECK(d.view->layout == ir::TensorLayout::DN);
  CHECK(ints(d.view->stride) == V{1, 4});
  auto pv = ir::make_var("p", ir::make_tensor_type(dims({2, 8, 16}), DataType::FP16,
                                                   ir::TensorView{dims({2, 4, 16}), {}, ir::TensorLayout::ND, ir::PadValue::null}));
  CHECK(error_of([&] { call("tensor.view", {pv, tup({16, 16})}); }).find("pass the collapsed valid shape") !=
        std::string::npos);
  auto pvv = call("tensor.view", {pv, tup({16, 16}), tup({8, 16})});
  CHECK(ints(ir::valid_shape(*ir::tensor_type(pvv))) == V{8, 16});
  CHECK(error_of([&] { call("tensor.view", {x}); }) == "tensor.view: needs a new shape or a layout=");
  CHECK(error_of([&] { call("tensor.view", {x, tup({15, 16})}); }).find("cannot view [2, 8, 16] (256 elements)") !=
        std::string::npos);

  auto c = call("tensor.create", {tup({16, 32})}, {{"dtype", DataType::FP32}, {"layout", ir::TensorLayout::ND}});
  CHECK(same(c->type, ir::make_tensor_type(dims({16, 32}), DataType::FP32)));
  auto cdn = call("tensor.create", {tup({16, 32})}, {{"dtype", DataType::FP32}, {"layout", ir::TensorLayout::DN}});
  CHECK(ir::tensor_type(cdn)->view->layout == ir::TensorLayout::DN);
  CHECK(ints(ir::tensor_type(call("tensor.reshape", {x, tup({16, 16})}))->shape) == V{16, 16});
  CHECK(ints(ir::tensor_type(call("tensor.adds", {x, ir::make_float(1.0)}))->shape) == V{2, 8, 16});
  CHECK(ir::tensor_type(call("tensor.add", {x, tensor("z", {1, 16}, DataType::FP32)}))->dtype == DataType::FP32);
  CHECK(call("system.task_dummy", {}, {{"deps", std::vector<ir::Expr>{}}})->type == ir::scalar_type(DataType::TASK_ID));
  CHECK(ir::as<ir::ArrayType>(call("array.create", {I(4)}, {{"dtype", DataType::INT32}})->type)->extent == 4);
}

// Issue 35: the tensor forms upstream's ConvertToSSA tests read (tensor.slice, tensor.read,
// tensor.row_sum), deduced like their tile forms.
TEST_CASE("deduce tensor.slice / read / write / row and column reductions") {
  auto x = tensor("x", {16, 32}, DataType::FP32);
  auto TT = [](const ir::Expr& e) -> const ir::TensorType& {
    auto* t = ir::tensor_type(e);
    REQUIRE(t != nullptr);
    return *t;
  };
  // The window's shape and dtype; a view only for a partial valid region or a pad.
  auto w = call("tensor.slice", {x, tup({8, 32}), tup({8, 0})});
  CHECK(ints(TT(w).shape) == V{8, 32});
  CHECK_FALSE(TT(w).view);
  auto n = sym("n");
  auto part = call("tensor.slice", {x, tup({8, 32}), tup({0, 0}), tup({n, I(32)})},
                   {{"pad_value", ir::PadValue::zero}});
  REQUIRE(TT(part).view);
  CHECK(TT(part).view->valid_shape[0] == n);
  CHECK(TT(part).view->pad == ir::PadValue::zero);
  auto dropped = call("tensor.slice", {x, tup({1, 32}), tup({3, 0}), tup({}), tup({0})});
  CHECK(ints(TT(dropped).shape) == V{32});
  CHECK(error_of([&] { call("tensor.slice", {x, tup({8, 32}), tup({12, 0})}); })
            .find("reads past the source shape [16, 32] in dim 0") != std::string::npos);
  CHECK(error_of([&] { call("tensor.slice", {x, tup({8, 32}), tup({0, 0}), tup({}), tup({1})}); })
            .find("drop_dims may name only axes of extent 1") != std::string::npos);

  CHECK(call("tensor.read", {x, tup({0, 1})})->type == ir::scalar_type(DataType::FP32));
  CHECK(error_of([&] { call("tensor.read", {x, tup({0})}); }) ==
        "tensor.read: expects 2 indices for a rank-2 tensor, got 1");
  CHECK(call("tensor.write", {x, tup({0, 1}), ir::make_float(1.0)})->type == x->type);
  CHECK(error_of([&] { call("tensor.write", {x, tup({0, 1}), ir::make_float(1.0, DataType::FP16)}); })
            .find("value dtype FP16 must equal the tensor dtype FP32") != std::string::npos);

  CHECK(ints(TT(call("tensor.row_sum", {x})).shape) == V{16, 1});
  CHECK(ints(TT(call("tensor.col_max", {x})).shape) == V{1, 32});
  CHECK(TT(call("tensor.row_argmax", {x})).dtype == DataType::INT32);
  CHECK(ints(TT(call("tensor.row_sum", {x}, {{"axis", std::int64_t{0}}, {"keep_dim", false}})).shape) == V{32});
  CHECK(error_of([&] { call("tensor.row_sum", {x}, {{"axis", std::int64_t{2}}}); })
            .find("axis 2 is out of range for [16, 32]") != std::string::npos);
}
