#pragma once
// Structural properties of the program as a whole.
//  * SplitIncoreOrch: tile ops live only in InCore/AIC/AIV functions; orchestration code
//    launches them by calling those functions.
//  * IncoreTileOps: InCore functions compute with tile ops, not tensor arithmetic (tensor
//    views and creation are data movement and allowed).
//  * NormalizedStmtStructure: statement lists are flat (no Seq directly inside a Seq), and
//    a function body is a statement list.
#include "tilewright/pass/verifiers/common.hpp"

namespace tilewright::pass::verifiers {

inline ir::Diagnostics verify_split_incore_orch(const ir::Program& program) {
  ir::Diagnostics out;
  for (const auto& f : program->functions) {
    if (ir::is_incore(f->type) || f->type == ir::FunctionType::Opaque) continue;
    ir::for_each_stmt(f->body, [&](const ir::Stmt& s) {
      if (auto* c = ir::stmt_call(s); c && is_tile_op(*c))
        out.push_back(property_error("SplitIncoreOrch",
                                     "in function '" + f->name + "': tile op '" + callee_name(*c) +
                                         "' outside an InCore function",
                                     s->span));
    });
  }
  return out;
}

inline ir::Diagnostics verify_incore_tile_ops(const ir::Program& program) {
  ir::Diagnostics out;
  for (const auto& f : program->functions) {
    if (!ir::is_incore(f->type)) continue;
    ir::for_each_stmt(f->body, [&](const ir::Stmt& s) {
      auto* c = ir::stmt_call(s);
      if (!c || c->callee.is_function()) return;
      std::string_view op = ir::op_name(c->callee.op);
      if (op.starts_with("tensor.") && op != "tensor.view" && op != "tensor.create" &&
          op != "tensor.reshape" && op != "tensor.alloc")
        out.push_back(property_error("IncoreTileOps",
                                     "in function '" + f->name + "': tensor op '" + std::string(op) +
                                         "' in an InCore function (expected tile ops)",
                                     s->span));
    });
  }
  return out;
}

inline ir::Diagnostics verify_normalized_stmt_structure(const ir::Program& program) {
  ir::Diagnostics out;
  for (const auto& f : program->functions) {
    ir::for_each_stmt(f->body, [&](const ir::Stmt& s) {
      if (auto* seq = ir::as<ir::Seq>(s))
        for (const auto& child : seq->stmts)
          if (ir::as<ir::Seq>(child) && child->comments.lines.empty())
            out.push_back(property_error("NormalizedStmtStructure",
                                         "in function '" + f->name + "': nested statement list",
                                         child->span));
    });
  }
  return out;
}

}  // namespace tilewright::pass::verifiers
