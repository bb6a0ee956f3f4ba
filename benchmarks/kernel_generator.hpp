#pragma once
// Synthetic programs of any size, built with the C++ API (ir::make_*, ops::create_call), as
// inputs for the benchmarks and for tests that need large programs.
//
//   auto program = tilewright::bench::generate_program({Workload::allocated_tiles, 10'000});
//
// A program is `kernels` InCore-type functions plus one Orchestration function `main` that
// calls each kernel once, threading the output tensor from one call into the next. A kernel
// body repeats one block until it holds its share of the requested statement count; every
// block has a For loop with iter_args and an If with return vars, so passes meet nested
// bodies, loop carries and branch merges at every size. The workload decides what the
// blocks contain, so each pass gets input it has real work on:
//
//   strided_views    tensors with DN and padded-ND views and no strides, also carried
//                    through loops (MaterializeTensorStrides rewrites them)
//   allocated_tiles  the post-allocation form of the golden fold_no_op_reshape corpus:
//                    tile.alloc buffers, a MemRef on every tile, foldable reshapes (same
//                    buffer, same signature) next to genuine ones (FoldNoOpReshape)
//   nd_tiles         3-D and 4-D tile load/exp/add/muls/store chains, before memory
//                    allocation (FlattenTileNdTo2D)
//   tile_slices      the slice mix of the perf kernels PyPTO prints for CanonicalizeTileSlice:
//                    Mat slices into matmul operands and extracts (also inside the loop), a
//                    dynamic-row Vec slice into col_expand_mul, an unaligned FP32 column
//                    slice into muls, an aligned one that stays
//   slice_chain      one chain of Mat slices per kernel, each slicing the one before, read
//                    once at its end by an extract (no loop or branch: the chain is the point)
//
// The generator is deterministic: two calls with the same options build structurally equal
// programs from distinct nodes. Names are unique per function, so the printed text parses
// back to a structurally equal program.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilewright/ir/function.hpp"
#include "tilewright/ir/walk.hpp"
#include "tilewright/ops/catalog.hpp"
#include "tilewright/ops/create.hpp"

namespace tilewright::bench {

enum class Workload : std::uint8_t { strided_views, allocated_tiles, nd_tiles, tile_slices, slice_chain };

inline constexpr std::array<Workload, 5> all_workloads{Workload::strided_views, Workload::allocated_tiles,
                                                      Workload::nd_tiles, Workload::tile_slices,
                                                      Workload::slice_chain};

constexpr std::string_view workload_name(Workload w) noexcept {
  switch (w) {
    case Workload::strided_views:
      return "strided_views";
    case Workload::allocated_tiles:
      return "allocated_tiles";
    case Workload::nd_tiles:
      return "nd_tiles";
    case Workload::tile_slices:
      return "tile_slices";
    case Workload::slice_chain:
      return "slice_chain";
  }
  return "?";
}

struct GeneratorOptions {
  Workload workload = Workload::strided_views;
  std::size_t statements = 1000;  // lower bound for count_statements() of the result
  std::size_t kernels = 8;        // InCore-type functions (InCore and AIV alternate); at least 1
};

// Every statement except statement lists: assignments, evals, loops, branches, yields, returns.
inline std::size_t count_statements(const ir::Stmt& body) {
  std::size_t n = 0;
  ir::for_each_stmt(body, [&](const ir::Stmt& s) { n += ir::as<ir::Seq>(s) == nullptr; });
  return n;
}
inline std::size_t count_statements(const ir::Program& program) {
  std::size_t n = 0;
  for (const auto& f : program->functions) n += count_statements(f->body);
  return n;
}

namespace generator_detail {

using ir::DataType;
using ir::Expr;
using ir::Type;

inline Expr index(std::int64_t v) { return ir::make_int(v); }
inline std::vector<Expr> dims(std::initializer_list<std::int64_t> values) {
  std::vector<Expr> out;
  for (auto v : values) out.push_back(index(v));
  return out;
}
// `[a, b, …]` as an op argument (offsets, shapes).
inline Expr index_list(std::initializer_list<std::int64_t> values) {
  return ir::make_tuple(dims(values));
}
inline std::string numbered(std::string_view stem, std::size_t i) {
  return std::string(stem) + "_" + std::to_string(i);
}

// Appends statements to the innermost open body and counts them. The caller names every
// value; ops::create_call validates each op and deduces its type, so a malformed block fails
// loudly at generation time.
class BodyBuilder {
 public:
  // `name = op(args, kwargs)`, typed by the registry's deduction, or by `as` when given:
  // the parser does the same with an annotated assignment (the annotation wins).
  Expr call(std::string name, std::string_view op, std::vector<Expr> args, ir::Kwargs kwargs = {},
            Type as = nullptr) {
    Expr value =
        ops::create_call(ops::builtin_registry(), op, std::move(args), std::move(kwargs), {});
    if (as) value = ir::make_expr(value->v, std::move(as), value->span);
    return let(std::move(name), std::move(value));
  }
  Expr let(std::string name, Expr value) {
    Expr var = ir::make_var(std::move(name), value->type);
    emit(ir::make_stmt(ir::Assign{var, std::move(value)}));
    return var;
  }
  // `for <loop_var>, (<carried>...) in pl.range(trip, init_values=inits)`; `body(iter_args)`
  // returns the values yielded back. Returns the loop's return vars, named `<carried>_rv`.
  template <class Body>
  std::vector<Expr> loop(const std::string& loop_var, std::int64_t trip,
                         const std::vector<std::string>& carried, const std::vector<Expr>& inits,
                         Body&& body) {
    std::vector<Expr> iter_args;
    for (std::size_t i = 0; i < inits.size(); ++i)
      iter_args.push_back(ir::make_iter_arg(carried[i], inits[i]->type, inits[i]));
    std::vector<Expr> return_vars;
    for (std::size_t i = 0; i < inits.size(); ++i)
      return_vars.push_back(ir::make_var(carried[i] + "_rv", inits[i]->type));
    ir::Stmt stmts = nested([&] { emit(ir::make_stmt(ir::Yield{body(iter_args)})); });
    emit(ir::make_stmt(ir::For{ir::make_var(loop_var, ir::scalar_type(DataType::INDEX)),
                               index(0),
                               index(trip),
                               index(1),
                               std::move(iter_args),
                               std::move(stmts),
                               return_vars,
                               ir::ForKind::range,
                               {}}));
    return return_vars;
  }
  // `if cond: … else: …`, each branch returning the values it yields into `merged` (typed
  // by the then-branch values).
  template <class Then, class Else>
  std::vector<Expr> branch(Expr cond, const std::vector<std::string>& merged, Then&& then_body,
                           Else&& else_body) {
    std::vector<Expr> then_values;
    ir::Stmt then_stmts = nested([&] {
      then_values = then_body();
      emit(ir::make_stmt(ir::Yield{then_values}));
    });
    ir::Stmt else_stmts = nested([&] { emit(ir::make_stmt(ir::Yield{else_body()})); });
    std::vector<Expr> return_vars;
    for (std::size_t i = 0; i < merged.size(); ++i)
      return_vars.push_back(ir::make_var(merged[i], then_values[i]->type));
    emit(ir::make_stmt(
        ir::If{std::move(cond), std::move(then_stmts), std::move(else_stmts), return_vars}));
    return return_vars;
  }
  void ret(std::vector<Expr> values) { emit(ir::make_stmt(ir::Return{std::move(values)})); }

  [[nodiscard]] std::size_t statements() const noexcept { return statements_; }
  ir::Stmt finish() { return ir::make_seq(std::move(open_.front())); }

 private:
  void emit(ir::Stmt s) {
    open_.back().push_back(std::move(s));
    ++statements_;
  }
  template <class Fill>
  ir::Stmt nested(Fill&& fill) {
    open_.emplace_back();
    fill();
    ir::Stmt body = ir::make_seq(std::move(open_.back()));
    open_.pop_back();
    return body;
  }

  std::vector<std::vector<ir::Stmt>> open_{1};
  std::size_t statements_ = 0;
};

inline Expr equals(const Expr& scalar, std::int64_t v) {
  return ir::make_expr(ir::Binary{ir::BinaryOp::Eq, scalar, index(v)},
                       ir::scalar_type(DataType::BOOL));
}
inline ir::Kwargs to_vec() { return {{"target_memory", ir::MemorySpace::Vec}}; }
inline ir::Kwargs into(ir::MemorySpace space) { return {{"target_memory", space}}; }

// What every workload's kernel provides: its parameters (the last one is the output tensor
// the blocks store into), and one block of statements. `out` is the current output value:
// a block stores into it and returns the stored result.
struct KernelParams {
  std::vector<ir::Param> params;  // the tensors, then `flag`, then `out`
  std::vector<Expr> tensors;      // what a block loads from (or, for InOut, also stores into)
  Expr flag;                      // INDEX scalar the branches test
  Expr out;
};

struct TensorParam {
  std::string name;
  Type type;
  ir::ParamDirection direction = ir::ParamDirection::In;
};

inline KernelParams make_params(std::vector<TensorParam> tensors, const Type& out_type) {
  KernelParams k;
  for (auto& t : tensors) {
    k.tensors.push_back(ir::make_var(std::move(t.name), std::move(t.type)));
    k.params.push_back(ir::Param{k.tensors.back(), t.direction});
  }
  k.flag = ir::make_var("flag", ir::scalar_type(DataType::INDEX));
  k.params.push_back(ir::Param{k.flag, ir::ParamDirection::In});
  k.out = ir::make_var("out", out_type);
  k.params.push_back(ir::Param{k.out, ir::ParamDirection::Out});
  return k;
}

// ---- strided_views: MaterializeTensorStrides has work ------------------------------------
// x: DN [64, 64] and y: ND [64, 64] pad=zero, both with an empty stride; the output is DN
// too, so every store result, the loop-carried output and the branch merge get rebuilt.
struct StridedViews {
  static Type dn() {
    return ir::make_tensor_type(dims({64, 64}), DataType::FP32,
                                ir::TensorView{{}, {}, ir::TensorLayout::DN, ir::PadValue::null});
  }
  static Type padded_nd() {
    return ir::make_tensor_type(dims({64, 64}), DataType::FP32,
                                ir::TensorView{{}, {}, ir::TensorLayout::ND, ir::PadValue::zero});
  }
  static KernelParams params() { return make_params({{"x", dn()}, {"y", padded_nd()}}, dn()); }

  static Expr block(BodyBuilder& b, const KernelParams& k, std::size_t i, Expr out) {
    Expr x = k.tensors[0], y = k.tensors[1];
    Expr t = b.call(numbered("t", i), "tile.load",
                    {x, index_list({0, 0}), index_list({64, 64}), index_list({64, 64})}, to_vec());
    Expr u = b.call(numbered("u", i), "tile.load",
                    {y, index_list({0, 0}), index_list({64, 64}), index_list({64, 64})}, to_vec());
    Expr e = b.call(numbered("e", i), "tile.exp", {t});
    auto carried =
        b.loop(numbered("k", i), 4, {numbered("acc", i), numbered("o", i)}, {e, out},
               [&](const std::vector<Expr>& it) -> std::vector<Expr> {
                 Expr a = b.call(numbered("a", i), "tile.add", {it[0], u});
                 Expr s = b.call(numbered("s", i), "tile.store", {a, index_list({0, 0}), it[1]});
                 return {a, s};
               });
    auto merged = b.branch(
        equals(k.flag, static_cast<std::int64_t>(i % 3)), {numbered("r", i)},
        [&]() -> std::vector<Expr> {
          return {b.call(numbered("m", i), "tile.muls", {carried[0], ir::make_float(0.5)})};
        },
        [&]() -> std::vector<Expr> { return {carried[0]}; });
    return b.call(numbered("w", i), "tile.store", {merged[0], index_list({0, 0}), carried[1]});
  }
};

// ---- allocated_tiles: FoldNoOpReshape has work --------------------------------------------
// Two Vec buffers per block. The reshapes onto the same shape within one buffer fold; the
// reshape to [16, 64] (another signature) and the one that lands in the other buffer stay.
struct AllocatedTiles {
  static constexpr std::uint64_t bytes = 32 * 32 * 4;

  static Expr ddr(std::size_t k) {
    return ir::make_expr(
        ir::MemRef{ir::make_var(numbered("mem_ddr", k), ir::marker_type(ir::Marker::Ptr)),
                   ir::make_int(0, DataType::INT64), bytes, false, 1, nullptr},
        ir::marker_type(ir::Marker::MemRefType));
  }
  static Type tensor(std::size_t k) {
    return ir::make_tensor_type(dims({32, 32}), DataType::FP32, std::nullopt, ddr(k));
  }
  static KernelParams params() { return make_params({{"x", tensor(0)}}, tensor(1)); }

  static Type tile(const Expr& buffer, std::initializer_list<std::int64_t> shape) {
    Expr memref = ir::make_expr(
        ir::MemRef{buffer, ir::make_int(0, DataType::INT64), bytes, false, 1, nullptr},
        ir::marker_type(ir::Marker::MemRefType));
    return ir::make_tile_type(dims(shape), DataType::FP32, std::nullopt, ir::MemorySpace::Vec,
                              std::move(memref));
  }

  static Expr block(BodyBuilder& b, const KernelParams& k, std::size_t i, Expr out) {
    auto alloc = [&](const char* stem) {
      return b.call(numbered(stem, i), "tile.alloc",
                    {index(static_cast<std::int64_t>(ir::MemorySpace::Vec)),
                     index(static_cast<std::int64_t>(bytes))});
    };
    Expr p = alloc("mem_vec_p"), q = alloc("mem_vec_q");
    Type square_p = tile(p, {32, 32}), square_q = tile(q, {32, 32});
    Expr a = b.call(numbered("a", i), "tile.load",
                    {k.tensors[0], index_list({0, 0}), index_list({32, 32}), index_list({32, 32})},
                    to_vec(), square_p);
    Expr same =
        b.call(numbered("same", i), "tile.reshape", {a, index_list({32, 32})}, {}, square_p);
    Expr wide = b.call(numbered("wide", i), "tile.reshape", {a, index_list({16, 64})}, {},
                       tile(p, {16, 64}));
    Expr back =
        b.call(numbered("back", i), "tile.reshape", {wide, index_list({32, 32})}, {}, square_q);
    Expr sum = b.call(numbered("sum", i), "tile.add", {same, back}, {}, square_q);
    auto carried = b.loop(
        numbered("k", i), 4, {numbered("acc", i)}, {sum},
        [&](const std::vector<Expr>& it) -> std::vector<Expr> {
          Expr f =
              b.call(numbered("f", i), "tile.reshape", {it[0], index_list({32, 32})}, {}, square_q);
          return {b.call(numbered("g", i), "tile.muls", {f, ir::make_float(0.5)}, {}, square_q)};
        });
    auto merged = b.branch(
        equals(k.flag, static_cast<std::int64_t>(i % 3)), {numbered("r", i)},
        [&]() -> std::vector<Expr> {
          return {b.call(numbered("h", i), "tile.reshape", {carried[0], index_list({32, 32})}, {},
                         square_q)};
        },
        [&]() -> std::vector<Expr> { return {carried[0]}; });
    return b.call(numbered("w", i), "tile.store", {merged[0], index_list({0, 0}), out});
  }
};

// ---- nd_tiles: FlattenTileNdTo2D has work -------------------------------------------------
// A 3-D chain carried through a loop and a branch, and a straight 4-D chain. Every store
// writes a fully valid tile onto the whole tensor (the case seeds and upstream agree on).
struct NdTiles {
  static Type rank3() { return ir::make_tensor_type(dims({4, 8, 16}), DataType::FP32); }
  static Type rank4() { return ir::make_tensor_type(dims({2, 2, 8, 16}), DataType::FP32); }
  static KernelParams params() {
    return make_params(
        {{"x", rank3()}, {"z", rank4()}, {"z_out", rank4(), ir::ParamDirection::InOut}}, rank3());
  }

  static Expr block(BodyBuilder& b, const KernelParams& k, std::size_t i, Expr out) {
    Expr t = b.call(
        numbered("t", i), "tile.load",
        {k.tensors[0], index_list({0, 0, 0}), index_list({4, 8, 16}), index_list({4, 8, 16})},
        to_vec());
    Expr e = b.call(numbered("e", i), "tile.exp", {t});
    auto carried = b.loop(numbered("k", i), 2, {numbered("acc", i)}, {e},
                          [&](const std::vector<Expr>& it) -> std::vector<Expr> {
                            return {b.call(numbered("a", i), "tile.add", {it[0], t})};
                          });
    auto merged = b.branch(
        equals(k.flag, static_cast<std::int64_t>(i % 3)), {numbered("r", i)},
        [&]() -> std::vector<Expr> {
          return {b.call(numbered("m", i), "tile.muls", {carried[0], ir::make_float(0.25)})};
        },
        [&]() -> std::vector<Expr> { return {carried[0]}; });
    Expr u = b.call(numbered("u", i), "tile.load",
                    {k.tensors[1], index_list({0, 0, 0, 0}), index_list({2, 2, 8, 16}),
                     index_list({2, 2, 8, 16})},
                    to_vec());
    Expr v = b.call(numbered("v", i), "tile.exp", {u});
    b.call(numbered("z_w", i), "tile.store", {v, index_list({0, 0, 0, 0}), k.tensors[2]});
    return b.call(numbered("w", i), "tile.store", {merged[0], index_list({0, 0, 0}), out});
  }
};

// ---- tile_slices: CanonicalizeTileSlice has work -----------------------------------------
// The blocks of the perf kernels upstream prints (../shared/perf/README.md), with a loop and a
// branch: a matmul of two Mat pages, a K loop extracting from a page, a dynamic row of a Vec
// tile into col_expand_mul, FP32 column 3 (unaligned) into muls and column 8 (aligned) into
// exp. Every result is stored into one [32, 256] output.
struct TileSlices {
  static Type tensor(std::int64_t r, std::int64_t c, DataType dt) {
    return ir::make_tensor_type(dims({r, c}), dt);
  }
  static KernelParams params() {
    KernelParams k = make_params({{"lhs", tensor(64, 128, DataType::FP16)},
                                  {"rhs", tensor(128, 96, DataType::FP16)},
                                  {"scores", tensor(16, 256, DataType::FP32)},
                                  {"gamma", tensor(1, 256, DataType::FP32)},
                                  {"x", tensor(16, 16, DataType::FP32)}},
                                 tensor(32, 256, DataType::FP32));
    return k;
  }
  static Expr load(BodyBuilder& b, std::string name, const Expr& from, std::int64_t r, std::int64_t c,
                   ir::MemorySpace space) {
    return b.call(std::move(name), "tile.load", {from, index_list({0, 0}), index_list({r, c}), index_list({r, c})},
                  into(space));
  }
  static Expr slice(BodyBuilder& b, std::string name, const Expr& src, std::initializer_list<std::int64_t> shape,
                    std::vector<Expr> offset) {
    return b.call(std::move(name), "tile.slice", {src, index_list(shape), ir::make_tuple(std::move(offset))});
  }

  static Expr block(BodyBuilder& b, const KernelParams& k, std::size_t i, Expr out) {
    using M = ir::MemorySpace;
    Expr lm = load(b, numbered("lm", i), k.tensors[0], 64, 128, M::Mat);
    Expr rm = load(b, numbered("rm", i), k.tensors[1], 128, 96, M::Mat);
    Expr ls = slice(b, numbered("ls", i), lm, {32, 128}, {index(32), index(0)});
    Expr rs = slice(b, numbered("rs", i), rm, {128, 32}, {index(0), index(64)});
    Expr c = b.call(numbered("c", i), "tile.matmul", {ls, rs});
    Expr page = slice(b, numbered("page", i), lm, {32, 128}, {index(0), index(0)});
    auto acc = b.loop(numbered("k", i), 2, {numbered("acc", i)}, {c},
                      [&](const std::vector<Expr>& it) -> std::vector<Expr> {
                        Expr a = b.call(numbered("a", i), "tile.extract",
                                        {page, index(0), index(0), index_list({32, 128})}, into(M::Left));
                        Expr r = b.call(numbered("b", i), "tile.extract",
                                        {rm, index(0), index(32), index_list({128, 32})}, into(M::Right));
                        return {b.call(numbered("d", i), "tile.matmul_acc", {it[0], a, r})};
                      });
    Expr l = load(b, numbered("l", i), k.tensors[2], 16, 256, M::Vec);
    Expr g = load(b, numbered("g", i), k.tensors[3], 1, 256, M::Vec);
    Expr row = slice(b, numbered("row", i), l, {1, 256}, {k.flag, index(0)});
    Expr scaled = b.call(numbered("scaled", i), "tile.col_expand_mul", {row, g});
    Expr u = load(b, numbered("u", i), k.tensors[4], 16, 16, M::Vec);
    Expr head = slice(b, numbered("head", i), u, {16, 1}, {index(0), index(3)});
    Expr y = b.call(numbered("y", i), "tile.muls", {head, ir::make_float(0.25)});
    Expr band = slice(b, numbered("band", i), u, {16, 8}, {index(0), index(8)});
    Expr e = b.call(numbered("e", i), "tile.exp", {band});
    auto merged = b.branch(
        equals(k.flag, static_cast<std::int64_t>(i % 3)), {numbered("r", i)},
        [&]() -> std::vector<Expr> { return {b.call(numbered("m", i), "tile.muls", {y, ir::make_float(0.5)})}; },
        [&]() -> std::vector<Expr> { return {y}; });
    Expr o1 = b.call(numbered("o1", i), "tile.store", {acc[0], index_list({0, 0}), out});
    Expr o2 = b.call(numbered("o2", i), "tile.store", {scaled, index_list({0, 0}), o1});
    Expr o3 = b.call(numbered("o3", i), "tile.store", {e, index_list({0, 0}), o2});
    return b.call(numbered("o4", i), "tile.store", {merged[0], index_list({0, 0}), o3});
  }
};

// ---- slice_chain: CanonicalizeTileSlice's peeling and dead-slice removal at length --------
// lm = load; c_0 = slice(lm, [32, 128], [16, 0]); c_i = slice(c_{i-1}, [32, 128], [0, 0]); …
// and one extract of the last link: the pass folds the whole chain into it (lm at row 16)
// and removes every link.
struct SliceChain {
  Expr link;  // the newest link (the loaded tile before the first)

  static KernelParams params() {
    return make_params({{"lhs", TileSlices::tensor(64, 128, DataType::FP16)}},
                       TileSlices::tensor(32, 128, DataType::FP16));
  }
  Expr block(BodyBuilder& b, const KernelParams& k, std::size_t i, Expr out) {
    if (!link) {
      link = TileSlices::load(b, "lm", k.tensors[0], 64, 128, ir::MemorySpace::Mat);
      link = TileSlices::slice(b, numbered("c", i), link, {32, 128}, {index(16), index(0)});
    } else {
      link = TileSlices::slice(b, numbered("c", i), link, {32, 128}, {index(0), index(0)});
    }
    return out;
  }
  Expr finish(BodyBuilder& b, const KernelParams&, Expr out) {
    Expr a = b.call("a", "tile.extract", {link, index(0), index(0), index_list({32, 128})},
                    into(ir::MemorySpace::Left));
    Expr v = b.call("v", "tile.move", {a}, to_vec());
    return b.call("w", "tile.store", {v, index_list({0, 0}), out});
  }
};

// A kernel repeats `Kernel::block` and returns the last output; a Kernel with state (a chain)
// is one object per function, and may close its body with `finish`.
template <class Kernel>
ir::Function build_kernel(std::string name, ir::FunctionType type, std::size_t statements) {
  KernelParams k = Kernel::params();
  BodyBuilder b;
  Kernel kernel{};
  Expr out = k.out;
  for (std::size_t i = 0; i == 0 || b.statements() + 1 < statements; ++i)
    out = kernel.block(b, k, i, out);
  if constexpr (requires { kernel.finish(b, k, out); }) out = kernel.finish(b, k, out);
  b.ret({out});
  return ir::make_function(ir::FunctionNode{std::move(name),
                                            std::move(k.params),
                                            {k.out->type},
                                            b.finish(),
                                            type,
                                            ir::implied_placement(type)->level,  // AIV kernels run at AIV
                                            ir::Role::SubWorker,
                                            {},
                                            {}});
}

// `main` takes a kernel's parameters and calls kernel 0, 1, … in turn, each writing into the
// tensor the previous one returned.
inline ir::Function build_orchestration(const std::vector<ir::Function>& kernels) {
  const ir::Function& first = kernels.front();
  std::vector<ir::Param> params;
  for (const auto& p : first->params)
    params.push_back(
        ir::Param{ir::make_var(std::string(ir::name_hint(p.var)), p.var->type), p.direction});
  BodyBuilder b;
  Expr out = params.back().var;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    std::vector<Expr> args;
    for (std::size_t a = 0; a + 1 < params.size(); ++a) args.push_back(params[a].var);
    args.push_back(out);
    out = b.let(numbered("y", k), ir::make_function_call(kernels[k]->name, std::move(args),
                                                         kernels[k]->return_types[0]));
  }
  b.ret({out});
  return ir::make_function(ir::FunctionNode{"main",
                                            std::move(params),
                                            {out->type},
                                            b.finish(),
                                            ir::FunctionType::Orchestration,
                                            ir::Level::CHIP,
                                            ir::Role::Orchestrator,
                                            {},
                                            {}});
}

template <class Kernel>
ir::Program build_program(const GeneratorOptions& o) {
  const std::size_t kernels = o.kernels == 0 ? 1 : o.kernels;
  const std::size_t orchestration = kernels + 1;  // one call per kernel, and the return
  const std::size_t per_kernel =
      o.statements > orchestration ? (o.statements - orchestration + kernels - 1) / kernels : 1;
  std::vector<ir::Function> functions;
  for (std::size_t k = 0; k < kernels; ++k) {
    char name[32];
    std::snprintf(name, sizeof name, "kernel_%04zu", k);  // zero-padded: sorted order = call order
    functions.push_back(build_kernel<Kernel>(
        name, k % 2 ? ir::FunctionType::AIV : ir::FunctionType::InCore, per_kernel));
  }
  functions.push_back(build_orchestration(functions));
  return ir::make_program(std::string(workload_name(o.workload)), std::move(functions));
}

}  // namespace generator_detail

// Builds the program the options describe; see the header comment for its shape.
inline ir::Program generate_program(const GeneratorOptions& options) {
  using namespace generator_detail;
  switch (options.workload) {
    case Workload::strided_views:
      return build_program<StridedViews>(options);
    case Workload::allocated_tiles:
      return build_program<AllocatedTiles>(options);
    case Workload::nd_tiles:
      return build_program<NdTiles>(options);
    case Workload::tile_slices:
      return build_program<TileSlices>(options);
    case Workload::slice_chain:
      return build_program<SliceChain>(options);
  }
  return nullptr;
}

}  // namespace tilewright::bench
