#pragma once
// Copy-on-write rebuilding. `map_children` applies a mapper to every child of a node and
// rebuilds the node only when some child came back different, so untouched subtrees keep
// their identity and a pass that changes nothing returns the very same objects.
//
// `Mutator` is the generic walker passes start from: it substitutes Vars (minting a new Var
// when a Var's type changes, so every use sees one consistent replacement), and otherwise
// rebuilds bottom-up. Derived classes override the `rewrite_*` hooks.
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tilewright/ir/detail/reflect.hpp"
#include "tilewright/ir/function.hpp"

namespace tilewright::ir {

namespace detail {
template <class T>
inline constexpr bool is_variant = false;
template <class... T>
inline constexpr bool is_variant<std::variant<T...>> = true;

// f(slot) for every child slot of `field` (an Expr, Stmt or Type, also inside kwargs, vectors,
// optionals and nested aggregates), in one fixed order. `field` may be const: the same order
// serves the read-only first pass and the writing second pass of map_children.
template <class T, class F>
void for_each_child_slot(T& field, F& f) {
  using U = std::remove_const_t<T>;
  if constexpr (std::is_same_v<U, Expr> || std::is_same_v<U, Stmt> || std::is_same_v<U, Type>) {
    f(field);
  } else if constexpr (std::is_same_v<U, AttrValue>) {
    if (auto* e = std::get_if<Expr>(&field)) f(*e);
    else if (auto* v = std::get_if<std::vector<Expr>>(&field))
      for (auto& x : *v) f(x);
  } else if constexpr (is_variant<U>) {
    dispatch(field, [&](auto& alternative) { for_each_child_slot(alternative, f); });
  } else if constexpr (std::is_same_v<U, Kwargs>) {
    for (auto& kv : field) for_each_child_slot(kv.second, f);
  } else if constexpr (requires { typename U::value_type; field.begin(); } &&
                       !std::is_same_v<U, std::string>) {
    for (auto& x : field) for_each_child_slot(x, f);
  } else if constexpr (requires { field.has_value(); *field; }) {
    if (field) for_each_child_slot(*field, f);
  } else if constexpr (is_reflected<U>) {
    for_each_field(field, [&](const char*, auto& sub) { for_each_child_slot(sub, f); });
  }
}

// The children a mapper changed, by their ordinal in the visiting order, waiting to be written
// into the node's copy. One stack per thread is shared by the nested map_children calls of a
// walk: a call pushes above the entries of the calls it is nested in and pops its own before
// it returns, so once the stack has grown to the walk's depth nothing is allocated for nodes
// that do not change.
struct changed_children {
  template <class C>
  struct entry {
    std::uint32_t ordinal;
    C value;
  };
  std::vector<entry<Expr>> exprs;
  std::vector<entry<Stmt>> stmts;
  std::vector<entry<Type>> types;

  template <class C>
  std::vector<entry<C>>& of() noexcept {
    if constexpr (std::is_same_v<C, Expr>) return exprs;
    else if constexpr (std::is_same_v<C, Stmt>) return stmts;
    else return types;
  }
  static changed_children& of_this_thread() {
    thread_local changed_children stack;
    return stack;
  }
};

// Pops what one map_children call pushed, also when its mapper throws.
struct changed_children_frame {
  changed_children& stack;
  std::size_t exprs, stmts, types;
  explicit changed_children_frame(changed_children& s) noexcept
      : stack(s), exprs(s.exprs.size()), stmts(s.stmts.size()), types(s.types.size()) {}
  changed_children_frame(const changed_children_frame&) = delete;
  changed_children_frame& operator=(const changed_children_frame&) = delete;
  ~changed_children_frame() {
    stack.exprs.resize(exprs);
    stack.stmts.resize(stmts);
    stack.types.resize(types);
  }
  [[nodiscard]] bool empty() const noexcept {
    return stack.exprs.size() == exprs && stack.stmts.size() == stmts && stack.types.size() == types;
  }
};
}  // namespace detail

// Applies `m` to each child (Expr, Stmt, Type, also inside kwargs, vectors, optionals and
// nested aggregates). Returns the rebuilt copy, or nullopt when nothing changed. The node is
// copied only when a child changed: an unchanged walk compares and allocates nothing.
template <class T, class M>
std::optional<T> map_children(const T& node, M&& m) {
  auto& stack = detail::changed_children::of_this_thread();
  detail::changed_children_frame frame{stack};
  std::uint32_t ordinal = 0;
  auto collect = [&](const auto& child) {
    using C = std::remove_cvref_t<decltype(child)>;
    if (child) {
      C next = m(child);
      if (next != child) stack.of<C>().push_back({ordinal, std::move(next)});
    }
    ++ordinal;
  };
  detail::for_each_child_slot(node, collect);
  if (frame.empty()) return std::nullopt;

  std::optional<T> copy(node);
  ordinal = 0;
  std::size_t next_expr = frame.exprs, next_stmt = frame.stmts, next_type = frame.types;
  auto write = [&](auto& child) {
    using C = std::remove_cvref_t<decltype(child)>;
    auto& changed = stack.of<C>();
    std::size_t& i = std::is_same_v<C, Expr> ? next_expr : std::is_same_v<C, Stmt> ? next_stmt : next_type;
    if (i < changed.size() && changed[i].ordinal == ordinal) child = std::move(changed[i++].value);
    ++ordinal;
  };
  detail::for_each_child_slot(*copy, write);
  return copy;
}

template <class Derived>
class Mutator {
 public:
  Expr operator()(const Expr& e) { return self().mutate_expr(e); }
  Stmt operator()(const Stmt& s) { return self().mutate_stmt(s); }
  Type operator()(const Type& t) { return self().mutate_type(t); }

  // Every later use of `from` becomes `to`.
  void substitute(const Expr& from, Expr to) { remap_[from.get()] = std::move(to); }
  [[nodiscard]] Expr substituted(const Expr& e) const {
    auto it = remap_.find(e.get());
    return it == remap_.end() ? nullptr : it->second;
  }

  Type mutate_type(const Type& t) {
    if (!t) return t;
    auto next = map_children(t->v, self());
    if (!next) return t;
    return dispatch(*next, [](auto& x) -> Type {
      using X = std::decay_t<decltype(x)>;
      if constexpr (std::is_same_v<X, TensorType>)
        return make_tensor_type(x.shape, x.dtype, x.view, x.memref, x.distributed);
      else if constexpr (std::is_same_v<X, TileType>)
        return make_tile_type(x.shape, x.dtype, x.view, x.memory, x.memref);
      else
        return make_type(x);
    });
  }

  Expr mutate_expr(const Expr& e) {
    if (!e) return e;
    if (auto it = remap_.find(e.get()); it != remap_.end()) return it->second;
    if (is_var_like(e) || as<MemRef>(e)) return self().mutate_definition(e);
    Expr rebuilt = rebuild_expr(e);
    return self().rewrite_expr(rebuilt, e);
  }

  // A Var met for the first time: keep it unless its type (or init value) changes, in
  // which case one new Var replaces it everywhere.
  Expr mutate_definition(const Expr& e) {
    Type type = self().mutate_type(e->type);
    auto fields = map_children(e->v, self());
    if (type == e->type && !fields) return e;
    Expr fresh = make_expr(fields ? std::move(*fields) : e->v, std::move(type), e->span);
    remap_[e.get()] = fresh;
    return fresh;
  }

  Expr rebuild_expr(const Expr& e) {
    auto fields = map_children(e->v, self());
    Type type = self().mutate_type(e->type);
    if (!fields && type == e->type) return e;
    return make_expr(fields ? std::move(*fields) : e->v, std::move(type), e->span);
  }

  Stmt mutate_stmt(const Stmt& s) {
    if (!s) return s;
    Stmt rebuilt = rebuild_stmt(s);
    return self().rewrite_stmt(rebuilt, s);
  }

  Stmt rebuild_stmt(const Stmt& s) {
    auto fields = map_children(s->v, self());
    if (!fields) return s;
    if (auto* seq = std::get_if<Seq>(&*fields)) return make_seq(std::move(seq->stmts), s->span);
    return make_stmt(std::move(*fields), s->span, s->comments);
  }

  Function mutate_function(const Function& f) {
    // Copied on the first change only: a function that stays the same allocates nothing.
    std::optional<FunctionNode> copy;
    auto edit = [&]() -> FunctionNode& {
      if (!copy) copy.emplace(*f);
      return *copy;
    };
    for (std::size_t i = 0; i < f->params.size(); ++i) {
      Expr next = self().mutate_expr(f->params[i].var);
      if (next != f->params[i].var) edit().params[i].var = std::move(next);
    }
    for (std::size_t i = 0; i < f->return_types.size(); ++i) {
      Type next = self().mutate_type(f->return_types[i]);
      if (next != f->return_types[i]) edit().return_types[i] = std::move(next);
    }
    Stmt body = self().mutate_stmt(f->body);
    if (body != f->body) edit().body = std::move(body);
    return copy ? make_function(std::move(*copy)) : f;
  }

  // Hooks: called after children were rebuilt; `original` is the node before.
  Expr rewrite_expr(const Expr& rebuilt, const Expr& /*original*/) { return rebuilt; }
  Stmt rewrite_stmt(const Stmt& rebuilt, const Stmt& /*original*/) { return rebuilt; }

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
  std::unordered_map<const ExprNode*, Expr> remap_;
};

// A mutator with no overrides: the identity walk every pass is measured against.
struct IdentityMutator : Mutator<IdentityMutator> {};

}  // namespace tilewright::ir
