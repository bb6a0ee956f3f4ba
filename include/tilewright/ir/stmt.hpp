#pragma once
// The statement family.
#include <algorithm>
#include <boost/hana/define_struct.hpp>
#include <variant>
#include <vector>

#include "tilewright/ir/expr.hpp"

namespace tilewright::ir {

struct Assign {
  BOOST_HANA_DEFINE_STRUCT(Assign, (Expr, var), (Expr, value));
};
struct Eval {
  BOOST_HANA_DEFINE_STRUCT(Eval, (Expr, expr));
};
struct Seq {
  BOOST_HANA_DEFINE_STRUCT(Seq, (std::vector<Stmt>, stmts));
};
// `return_vars` are the values the branches yield (phi outputs); `else_body` may be null.
struct If {
  BOOST_HANA_DEFINE_STRUCT(If, (Expr, cond), (Stmt, then_body), (Stmt, else_body),
                           (std::vector<Expr>, return_vars));
};
struct For {
  BOOST_HANA_DEFINE_STRUCT(For, (Expr, loop_var), (Expr, start), (Expr, stop), (Expr, step),
                           (std::vector<Expr>, iter_args), (Stmt, body),
                           (std::vector<Expr>, return_vars), (ForKind, kind), (Kwargs, attrs));
};
struct While {
  BOOST_HANA_DEFINE_STRUCT(While, (std::vector<Expr>, iter_args), (Expr, cond), (Stmt, body),
                           (std::vector<Expr>, return_vars));
};
struct Yield {
  BOOST_HANA_DEFINE_STRUCT(Yield, (std::vector<Expr>, values));
};
struct Return {
  BOOST_HANA_DEFINE_STRUCT(Return, (std::vector<Expr>, values));
};
struct Break {
  BOOST_HANA_DEFINE_STRUCT(Break);
};
struct Continue {
  BOOST_HANA_DEFINE_STRUCT(Continue);
};

// `with pl.<kind>(params) [as bound]:` and the loop-shaped scope forms. None of the four
// passes looks inside a scope's parameters, so they are kept as the printed kwargs.
enum class ScopeKind : std::uint8_t { at, cluster, spmd, scope, manual_scope, spmd_for, split_aiv };
struct Scope {
  BOOST_HANA_DEFINE_STRUCT(Scope, (ScopeKind, kind), (std::vector<Expr>, args), (Kwargs, params),
                           (Expr, bound), (Stmt, body));
};

struct StmtNode {
  using Variant = std::variant<Assign, Eval, Seq, If, For, While, Yield, Return, Break, Continue, Scope>;
  Variant v;
  Span span;
  Comments comments;
};

template <class T>
const T* as(const Stmt& s) noexcept {
  return s ? std::get_if<T>(&s->v) : nullptr;
}

// A statement with no statements nested in it: its children are expressions only.
inline bool is_leaf_stmt(const Stmt& s) noexcept {
  return as<Assign>(s) || as<Eval>(s) || as<Yield>(s) || as<Return>(s) || as<Break>(s) || as<Continue>(s);
}

// Every statement node is made here, as a non-const object reached through const pointers:
// nodes are immutable once shared, but the sole owner of a fresh one may still change it in
// place (unique_list), which a node created const would forbid.
inline Stmt make_stmt(StmtNode node) { return std::make_shared<StmtNode>(std::move(node)); }
inline Stmt make_stmt(StmtNode::Variant v, Span span = {}, Comments comments = {}) {
  return make_stmt(StmtNode{std::move(v), std::move(span), std::move(comments)});
}

// The statements of list `s` for its sole owner to edit in place, or null when `s` is not a
// list or another reference to it exists (then it may be seen elsewhere, and is immutable).
// Editing moves the statements' references without touching the statements themselves: on
// a large body, copying the list instead reads every statement's reference count, a cache
// miss each.
inline std::vector<Stmt>* unique_list(Stmt& s) noexcept {
  if (!s || s.use_count() != 1) return nullptr;
  auto* seq = std::get_if<Seq>(&const_cast<StmtNode&>(*s).v);  // made non-const by make_stmt
  return seq ? &seq->stmts : nullptr;
}

// Statement lists are flattened one level so that nested blocks never hide statements
// from a linear walk: a list without comments of its own is spliced into the list holding it.
inline bool splices_into_list(const Stmt& s) noexcept { return as<Seq>(s) && s->comments.lines.empty(); }

// Appends `s` to the statements of a list as make_seq places it: spliced when it is a list
// without comments, skipped when null.
inline void append_flattened(std::vector<Stmt>& out, Stmt s) {
  if (splices_into_list(s)) {
    const auto& inner = as<Seq>(s)->stmts;
    out.insert(out.end(), inner.begin(), inner.end());
  } else if (s) {
    out.push_back(std::move(s));
  }
}

inline Stmt make_seq(std::vector<Stmt> stmts, Span span = {}) {
  // Already flat, the common case: the list is taken as it is rather than copied.
  if (std::none_of(stmts.begin(), stmts.end(), [](const Stmt& s) { return !s || splices_into_list(s); }))
    return make_stmt(Seq{std::move(stmts)}, std::move(span));
  std::vector<Stmt> flat;
  flat.reserve(stmts.size());
  for (auto& s : stmts) append_flattened(flat, std::move(s));
  return make_stmt(Seq{std::move(flat)}, std::move(span));
}

// The statements of a body, whether it is a Seq or a single statement.
inline std::vector<Stmt> body_stmts(const Stmt& body) {
  if (!body) return {};
  if (auto* seq = as<Seq>(body)) return seq->stmts;
  return {body};
}

// The statement that closes a block: its last one, looking through trailing `with pl.scope()`
// blocks, which are transparent to Python's names (a loop body may end inside one).
inline const Stmt* closing_stmt(const Stmt& body) {
  const Stmt* at = &body;
  while (*at) {
    if (auto* seq = as<Seq>(*at)) {
      if (seq->stmts.empty()) return nullptr;
      at = &seq->stmts.back();
    } else if (auto* sc = as<Scope>(*at); sc && (sc->kind == ScopeKind::scope || sc->kind == ScopeKind::manual_scope)) {
      at = &sc->body;
    } else {
      return at;
    }
  }
  return nullptr;
}
inline const Yield* closing_yield(const Stmt& body) {
  const Stmt* last = closing_stmt(body);
  return last ? as<Yield>(*last) : nullptr;
}

}  // namespace tilewright::ir
