#pragma once
// What CanonicalizeTileSlice's rules share: the phase-1 analysis, the alignment verdicts,
// and the one way every rule materializes a slice — a fresh
//   <slice>_textract = tile.extract(base, row, col, [slice shape], target_memory=<space>)
// emitted before the statement that reads it. tile.extract gets its own allocation (it is
// not in-place safe), so the copy never aliases the slice's source.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tilewright/ir/walk.hpp"
#include "tilewright/ops/deduction_memo.hpp"
#include "tilewright/passes/canonicalize_tile_slice/alignment.hpp"
#include "tilewright/passes/canonicalize_tile_slice/analysis.hpp"
#include "tilewright/rewrite/rewriter.hpp"

namespace tilewright::passes::canonicalize {

class CanonicalizeContext {
 public:
  CanonicalizeContext(const SliceAnalysis& analysis, const ops::Registry& registry)
      : analysis_(&analysis),
        registry_(&registry),
        extract_(&row("tile.extract")),
        multiples_(analysis.scalar_defs) {}

  [[nodiscard]] const SliceAnalysis& analysis() const noexcept { return *analysis_; }

  // The canonical slice `operand` names, or null.
  [[nodiscard]] const Slice* slice_of(const ir::Expr& operand) const noexcept {
    return analysis_->slice_of(operand);
  }

  // CT-12: a Vec (or not yet placed) slice whose zero-copy address is not provably 32-byte
  // aligned; decided once per slice.
  bool needs_aligned_copy(const Slice& s) {
    if (!s.is_vec_or_unset()) return false;
    auto [it, fresh] = aligned_.emplace(s.var.get(), false);
    if (fresh) it->second = s.physical && is_provably_aligned(*s.physical, multiples_);
    return !it->second;
  }

  // The extract call that copies `s` out into `space`. Its type is deduced (and the call
  // validated) once per distinct source type, slice type, offsets and space (deductions_),
  // and its shape operand, the slice's extent, is one tuple per slice type: a kernel makes
  // hundreds of extracts of a handful of types, and each then shares those nodes.
  [[nodiscard]] ir::Expr extract_call(const Slice& s, ir::MemorySpace space, const ir::Span& span) {
    std::vector<ir::Expr> args{s.window.base, s.window.row, s.window.col, shape_tuple(s)};
    ir::Kwargs kwargs{{"target_memory", space}};
    return deductions_.create_call(*extract_, std::move(args), std::move(kwargs), span);
  }

  // `<slice>_textract = extract_call(…)`; returns the statement and its Var.
  [[nodiscard]] std::pair<ir::Stmt, ir::Expr> extract_stmt(const Slice& s, ir::MemorySpace space,
                                                           const ir::Span& span) {
    ir::Expr value = extract_call(s, space, span);
    ir::Expr var = ir::make_var(std::string(ir::name_hint(s.var)) + "_textract", value->type, span);
    return {ir::make_stmt(ir::Assign{var, std::move(value)}, span), var};
  }

  // `stmt` (an Assign or an Eval of a call) evaluating its call again with operands `args`:
  // validated and deduced through the call's registry row (once per distinct operand types,
  // deductions_), kwargs and attributes kept. An Assign's Var keeps its type, and the call
  // takes it too, as the annotation gives it when the text is read: a re-deduced call may
  // spell it differently (a view the annotation leaves implicit), and the printed result must
  // read back as itself. A call of a function of the program, or of an op without a
  // deducer, keeps its callee and type.
  [[nodiscard]] ir::Stmt with_operands(const ir::Stmt& stmt, std::vector<ir::Expr> args) {
    const ir::Expr& call_expr = *ir::stmt_call_expr(stmt);
    const auto& call = *ir::as<ir::Call>(call_expr);
    const ops::OpInfo* info = call.callee.is_function() ? nullptr : registry_->find(call.callee.op);
    ir::Type type = call_expr->type;
    if (info) {
      ir::Type deduced = deductions_.type_of(*info, args, call.kwargs, call_expr->span, type);
      if (!ir::as<ir::Assign>(stmt)) type = std::move(deduced);
    }
    ir::Expr value = ir::make_expr(ir::Call{call.callee, std::move(args), call.kwargs, call.attrs},
                                   std::move(type), call_expr->span);
    return with_value(stmt, std::move(value));
  }

  // CT-09/CT-11/CT-12: the statement `stmt` (an Assign or an Eval) with each operand for
  // which `pick(index, slice) -> std::optional<ir::MemorySpace>` names a space replaced by a
  // copy of that slice into the space, the copies emitted before it. Null when no operand
  // was picked.
  template <class Pick>
  ir::Stmt copy_operands(rewrite::Rewriter& rw, const ir::Stmt& stmt, Pick&& pick) {
    const ir::Expr& call_expr = *ir::stmt_call_expr(stmt);
    const auto& call = *ir::as<ir::Call>(call_expr);
    std::vector<ir::Expr> args;  // filled on the first copy: most statements read no slice
    for (std::size_t i = 0; i < call.args.size(); ++i) {
      if (call.arg_is_closed(i)) continue;  // no Var in it, so no slice: not even read
      const Slice* s = slice_of(call.args[i]);
      if (!s) continue;
      auto space = pick(i, *s);
      if (!space) continue;
      auto [copy, var] = extract_stmt(*s, *space, call_expr->span);
      rw.emit(std::move(copy));
      if (args.empty()) args = call.args;
      args[i] = std::move(var);
    }
    if (args.empty()) return nullptr;
    return with_operands(stmt, std::move(args));
  }

  // `stmt` (an Assign or an Eval) evaluating `value` instead, same Var, span and comments.
  // The Var's type stays the statement's type, as the annotation does when the text is read:
  // a re-deduced call may spell it differently (a view the annotation leaves implicit), and
  // the printed result must read back as itself.
  [[nodiscard]] static ir::Stmt with_value(const ir::Stmt& stmt, ir::Expr value) {
    if (auto* a = ir::as<ir::Assign>(stmt)) {
      if (value->type != a->var->type && ir::as<ir::Call>(value))
        value = ir::make_expr(value->v, a->var->type, value->span);
      return ir::make_stmt(ir::Assign{a->var, std::move(value)}, stmt->span, stmt->comments);
    }
    return ir::make_stmt(ir::Eval{std::move(value)}, stmt->span, stmt->comments);
  }

  // Statements replacing one (the walker's loop-initializer copies, CT-17a): the comments
  // written above the last (the original) move up to the first, so they stay above the code
  // they described.
  [[nodiscard]] static ir::Stmt sequence(std::vector<ir::Stmt> stmts) {
    ir::Stmt& last = stmts.back();
    if (stmts.size() > 1 && !last->comments.lines.empty()) {
      ir::StmtNode first = *stmts.front();
      first.comments = last->comments;
      stmts.front() = ir::make_stmt(std::move(first));
      ir::StmtNode plain = *last;
      plain.comments = {};
      last = ir::make_stmt(std::move(plain));
    }
    const ir::Span span = last->span;
    return ir::make_seq(std::move(stmts), span);
  }

  // CT-17a bookkeeping, reported with the rules' counters.
  std::uint64_t loop_inits_copied = 0;

 private:
  const ops::OpInfo& row(std::string_view name) const {
    const ops::OpInfo* info = registry_->find(name);
    if (!info)
      ir::throw_internal_error(std::string(pass_name),
                               "op '" + std::string(name) + "' is not in the op registry");
    return *info;
  }

  // The slice's extent as a literal tuple, one node per slice type.
  const ir::Expr& shape_tuple(const Slice& s) {
    auto [it, fresh] = shape_tuples_.emplace(s.var->type.get());
    if (fresh) it->second = ir::make_tuple(s.type().shape, s.var->span);
    return it->second;
  }

  const SliceAnalysis* analysis_;
  const ops::Registry* registry_;
  const ops::OpInfo* extract_;
  KnownMultiples multiples_;
  ByVar<bool> aligned_;  // slice Var → provably aligned
  ops::DeductionMemo deductions_;
  // Keyed by a slice's type node: the slices hold their types as long as this context.
  ir::PointerMap<const ir::TypeNode*, ir::Expr> shape_tuples_;
};

}  // namespace tilewright::passes::canonicalize
