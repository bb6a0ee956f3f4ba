#pragma once
// TileOps2D: after FlattenTileNdTo2D, tile ops in InCore functions see only ≤2D tiles
// (FL-67…FL-72). Loads, stores, reshapes and reinterpret_views may still name >2D tensor
// coordinates and are exempt.
#include "tilewright/pass/verifiers/common.hpp"

namespace tilewright::pass::verifiers {

inline ir::Diagnostics verify_tile_ops_2d(const ir::Program& program) {
  ir::Diagnostics out;
  for (const auto& f : program->functions) {
    if (!ir::is_incore(f->type)) continue;
    const std::string where = " in InCore function '" + f->name + "'";
    ir::for_each_stmt(f->body, [&](const ir::Stmt& s) {
      const ir::Expr* call_expr = ir::stmt_call_expr(s);
      if (!call_expr) return;
      const ir::Call& c = *ir::as<ir::Call>(*call_expr);
      if (!is_tile_op(c)) return;
      // Ops compare by interned id; the name is spelled only in a report.
      static const ir::OpId exempt[] = {ir::intern_op("tile.load"), ir::intern_op("tile.store"),
                                        ir::intern_op("tile.reshape"), ir::intern_op("tile.reinterpret_view")};
      static const ir::OpId transpose = ir::intern_op("tile.transpose");
      static const ir::OpId assemble = ir::intern_op("tile.assemble");
      for (ir::OpId e : exempt)
        if (c.callee.op == e) return;  // FL-67
      auto report = [&](std::string message) { out.push_back(property_error("TileOps2D", std::move(message), s->span)); };
      auto op = [&] { return callee_name(c); };
      if (auto* t = ir::as<ir::TileType>((*call_expr)->type); t && t->shape.size() > 2)  // FL-68
        report("Tile op '" + op() + "'" + where + " produces >2D tile (should have been flattened to 2D)");
      if (c.callee.op == transpose && c.args.size() != 4)  // FL-69
        report("tile.transpose" + where + " has " + std::to_string(c.args.size()) +
               " arguments (expected 4: input, axis1, axis2, scratch after FlattenTileNdTo2D)");
      if (c.callee.op == assemble && c.args.size() == 3) {  // FL-70
        if (auto* offset = ir::as<ir::MakeTuple>(c.args[2]); !offset)
          report("tile.assemble" + where +
                 " has a non-literal offset (expected a 2-element (row, col) tuple after FlattenTileNdTo2D)");
        else if (offset->elements.size() != 2)
          report("tile.assemble" + where + " has a rank-" + std::to_string(offset->elements.size()) +
                 " offset (expected 2: row, col after FlattenTileNdTo2D)");
      }
      for (const auto& a : c.args) {  // FL-71: once per call
        if (auto* t = ir::tile_type(a); t && t->shape.size() > 2) {
          report("Tile op '" + op() + "'" + where + " has >2D tile argument (should have been flattened to 2D)");
          break;
        }
      }
    });
  }
  return out;
}

}  // namespace tilewright::pass::verifiers
