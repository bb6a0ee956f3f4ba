#pragma once
// Random well-typed kernels in the shapes each pass rewrites, for translation validation.
//
//   ir::Program p = testgen::generate({testgen::Target::flatten, seed});
//
// Deterministic from (target, seed, options): the same seed builds the same program on
// every platform and with every compiler (splitmix64, no std distributions; no two draws,
// nor two names, in the arguments of one call, whose order C++ leaves to the compiler:
// each is its own statement). Programs are built with the C++
// builder, so every op goes through the registry's type deduction; the tests check that
// each one prints, parses back to itself and verifies the properties its pass requires.
//
// Shapes per target:
// * flatten: a chunked loop over a dynamic dimension with pl.min tails; or rank 1…5 Vec tiles loaded from windows of ND tensors (partial valid extents
//   along a leading-ones prefix), element-wise / scalar / unary chains, casts, row
//   reductions with row_expand, reshapes (rank > 2 results too), last-two-axes transposes,
//   create + page-by-page assemble, for loops with tile iter_args, ifs with results,
//   stores into windows of ND tensors; or batched matmuls with broadcast batch dims and
//   transpose_view operands, fused or staged stores, and batch_matmul_acc chains.
// * materialize: tensors with ND / DN layouts and empty strides (rank 2…4), blocked NZ
//   rank-5 tensors, read through windows into 2-D tiles, GM gathers and scatters through
//   ND views, an orchestration caller that also adds, scales, reduces and reinterprets
//   tensors.
// * fold: MemRef-allocated 2-D tiles and reshapes between them, same or different
//   allocation, same or different signature.
// * canonicalize: 2-D Vec and Mat tiles, slices (chained, constant and dynamic offsets,
//   aligned or not) consumed by extracts, matmul operands, col_expand ops, ordinary ops,
//   stores, plain aliases, loop inits and yields.
// * ssa: kernels as DSL users write them — three tile names and the Out parameter re-assigned
//   in straight-line code, in nested pl.range loops, in ifs with and without else — written
//   as text and parsed, for ConvertToSSA.
#include <cstdint>
#include <string>
#include <vector>

#include "tilewright/build/builder.hpp"
#include "tilewright/interp/equivalence.hpp"
#include "tilewright/text/parser.hpp"

namespace tilewright::testgen {

enum class Target : std::uint8_t { flatten, materialize, fold, canonicalize, ssa };

inline std::string_view target_name(Target t) {
  switch (t) {
    case Target::flatten: return "flatten_tile_nd_to_2d";
    case Target::materialize: return "materialize_tensor_strides";
    case Target::fold: return "fold_no_op_reshape";
    case Target::canonicalize: return "canonicalize_tile_slice";
    case Target::ssa: return "convert_to_ssa";
  }
  return "?";
}

struct Options {
  Target target = Target::flatten;
  std::uint64_t seed = 1;
  // Also partial valid extents that are not a leading-ones prefix (FL-10 merges those
  // into a rectangle that is not the set of valid elements: see docs/interpreter.md).
  bool any_partial_valid = false;
  // Also, in some programs, the inputs FlattenTileNdTo2D must refuse rather than flatten
  // into another computation (issue 34): column reductions, broadcasts along a leading axis,
  // lower-rank stores into tensors with a dynamic or a too-short axis, partial valid extents
  // anywhere. The pass may refuse them; it may never change what they compute.
  bool adversarial = true;
};

namespace detail {

using interp::Rng;
using ir::DataType;
using ir::Expr;
using ir::MemorySpace;
using Dims = std::vector<std::int64_t>;

inline std::vector<ir::Expr> idx(const Dims& d) {
  std::vector<ir::Expr> out;
  for (auto x : d) out.push_back(ir::make_int(x));
  return out;
}
inline Expr tup(const Dims& d) { return ir::make_tuple(idx(d)); }
inline ir::Type tensor_t(const Dims& d, DataType dt, std::optional<ir::TensorView> v = std::nullopt) {
  return ir::make_tensor_type(idx(d), dt, std::move(v));
}
inline ir::Kwargs mem(MemorySpace m) { return {{"target_memory", m}}; }
inline std::int64_t count(const Dims& d) {
  std::int64_t n = 1;
  for (auto x : d) n *= x;
  return n;
}

struct Gen {
  Rng rng;
  const ops::Registry& reg = ops::builtin_registry();
  build::FunctionBuilder f;
  int names = 0;
  std::vector<Expr> results;

  explicit Gen(std::uint64_t seed, ir::FunctionType type = ir::FunctionType::InCore)
      : rng(seed), f("kernel", type, ops::builtin_registry()) {}

  std::string name(const char* base) { return std::string(base) + "_" + std::to_string(names++); }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(rng.range(0, static_cast<std::int64_t>(v.size()) - 1))];
  }
  Expr let(const char* base, std::string_view op, std::vector<Expr> args, ir::Kwargs kw = {}) {
    return f.let(name(base), op, std::move(args), std::move(kw));
  }
  Expr out_param(const Dims& shape, DataType dt, std::optional<ir::TensorView> v = std::nullopt) {
    return f.param(name("out"), tensor_t(shape, dt, std::move(v)), ir::ParamDirection::Out);
  }
  // Stores `t` (whose shape is `shape`) into a fresh Out tensor, at a random window.
  void store_fresh(const Expr& t, const Dims& shape, DataType dt) {
    Dims tshape = shape, off(shape.size(), 0);
    for (std::size_t k = 0; k < shape.size(); ++k)
      if (rng.coin(30)) {
        tshape[k] = shape[k] * 2;
        off[k] = rng.coin() ? shape[k] : 0;
      }
    Expr out = out_param(tshape, dt);
    results.push_back(let("stored", "tile.store", {t, tup(off), out}));
  }
  ir::Program finish(std::vector<ir::Function> extra = {}) {
    if (results.empty()) results.push_back(f.call("system.task_invalid", {}));
    f.ret({results.back()});
    extra.push_back(f.finish());
    return ir::make_program("Random", std::move(extra));
  }
};

// ---- FlattenTileNdTo2D -------------------------------------------------------------------

inline Dims random_page(Rng& r, std::size_t rank, DataType dt) {
  Dims d(rank);
  std::int64_t last = dt == DataType::FP16 ? 16 : r.coin() ? 8 : 16;
  for (std::size_t k = 0; k + 1 < rank; ++k) d[k] = r.range(1, k == 0 && rank > 2 ? 3 : 4);
  if (rank >= 4) d[0] = 1 + r.range(0, 1);
  d[rank - 1] = last;
  return d;
}

struct FlattenGen : Gen {
  Dims page;
  DataType dt = DataType::FP32;
  Expr x;       // the input tensor
  Dims xshape;  // its shape
  bool any_partial = false;
  std::vector<Expr> pool;  // tiles of shape `page`
  Expr dyn_n;              // the one dynamic dim of the adversarial stores
  bool flattened_form = false;  // a kernel as FlattenTileNdTo2D leaves it (TileOps2D)

  using Gen::Gen;

  Expr load_page(Dims valid) {
    Dims off(page.size(), 0);
    for (std::size_t k = 0; k < page.size(); ++k) off[k] = page[k] * rng.range(0, xshape[k] / page[k] - 1);
    return let("t", "tile.load", {x, tup(off), tup(page), tup(valid)}, mem(MemorySpace::Vec));
  }
  Dims random_valid() {
    Dims v = page;
    if (!rng.coin(30)) return v;
    std::size_t k = 0;
    if (any_partial) {
      k = static_cast<std::size_t>(rng.range(0, static_cast<std::int64_t>(page.size()) - 1));
    } else {
      while (k + 1 < page.size() && page[k] == 1) ++k;  // the first axis that is not 1
    }
    v[k] = rng.range(1, page[k]);
    return v;
  }
  Expr some_tile() { return pick(pool); }

  // The adversarial steps (Options::adversarial).
  void adversarial_step() {
    const std::size_t rank = page.size();
    switch (rng.range(0, 2)) {
      case 0: {  // FL-08: a column reduction, along axis 0
        static const std::vector<std::string> ops = {"tile.col_sum", "tile.col_max", "tile.col_min"};
        Dims reduced = page;
        reduced[0] = 1;
        const std::string& op = pick(ops);
        store_fresh(let("col", op, {some_tile()}), reduced, dt);
        break;
      }
      case 1: {  // a broadcast operand: some leading axes 1, the others the page's
        Dims b = page;
        for (std::size_t k = 0; k + 1 < rank; ++k)
          if (rng.coin()) b[k] = 1;
        Expr small = let("bc", "tile.load", {x, tup(Dims(rank, 0)), tup(b), tup(b)}, mem(MemorySpace::Vec));
        pool.push_back(rng.coin() ? let("e", "tile.add", {some_tile(), small}) : let("e", "tile.mul", {small, some_tile()}));
        break;
      }
      default: {  // FL-24: a 2-D tile stored into a rank-3 tensor, the rows a run of its rows
        const std::int64_t cols = page.back(), rows = count(page) / cols;
        Expr flat = rank == 2 ? load_page(page) : let("flat", "tile.reshape", {load_page(page), tup({rows, cols})});
        std::vector<Expr> shape;
        std::vector<Expr> off = {ir::make_int(0), ir::make_int(0), ir::make_int(0)};
        if (rng.coin()) {  // a dynamic middle axis: the rows may or may not spill over it
          if (!dyn_n) dyn_n = ir::make_var("N", ir::scalar_type(DataType::INDEX));
          shape = {ir::make_int(2), dyn_n, ir::make_int(cols)};
        } else {
          std::int64_t mid = rng.range(1, rows + 2);
          std::int64_t outer = (rows + mid - 1) / mid + rng.range(0, 1);
          shape = {ir::make_int(outer), ir::make_int(mid), ir::make_int(cols)};
          if (rng.coin(30)) off[1] = ir::make_int(rng.range(0, mid - 1));
        }
        Expr out = f.param(name("out"), ir::make_tensor_type(shape, dt), ir::ParamDirection::Out);
        results.push_back(let("stored", "tile.store", {flat, ir::make_tuple(off), out}));
        break;
      }
    }
  }

  void step(int depth) {
    int choice = static_cast<int>(rng.range(0, 22));
    switch (choice) {
      case 0: case 1: {
        static const std::vector<std::string> ops = {"tile.add", "tile.sub", "tile.mul", "tile.maximum", "tile.minimum"};
        const std::string& op = pick(ops);
        pool.push_back(let("e", op, {some_tile(), some_tile()}));
        break;
      }
      case 2: case 3: {
        static const std::vector<std::string> ops = {"tile.adds", "tile.subs", "tile.muls", "tile.maximums"};
        double c = static_cast<double>(rng.range(-8, 8)) / 4.0;
        const std::string& op = pick(ops);
        pool.push_back(let("s", op, {some_tile(), ir::make_float(c)}));
        break;
      }
      case 4: {
        static const std::vector<std::string> ops = {"tile.neg", "tile.abs", "tile.relu", "tile.exp"};
        const std::string& op = pick(ops);
        pool.push_back(let("u", op, {some_tile()}));
        break;
      }
      case 5: {
        if (dt != DataType::FP32) break;
        auto m = static_cast<std::int64_t>(rng.range(1, 6));
        Expr h = let("h", "tile.cast", {some_tile()}, {{"target_type", DataType::FP16}, {"mode", m}});
        pool.push_back(let("w", "tile.cast", {h}, {{"target_type", DataType::FP32}, {"mode", std::int64_t{0}}}));
        break;
      }
      case 6: pool.push_back(load_page(page)); break;
      case 7: {
        double c = static_cast<double>(rng.range(-4, 4)) / 2.0;
        pool.push_back(let("full", "tile.full", {tup(page), ir::make_float(c)}, {{"dtype", dt}}));
        break;
      }
      case 8: {  // create + assemble page by page along axis 0
        if (page.size() < 3) break;
        Expr target = let("acc", "tile.create", {tup(page)}, {{"dtype", dt}, {"target_memory", MemorySpace::Vec}});
        Dims slab = page;
        slab[0] = 1;
        for (std::int64_t i = 0; i < page[0]; ++i) {
          Dims off(page.size(), 0);
          off[0] = i;
          Expr s = let("slab", "tile.load", {x, tup(off), tup(slab), tup(slab)}, mem(MemorySpace::Vec));
          target = let("acc", "tile.assemble", {target, s, tup(off)});
        }
        pool.push_back(target);
        break;
      }
      case 9: {  // a row reduction and its broadcast back
        if (page.size() < 2) break;
        Expr t = some_tile();
        Expr tmp = let("tmp", "tile.create", {tup(page)}, {{"dtype", dt}, {"target_memory", MemorySpace::Vec}});
        static const std::vector<std::string> ops = {"tile.row_sum", "tile.row_max", "tile.row_min"};
        Expr red = let("red", pick(ops), {t, tmp});
        static const std::vector<std::string> ex = {"tile.row_expand_mul", "tile.row_expand_sub", "tile.row_expand_add"};
        pool.push_back(let("rx", pick(ex), {t, red}));
        break;
      }
      case 10: {  // reshape away and back (full valid only)
        Expr t = load_page(page);
        Dims other = {count(page) / page.back(), page.back()};
        if (page.size() >= 2 && page.back() % 2 == 0 && rng.coin()) other = {count(page) / 8, 8};
        if (rng.coin() && page.size() == 2) other = {1, page[0], page[1]};
        Expr r = let("r", "tile.reshape", {t, tup(other)});
        Expr back = let("rb", "tile.reshape", {r, tup(page)});
        pool.push_back(back);
        break;
      }
      case 11: {  // a last-two-axes transpose, stored on its own
        if (page.size() < 2 || flattened_form) break;  // a flattened kernel's transposes carry a scratch
        Expr t = load_page(page);
        auto n = static_cast<std::int64_t>(page.size());
        Expr tt = let("tr", "tile.transpose", {t, ir::make_int(rng.coin() ? n - 2 : -2), ir::make_int(n - 1)});
        Dims sw = page;
        std::swap(sw[page.size() - 2], sw[page.size() - 1]);
        store_fresh(tt, sw, dt);
        break;
      }
      case 12: {  // a loop carrying a tile
        if (depth > 1) break;
        Expr init = some_tile(), addend = some_tile();
        auto trips = rng.range(1, 3);
        const std::string i = name("i"), carry = name("carry");
        auto out = f.for_range(i, 0, trips, 1, {{carry, init}},
                               [&](build::Block& b, const Expr&, const std::vector<Expr>& ia) {
                                 Expr n = b.let(name("n"), "tile.add", {ia[0], addend});
                                 b.yield_({n});
                               });
        pool.push_back(out[0]);
        break;
      }
      case 13: {  // an if with a result
        Expr a = some_tile(), b = some_tile();
        const std::int64_t lhs = rng.range(0, 3), rhs = rng.range(0, 3);
        Expr cond = build::binary(ir::BinaryOp::Lt, ir::make_int(lhs), ir::make_int(rhs));
        auto out = f.if_(
            cond, [&](build::Block& blk) { blk.yield_({blk.let(name("then"), "tile.add", {a, b})}); },
            [&](build::Block& blk) { blk.yield_({blk.let(name("else"), "tile.mul", {a, b})}); }, {name("phi")});
        pool.push_back(out[0]);
        break;
      }
      case 14: {  // the other row-wise ops the generic rule re-creates (issue 34)
        Expr a = some_tile(), b = some_tile();
        switch (rng.range(0, 5)) {
          case 0: {
            const char* op = rng.coin() ? "tile.addc" : "tile.subc";
            pool.push_back(let("c3", op, {a, b, some_tile()}));
            break;
          }
          case 1:
            pool.push_back(let("sc", rng.coin() ? "tile.addsc" : "tile.subsc", {a, ir::make_float(1.5), b}));
            break;
          case 2: pool.push_back(let("pr", "tile.prelu", {a, b, some_tile()})); break;
          case 3: pool.push_back(let("lr", "tile.lrelu", {a, ir::make_float(0.25)})); break;
          case 4: pool.push_back(let("pa", rng.coin() ? "tile.part_add" : "tile.part_max", {a, b})); break;
          default: {
            if (page.size() < 2) break;
            Expr tmp = let("tmp", "tile.create", {tup(page)}, {{"dtype", dt}, {"target_memory", MemorySpace::Vec}});
            Dims reduced = page;
            reduced.back() = 1;
            store_fresh(let("am", rng.coin() ? "tile.row_argmax" : "tile.row_argmin", {a, tmp}), reduced, DataType::INT32);
            break;
          }
        }
        break;
      }
      case 15: compare_and_select(); break;
      case 16: more_elementwise(); break;
      case 17: broadcast_and_reduce(); break;
      case 18: integer_ops(); break;
      case 19: padding_and_scalar_access(); break;
      case 20: generate_gather_sort(); break;
      case 21: system_and_arrays(); break;
      case 22: remote_access(); break;
      default: break;
    }
  }

  // Issue 34: the generator draws every interpreted tile op, so each is flattened (or refused)
  // in front of the interpreter. A draw the registry refuses is skipped by the caller.
  Expr scratch() { return let("tmp", "tile.create", {tup(page)}, {{"dtype", dt}, {"target_memory", MemorySpace::Vec}}); }
  Expr positive(const Expr& t) { return let("pos", "tile.adds", {let("abs", "tile.abs", {t}), ir::make_float(1.0)}); }
  Expr scalar() { return ir::make_float(static_cast<double>(rng.range(1, 8)) / 4.0 * (rng.coin() ? 1 : -1)); }

  void more_elementwise() {
    Expr a = some_tile(), b = some_tile();
    switch (rng.range(0, 2)) {
      case 0: {
        static const std::vector<std::string> ops = {"tile.sqrt", "tile.rsqrt", "tile.log", "tile.recip", "tile.sin", "tile.cos"};
        pool.push_back(let("u", pick(ops), {positive(a)}));
        break;
      }
      case 1: {
        static const std::vector<std::string> ops = {"tile.div", "tile.fmod", "tile.part_min", "tile.part_mul", "tile.rem"};
        const std::string& op = pick(ops);
        std::vector<Expr> args = {a, op == "tile.div" || op == "tile.fmod" ? positive(b) : b};
        if (op == "tile.rem") args.push_back(scratch());
        pool.push_back(let("b", op, std::move(args)));
        break;
      }
      default: {
        static const std::vector<std::string> ops = {"tile.divs", "tile.fmods", "tile.minimums", "tile.expands", "tile.rems"};
        const std::string& op = pick(ops);
        std::vector<Expr> args = {a, scalar()};
        if (op == "tile.rems") args.push_back(scratch());
        pool.push_back(let("s", op, std::move(args)));
        break;
      }
    }
  }

  // Row reductions broadcast back along the rows, column reductions (FL-08: refused above
  // 2-D) broadcast back along the columns.
  void broadcast_and_reduce() {
    if (page.size() < 2) return;
    Expr t = some_tile();
    if (rng.coin()) {
      static const std::vector<std::string> ex = {"tile.row_expand", "tile.row_expand_div", "tile.row_expand_max",
                                                  "tile.row_expand_min", "tile.row_expand_expdif"};
      Expr red = let("red", rng.coin() ? "tile.row_prod" : "tile.row_max", {t, scratch()});
      const std::string& op = pick(ex);
      pool.push_back(let("rx", op, {some_tile(), red}));
      return;
    }
    Dims reduced = page;
    reduced[0] = 1;
    switch (rng.range(0, 2)) {
      case 0: {
        static const std::vector<std::string> ex = {"tile.col_expand", "tile.col_expand_mul", "tile.col_expand_add",
                                                    "tile.col_expand_sub", "tile.col_expand_div", "tile.col_expand_max",
                                                    "tile.col_expand_min", "tile.col_expand_expdif"};
        Expr red = let("col", rng.coin() ? "tile.col_sum" : "tile.col_max", {t});
        const std::string& op = pick(ex);
        pool.push_back(let("cx", op, {some_tile(), red}));
        break;
      }
      case 1: store_fresh(let("col", "tile.col_prod", {t}), reduced, dt); break;
      default:
        store_fresh(let("am", rng.coin() ? "tile.col_argmax" : "tile.col_argmin", {t, scratch()}), reduced, DataType::INT32);
        break;
    }
  }

  // The bitwise family on an integer copy of a tile, cast back to the page's dtype.
  void integer_ops() {
    const DataType it = rng.coin(30) ? DataType::INT16 : DataType::INT32;
    auto to_int = [&](const Expr& t) { return let("i", "tile.cast", {t}, {{"target_type", it}, {"mode", rng.range(0, 4)}}); };
    Expr a = to_int(let("m", "tile.muls", {some_tile(), ir::make_float(4.0)})), b = to_int(some_tile());
    Expr r;
    switch (rng.range(0, 3)) {
      case 0: {
        static const std::vector<std::string> ops = {"tile.and", "tile.or", "tile.shl", "tile.shr", "tile.xor"};
        const std::string& op = pick(ops);
        std::vector<Expr> args = {a, b};
        if (op == "tile.xor") args.push_back(let("itmp", "tile.create", {tup(page)}, {{"dtype", it}, {"target_memory", MemorySpace::Vec}}));
        r = let("bit", op, std::move(args));
        break;
      }
      case 1: {
        static const std::vector<std::string> ops = {"tile.ands", "tile.ors", "tile.shls", "tile.shrs", "tile.xors"};
        const std::string& op = pick(ops);
        std::vector<Expr> args = {a, ir::make_int(rng.range(0, 5), it)};
        if (op == "tile.xors") args.push_back(let("itmp", "tile.create", {tup(page)}, {{"dtype", it}, {"target_memory", MemorySpace::Vec}}));
        r = let("bits", op, std::move(args));
        break;
      }
      default: r = let("not", "tile.not", {it == DataType::INT16 ? a : let("i16", "tile.cast", {a}, {{"target_type", DataType::INT16}, {"mode", std::int64_t{0}}})}); break;
    }
    pool.push_back(let("back", "tile.cast", {r}, {{"target_type", dt}, {"mode", std::int64_t{0}}}));
  }

  // Padding of the invalid region, scalar reads and writes, set_validshape and concat
  // (the last three 2-D only: FlattenTileNdTo2D refuses tile.read/write above 2-D).
  void padding_and_scalar_access() {
    Expr t = some_tile();
    static const std::vector<ir::PadValue> pads = {ir::PadValue::zero, ir::PadValue::max, ir::PadValue::min};
    switch (rng.range(0, 4)) {
      case 0: {
        const char* op = rng.coin() ? "tile.fillpad" : "tile.fillpad_inplace";
        pool.push_back(let("fp", op, {t}, {{"pad_value", pick(pads)}}));
        break;
      }
      case 1: {
        Dims at(page.size());
        for (std::size_t k = 0; k < page.size(); ++k) at[k] = rng.range(0, page[k] - 1);
        Expr v = let("v", "tile.read", {t, tup(at)});
        pool.push_back(let("rs", "tile.adds", {some_tile(), v}));
        break;
      }
      case 2: {
        Dims at(page.size());
        for (std::size_t k = 0; k < page.size(); ++k) at[k] = rng.range(0, page[k] - 1);
        pool.push_back(let("w", "tile.write", {let("c", "tile.adds", {t, ir::make_float(0.0)}), tup(at), ir::make_float(2.5, dt)}));
        break;
      }
      case 3: {
        if (page.size() != 2) return;
        pool.push_back(let("sv", "tile.set_validshape", {t, ir::make_int(rng.range(1, page[0])), ir::make_int(rng.range(1, page[1]))}));
        break;
      }
      default: {
        if (page.size() != 2) return;
        Dims both = page;
        both[1] *= 2;
        store_fresh(let("cat", "tile.concat", {t, some_tile()}), both, dt);
        break;
      }
    }
  }

  // Index generators feeding gathers, scatters and sorts, the mask gathers, the triangle
  // generator and fillpad_expand, at the page's rank (FlattenTileNdTo2D refuses most of them
  // above 2-D; the point is that it refuses rather than re-types them).
  // A call to an op the registry cannot type (upstream's DSL has it annotated): a full Vec tile.
  Expr typed(const char* base, std::string_view op, std::vector<Expr> args, ir::Kwargs kw, const Dims& shape, DataType t) {
    ir::Type type = ir::make_tile_type(idx(shape), t, ops::deduce::default_view(), MemorySpace::Vec);
    return f.let(name(base), ops::create_call(reg, op, std::move(args), std::move(kw), {}, type));
  }
  void generate_gather_sort() {
    const std::int64_t cols = page.back(), elems = count(page);
    Dims row(page.size(), 1);
    row.back() = cols;
    // cols distinct flat offsets into the page, ascending or descending: counted at the page's
    // rank (FlattenTileNdTo2D refuses tile.ci above 2-D) or, mostly above 2-D, counted on one
    // 2-D row reshaped to it, so that the gathers and scatters above 2-D reach the interpreter.
    auto index = [&](DataType it) {
      const bool down = rng.coin();
      const std::int64_t start = down ? rng.range(cols - 1, elems - 1) : rng.range(0, elems - cols);
      ir::Kwargs kw = {{"dtype", it}, {"descending", down}};  // as the DSL fills it in
      if (row.size() <= 2 || rng.coin(30))
        return typed("ix", "tile.ci", {ir::make_int(start, DataType::INT32), tup(row)}, std::move(kw), row, it);
      Expr counted = typed("ix", "tile.ci", {ir::make_int(start, DataType::INT32), tup({1, cols})}, std::move(kw), {1, cols}, it);
      return let("ixr", "tile.reshape", {counted, tup(row)});
    };
    Expr t = some_tile();
    if (ir::tile_type(t)->dtype != dt) return;  // (an add of an integer scalar may have promoted it)
    const std::int64_t kind = rng.range(0, 12);
    if (page.size() < 2 && kind >= 2 && kind <= 6) return;  // 2-D ops: the interpreter refuses rank 1
    if (kind >= 9) return gm_gather_scatter(t, kind, index);
    switch (kind) {
      case 0: {
        Expr ix = index(DataType::INT32);
        store_fresh(typed("g", "tile.gather", {t, ix, ix}, {}, row, dt), row, dt);
        break;
      }
      case 1: {
        Expr ix = index(DataType::INT32);
        Expr vals = typed("g", "tile.gather", {t, index(DataType::INT32), ix}, {}, row, dt);
        pool.push_back(typed("sc", "tile.scatter", {let("c", "tile.adds", {some_tile(), ir::make_float(0.0)}), vals, ix}, {}, page, dt));
        break;
      }
      case 2: {
        const std::int64_t pattern = rng.range(1, 2);
        Dims half = page;
        half.back() = cols / 2;
        Expr picked = typed("gm", "tile.gather_mask", {t}, {{"mask_pattern", pattern}}, half, dt);
        if (rng.coin()) {
          const std::int64_t into = rng.range(1, 2);
          pool.push_back(typed("sm", "tile.scatter_mask", {let("c", "tile.adds", {some_tile(), ir::make_float(0.0)}), picked},
                               {{"mask_pattern", into}}, page, dt));
        } else {
          store_fresh(picked, half, dt);
        }
        break;
      }
      case 3: {
        if (dt != DataType::FP32) return;
        Expr vals = typed("g", "tile.gather", {t, index(DataType::INT32), index(DataType::INT32)}, {}, row, dt);
        Dims pairs = row, four = row;
        pairs.back() = 2 * cols;
        four.back() = 4 * cols;
        Expr sorted = typed("srt", "tile.sort32", {vals, index(DataType::UINT32)}, {}, pairs, dt);
        switch (rng.range(0, 2)) {
          case 0: store_fresh(sorted, pairs, dt); break;
          case 1: {  // two sorted lists merged, possibly until the first runs out
            Expr tmp = let("tmp", "tile.create", {tup(four)}, {{"dtype", dt}, {"target_memory", MemorySpace::Vec}});
            ir::Kwargs kw;
            if (rng.coin()) kw.emplace_back("exhausted", true);
            store_fresh(typed("mrg", "tile.mrgsort_format2", {sorted, sorted, tmp}, std::move(kw), four, dt), four, dt);
            break;
          }
          default: {  // four runs of cols lanes merged in place
            Expr both = let("cat", "tile.concat", {sorted, sorted});
            store_fresh(typed("mrg", "tile.mrgsort_format1", {both, ir::make_int(cols)}, {}, four, dt), four, dt);
            break;
          }
        }
        break;
      }
      case 4: {
        ir::Kwargs kw = {{"dtype", dt}};
        if (rng.coin()) kw.emplace_back("upper", true);
        pool.push_back(typed("tri", "tile.tri", {ir::make_int(rng.range(-3, 3), DataType::INT32), tup(page)}, std::move(kw), page, dt));
        break;
      }
      case 6: {  // one row of a copy replaced by a gathered row
        Dims one = {1, 1};
        Expr at = typed("at", "tile.ci", {ir::make_int(rng.range(0, page[0] - 1), DataType::INT32), tup(one)},
                        {{"dtype", DataType::INT32}, {"descending", false}}, one, DataType::INT32);
        Expr src = typed("g", "tile.gather", {t, index(DataType::INT32), index(DataType::INT32)}, {}, row, dt);
        Expr copy = let("c", "tile.adds", {some_tile(), ir::make_float(0.0)});
        pool.push_back(typed("su", "tile.scatter_update", {copy, at, src}, {{"dim", std::int64_t{-2}}}, page, dt));
        break;
      }
      case 7: {  // the bits seen as a same-width integer and back
        Expr bits = let("bits", "tile.reinterpret_view", {t}, {{"dtype", dt == DataType::FP16 ? DataType::INT16 : DataType::INT32}});
        pool.push_back(let("rv", "tile.reinterpret_view", {bits}, {{"dtype", dt}}));
        break;
      }
      case 8: {  // the core's coordinates, as scalars
        static const std::vector<std::string> ops = {"tile.get_block_idx", "tile.get_block_num", "tile.get_subblock_idx"};
        Expr b = f.let(name("blk"), ops::create_call(reg, pick(ops), {}, {}, {}, ir::scalar_type(DataType::INDEX)));
        pool.push_back(let("ab", "tile.adds", {t, b}));
        break;
      }
      default: {
        Dims wide = page;
        wide.back() = 2 * cols;
        static const std::vector<ir::PadValue> pads = {ir::PadValue::zero, ir::PadValue::max, ir::PadValue::min};
        store_fresh(let("fx", "tile.fillpad_expand", {t, tup(wide)}, {{"pad_value", pick(pads)}}), wide, dt);
        break;
      }
    }
  }

  // The gathers by offset: tile.mgather from the input tensor (flat elements or rows, indices
  // running past it under each gather_oob mode), tile.mscatter of a row into a fresh output,
  // tile.gatherb of 32-byte blocks of a tile (FlattenTileNdTo2D meets them at the page's rank),
  // tile.gather_row of a window of a 2-D input into a copy of a tile, transposed or not.
  template <class Index>
  void gm_gather_scatter(const Expr& t, std::int64_t kind, Index& index) {
    const std::int64_t cols = page.back(), x_elems = count(xshape), x_cols = xshape.back();
    auto counted = [&](std::int64_t start, std::int64_t n, bool down, DataType it) {
      ir::Kwargs kw = {{"dtype", it}, {"descending", down}};
      return typed("ix", "tile.ci", {ir::make_int(start, DataType::INT32), tup({1, n})}, std::move(kw), {1, n}, it);
    };
    if (kind == 9) {
      const bool by_row = xshape.size() >= 2 && rng.coin();
      const std::int64_t capacity = by_row ? x_elems / x_cols : x_elems;
      const std::int64_t n = by_row ? rng.range(1, std::min<std::int64_t>(capacity, 4)) : cols;
      const bool down = rng.coin();
      // One draw in four runs past mem, under a mode that says what that reads.
      const std::int64_t oob = rng.coin(25) ? rng.range(1, 3) : 0;
      const std::int64_t start = oob ? (down ? capacity + n / 2 : std::max<std::int64_t>(capacity - n / 2 - 1, 0))
                                     : (down ? rng.range(n - 1, capacity - 1) : rng.range(0, capacity - n));
      ir::Kwargs kw = {{"coalesce", std::int64_t{by_row ? 0 : 1}}};
      if (oob) kw.emplace_back("gather_oob", oob);
      kw.emplace_back("target_memory", MemorySpace::Vec);
      const Dims shape = by_row ? Dims{n, x_cols} : Dims{1, n};
      store_fresh(typed("mg", "tile.mgather", {x, counted(start, n, down, DataType::INT32)},
                        std::move(kw), shape, dt),
                  shape, dt);
    } else if (kind == 10) {
      // A row of x, at the page's rank, scattered into distinct flat elements of a fresh output.
      Dims row(page.size(), 1);
      row.back() = cols;
      Expr src = let("row", "tile.load", {x, tup(Dims(page.size(), 0)), tup(row), tup(row)}, mem(MemorySpace::Vec));
      Expr out = out_param(page, dt), at = index(DataType::INT32);
      results.push_back(f.let(name("ms"), ops::create_call(reg, "tile.mscatter", {src, at, out}, {}, {}, out->type)));
    } else if (kind == 11) {
      // Eight 32-byte blocks of t, at offsets masked into it; read as t's dtype or as the
      // integer of its width.
      const std::int64_t bytes = ir::storage_bits(dt) / 8, blocks = count(page) * bytes / 32;
      if (blocks < 1) return;
      std::int64_t span = 1;
      while (span * 2 <= blocks) span *= 2;
      const std::int64_t first = rng.range(0, 15);
      Expr k = counted(first, 8, rng.coin(), DataType::UINT32);
      Expr in_range = let("blk", "tile.ands", {k, ir::make_int(span - 1, DataType::UINT32)});
      Expr offsets = let("off", "tile.shls", {in_range, ir::make_int(5, DataType::UINT32)});
      const DataType out_dt = rng.coin() ? dt : dt == DataType::FP16 ? DataType::INT16 : DataType::INT32;
      ir::Kwargs kw;
      if (out_dt != dt) kw.emplace_back("output_dtype", out_dt);
      const Dims shape = {1, 8 * (32 / bytes)};
      store_fresh(typed("gb", "tile.gatherb", {t, offsets}, std::move(kw), shape, out_dt), shape, out_dt);
    } else {
      if (xshape.size() != 2 || page.size() != 2) return;
      // A window [h, w] of x, laid into the page as it is or (transpose) as [w, h].
      const bool transpose = rng.coin(25);
      const std::int64_t h = rng.range(1, std::min(xshape[0], transpose ? page[1] : page[0]));
      const std::int64_t w = rng.range(1, std::min(xshape[1], transpose ? page[0] : page[1]));
      const std::int64_t sr = rng.range(0, xshape[0] - h), sc = rng.range(0, xshape[1] - w);
      const std::int64_t dr = rng.range(0, page[0] - (transpose ? w : h));
      const std::int64_t dc = rng.range(0, page[1] - (transpose ? h : w));
      Expr dst = let("c", "tile.adds", {t, ir::make_float(0.0)});
      std::vector<Expr> args = {dst, x, tup({dr, dc}), tup({sr, sc}), tup({h, w})};
      if (!transpose && rng.coin(30)) {
        const std::int64_t vr = rng.range(0, h), vc = rng.range(1, w);
        args.push_back(tup({vr, vc}));
      }
      ir::Kwargs kw;
      if (transpose) kw.emplace_back("transpose", true);
      pool.push_back(f.let(name("gr"), ops::create_call(reg, "tile.gather_row", std::move(args), std::move(kw), {}, dst->type)));
    }
  }

  // The distributed load and store (the interpreter models the window buffer as local
  // memory); FlattenTileNdTo2D re-creates the load with its result type flattened (FL-41).
  void remote_access() {
    Dims off(page.size(), 0);
    if (rng.coin()) {
      Dims valid = random_valid();
      ir::TileView view = ops::deduce::default_view();
      if (valid != page) view.valid_shape = idx(valid);
      ir::Type type = ir::make_tile_type(idx(page), dt, view, MemorySpace::Vec);
      pool.push_back(f.let(name("rl"), ops::create_call(reg, "pld.tile.remote_load",
                                                        {x, ir::make_int(0), tup(off), tup(page), tup(valid)}, {}, {}, type)));
    } else {
      Expr out = out_param(page, dt);
      f.eval("pld.tile.remote_store", {some_tile(), out, ir::make_int(0), tup(off)});
    }
  }

  // Effect-only system ops, which the interpreter runs as no-ops and a pass must keep in
  // place, and the scalar arrays.
  void system_and_arrays() {
    switch (rng.range(0, 3)) {
      case 0: {
        static const std::vector<std::string> ops = {"system.bar_all", "system.bar_v", "system.bar_m", "system.fence",
                                                     "system.syncall"};
        f.eval(pick(ops), {});
        if (rng.coin()) let("task", rng.coin() ? "system.task_dummy" : "system.task_invalid", {});
        break;
      }
      case 1: {
        const std::int64_t set = rng.range(0, 7), wait = rng.range(0, 7), id = rng.range(0, 7);
        f.eval(rng.coin() ? "system.sync_src" : "system.sync_dst", {}, {{"set_pipe", set}, {"wait_pipe", wait}, {"event_id", id}});
        f.eval(rng.coin() ? "system.sync_set" : "system.sync_wait", {ir::make_int(id)}, {{"pipe", set}});
        break;
      }
      case 2:
        if (rng.coin()) f.eval("system.cacheinvalid", {x, tup(Dims(page.size(), 0)), tup(page)});
        else f.eval("system.set_ffts", {x});
        break;
      default: {
        const std::int64_t n = rng.range(1, 4), at = rng.range(0, n - 1);
        Expr a = let("arr", "array.create", {ir::make_int(n)}, {{"dtype", DataType::INT32}});
        a = let("arr", "array.update_element", {a, ir::make_int(at), ir::make_int(rng.range(-3, 3), DataType::INT32)});
        pool.push_back(let("ae", "tile.adds", {some_tile(), let("el", "array.get_element", {a, ir::make_int(at)})}));
        break;
      }
    }
  }

  // tile.cmp / tile.cmps into a packed UINT8 predicate (one bit per element along the rows,
  // rows padded to 32 bytes, as upstream types it), then tile.sel / tile.sels through it
  // (issue 34: row-wise ops the generic rule re-creates on 2D tiles).
  void compare_and_select() {
    Expr a = some_tile(), b = some_tile();
    Dims valid;
    for (const auto& v : ir::valid_shape(*ir::tile_type(a))) {
      auto c = ir::const_int(v);
      if (!c) return;
      valid.push_back(*c);
    }
    Dims mshape = page, mvalid = valid;
    mshape.back() = ((page.back() + 7) / 8 + 31) / 32 * 32;
    mvalid.back() = (valid.back() + 7) / 8;
    ir::TileView view = ops::deduce::default_view();
    view.valid_shape = idx(mvalid);
    ir::Type mask_t = ir::make_tile_type(idx(mshape), DataType::UINT8, view, MemorySpace::Vec);
    const auto mode = rng.range(0, 5);
    const bool scalar = rng.coin();
    const double c = static_cast<double>(rng.range(-4, 4)) / 2.0;
    std::vector<Expr> args = {a, scalar ? ir::make_float(c) : b};
    Expr mask = f.let(name("mask"), ops::create_call(reg, scalar ? "tile.cmps" : "tile.cmp", std::move(args),
                                                     {{"cmp_type", mode}}, {}, mask_t));
    if (rng.coin())
      pool.push_back(let("sel", "tile.sel", {mask, some_tile(), some_tile(), some_tile()}));
    else
      pool.push_back(let("sels", "tile.sels", {mask, some_tile(), some_tile(), ir::make_float(c)}));
  }
};

// `rank` 0 draws one; the other passes take 2-D programs of every op (`op_soup_2d`).
inline ir::Program flatten_elementwise(const Options& o, std::size_t rank = 0) {
  FlattenGen g(o.seed);
  g.any_partial = o.any_partial_valid || (o.adversarial && g.rng.coin(10));
  g.flattened_form = rank != 0;
  if (rank == 0) rank = static_cast<std::size_t>(g.pick(std::vector<std::int64_t>{1, 2, 3, 3, 3, 4, 4, 5}));
  g.dt = g.rng.coin(20) ? DataType::FP16 : DataType::FP32;
  g.page = random_page(g.rng, rank, g.dt);
  g.xshape = g.page;
  for (auto& d : g.xshape)
    if (g.rng.coin(40)) d *= 2;
  g.x = g.f.param("x", tensor_t(g.xshape, g.dt));
  g.pool.push_back(g.load_page(g.random_valid()));
  auto steps = g.rng.range(2, 9);
  const bool adversarial = o.adversarial && g.rng.coin(25);
  for (std::int64_t i = 0; i < steps; ++i) {
    try {
      if (adversarial && g.rng.coin(25))
        g.adversarial_step();
      else
        g.step(0);
    } catch (const ir::Error&) {
      // The registry refused this combination (its deducer's checks): skip the step; what it
      // already emitted is dead code, which the passes must handle as well.
    }
  }
  g.store_fresh(g.pool.back(), g.page, g.dt);
  if (g.rng.coin(30)) g.store_fresh(g.pick(g.pool), g.page, g.dt);
  return g.finish();
}

// Batched matmuls: lhs [LB…, M, K] × rhs [RB…, K, N] with broadcast batch dims, optional
// transpose_view operands (loaded [.., K, M] / [.., N, K]), fused or staged stores, and an
// accumulating batch_matmul_acc after a first batch_matmul.
inline ir::Program flatten_batch_matmul(const Options& o) {
  Gen g(o.seed);
  Rng& r = g.rng;
  std::size_t nb = static_cast<std::size_t>(r.range(1, 2));
  Dims batch(nb);
  for (auto& b : batch) b = r.range(1, 3);
  Dims lb = batch, rb = batch;
  for (std::size_t k = 0; k < nb; ++k) {
    if (batch[k] > 1 && r.coin(25)) lb[k] = 1;
    else if (batch[k] > 1 && r.coin(25)) rb[k] = 1;
  }
  if (nb == 2 && r.coin(20)) rb.erase(rb.begin());  // a missing leading dim broadcasts too
  std::int64_t m = 16, kk = r.coin() ? 16 : 32, n = r.coin() ? 16 : 32;
  bool acc_chain = r.coin(30);
  if (acc_chain) {  // packable: M, N multiples of 16 and FP32 accumulators (FL-64)
    lb = rb = batch;
  }
  bool lt = r.coin(30), rt = r.coin(30);
  auto operand = [&](const char* pname, Dims b, std::int64_t rows, std::int64_t cols, bool transposed) {
    Dims shape = b;
    shape.push_back(transposed ? cols : rows);
    shape.push_back(transposed ? rows : cols);
    Expr t = g.f.param(pname, tensor_t(shape, DataType::FP16));
    Dims zero(shape.size(), 0);
    Expr l = g.let(pname, "tile.load", {t, tup(zero), tup(shape), tup(shape)}, mem(MemorySpace::Mat));
    if (transposed) l = g.let(pname, "tile.transpose_view", {l});
    return l;
  };
  Expr a = operand("lhs", lb, m, kk, lt);
  Expr b = operand("rhs", rb, kk, n, rt);
  Expr c = g.let("c", "tile.batch_matmul", {a, b});
  Dims out = batch;
  out.push_back(m);
  out.push_back(n);
  if (acc_chain) {
    Expr a2 = operand("lhs2", lb, m, kk, false);
    Expr b2 = operand("rhs2", rb, kk, n, false);
    c = g.let("acc", "tile.batch_matmul_acc", {c, a2, b2});
    g.results.push_back(g.let("stored", "tile.store", {c, tup(Dims(out.size(), 0)), g.out_param(out, DataType::FP32)}));
    return g.finish();
  }
  if (r.coin(40)) {
    Expr v = g.let("v", "tile.move", {c}, mem(MemorySpace::Vec));
    c = g.let("e", g.pick(std::vector<std::string>{"tile.exp", "tile.neg", "tile.relu"}), {v});
  }
  Dims off(out.size(), 0);
  Dims tshape = out;
  if (r.coin(30)) {
    tshape[0] *= 2;
    off[0] = out[0];
  }
  g.results.push_back(g.let("stored", "tile.store", {c, tup(off), g.out_param(tshape, DataType::FP32)}));
  return g.finish();
}

// The 2-D cube ops a flattened kernel keeps as they are: matmul_acc chains, matmul_bias,
// and the one-row gemv family (issue 34). FP16 operands loaded to Mat and moved to Left/Right,
// FP32 biases moved to Bias.
inline ir::Program cube_2d(const Options& o) {
  Gen g(o.seed);
  Rng& r = g.rng;
  const std::int64_t k = r.coin() ? 16 : 32, n = r.coin() ? 16 : 32;
  const bool gemv = r.coin();
  const std::int64_t m = gemv ? 1 : 16;
  auto operand = [&](const char* pname, Dims shape, DataType dt, MemorySpace to) {
    Expr t = g.f.param(g.name(pname), tensor_t(shape, dt));
    Expr l = g.let(pname, "tile.load", {t, tup({0, 0}), tup(shape), tup(shape)}, mem(MemorySpace::Mat));
    return g.let(pname, "tile.move", {l}, mem(to));
  };
  Expr a = operand("lhs", {m, k}, DataType::FP16, MemorySpace::Left);
  Expr b = operand("rhs", {k, n}, DataType::FP16, MemorySpace::Right);
  Expr c;
  Dims out = {m, n};
  if (gemv) {
    ir::Kwargs phase;
    if (r.coin()) phase.emplace_back("acc_phase", std::string(r.coin() ? "partial" : "final"));
    switch (r.range(0, 2)) {
      case 0: c = g.let("c", "tile.gemv", {a, b}, phase); break;
      case 1: c = g.let("c", "tile.gemv_acc", {g.let("c", "tile.gemv", {a, b}), operand("lhs", {m, k}, DataType::FP16, MemorySpace::Left), b}, phase); break;
      default: c = g.let("c", "tile.gemv_bias", {a, b, operand("bias", {1, n}, DataType::FP32, MemorySpace::Bias)}, phase); break;
    }
  } else if (r.coin()) {
    c = g.let("c", "tile.matmul", {a, b});
    for (auto chain = r.range(1, 2); chain > 0; --chain)
      c = g.let("acc", "tile.matmul_acc", {c, operand("lhs", {m, k}, DataType::FP16, MemorySpace::Left), operand("rhs", {k, n}, DataType::FP16, MemorySpace::Right)});
  } else {
    c = g.let("c", "tile.matmul_bias", {a, b, operand("bias", {1, n}, DataType::FP32, MemorySpace::Bias)});
  }
  g.results.push_back(g.let("stored", "tile.store", {c, tup({0, 0}), g.out_param(out, DataType::FP32)}));
  return g.finish();
}

// The chunked loop over a dynamic dimension (seed 000, issue #1578): a static [1, CHUNK, C]
// page per trip whose valid rows are the tail pl.min(CHUNK, S - c), stored back at c.
inline ir::Program flatten_dynamic_chunks(const Options& o) {
  Gen g(o.seed);
  Rng& r = g.rng;
  Expr S = ir::make_var("S", ir::scalar_type(DataType::INDEX));
  std::int64_t chunk = g.pick(std::vector<std::int64_t>{2, 4, 8}), cols = g.pick(std::vector<std::int64_t>{8, 16});
  std::int64_t lead = r.range(1, 2);
  std::vector<Expr> shape = {ir::make_int(lead), S, ir::make_int(cols)};
  Expr x = g.f.param("x", ir::make_tensor_type(shape, DataType::FP32));
  Expr out = g.f.param("out", ir::make_tensor_type(shape, DataType::FP32), ir::ParamDirection::Out);
  std::int64_t b = r.range(0, lead - 1);
  double k = static_cast<double>(r.range(-4, 4)) / 2.0;
  bool twice = r.coin();
  auto results = g.f.for_range("c", 0, S, chunk, {{"o", out}},
                               [&](build::Block& blk, const Expr& c, const std::vector<Expr>& ia) {
                                 Expr tail = blk.let("valid", build::binary(ir::BinaryOp::Min, ir::make_int(chunk),
                                                                            build::binary(ir::BinaryOp::Sub, S, c)));
                                 Expr off = ir::make_tuple({ir::make_int(b), c, ir::make_int(0)});
                                 Expr t = blk.let("t", "tile.load",
                                                  {x, off, tup({1, chunk, cols}), ir::make_tuple({ir::make_int(1), tail, ir::make_int(cols)})},
                                                  mem(MemorySpace::Vec));
                                 Expr u = blk.let("u", "tile.muls", {t, ir::make_float(k)});
                                 if (twice) u = blk.let("v", "tile.add", {u, t});
                                 blk.yield_({blk.let("stored", "tile.store", {u, off, ia[0]})});
                               });
  g.results.push_back(results[0]);
  return g.finish();
}

// ---- MaterializeTensorStrides ------------------------------------------------------------

inline ir::Program materialize(const Options& o) {
  Gen g(o.seed);
  Rng& r = g.rng;
  std::vector<ir::Function> extra;
  DataType dt = r.coin(30) ? DataType::FP16 : DataType::FP32;
  std::int64_t c0 = dt == DataType::FP16 ? 16 : 8;
  std::vector<std::pair<Expr, ir::Type>> params;
  int tensors = static_cast<int>(r.range(1, 3));
  Expr acc;
  Dims tile_shape = {16, c0};
  for (int i = 0; i < tensors; ++i) {
    int kind = static_cast<int>(r.range(0, 2));
    Dims shape;
    ir::TensorView view{};
    Dims off, win;
    if (kind == 2) {  // blocked NZ [B, C/c0, R/16, 16, c0]
      std::int64_t blocks = r.range(1, 2), cb = r.range(1, 2), rb = r.range(1, 2);
      shape = {blocks, cb, rb, 16, c0};
      view.layout = ir::TensorLayout::NZ;
      off = {r.range(0, blocks - 1), r.range(0, cb - 1), r.range(0, rb - 1), 0, 0};
      win = {1, 1, 1, 16, c0};
    } else {
      auto rank = static_cast<std::size_t>(r.range(2, 4));
      shape.assign(rank, 1);
      for (std::size_t k = 0; k + 2 < rank; ++k) shape[k] = r.range(1, 2);
      shape[rank - 2] = 16 * r.range(1, 2);
      shape[rank - 1] = c0 * r.range(1, 2);
      view.layout = kind == 0 ? ir::TensorLayout::DN : ir::TensorLayout::ND;
      off.assign(rank, 0);
      win.assign(rank, 1);
      for (std::size_t k = 0; k + 2 < rank; ++k) off[k] = r.range(0, shape[k] - 1);
      off[rank - 2] = 16 * r.range(0, shape[rank - 2] / 16 - 1);
      off[rank - 1] = c0 * r.range(0, shape[rank - 1] / c0 - 1);
      win[rank - 2] = 16;
      win[rank - 1] = c0;
    }
    ir::Type tt = tensor_t(shape, dt, view);
    Expr p = g.f.param(g.name("x"), tt);
    params.push_back({p, tt});
    Expr load = g.f.call("tile.load", {p, tup(off), tup(win), tup(win)}, mem(MemorySpace::Vec));
    Expr t;
    if (win.size() == 2) {
      t = g.f.let(g.name("t"), load);
    } else {
      // The load deduces the window's rank; the 2-D tile a flattened kernel has is written
      // as the Var's and the Call's type, as FlattenTileNdTo2D leaves it (FL-13).
      auto* call = ir::as<ir::Call>(load);
      ir::Type flat = ir::make_tile_type(idx(tile_shape), dt, std::nullopt, MemorySpace::Vec);
      Expr value = ir::make_call(call->callee.op, call->args, call->kwargs, flat);
      t = ir::make_var(g.name("t"), flat);
      g.f.append(ir::make_stmt(ir::Assign{t, value}));
    }
    acc = acc ? g.let("sum", r.coin() ? "tile.add" : "tile.sub", {acc, t}) : t;
  }
  if (r.coin()) acc = g.let("m", "tile.muls", {acc, ir::make_float(0.5)});
  // The kernel's other reads and writes through a tensor's view (issue 34), each view's
  // strides the pass fills: a GM gather by flat element from an ND parameter, a GM scatter
  // of the sum into an ND output, and a row of a 2-D parameter (ND or DN) gathered into the
  // sum.
  if (r.coin(40)) {
    const auto& [p, tt] = params[static_cast<std::size_t>(r.range(0, static_cast<std::int64_t>(params.size()) - 1))];
    const auto* pt = ir::as<ir::TensorType>(tt);
    Dims shape;
    for (const auto& d : pt->shape) shape.push_back(ir::const_int(d).value_or(1));
    const ir::TensorLayout layout = pt->view ? pt->view->layout : ir::TensorLayout::ND;
    auto tile_of = [&](const Dims& d, DataType t) { return ir::make_tile_type(idx(d), t, ops::deduce::default_view(), MemorySpace::Vec); };
    auto ramp = [&](std::int64_t start, std::int64_t n, bool down) {
      return g.f.let(g.name("ix"), ops::create_call(g.reg, "tile.ci", {ir::make_int(start, DataType::INT32), tup({1, n})},
                                                    {{"dtype", DataType::INT32}, {"descending", down}}, {},
                                                    tile_of({1, n}, DataType::INT32)));
    };
    try {
      switch (r.range(0, 2)) {
        case 2: {
          if (shape.size() != 2 || layout == ir::TensorLayout::NZ) break;
          const std::int64_t sr = r.range(0, shape[0] - 1), sc = c0 * r.range(0, shape[1] / c0 - 1), dr = r.range(0, 15);
          acc = g.f.let(g.name("gr"), ops::create_call(g.reg, "tile.gather_row",
                                                       {acc, p, tup({dr, 0}), tup({sr, sc}), tup({1, c0})}, {}, {},
                                                       acc->type));
          break;
        }
        case 0: {
          if (layout != ir::TensorLayout::ND) break;
          Expr ix = ramp(r.range(0, count(shape) - c0), c0, false);
          Expr got = g.f.let(g.name("mg"), ops::create_call(g.reg, "tile.mgather", {p, ix},
                                                            {{"coalesce", std::int64_t{1}}, {"target_memory", MemorySpace::Vec}},
                                                            {}, tile_of({1, c0}, dt)));
          g.results.push_back(g.let("stored", "tile.store", {got, tup({0, 0}), g.out_param({1, c0}, dt)}));
          break;
        }
        default: {
          ir::TensorView nd{};
          nd.layout = ir::TensorLayout::ND;
          Expr out = g.out_param(tile_shape, dt, nd);
          const std::int64_t n = count(tile_shape);
          const bool down = r.coin();
          Expr ix = g.let("ixr", "tile.reshape", {ramp(down ? n - 1 : 0, n, down), tup(tile_shape)});
          g.results.push_back(
              g.f.let(g.name("ms"), ops::create_call(g.reg, "tile.mscatter", {acc, ix, out}, {}, {}, out->type)));
          break;
        }
      }
    } catch (const ir::Error&) {
      // The registry refused the draw (its deducer's checks): what was emitted is dead code.
    }
  }
  ir::TensorView ov{};
  bool dn_out = r.coin(40);
  if (dn_out) ov.layout = ir::TensorLayout::DN;
  Dims oshape = {16, c0};
  Expr out = g.out_param(oshape, dt, dn_out ? std::optional<ir::TensorView>(ov) : std::nullopt);
  g.results.push_back(g.let("stored", "tile.store", {acc, tup({0, 0}), out}));
  ir::Program kernel_only = g.finish();
  // An orchestration caller passing the same tensors.
  build::FunctionBuilder mainf("main", ir::FunctionType::Orchestration, g.reg);
  std::vector<Expr> args;
  ir::Function k = kernel_only->functions.front();
  for (const auto& p : k->params) args.push_back(mainf.param(std::string(ir::name_hint(p.var)), p.var->type, p.direction));
  Expr y = mainf.let("y", ir::make_function_call("kernel", args, k->return_types.front()));
  std::vector<Expr> returned = {y};
  // Tensor ops on the caller's side, each operand read through its layout (issue 34): on
  // what the kernel returned ([16, c0]) or on a parameter of the caller. A draw the registry
  // refuses is skipped.
  const Dims yshape = oshape;
  auto typed = [&](const char* op, std::vector<Expr> a, ir::Kwargs kw, const Dims& shape, DataType t) {
    return mainf.let(g.name("z"), ops::create_call(g.reg, op, std::move(a), std::move(kw), {}, tensor_t(shape, t)));
  };
  for (auto n = r.range(0, 2); n > 0; --n) {
    const auto xi = static_cast<std::size_t>(r.range(0, static_cast<std::int64_t>(params.size()) - 1));
    const Expr& x = args[xi];
    static const std::vector<std::string> binary = {"tensor.add", "tensor.sub", "tensor.mul", "tensor.div",
                                                    "tensor.maximum", "tensor.minimum"};
    // (tensor.adds is no op of its own in text: `pl.tensor.adds(...)` reads back as tensor.add.)
    static const std::vector<std::string> scalar = {"tensor.add", "tensor.subs", "tensor.muls", "tensor.divs"};
    static const std::vector<std::string> reduce = {
        "tensor.row_sum", "tensor.row_max", "tensor.row_min", "tensor.row_prod", "tensor.row_argmax", "tensor.row_argmin",
        "tensor.col_sum", "tensor.col_max", "tensor.col_min", "tensor.col_prod", "tensor.col_argmax", "tensor.col_argmin"};
    try {
      switch (r.range(0, 10)) {
        case 0: returned.push_back(mainf.let(g.name("z"), g.pick(binary), {y, y})); break;
        case 1: returned.push_back(mainf.let(g.name("z"), g.pick(scalar), {y, ir::make_float(0.5)})); break;
        case 2: {
          const std::string& op = g.pick(reduce);
          returned.push_back(mainf.let(g.name("z"), op, {r.coin() ? x : y}));
          break;
        }
        case 3: returned.push_back(typed("tensor.exp", {y}, {}, yshape, dt)); break;
        case 4:
          returned.push_back(typed("tensor.cast", {y}, {{"target_type", DataType::INT32}, {"mode", r.range(0, 4)}}, yshape,
                                   DataType::INT32));
          break;
        case 5: {
          Dims tr = {yshape[1], yshape[0]};
          Expr t = typed("tensor.transpose", {y, ir::make_int(0), ir::make_int(1)}, {}, tr, dt);
          returned.push_back(r.coin() ? t : typed("tensor.matmul", {y, t}, {}, {yshape[0], yshape[0]}, dt));
          break;
        }
        case 6: {
          Expr v = mainf.let(g.name("v"), "tensor.read", {y, tup({r.range(0, yshape[0] - 1), r.range(0, yshape[1] - 1)})});
          returned.push_back(mainf.let(g.name("z"), "tensor.add", {y, v}));
          break;
        }
        case 7: {  // a fresh tensor, written, assembled into and reshaped
          Expr z = r.coin() ? mainf.let(g.name("z"), "tensor.create", {tup(yshape)}, {{"dtype", dt}})
                            : mainf.let(g.name("z"), "tensor.full", {tup(yshape), ir::make_float(1.5)}, {{"dtype", dt}});
          if (r.coin()) mainf.eval("tensor.write", {z, tup({r.range(0, yshape[0] - 1), 0}), ir::make_float(2.0, dt)});
          z = typed("tensor.assemble", {z, y, tup({0, 0})}, {}, yshape, dt);
          returned.push_back(r.coin() ? z : mainf.let(g.name("z"), "tensor.reshape", {z, tup({yshape[1], yshape[0]})}));
          break;
        }
        case 8: {
          // An allocation handle first, now and then: it computes nothing, and a pass must keep it.
          if (r.coin(25))
            mainf.let(g.name("p"), "tensor.alloc",
                      {ir::make_int(static_cast<std::int64_t>(MemorySpace::DDR)), ir::make_int(count(yshape) * 4)});
          Dims shape;  // the parameter seen as [rows, last]
          for (const auto& d : ir::as<ir::TensorType>(params[xi].second)->shape) shape.push_back(ir::const_int(d).value_or(1));
          returned.push_back(mainf.let(g.name("z"), "tensor.view", {x, tup({count(shape) / shape.back(), shape.back()})}));
          break;
        }
        case 9: {
          // The parameter's bytes as the integer of its width (upstream keeps this op out of
          // kernels: its tensor-to-tile conversion lowers it).
          const auto* pt = ir::as<ir::TensorType>(params[xi].second);
          if (pt->view && pt->view->layout == ir::TensorLayout::NZ) break;
          const DataType bits = dt == DataType::FP16 ? DataType::INT16 : DataType::INT32;
          returned.push_back(mainf.let(g.name("z"), ops::create_call(g.reg, "tensor.reinterpret_view", {x}, {{"dtype", bits}}, {},
                                                                     ir::make_tensor_type(pt->shape, bits, pt->view))));
          break;
        }
        default: {
          // A window of the parameter, read through its layout.
          Dims win, off;
          for (const auto& d : ir::as<ir::TensorType>(params[xi].second)->shape) {
            std::int64_t e = ir::const_int(d).value_or(1);
            win.push_back(r.range(1, e));
            off.push_back(r.range(0, e - win.back()));
          }
          returned.push_back(mainf.let(g.name("z"), "tensor.slice", {x, tup(win), tup(off)}));
          break;
        }
      }
    } catch (const ir::Error&) {
    }
  }
  mainf.ret(returned);
  return ir::make_program("Random", {k, mainf.finish()});
}

// ---- FoldNoOpReshape ---------------------------------------------------------------------

inline ir::Type with_memref(const ir::Type& t, const Expr& base, std::int64_t offset, std::int64_t bytes) {
  const auto* tt = ir::as<ir::TileType>(t);
  Expr mr = ir::make_expr(ir::MemRef{base, ir::make_int(offset, DataType::INT64), static_cast<std::uint64_t>(bytes), false, 1, nullptr},
                          ir::marker_type(ir::Marker::MemRefType));
  return ir::make_tile_type(tt->shape, tt->dtype, tt->view, tt->memory, mr);
}

inline ir::Program fold(const Options& o) {
  Gen g(o.seed);
  Rng& r = g.rng;
  std::int64_t rows = g.pick(std::vector<std::int64_t>{1, 4, 8, 16}), cols = g.pick(std::vector<std::int64_t>{8, 16, 64});
  std::int64_t bytes = rows * cols * 4;
  Expr x = g.f.param("x", tensor_t({rows, cols}, DataType::FP32));
  auto alloc = [&] {
    return g.let("mem_vec", "tile.alloc", {ir::make_int(static_cast<std::int64_t>(MemorySpace::Vec)), ir::make_int(bytes)});
  };
  Expr mem0 = alloc();
  Expr mem1 = r.coin(30) ? alloc() : mem0;
  Dims valid = {rows, cols};
  if (r.coin(30)) valid[1] = r.range(1, cols);
  Expr loadc = g.f.call("tile.load", {x, tup({0, 0}), tup({rows, cols}), tup(valid)}, mem(MemorySpace::Vec));
  Expr a = ir::make_var("a", with_memref(loadc->type, mem0, 0, bytes));
  g.f.append(ir::make_stmt(ir::Assign{a, loadc}));
  Expr cur = a;
  Dims cur_shape = {rows, cols};
  auto steps = r.range(1, 3);
  for (std::int64_t s = 0; s < steps; ++s) {
    Dims to = cur_shape;
    int kind = static_cast<int>(r.range(0, 2));
    if (kind == 1 && valid[1] == cols) to = {cur_shape[0] * cur_shape[1] / 8, 8};
    if (kind == 2 && valid[1] == cols) to = {1, cur_shape[0] * cur_shape[1]};
    Expr call = g.f.call("tile.reshape", {cur, tup(to)});
    Expr v = ir::make_var(g.name("b"), with_memref(call->type, r.coin(70) ? mem0 : mem1, 0, bytes));
    g.f.append(ir::make_stmt(ir::Assign{v, call}));
    if (r.coin(40)) {
      Expr m = g.f.call("tile.muls", {v, ir::make_float(2.0)});
      Expr w = ir::make_var(g.name("m"), with_memref(m->type, mem0, 0, bytes));
      g.f.append(ir::make_stmt(ir::Assign{w, m}));
      v = w;
    }
    cur = v;
    cur_shape = to;
  }
  g.results.push_back(g.let("stored", "tile.store", {cur, tup({0, 0}), g.out_param(cur_shape, DataType::FP32)}));
  return g.finish();
}

// ---- CanonicalizeTileSlice ---------------------------------------------------------------

inline ir::Program canonicalize(const Options& o) {
  Gen g(o.seed);
  Rng& r = g.rng;
  DataType dt = r.coin(25) ? DataType::FP16 : DataType::FP32;
  if (r.coin(35)) {  // Mat slices into matmul operands / extracts
    std::int64_t m = 16, k = 32, n = 32;
    Expr lhs = g.f.param("lhs", tensor_t({2 * m, 2 * k}, DataType::FP16));
    Expr rhs = g.f.param("rhs", tensor_t({2 * k, 2 * n}, DataType::FP16));
    Expr lm = g.let("lm", "tile.load", {lhs, tup({0, 0}), tup({2 * m, 2 * k}), tup({2 * m, 2 * k})}, mem(MemorySpace::Mat));
    Expr rm = g.let("rm", "tile.load", {rhs, tup({0, 0}), tup({2 * k, 2 * n}), tup({2 * k, 2 * n})}, mem(MemorySpace::Mat));
    Expr ls = g.let("ls", "tile.slice", {lm, tup({m, k}), tup({m * r.range(0, 1), 16 * r.range(0, 2)})});
    Expr rs = g.let("rs", "tile.slice", {rm, tup({k, n}), tup({16 * r.range(0, 2), 16 * r.range(0, 1)})});
    if (r.coin(30)) ls = g.let("ls2", "tile.slice", {ls, tup({m, 16}), tup({0, 16 * r.range(0, 1)})}), k = 16;
    Expr left = ls, right = rs;
    if (k == 16) right = g.let("rs3", "tile.slice", {rs, tup({16, n}), tup({16 * r.range(0, 1), 0})});
    if (r.coin(40)) left = g.let("le", "tile.extract", {ls, ir::make_int(0), ir::make_int(0), tup({m, k})}, mem(MemorySpace::Left));
    Expr c = g.let("c", "tile.matmul", {left, right});
    g.results.push_back(g.let("stored", "tile.store", {c, tup({0, 0}), g.out_param({m, n}, DataType::FP32)}));
    return g.finish();
  }
  std::int64_t rows = g.pick(std::vector<std::int64_t>{4, 8, 16}), cols = g.pick(std::vector<std::int64_t>{16, 32, 64});
  Expr x = g.f.param("x", tensor_t({rows, cols}, dt));
  Expr off = g.f.param("off", ir::scalar_type(DataType::INDEX));
  Expr t = g.let("t", "tile.load", {x, tup({0, 0}), tup({rows, cols}), tup({rows, cols})}, mem(MemorySpace::Vec));
  auto steps = r.range(1, 4);
  for (std::int64_t s = 0; s < steps; ++s) {
    std::int64_t h = g.pick(std::vector<std::int64_t>{1, rows / 2, rows}), w = g.pick(std::vector<std::int64_t>{1, 8, cols / 2, cols});
    h = std::max<std::int64_t>(h, 1);
    std::int64_t r0 = r.range(0, rows - h), c0 = r.range(0, cols - w);
    Expr row = ir::make_int(r0), col = ir::make_int(c0);
    if (r.coin(20) && h == 1) row = build::binary(ir::BinaryOp::Mul, off, ir::make_int(0));
    if (r.coin(20) && w <= cols / 2) col = build::binary(ir::BinaryOp::Mul, off, ir::make_int(w));
    Expr sl = g.f.let(g.name("sl"), g.f.call("tile.slice", {t, tup({h, w}), ir::make_tuple({row, col})}));
    if (r.coin(25) && h > 1) sl = g.let("sl", "tile.slice", {sl, tup({1, w}), tup({r.range(0, h - 1), 0})}), h = 1;
    int consumer = static_cast<int>(r.range(0, 6));
    Expr res;
    Dims shape = {h, w};
    switch (consumer) {
      case 0: res = g.let("m", "tile.muls", {sl, ir::make_float(2.0)}); break;
      case 1: {
        Expr gamma = g.let("gamma", "tile.load", {x, tup({0, 0}), tup({1, w}), tup({1, w})}, mem(MemorySpace::Vec));
        res = g.let("cx", g.pick(std::vector<std::string>{"tile.col_expand_mul", "tile.col_expand_add", "tile.col_expand_sub"}), {sl, gamma});
        break;
      }
      case 2: {
        std::int64_t eh = std::max<std::int64_t>(1, h / 2), ew = std::max<std::int64_t>(1, w / 2);
        res = g.let("ex", "tile.extract", {sl, ir::make_int(r.range(0, h - eh)), ir::make_int(r.range(0, w - ew)), tup({eh, ew})}, mem(MemorySpace::Vec));
        shape = {eh, ew};
        break;
      }
      case 3: res = g.f.let(g.name("alias"), sl); res = g.let("n", "tile.neg", {res}); break;
      case 4: {
        const std::string i = g.name("i"), carry = g.name("carry");
        const std::int64_t trips = r.range(1, 2);
        auto out = g.f.for_range(i, 0, trips, 1, {{carry, sl}},
                                 [&](build::Block& b, const Expr&, const std::vector<Expr>& ia) {
                                   b.yield_({b.let(g.name("nx"), "tile.adds", {ia[0], ir::make_float(1.0)})});
                                 });
        res = out[0];
        break;
      }
      case 5: {  // a loop that yields a (possibly unaligned) slice of the source
        std::int64_t r1 = r.range(0, rows - h), c1 = r.range(0, cols - w);
        const std::string i = g.name("i"), carry = g.name("carry");
        const std::int64_t trips = r.range(1, 2);
        auto out = g.f.for_range(i, 0, trips, 1, {{carry, sl}},
                                 [&](build::Block& b, const Expr&, const std::vector<Expr>& ia) {
                                   Expr m = b.let(g.name("mx"), "tile.maximum", {ia[0], sl});
                                   (void)m;
                                   b.yield_({b.let(g.name("ys"), "tile.slice", {t, tup({h, w}), tup({r1, c1})})});
                                 });
        res = g.let("after", "tile.muls", {out[0], ir::make_float(0.5)});
        break;
      }
      default: res = sl; break;  // stored straight from the slice
    }
    g.results.push_back(g.let("stored", "tile.store", {res, tup({0, 0}), g.out_param(shape, dt)}));
  }
  return g.finish();
}

// ---- ConvertToSSA ------------------------------------------------------------------------

struct SsaGen {
  Rng rng;
  std::string tile_type;
  std::int64_t rows = 8, cols = 16;
  std::string text;
  int loops = 0;
  std::vector<std::string> loop_vars;  // in scope

  explicit SsaGen(std::uint64_t seed) : rng(seed) {}
  static std::string pad(int depth) { return std::string(static_cast<std::size_t>(8 + 4 * depth), ' '); }
  std::string name() { return std::vector<std::string>{"a", "b", "c"}[static_cast<std::size_t>(rng.range(0, 2))]; }
  std::string condition() {
    if (!loop_vars.empty() && rng.coin()) {
      const std::string& v = loop_vars[static_cast<std::size_t>(rng.range(0, static_cast<std::int64_t>(loop_vars.size()) - 1))];
      const char* op = rng.coin() ? " == " : " < ";
      return v + op + std::to_string(rng.range(0, 2));
    }
    const char* op = rng.coin() ? " > " : " == ";
    return std::string("s") + op + std::to_string(rng.range(0, 6));
  }
  void assign(int depth) {
    const std::string v = name(), ty = ": " + tile_type + " = ";
    switch (rng.range(0, 4)) {
      case 0: text += pad(depth) + v + ty + name() + "\n"; break;
      case 1: {
        const std::string a = name();
        text += pad(depth) + v + ty + "pl.tile.adds(" + a + ", " + std::to_string(rng.range(-3, 3)) + ".5)\n";
        break;
      }
      case 2: text += pad(depth) + "out_0 = pl.tile.store(" + name() + ", [0, 0], out_0)\n"; break;
      default: {
        static const std::vector<std::string> ops = {"add", "sub", "mul", "maximum"};
        const std::string& op = ops[static_cast<std::size_t>(rng.range(0, 3))];
        const std::string a = name(), b = name();
        text += pad(depth) + v + ty + "pl.tile." + op + "(" + a + ", " + b + ")\n";
      }
    }
  }
  // `jumps`: the innermost loop takes `break` ("b") and, when its counter cannot be skipped,
  // `continue` ("bc"); empty outside loops. A jump closes an if's branch, as written in
  // Python, and after a re-assignment of a carried name the pass must refuse it.
  void block(int depth, const std::string& jumps = {}) {
    const auto n = rng.range(1, 4);
    for (std::int64_t k = 0; k < n; ++k) {
      const auto what = depth >= 3 ? 0 : rng.range(0, 6);
      if (what <= 2) {
        assign(depth);
      } else if (what == 3) {
        const std::string i = "i" + std::to_string(loops++);
        text += pad(depth) + "for " + i + " in pl.range(" + std::to_string(rng.range(0, 3)) + "):\n";
        loop_vars.push_back(i);
        block(depth + 1, "bc");
        loop_vars.pop_back();
      } else if (what == 4) {
        // A counted while: the count is advanced last, so only `break` may leave early.
        const std::string w = "w" + std::to_string(loops++);
        text += pad(depth) + w + ": pl.Scalar[pl.INDEX] = 0\n";
        text += pad(depth) + "while " + w + " < " + std::to_string(rng.range(0, 3)) + ":\n";
        loop_vars.push_back(w);
        block(depth + 1, "b");
        loop_vars.pop_back();
        text += pad(depth + 1) + w + ": pl.Scalar[pl.INDEX] = " + w + " + 1\n";
      } else {
        text += pad(depth) + "if " + condition() + ":\n";
        branch(depth + 1, jumps);
        if (rng.coin()) {
          text += pad(depth) + "else:\n";
          branch(depth + 1, jumps);
        }
      }
    }
  }
  void branch(int depth, const std::string& jumps) {
    const auto roll = jumps.empty() ? 9 : rng.range(0, 11);
    if (roll > 1) return block(depth, jumps);
    if (roll == 1) block(depth, jumps);  // a jump after assignments: often refused
    text += pad(depth) + (jumps.size() > 1 && rng.coin() ? "continue" : "break") + "\n";
  }
};

inline ir::Program ssa(const Options& o) {
  SsaGen g(o.seed);
  g.rows = g.rng.coin() ? 8 : 16;
  g.cols = g.rng.coin() ? 16 : 32;
  const std::string shape = "[" + std::to_string(g.rows) + ", " + std::to_string(g.cols) + "]";
  g.tile_type = "pl.Tile[" + shape + ", pl.FP32, pl.Mem.Vec]";
  const std::string tensor = "pl.Tensor[" + shape + ", pl.FP32]";
  g.text = "@pl.program\nclass Random:\n    @pl.function(type=pl.FunctionType.InCore)\n"
           "    def kernel(self, x: " + tensor + ", s: pl.Scalar[pl.INDEX], out_0: pl.Out[" + tensor + "]) -> " +
           tensor + ":\n" +
           "        a: " + g.tile_type + " = pl.tile.load(x, [0, 0], " + shape + ", " + shape +
           ", target_memory=pl.Mem.Vec)\n"
           "        b: " + g.tile_type + " = pl.tile.muls(a, 0.5)\n"
           "        c: " + g.tile_type + " = pl.tile.adds(a, 1.0)\n";
  g.block(0);
  g.text += "        out_0 = pl.tile.store(" + g.name() + ", [0, 0], out_0)\n        return out_0\n";
  return text::parse_program(g.text, "random_ssa_" + std::to_string(o.seed) + ".pto");
}

}  // namespace detail

inline ir::Program generate_once(const Options& o) {
  switch (o.target) {
    case Target::flatten: {
      interp::Rng r(o.seed ^ 0xf1a7);
      auto flavour = r.range(0, 9);
      return flavour < 3    ? detail::flatten_batch_matmul(o)
             : flavour < 4  ? detail::flatten_dynamic_chunks(o)
             : flavour == 9 ? detail::cube_2d(o)
                            : detail::flatten_elementwise(o);
    }
    case Target::fold: return detail::fold(o);
    case Target::ssa: return detail::ssa(o);
    case Target::materialize:
    case Target::canonicalize: {
      // One program in five is the flatten generator's op soup on 2-D tiles, one in ten the
      // cube ops, so these passes meet every interpreted tile op (issue 34); the rest are the
      // pass's own shapes. (ConvertToSSA's inputs are DSL text that is not yet SSA: an SSA
      // soup would pass through it unchanged.)
      interp::Rng r(o.seed ^ 0x50u);
      const auto flavour = r.range(0, 9);
      if (flavour < 2) {
        Options soup = o;
        soup.adversarial = false;
        return detail::flatten_elementwise(soup, 2);
      }
      if (flavour == 2) return detail::cube_2d(o);
      return o.target == Target::materialize ? detail::materialize(o) : detail::canonicalize(o);
    }
  }
  return detail::flatten_elementwise(o);
}

// A draw the registry refuses (a deducer check) is drawn again from a derived seed, so every
// seed yields a program and the same one everywhere.
inline ir::Program generate(Options o) {
  for (int attempt = 0;; ++attempt) {
    try {
      return generate_once(o);
    } catch (const ir::Error&) {
      if (attempt == 16) throw;
      o.seed = interp::mix_seed(o.seed, "retry", static_cast<std::uint64_t>(attempt));
    }
  }
}

}  // namespace tilewright::testgen
