#pragma once
// FL-38/FL-39: any other tile op whose operands changed is built again through its registry
// row, so the 2D operand types deduce a 2D result. Tried after every family rule. Ops without
// a deducer keep their (mapped) annotation. An op is a tile op by its id's family, so a
// downstream op registered as one (OpRow::in_family) is lowered the same way.
#include "tilewright/passes/flatten_tile_nd_to_2d/rules/shape_operand.hpp"

namespace tilewright::passes::flatten {

// True when substitution changed an operand or a kwarg of the statement's call.
inline bool operands_changed(const ir::Call& now, const ir::Call& before) {
  if (now.args.size() != before.args.size()) return true;
  for (std::size_t i = 0; i < now.args.size(); ++i)
    if (now.args[i] != before.args[i]) return true;
  return !(now.kwargs == before.kwargs);
}

inline constexpr auto flatten_generic_tile_op = [] {
  using namespace rule_parts;
  using namespace rewrite;
  // Only the result type was mapped when the operands are the same: nothing to re-deduce.
  auto operands_moved = when([](const auto& m) {
    const rewrite::Rewriter& rw = m.rewriter();
    const ir::Call& now = *ir::as<ir::Call>(m[_c]);
    return m.root() != rw.original() && ir::is_tile_op(now.callee.op) && operands_changed(now, *rw.original_call());
  });
  return with_benefit<0>(rule("flatten-generic-tile-op", stmt_of(bind(_c, call(any_op, etc))), operands_moved,
                              replace(recreate(_c))));
}();

}  // namespace tilewright::passes::flatten
