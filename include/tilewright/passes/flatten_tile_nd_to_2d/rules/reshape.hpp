#pragma once
// FL-36 (seed 003): tile.reshape(src, shape) and tile.reinterpret_view(src, shape, dtype=)
// with a >2D literal target shape get the merged 2D shape [prod(leading), last]. A tile is
// one row-major run, so [2, 8, 128] and [16, 128] name the same elements in the same order;
// the 2D reshape is often an identity that FoldNoOpReshape removes later. These are the only
// tile ops whose result rank comes from a shape operand, which is why the generic path
// cannot lower them. The one-argument reinterpret_view, and 2D targets, take the generic path.
#include "tilewright/passes/flatten_tile_nd_to_2d/rules/shape_operand.hpp"
#include "tilewright/rewrite/op_set.hpp"

namespace tilewright::passes::flatten {

struct FlattenReshape {
  static constexpr std::string_view name = "flatten-reshape";
  static constexpr auto roots = rewrite::ops_of<"tile.reshape", "tile.reinterpret_view">;

  ir::Stmt apply(FlattenContext& ctx, const ir::Stmt& stmt, const ir::Call& call) const {
    return call.args.size() == 2 ? with_merged_shape_operand(ctx, stmt, call, 1) : nullptr;
  }
};

}  // namespace tilewright::passes::flatten
