#pragma once
// FlattenTileNdTo2D's expansion budget (issue 10): how many statements the lowerings of a
// function emit, and which tiles they allocate themselves, worked out before anything is
// rewritten.
//
// Three lowerings unroll a static batch at compile time and so grow with a tile's shape,
// not with the program's text: a >2D tile.transpose (two allocations, then four statements
// per page), a tile.batch_matmul / tile.batch_matmul_acc (per output page: the two operand
// pages, the product, and what the result needs), and the drain of a column-packed
// accumulator (a slice and a store per page). A `[1048576, 16, 8]` transpose is one line of
// text and four million statements; without a budget the rewrite runs until memory runs
// out. So the statements of a function's lowerings are counted against a budget the caller
// sets (PassContext::max_expansion, `--max-expansion=N`; 1,000,000 by default, 0 for none).
// The count is exactly what the rules emit (a test holds them to it): a kernel within the
// budget is never refused, and one over it is refused with the op, its pages, its count and
// the budget.
//
// With a backend, the tiles the lowerings allocate themselves — a transpose's result and
// scratch (in the input's memory, Vec when unset), a batched matmul's Vec tile of assembled
// pages — must fit the memory they are put in: a tile the pass would create that no
// allocation can place is the pass's mistake to refuse, not the allocator's to find later.
// Tiles the kernel itself makes are left to the allocator (AllocateMemoryAddr, catalog BK-05,
// as upstream; its corpus lowers a 512 KiB Vec tile.move on Ascend910B), and a packed
// accumulator is held to L0C by its own rule (BK-02).
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tilewright/backend/backend.hpp"
#include "tilewright/ops/deduce.hpp"
#include "tilewright/ops/tile_matmul.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/acc_packing.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/batch_geometry.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/batch_matmul_plan.hpp"

namespace tilewright::passes::flatten {

namespace detail {

inline constexpr std::uint64_t saturated = std::numeric_limits<std::uint64_t>::max();

constexpr std::uint64_t add_sat(std::uint64_t a, std::uint64_t b) noexcept {
  return a > saturated - b ? saturated : a + b;
}
constexpr std::uint64_t mul_sat(std::uint64_t a, std::uint64_t b) noexcept {
  return b != 0 && a > saturated / b ? saturated : a * b;
}

// A tile a lowering allocates: [rows, cols] of `dtype` in `memory`.
struct Allocation {
  std::string role;  // "result", "scratch pool", …
  std::uint64_t rows = 0;
  std::uint64_t cols = 0;
  ir::DataType dtype = ir::DataType::FP32;
  ir::MemorySpace memory = ir::MemorySpace::Vec;

  [[nodiscard]] std::uint64_t bytes() const {
    const std::uint64_t elements = mul_sat(rows, cols);
    const std::uint64_t bits = mul_sat(elements, static_cast<std::uint64_t>(ir::storage_bits(dtype)));
    return bits == saturated ? saturated : (bits + 7) / 8;
  }
};

// One statement's lowering: how many statements replace it, what it allocates, how to say it.
struct Expansion {
  std::uint64_t statements = 0;  // 0: rewritten one for one
  std::uint64_t pages = 0;
  std::string what;  // "tile.transpose of the [2, 3, 8] FP32 tile"
  std::vector<Allocation> allocations;
};

inline std::string count_text(std::uint64_t n) { return n == saturated ? std::string("more than 2^64") : std::to_string(n); }

class ExpansionCounter {
 public:
  ExpansionCounter(const BatchMatmulPlan& plan, const AccPacking& packing) : plan_(plan), packing_(packing) {}

  [[nodiscard]] Expansion of(const ir::Stmt& s) const {
    const ir::Call* call = ir::stmt_call(s);
    if (!call) return {};
    const OpIds& op = op_ids();
    if (const BatchMatmulSite* site = plan_.site(s.get())) return batch_matmul(s, *site);
    if (call->callee.op == op.transpose) return transpose(*call);
    if (call->callee.op == op.store && !call->args.empty())
      if (const AccPack* pack = packing_.of(call->args[0].get()))
        return {mul_sat(2, static_cast<std::uint64_t>(pack->pages)), static_cast<std::uint64_t>(pack->pages),
                "the store of a column-packed accumulator", {}};
    return {};
  }

 private:
  // FL-30/FL-32: a scratch tile shaped like the source for a 2D transpose; for a >2D one, the
  // merged result and the scratch pool, then slice, slice, transpose, assemble per page.
  static Expansion transpose(const ir::Call& call) {
    auto* input = call.args.empty() ? nullptr : ir::tile_type(call.args[0]);
    if (!input || input->shape.size() < 2 || call.args.size() != 3) return {};
    auto dims = ir::static_dims(input->shape);
    if (!dims) return {};
    const std::size_t rank = dims->size();
    std::uint64_t pages = 1;
    for (std::size_t i = 0; i + 2 < rank; ++i) pages = mul_sat(pages, static_cast<std::uint64_t>((*dims)[i]));
    const auto rows = static_cast<std::uint64_t>((*dims)[rank - 2]), cols = static_cast<std::uint64_t>((*dims)[rank - 1]);
    const ir::MemorySpace memory = input->memory.value_or(ir::MemorySpace::Vec);
    Expansion e{0, pages, "tile.transpose of the " + dims_text(input->shape) + " " + std::string(ir::name_of(input->dtype)) +
                              " tile", {}};
    if (rank == 2) {
      e.allocations.push_back({"scratch", rows, cols, input->dtype, memory});
      return e;
    }
    e.statements = add_sat(2, mul_sat(4, pages));
    e.allocations.push_back({"result", mul_sat(pages, cols), rows, input->dtype, memory});
    e.allocations.push_back({"scratch pool", mul_sat(pages, rows), cols, input->dtype, memory});
    return e;
  }

  // The statements that make one page of an operand: a slice of its whole tile, or a view
  // and a load (and a transpose_view) of its own (FL-52, FL-54).
  static std::uint64_t operand_page(const OperandPlan& p) { return p.per_page ? (p.transposed ? 3 : 2) : 1; }

  // FL-56…FL-62: the same decisions the rule takes (rules/batch_matmul.hpp).
  Expansion batch_matmul(const ir::Stmt& s, const BatchMatmulSite& site) const {
    const ir::Call& call = *site.call;
    const bool acc = call.callee.op == op_ids().batch_matmul_acc;
    const std::size_t l = acc ? 1 : 0;
    auto* lhs = ir::tile_type(call.args[l]);
    auto* rhs = ir::tile_type(call.args[l + 1]);
    const BatchGeometry g = batch_geometry(*lhs, *rhs, ir::op_name(call.callee.op), s->span);
    const auto pages = static_cast<std::uint64_t>(g.pages);
    const std::uint64_t operands = operand_page(site.lhs) + operand_page(site.rhs);
    Expansion e{0, pages, std::string(ir::op_name(call.callee.op)) + " of " + dims_text(lhs->shape) + " x " +
                              dims_text(rhs->shape), {}};
    std::uint64_t fixed = 0, per_page = 0;
    if (acc) {
      per_page = pages == 1 ? operands + 1 : operands + 3;  // [slice], matmul_acc, [assemble]
    } else if (packing_.of(ir::as<ir::Assign>(s)->var.get())) {
      fixed = 1;  // the packed Acc allocation (held to L0C by BK-02)
      per_page = operands + 3;
    } else {
      auto* result = ir::tile_type(*ir::stmt_call_expr(s));
      const bool cast = ops::deduce::accumulator_dtype(lhs->dtype, rhs->dtype) != result->dtype;
      if (pages == 1 && !site.fused_store && !cast) {
        per_page = operands + 1;
      } else if (site.fused_store) {
        per_page = operands + 1 + (cast ? 2 : 0) + 1;  // matmul, [move, cast], store
      } else {
        fixed = 1;  // the Vec tile the pages are assembled into
        per_page = operands + 2 + (cast ? 1 : 0) + 1;  // matmul, move, [cast], assemble
        e.allocations.push_back({"result", mul_sat(pages, static_cast<std::uint64_t>(g.m)),
                                 static_cast<std::uint64_t>(g.n), result->dtype, ir::MemorySpace::Vec});
      }
    }
    e.statements = add_sat(fixed, mul_sat(per_page, pages));
    return e;
  }

  const BatchMatmulPlan& plan_;
  const AccPacking& packing_;
};

}  // namespace detail

// Throws, at the statement concerned, when a lowering of `f` would allocate a tile larger
// than the memory the backend has for it, or when the lowerings would emit more than
// `budget` statements in all (0: no budget).
inline void check_expansion(const ir::FunctionNode& f, const BatchMatmulPlan& plan, const AccPacking& packing,
                            std::uint64_t budget, const backend::BackendInfo& backend) {
  const detail::ExpansionCounter counter(plan, packing);
  std::uint64_t total = 0;
  ir::for_each_stmt(f.body, [&](const ir::Stmt& s) {
    detail::Expansion e = counter.of(s);
    for (const detail::Allocation& a : e.allocations) {
      const math::byte_budget room = backend.budget(a.memory);
      if (room.fits(a.bytes())) continue;
      const std::string mem(ir::name_of(a.memory));
      ir::throw_user_error(std::string(pass_name),
                           e.what + " is lowered with a [" + detail::count_text(a.rows) + ", " +
                               detail::count_text(a.cols) + "] " + std::string(ir::name_of(a.dtype)) + " " + a.role +
                               " tile of " + detail::count_text(a.bytes()) + " bytes in " + mem + ", but " + mem +
                               " holds " + std::to_string(*room.limit) + " bytes on " + std::string(backend.name) +
                               ": no allocation can place it. Split the work into smaller tiles (pl.range over a "
                               "leading axis, one tile per step)",
                           s->span);
    }
    if (e.statements == 0 || budget == 0) return;
    total = detail::add_sat(total, e.statements);
    if (total <= budget) return;
    std::string message = e.what + " unrolls into " + detail::count_text(e.statements) + " statements (" +
                          std::to_string(e.pages) + (e.pages == 1 ? " page" : " pages") + ", one 2D op each)";
    if (total != e.statements)
      message += ", which brings the lowering of function '" + f.name + "' to " + detail::count_text(total) +
                 " statements";
    message += ": more than the expansion budget of " + std::to_string(budget) +
               " statements. Split the batch (pl.range over a leading axis, one smaller tile per step), or raise "
               "the budget with --max-expansion=N";
    ir::throw_user_error(std::string(pass_name), std::move(message), s->span);
  });
}

}  // namespace tilewright::passes::flatten
