#pragma once
// The Rewriter: the one object through which every rule — declarative or hand-written, of
// every pass — changes the program. The driver owns it and hands it to each rule it tries:
//
//   rw.original()           the statement being rewritten as written (before its operands were
//   rw.original_call()      substituted and its types mapped), and its call
//   rw.current()            the same statement as the driver rebuilt it
//   rw.call(op, args, …)    a call built through the pass context's op registry: validated,
//                           type deduced, memory stamped, spanned at the matched call (FL-48)
//   rw.emit(name, value)    `name = value` inserted before the current statement; returns the Var
//   rw.replace(value)       the current statement with `value` as its value (its Var re-typed
//                           when the value's type differs)
//   rw.replace_with(stmts)  several statements instead of the current one
//   rw.erase()              nothing instead of the current statement (only what was emitted)
//   rw.rebind(var, value)   every later use of `var` (a Var of the input) reads `value`
//   rw.resolve(e)           the driver's rewrite of an expression it has not reached yet
//
// Nothing a rule does takes effect unless the rule succeeds: when it returns a null handle
// (declines), the driver rolls back what it emitted and rebound. Rules never walk; the
// driver decides what is visited, in which order, and how often.
//
// Spans (FL-48): statements a rule makes carry the span of the statement being rewritten,
// expressions the span of its call; `SpansOf` attributes them to another statement for a
// while (a rule that absorbs a later statement). Comments written above the statement stay
// above the first statement of its replacement.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/ir/walk.hpp"
#include "tilewright/ops/create.hpp"

namespace tilewright::rewrite {

class Rewriter {
 public:
  explicit Rewriter(const ops::Registry* registry = nullptr) noexcept : registry_(registry) {}
  Rewriter(const Rewriter&) = delete;
  Rewriter& operator=(const Rewriter&) = delete;

  // ---- what is being rewritten ----------------------------------------------------------------
  // Null outside a statement.
  [[nodiscard]] const ir::Stmt& original() const noexcept { return frames_.empty() ? null_stmt() : *top().original; }
  [[nodiscard]] const ir::Call* original_call() const noexcept { return ir::stmt_call(original()); }
  // The value of the original statement (an Assign's right side / an Eval's expression).
  [[nodiscard]] const ir::Expr& original_value() const noexcept {
    const ir::Expr* e = ir::stmt_call_expr(original());
    return e ? *e : null_expr();
  }
  // The Var the original statement defines, or null (an Eval).
  [[nodiscard]] const ir::Expr& original_var() const noexcept {
    auto* a = ir::as<ir::Assign>(original());
    return a ? a->var : null_expr();
  }
  // The statement as rebuilt by the driver; null while expressions are rewritten.
  [[nodiscard]] const ir::Stmt& current() const noexcept {
    return frames_.empty() || !top().current ? null_stmt() : *top().current;
  }

  [[nodiscard]] bool has_registry() const noexcept { return registry_ != nullptr; }
  [[nodiscard]] const ops::Registry& registry() const {
    if (!registry_)
      ir::throw_internal_error("rewrite",
                               "a rule builds a call but its driver was given no op registry; pass the "
                               "PassContext's registry (ctx.registry()) to the driver");
    return *registry_;
  }

  [[nodiscard]] const ir::Span& stmt_span() const noexcept {
    const ir::StmtNode* s = spans_from();
    return s ? s->span : null_span();
  }
  [[nodiscard]] const ir::Span& call_span() const noexcept {
    const ir::StmtNode* s = spans_from();
    if (!s) return null_span();
    if (auto* a = std::get_if<ir::Assign>(&s->v); a && a->value) return a->value->span;
    if (auto* e = std::get_if<ir::Eval>(&s->v); e && e->expr) return e->expr->span;
    return s->span;
  }

  // While alive, what the rule builds is attributed to `stmt`.
  class SpansOf {
   public:
    SpansOf(Rewriter& rw, const ir::StmtNode* stmt) : rw_(rw), saved_(rw.top().spans_from) {
      rw.top().spans_from = stmt;
    }
    ~SpansOf() { rw_.top().spans_from = saved_; }
    SpansOf(const SpansOf&) = delete;
    SpansOf& operator=(const SpansOf&) = delete;

   private:
    Rewriter& rw_;
    const ir::StmtNode* saved_;
  };

  // The driver's rewrite of `e`, an expression of a statement it has not reached yet.
  [[nodiscard]] ir::Expr resolve(const ir::Expr& e) const { return resolve_ ? resolve_(walker_, e) : e; }

  // ---- building -------------------------------------------------------------------------------
  // A call through the op's registry row: validated, deduced, memory stamped (FL-38).
  // `annotated` types ops that have no deducer.
  [[nodiscard]] ir::Expr call(ir::OpId op, std::vector<ir::Expr> args, ir::Kwargs kwargs = {}, ir::Kwargs attrs = {},
                              ir::Type annotated = nullptr) const {
    const ops::OpInfo* info = registry().find(op);
    if (!info)
      ir::throw_internal_error("rewrite",
                               "op '" + std::string(ir::op_name(op)) +
                                   "' is not in the pass context's op registry; register it (OpRow) in the "
                                   "registry the pipeline runs with",
                               call_span());
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

  // ---- changing the program (undone if the rule declines) ------------------------------------
  // `name = value` before the current statement; returns the new Var, a lowering-internal
  // value spanned at the call unless `var_span` says otherwise (FL-48).
  ir::Expr emit(std::string name, ir::Expr value, const ir::Span* var_span = nullptr) {
    ir::Expr var = ir::make_var(std::move(name), value->type, var_span ? *var_span : call_span());
    emit(ir::make_stmt(ir::Assign{var, std::move(value)}, stmt_span()));
    return var;
  }
  void emit(ir::Stmt stmt) { pending_.push_back(std::move(stmt)); }

  // The current statement (an Assign or an Eval of a call) evaluating `value` instead. When
  // `value`'s type differs from the Var's, a new Var (same name and span, the old one's MemRef
  // and memory space carried, FL-26/FL-38) takes its place and every later use reads it.
  ir::Stmt replace(ir::Expr value) {
    const ir::Stmt& now = current();
    if (auto* a = ir::as<ir::Assign>(now)) {
      ir::Expr var = a->var;
      ir::Type type = with_memref(value->type, var->type);
      // A carried memory space is the call's too, as the parser gives a call the type of the
      // annotation that placed it (§6.4): the printed text reads back to this.
      if (placement_carried(value->type, type)) value = ir::make_expr(value->v, type, value->span);
      if (!ir::same_type(type, var->type, ir::Buffers::ignored)) {
        var = ir::make_expr(var->v, std::move(type), var->span);
        rebind(original_var(), var);
      }
      return ir::make_stmt(ir::Assign{var, std::move(value)}, stmt_span());
    }
    return ir::make_stmt(ir::Eval{std::move(value)}, stmt_span());
  }

  // The current statement's result bound to a new Var named `name` (spanned at the call), which
  // every later use of the statement's Var reads instead.
  ir::Stmt replace_as(std::string name, ir::Expr value) {
    ir::Expr var = emit(std::move(name), std::move(value));
    rebind(original_var(), var);
    return erase();
  }

  // `stmts` instead of the current statement.
  ir::Stmt replace_with(std::vector<ir::Stmt> stmts) {
    for (auto& s : stmts) emit(std::move(s));
    return erase();
  }

  // Only the emitted statements remain (none, when nothing was emitted); a Var the statement
  // defined must have been rebound.
  ir::Stmt erase() { return ir::make_stmt(ir::Seq{}, stmt_span()); }

  // Every later use of `from` (a Var of the input) reads `to`.
  void rebind(const ir::Expr& from, ir::Expr to) { rebinds_.emplace_back(from, std::move(to)); }

  // ---- the driver's side ----------------------------------------------------------------------
  // The driver calls enter/leave around each statement it rebuilds, `attempt` before each rule
  // it tries, and `rollback` when the rule declines. Rebinds of successful rules are drained
  // with drain_rebinds and applied by the driver's substitution.
  void enter(const ir::Stmt& original) {
    frames_.push_back(Frame{&original, nullptr, original.get(), static_cast<std::uint32_t>(pending_.size()), false});
  }
  void set_current(const ir::Stmt& rebuilt) noexcept { top().current = &rebuilt; }

  struct Checkpoint {
    std::size_t pending;
    std::size_t rebinds;
  };
  [[nodiscard]] Checkpoint attempt() const noexcept { return {pending_.size(), rebinds_.size()}; }
  // Most rules decline before emitting anything: then there is nothing to drop, and only the
  // two comparisons run where the driver tried the rule (once per rule tried on every
  // statement); the dropping itself is out of line.
  [[gnu::always_inline]] void rollback(Checkpoint cp) {
    if (pending_.size() != cp.pending || rebinds_.size() != cp.rebinds) [[unlikely]]
      drop_since(cp);
  }
  // A rule replaced the current statement.
  void replaced() noexcept { top().replaced = true; }

  // Hands each rebind of the rule that just succeeded to `apply(from, to)`, in order.
  template <class F>
  void drain_rebinds(F&& apply) {
    for (auto& [from, to] : rebinds_) apply(from, std::move(to));
    rebinds_.clear();
  }

  // `result` (the statement the rules left) preceded by what was emitted while it was
  // rewritten; the original's comments go on the first statement.
  ir::Stmt leave(ir::Stmt result) {
    const Frame& f = top();
    if (pending_.size() == f.pending_begin && !f.replaced) {
      frames_.pop_back();
      return result;
    }
    const ir::Span span = (*f.original)->span;
    std::vector<ir::Stmt> out;
    out.reserve(pending_.size() - f.pending_begin + 1);
    leave_into(std::move(result), [&](ir::Stmt s) { out.push_back(std::move(s)); });
    return out.size() == 1 ? out.front() : ir::make_seq(std::move(out), span);
  }

  // The statements `leave` would return, each handed to `sink(ir::Stmt)` in order, as a
  // statement list holds them (a result that is a list without comments is spliced), with no
  // list of their own: for a driver that is building the list the statement stands in.
  template <class Sink>
  void leave_into(ir::Stmt result, Sink&& sink) {
    const Frame f = top();
    frames_.pop_back();
    const ir::Comments& comments = (*f.original)->comments;
    bool first = true;
    auto put = [&](ir::Stmt s) {
      if (!comments.lines.empty()) {
        if (first && s->comments.lines != comments.lines) s = with_comments(s, comments);
        else if (!first && !s->comments.lines.empty()) s = with_comments(s, {});
      }
      first = false;
      sink(std::move(s));
    };
    for (std::size_t i = f.pending_begin; i < pending_.size(); ++i) put(std::move(pending_[i]));
    pending_.resize(f.pending_begin);
    if (ir::splices_into_list(result)) {
      for (const auto& s : ir::as<ir::Seq>(result)->stmts) put(s);
    } else if (result) {
      put(std::move(result));
    }
  }

  // The walker `resolve` goes back to.
  void set_resolver(void* walker, ir::Expr (*resolve)(void*, const ir::Expr&)) noexcept {
    walker_ = walker;
    resolve_ = resolve;
  }

 private:
  struct Frame {
    const ir::Stmt* original;
    const ir::Stmt* current;
    const ir::StmtNode* spans_from;
    std::uint32_t pending_begin;
    bool replaced;
  };

  Frame& top() noexcept { return frames_.back(); }
  const Frame& top() const noexcept { return frames_.back(); }
  const ir::StmtNode* spans_from() const noexcept { return frames_.empty() ? nullptr : top().spans_from; }

  static const ir::Stmt& null_stmt() noexcept {
    static const ir::Stmt none;
    return none;
  }
  static const ir::Expr& null_expr() noexcept {
    static const ir::Expr none;
    return none;
  }
  static const ir::Span& null_span() noexcept {
    static const ir::Span none;
    return none;
  }

  [[gnu::noinline]] void drop_since(Checkpoint cp) {
    pending_.resize(cp.pending);
    rebinds_.resize(cp.rebinds);
  }

  static ir::Stmt with_comments(const ir::Stmt& s, ir::Comments comments) {
    ir::StmtNode copy = *s;
    copy.comments = std::move(comments);
    return ir::make_stmt(std::move(copy));
  }

  // FL-26/FL-38: a re-deduced tile type gets the MemRef the Var it replaces carried, and its
  // memory space when deduction leaves that open: a `tile.create` without target_memory whose
  // annotation placed it (the parser's §6.4) must not lose the placement TileMemoryInferred
  // checks (a fuzz finding).
  static ir::Type with_memref(const ir::Type& type, const ir::Type& from) {
    auto* t = ir::as<ir::TileType>(type);
    auto* f = ir::as<ir::TileType>(from);
    if (!t || !f) return type;
    const bool memref = !t->memref && f->memref;
    const bool memory = !t->memory && f->memory;
    if (!memref && !memory) return type;
    return ir::make_tile_type(t->shape, t->dtype, t->view, memory ? f->memory : t->memory,
                              memref ? f->memref : t->memref);
  }

  static bool placement_carried(const ir::Type& deduced, const ir::Type& carried) {
    auto* d = ir::as<ir::TileType>(deduced);
    auto* c = ir::as<ir::TileType>(carried);
    return d && c && !d->memory && c->memory;
  }

  const ops::Registry* registry_;
  std::vector<Frame> frames_;
  std::vector<ir::Stmt> pending_;
  std::vector<std::pair<ir::Expr, ir::Expr>> rebinds_;
  void* walker_ = nullptr;
  ir::Expr (*resolve_)(void*, const ir::Expr&) = nullptr;
};

}  // namespace tilewright::rewrite
