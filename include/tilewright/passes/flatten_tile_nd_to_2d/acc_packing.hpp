#pragma once
// Which accumulators FlattenTileNdTo2D packs along COLUMNS (seed 003; FL-64, FL-65).
//
// L0C stores an Acc tile as 16x16 blocks, block columns outermost, and the MAD writes its
// destination compactly from a bare pointer (math/l0c.hpp). So the row band [b*M, (b+1)*M)
// of an [B*M, N] accumulator is only addressable when N <= 16; page b of a batched
// accumulator therefore lives at the column band [b*N, (b+1)*N) of one [M, B*N] tile, which
// spans every row. The same holds for a 2D accumulator [T*R, N] updated through R-row
// windows: it is allocated [R, T*N] and window t becomes column band t.
//
// An accumulator is one buffer reached under many names — the allocation, the in-place
// results of the accumulating ops, loop carries, branch merges — often across blocks (the
// tile.create before a K loop, the accumulation inside, the store after). So the decision
// is made once for the whole function before anything is rewritten: a chain is a connected
// component of the same-buffer graph, with edges
//
//   v = tile.batch_matmul_acc(a, …) / tile.matmul_acc(a, …) / tile.assemble(a, …)   v — a
//   v = a                                                                             v — a
//   loop iter_arg — its init, its yield; loop return_var — its iter_arg
//   if return_var — the value each branch yields
//
// and it is packed when every member is made and read by a form the rewrite handles page by
// page, and L0C can address the geometry. Otherwise the legacy row packing is kept where it
// is still correct (pages at most 16 columns wide, no producer staging through Vec), and
// everything else is rejected here with the reason and a workaround.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tilewright/backend/backend.hpp"
#include "tilewright/ir/walk.hpp"
#include "tilewright/math/l0c.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/op_ids.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/shape.hpp"

namespace tilewright::passes::flatten {

// A packed accumulator: `pages` pages of [rows, cols] side by side in one Acc tile.
struct AccPack {
  bool row_windows = false;              // a 2D accumulator updated through row windows
  std::int64_t pages = 1;                // B batch pages, or T row windows
  std::int64_t rows = 0;                 // M, or the window height R
  std::int64_t cols = 0;                 // N
  std::vector<std::int64_t> batch_dims;  // batched: the accumulator's batch dims
  ir::DataType dtype = ir::DataType::FP32;

  // [rows, pages * cols] in Acc: every member of the chain has this type.
  [[nodiscard]] ir::Type tile_type(ir::Expr memref = nullptr) const {
    return ir::make_tile_type({ir::make_int(rows), ir::make_int(pages * cols)}, dtype, std::nullopt,
                              ir::MemorySpace::Acc, std::move(memref));
  }
};

// The decision: the packed chains, by member.
class AccPacking {
 public:
  [[nodiscard]] const AccPack* of(const ir::ExprNode* member) const {
    auto it = member_.find(member);
    return it == member_.end() ? nullptr : &packs_[it->second];
  }
  void add(AccPack pack, const std::vector<const ir::ExprNode*>& members) {
    for (const auto* m : members) member_.emplace(m, packs_.size());
    packs_.push_back(std::move(pack));
  }
  [[nodiscard]] bool empty() const noexcept { return packs_.empty(); }

 private:
  std::vector<AccPack> packs_;
  std::unordered_map<const ir::ExprNode*, std::size_t> member_;
};

namespace detail {

enum class AccUse : std::uint8_t {
  accumulate,   // arg 0 of tile.batch_matmul_acc / tile.matmul_acc: written in place
  drain_store,  // arg 0 of tile.store
  drain_move,   // arg 0 of tile.move: a read into a fresh tile, not part of the chain
  carry,        // a loop or branch carry, or a plain alias
  window,       // arg 0 of tile.slice: a row window of a 2D accumulator
  insert,       // arg 0 of tile.assemble: a window written back
  other,        // anything else reads the tile whole
};

struct AccUseSite {
  AccUse kind = AccUse::other;
  const ir::Expr* value = nullptr;  // the consuming call expression, when there is one
};

struct AccSeed {
  ir::Span span;                       // where a rejection points
  const ir::ExprNode* acc = nullptr;   // null when the accumulator operand is not a name
  AccPack pack;
  std::vector<std::int64_t> dims;      // the accumulator's own dims
};

struct Verdict {
  std::optional<AccPack> pack;
  std::string reason;
  std::string workaround;            // empty: the default one
  bool batch_producer = false;       // a tile.batch_matmul makes the accumulator
  bool force_reject = false;         // row packing cannot express it either
  bool geometry_irrelevant = false;  // the column-packing rationale does not apply
};

// The same-buffer graph of one function, its use classification and its seeds; one walk.
class AccChainGraph {
 public:
  explicit AccChainGraph(const ir::FunctionNode& f) {
    // Parameters keep their types (FL-03), so a chain reaching one cannot be retyped.
    for (const auto& p : f.params) {
      note(p.var.get());
      poisoned_.insert(p.var.get());
    }
    block(f.body);
    seed_row_windows();
  }

  [[nodiscard]] const std::vector<AccSeed>& seeds() const noexcept { return seeds_; }

  const ir::ExprNode* find(const ir::ExprNode* v) {
    const ir::ExprNode* root = v;
    for (auto it = parent_.find(root); it != parent_.end() && it->second != root; it = parent_.find(root))
      root = it->second;
    while (v != root) {  // path compression
      const ir::ExprNode* next = parent_[v];
      parent_[v] = root;
      v = next;
    }
    return root;
  }

  // Members by component root, in first-seen order.
  std::unordered_map<const ir::ExprNode*, std::vector<const ir::ExprNode*>> components() {
    std::unordered_map<const ir::ExprNode*, std::vector<const ir::ExprNode*>> out;
    for (const auto* v : order_) out[find(v)].push_back(v);
    return out;
  }

  [[nodiscard]] bool poisoned(const ir::ExprNode* v) const { return poisoned_.contains(v); }
  [[nodiscard]] bool implicit(const ir::ExprNode* v) const {
    return std::holds_alternative<ir::IterArg>(v->v) || return_vars_.contains(v);
  }
  [[nodiscard]] const ir::Expr* definition(const ir::ExprNode* v) const {
    auto it = defs_.find(v);
    return it == defs_.end() ? nullptr : it->second;
  }
  [[nodiscard]] const std::vector<AccUseSite>* uses(const ir::ExprNode* v) const {
    auto it = uses_.find(v);
    return it == uses_.end() ? nullptr : &it->second;
  }

  // An offset that is a multiple of `step` (a window height, a block width): a constant
  // multiple, or — for a power-of-two step — an expression provably a multiple through its
  // SSA definitions.
  [[nodiscard]] bool provably_aligned(const ir::Expr& offset, std::int64_t step) const {
    if (auto c = ir::const_int(offset)) return *c >= 0 && *c % step == 0;
    if (step <= 0 || (step & (step - 1)) != 0) return false;
    int budget = 64;
    return provable_multiple(offset, step, budget);
  }

  // A tile.assemble that writes a matmul_acc result back into the window it was read from.
  bool writes_back_its_window(const ir::Call& insert) {
    if (insert.args.size() < 3) return false;
    auto* target = ir::is_var_like(insert.args[0]) ? insert.args[0].get() : nullptr;
    auto* source = ir::is_var_like(insert.args[1]) ? insert.args[1].get() : nullptr;
    auto* offsets = ir::as<ir::MakeTuple>(insert.args[2]);
    if (!target || !source || !offsets) return false;
    auto it = accumulated_windows_.find(find(source));
    if (it == accumulated_windows_.end() || it->second.size() != 1) return false;
    const ir::Call* window = ir::as<ir::Call>(*it->second.front());
    auto* window_offsets = window && window->args.size() >= 3 ? ir::as<ir::MakeTuple>(window->args[2]) : nullptr;
    return window_offsets && ir::is_var_like(window->args[0]) && find(window->args[0].get()) == find(target) &&
           ir::loosely_equal(offsets->elements, window_offsets->elements);
  }

 private:
  void note(const ir::ExprNode* v) {
    if (parent_.emplace(v, v).second) order_.push_back(v);
  }
  void unite(const ir::ExprNode* a, const ir::ExprNode* b) {
    const ir::ExprNode* x = find(a);
    const ir::ExprNode* y = find(b);
    if (x != y) parent_[x] = y;
  }
  void use(const ir::ExprNode* v, AccUse kind, const ir::Expr* value = nullptr) {
    note(v);
    uses_[v].push_back({kind, value});
  }
  // `value` flows into `target` across a loop or branch boundary: the same buffer when it is
  // a name; anything else cannot be retyped with the chain.
  void carry(const ir::ExprNode* target, const ir::Expr& value) {
    if (ir::is_var_like(value)) {
      unite(target, value.get());
      use(value.get(), AccUse::carry);
      return;
    }
    other(value);
    poisoned_.insert(target);
  }
  // Every name inside `e` is read whole.
  void other(const ir::Expr& e, const ir::Expr* value = nullptr) {
    if (!e) return;
    if (ir::is_var_like(e)) return use(e.get(), AccUse::other, value);
    if (auto* t = ir::as<ir::MakeTuple>(e))
      for (const auto& x : t->elements) other(x, value);
    if (auto* c = ir::as<ir::Call>(e))
      for (const auto& x : c->args) other(x, value);
    if (auto* g = ir::as<ir::TupleGetItem>(e)) other(g->tuple, value);
  }

  template <class F>
  static void each(const ir::Stmt& body, F&& f) {
    if (!body) return;
    if (auto* seq = ir::as<ir::Seq>(body))
      for (const auto& s : seq->stmts) f(s);
    else
      f(body);
  }

  // The yields that end THIS body: a yield inside a nested loop or branch ends that one.
  static void own_yields(const ir::Stmt& body, std::vector<const ir::Yield*>& out,
                         std::vector<const ir::StmtNode*>& nodes) {
    each(body, [&](const ir::Stmt& s) {
      if (auto* y = ir::as<ir::Yield>(s)) {
        out.push_back(y);
        nodes.push_back(s.get());
      } else if (auto* scope = ir::as<ir::Scope>(s)) {
        own_yields(scope->body, out, nodes);
      }
    });
  }

  void block(const ir::Stmt& body) {
    each(body, [&](const ir::Stmt& s) { statement(s); });
  }

  void statement(const ir::Stmt& s) {
    if (auto* a = ir::as<ir::Assign>(s)) return assign(s, *a);
    if (auto* e = ir::as<ir::Eval>(s)) return other(e->expr, &e->expr);
    if (auto* r = ir::as<ir::Return>(s)) {
      for (const auto& v : r->values) other(v);
      return;
    }
    if (auto* y = ir::as<ir::Yield>(s)) {
      if (!handled_yields_.contains(s.get()))
        for (const auto& v : y->values) other(v);
      return;
    }
    if (auto* f = ir::as<ir::For>(s)) {
      other(f->start);
      other(f->stop);
      other(f->step);
      loop_vars_.emplace(f->loop_var.get(), f);
      return loop(f->iter_args, f->return_vars, f->body);
    }
    if (auto* w = ir::as<ir::While>(s)) {
      other(w->cond);
      return loop(w->iter_args, w->return_vars, w->body);
    }
    if (auto* i = ir::as<ir::If>(s)) return branch(*i);
    if (auto* scope = ir::as<ir::Scope>(s)) return block(scope->body);
  }

  void assign(const ir::Stmt& s, const ir::Assign& a) {
    const ir::ExprNode* var = a.var.get();
    note(var);
    defs_[var] = &a.value;
    auto* call = ir::as<ir::Call>(a.value);
    if (!call) {
      if (ir::is_var_like(a.value)) {
        unite(var, a.value.get());
        use(a.value.get(), AccUse::carry);
      } else {
        other(a.value, &a.value);
      }
      return;
    }
    if (call->callee.is_function()) return other(a.value, &a.value);
    const OpIds& op = op_ids();
    const ir::OpId id = call->callee.op;
    const bool accumulates = id == op.batch_matmul_acc || id == op.matmul_acc;
    for (std::size_t i = 0; i < call->args.size(); ++i) {
      const ir::Expr& arg = call->args[i];
      if (!ir::is_var_like(arg)) {
        other(arg, &a.value);
        continue;
      }
      AccUse kind = AccUse::other;
      if (i == 0 && accumulates) kind = AccUse::accumulate;
      else if (i == 0 && id == op.slice) kind = AccUse::window;
      else if (i == 0 && id == op.assemble) kind = AccUse::insert;
      else if (i == 0 && id == op.store) kind = AccUse::drain_store;
      else if (i == 0 && id == op.move) kind = AccUse::drain_move;
      use(arg.get(), kind, &a.value);
      if (kind == AccUse::accumulate || kind == AccUse::insert) unite(var, arg.get());
    }
    if (id == op.batch_matmul_acc) seed_batched(s, *call);
    if (id == op.slice) windows_.push_back(&a);
    if (id == op.matmul_acc) accumulations_.push_back(var);
  }

  void loop(const std::vector<ir::Expr>& iter_args, const std::vector<ir::Expr>& return_vars, const ir::Stmt& body) {
    std::vector<const ir::Yield*> yields;
    std::vector<const ir::StmtNode*> yield_nodes;
    own_yields(body, yields, yield_nodes);
    const bool matched = yields.size() == 1 && return_vars.size() == iter_args.size() &&
                         yields[0]->values.size() == iter_args.size();
    for (std::size_t i = 0; i < iter_args.size(); ++i) {
      const ir::ExprNode* ia = iter_args[i].get();
      note(ia);
      auto* carried = ir::as<ir::IterArg>(iter_args[i]);
      carry(ia, carried ? carried->init : nullptr);
      if (i < return_vars.size()) {
        const ir::ExprNode* rv = return_vars[i].get();
        note(rv);
        return_vars_.insert(rv);
        unite(rv, ia);
        if (!matched) poisoned_.insert(rv);
      }
      if (!matched) {
        poisoned_.insert(ia);
        continue;
      }
      carry(ia, yields[0]->values[i]);
    }
    for (std::size_t k = 0; k < yields.size(); ++k) {
      if (!matched)
        for (const auto& v : yields[k]->values) other(v);
      handled_yields_.insert(yield_nodes[k]);
    }
    block(body);
  }

  void branch(const ir::If& i) {
    other(i.cond);
    std::vector<const ir::Yield*> then_yields, else_yields;
    std::vector<const ir::StmtNode*> nodes;
    own_yields(i.then_body, then_yields, nodes);
    own_yields(i.else_body, else_yields, nodes);
    const std::size_t arity = i.return_vars.size();
    const bool matched = arity == 0 || (then_yields.size() == 1 && then_yields[0]->values.size() == arity &&
                                        i.else_body && else_yields.size() == 1 &&
                                        else_yields[0]->values.size() == arity);
    for (std::size_t k = 0; k < arity; ++k) {
      const ir::ExprNode* rv = i.return_vars[k].get();
      note(rv);
      return_vars_.insert(rv);
      if (!matched) {
        poisoned_.insert(rv);
        continue;
      }
      for (const ir::Yield* arm : {then_yields[0], else_yields[0]}) carry(rv, arm->values[k]);
    }
    for (const ir::Yield* y : then_yields)
      if (!matched)
        for (const auto& v : y->values) other(v);
    for (const ir::Yield* y : else_yields)
      if (!matched)
        for (const auto& v : y->values) other(v);
    for (const auto* n : nodes) handled_yields_.insert(n);
    block(i.then_body);
    block(i.else_body);
  }

  // FL-64a: a batch_matmul_acc with a static >2D accumulator of more than one page.
  void seed_batched(const ir::Stmt& s, const ir::Call& call) {
    auto* acc = call.args.empty() ? nullptr : ir::tile_type(call.args[0]);
    if (!acc || acc->shape.size() <= 2) return;
    auto dims = ir::static_dims(acc->shape);
    if (!dims) return;
    AccSeed seed;
    seed.span = s->span;
    seed.acc = ir::is_var_like(call.args[0]) ? call.args[0].get() : nullptr;
    seed.dims = *dims;
    seed.pack.rows = (*dims)[dims->size() - 2];
    seed.pack.cols = dims->back();
    seed.pack.batch_dims.assign(dims->begin(), dims->end() - 2);
    seed.pack.dtype = acc->dtype;
    for (std::int64_t d : seed.pack.batch_dims) {
      if (d <= 0) return;
      seed.pack.pages *= d;
    }
    if (seed.pack.pages > 1) seeds_.push_back(std::move(seed));
  }

  // FL-65: a tile.slice of a 2D accumulator whose window a tile.matmul_acc writes, when the
  // MAD could not write that window where it sits.
  void seed_row_windows() {
    std::unordered_set<const ir::ExprNode*> accumulated;
    for (const auto* v : accumulations_) accumulated.insert(find(v));
    for (const ir::Assign* a : windows_) {
      const ir::ExprNode* root = find(a->var.get());
      if (!accumulated.contains(root)) continue;
      accumulated_windows_[root].push_back(&a->value);
      const ir::Call& call = *ir::as<ir::Call>(a->value);
      const ir::Expr& parent = call.args[0];
      auto* parent_type = ir::tile_type(parent);
      auto* window_type = ir::tile_type(a->value);
      if (!ir::is_var_like(parent) || !parent_type || !window_type || parent_type->shape.size() != 2 ||
          window_type->shape.size() != 2)
        continue;
      auto parent_dims = ir::static_dims(parent_type->shape);
      auto window_dims = ir::static_dims(window_type->shape);
      if (!parent_dims || !window_dims || (*window_dims)[0] <= 0) continue;
      const std::int64_t rows = (*window_dims)[0], parent_rows = (*parent_dims)[0], cols = (*parent_dims)[1];
      if (rows >= parent_rows || mad_writes_in_place(*window_dims, window_column(call), parent_rows)) continue;
      if (parent_rows % rows != 0)
        ir::throw_user_error(std::string(pass_name),
                             "matmul_acc accumulator row windows must evenly divide the parent row extent; got " +
                                 std::to_string(rows) + " rows in a " + std::to_string(parent_rows) +
                                 "-row accumulator. Slice windows whose height divides the accumulator's rows",
                             a->value->span);
      AccSeed seed;
      seed.span = a->value->span;
      seed.acc = parent.get();
      seed.dims = *parent_dims;
      seed.pack = AccPack{true, parent_rows / rows, rows, cols, {}, parent_type->dtype};
      seeds_.push_back(std::move(seed));
    }
  }

 public:
  // FL-65, the predicate CanonicalizeTileSlice's CT-19 check uses (math/l0c.hpp): a MAD
  // writes a row window in place when the WINDOW stays inside one 16-column block — its own
  // columns and column offset decide, not the parent's (ptoas keeps the parent's rows for a
  // row window but takes its columns from the window). So a [16, 16] window of a [48, 32]
  // accumulator at column 0 or 16 is left alone; at column 8 it straddles two blocks.
  // Packing a window this exempts would only turn a kernel the hardware runs into a
  // rejection; a window it does not exempt is one CT-19 would refuse two passes later.
  [[nodiscard]] static bool mad_writes_in_place(const std::vector<std::int64_t>& window, const math::maybe_i64& column,
                                                std::int64_t parent_rows) {
    return math::mad_can_address({window[0], window[1], column, parent_rows});
  }

  // The static column offset of a 2D slice, when it has one.
  [[nodiscard]] static math::maybe_i64 window_column(const ir::Call& slice) {
    auto* at = slice.args.size() >= 3 ? ir::as<ir::MakeTuple>(slice.args[2]) : nullptr;
    if (!at || at->elements.size() != 2) return std::nullopt;
    return ir::const_int(at->elements[1]);
  }

 private:
  bool provable_multiple(const ir::Expr& e, std::int64_t m, int& budget) const {
    if (--budget < 0 || !e) return false;
    if (auto c = ir::const_int(e)) return *c % m == 0;
    if (auto* b = ir::as<ir::Binary>(e)) {
      switch (b->op) {
        case ir::BinaryOp::Mul: return provable_multiple(b->lhs, m, budget) || provable_multiple(b->rhs, m, budget);
        case ir::BinaryOp::Add:
        case ir::BinaryOp::Sub: return provable_multiple(b->lhs, m, budget) && provable_multiple(b->rhs, m, budget);
        case ir::BinaryOp::Shl:
          if (auto k = ir::const_int(b->rhs); k && *k >= 0 && *k < 62 && (std::int64_t{1} << *k) % m == 0) return true;
          return provable_multiple(b->lhs, m, budget);
        default: return false;
      }
    }
    if (auto it = loop_vars_.find(e.get()); it != loop_vars_.end())
      return provable_multiple(it->second->start, m, budget) && provable_multiple(it->second->step, m, budget);
    if (const ir::Expr* def = definition(e.get())) return provable_multiple(*def, m, budget);
    return false;
  }

  std::unordered_map<const ir::ExprNode*, const ir::ExprNode*> parent_;
  std::vector<const ir::ExprNode*> order_;
  std::unordered_map<const ir::ExprNode*, const ir::Expr*> defs_;
  std::unordered_map<const ir::ExprNode*, std::vector<AccUseSite>> uses_;
  std::unordered_map<const ir::ExprNode*, const ir::For*> loop_vars_;
  std::unordered_set<const ir::ExprNode*> poisoned_;
  std::unordered_set<const ir::ExprNode*> return_vars_;
  std::unordered_set<const ir::StmtNode*> handled_yields_;
  std::vector<const ir::Assign*> windows_;
  std::vector<const ir::ExprNode*> accumulations_;
  std::unordered_map<const ir::ExprNode*, std::vector<const ir::Expr*>> accumulated_windows_;
  std::vector<AccSeed> seeds_;
};

// A tile.batch_matmul that makes the whole ND accumulator (the chain's producer, FL-59).
inline bool is_batch_matmul_producer(const ir::Expr* def, const std::vector<std::int64_t>& dims) {
  auto* call = def ? ir::as<ir::Call>(*def) : nullptr;
  if (!call || call->callee.op != op_ids().batch_matmul) return false;
  auto* result = ir::tile_type(*def);
  auto result_dims = result ? ir::static_dims(result->shape) : std::nullopt;
  return result_dims && *result_dims == dims;
}

inline bool has_partial_valid(const ir::TileType& t) {
  return t.view && !t.view->valid_shape.empty() && !ir::loosely_equal(t.view->valid_shape, t.shape);
}

inline std::string op_text(const ir::Expr* def) {
  auto* call = def ? ir::as<ir::Call>(*def) : nullptr;
  return call && call->callee.op ? std::string(ir::op_name(call->callee.op)) : std::string("a non-call value");
}

// FL-64b/FL-65: can this chain be packed, and if not, why.
class ChainJudge {
 public:
  ChainJudge(AccChainGraph& graph, math::byte_budget acc_budget) : graph_(graph), budget_(acc_budget) {}

  Verdict judge(const std::vector<const ir::ExprNode*>& members, const std::vector<const AccSeed*>& seeds) {
    Verdict v;
    const AccSeed& head = *seeds.front();
    for (const AccSeed* s : seeds) {
      if (!s->acc) return fail(v, "the accumulator operand is not a named value, so its chain cannot be tracked");
      if (s->dims != head.dims || s->pack.dtype != head.pack.dtype || s->pack.rows != head.pack.rows ||
          s->pack.row_windows != head.pack.row_windows)
        return fail(v, head.pack.row_windows
                           ? "the same accumulator is written through row windows of different heights (" +
                                 std::to_string(head.pack.rows) + " and " + std::to_string(s->pack.rows) +
                                 " rows), so there is no single packed shape for it"
                           : std::string("the same accumulator is written by two tile.batch_matmul_acc calls with "
                                         "different batch geometries, so there is no single packed shape for it"));
    }
    const AccPack& pack = head.pack;

    // One chain is one buffer: two allocations merged by control flow would need an
    // L0C-to-L0C copy to reconcile, which no target has; neither packing expresses it.
    std::size_t allocations = 0;
    for (const auto* m : members) {
      const ir::Expr* def = graph_.definition(m);
      if (is_batch_matmul_producer(def, head.dims)) {
        v.batch_producer = true;
        ++allocations;
      } else if (auto* c = def ? ir::as<ir::Call>(*def) : nullptr; c && c->callee.op == op_ids().create) {
        ++allocations;
      }
    }
    if (allocations > 1) {
      v.force_reject = v.geometry_irrelevant = true;
      v.workaround =
          "Workaround: give the accumulator a single allocation that every branch and every iteration updates in "
          "place: hoist the tile.create above the branch (or the loop) and make the first-iteration case a "
          "tile.batch_matmul_acc with init_cond=True, which overwrites the pages instead of allocating a second "
          "buffer.";
      return fail(v, "the accumulator is allocated by " + std::to_string(allocations) +
                         " separate definitions that control flow then merges into one value, and reconciling them "
                         "would need an L0C-to-L0C copy the hardware does not have");
    }

    auto geometry = math::column_pack_accumulator(pack.pages, pack.rows, pack.cols, ir::storage_bits(pack.dtype),
                                                  budget_);
    if (!geometry) return fail(v, math::acc_pack_reason(geometry.error(), ir::name_of(pack.dtype)));

    for (const auto* m : members)
      if (auto reason = member_problem(m, head, v)) return fail(v, *reason);
    v.pack = pack;
    return v;
  }

 private:
  static Verdict& fail(Verdict& v, std::string reason) {
    v.reason = std::move(reason);
    return v;
  }

  // Why member `m` cannot be rewritten page by page, or nullopt.
  std::optional<std::string> member_problem(const ir::ExprNode* m, const AccSeed& head, Verdict& v) {
    const AccPack& pack = head.pack;
    if (graph_.poisoned(m)) return "the accumulator reaches a function parameter or a control-flow carry this pass cannot retype";
    auto* t = ir::as<ir::TileType>(m->type);
    auto dims = t ? ir::static_dims(t->shape) : std::nullopt;
    if (!dims || *dims != head.dims || t->dtype != pack.dtype)
      return "an SSA name for the accumulator does not carry its " + std::to_string(head.dims.size()) +
             "-D shape, so the chain is not one buffer";
    if (has_partial_valid(*t))
      return std::string("the accumulator carries a partial valid_shape, which has no equivalent once the pages sit "
                         "side by side in one tile");
    if (pack.row_windows && t->memref)
      return std::string("the accumulator has an explicitly bound MemRef whose physical layout cannot be repacked");
    const ir::Expr* def = graph_.definition(m);
    if (!def) {
      if (!graph_.implicit(m)) return std::string("the accumulator has no definition this pass can rewrite");
    } else if (!rewritable_definition(*def, head)) {
      if (pack.row_windows)
        return "the parent accumulator is produced by " + op_text(def) +
               "; row-window packing requires tile.create followed by slice writebacks";
      v.force_reject = v.geometry_irrelevant = true;
      v.workaround =
          "Workaround: an accumulator has to come from a matmul, or from an allocation (pl.tile.create) the "
          "compiler is free to place in Acc memory. The batch plays no part in this: the same accumulator "
          "fails the same way at batch 1.";
      return "the accumulator is produced by " + op_text(def) +
             ", which cannot write Acc (L0C) at all -- only the matrix unit writes that memory";
    }

    // After the definition: a producer that cannot write Acc at all is the real cause, whatever
    // space its result is annotated with (a DSL load defaults to Vec).
    if (t->memory && *t->memory != ir::MemorySpace::Acc)
      return "the accumulator is annotated to live in " + std::string(ir::name_of(*t->memory)) +
             " memory, but only the matrix unit writes Acc (L0C)";

    const auto* uses = graph_.uses(m);
    if (!uses) return std::nullopt;
    for (const AccUseSite& u : *uses)
      if (auto reason = use_problem(u, head, v)) return reason;
    return std::nullopt;
  }

  static bool rewritable_definition(const ir::Expr& def, const AccSeed& head) {
    if (ir::is_var_like(def)) return true;  // a plain alias
    auto* c = ir::as<ir::Call>(def);
    if (!c) return false;
    const OpIds& op = op_ids();
    return c->callee.op == op.batch_matmul_acc || is_batch_matmul_producer(&def, head.dims) ||
           (head.pack.row_windows && c->callee.op == op.assemble) || (c->callee.op == op.create && !c->args.empty());
  }

  std::optional<std::string> use_problem(const AccUseSite& u, const AccSeed& head, Verdict& v) {
    const AccPack& pack = head.pack;
    const ir::Call* call = u.value ? ir::as<ir::Call>(*u.value) : nullptr;
    switch (u.kind) {
      case AccUse::carry:
      case AccUse::accumulate: return std::nullopt;
      case AccUse::window:
      case AccUse::insert: {
        if (!pack.row_windows) break;
        const ir::TileType* window = u.kind == AccUse::window ? ir::tile_type(*u.value) : ir::tile_type(call->args[1]);
        auto dims = window ? ir::static_dims(window->shape) : std::nullopt;
        auto* offsets = call->args.size() >= 3 ? ir::as<ir::MakeTuple>(call->args[2]) : nullptr;
        if (!dims || dims->size() != 2 || (*dims)[0] != pack.rows || !offsets || offsets->elements.size() != 2 ||
            !graph_.provably_aligned(offsets->elements[0], pack.rows) || has_partial_valid(*window))
          return std::string("a row window does not have the common static row extent and an aligned row offset");
        // Window t moves to column t*N + o1 of the packed tile (N is whole blocks): a band
        // that starts inside a block has no address L0C's block layout can give it.
        if (!graph_.provably_aligned(offsets->elements[1], math::k_acc_block_dim))
          return std::string("a row window starts at a column offset that is not a multiple of 16, so its band of "
                             "the packed tile would not start on an L0C block");
        if (u.kind == AccUse::insert && !graph_.writes_back_its_window(*call))
          return std::string("the slice assignment does not write a matmul_acc result back to its original window");
        return std::nullopt;
      }
      case AccUse::drain_store: {
        auto* offsets = call->args.size() >= 2 ? ir::as<ir::MakeTuple>(call->args[1]) : nullptr;
        auto* out = call->args.size() >= 3 ? ir::tensor_type(call->args[2]) : nullptr;
        if (call->args.size() != 3 || !offsets || !out || offsets->elements.size() != head.dims.size() ||
            out->shape.size() != head.dims.size())
          return std::string("the accumulator is stored through a tile.store whose window this pass cannot split "
                             "into one store per batch page");
        return std::nullopt;
      }
      case AccUse::drain_move:
        // Not forced: pages at most 16 columns wide keep whatever the row packing gives them.
        v.geometry_irrelevant = true;
        v.workaround =
            "Workaround: store each batch page to global memory and load it back for the vector work, or write the "
            "batch loop out in the kernel. The limit is not specific to accumulators: any batch>1 matmul followed "
            "by vector work meets it, at every page width.";
        return std::string("the accumulator is drained by tile.move into a vector epilogue, and gathering the pages "
                           "of a multi-page Acc (L0C) result into one vector tile is not expressible: moved pages "
                           "keep L0C's block layout, which tile.assemble cannot write into a row-packed vector "
                           "tile");
      case AccUse::other: break;
    }
    return "the accumulator is consumed by " + op_text(u.value) +
           ", which reads it as one flat tile rather than one page at a time";
  }

  AccChainGraph& graph_;
  math::byte_budget budget_;
};

// FL-64c / FL-65: the diagnostic for a chain that has no lowering.
[[noreturn]] inline void reject_chain(const AccSeed& seed, const Verdict& v) {
  const AccPack& p = seed.pack;
  if (p.row_windows)
    ir::throw_user_error(std::string(pass_name),
                         "matmul_acc: cannot lower the shared accumulator's row slices because " + v.reason +
                             ". Use acc[...] = pl.matmul_acc(acc[...], lhs, rhs, init_cond=...) with equal-size, "
                             "aligned row windows of one locally allocated accumulator, and store the result after "
                             "reduction.",
                         seed.span);
  const std::string m = std::to_string(p.rows), n = std::to_string(p.cols);
  std::string message = "tile.batch_matmul_acc: cannot lower a batch-" + std::to_string(p.pages) +
                        " accumulator of " + m + "x" + n + " " + std::string(ir::name_of(p.dtype)) +
                        " pages, because " + v.reason + ".\n";
  if (!v.geometry_irrelevant)
    message += "The pages of a batched accumulator have to be packed along COLUMNS — one " + m + "x" +
               std::to_string(p.pages * p.cols) + " Acc (L0C) tile with page b at tile.slice(acc, [" + m + ", " + n +
               "], [0, b * " + n +
               "]) — because the hardware MAD writes its destination compactly and has no destination stride, so "
               "only a window that spans every row of a tile wider than one 16-column block is a place it can write. "
               "That packing needs M and N to be whole multiples of 16, a 4-byte (FP32/INT32) accumulator, one "
               "buffer per chain, and the whole " +
               std::to_string(p.pages * p.rows * p.cols * math::k_acc_element_bytes) + "-byte tile to fit L0C.\n";
  message += v.workaround.empty()
                 ? "Workarounds: write the batch loop out in the kernel and accumulate each page into its own 2-D "
                   "tile (pl.matmul / pl.matmul_acc on 2-D operands); or keep the accumulator at most 16 columns "
                   "wide, which fits a single L0C block column and needs no packing."
                 : v.workaround;
  ir::throw_user_error(std::string(pass_name), std::move(message), seed.span);
}

}  // namespace detail

// FL-64/FL-65: decides, for the whole function, which accumulator chains are packed along
// columns; throws the rejection of the first chain that has no lowering at all.
inline AccPacking plan_acc_packing(const ir::FunctionNode& f, const backend::BackendInfo& backend) {
  AccPacking out;
  detail::AccChainGraph graph(f);
  if (graph.seeds().empty()) return out;
  // Seeds grouped by chain, chains in the order their first seed appears.
  std::vector<const ir::ExprNode*> order;
  std::unordered_map<const ir::ExprNode*, std::vector<const detail::AccSeed*>> by_chain;
  for (const auto& seed : graph.seeds()) {
    const ir::ExprNode* root = seed.acc ? graph.find(seed.acc) : nullptr;
    auto& bucket = by_chain[root];
    if (bucket.empty()) order.push_back(root);
    bucket.push_back(&seed);
  }
  auto components = graph.components();
  detail::ChainJudge judge(graph, backend.budget(ir::MemorySpace::Acc));
  static const std::vector<const ir::ExprNode*> no_members;
  for (const auto* root : order) {
    const auto& seeds = by_chain[root];
    auto it = root ? components.find(root) : components.end();
    const auto& members = it == components.end() ? no_members : it->second;
    detail::Verdict v = judge.judge(members, seeds);
    if (v.pack) {
      out.add(*v.pack, members);
      continue;
    }
    // Row packing stays correct for pages inside one 16-column block, when nothing stages
    // the accumulator through Vec on its way in (FL-64c).
    const detail::AccSeed& head = *seeds.front();
    const bool row_packing_works = !head.pack.row_windows && !v.force_reject &&
                                   head.pack.cols <= math::k_acc_block_dim && !v.batch_producer;
    if (!row_packing_works) detail::reject_chain(head, v);
  }
  return out;
}

}  // namespace tilewright::passes::flatten
