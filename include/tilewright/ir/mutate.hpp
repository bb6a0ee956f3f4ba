#pragma once
// Copy-on-write rebuilding. `map_children` applies a mapper to every child of a node and
// rebuilds the node only when some child came back different, so untouched subtrees keep
// their identity and a pass that changes nothing returns the very same objects.
//
// `Mutator` is the generic walker passes start from: it substitutes Vars (minting a new Var
// when a Var's type changes, so every use sees one consistent replacement), and otherwise
// rebuilds bottom-up. Derived classes override the `rewrite_*` hooks.
#include <array>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "tilewright/ir/detail/reflect.hpp"
#include "tilewright/ir/function.hpp"
#include "tilewright/ir/node_map.hpp"

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
  } else if constexpr (std::is_same_v<U, BufferRef>) {
    using E = std::conditional_t<std::is_const_v<T>, const Expr, Expr>;
    f(static_cast<E&>(field));
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
// it returns. A call whose children all come back the same never touches it, and once it has
// grown to the walk's depth nothing is allocated for the nodes that do change either.
struct ChangedChildren {
  template <class C>
  struct Entry {
    std::uint32_t ordinal;
    C value;
  };
  std::vector<Entry<Expr>> exprs;
  std::vector<Entry<Stmt>> stmts;
  std::vector<Entry<Type>> types;

  template <class C>
  std::vector<Entry<C>>& of() noexcept {
    if constexpr (std::is_same_v<C, Expr>) return exprs;
    else if constexpr (std::is_same_v<C, Stmt>) return stmts;
    else return types;
  }
  static ChangedChildren& of_this_thread() {
    thread_local ChangedChildren stack;
    return stack;
  }
};

// One map_children call's part of the stack, taken at the first changed child (the calls
// nested in the earlier children have popped theirs by then, so the sizes are those at entry),
// and popped when the call returns, also when its mapper throws.
class ChangedChildrenFrame {
 public:
  ChangedChildrenFrame() = default;
  ChangedChildrenFrame(const ChangedChildrenFrame&) = delete;
  ChangedChildrenFrame& operator=(const ChangedChildrenFrame&) = delete;
  // Inline and nearly free for the common call that changed nothing; the pop is out of line.
  ~ChangedChildrenFrame() {
    if (stack_) pop();
  }

  template <class C>
  void push(std::uint32_t ordinal, C value) {
    if (!stack_) {
      stack_ = &ChangedChildren::of_this_thread();
      base_ = {stack_->exprs.size(), stack_->stmts.size(), stack_->types.size()};
    }
    stack_->of<C>().push_back({ordinal, std::move(value)});
  }
  [[nodiscard]] bool empty() const noexcept { return stack_ == nullptr; }

  // Writes the pushed children into `copy`, visited in the order they were pushed in.
  template <class T>
  void write_into(T& copy) {
    std::uint32_t ordinal = 0;
    std::array<std::size_t, 3> next = base_;
    auto write = [&](auto& child) {
      using C = std::remove_cvref_t<decltype(child)>;
      auto& changed = stack_->of<C>();
      std::size_t& i = next[std::is_same_v<C, Expr> ? 0 : std::is_same_v<C, Stmt> ? 1 : 2];
      if (i < changed.size() && changed[i].ordinal == ordinal) child = std::move(changed[i++].value);
      ++ordinal;
    };
    for_each_child_slot(copy, write);
  }

 private:
#if defined(__GNUC__)
  __attribute__((noinline))
#endif
  void pop() noexcept {
    stack_->exprs.resize(base_[0]);
    stack_->stmts.resize(base_[1]);
    stack_->types.resize(base_[2]);
  }

  ChangedChildren* stack_ = nullptr;
  std::array<std::size_t, 3> base_{};
};
}  // namespace detail

// Applies `m` to each child (Expr, Stmt, Type, also inside kwargs, vectors, optionals and
// nested aggregates). Returns the rebuilt copy, or nullopt when nothing changed. The node is
// copied only when a child changed: an unchanged walk compares and allocates nothing.
//
// `m(child)` returns the child's replacement (the child itself when it stays). A mapper may
// instead offer `m.changed_child(child)`, which returns null when the child stays: then an
// unchanged child is not even copied, which saves the two atomic reference-count updates per
// child slot that dominate an unchanged walk.
template <class T, class M>
std::optional<T> map_children(const T& node, M&& m) {
  detail::ChangedChildrenFrame frame;
  std::uint32_t ordinal = 0;
  auto collect = [&](const auto& child) {
    using C = std::remove_cvref_t<decltype(child)>;
    if (child) {
      if constexpr (requires { m.changed_child(child); }) {
        if (C next = m.changed_child(child)) frame.push(ordinal, std::move(next));
      } else {
        C next = m(child);
        if (next != child) frame.push(ordinal, std::move(next));
      }
    }
    ++ordinal;
  };
  detail::for_each_child_slot(node, collect);
  if (frame.empty()) return std::nullopt;
  std::optional<T> copy(node);
  frame.write_into(*copy);
  return copy;
}

template <class Derived>
class Mutator {
 public:
  Expr operator()(const Expr& e) { return self().mutate_expr(e); }
  Stmt operator()(const Stmt& s) { return self().mutate_stmt(s); }
  Type operator()(const Type& t) { return self().mutate_type(t); }

  // map_children's protocol: a child's replacement, or null when it stays. Through the
  // derived class's hook when it has one; otherwise without a single reference-count update
  // for what stays. Every child the walk visits passes here, so a walker that must see each
  // node on the way down (MaterializeTensorStrides notes its span) overrides these instead
  // of mutate_expr/mutate_stmt, and keeps the fast path; it brings the overloads it does not
  // override in with `using`.
  Expr changed_child(const Expr& e) {
    if constexpr (overrides_mutate_expr()) return if_changed(self().mutate_expr(e), e);
    else return mutated_or_null(e);
  }
  Stmt changed_child(const Stmt& s) {
    if constexpr (overrides_mutate_stmt()) return if_changed(self().mutate_stmt(s), s);
    else return mutated_or_null(s);
  }
  Type changed_child(const Type& t) {
    if constexpr (overrides_mutate_type()) return if_changed(self().mutate_type(t), t);
    else return mutated_or_null(t);
  }

  // Every later use of `from` becomes `to`.
  void substitute(const Expr& from, Expr to) {
    if (!is_var_like(from) && !as<MemRef>(from)) substitutes_values_ = true;  // see constants_stay
    remap_[from.get()] = std::move(to);
    ++generation_;  // what was found unchanged may read `from`
  }
  // Whether any Var has been substituted so far (by the walk re-minting a definition, by a
  // rule's rebind, or by the caller): until then every expression maps to itself.
  [[nodiscard]] bool has_substitutions() const noexcept { return !remap_.empty(); }
  [[nodiscard]] Expr substituted(const Expr& e) const {
    auto it = remap_.find(e.get());
    return it == remap_.end() ? nullptr : it->second;
  }

  Type mutate_type(const Type& t) { return or_same(mutated_or_null(t), t); }
  Expr mutate_expr(const Expr& e) { return or_same(mutated_or_null(e), e); }
  Stmt mutate_stmt(const Stmt& s) { return or_same(mutated_or_null(s), s); }

  // A Var met for the first time: keep it unless its type (or init value) changes, in
  // which case one new Var replaces it everywhere.
  Expr mutate_definition(const Expr& e) {
    Type type = self().changed_child(e->type);
    auto fields = map_children(e->v, self());
    if (!type && !fields) return e;
    Expr fresh = make_expr(fields ? std::move(*fields) : e->v, type ? std::move(type) : e->type, e->span);
    substitute(e, fresh);
    return fresh;
  }

  // The node with its children mapped (the node itself when none changed), before the hooks.
  Expr rebuild_expr(const Expr& e) { return or_same(rebuilt_or_null(e), e); }
  Stmt rebuild_stmt(const Stmt& s) { return or_same(rebuilt_or_null(s), s); }

  Function mutate_function(const Function& f) {
    // Copied on the first change only: a function that stays the same allocates nothing.
    std::optional<FunctionNode> copy;
    auto edit = [&]() -> FunctionNode& {
      if (!copy) copy.emplace(*f);
      return *copy;
    };
    for (std::size_t i = 0; i < f->params.size(); ++i) {
      if (Expr next = self().changed_child(f->params[i].var)) edit().params[i].var = std::move(next);
    }
    for (std::size_t i = 0; i < f->return_types.size(); ++i) {
      if (Type next = self().changed_child(f->return_types[i])) edit().return_types[i] = std::move(next);
    }
    if (Stmt body = self().changed_child(f->body)) edit().body = std::move(body);
    return copy ? make_function(std::move(*copy)) : f;
  }

  // Hooks: called after children were rebuilt; `original` is the node before. A derived class
  // that mostly keeps what it is given may define `Expr replace_expr(const Expr& rebuilt, const
  // Expr& original)` instead of rewrite_expr: it returns the replacement, or null to keep
  // `rebuilt`, so that keeping costs no copy (the rule driver does; an expression has no frame).
  Expr rewrite_expr(const Expr& rebuilt, const Expr& /*original*/) { return rebuilt; }
  Stmt rewrite_stmt(const Stmt& rebuilt, const Stmt& /*original*/) { return rebuilt; }

 private:
  Derived& self() { return static_cast<Derived&>(*this); }

  // The walk proper answers "null" for a node that stays, so that what stays is never copied:
  // a shared_ptr copy and its release are two atomic updates, and an unchanged walk would
  // otherwise make several per node. The public mutate_*/rebuild_* above wrap these.
  template <class C>
  static C if_changed(C next, const C& original) {
    return next == original ? C{} : std::move(next);
  }
  template <class C>
  static C or_same(C changed, const C& original) {
    return changed ? std::move(changed) : original;
  }

  Type mutated_or_null(const Type& t) {
    if (!t || has_no_children(*t)) return nullptr;
    UnchangedSlot<Type>* slot = nullptr;
    if constexpr (!overrides_mutate_expr()) {
      slot = &unchanged_types_[slot_of(t.get())];
      if (slot->generation == generation_ && slot->node == t) return nullptr;
    }
    auto next = map_children(t->v, self());
    if (!next) {
      if (slot) *slot = UnchangedSlot<Type>{t, generation_};
      return nullptr;
    }
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

  Expr mutated_or_null(const Expr& e) {
    if (!e) return nullptr;
    if (auto it = remap_.find(e.get()); it != remap_.end()) return if_changed(it->second, e);
    if (is_var_like(e) || as<MemRef>(e)) {
      UnchangedSlot<Expr>& slot = unchanged_definitions_[slot_of(e.get())];
      if (slot.generation == generation_ && slot.node == e) return nullptr;
      Expr out = self().mutate_definition(e);
      if (out != e) return out;
      slot = UnchangedSlot<Expr>{e, generation_};
      return nullptr;
    }
    if constexpr (constants_stay()) {
      // A constant, or a tuple of constants; unless a substitution names a value rather than
      // a Var, which might be one of the tuple's elements.
      if (!substitutes_values_ && is_closed(e)) return nullptr;
    }
    if (is_constant(e)) {  // no children: only the type can change
      if constexpr (!overrides_mutate_type())
        if (e->type && has_no_children(*e->type)) return rewritten_or_null(e, e);  // nor a scalar's type
      if (Type type = self().changed_child(e->type))
        return rewritten_or_null(make_expr(e->v, std::move(type), e->span), e);
      return rewritten_or_null(e, e);
    }
    if (Expr rebuilt = rebuilt_or_null(e)) return rewritten_or_null(rebuilt, e);
    return rewritten_or_null(e, e);
  }

  Stmt mutated_or_null(const Stmt& s) {
    if (!s) return nullptr;
    if (Stmt rebuilt = rebuilt_or_null(s)) return rewritten_or_null(rebuilt, s);
    return rewritten_or_null(s, s);
  }

  Expr rebuilt_or_null(const Expr& e) {
    auto fields = map_children(e->v, self());
    Type type = self().changed_child(e->type);
    if (!fields && !type) return nullptr;
    return make_expr(fields ? std::move(*fields) : e->v, type ? std::move(type) : e->type, e->span);
  }

  Stmt rebuilt_or_null(const Stmt& s) {
    auto fields = map_children(s->v, self());
    if (!fields) return nullptr;
    if (auto* seq = std::get_if<Seq>(&*fields)) return make_seq(std::move(seq->stmts), s->span);
    return make_stmt(std::move(*fields), s->span, s->comments);
  }

  // The hooks' answer, null when it is the original node.
  Expr rewritten_or_null(const Expr& rebuilt, const Expr& original) {
    if constexpr (requires { self().replace_expr(rebuilt, original); }) {
      static_assert(!overrides_rewrite_expr(),
                    "ir::Mutator: this walker defines both rewrite_expr and replace_expr (perhaps one "
                    "inherited from rewrite::RuleWalker); keep one: a replace_expr that falls back on the "
                    "base class's replace_expr");
      if (Expr replacement = self().replace_expr(rebuilt, original)) return if_changed(std::move(replacement), original);
      return rebuilt == original ? nullptr : rebuilt;
    } else if constexpr (overrides_rewrite_expr()) {
      return if_changed(self().rewrite_expr(rebuilt, original), original);
    } else {
      return rebuilt == original ? nullptr : rebuilt;
    }
  }
  Stmt rewritten_or_null(const Stmt& rebuilt, const Stmt& original) {
    if constexpr (overrides_rewrite_stmt()) return if_changed(self().rewrite_stmt(rebuilt, original), original);
    else return rebuilt == original ? nullptr : rebuilt;
  }

  static bool has_no_children(const TypeNode& t) noexcept {
    return std::holds_alternative<ScalarType>(t.v) || std::holds_alternative<UnknownType>(t.v) ||
           std::holds_alternative<MarkerType>(t.v) || std::holds_alternative<ArrayType>(t.v);
  }
  static bool is_constant(const Expr& e) noexcept {
    return std::holds_alternative<ConstInt>(e->v) || std::holds_alternative<ConstFloat>(e->v) ||
           std::holds_alternative<ConstBool>(e->v);
  }

  // Var and MemRef definitions, and types, found unchanged, so that their later uses do not
  // walk them again: direct-mapped caches, which allocate nothing and forget at will. An entry
  // holds its node, so a freed node's address never aliases a live one, and counts only for
  // the generation it was made in: every substitution starts a new one, since what was found
  // unchanged may read the substituted Var (a dynamic dim, a buffer's base).
  //
  // This assumes what the walkers here do: the result for a definition or a type depends on
  // the node and the substitutions only. A mutator whose result depends on more keeps its own
  // bindings and overrides mutate_expr (as ConvertToSSA does); the type cache is then off, as
  // it must be, since a type's dims are read through that mutate_expr.
  template <class Node>
  struct UnchangedSlot {
    Node node;
    std::uint64_t generation = 0;
  };
  static constexpr std::size_t unchanged_slots = 256;
  static std::size_t slot_of(const void* node) noexcept {
    return static_cast<std::size_t>((reinterpret_cast<std::uintptr_t>(node) * 0x9E3779B97F4A7C15ull) >> 56);
  }
  // Whether Derived replaced a hook (one it overloads counts as replaced): the walk takes the
  // hook's answer then, and keeps off the caches that assume the default.
#define TILEWRIGHT_MUTATOR_OVERRIDES(hook, Node, ...)                                      \
  static constexpr bool overrides_##hook() {                                              \
    if constexpr (requires { &Derived::hook; })                                           \
      return !std::is_same_v<decltype(&Derived::hook), Node (Mutator::*)(__VA_ARGS__)>;    \
    else                                                                                  \
      return true;                                                                        \
  }
  TILEWRIGHT_MUTATOR_OVERRIDES(mutate_type, Type, const Type&)
  TILEWRIGHT_MUTATOR_OVERRIDES(mutate_expr, Expr, const Expr&)
  TILEWRIGHT_MUTATOR_OVERRIDES(mutate_stmt, Stmt, const Stmt&)
  TILEWRIGHT_MUTATOR_OVERRIDES(rewrite_expr, Expr, const Expr&, const Expr&)
  TILEWRIGHT_MUTATOR_OVERRIDES(rewrite_stmt, Stmt, const Stmt&, const Stmt&)
#undef TILEWRIGHT_MUTATOR_OVERRIDES
  static constexpr bool has_replace_expr() {
    return requires(Derived& d, const Expr& e) { d.replace_expr(e, e); };
  }
  // Whether a constant, or a tuple of constants (is_closed), always maps to itself, so that the
  // walk need not visit it: no hook may replace an expression, and the types of constants
  // (scalars, tuples of them) stay, which holds when mutate_type is the default, or when a
  // derived type mapping says so with `static constexpr bool constant_types_stay = true`.
  // Index tuples are most of a kernel's nodes ([0, 0], [16, 32] on every load and store).
  static constexpr bool constants_stay() {
    if constexpr (overrides_rewrite_expr() || has_replace_expr() || overrides_mutate_expr()) {
      return false;
    } else if constexpr (requires { Derived::constant_types_stay; }) {
      return Derived::constant_types_stay;
    } else {
      return !overrides_mutate_type();
    }
  }
  NodeMap<Expr> remap_;
  bool substitutes_values_ = false;  // some key of remap_ is neither a Var nor a MemRef
  std::array<UnchangedSlot<Expr>, unchanged_slots> unchanged_definitions_{};
  std::array<UnchangedSlot<Type>, unchanged_slots> unchanged_types_{};
  std::uint64_t generation_ = 1;
};

// A mutator with no overrides: the identity walk every pass is measured against.
struct IdentityMutator : Mutator<IdentityMutator> {};

}  // namespace tilewright::ir
