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

// The tensor ops InCore code may run: views and creation are data movement, not arithmetic,
// and reading or writing one element of a tensor in memory (tensor.read/tensor.write on a
// tensor, which upstream keeps as they are when it converts tensor ops to tile ops).
inline bool is_incore_tensor_op(const ir::Call& c) {
  static const ir::OpId allowed[] = {ir::intern_op("tensor.view"), ir::intern_op("tensor.create"),
                                     ir::intern_op("tensor.reshape"), ir::intern_op("tensor.alloc")};
  for (ir::OpId a : allowed)
    if (a == c.callee.op) return true;
  static const ir::OpId read = ir::intern_op("tensor.read"), write = ir::intern_op("tensor.write");
  return (c.callee.op == read || c.callee.op == write) && !c.args.empty() && ir::tensor_type(c.args[0]);
}

inline ir::Diagnostics verify_incore_tile_ops(const ir::Program& program) {
  ir::Diagnostics out;
  for (const auto& f : program->functions) {
    if (!ir::is_incore(f->type)) continue;
    ir::for_each_stmt(f->body, [&](const ir::Stmt& s) {
      auto* c = ir::stmt_call(s);
      if (!c || c->callee.is_function() || ir::op_family(c->callee.op) != ir::OpFamily::tensor) return;
      if (is_incore_tensor_op(*c)) return;
      out.push_back(property_error("IncoreTileOps",
                                   "in function '" + f->name + "': tensor op '" + callee_name(*c) +
                                       "' found in InCore function (should have been converted to tile ops; "
                                       "write it with the pl.tile.* op)",
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
