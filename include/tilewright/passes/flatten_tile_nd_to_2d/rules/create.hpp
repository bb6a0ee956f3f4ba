#pragma once
// FL-26: tile.create / tile.full of a >2D shape are built again with the merged 2D shape
// literal; the fill value and kwargs are kept.
//   z = tile.create([2, 3, 4], dtype=FP32)   →   z = tile.create([6, 4], dtype=FP32)
#include "tilewright/passes/flatten_tile_nd_to_2d/rules/shape_operand.hpp"
#include "tilewright/rewrite/op_set.hpp"

namespace tilewright::passes::flatten {

struct FlattenCreate {
  static constexpr std::string_view name = "flatten-create";
  static constexpr auto roots = rewrite::ops_of<"tile.create", "tile.full">;

  ir::Stmt apply(FlattenContext& ctx, const ir::Stmt& stmt, const ir::Call& call) const {
    return with_merged_shape_operand(ctx, stmt, call, 0);
  }
};

}  // namespace tilewright::passes::flatten
