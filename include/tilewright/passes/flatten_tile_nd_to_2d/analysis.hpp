#pragma once
// FlattenTileNdTo2D, phase 1 (FL-03): a read-only walk over the whole function that rejects
// every input the rewrite cannot lower, before anything is rewritten, and the plans the
// rewrite follows. Each error carries the span of the offending statement and says how to
// fix the kernel.
//
// Checked here (FL-05, FL-06, FL-07b–d, FL-14, FL-24, FL-33, FL-50, FL-51, FL-57, FL-60):
//   * a >2D tile with a dynamic physical dim (the two fixes: chunk the dim, or reshape to 2D
//     before the InCore scope);
//   * tile.read / tile.write / tile.slice on a >2D tile;
//   * tile.assemble into a >2D tile whose offset or source rank differs from the target's,
//     or whose written box is not one band of rows once merged;
//   * tile.transpose of a >2D tile that moves a batch axis, or names an axis out of range;
//   * a store into a rank>2 tensor that no partition window describes;
//   * a natural NZ Mat load whose window is not one band of rows (unless the batched-matmul
//     lowering drops it and re-loads it page by page);
//   * a tile.store consuming a tile.batch_matmul result whose offsets miss the batch axes;
//   * batched matmuls the unroll cannot read: operands that do not broadcast, an
//     accumulator that is not one named 2D tile of the pages' shape once flattened.
// Planned here: the batched-matmul routes and drops (batch_matmul_plan.hpp) and the packed
// accumulators (acc_packing.hpp, whose own rejections are raised while planning); then the
// statements all of that will emit are counted against the expansion budget, and the tiles
// it will allocate against the backend's memories (expansion.hpp).
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tilewright/ir/walk.hpp"
#include "tilewright/math/partition_window.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/acc_packing.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/batch_geometry.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/batch_matmul_plan.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/expansion.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/shape.hpp"

namespace tilewright::passes::flatten {

[[noreturn]] inline void reject(std::string message, const ir::Span& span) {
  ir::throw_user_error(std::string(pass_name), std::move(message), span);
}

// FL-24: the 4th operand of a flattened store into a rank>2 tensor — the box, in the
// tensor's coordinates and anchored at the store's offsets, that the tile writes. `tile`
// is the tile as written (before flattening); its valid extents are what it writes.
inline std::vector<ir::Expr> store_partition_shape(const ir::TileType& tile, const ir::TensorType& tensor,
                                                   const ir::Expr& offsets, const ir::Span& span) {
  const std::vector<ir::Expr>& valid = ir::valid_shape(tile);
  auto valid_dims = ir::maybe_dims(valid);
  auto tensor_dims = ir::maybe_dims(tensor.shape);
  std::vector<math::maybe_i64> offset_dims(tensor.shape.size());
  if (auto* t = ir::as<ir::MakeTuple>(offsets); t && t->elements.size() == tensor.shape.size())
    offset_dims = ir::maybe_dims(t->elements);
  auto tile_dims = ir::maybe_dims(tile.shape);
  auto window = math::store_partition_window(std::span<const math::maybe_i64>(valid_dims),
                                             std::span<const math::maybe_i64>(tile_dims),
                                             std::span<const math::maybe_i64>(tensor_dims),
                                             std::span<const math::maybe_i64>(offset_dims));
  if (!window) reject(math::partition_error_message(window.error()), span);
  std::vector<ir::Expr> out;
  const std::size_t pad = tensor.shape.size() - valid.size();
  for (std::size_t i = 0; i < window->shape.size(); ++i) {
    const math::maybe_i64& d = window->shape[i];
    // Aligned windows keep a symbolic valid extent as the tile's own expression.
    out.push_back(d ? ir::make_int(*d, ir::DataType::INDEX, span) : valid[i - pad]);
  }
  return out;
}

// FL-32/FL-33: the two axes of a tile.transpose, normalized; user errors for the forms the
// lowering does not handle on a >2D tile.
struct TransposeAxes {
  std::size_t first = 0;
  std::size_t second = 0;
};
inline TransposeAxes transpose_axes(const ir::Call& call, std::size_t rank, const ir::Span& span) {
  auto rank_i = static_cast<std::int64_t>(rank);
  std::size_t axes[2];
  for (std::size_t k = 0; k < 2; ++k) {
    auto a = ir::const_int(call.args[k + 1]);
    if (!a)
      ir::throw_internal_error(std::string(pass_name), "tile.transpose axes must be constants after type deduction",
                               span);
    if (*a < -rank_i || *a >= rank_i)
      reject("axis " + std::to_string(*a) + " is out of range for rank " + std::to_string(rank) + " in tile.transpose",
             span);
    axes[k] = static_cast<std::size_t>(*a < 0 ? *a + rank_i : *a);
  }
  return {std::min(axes[0], axes[1]), std::max(axes[0], axes[1])};
}

// FL-14: a natural NZ Mat load — the implicit Mat view, col_major blocks of row_major
// boxes — is issued as one ND2NZ copy from a 2D tensor, so the rewrite views its source as
// 2D. Sources already in NZ layout are never collapsed (FL-20).
inline bool is_natural_nz_load(const ir::TileType& result, const ir::TensorType& source) {
  if (result.memory != ir::MemorySpace::Mat || !is_flattenable(result)) return false;
  if (source.view && source.view->layout == ir::TensorLayout::NZ) return false;
  ir::TileView v = ir::effective_view(result);
  return v.blayout == ir::TileLayout::col_major && v.slayout == ir::TileLayout::row_major;
}

// FL-12/FL-14/FL-15: why the window of a natural NZ load cannot be collapsed onto a 2D view
// of its source, or nullopt when it can.
inline std::optional<std::string> nz_window_problem(const ir::Call& load, const ir::TileType& result,
                                                    const ir::TensorType& source) {
  const std::size_t rank = result.shape.size();
  auto rank_of = [&](std::size_t i) -> std::size_t {
    auto* t = i < load.args.size() ? ir::as<ir::MakeTuple>(load.args[i]) : nullptr;
    return t ? t->elements.size() : 0;
  };
  // The message is built only for a rejection: this runs on every natural NZ load.
  auto what = [&] {
    return "tile.load of a " + dims_text(result.shape) + " window from a " + dims_text(source.shape) +
           " tensor into Mat";
  };
  if (source.shape.size() != rank || rank_of(1) != rank || rank_of(2) != rank ||
      (load.args.size() > 3 && rank_of(3) != rank))
    return what() + " names its window with a different rank than the tensor, so the window cannot be collapsed "
                    "onto a 2D view of the tensor; give offsets, shapes and valid_shape one entry per tensor axis";
  const auto& valid = ir::as<ir::MakeTuple>(load.args[load.args.size() > 3 ? 3 : 2])->elements;
  if (!is_row_band(valid, source.shape))
    return what() + " reads the valid box " + dims_text(valid) +
           ", which is not one contiguous band of rows of the tensor, so it cannot be a single 2D NZ load. Load "
           "one outer index at a time (pl.range over the leading axis), or load to Vec and move";
  if (source.view && !source.view->valid_shape.empty() && !is_row_band(ir::valid_shape(source), source.shape))
    return what() + " reads a tensor whose valid region " + dims_text(ir::valid_shape(source)) +
           " cannot be represented by a single 2D view; make the tensor's valid region a band of rows";
  return std::nullopt;
}

class Preconditions {
 public:
  explicit Preconditions(const BatchMatmulPlan& plan) : plan_(&plan) {}

  void check(const ir::FunctionNode& f) {
    ir::for_each_stmt(f.body, [&](const ir::Stmt& s) {
      if (auto* seq = ir::as<ir::Seq>(s))
        for (std::size_t i = 0; i + 1 < seq->stmts.size(); ++i) check_batch_matmul_store(seq->stmts[i], seq->stmts[i + 1]);
      const ir::Expr* value = ir::stmt_call_expr(s);
      if (!value) return;
      const ir::Call& call = *ir::as<ir::Call>(*value);
      if (!ir::is_tile_op(call.callee.op)) return;
      check_call(s, *value, call);
    });
  }

 private:
  void check_call(const ir::Stmt& s, const ir::Expr& value, const ir::Call& call) {
    const OpIds& op = op_ids();
    const ir::Span& span = s->span;
    check_static_dims(call.callee.op, value->type, span);
    for (const auto& a : call.args) check_static_dims(call.callee.op, a->type, span);
    // A batched matmul is lowered page by page, its accumulator packed or refused by its own
    // plan (FL-64): no valid region of its is merged by rows here.
    if (call.callee.op != op.batch_matmul && call.callee.op != op.batch_matmul_acc) {
      check_valid_region(call.callee.op, value->type, "its result", span);
      for (std::size_t i = 0; i < call.args.size(); ++i)
        check_valid_region(call.callee.op, call.args[i]->type, "operand " + std::to_string(i), span);
    }
    check_rowwise(call, value, span);

    const ir::TileType* arg0 = call.args.empty() ? nullptr : ir::tile_type(call.args[0]);
    const bool nd_arg0 = arg0 && arg0->shape.size() > 2;
    if (nd_arg0 && (call.callee.op == op.read || call.callee.op == op.write || call.callee.op == op.slice))
      reject(std::string(ir::op_name(call.callee.op)) + " is not supported on >2D tiles: it addresses elements by ND coordinates that no longer exist "
                    "once the tile is flattened. Index the flattened 2D tile instead, or reshape the tile to 2D "
                    "(pl.tile.reshape) before this op",
             span);
    if (call.callee.op == op.assemble && nd_arg0) check_assemble(call, *arg0, span);
    // A 2D target keeps its offset as written: one of another rank would reach codegen, which
    // reads only its first two elements (FL-70 flags it after the pass; refused here, located).
    if (call.callee.op == op.assemble && arg0 && arg0->shape.size() == 2) check_assemble_offset_rank(call, 2, span);
    if (call.callee.op == op.transpose && nd_arg0) check_transpose(call, *arg0, span);
    if (call.callee.op == op.store) check_store(call, span);
    if (call.callee.op == op.load) check_nz_load(s, value, call);
  }

  // FL-14: a natural NZ load's window must collapse — unless the batched-matmul lowering
  // drops the load and re-loads it one page at a time (FL-54, FL-55).
  void check_nz_load(const ir::Stmt& s, const ir::Expr& value, const ir::Call& call) const {
    auto* result = ir::tile_type(value);
    const ir::Type promoted = result && plan_->promotes_to_mat(s.get()) ? in_mat(*result) : nullptr;  // FL-17
    if (promoted) result = ir::as<ir::TileType>(promoted);
    auto* source = call.args.empty() ? nullptr : ir::tensor_type(call.args[0]);
    if (!result || !source || !is_natural_nz_load(*result, *source)) return;
    if (plan_->dropped_kind(s.get())) return;
    if (auto problem = nz_window_problem(call, *result, *source)) reject(*problem, s->span);
  }

  // FL-05.
  static void check_static_dims(ir::OpId op, const ir::Type& type, const ir::Span& span) {
    auto* t = ir::as<ir::TileType>(type);
    if (!t || t->shape.size() <= 2) return;
    for (std::size_t i = 0; i < t->shape.size(); ++i) {
      if (ir::const_int(t->shape[i])) continue;
      reject("tile op '" + std::string(ir::op_name(op)) + "' has a dynamic (non-constant) dimension " + std::to_string(i) +
                 " in its >2D tile shape " + dims_text(t->shape) +
                 ", which cannot be flattened to 2D: a tile is a fixed on-chip buffer, so every physical "
                 "dimension must be a compile-time constant. Fix by either (1) iterating the dynamic "
                 "dimension in static chunks with pl.range/pl.parallel and loading each chunk as a static "
                 "tile whose valid_shape carries the runtime tail, or (2) reshaping the tensor to 2D before "
                 "the InCore (pl.at) scope",
             span);
    }
  }

  // FL-10 exactness: see valid_region_problem.
  static void check_valid_region(ir::OpId op, const ir::Type& type, const std::string& which, const ir::Span& span) {
    auto* t = ir::as<ir::TileType>(type);
    if (!t) return;
    if (auto problem = valid_region_problem(*t, std::string(ir::op_name(op)) + ": " + which))
      reject(*problem, span);
  }

  // FL-08, FL-38 (issue 34): the ops the pass has no rule of its own for are re-created on
  // the 2D tiles. That means the same only for a row-wise op (ops::OpFlags::rowwise) whose
  // operands' rows line up with the result's once merged: the same leading extents, or all 1
  // (one row broadcast to every row). Anything else — a column reduction or broadcast, an op
  // that takes axes or coordinates, a broadcast along a leading axis — is refused here, with
  // the way out, rather than flattened into a different computation.
  static void check_rowwise(const ir::Call& call, const ir::Expr& value, const ir::Span& span) {
    const ir::OpId id = call.callee.op;
    if (has_own_rule(id)) return;
    const ir::TileType* result = ir::tile_type(value);
    bool nd = result && result->shape.size() > 2;
    for (const auto& a : call.args)
      if (auto* t = ir::tile_type(a); t && t->shape.size() > 2) nd = true;
    if (!nd) return;
    const std::string name(ir::op_name(id));
    const ir::TileType* nd_operand = first_nd_operand(call);
    const std::string shape = dims_text((nd_operand ? nd_operand : result)->shape);
    if (name.starts_with("tile.col_"))
      reject(name + " works along axis 0 of the " + shape +
                 " tile, but every tile reduction and broadcast on a >2D tile must work along the last axis: "
                 "once the leading axes are merged into rows, axis 0 no longer exists and the op would combine "
                 "different elements. Reshape the tile to 2D yourself (pl.tile.reshape) so that the rows you "
                 "mean are the rows of the 2D tile, or loop over the leading axes and apply it to each 2D page",
             span);
    if (!ir::op_has(id, ir::OpTrait::rowwise) || !result)
      reject(name + " is not supported on >2D tiles (" + shape +
                 "): FlattenTileNdTo2D lowers it only when each row of its result comes from the same row of "
                 "its operands, which this op does not promise. Reshape the tile to 2D (pl.tile.reshape) before "
                 "this op, or apply it page by page in a loop over the leading axes",
             span);
    for (std::size_t i = 0; i < call.args.size(); ++i) {
      auto* t = ir::tile_type(call.args[i]);
      if (!t || t->shape.empty()) continue;
      // Right-aligned, each side's missing leading axes being 1 (an axis of extent 1 moves no
      // row): the operand lines up when its leading extents are the result's, or all 1.
      const std::size_t rank = std::max(result->shape.size(), t->shape.size());
      auto at = [rank](const std::vector<ir::Expr>& shape, std::size_t k) -> ir::Expr {
        const std::size_t missing = rank - shape.size();
        return k < missing ? nullptr : shape[k - missing];
      };
      auto is_one = [](const ir::Expr& d) { return !d || ir::const_int(d) == std::optional<std::int64_t>(1); };
      bool same = true, ones = true;
      for (std::size_t k = 0; k + 1 < rank; ++k) {
        const ir::Expr o = at(t->shape, k), r = at(result->shape, k);
        ones = ones && is_one(o);
        same = same && ((is_one(o) && is_one(r)) || (o && r && ir::loosely_equal(o, r)));
      }
      if (!same && !ones)
        reject(name + " combines operand " + std::to_string(i) + " of shape " + dims_text(t->shape) +
                   " with a " + dims_text(result->shape) +
                   " result by broadcasting along a leading axis; once the leading axes are merged into rows "
                   "the operand's rows no longer line up with the result's. Give the operand the result's "
                   "leading extents (or all 1s), or reshape both to 2D before the op",
               span);
    }
  }

  static const ir::TileType* first_nd_operand(const ir::Call& call) {
    for (const auto& a : call.args)
      if (auto* t = ir::tile_type(a); t && t->shape.size() > 2) return t;
    return nullptr;
  }

  // The ops the rewrite lowers by a rule of their own (or refuses above on a >2D tile).
  static bool has_own_rule(ir::OpId id) {
    const OpIds& op = op_ids();
    for (ir::OpId own : {op.load, op.store, op.create, op.full, op.assemble, op.transpose, op.transpose_view,
                         op.reshape, op.reinterpret_view, op.batch_matmul, op.batch_matmul_acc, op.slice, op.read,
                         op.write})
      if (id == own) return true;
    return false;
  }

  // FL-07a–d.
  static void check_assemble(const ir::Call& call, const ir::TileType& target, const ir::Span& span) {
    if (call.args.size() != 3) return;
    const std::size_t rank = target.shape.size();
    auto* source = ir::tile_type(call.args[1]);
    auto* offset = ir::as<ir::MakeTuple>(call.args[2]);
    if (!source || !offset) reject("tile.assemble requires a tile source and a literal offset tuple", span);
    check_assemble_offset_rank(call, rank, span);
    if (source->shape.size() != rank)
      reject("tile.assemble into a " + std::to_string(rank) + "D tile has a rank-" +
                 std::to_string(source->shape.size()) + " source " + dims_text(source->shape) +
                 ". Reshape the source to the target rank (pl.tile.reshape) before assembling",
             span);
    if (!is_row_band(source->shape, target.shape))
      reject("tile.assemble writes a " + dims_text(source->shape) + " region into a " + dims_text(target.shape) +
                 " tile, which does not collapse to a contiguous row band once both are flattened to 2D, so no "
                 "single 2D offset describes the write. Fix by looping over the outer dimension and assembling "
                 "one contiguous band (a region whose leading axes are 1s, then at most one partial axis, then "
                 "full axes) per step",
             span);
  }

  // FL-07b.
  static void check_assemble_offset_rank(const ir::Call& call, std::size_t rank, const ir::Span& span) {
    auto* offset = call.args.size() == 3 ? ir::as<ir::MakeTuple>(call.args[2]) : nullptr;
    if (!offset || offset->elements.size() == rank) return;
    reject("tile.assemble into a " + std::to_string(rank) + "D tile has a rank-" +
               std::to_string(offset->elements.size()) +
               " offset. The offset names a point in the target's own coordinate space, so it needs exactly "
               "one index per target dimension",
           span);
  }

  // FL-33: only the last two axes of a >2D tile may swap.
  static void check_transpose(const ir::Call& call, const ir::TileType& input, const ir::Span& span) {
    if (call.args.size() < 3) return;
    const std::size_t rank = input.shape.size();
    TransposeAxes axes = transpose_axes(call, rank, span);
    if (axes.first != rank - 2 || axes.second != rank - 1)
      reject("only last-two-axes tile.transpose on >2D tiles is supported; transpose involving a batch axis "
             "(axes " + std::to_string(axes.first) + ", " + std::to_string(axes.second) + " of rank " +
                 std::to_string(rank) +
                 ") is not yet lowered. Reshape the tile so the transposed axes are the last two",
             span);
  }

  // FL-24: the partition window must exist (its rejections are the user's to fix).
  static void check_store(const ir::Call& call, const ir::Span& span) {
    if (call.args.size() != 3) return;
    auto* tile = ir::tile_type(call.args[0]);
    auto* tensor = ir::tensor_type(call.args[2]);
    if (!tile || !tensor || tensor->shape.size() <= 2) return;
    (void)store_partition_shape(*tile, *tensor, call.args[1], span);
  }

  // FL-57: a store that consumes a batched matmul result addresses the result's batch axes.
  static void check_batch_matmul_store(const ir::Stmt& producer, const ir::Stmt& consumer) {
    auto* a = ir::as<ir::Assign>(producer);
    auto* mm = a ? ir::as<ir::Call>(a->value) : nullptr;
    if (!mm || mm->callee.op != op_ids().batch_matmul) return;
    auto* st = ir::stmt_call(consumer);
    if (!st || st->callee.op != op_ids().store || st->args.size() < 3 || st->args[0] != a->var) return;
    auto* result = ir::tile_type(a->var);
    auto* offsets = ir::as<ir::MakeTuple>(st->args[1]);
    if (result && offsets && offsets->elements.size() != result->shape.size())
      reject("tile.store offsets rank must match batch_matmul result rank: the store of the " +
                 std::to_string(result->shape.size()) + "D result " + dims_text(result->shape) + " names " +
                 std::to_string(offsets->elements.size()) +
                 " offsets. Give one offset per result axis (batch axes first), or store into a tensor of the "
                 "result's rank",
             consumer->span);
  }

  const BatchMatmulPlan* plan_;
};

// A type's kind, for messages about a value of the wrong kind.
inline std::string_view type_kind(const ir::Type& t) {
  if (ir::as<ir::TileType>(t)) return "TileType";
  if (ir::as<ir::TensorType>(t)) return "TensorType";
  if (ir::as<ir::ScalarType>(t)) return "ScalarType";
  if (ir::as<ir::TupleType>(t)) return "TupleType";
  return "an untyped value";
}

// FL-50, FL-51, FL-60: the operands, result and accumulator of every batched matmul are what
// the unroll reads. The op's own deduction rules most of this out; hand-built IR reaches it.
// Returns each site's geometry, which the rewrite reads instead of computing (and checking)
// it again.
using BatchGeometries = std::unordered_map<const ir::StmtNode*, BatchGeometry>;
inline BatchGeometries check_batch_matmuls(const ir::FunctionNode& f, const BatchMatmulPlan& plan,
                                           const AccPacking& packing) {
  BatchGeometries geometries;
  std::unordered_set<const ir::ExprNode*> params;
  for (const auto& p : f.params) params.insert(p.var.get());
  ir::for_each_stmt(f.body, [&](const ir::Stmt& s) {
    const BatchMatmulSite* site = plan.site(s.get());
    if (!site) return;
    const ir::Call& call = *site->call;
    const bool acc = call.callee.op == op_ids().batch_matmul_acc;
    const std::string op(ir::op_name(call.callee.op));
    const std::size_t l = acc ? 1 : 0;
    if (call.args.size() < l + 2) return;  // the registry's arity check owns this
    for (std::size_t i : {l, l + 1})
      if (!ir::tile_type(call.args[i]))
        reject(op + " " + (i == l ? "lhs" : "rhs") + " expects TileType operand, but got " +
                   std::string(type_kind(call.args[i]->type)),
               s->span);
    if (!ir::tile_type(*ir::stmt_call_expr(s))) reject(op + " expects TileType result", s->span);
    const BatchGeometry& g = geometries[s.get()] =
        batch_geometry(*ir::tile_type(call.args[l]), *ir::tile_type(call.args[l + 1]), op, s->span);
    if (!acc) {
      geometries[s.get()].out_batch = result_batch(g, *ir::tile_type(*ir::stmt_call_expr(s)), op, s->span);
      return;
    }
    // FL-60: the accumulator, as the rewrite will see it.
    const ir::Expr& a = call.args[0];
    if (!ir::is_var_like(a))
      reject(op + " acc must be a Var/IterArg after substitution, got " + std::string(type_kind(a->type)) +
                 " expression; bind the accumulator to a name first",
             s->span);
    auto* t = ir::tile_type(a);
    if (!t) reject(op + " acc must be TileType, got " + std::string(type_kind(a->type)), s->span);
    if (packing.of(a.get())) return;  // [M, B*N] by construction
    std::vector<ir::Expr> shape = t->shape;
    if (!params.contains(a.get()) && is_flattenable(*t)) shape = merged_shape(t->shape, op + " acc", s->span);
    if (shape.size() != 2)
      reject(op + " expects acc to be 2D after flatten, got rank " + std::to_string(shape.size()) +
                 "; a function parameter keeps its type, so pass the accumulator in as a 2D tile or create it in "
                 "the function",
             s->span);
    auto rows = ir::const_int(shape[0]), cols = ir::const_int(shape[1]);
    if (!rows || !cols) reject(op + " expects static acc dims after flatten, got " + dims_text(shape), s->span);
    if (*rows != g.pages * g.m)
      reject(op + " acc rows " + std::to_string(*rows) + " != batch_count(" + std::to_string(g.pages) + ") * M(" +
                 std::to_string(g.m) + "): the accumulator must hold one [M, N] page per output batch",
             s->span);
    if (*cols != g.n)
      reject(op + " acc cols " + std::to_string(*cols) + " != N(" + std::to_string(g.n) + ")", s->span);
  });
  return geometries;
}

// The plans the rewrite follows; computing them raises every error a kernel can cause.
struct FunctionAnalysis {
  BatchMatmulPlan batch;
  AccPacking packing;
  BatchGeometries geometries;  // per batched matmul site
};

// FL-03: raises the first error of `f`, or returns the plans having changed nothing. The
// lowerings may emit at most `max_expansion` statements (0: no limit), and with a backend
// what they allocate must fit (expansion.hpp).
inline FunctionAnalysis analyze(const ir::FunctionNode& f, const backend::BackendInfo& backend,
                                std::uint64_t max_expansion) {
  FunctionAnalysis a;
  a.batch = BatchMatmulPlanner(backend).plan(f);
  Preconditions(a.batch).check(f);
  a.packing = plan_acc_packing(f, backend);
  a.geometries = check_batch_matmuls(f, a.batch, a.packing);
  check_expansion(f, a.batch, a.packing, max_expansion, backend);
  return a;
}

}  // namespace tilewright::passes::flatten
