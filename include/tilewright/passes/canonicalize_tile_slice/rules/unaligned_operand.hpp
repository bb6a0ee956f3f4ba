#pragma once
// CT-12: a Vec slice read by any other op must start on a 32-byte boundary (issue #1789): an
// FP32 column slice at [:, 1:2] starts 4 bytes into its source, and a vector op reading it as
// a zero-copy view can hang the device. Each operand whose alignment is not proven
// (alignment.hpp) is replaced by a fresh tile.extract, which gets an aligned allocation;
// provably aligned slices stay zero-copy.
//   head = slice(local, [16, 1], [0, 1]);  y = muls(head, 0.5)
//   → head_textract = extract(local, 0, 1, [16, 1], target_memory=Vec);  y = muls(head_textract,
//   0.5)
// Assignments and bare statements alike (pl.tile.store(s, …), pld.tile.remote_store(s, …)).
// A tile.slice operand is only another view (it is peeled instead), and tile.extract has its
// own rule (CT-08).
#include "tilewright/passes/canonicalize_tile_slice/context.hpp"
#include "tilewright/rewrite/op_set.hpp"
#include "tilewright/rewrite/rule.hpp"

namespace tilewright::passes::canonicalize {

struct UnalignedOperandCopy {
  static constexpr std::string_view name = "copy-unaligned-vec-operand";
  // Every call: ops, and functions of the program too — a callee reads its tile arguments
  // with the same vector instructions.
  static constexpr auto roots = rewrite::any_stmt;

  ir::Stmt apply(CanonicalizeContext& ctx, rewrite::Rewriter& rw, const ir::Stmt& stmt) const {
    const ir::Call* call = ir::stmt_call(stmt);
    if (!call || rewrite::op_set<"tile.slice", "tile.extract">::contains(call->callee.op))
      return nullptr;
    return ctx.copy_operands(rw, stmt,
                             [&](std::size_t, const Slice& s) -> std::optional<ir::MemorySpace> {
                               if (ctx.needs_aligned_copy(s)) return ir::MemorySpace::Vec;
                               return std::nullopt;
                             });
  }
};

}  // namespace tilewright::passes::canonicalize
