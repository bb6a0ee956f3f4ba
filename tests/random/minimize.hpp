#pragma once
// Delta debugging over statements: the smallest program (by removing statements of the
// kernel's body, loops and branches included) that still shows a difference.
#include <functional>
#include <vector>

#include "tilewright/ir/function.hpp"

namespace tilewright::testgen {

namespace minimize_detail {

// The body with the statements whose positions (pre-order over Seqs) are in `drop` removed.
struct Dropper {
  const std::vector<bool>& drop;
  std::size_t next = 0;
  ir::Stmt stmt(const ir::Stmt& s) {
    if (!s) return s;
    if (auto* q = ir::as<ir::Seq>(s)) {
      std::vector<ir::Stmt> kept;
      for (const auto& x : q->stmts) {
        std::size_t me = next++;
        ir::Stmt y = inner(x);
        if (!drop[me]) kept.push_back(y);
      }
      return ir::make_seq(std::move(kept), s->span);
    }
    return inner(s);
  }
  ir::Stmt inner(const ir::Stmt& s) {
    if (auto* f = ir::as<ir::For>(s)) {
      ir::For g = *f;
      g.body = stmt(f->body);
      return ir::make_stmt(g, s->span);
    }
    if (auto* i = ir::as<ir::If>(s)) {
      ir::If g = *i;
      g.then_body = stmt(i->then_body);
      g.else_body = stmt(i->else_body);
      return ir::make_stmt(g, s->span);
    }
    return s;
  }
};

inline std::size_t count_positions(const ir::Stmt& s) {
  if (!s) return 0;
  std::size_t n = 0;
  if (auto* q = ir::as<ir::Seq>(s))
    for (const auto& x : q->stmts) n += 1 + count_positions(x);
  else if (auto* f = ir::as<ir::For>(s))
    n += count_positions(f->body);
  else if (auto* i = ir::as<ir::If>(s))
    n += count_positions(i->then_body) + count_positions(i->else_body);
  return n;
}

inline ir::Program drop_from(const ir::Program& p, std::size_t fn, const std::vector<bool>& drop) {
  std::vector<ir::Function> fs = p->functions;
  ir::FunctionNode f = *fs[fn];
  Dropper d{drop};
  f.body = d.stmt(f.body);
  fs[fn] = ir::make_function(std::move(f));
  return ir::make_program(p->name, std::move(fs));
}

}  // namespace minimize_detail

// Removes statements of function `function` while `still_fails` holds (ddmin).
inline ir::Program minimize(ir::Program p, const std::string& function,
                            const std::function<bool(const ir::Program&)>& still_fails) {
  using namespace minimize_detail;
  std::size_t fn = 0;
  for (; fn < p->functions.size() && p->functions[fn]->name != function; ++fn) {}
  if (fn == p->functions.size()) return p;
  std::size_t granularity = 2;
  for (int rounds = 0; rounds < 64; ++rounds) {
    std::size_t n = count_positions(p->functions[fn]->body);
    if (n < 2) break;
    granularity = std::min(granularity, n);
    bool reduced = false;
    std::size_t chunk = (n + granularity - 1) / granularity;
    for (std::size_t start = 0; start < n && !reduced; start += chunk) {
      std::vector<bool> drop(n, false);
      for (std::size_t i = start; i < std::min(n, start + chunk); ++i) drop[i] = true;
      ir::Program q = drop_from(p, fn, drop);
      if (still_fails(q)) {
        p = q;
        reduced = true;
        granularity = std::max<std::size_t>(granularity - 1, 2);
      }
    }
    if (!reduced) {
      if (granularity >= n) break;
      granularity = std::min(n, granularity * 2);
    }
  }
  return p;
}

}  // namespace tilewright::testgen
