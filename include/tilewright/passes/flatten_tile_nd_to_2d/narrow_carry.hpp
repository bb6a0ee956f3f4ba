#pragma once
// FlattenTileNdTo2D's last phase: the types of what the rewrite built follow the deduced
// types (FL-43, FL-44, FL-45), and accumulator loop carries get their valid_shape repaired
// (FL-66, seed 003).
//
// Rules rebuild calls through their deducers, so a value can come out with a type its Var,
// the loop carrying it or the branch merging it did not have before: the load a Vec
// annotation was silent about is Vec, a matmul of a narrowed lhs is narrower. One walk then
// settles every name on its value, as upstream's rewrite does:
//   * a Var takes its value's type (keeping a MemRef or memory space only the Var states),
//     and a call typed without a memory space gets the one its op puts its result in;
//   * a loop iter_arg takes its initial value's type, a loop result its iter_arg's (FL-43,
//     FL-44, positional);
//   * an if result takes the type of the value the first yield of the then-branch gives it
//     — searching through statement lists and scopes only — or of the else-branch's when
//     the then-branch has none (FL-45);
// and a call whose operand got a new type is deduced again, so what follows agrees too.
//
// The repair: when a batched matmul's lhs carries a narrowed valid_shape, the 2D matmul it
// becomes produces a narrower valid region than the accumulator it flows into — but a loop
// carry is typed from its initial value only, so it still claims the full box:
//
//   acc0    : [64, 256] INT32 Acc                           ← tile.create
//   iter_arg: [64, 256] INT32 Acc                           ← typed from acc0
//   yield   : [64, 256] INT32 Acc valid=[v, 256] compact    ← what the body produces
//
// The MAD writes L0C at a pitch of ceil(v/16)*16 rows, and a reader that trusts the full box
// walks it at 64 rows, scrambling every block after the first. So the carry is re-declared,
// before the loop, at the extent its yield proves, with the compact layout the MAD uses:
//
//   acc0_narrowed_storage = tile.create([64, 256], dtype=INT32, target_memory=Acc, compact=True)
//   acc0_narrowed = tile.set_validshape(acc0_narrowed_storage, v, 256)
//   for k, (acc,) in pl.range(…, init_values=(acc0_narrowed,)):   # acc: valid [v, 256], compact
//
// and the settling above re-types everything downstream of the carry. The seed's own
// tile.create goes when the loop was its only reader: left behind it would be a second
// allocation of the whole box, which Acc has little room for. Left alone are
// carries that are not Acc, whose seed is not a tile.create, whose narrowed extent is
// computed inside the body (it cannot be named before the loop), whose yield is not
// provably within the declared extent, and those where both readings of the buffer agree
// anyway (a single 16-row block: every valid row count packs to 16).
//
// Three linear walks: an index (where each Var is defined, which definitions each loop
// spans), the decisions (types only), and the rewrite, which settles a loop's carries before
// visiting its body so the body is typed once.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tilewright/ir/mutate.hpp"
#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/ir/walk.hpp"
#include "tilewright/math/l0c.hpp"
#include "tilewright/ops/create.hpp"
#include "tilewright/ops/deduce.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/op_ids.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/shape.hpp"

namespace tilewright::passes::flatten {

class CarrySettler : public ir::Mutator<CarrySettler> {
 public:
  explicit CarrySettler(const ops::Registry& registry) : registry_(&registry) {}

  // `narrowing_only`: a body the rewrite left alone has every name on its value's type
  // already, so it is rebuilt only when a carry narrows (FL-66).
  ir::Stmt run(const ir::Stmt& body, bool narrowing_only = false) {
    index(body);
    count_reads(body);
    decide(body);
    if (narrowing_only && decisions_.empty()) return body;
    return mutate_stmt(body);
  }

  ir::Stmt mutate_stmt(const ir::Stmt& s) {
    if (auto* f = ir::as<ir::For>(s)) return loop(s, f->iter_args);
    if (auto* w = ir::as<ir::While>(s)) return loop(s, w->iter_args);
    return ir::Mutator<CarrySettler>::mutate_stmt(s);
  }

  // A call whose operands moved is deduced again; a result whose type changed gets a new Var.
  ir::Stmt rewrite_stmt(const ir::Stmt& rebuilt, const ir::Stmt& original) {
    if (auto* a = ir::as<ir::Assign>(original); a && replaced_seeds_.contains(a->var.get()))
      return ir::make_seq({}, rebuilt->span);
    if (auto* a = ir::as<ir::Assign>(rebuilt)) return rebind(rebuilt, *a, *ir::as<ir::Assign>(original));
    if (auto* i = ir::as<ir::If>(rebuilt))
      return retype_results(rebuilt, i->return_vars, results_of(original), branch_types(*i), *i);
    return rebuilt;
  }

 private:
  // ---- index ---------------------------------------------------------------------------
  void define(const ir::ExprNode* v) { clock_of_.emplace(v, ++clock_); }

  // How often each Var is read, a loop's initial values included.
  void count_reads(const ir::Stmt& body) {
    ir::walk(
        body,
        [&](const ir::Stmt& s) {
          if (auto* a = ir::as<ir::Assign>(s)) --reads_[a->var.get()];  // visited below, but a definition
          const std::vector<ir::Expr>* carries = nullptr;
          if (auto* f = ir::as<ir::For>(s)) carries = &f->iter_args;
          if (auto* w = ir::as<ir::While>(s)) carries = &w->iter_args;
          if (carries)
            for (const auto& ia : *carries)
              if (auto* c = ir::as<ir::IterArg>(ia)) ++reads_[c->init.get()];
          return true;
        },
        [&](const ir::Expr& e) {
          if (ir::is_var_like(e)) ++reads_[e.get()];
          return true;
        });
  }

  void index(const ir::Stmt& s) {
    if (!s) return;
    if (auto* seq = ir::as<ir::Seq>(s)) {
      for (const auto& x : seq->stmts) index(x);
    } else if (auto* a = ir::as<ir::Assign>(s)) {
      define(a->var.get());
      if (auto* c = ir::as<ir::Call>(a->value)) creates_.emplace(a->var.get(), c->callee.op == op_ids().create);
    } else if (auto* i = ir::as<ir::If>(s)) {
      for (std::size_t k = 0; k < i->return_vars.size(); ++k) {
        define(i->return_vars[k].get());
        if_results_.emplace(i->return_vars[k].get(), std::pair{i, k});
      }
      index(i->then_body);
      index(i->else_body);
    } else if (auto* f = ir::as<ir::For>(s)) {
      for (const auto& rv : f->return_vars) define(rv.get());
      const std::size_t enter = ++clock_;
      define(f->loop_var.get());
      for (const auto& ia : f->iter_args) define(ia.get());
      index(f->body);
      spans_[s.get()] = {enter, ++clock_};
    } else if (auto* w = ir::as<ir::While>(s)) {
      for (const auto& rv : w->return_vars) define(rv.get());
      const std::size_t enter = ++clock_;
      for (const auto& ia : w->iter_args) define(ia.get());
      index(w->body);
      spans_[s.get()] = {enter, ++clock_};
    } else if (auto* scope = ir::as<ir::Scope>(s)) {
      index(scope->body);
    }
  }

  // ---- decisions -------------------------------------------------------------------------
  static const ir::Yield* trailing_yield(const ir::Stmt& body) {
    if (auto* seq = ir::as<ir::Seq>(body)) return seq->stmts.empty() ? nullptr : ir::as<ir::Yield>(seq->stmts.back());
    return ir::as<ir::Yield>(body);
  }

  void decide(const ir::Stmt& root) {
    ir::for_each_stmt(root, [&](const ir::Stmt& s) {
      if (auto* f = ir::as<ir::For>(s)) decide_loop(s, f->iter_args, f->body);
      if (auto* w = ir::as<ir::While>(s)) decide_loop(s, w->iter_args, w->body);
    });
  }

  void decide_loop(const ir::Stmt& loop, const std::vector<ir::Expr>& iter_args, const ir::Stmt& body) {
    const ir::Yield* yield = trailing_yield(body);
    if (iter_args.empty() || !yield || yield->values.size() != iter_args.size()) return;
    for (std::size_t i = 0; i < iter_args.size(); ++i) {
      auto* init = ir::tile_type(iter_args[i]);
      auto* yielded = ir::as<ir::TileType>(yielded_type(yield->values[i]));
      auto narrowed = init && yielded ? narrowed_valid(*init, *yielded) : std::nullopt;
      if (!narrowed || narrowed->size() != 2 || yielded->memory != ir::MemorySpace::Acc) continue;
      if (pitches_coincide((*narrowed)[0], init->shape[0]) || !visible_before(*narrowed, loop.get())) continue;
      const ir::Expr& seed = ir::as<ir::IterArg>(iter_args[i])->init;
      auto c = ir::is_var_like(seed) ? creates_.find(seed.get()) : creates_.end();
      if (c == creates_.end() || !c->second) continue;
      decisions_.emplace(iter_args[i].get(), std::move(*narrowed));
      if (reads_[seed.get()] == 1) replaced_seeds_.insert(seed.get());
    }
  }

  // The type a yield gives its carry. An if's result is settled only by the walk after this
  // one (FL-45: the then-branch's yield, else the else-branch's), so the branch is followed
  // to the value it yields, which the rewrite has already typed: a loop that peels its first
  // iteration into an `if` narrows like one that does not.
  const ir::Type& yielded_type(const ir::Expr& value) const {
    const ir::Expr* v = &value;
    for (auto it = if_results_.find(v->get()); it != if_results_.end(); it = if_results_.find(v->get())) {
      const ir::Yield* y = merged_yield(*it->second.first);
      if (!y) break;
      v = &y->values[it->second.second];  // strictly inside the branch: the chain ends
    }
    return (*v)->type;
  }

  // Per axis, the yield's extent where it differs and may be adopted: it is provably within
  // the declared one, or the declared one is the whole box (every valid extent is bounded
  // by the box, so a runtime extent is trusted to fit). nullopt when no axis narrows.
  static std::optional<std::vector<ir::Expr>> narrowed_valid(const ir::TileType& init, const ir::TileType& yielded) {
    if (init.shape.size() != yielded.shape.size()) return std::nullopt;
    const auto& declared = ir::valid_shape(init);
    const auto& proven = ir::valid_shape(yielded);
    std::vector<ir::Expr> out = declared;
    bool any = false;
    for (std::size_t i = 0; i < declared.size(); ++i) {
      if (ir::loosely_equal(proven[i], declared[i])) continue;
      if (!ir::loosely_equal(declared[i], init.shape[i]) && ops::deduce::prove_le(proven[i], declared[i]) != true)
        continue;
      out[i] = proven[i];
      any = true;
    }
    return any ? std::optional(std::move(out)) : std::nullopt;
  }

  // The compact and the physical reading of an Acc tile use the same block pitch: the valid
  // rows fill the box, or round up to it (always so for a single 16-row block).
  static bool pitches_coincide(const ir::Expr& valid_rows, const ir::Expr& rows) {
    if (ir::loosely_equal(valid_rows, rows)) return true;
    auto physical = ir::const_int(rows);
    if (!physical) return false;
    constexpr std::int64_t block = math::k_acc_block_dim;
    if (auto v = ir::const_int(valid_rows)) return (*v + block - 1) / block * block == *physical;
    return *physical == block;
  }

  // Every name the extents use is defined outside the loop, so the seed can be declared
  // before it (an extent computed next to the slice it bounds cannot).
  bool visible_before(const std::vector<ir::Expr>& extents, const ir::StmtNode* loop) const {
    auto span = spans_.find(loop);
    bool visible = true;
    auto inside = [&](const ir::ExprNode* v) {
      auto d = clock_of_.find(v);
      return d != clock_of_.end() && d->second >= span->second.first && d->second < span->second.second;
    };
    for (const auto& e : extents) {
      auto visit = [&](const auto& self, const ir::Expr& x) -> void {
        if (!x || !visible) return;
        if (ir::is_var_like(x)) {
          visible = !inside(x.get());
          return;
        }
        if (auto* b = ir::as<ir::Binary>(x)) {
          self(self, b->lhs);
          self(self, b->rhs);
        } else if (auto* u = ir::as<ir::Unary>(x)) {
          self(self, u->operand);
        } else if (auto* c = ir::as<ir::Call>(x)) {
          for (const auto& a : c->args) self(self, a);
        }
      };
      visit(visit, e);
    }
    return visible;
  }

  // ---- rewrite ---------------------------------------------------------------------------
  ir::Stmt loop(const ir::Stmt& s, const std::vector<ir::Expr>& iter_args) {
    std::vector<ir::Stmt> prologue;
    for (const auto& e : iter_args) {
      const ir::IterArg& ia = *ir::as<ir::IterArg>(e);
      ir::Expr init = mutate_expr(ia.init);
      if (auto d = decisions_.find(e.get()); d != decisions_.end()) init = narrowed_seed(e, d->second, prologue);
      if (!init->type || ir::same_type(init->type, e->type, ir::Buffers::ignored)) continue;
      substitute(e, ir::make_iter_arg(ia.name.text, init->type, init, e->span));
    }
    ir::Stmt rebuilt = ir::Mutator<CarrySettler>::mutate_stmt(s);
    if (auto* f = ir::as<ir::For>(rebuilt))
      rebuilt = retype_results(rebuilt, f->return_vars, results_of(s), types_of(f->iter_args), *f);
    if (auto* w = ir::as<ir::While>(rebuilt))
      rebuilt = retype_results(rebuilt, w->return_vars, results_of(s), types_of(w->iter_args), *w);
    if (prologue.empty()) return rebuilt;
    prologue.push_back(rebuilt);
    return ir::make_seq(std::move(prologue), s->span);
  }

  // The seed declared at the narrowed extent: a compact box (unless its rows provably fill
  // it), then its valid region.
  ir::Expr narrowed_seed(const ir::Expr& iter_arg, const std::vector<ir::Expr>& valid, std::vector<ir::Stmt>& prologue) {
    const ir::TileType& t = *ir::tile_type(iter_arg);
    const std::string name = std::string(ir::name_hint(ir::as<ir::IterArg>(iter_arg)->init)) + "_narrowed";
    const ir::Span& span = iter_arg->span;
    ir::Kwargs kwargs{{"dtype", t.dtype}, {"target_memory", ir::MemorySpace::Acc}};
    if (!ir::loosely_equal(valid[0], t.shape[0])) kwargs.emplace_back("compact", true);
    auto bind = [&](std::string n, ir::Expr value) {
      ir::Expr var = ir::make_var(std::move(n), value->type, span);
      prologue.push_back(ir::make_stmt(ir::Assign{var, std::move(value)}, span));
      return var;
    };
    ir::Expr storage = bind(name + "_storage", call(op_ids().create, {ir::make_tuple(t.shape, span)}, std::move(kwargs), span));
    return bind(name, call(op_ids().set_validshape, {storage, mutate_expr(valid[0]), mutate_expr(valid[1])}, {}, span));
  }

  ir::Expr call(ir::OpId op, std::vector<ir::Expr> args, ir::Kwargs kwargs, const ir::Span& span,
                const ir::Call* like = nullptr, ir::Type annotated = nullptr) const {
    ir::Expr out = ops::create_call(*registry_->find(op), std::move(args), std::move(kwargs), span, std::move(annotated));
    if (!like || like->attrs.empty()) return out;
    ir::Call c = *ir::as<ir::Call>(out);
    c.attrs = like->attrs;
    return ir::make_expr(std::move(c), out->type, out->span);
  }

  static bool operands_moved(const ir::Call& now, const ir::Call& before) {
    if (now.args.size() != before.args.size()) return true;
    for (std::size_t i = 0; i < now.args.size(); ++i)
      if (now.args[i] != before.args[i]) return true;
    return false;
  }

  ir::Stmt rebind(const ir::Stmt& rebuilt, const ir::Assign& now, const ir::Assign& before) {
    ir::Expr value = now.value;
    auto* c = ir::as<ir::Call>(now.value);
    auto* was = ir::as<ir::Call>(before.value);
    const ops::OpInfo* info = c && !c->callee.is_function() ? registry_->find(c->callee.op) : nullptr;
    if (info && was && operands_moved(*c, *was)) value = call(c->callee.op, c->args, c->kwargs, value->span, c, value->type);
    else if (info && info->deduce && without_view(value->type)) value = as_read_back(*c, value);
    else if (info) value = with_stated_memory(*info, value);
    // A scalar Var keeps its type: the pass changes no scalar, and an INDEX annotation over an
    // integer value of its class is the text's choice (§6.4), which the reparse honours too.
    const ir::Type settled = !value->type                          ? nullptr
                             : ir::as<ir::ScalarType>(now.var->type) ? now.var->type
                                                                     : stated_storage(value->type, now.var->type);
    if (value == now.value && (!settled || ir::same_type(settled, now.var->type, ir::Buffers::ignored))) return rebuilt;
    ir::Expr var = now.var;
    if (settled && !ir::same_type(settled, var->type, ir::Buffers::ignored)) {
      var = ir::make_expr(var->v, settled, var->span);
      substitute(before.var, var);
    }
    return ir::make_stmt(ir::Assign{var, std::move(value)}, rebuilt->span, rebuilt->comments);
  }

  static bool without_view(const ir::Type& t) {
    auto* tile = ir::as<ir::TileType>(t);
    return tile && !tile->view && tile->shape.size() == 2;
  }

  // A >2D annotation over a call that deduces a 2D tile (an annotation of another shape is
  // the value's type, §6.4) is flattened onto the deduced shape, with no view; and an
  // annotation of the deduced shape reads back with the deduced view. So a call typed without
  // a view whose deduction has that shape is given its deduced type, which is what its printed
  // form means (structured-fuzz finding, issue 34). The elements a deduced valid region leaves
  // out are the ones the op never wrote.
  ir::Expr as_read_back(const ir::Call& c, const ir::Expr& value) const {
    auto* now = ir::tile_type(value);
    if (!now || now->shape.size() != 2) return value;
    ir::Expr deduced = call(c.callee.op, c.args, c.kwargs, value->span, &c, value->type);
    auto* d = ir::tile_type(deduced);
    if (!d || !ir::loosely_equal(d->shape, now->shape)) return value;
    // A space only the annotation names (an allocation left unplaced) is what the text reads
    // back with, as stated_storage keeps it for the Var.
    if (!d->memory && now->memory)
      return ir::make_expr(deduced->v, stated_storage(deduced->type, value->type), deduced->span);
    return deduced;
  }

  // A call whose tile type names no memory space, with the one its op puts its result in (its
  // target_memory, its fixed output space, or its operands'): what deducing it again would
  // give, for calls the rewrite kept whose type was taken from an annotation silent on it.
  static ir::Expr with_stated_memory(const ops::OpInfo& info, const ir::Expr& value) {
    auto* t = ir::tile_type(value);
    if (!t || t->memory) return value;
    const ir::Call& c = *ir::as<ir::Call>(value);
    ir::Type stamped = ops::stamp_memory(info, value->type, c.args, c.kwargs);
    if (stamped == value->type) return value;
    return ir::make_expr(value->v, std::move(stamped), value->span);
  }

  // A deduced tile type with the MemRef and memory space the Var states where deduction
  // names none: binding information deduction never produces, not a stale annotation.
  static ir::Type stated_storage(const ir::Type& deduced, const ir::Type& stated) {
    auto* d = ir::as<ir::TileType>(deduced);
    auto* v = ir::as<ir::TileType>(stated);
    if (!d || !v || ((d->memref || !v->memref) && (d->memory || !v->memory))) return deduced;
    return ir::make_tile_type(d->shape, d->dtype, d->view, d->memory ? d->memory : v->memory,
                              d->memref ? d->memref : v->memref);
  }

  static std::vector<ir::Type> types_of(const std::vector<ir::Expr>& values) {
    std::vector<ir::Type> out;
    out.reserve(values.size());
    for (const auto& v : values) out.push_back(v->type);
    return out;
  }

  // The first yield of a branch, looking through statement lists and scopes only: a yield
  // inside a nested loop or branch ends that one.
  static const ir::Yield* first_yield(const ir::Stmt& body) {
    if (!body) return nullptr;
    if (auto* y = ir::as<ir::Yield>(body)) return y;
    if (auto* scope = ir::as<ir::Scope>(body)) return first_yield(scope->body);
    if (auto* seq = ir::as<ir::Seq>(body))
      for (const auto& s : seq->stmts)
        if (const ir::Yield* y = first_yield(s)) return y;
    return nullptr;
  }

  // FL-45: the yield an if's results take their types from — the then-branch's, else the
  // else-branch's; null when neither gives one value per result.
  static const ir::Yield* merged_yield(const ir::If& i) {
    const ir::Yield* y = first_yield(i.then_body);
    if (!y || y->values.size() != i.return_vars.size()) y = first_yield(i.else_body);
    return y && y->values.size() == i.return_vars.size() ? y : nullptr;
  }
  static std::vector<ir::Type> branch_types(const ir::If& i) {
    const ir::Yield* y = merged_yield(i);
    return y ? types_of(y->values) : std::vector<ir::Type>{};
  }

  static const std::vector<ir::Expr>& results_of(const ir::Stmt& s) {
    static const std::vector<ir::Expr> none;
    if (auto* i = ir::as<ir::If>(s)) return i->return_vars;
    if (auto* f = ir::as<ir::For>(s)) return f->return_vars;
    if (auto* w = ir::as<ir::While>(s)) return w->return_vars;
    return none;
  }

  // A loop's or branch's results take the given types, positionally. `before` are the results
  // as the input had them: the walk may already have re-minted one (its type named a Var that
  // changed), and the reads after the statement still name the input's.
  template <class Node>
  ir::Stmt retype_results(const ir::Stmt& rebuilt, const std::vector<ir::Expr>& results,
                          const std::vector<ir::Expr>& before, const std::vector<ir::Type>& types, Node node) {
    if (types.size() != results.size()) return rebuilt;
    bool changed = false;
    for (std::size_t i = 0; i < results.size(); ++i) {
      const ir::Type& t = types[i];
      if (!t || ir::same_type(t, results[i]->type, ir::Buffers::ignored)) continue;
      ir::Expr fresh = ir::make_expr(results[i]->v, t, results[i]->span);
      substitute(results[i], fresh);
      if (i < before.size() && before[i] != results[i]) substitute(before[i], fresh);
      node.return_vars[i] = std::move(fresh);
      changed = true;
    }
    return changed ? ir::make_stmt(std::move(node), rebuilt->span, rebuilt->comments) : rebuilt;
  }

  const ops::Registry* registry_;
  std::size_t clock_ = 0;
  std::unordered_map<const ir::ExprNode*, std::size_t> clock_of_;
  std::unordered_map<const ir::StmtNode*, std::pair<std::size_t, std::size_t>> spans_;
  std::unordered_map<const ir::ExprNode*, bool> creates_;  // Var → defined by tile.create
  std::unordered_map<const ir::ExprNode*, std::pair<const ir::If*, std::size_t>> if_results_;  // → its branch
  std::unordered_map<const ir::ExprNode*, std::vector<ir::Expr>> decisions_;  // iter_arg → valid shape
  std::unordered_map<const ir::ExprNode*, std::int64_t> reads_;
  std::unordered_set<const ir::ExprNode*> replaced_seeds_;  // seeds read by their loop only: dropped
};

// FL-43…FL-45 and FL-66 on a rewritten function body; the same body when every name
// already has its value's type and no carry narrows.
inline ir::Stmt settle_carries(const ir::Stmt& body, const ops::Registry& registry, bool narrowing_only = false) {
  return CarrySettler(registry).run(body, narrowing_only);
}

}  // namespace tilewright::passes::flatten
