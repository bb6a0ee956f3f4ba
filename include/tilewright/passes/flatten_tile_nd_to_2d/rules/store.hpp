#pragma once
// FL-21…FL-24: tile.store into a rank>2 tensor gets a 4th operand, the partition window
// codegen turns into pto.partition_view: a box in the tensor's coordinates, anchored at the
// store's own offsets, covering what the tile writes (seed 003, FL-24; computed from the
// tile as written, see analysis.hpp). Stores into 2D tensors pass through.
//   out = tile.store(y:[6,4] (was [2,3,4]), [0, 0, 0], out_0:T[2,3,4])
//     →  out = tile.store(y, [0, 0, 0], out_0, [2, 3, 4])
// FL-23: a tile operand still >2D here (hand-built IR; every producer the text can spell is
// flattened by then) is first reshaped to 2D, since codegen stores 2D tiles only:
//     →  flat_tile = tile.reshape(y, [6, 4]);  out = tile.store(flat_tile, [0, 0, 0], out_0, [2, 3, 4])
#include "tilewright/passes/flatten_tile_nd_to_2d/analysis.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/rules/shape_operand.hpp"

namespace tilewright::passes::flatten {

namespace store_parts {
using namespace rule_parts;

inline constexpr auto into_nd_tensor = rewrite::where(_w, [](const ir::Expr& e) {
  auto* t = ir::tensor_type(e);
  return t && t->shape.size() > 2;
});
inline constexpr auto nd_tile = rewrite::where(_x, [](const ir::Expr& e) {
  auto* t = ir::tile_type(e);
  return t && is_flattenable(*t);
});
inline constexpr auto writes_a_tile = rewrite::when([](const auto& m) { return original_arg_tile(m.rewriter(), 0) != nullptr; });

// The box of the tensor (_w) the tile as written covers from the offsets (_z).
inline constexpr auto partition_window = rewrite::computed([](const auto& m) {
  const rewrite::Rewriter& rw = m.rewriter();
  return store_partition_shape(*original_arg_tile(rw, 0), *ir::tensor_type(m[_w]), m[_z], rw.stmt_span());
});
inline constexpr auto merged_tile_shape = rewrite::computed([](const auto& m) {
  return merged_shape(ir::tile_type(m[_x])->shape, "tile.store operand", m.rewriter().call_span());
});
}  // namespace store_parts

inline constexpr auto flatten_store_nd_tile = [] {
  using namespace store_parts;
  using namespace rewrite;
  return rule("flatten-store-nd-tile", stmt_of(bind(_c, call<"tile.store">(nd_tile, _z, into_nd_tensor))), writes_a_tile,
              seq(let(_t, "flat_tile", call<"tile.reshape">(_x, merged_tile_shape)),
                  replace(recreate(_c, arg<0>(_t), append(partition_window)))));
}();

inline constexpr auto flatten_store = [] {
  using namespace store_parts;
  using namespace rewrite;
  return rule("flatten-store", stmt_of(bind(_c, call<"tile.store">(_x, _z, into_nd_tensor))), writes_a_tile,
              replace(recreate(_c, append(partition_window))));
}();

}  // namespace tilewright::passes::flatten
