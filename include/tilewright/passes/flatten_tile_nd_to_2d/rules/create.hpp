#pragma once
// FL-26: tile.create / tile.full of a >2D shape are built again with the merged 2D shape
// literal; the fill value and kwargs are kept.
//   z = tile.create([2, 3, 4], dtype=FP32)   →   z = tile.create([6, 4], dtype=FP32)
#include "tilewright/passes/flatten_tile_nd_to_2d/rules/shape_operand.hpp"

namespace tilewright::passes::flatten {

inline constexpr auto flatten_create = [] {
  using namespace rule_parts;
  using namespace rewrite;
  return rule("flatten-create",
              stmt_of(bind(_c, call(ops_of<"tile.create", "tile.full">, bind(_x, tuple(etc)), etc))),
              flattens_result,
              replace(recreate(_c, arg<0>(merged_shape_operand))));
}();

}  // namespace tilewright::passes::flatten
