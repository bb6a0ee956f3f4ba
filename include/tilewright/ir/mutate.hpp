#pragma once
// Copy-on-write rebuilding. `map_children` applies a mapper to every child of a node and
// rebuilds the node only when some child came back different, so untouched subtrees keep
// their identity and a pass that changes nothing returns the very same objects.
//
// `Mutator` is the generic walker passes start from: it substitutes Vars (minting a new Var
// when a Var's type changes, so every use sees one consistent replacement), and otherwise
// rebuilds bottom-up. Derived classes override the `rewrite_*` hooks.
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

template <class M>
struct ChildMapper {
  M& m;
  bool changed = false;

  template <class T>
  void apply(T& field) {
    if constexpr (std::is_same_v<T, Expr> || std::is_same_v<T, Stmt> || std::is_same_v<T, Type>) {
      if (!field) return;
      auto next = m(field);
      if (next != field) { field = std::move(next); changed = true; }
    } else if constexpr (std::is_same_v<T, AttrValue>) {
      if (auto* e = std::get_if<Expr>(&field)) apply(*e);
      else if (auto* v = std::get_if<std::vector<Expr>>(&field)) apply(*v);
    } else if constexpr (is_variant<T>) {
      dispatch(field, [&](auto& alternative) { apply(alternative); });
    } else if constexpr (std::is_same_v<T, Kwargs>) {
      for (auto& kv : field) apply(kv.second);
    } else if constexpr (requires { typename T::value_type; field.begin(); } &&
                         !std::is_same_v<T, std::string>) {
      for (auto& x : field) apply(x);
    } else if constexpr (requires { field.has_value(); *field; }) {
      if (field) apply(*field);
    } else if constexpr (is_reflected<T>) {
      for_each_field(field, [&](const char*, auto& f) { apply(f); });
    }
  }
};
}  // namespace detail

// Applies `m` to each child (Expr, Stmt, Type, also inside kwargs, vectors, optionals and
// nested aggregates). Returns the rebuilt copy, or nullopt when nothing changed.
template <class T, class M>
std::optional<T> map_children(const T& node, M&& m) {
  T copy = node;
  detail::ChildMapper<std::remove_reference_t<M>> mapper{m};
  mapper.apply(copy);
  if (!mapper.changed) return std::nullopt;
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
    FunctionNode copy = *f;
    bool changed = false;
    for (auto& p : copy.params) {
      Expr next = self().mutate_expr(p.var);
      changed |= next != p.var;
      p.var = next;
    }
    for (auto& t : copy.return_types) {
      Type next = self().mutate_type(t);
      changed |= next != t;
      t = next;
    }
    Stmt body = self().mutate_stmt(copy.body);
    changed |= body != copy.body;
    copy.body = body;
    return changed ? make_function(std::move(copy)) : f;
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
