#pragma once
// Properties about tile memory: every tile in an InCore function has a memory space
// (TileMemoryInferred) or a buffer reference (HasMemRefs).
#include "tilewright/pass/verifiers/common.hpp"

namespace tilewright::pass::verifiers {

namespace detail {
template <class Check>
ir::Diagnostics check_incore_tile_defs(const ir::Program& program, std::string_view rule, Check&& check) {
  ir::Diagnostics out;
  for (const auto& f : program->functions) {
    if (!ir::is_incore(f->type)) continue;
    ir::for_each_stmt(f->body, [&](const ir::Stmt& s) {
      auto* a = ir::as<ir::Assign>(s);
      if (!a) return;
      if (auto* t = ir::as<ir::TileType>(a->var->type); t && !check(*t))
        out.push_back(property_error(rule,
                                     "in function '" + f->name + "': tile '" +
                                         std::string(ir::name_hint(a->var)) + "' " +
                                         (rule == "HasMemRefs" ? "has no MemRef" : "has no memory space"),
                                     s->span));
    });
  }
  return out;
}
}  // namespace detail

inline ir::Diagnostics verify_tile_memory_inferred(const ir::Program& program) {
  return detail::check_incore_tile_defs(program, "TileMemoryInferred",
                                        [](const ir::TileType& t) { return t.memory.has_value(); });
}

inline ir::Diagnostics verify_has_memrefs(const ir::Program& program) {
  return detail::check_incore_tile_defs(program, "HasMemRefs",
                                        [](const ir::TileType& t) { return t.memref != nullptr; });
}

}  // namespace tilewright::pass::verifiers
