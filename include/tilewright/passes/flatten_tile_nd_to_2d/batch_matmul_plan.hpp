#pragma once
// The batched-matmul half of FlattenTileNdTo2D's read-only analysis (FL-47, FL-50,
// FL-53…FL-57): decided once for the whole function, before anything is rewritten, so the
// rules for loads, views, reshapes, matmuls and stores all read one consistent answer.
//
// For each operand of every tile.batch_matmul / tile.batch_matmul_acc:
//   * what it is: a tile.transpose_view (whose batches sit side by side in COLUMNS once
//     flattened: [K, B*N]), and the natural tile.load beneath it — found through safe
//     batch-only reshapes (FL-37) and the view;
//   * its route (FL-53): whole — the operand is brought into Mat once and each page is a
//     slice of it — unless its load is known and either both operands' whole tiles overflow
//     Mat together (BK-01) or the load's window is not one band of rows once flattened
//     (FL-12); then each page is loaded on its own (FL-54). An operand with no load under
//     it (a move, a computed tile) always stays whole.
// For each block (FL-47, FL-55, FL-57), the statements the rewrite drops: the whole load and
// view of an operand chain every consumer re-loads per page, a safe batch-only reshape the
// lowering reads through, and the tile.store a matmul performs itself, page by page. The
// loads of those chains that name no memory load into Mat, where a matmul reads (FL-17).
//
// One walk over the function plus work proportional to the operand chains.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tilewright/backend/backend.hpp"
#include "tilewright/ir/walk.hpp"
#include "tilewright/math/alignment.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/op_ids.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/shape.hpp"
#include "tilewright/rewrite/use_count.hpp"

namespace tilewright::passes::flatten {

struct OperandPlan {
  bool transposed = false;                  // a tile.transpose_view: pages are column bands
  bool per_page = false;                    // re-loaded page by page from `load`
  const ir::ExprNode* load_var = nullptr;   // the Var the natural tile.load defines, if any
  const ir::Expr* load = nullptr;           // that load's call, as written
  const ir::StmtNode* load_stmt = nullptr;  // and its statement
};

struct BatchMatmulSite {
  const ir::Call* call = nullptr;  // the matmul as written
  OperandPlan lhs;
  OperandPlan rhs;
  const ir::StmtNode* fused_store = nullptr;  // the next statement's tile.store (FL-57)
};

enum class DroppedKind : std::uint8_t {
  dead_operand,    // a whole load / view every consumer re-loads per page (FL-55)
  peeled_reshape,  // a safe batch-only reshape: its uses read its input (FL-37)
  fused_store,     // performed page by page by the matmul before it (FL-57)
};

struct BatchMatmulPlan {
  std::unordered_map<const ir::StmtNode*, BatchMatmulSite> sites;
  std::unordered_map<const ir::StmtNode*, DroppedKind> dropped;
  // FL-17: >2D loads read only by batched matmuls that name no memory: they load into Mat.
  std::unordered_set<const ir::StmtNode*> loads_promoted_to_mat;

  [[nodiscard]] bool promotes_to_mat(const ir::StmtNode* s) const { return loads_promoted_to_mat.contains(s); }

  [[nodiscard]] const BatchMatmulSite* site(const ir::StmtNode* s) const {
    auto it = sites.find(s);
    return it == sites.end() ? nullptr : &it->second;
  }
  [[nodiscard]] std::optional<DroppedKind> dropped_kind(const ir::StmtNode* s) const {
    auto it = dropped.find(s);
    return it == dropped.end() ? std::nullopt : std::optional(it->second);
  }
};

// FL-17: `t` as it is loaded for a matmul: the same tile, in Mat.
inline ir::Type in_mat(const ir::TileType& t) {
  return ir::make_tile_type(t.shape, t.dtype, t.view, ir::MemorySpace::Mat, t.memref);
}

// FL-37: a reshape that only regroups batch dims — both ranks >= 2, the same static matrix
// page, the same static number of pages — so a page of its result is a page of its input.
inline bool is_batch_only_reshape(const ir::Expr& value) {
  auto* call = ir::as<ir::Call>(value);
  if (!call || call->callee.op != op_ids().reshape || call->args.size() != 2) return false;
  auto* out = ir::tile_type(value);
  auto* in = ir::tile_type(call->args[0]);
  if (!out || !in || out->shape.size() < 2 || in->shape.size() < 2) return false;
  auto page_of = [](const ir::TileType& t) {
    const std::size_t n = t.shape.size();
    return std::pair{ir::const_int(t.shape[n - 2]), ir::const_int(t.shape[n - 1])};
  };
  auto [ri, ci] = page_of(*in);
  auto [ro, co] = page_of(*out);
  if (!ri || !ci || !ro || !co || *ri != *ro || *ci != *co) return false;
  auto pages = [](const ir::TileType& t) -> std::optional<std::int64_t> {
    std::int64_t p = 1;
    for (std::size_t i = 0; i + 2 < t.shape.size(); ++i) {
      auto d = ir::const_int(t.shape[i]);
      if (!d) return std::nullopt;
      p *= *d;
    }
    return p;
  };
  auto a = pages(*in), b = pages(*out);
  return a && b && *a == *b;
}

// FL-53 (WholeLoadContiguous): a load whose valid window is one band of rows of its tensor
// can be issued whole on a 2D view; any other multi-page window has gaps between its pages.
inline bool whole_load_is_row_band(const ir::Call& load) {
  if (load.args.size() < 4) return true;
  auto* tensor = ir::tensor_type(load.args[0]);
  auto* valid = ir::as<ir::MakeTuple>(load.args[3]);
  if (!tensor || !valid) return true;
  const std::size_t rank = valid->elements.size();
  if (rank <= 2 || tensor->shape.size() != rank) return true;
  return is_row_band(valid->elements, tensor->shape);
}

class BatchMatmulPlanner {
 public:
  explicit BatchMatmulPlanner(const backend::BackendInfo& backend) : mat_(backend.budget(ir::MemorySpace::Mat)) {}

  BatchMatmulPlan plan(const ir::FunctionNode& f) {
    uses_ = rewrite::count_uses(f.body);
    block(f.body);
    for (const Site& s : sites_) route(s);
    drop_dead_chains();
    check_transpose_views();
    return std::move(plan_);
  }

 private:
  struct Definition {
    const ir::StmtNode* stmt = nullptr;
    const ir::Expr* value = nullptr;
    std::size_t block = 0;
  };
  struct Site {
    const ir::StmtNode* stmt = nullptr;
    const ir::Call* call = nullptr;
    std::size_t block = 0;
    const ir::StmtNode* fused_store = nullptr;
  };
  // Which routes a chain member was given by the matmuls that read it.
  struct Routes {
    bool whole = false;
    bool per_page = false;
  };

  // ---- the walk ------------------------------------------------------------------------
  void block(const ir::Stmt& body) {
    if (!body) return;
    const std::size_t id = blocks_++;
    if (auto* seq = ir::as<ir::Seq>(body)) {
      for (std::size_t i = 0; i < seq->stmts.size(); ++i)
        statement(seq->stmts[i], id, i + 1 < seq->stmts.size() ? &seq->stmts[i + 1] : nullptr);
    } else {
      statement(body, id, nullptr);
    }
  }

  void statement(const ir::Stmt& s, std::size_t id, const ir::Stmt* next) {
    if (auto* a = ir::as<ir::Assign>(s)) {
      defs_[a->var.get()] = {s.get(), &a->value, id};
      auto* call = ir::as<ir::Call>(a->value);
      if (!call) return;
      const OpIds& op = op_ids();
      if (call->callee.op == op.transpose_view) views_.push_back(a->var.get());
      const bool plain = call->callee.op == op.batch_matmul;
      if (!plain && call->callee.op != op.batch_matmul_acc) return;
      // The lhs and rhs operands; an accumulator is not a Mat operand chain.
      for (std::size_t i = plain ? 0 : 1; i < (plain ? 2u : 3u) && i < call->args.size(); ++i) {
        const ir::ExprNode* v = call->args[i].get();
        ++operand_reads_[v];
        if (auto d = defs_.find(v); d != defs_.end() && d->second.block == id) ++operand_uses_[v];
      }
      sites_.push_back({s.get(), call, id, plain && next ? fused_store(*a, *next) : nullptr});
      return;
    }
    if (auto* f = ir::as<ir::For>(s)) return block(f->body);
    if (auto* w = ir::as<ir::While>(s)) return block(w->body);
    if (auto* i = ir::as<ir::If>(s)) {
      block(i->then_body);
      return block(i->else_body);
    }
    if (auto* scope = ir::as<ir::Scope>(s)) block(scope->body);
  }

  // FL-57: `v = tile.batch_matmul(…)` directly followed by `s = tile.store(v, offsets, out)`,
  // where that store is v's only reader (anything else would need v itself).
  const ir::StmtNode* fused_store(const ir::Assign& mm, const ir::Stmt& next) const {
    auto* a = ir::as<ir::Assign>(next);
    auto* st = a ? ir::as<ir::Call>(a->value) : nullptr;
    if (!st || st->callee.op != op_ids().store || st->args.size() != 3 || st->args[0] != mm.var) return nullptr;
    if (!ir::as<ir::MakeTuple>(st->args[1]) || !ir::tensor_type(st->args[2])) return nullptr;
    return use_count(mm.var.get()) == 1 ? next.get() : nullptr;
  }

  // ---- routing ---------------------------------------------------------------------------
  const Definition* definition(const ir::ExprNode* v) const {
    auto it = defs_.find(v);
    return it == defs_.end() ? nullptr : &it->second;
  }
  const ir::Call* defining_call(const ir::ExprNode* v, ir::OpId op) const {
    const Definition* d = definition(v);
    auto* c = d ? ir::as<ir::Call>(*d->value) : nullptr;
    return c && c->callee.op == op && !c->args.empty() ? c : nullptr;
  }
  std::uint32_t use_count(const ir::ExprNode* v) const {
    auto it = uses_.find(v);
    return it == uses_.end() ? 0 : it->second;
  }

  // FL-50: the view and the natural load under an operand. The view is found wherever it
  // is (it decides how a page is addressed); the load only in the matmul's own block, as
  // every pre-scan of the rewrite is per block (FL-47): an operand loaded outside a loop is
  // sliced from its whole tile inside it.
  OperandPlan describe(const ir::Expr& operand, std::size_t block) const {
    OperandPlan p;
    const ir::ExprNode* v = operand.get();
    for (const Definition* d = definition(v); d && is_batch_only_reshape(*d->value); d = definition(v))
      v = ir::as<ir::Call>(*d->value)->args[0].get();
    if (const ir::Call* view = defining_call(v, op_ids().transpose_view)) {
      p.transposed = true;
      v = view->args[0].get();
    }
    const Definition* d = definition(v);
    if (d && d->block == block && defining_call(v, op_ids().load) && can_load_per_page(*ir::as<ir::Call>(*d->value))) {
      p.load_var = v;
      p.load = d->value;
      p.load_stmt = d->stmt;
    }
    return p;
  }

  // A load the lowering can issue again one page at a time: a window of an ND tensor (only
  // row-major leading axes merge into rows of a 2D view) spelled with one literal entry per
  // tensor axis, whose two matrix extents are static.
  static bool can_load_per_page(const ir::Call& load) {
    auto* tensor = ir::tensor_type(load.args[0]);
    if (!tensor || tensor->shape.size() < 2 || load.args.size() < 3) return false;
    if (tensor->view && tensor->view->layout != ir::TensorLayout::ND) return false;
    auto* offsets = ir::as<ir::MakeTuple>(load.args[1]);
    auto* shapes = ir::as<ir::MakeTuple>(load.args[2]);
    if (!offsets || !shapes || offsets->elements.size() != tensor->shape.size() ||
        shapes->elements.size() != tensor->shape.size())
      return false;
    return ir::static_dims(shapes->elements).has_value();
  }

  // BK-01: both operands' whole tiles fit Mat together. Unknown sizes fit (as upstream).
  bool operands_fit(const ir::Expr& lhs, const ir::Expr& rhs) const {
    if (mat_.is_unlimited()) return true;
    std::uint64_t total = 0;
    for (const ir::Expr* e : {&lhs, &rhs}) {
      auto* t = ir::tile_type(*e);
      auto dims = t ? ir::static_dims(t->shape) : std::nullopt;
      if (!dims) return true;
      std::int64_t count = 1;
      for (std::int64_t d : *dims) count *= d;
      auto bytes = math::static_storage_bytes(count, t->dtype);
      if (!bytes) return true;
      total += static_cast<std::uint64_t>(*bytes);
    }
    return mat_.fits(total);
  }

  void route(const Site& s) {
    const bool plain = s.call->callee.op == op_ids().batch_matmul;
    const std::size_t l = plain ? 0 : 1;
    if (s.call->args.size() < l + 2) return;
    const ir::Expr& lhs = s.call->args[l];
    const ir::Expr& rhs = s.call->args[l + 1];
    const bool fit = operands_fit(lhs, rhs);
    BatchMatmulSite site{s.call, describe(lhs, s.block), describe(rhs, s.block), s.fused_store};
    for (auto [operand, plan] : {std::pair{&lhs, &site.lhs}, std::pair{&rhs, &site.rhs}}) {
      plan->per_page = plan->load && !(fit && whole_load_is_row_band(*ir::as<ir::Call>(*plan->load)));
      mark_chain(operand->get(), plan->per_page);
    }
    if (s.fused_store) plan_.dropped.emplace(s.fused_store, DroppedKind::fused_store);
    plan_.sites.emplace(s.stmt, site);
  }

  // The operand and the views / reshapes it was made through share its route.
  void mark_chain(const ir::ExprNode* v, bool per_page) {
    const OpIds& op = op_ids();
    while (v) {
      Routes& r = routes_[v];
      (per_page ? r.per_page : r.whole) = true;
      const ir::Call* c = defining_call(v, op.transpose_view);
      if (!c) c = defining_call(v, op.reshape);
      v = c && ir::is_var_like(c->args[0]) ? c->args[0].get() : nullptr;
    }
  }

  // FL-55: an operand every one of whose reads is a matmul operand of its own block
  // ("batch_matmul-only"), together with the single-use views, safe reshapes and loads it
  // is made from in that block. Reshapes among them are read through (FL-37); the rest is
  // dropped when every matmul reading it re-loads it per page.
  void drop_dead_chains() {
    std::vector<const ir::ExprNode*> work;
    std::unordered_map<const ir::ExprNode*, bool> member;
    for (const auto& [v, n] : operand_uses_)
      if (n == use_count(v) && member.emplace(v, true).second) work.push_back(v);
    while (!work.empty()) {
      const ir::ExprNode* v = work.back();
      work.pop_back();
      const Definition* d = definition(v);
      auto* c = ir::as<ir::Call>(*d->value);
      if (!c || c->args.empty() || !ir::is_var_like(c->args[0])) continue;
      if (c->callee.op != op_ids().transpose_view && !is_batch_only_reshape(*d->value)) continue;
      const ir::ExprNode* input = c->args[0].get();
      const Definition* in = definition(input);
      if (in && in->block == d->block && use_count(input) == 1 && member.emplace(input, true).second)
        work.push_back(input);
    }
    for (const auto& [v, _] : member) {
      const Definition* d = definition(v);
      if (names_no_memory(*d->value)) plan_.loads_promoted_to_mat.insert(d->stmt);
      if (is_batch_only_reshape(*d->value)) {
        plan_.dropped.emplace(d->stmt, DroppedKind::peeled_reshape);
        continue;
      }
      auto r = routes_.find(v);
      if (r != routes_.end() && r->second.per_page && !r->second.whole)
        plan_.dropped.emplace(d->stmt, DroppedKind::dead_operand);
    }
  }

  // FL-17: a >2D tile.load that names no target memory, into a tile not already in Mat.
  static bool names_no_memory(const ir::Expr& value) {
    auto* call = ir::as<ir::Call>(value);
    auto* t = ir::tile_type(value);
    return call && t && call->callee.op == op_ids().load && t->shape.size() > 2 &&
           !ir::find_kwarg(call->kwargs, "target_memory") && t->memory != ir::MemorySpace::Mat;
  }

  // A >2D tile.transpose_view is column-batched once flattened ([K, B*N], not the merged
  // [B*N, K]); only the batched-matmul lowering reads it that way, page by page.
  void check_transpose_views() const {
    std::unordered_map<const ir::ExprNode*, std::uint32_t> read_through;  // by peeled reshapes
    for (const auto& [stmt, kind] : plan_.dropped) {
      if (kind != DroppedKind::peeled_reshape) continue;
      ++read_through[ir::as<ir::Call>(std::get<ir::Assign>(stmt->v).value)->args[0].get()];
    }
    for (const ir::ExprNode* v : views_) {
      const ir::Call* view = defining_call(v, op_ids().transpose_view);
      auto* input = view ? ir::tile_type(view->args[0]) : nullptr;
      if (!input || input->shape.size() <= 2) continue;
      auto reads = [](const auto& table, const ir::ExprNode* x) -> std::uint32_t {
        auto it = table.find(x);
        return it == table.end() ? 0 : it->second;
      };
      if (reads(operand_reads_, v) + reads(read_through, v) != use_count(v))
        ir::throw_user_error(std::string(pass_name),
                             "tile.transpose_view of the >2D tile " + dims_text(input->shape) +
                                 " is only lowered as a tile.batch_matmul operand: flattened, its batches sit side "
                                 "by side in columns, which no other op reads as pages. Transpose each 2D page "
                                 "instead (tile.transpose on the last two axes), or feed the view straight to "
                                 "tile.batch_matmul",
                             definition(v)->stmt->span);
    }
  }

  math::byte_budget mat_;
  rewrite::use_count_table uses_;
  std::size_t blocks_ = 0;
  std::unordered_map<const ir::ExprNode*, Definition> defs_;
  std::unordered_map<const ir::ExprNode*, std::uint32_t> operand_uses_;   // in the defining block
  std::unordered_map<const ir::ExprNode*, std::uint32_t> operand_reads_;  // anywhere
  std::unordered_map<const ir::ExprNode*, Routes> routes_;
  std::vector<Site> sites_;
  std::vector<const ir::ExprNode*> views_;  // tile.transpose_view results, in program order
  BatchMatmulPlan plan_;
};

}  // namespace tilewright::passes::flatten
