#pragma once
// What FlattenTileNdTo2D's rules share: the op rows they build calls from, the statement
// being rewritten as it was before its operands changed, and the helpers that emit new
// statements with the spans FL-48 asks for.
//
// Rules see the statement after the walker substituted its operands and mapped its types
// (see walker.hpp). Several need the statement as written too — the pre-flatten tile dims
// of a store, the ND target of an assemble — so the walker records it here before it tries
// the rules. A rule that gives a statement's result a new type (re-deduction can differ from
// the mapped annotation) rebinds the original Var; the walker substitutes it for later uses.
//
// The analysis's plans (batched-matmul routes and drops, packed accumulators) are read from
// here; so is the walker's view of an expression the rules have not reached yet (`resolve`:
// a batched matmul performs the store after it, and re-loads operands defined before it).
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tilewright/backend/backend.hpp"
#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/ir/walk.hpp"
#include "tilewright/ops/create.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/analysis.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/op_ids.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/shape.hpp"

namespace tilewright::passes::flatten {

class FlattenContext {
 public:
  FlattenContext(const ops::Registry& registry, backend::BackendInfo backend,
                 const FunctionAnalysis* analysis = nullptr)
      : registry_(&registry), backend_(backend), analysis_(analysis ? analysis : &no_analysis()) {}

  // ---- the statement being rewritten, as written --------------------------------------------
  void begin(const ir::Stmt& original) {
    original_ = original;
    spans_from_ = original.get();
    pending_.clear();
  }
  [[nodiscard]] const ir::Stmt& original() const noexcept { return original_; }
  [[nodiscard]] const ir::Expr& original_value() const noexcept { return *ir::stmt_call_expr(original_); }
  [[nodiscard]] const ir::Call& original_call() const noexcept { return *ir::as<ir::Call>(original_value()); }
  // The Var the statement defines, or null for an Eval.
  [[nodiscard]] ir::Expr original_var() const noexcept {
    auto* a = ir::as<ir::Assign>(original_);
    return a ? a->var : nullptr;
  }
  // FL-48: statements the rewrite makes carry the statement's span, expressions the call's —
  // of the statement being rewritten, or of the one `SpansOf` attributes them to.
  [[nodiscard]] const ir::Span& stmt_span() const noexcept { return spans_from_->span; }
  [[nodiscard]] const ir::Span& call_span() const noexcept {
    if (auto* a = std::get_if<ir::Assign>(&spans_from_->v)) return a->value->span;
    return std::get<ir::Eval>(spans_from_->v).expr->span;
  }

  // While alive, what the rewrite builds is attributed to `stmt` (a statement it absorbs).
  class SpansOf {
   public:
    SpansOf(FlattenContext& ctx, const ir::StmtNode* stmt) : ctx_(ctx), saved_(ctx.spans_from_) { ctx.spans_from_ = stmt; }
    ~SpansOf() { ctx_.spans_from_ = saved_; }
    SpansOf(const SpansOf&) = delete;
    SpansOf& operator=(const SpansOf&) = delete;

   private:
    FlattenContext& ctx_;
    const ir::StmtNode* saved_;
  };
  // The original result type / the type of argument `i`, before flattening.
  [[nodiscard]] const ir::TileType* original_result_tile() const noexcept { return ir::tile_type(original_value()); }
  [[nodiscard]] const ir::TileType* original_arg_tile(std::size_t i) const noexcept {
    const auto& args = original_call().args;
    return i < args.size() ? ir::tile_type(args[i]) : nullptr;
  }

  [[nodiscard]] const backend::BackendInfo& backend() const noexcept { return backend_; }
  [[nodiscard]] bool is_tile_op(ir::OpId op) { return tile_ops_.contains(op); }
  [[nodiscard]] const BatchMatmulPlan& batch_plan() const noexcept { return analysis_->batch; }
  [[nodiscard]] const AccPacking& packing() const noexcept { return analysis_->packing; }

  // The walker's rewrite of `e`, an expression of a statement it has not reached yet.
  void set_resolver(std::function<ir::Expr(const ir::Expr&)> resolver) { resolve_ = std::move(resolver); }
  [[nodiscard]] ir::Expr resolve(const ir::Expr& e) const { return resolve_ ? resolve_(e) : e; }

  // ---- building -----------------------------------------------------------------------------
  // A call through the op's registry row: validated, deduced, memory stamped (FL-38).
  // `annotated` types ops that have no deducer.
  [[nodiscard]] ir::Expr call(ir::OpId op, std::vector<ir::Expr> args, ir::Kwargs kwargs = {},
                              ir::Kwargs attrs = {}, ir::Type annotated = nullptr) const {
    const ops::OpInfo* info = registry_->find(op);
    if (!info)
      ir::throw_internal_error(std::string(pass_name),
                               "op '" + std::string(ir::op_name(op)) + "' is not in the op registry", call_span());
    ir::Expr out = ops::create_call(*info, std::move(args), std::move(kwargs), call_span(), std::move(annotated));
    if (attrs.empty()) return out;
    ir::Call c = *ir::as<ir::Call>(out);
    c.attrs = std::move(attrs);
    return ir::make_expr(std::move(c), out->type, out->span);
  }
  [[nodiscard]] ir::Expr tuple(std::vector<ir::Expr> elements) const {
    return ir::make_tuple(std::move(elements), call_span());
  }
  [[nodiscard]] ir::Expr index(std::int64_t v) const { return ir::make_int(v, ir::DataType::INDEX, call_span()); }

  // `name = value` as an extra statement before the replacement; returns the new Var, a
  // lowering-internal value spanned at the call unless `var_span` says otherwise (FL-48).
  ir::Expr emit(std::string name, ir::Expr value, const ir::Span* var_span = nullptr) {
    ir::Expr var = ir::make_var(std::move(name), value->type, var_span ? *var_span : call_span());
    pending_.push_back(ir::make_stmt(ir::Assign{var, std::move(value)}, stmt_span()));
    return var;
  }

  // The statement that replaces the one being rewritten: the emitted statements, then the
  // result bound to the rewritten statement's Var. When `value`'s type differs from that
  // Var's, a new Var (same name and span, the original's MemRef carried) takes its place
  // and every later use is redirected to it.
  ir::Stmt finish(const ir::Stmt& rebuilt, ir::Expr value) {
    ir::Stmt last;
    if (auto* a = ir::as<ir::Assign>(rebuilt)) {
      ir::Expr var = a->var;
      ir::Type type = with_memref(value->type, a->var->type);
      if (!ir::structural_equal(type, var->type)) {
        var = ir::make_expr(var->v, std::move(type), var->span);
        rebinds_.emplace_back(original_var(), var);
      }
      last = ir::make_stmt(ir::Assign{var, std::move(value)}, stmt_span());
    } else {
      last = ir::make_stmt(ir::Eval{std::move(value)}, stmt_span());
    }
    pending_.push_back(std::move(last));
    return take_pending(rebuilt);
  }

  // The same, binding the result to a new Var named `name` (spanned at the call) that every
  // later use of the statement's Var reads instead.
  ir::Stmt finish_as(const ir::Stmt& rebuilt, std::string name, ir::Expr value) {
    ir::Expr var = emit(std::move(name), std::move(value));
    rebinds_.emplace_back(original_var(), var);
    return take_pending(rebuilt);
  }

  // The emitted statements alone replace the statement (nothing, when none were emitted);
  // its Var, if any, must have been rebound by the rule.
  ir::Stmt finish_replaced(const ir::Stmt& rebuilt) { return take_pending(rebuilt); }

  // Every later use of `from` (a Var of the input) reads `to`.
  void rebind(const ir::Expr& from, ir::Expr to) { rebinds_.emplace_back(from, std::move(to)); }

  // Var replacements a rule made; the walker drains them into its substitution.
  std::vector<std::pair<ir::Expr, ir::Expr>> take_rebinds() { return std::exchange(rebinds_, {}); }

 private:
  static const FunctionAnalysis& no_analysis() {
    static const FunctionAnalysis none;
    return none;
  }

  ir::Stmt take_pending(const ir::Stmt& rebuilt) {
    std::vector<ir::Stmt> out = std::move(pending_);
    pending_.clear();
    // The comments written above the statement stay above its first replacement.
    if (!rebuilt->comments.lines.empty() && !out.empty()) {
      ir::StmtNode first = *out.front();
      first.comments = rebuilt->comments;
      out.front() = std::make_shared<const ir::StmtNode>(std::move(first));
    }
    return out.size() == 1 ? out.front() : ir::make_seq(std::move(out), stmt_span());
  }

  // FL-26/FL-38: a re-deduced tile type gets the MemRef the original Var carried.
  static ir::Type with_memref(const ir::Type& type, const ir::Type& from) {
    auto* t = ir::as<ir::TileType>(type);
    auto* f = ir::as<ir::TileType>(from);
    if (!t || !f || t->memref || !f->memref) return type;
    return ir::make_tile_type(t->shape, t->dtype, t->view, t->memory, f->memref);
  }

  const ops::Registry* registry_;
  backend::BackendInfo backend_;
  const FunctionAnalysis* analysis_;
  std::function<ir::Expr(const ir::Expr&)> resolve_;
  TileOpTable tile_ops_;
  ir::Stmt original_;
  const ir::StmtNode* spans_from_ = nullptr;
  std::vector<ir::Stmt> pending_;
  std::vector<std::pair<ir::Expr, ir::Expr>> rebinds_;
};

}  // namespace tilewright::passes::flatten
