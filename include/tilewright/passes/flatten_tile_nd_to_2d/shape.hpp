#pragma once
// The IR side of FlattenTileNdTo2D's geometry (FL-09…FL-12): math/merge.hpp does the
// integer work, this header adapts Expr dims to it and keeps symbolic extents symbolic.
//
// Every rewrite of the pass speaks in these four terms: the merged 2D shape of a tile,
// its merged valid shape, the 2D coordinate of an ND offset, and whether an ND sub-box is
// still one band of consecutive rows once merged.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tilewright/ir/diagnostic.hpp"
#include "tilewright/ir/expr.hpp"
#include "tilewright/ir/expr_text.hpp"
#include "tilewright/ir/geometry.hpp"
#include "tilewright/ir/index_arith.hpp"

namespace tilewright::passes::flatten {

inline constexpr std::string_view pass_name = "FlattenTileNdTo2D";

using ir::dims_text;

// True for a tile type the pass rewrites: rank > 2 with every physical dim constant.
inline bool is_flattenable(const ir::TileType& t) noexcept {
  if (t.shape.size() <= 2) return false;
  for (const auto& d : t.shape)
    if (!ir::const_int(d)) return false;
  return true;
}

[[noreturn]] inline void throw_dynamic_dim(const std::vector<ir::Expr>& shape, std::string_view context,
                                           const ir::Span& span) {
  ir::throw_user_error(std::string(pass_name),
                       "found a dynamic (non-constant) dimension in " + std::string(context) + " " + dims_text(shape) +
                           ", but flattening >2D tiles to 2D (and unrolling batched matmul) requires every tile "
                           "dimension to be a compile-time constant; keep the physical tile static and put the "
                           "runtime extent in valid_shape",
                       span);
}

// FL-09: [d0, …, d(n-2), d(n-1)] → [d0*…*d(n-2), d(n-1)]. `context` names what is being
// merged, for the message. Every dim must be a constant: a tile maps onto a fixed buffer.
inline std::vector<ir::Expr> merged_shape(const std::vector<ir::Expr>& shape, std::string_view context,
                                          const ir::Span& span) {
  auto dims = ir::maybe_dims(shape);
  auto merged = math::merged_shape(std::span<const math::maybe_i64>(dims));
  if (!merged) {
    const math::merge_error& e = merged.error();
    const std::string where = " in " + std::string(context);
    switch (e.code) {
      case math::merge_errc::non_positive_dim:
        ir::throw_user_error(std::string(pass_name), "tile dimension " + std::to_string(e.axis) +
                                                         " must be positive" + where + ", got " +
                                                         std::to_string(e.dim),
                             span);
      case math::merge_errc::overflow:
        ir::throw_user_error(std::string(pass_name),
                             "integer overflow when computing merged dimension" + where +
                                 " (merged=" + std::to_string(e.merged) + ", dim=" + std::to_string(e.dim) + ")",
                             span);
      default:
        throw_dynamic_dim(shape, context, span);
    }
  }
  return {ir::make_int((*merged)[0], ir::DataType::INDEX, span), shape.back()};
}

// FL-09/FL-51: the dims of a tile whose every extent the rewrite must know — a batched
// matmul is unrolled page by page, so its operands' batch and matrix dims are numbers.
inline std::vector<std::int64_t> static_dims(const std::vector<ir::Expr>& shape, std::string_view context,
                                             const ir::Span& span) {
  std::vector<std::int64_t> out;
  out.reserve(shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i) {
    auto d = ir::const_int(shape[i]);
    if (!d) throw_dynamic_dim(shape, context, span);
    if (*d <= 0)
      ir::throw_user_error(std::string(pass_name), "tile dimension " + std::to_string(i) + " must be positive in " +
                                                       std::string(context) + ", got " + std::to_string(*d),
                           span);
    out.push_back(*d);
  }
  return out;
}

// FL-10: the valid shape merged like the physical one, tolerating symbolic extents: the
// constant leading factors fold into one number, the symbolic ones multiply in order, a
// factor of 1 disappears. [1,S,512] → [S,512]; [2,S,256] → [2*S,256]; [S,T,8] → [S*T,8];
// [1,10,512] → [10,512] (never widened back to the physical extent).
inline std::vector<ir::Expr> merged_valid_shape(const std::vector<ir::Expr>& valid, const ir::Span& span) {
  std::int64_t constant = 1;
  ir::Expr symbolic;
  bool overflow = false;
  for (std::size_t i = 0; i + 1 < valid.size(); ++i) {
    if (auto c = ir::const_int(valid[i])) {
      auto next = math::checked_mul(constant, *c);
      overflow = overflow || !next;
      constant = next.value_or(constant);
      continue;
    }
    symbolic = symbolic ? ir::make_expr(ir::Binary{ir::BinaryOp::Mul, symbolic, valid[i]},
                                        ir::scalar_type(ir::DataType::INDEX), span)
                        : valid[i];
  }
  if (overflow)
    ir::throw_user_error(std::string(pass_name),
                         "integer overflow when merging the leading extents of valid_shape " + dims_text(valid), span);
  ir::Expr rows = ir::make_int(constant, ir::DataType::INDEX, span);
  if (symbolic)
    rows = constant == 1 ? symbolic
                         : ir::make_expr(ir::Binary{ir::BinaryOp::Mul, rows, symbolic},
                                         ir::scalar_type(ir::DataType::INDEX), span);
  return {rows, valid.back()};
}

// Index arithmetic of FL-11: constants fold (an overflowing sum is the user's, an
// overflowing product an invariant break), x*0 = 0, x*1 = x, 0+x = x.
inline ir::Expr fold_mul(const ir::Expr& a, const ir::Expr& b, const ir::Span& span) {
  auto ca = ir::const_int(a), cb = ir::const_int(b);
  if ((ca && *ca == 0) || (cb && *cb == 0)) return ir::make_int(0, ir::DataType::INDEX, span);
  if (ca && cb && !math::checked_mul(*ca, *cb))
    ir::throw_internal_error(std::string(pass_name), "integer overflow while canonicalizing index multiply", span);
  return ir::index_mul(a, b, span);
}
inline ir::Expr fold_add(const ir::Expr& a, const ir::Expr& b, const ir::Span& span) {
  auto ca = ir::const_int(a), cb = ir::const_int(b);
  if (ca && cb && !math::checked_add(*ca, *cb))
    ir::throw_user_error(std::string(pass_name), "integer overflow while canonicalizing index add", span);
  return ir::index_add(a, b, span);
}

// FL-11: the (row, col) of an ND offset inside a container of extents `dims` (the tensor
// for loads, the target tile for assemble): row = ((o0*d1 + o1)*d2 + …) + o(n-2).
inline std::vector<ir::Expr> collapsed_offset(const std::vector<ir::Expr>& offsets, const std::vector<ir::Expr>& dims,
                                              const ir::Span& span) {
  const std::size_t n = offsets.size();
  ir::Expr row = n >= 2 ? offsets[0] : ir::make_int(0, ir::DataType::INDEX, span);
  for (std::size_t i = 1; i + 1 < n; ++i) row = fold_add(fold_mul(row, dims[i], span), offsets[i], span);
  return {row, offsets[n - 1]};
}

// The product of the leading extents (all but the last), symbolic where a dim is.
inline ir::Expr leading_product(const std::vector<ir::Expr>& dims, const ir::Span& span) {
  ir::Expr product = ir::make_int(1, ir::DataType::INDEX, span);
  for (std::size_t i = 0; i + 1 < dims.size(); ++i) product = fold_mul(product, dims[i], span);
  return product;
}

// FL-12 (IsRowMajorCollapseContiguous): the box `valid` of a container `dims` merges into
// one band of consecutive rows. A rank mismatch has nothing to collapse and answers true.
inline bool is_row_band(const std::vector<ir::Expr>& valid, const std::vector<ir::Expr>& dims) {
  if (valid.size() != dims.size() || valid.size() < 2 || valid.size() > math::k_max_rank) return true;
  std::array<math::axis_cover, math::k_max_rank> leading{};
  for (std::size_t i = 0; i + 1 < valid.size(); ++i) {
    auto v = ir::const_int(valid[i]);
    leading[i] = {v && *v == 1, ir::loosely_equal(valid[i], dims[i])};
  }
  return math::is_row_major_collapse_contiguous(std::span<const math::axis_cover>(leading.data(), valid.size() - 1));
}

// FL-10 exactness (issue 34): merging the leading axes of a valid region keeps the set of
// valid elements only when that region is one band of rows of the tile — singleton axes,
// then one partial axis, then full axes. valid [s, t, 8] of a [4, 4, 8] tile merges to
// [s*t, 8], the first s*t rows, while the valid rows are t of every block of 4: unless t
// is provably 4 the flattened tile means other elements. The seed's chunk tile
// [1, min(CHUNK, S - c), 512] is a band. nullopt when the merge is exact.
inline std::optional<std::string> valid_region_problem(const ir::TileType& t, std::string_view what) {
  if (!t.view || t.view->valid_shape.size() != t.shape.size() || t.shape.size() <= 2) return std::nullopt;
  const std::vector<ir::Expr>& valid = t.view->valid_shape;
  if (is_row_band(valid, t.shape)) return std::nullopt;
  return std::string(what) + " has the valid region " + dims_text(valid) + " in a " + dims_text(t.shape) +
         " tile, which is not one band of rows once its leading axes are merged: the 2D tile's valid region "
         "would be " + dims_text(merged_valid_shape(valid, {})) + ", the first rows of the merged tile, not the "
         "elements the region holds. "
         "Flattening to 2D is exact only when every leading axis inside the outermost partial one is provably full. "
         "Fix by looping over the outer axis and giving each step a tile whose only partial leading axis is its "
         "outermost non-unit one (the chunk loop: [1, pl.min(CHUNK, n - c), ...] per step), or by making the inner "
         "valid extents the tile's full extents";
}

// The 2D type of a flattenable tile type (FL-13's view rule): a stored view keeps its
// layout, fractal, pad and compact mode, drops stride and start offset, and gets the merged
// valid shape when it had one of full rank. No stored view stays no view (the implicit view
// of the 2D shape). Memory space and MemRef are kept.
inline ir::Type flattened_tile_type(const ir::TileType& t, const ir::Span& span = {}) {
  std::vector<ir::Expr> shape = merged_shape(t.shape, "tile type", span);
  // The preconditions name the op; this catches any tile type they did not reach.
  if (auto problem = valid_region_problem(t, "a tile")) ir::throw_user_error(std::string(pass_name), *problem, span);
  std::optional<ir::TileView> view;
  if (t.view) {
    view = *t.view;
    view->stride.clear();
    view->start_offset = nullptr;
    view->valid_shape = t.view->valid_shape.size() == t.shape.size() ? merged_valid_shape(t.view->valid_shape, span)
                                                                     : std::vector<ir::Expr>{};
  }
  return ir::make_tile_type(std::move(shape), t.dtype, std::move(view), t.memory, t.memref);
}

}  // namespace tilewright::passes::flatten
