#pragma once
// FL-28: tile.assemble into a >2D target: the ND offset folds into the flattened target's
// (row, col) with the same row-major collapse a load uses (FL-11). The analysis already
// proved the written box is one band of rows (FL-07d).
//   acc2 = tile.assemble(acc:[4,8,16], page:[1,8,16], [2, 0, 0])
//     →  acc2 = tile.assemble(acc:[32,16], page:[8,16], [16, 0])
#include "tilewright/passes/flatten_tile_nd_to_2d/rules/shape_operand.hpp"

namespace tilewright::passes::flatten {

inline constexpr auto flatten_assemble = [] {
  using namespace rule_parts;
  using namespace rewrite;
  // FL-29: a 2D target takes the generic path.
  auto into_flattened_target = when([](const auto& m) {
    const ir::TileType* target = original_arg_tile(m.rewriter(), 0);
    return target && is_flattenable(*target);
  });
  auto collapsed = computed([](const auto& m) {
    const rewrite::Rewriter& rw = m.rewriter();
    auto* offset = ir::as<ir::MakeTuple>(m[_x]);
    if (!offset)
      ir::throw_internal_error(std::string(pass_name), "tile.assemble offset is not a literal tuple after analysis",
                               rw.stmt_span());
    return collapsed_offset(offset->elements, original_arg_tile(rw, 0)->shape, rw.call_span());
  });
  return rule("flatten-assemble", stmt_of(bind(_c, call<"tile.assemble">(_, _, _x))), into_flattened_target,
              replace(recreate(_c, arg<2>(collapsed))));
}();

}  // namespace tilewright::passes::flatten
