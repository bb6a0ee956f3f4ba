#pragma once
// What the declarative rules of FlattenTileNdTo2D share: the names they bind, the guard "this
// statement's result was a flattenable >2D tile", and the merged 2D form of a literal shape
// operand (FL-09) as a computed part of a replacement.
#include "tilewright/passes/flatten_tile_nd_to_2d/context.hpp"
#include "tilewright/rewrite/rule.hpp"

namespace tilewright::passes::flatten {

namespace rule_parts {
using rewrite::placeholders::_;
using rewrite::placeholders::_c;
using rewrite::placeholders::_t;
using rewrite::placeholders::_w;
using rewrite::placeholders::_x;
using rewrite::placeholders::_z;
using rewrite::placeholders::etc;

// The statement's result, as written, is a >2D tile this pass flattens.
inline constexpr auto flattens_result = rewrite::when([](const auto& m) {
  const ir::TileType* result = original_result_tile(m.rewriter());
  return result && is_flattenable(*result);
});

// [d0, …, d(n-1)] of the literal tuple bound to _x → [d0*…*d(n-2), d(n-1)].
inline constexpr auto merged_shape_operand = rewrite::computed([](const auto& m) {
  return merged_shape(ir::as<ir::MakeTuple>(m[_x])->elements, "the shape operand", m.rewriter().call_span());
});
}  // namespace rule_parts

}  // namespace tilewright::passes::flatten
