#pragma once
// The integer geometry of one tile.batch_matmul / tile.batch_matmul_acc (FL-50, FL-51).
//
//   lhs [..., M, K] × rhs [..., K, N] → [..., M, N]
//
// The batch dims broadcast NumPy-style: right-aligned, a 1 stretches, a missing leading
// dim counts as 1. The matmul is unrolled into one 2D product per output page, and each
// operand contributes the page its own batch dims select: with lhs [2, 1, 16, 64] and
// rhs [1, 3, 64, 32] the output batch is [2, 3], and output page 4 (indices [1, 1]) reads
// lhs page 1 and rhs page 1.
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tilewright/math/checked.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/shape.hpp"

namespace tilewright::passes::flatten {

// Row-major indices of the flat position `flat` in a box of extents `dims`.
inline std::vector<std::int64_t> unravel(std::int64_t flat, std::span<const std::int64_t> dims) {
  std::vector<std::int64_t> index(dims.size(), 0);
  for (std::size_t i = dims.size(); i-- > 0;) {
    index[i] = flat % dims[i];
    flat /= dims[i];
  }
  return index;
}

// The ND offsets of page `idx` of a window at `offsets`: idx added to the leading axes.
inline std::vector<ir::Expr> offsets_plus(const std::vector<ir::Expr>& offsets, const std::vector<std::int64_t>& idx,
                                          const ir::Span& span) {
  std::vector<ir::Expr> out = offsets;
  for (std::size_t d = 0; d < idx.size() && d < out.size(); ++d)
    if (idx[d] != 0) out[d] = fold_add(out[d], ir::make_int(idx[d], ir::DataType::INDEX, span), span);
  return out;
}

// Call operands: `fixed`, then `trailing` when it is set (an optional window or init_cond).
// Sized once: an initializer-list vector grown by push_back trips g++ 12's -Warray-bounds
// at -O3, a false positive that -Werror turns into a build failure.
inline std::vector<ir::Expr> operands(std::initializer_list<ir::Expr> fixed, ir::Expr trailing) {
  std::vector<ir::Expr> out;
  out.reserve(fixed.size() + 1);
  out.insert(out.end(), fixed.begin(), fixed.end());
  if (trailing) out.push_back(std::move(trailing));
  return out;
}

struct BatchGeometry {
  std::vector<std::int64_t> lhs;    // the operands' dims as the matmul reads them
  std::vector<std::int64_t> rhs;
  std::vector<std::int64_t> batch;  // the broadcast output batch dims
  // The same pages as the result's type groups them (see result_batch); what a fused store
  // adds to its offsets.
  std::vector<std::int64_t> out_batch;
  std::int64_t pages = 1;           // output pages: the product of `batch`
  std::int64_t m = 0;
  std::int64_t n = 0;

  [[nodiscard]] std::vector<std::int64_t> batch_index(std::int64_t page) const { return unravel(page, batch); }
  [[nodiscard]] std::vector<std::int64_t> result_index(std::int64_t page) const { return unravel(page, out_batch); }

  // The flat page of an operand of extents `dims` that output page `page` reads: its
  // batch dims line up with the output's last ones, and a 1 always reads index 0.
  [[nodiscard]] std::int64_t operand_page(const std::vector<std::int64_t>& dims, std::int64_t page) const {
    const std::vector<std::int64_t> out = batch_index(page);
    const std::size_t rank = dims.size() - 2;
    const std::size_t skip = batch.size() - rank;
    std::int64_t flat = 0;
    for (std::size_t i = 0; i < rank; ++i) flat = flat * dims[i] + (dims[i] == 1 ? 0 : out[skip + i]);
    return flat;
  }
  [[nodiscard]] std::int64_t lhs_page(std::int64_t page) const { return operand_page(lhs, page); }
  [[nodiscard]] std::int64_t rhs_page(std::int64_t page) const { return operand_page(rhs, page); }
};

// The geometry of `op` over operand tile types `lhs` and `rhs`. The op's own type deduction
// already rules out what is rejected here, so these errors only reach hand-built IR.
inline BatchGeometry batch_geometry(const ir::TileType& lhs, const ir::TileType& rhs, std::string_view op,
                                    const ir::Span& span) {
  const std::string name(op);
  auto reject = [&](const std::string& message) { ir::throw_user_error(std::string(pass_name), message, span); };
  if (lhs.shape.size() < 2) reject(name + " lhs must be at least 2D, got " + dims_text(lhs.shape));
  if (rhs.shape.size() < 2) reject(name + " rhs must be at least 2D, got " + dims_text(rhs.shape));
  BatchGeometry g;
  g.lhs = static_dims(lhs.shape, name + " lhs", span);
  g.rhs = static_dims(rhs.shape, name + " rhs", span);
  const std::size_t lb = g.lhs.size() - 2, rb = g.rhs.size() - 2;
  const std::int64_t k_lhs = g.lhs.back(), k_rhs = g.rhs[rb];
  if (k_lhs != k_rhs)
    ir::throw_internal_error(std::string(pass_name),
                             "Internal error: " + name + " inner dimensions must match, but got " +
                                 std::to_string(k_lhs) + " and " + std::to_string(k_rhs),
                             span);
  g.m = g.lhs[lb];
  g.n = g.rhs.back();
  const std::size_t rank = std::max(lb, rb);
  g.batch.assign(rank, 1);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t a = i + lb >= rank ? g.lhs[i + lb - rank] : 1;
    const std::int64_t b = i + rb >= rank ? g.rhs[i + rb - rank] : 1;
    if (a != b && a != 1 && b != 1)
      reject(name + " batch dimensions must broadcast: lhs " + dims_text(lhs.shape) + " and rhs " +
             dims_text(rhs.shape) + " differ at batch axis " + std::to_string(i) +
             " and neither is 1. Make the batch dims equal, or 1 where one operand is shared");
    g.batch[i] = a == 1 ? b : a;
  }
  for (std::int64_t d : g.batch) {
    auto next = math::checked_mul(g.pages, d);
    if (!next) reject("integer overflow when computing merged dimension in " + name + " output batch");
    g.pages = *next;
  }
  g.out_batch = g.batch;
  return g;
}

// The batch dims of a tile.batch_matmul's result, `result` as its type names it. An
// annotation may regroup the product's batch axes (`[4, M, N]` over a `[1, 4, M, N]` product:
// the text's annotation stands where it holds as many elements); the pages are the same
// row-major stack either way, and a fused store (FL-57) walks them by the result's own axes.
// Anything but a stack of [M, N] pages is refused rather than guessed at.
inline std::vector<std::int64_t> result_batch(const BatchGeometry& g, const ir::TileType& result, std::string_view op,
                                              const ir::Span& span) {
  const std::string name(op);
  const std::vector<std::int64_t> dims = static_dims(result.shape, name + " result", span);
  const std::size_t r = dims.size();
  if (r >= 2 && dims[r - 2] == g.m && dims[r - 1] == g.n) {
    std::vector<std::int64_t> batch(dims.begin(), dims.end() - 2);
    std::optional<std::int64_t> pages = 1;
    for (std::int64_t d : batch) pages = pages ? math::checked_mul(*pages, d) : std::nullopt;
    if (pages == g.pages) return batch;
  }
  std::vector<std::int64_t> product = g.batch;
  product.push_back(g.m);
  product.push_back(g.n);
  ir::throw_user_error(std::string(pass_name),
                       name + " result is typed " + dims_text(result.shape) + ", which is not a stack of its " +
                           std::to_string(g.pages) + " [" + std::to_string(g.m) + ", " + std::to_string(g.n) +
                           "] pages (the product is " + dims_text(product) +
                           "); annotate the result with the product's shape",
                       span);
}

}  // namespace tilewright::passes::flatten
