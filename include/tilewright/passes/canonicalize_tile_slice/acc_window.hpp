#pragma once
// CT-19: the accumulator window a matmul cannot write (the one error of this pass).
//
// L0C stores an [M, N] accumulator as 16x16 blocks, block columns outermost (see
// math/l0c.hpp). A window is one compact run of that memory only when it spans every row of
// its parent, or stays inside one 16-column block. The MAD writes its destination compactly
// from the window's first address — it has no destination stride (pto-isa#253) — so any other
// window would silently receive the wrong rows. Unlike the Vec hazards there is no copy to
// make (nothing points into Acc from outside), so the pass reports it.
//
// The check stays silent on whatever it cannot prove: symbolic extents, a parent that is not
// laid out as L0C, non-2D tiles.
#include <string>

#include "tilewright/ir/diagnostic.hpp"
#include "tilewright/math/l0c.hpp"
#include "tilewright/passes/canonicalize_tile_slice/slice.hpp"

namespace tilewright::passes::canonicalize {

namespace acc_detail {

// The spelling that works, which differs from the rejected one only in the sliced axis. When
// the parent splits into whole windows, the same memory packed as column bands (the packing
// FlattenTileNdTo2D uses for batched accumulators); otherwise a window over every row.
inline std::string column_slice_fix(std::int64_t rows, std::int64_t cols,
                                    std::int64_t parent_rows) {
  using std::to_string;
  const std::string r = to_string(rows), c = to_string(cols);
  if (auto packed = math::pack_row_windows(parent_rows, cols, rows))
    return " Fix: Pack the accumulator along columns rather than rows — allocate " + r + "x" +
           to_string(packed->cols) + " and use tile.slice(acc, [" + r + ", " + c + "], [0, i * " +
           c + "]); that is the same L0C memory, addressed in the order the hardware writes it.";
  const std::string pr = to_string(parent_rows);
  return " Fix: slice the accumulator along columns, so that each window spans all " + pr +
         " rows: tile.slice(acc, [" + pr + ", " + c + "], [0, j]).";
}

}  // namespace acc_detail

// Throws the CT-19 user error when `view` — the extent of the destination operand of the
// accumulating call `op` — is a window of `window.base` that a MAD cannot address.
inline void check_accumulator_window(ir::OpId op, const ir::Span& span, const ir::TileType* view,
                                     const Window& window) {
  const ir::TileType* parent = ir::tile_type(window.base);
  if (!view || !parent || view->shape.size() != 2 || parent->shape.size() != 2) return;
  // L0C is recognised by its memory space or by the layout a slice inherits from it.
  const ir::TileView layout = ir::effective_view(*parent);
  if (parent->memory != ir::MemorySpace::Acc && layout.blayout != ir::TileLayout::col_major) return;
  if (layout.fractal != static_cast<std::uint64_t>(math::k_acc_fractal_bytes)) return;
  auto rows = ir::const_int(view->shape[0]), cols = ir::const_int(view->shape[1]);
  auto parent_rows = ir::const_int(parent->shape[0]);
  if (!rows || !cols || !parent_rows) return;
  if (math::mad_can_address({*rows, *cols, ir::const_int(window.col), *parent_rows})) return;

  auto parent_cols = ir::const_int(parent->shape[1]);
  const std::string block = std::to_string(math::k_acc_block_dim);
  const std::string extent = std::to_string(*rows) + "x" + std::to_string(*cols);
  const std::string parent_extent = std::to_string(*parent_rows) + "x" +
                                    (parent_cols ? std::to_string(*parent_cols) : std::string("?"));
  std::string message =
      std::string(ir::op_name(op)) + ": the accumulator is a " + extent + " row window of a " +
      parent_extent + " Acc (L0C) tile, which is not contiguous in L0C's block layout, " +
      "so a matmul cannot write it: the MAD stores its result densely from the window's first " +
      "address with no destination stride, and only the first " + block +
      " columns of each row tile would be correct.\n" +
      "A matmul destination must span every row of its parent tile, or lie inside one " + block +
      "-column block (at most " + block + " columns wide)." +
      acc_detail::column_slice_fix(*rows, *cols, *parent_rows) +
      "\nNote: a compiler pass may have created this window, so it may not appear in the kernel source. " +
      "FlattenTileNdTo2D packs the pages of a batched accumulator along columns for this reason " +
      "(a batch_matmul_acc, or an ND matmul_acc, never produces such a window); if the kernel has " +
      "no such tile.slice, report it rather than reshaping the kernel around it.";
  ir::throw_user_error(std::string(pass_name), std::move(message), span);
}

}  // namespace tilewright::passes::canonicalize
