#pragma once
// FL-36 (seed 003): tile.reshape(src, shape) and tile.reinterpret_view(src, shape, dtype=)
// with a >2D literal target shape get the merged 2D shape [prod(leading), last]. A tile is
// one row-major run, so [2, 8, 128] and [16, 128] name the same elements in the same order;
// the 2D reshape is often an identity that FoldNoOpReshape removes later. These are the only
// tile ops whose result rank comes from a shape operand, which is why the generic path
// cannot lower them. The one-argument reinterpret_view, and 2D targets, take the generic path.
#include "tilewright/passes/flatten_tile_nd_to_2d/rules/shape_operand.hpp"

namespace tilewright::passes::flatten {

inline constexpr auto flatten_reshape = [] {
  using namespace rule_parts;
  using namespace rewrite;
  return rule("flatten-reshape",
              stmt_of(bind(_c, call(ops_of<"tile.reshape", "tile.reinterpret_view">, _, bind(_x, tuple(etc))))),
              flattens_result,
              replace(recreate(_c, arg<1>(merged_shape_operand))));
}();

}  // namespace tilewright::passes::flatten
