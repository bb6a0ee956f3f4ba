#pragma once
// Printer for PyPTO's `pl` text: emits the raw printer layout byte for byte
// (shared/spec/text_format.md §0.1, §1–§5). No ruff formatting is applied: 4-space indents,
// no blank line between functions, no trailing newline.
//
//   std::string print(const ir::Program&)   whole module: header, pl.dynamic lines, class
//   std::string print(const ir::Program&, const ops::Registry&)
//                                           the same, calls spelled by that registry's rows
//                                           (a downstream op's TextForm; the default is the
//                                           built-in catalog)
//   std::string print(const ir::Function&)  bare function: no header, no `self`, bare calls
//   std::string print(const ir::Stmt&)      one statement, names as hinted
//   std::string print(const ir::Type&)      one annotation
//   std::string print(const ir::Expr&)      one expression
//
// Cost is linear in the size of the IR: every function is scanned once to build its name
// map (§5.2) and its dynamic-dimension candidates (§5.3), then printed once into a single
// reserved buffer.
//
// One Printer class, its forms defined by concept in text/print/: spelling (numbers, strings,
// enum and op spellings), names (the per-function scan and dynamic dimensions), types,
// expressions, calls, statements, functions. printer_class.hpp declares them all.
//
// Representation conventions this printer relies on (docs/ir.md):
//  * `pl.submit(self.k, ...)` / `pl.spmd_submit(...)` is a Call whose Callee carries both the
//    op (`submit` / `spmd_submit`) and the function name (`k`).
//  * Scope params hold the kwargs as written; strings print double-quoted, `EnumText`
//    verbatim, and an Expr under `predicate` in parentheses.
#include <string>

#include "tilewright/config.hpp"
#include "tilewright/ir/function.hpp"
#include "tilewright/ops/registry.hpp"

namespace tilewright::text {

TILEWRIGHT_API std::string print(const ir::Program& program);
TILEWRIGHT_API std::string print(const ir::Program& program, const ops::Registry& registry);
TILEWRIGHT_API std::string print(const ir::Function& function);
TILEWRIGHT_API std::string print(const ir::Stmt& stmt);
TILEWRIGHT_API std::string print(const ir::Type& type);
TILEWRIGHT_API std::string print(const ir::Expr& expr);

}  // namespace tilewright::text

#if TILEWRIGHT_DEFINITIONS
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tilewright/ir/function.hpp"
#include "tilewright/text/print/calls.hpp"
#include "tilewright/text/print/expressions.hpp"
#include "tilewright/text/print/functions.hpp"
#include "tilewright/text/print/names.hpp"
#include "tilewright/text/print/printer_class.hpp"
#include "tilewright/text/print/statements.hpp"
#include "tilewright/text/print/types.hpp"

namespace tilewright::text {

namespace printer_detail {

inline std::size_t reserve_for(std::size_t nodes) { return 1024 + nodes * 48; }

}  // namespace printer_detail

// ---- public API ----------------------------------------------------------------------------

TILEWRIGHT_API std::string print(const ir::Program& program) {
  return print(program, ops::builtin_registry());
}

TILEWRIGHT_API std::string print(const ir::Program& program, const ops::Registry& registry) {
  using namespace printer_detail;
  const ir::ProgramNode& p = *program;
  const std::string name = p.name.empty() ? std::string("Program") : p.name;

  // Functions are kept in name order; scan each once.
  std::vector<FunctionScan> scans(p.functions.size());
  std::vector<const FunctionScan*> scan_ptrs;
  std::unordered_map<std::string_view, std::size_t> index;
  std::size_t nodes = 0;
  for (std::size_t i = 0; i < p.functions.size(); ++i) {
    scans[i].scan(*p.functions[i]);
    scan_ptrs.push_back(&scans[i]);
    index.emplace(p.functions[i]->name, i);
    nodes += scans[i].node_count;
  }

  // §1.1: callees first, DFS in name order over functions and over each one's callees;
  // a cycle falls back to plain name order.
  std::vector<std::vector<std::size_t>> deps(p.functions.size());
  for (std::size_t i = 0; i < scans.size(); ++i) {
    for (auto callee : scans[i].callees)
      if (auto it = index.find(callee); it != index.end()) deps[i].push_back(it->second);
    auto& d = deps[i];
    std::sort(d.begin(), d.end());
    d.erase(std::unique(d.begin(), d.end()), d.end());
  }
  std::vector<std::size_t> order;
  order.reserve(p.functions.size());
  {
    enum : std::uint8_t { kNew, kActive, kDone };
    std::vector<std::uint8_t> state(p.functions.size(), kNew);
    bool cycle = false;
    // Iterative DFS: call chains may be deep in generated programs.
    for (std::size_t root = 0; root < p.functions.size() && !cycle; ++root) {
      if (state[root] != kNew) continue;
      std::vector<std::pair<std::size_t, std::size_t>> stack{{root, 0}};
      state[root] = kActive;
      while (!stack.empty() && !cycle) {
        auto& [fn, next] = stack.back();
        if (next < deps[fn].size()) {
          std::size_t d = deps[fn][next++];
          if (state[d] == kActive)
            cycle = true;
          else if (state[d] == kNew) {
            state[d] = kActive;
            stack.emplace_back(d, 0);
          }
        } else {
          state[fn] = kDone;
          order.push_back(fn);
          stack.pop_back();
        }
      }
    }
    if (cycle) {
      order.clear();
      for (std::size_t i = 0; i < p.functions.size(); ++i) order.push_back(i);
    }
  }

  Printer pr;
  pr.registry = &registry;
  pr.out.reserve(reserve_for(nodes));
  collect_dyn_names(scan_ptrs, pr.dyn_names, /*declared=*/true);

  pr.out += "# pypto.program: ";
  pr.out += name;
  pr.out += "\nimport pypto.language as pl\n\n";
  if (!pr.dyn_names.empty()) {
    std::vector<std::string_view> dyn;
    dyn.reserve(pr.dyn_names.size());
    for (const auto& kv : pr.dyn_names) dyn.push_back(kv.second);
    std::sort(dyn.begin(), dyn.end());
    pr.declared_dims = dyn;
    for (auto n : dyn) {
      pr.out += n;
      pr.out += " = pl.dynamic(\"";
      pr.out += n;
      pr.out += "\")\n";
    }
    pr.out += '\n';
  }
  pr.out += "@pl.program\nclass ";
  pr.out += name;
  pr.out += ':';
  pr.in_program = true;
  for (std::size_t i : order) pr.function(*p.functions[i], scans[i], 1);
  // A class needs a body to read back; upstream would print none.
  if (order.empty()) pr.out += "\n    pass";
  return std::move(pr.out);
}

TILEWRIGHT_API std::string print(const ir::Function& function) {
  using namespace printer_detail;
  FunctionScan scan;
  scan.scan(*function);
  Printer pr;
  pr.out.reserve(reserve_for(scan.node_count));
  collect_dyn_names({&scan}, pr.dyn_names, /*declared=*/false);
  pr.function(*function, scan, 0);
  return std::move(pr.out);
}

TILEWRIGHT_API std::string print(const ir::Stmt& stmt) {
  printer_detail::Printer pr;
  pr.statement(stmt, 0);
  return std::move(pr.out);
}

TILEWRIGHT_API std::string print(const ir::Type& type) {
  printer_detail::Printer pr;
  pr.type(type);
  return std::move(pr.out);
}

TILEWRIGHT_API std::string print(const ir::Expr& expr) {
  printer_detail::Printer pr;
  pr.expr(expr);
  return std::move(pr.out);
}

}  // namespace tilewright::text
#endif  // TILEWRIGHT_DEFINITIONS
