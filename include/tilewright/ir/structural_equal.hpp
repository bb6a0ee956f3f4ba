#pragma once
// Structural equality and hashing, and the one type equality of the library.
//
// One comparator, two ways of matching Vars:
//  * by definition (structural_equal, the default): the first time a Var of each side is met
//    the two are paired (after their types compare equal), and from then on each may only
//    meet its partner: two programs that differ only in names are equal;
//  * by identity (same_type): a Var is equal only to itself. A type's symbolic dim names a
//    Var defined outside the type, so `[n, 16]` and `[m, 16]` are two types even though `n`
//    and `m` are both INDEX scalars.
// Both ignore names, spans and comments, compare kwargs and attrs as unordered maps and take
// INDEX and INT64 constants as one value. Buffer references (BufferRef fields: the memref of a
// tensor or tile type) are allocation details: structural_equal leaves them out, as upstream's
// assert_structural_equal does; same_type compares them unless told Buffers::ignored.
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "tilewright/ir/detail/reflect.hpp"
#include "tilewright/ir/function.hpp"

namespace tilewright::ir {

enum class VarMatch : std::uint8_t { by_definition, by_identity };
enum class Buffers : std::uint8_t { ignored, compared };
// Whether an INDEX and an INT64 constant of one value are one constant (they are to every
// equality above: a dim's dtype depends on how it was spelled), or two (to hash-consing,
// which must keep what the printer tells apart: `4` and `pl.const(4, pl.INT64)`).
enum class ConstantDtypes : std::uint8_t { by_index_class, exact };

struct EqualityOptions {
  VarMatch vars = VarMatch::by_definition;
  Buffers buffers = Buffers::ignored;
  ConstantDtypes constants = ConstantDtypes::by_index_class;
};

class StructuralEqual {
 public:
  StructuralEqual() = default;
  explicit StructuralEqual(EqualityOptions options) noexcept : options_(options) {}

  // The first difference found, as a path and a reason, e.g.
  // "function k / body / stmt 3 / value / args 1: ConstInt 4 vs 5".
  [[nodiscard]] const std::string& first_difference() const noexcept { return difference_; }
  // Where that difference is: the spans of the innermost statements (for a signature, the
  // functions) being compared when it was found, left and right; unknown when there are none.
  [[nodiscard]] const std::pair<Span, Span>& first_difference_location() const noexcept { return where_; }

  bool operator()(const Program& a, const Program& b) { return eq(a, b); }
  bool operator()(const Function& a, const Function& b) { return eq(a, b); }
  bool operator()(const Stmt& a, const Stmt& b) { return eq(a, b); }
  bool operator()(const Expr& a, const Expr& b) { return eq(a, b); }
  bool operator()(const Type& a, const Type& b) { return eq(a, b); }

 private:
  // One step of the path to the node being compared: `prefix` + `name`, or `[index]`. Kept
  // as views (into string literals and the nodes compared) and spelled only on a difference,
  // so that a comparison that succeeds allocates nothing for its path.
  struct Segment {
    std::string_view prefix;
    std::string_view name;
    std::size_t index = static_cast<std::size_t>(-1);
  };

  EqualityOptions options_;
  std::unordered_map<const ExprNode*, const ExprNode*> left_to_right_, right_to_left_;
  // Inline: a comparator made for one comparison (a type against another, a few levels
  // deep) then allocates nothing for them.
  boost::container::small_vector<Segment, 16> path_;
  std::string difference_;
  boost::container::small_vector<std::pair<const Span*, const Span*>, 4> located_;  // statements/functions being compared
  std::pair<Span, Span> where_;

  bool fail(const std::string& why) {
    if (difference_.empty()) {
      for (const auto& p : path_) {
        if (p.index != static_cast<std::size_t>(-1)) {
          difference_ += '[';  // appended piece by piece: g++ 12 -O3 warns on "[" + to_string (-Wrestrict)
          difference_ += std::to_string(p.index);
          difference_ += ']';
        } else {
          difference_ += p.prefix;
          difference_ += p.name;
        }
        difference_ += " / ";
      }
      difference_ += why;
      for (auto it = located_.rbegin(); it != located_.rend(); ++it)
        if (it->first->known() || it->second->known()) {
          where_ = {*it->first, *it->second};
          break;
        }
    }
    return false;
  }
  template <class F>
  bool located(const Span& a, const Span& b, F&& f) {
    located_.emplace_back(&a, &b);
    bool ok = f();
    located_.pop_back();
    return ok;
  }
  template <class F>
  bool at(Segment segment, F&& f) {
    path_.push_back(segment);
    bool ok = f();
    path_.pop_back();
    return ok;
  }
  template <class F>
  bool at(std::string_view name, F&& f) {
    return at(Segment{{}, name}, std::forward<F>(f));
  }

  // ---- leaves ----
  bool eq(const Name&, const Name&) { return true; }
  bool eq(const Comments&, const Comments&) { return true; }
  bool eq(const Span&, const Span&) { return true; }
  bool eq(const Callee& a, const Callee& b) {
    if (a == b) return true;
    auto spell = [](const Callee& c) { return c.is_function() ? c.function.str() : std::string(op_name(c.op)); };
    return fail("callee " + spell(a) + " vs " + spell(b));
  }
  bool eq(double a, double b) { return a == b || (a != a && b != b) ? true : fail("float " + std::to_string(a) + " vs " + std::to_string(b)); }
  template <class T>
    requires(std::is_integral_v<T> || std::is_enum_v<T> || std::is_same_v<T, std::string> ||
             std::is_same_v<T, EnumText>)
  bool eq(const T& a, const T& b) {
    if (a == b) return true;
    if constexpr (std::is_same_v<T, bool>) return fail(a ? "true vs false" : "false vs true");
    else if constexpr (std::is_integral_v<T>) return fail(std::to_string(a) + " vs " + std::to_string(b));
    else if constexpr (std::is_same_v<T, std::string>) return fail("'" + a + "' vs '" + b + "'");
    else if constexpr (requires { enum_names(a); })
      return fail(std::string(name_of(a)) + " vs " + std::string(name_of(b)));
    else return fail("values differ");
  }
  template <class T>
  bool eq(const std::vector<T>& a, const std::vector<T>& b) {
    if (a.size() != b.size())
      return fail("length " + std::to_string(a.size()) + " vs " + std::to_string(b.size()));
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!at(Segment{{}, {}, i}, [&] { return eq(a[i], b[i]); })) return false;
    return true;
  }
  template <class T>
  bool eq(const std::optional<T>& a, const std::optional<T>& b) {
    if (a.has_value() != b.has_value()) return fail(a ? "present vs absent" : "absent vs present");
    return !a || eq(*a, *b);
  }
  template <class T>
    requires detail::is_reflected<T>
  bool eq(const T& a, const T& b) {
    return detail::all_fields(a, b, [&](const char* name, const auto& x, const auto& y) {
      return at(name, [&] { return eq(x, y); });
    });
  }
  bool eq(const AttrValue& a, const AttrValue& b) {
    if (a.index() != b.index()) return fail("attribute kinds differ");
    return dispatch(a, [&](const auto& x) { return eq(x, std::get<std::decay_t<decltype(x)>>(b)); });
  }
  bool eq(const Kwargs& a, const Kwargs& b) {
    if (a.size() != b.size())
      return fail("kwarg count " + std::to_string(a.size()) + " vs " + std::to_string(b.size()));
    for (const auto& entry : a) {
      const AttrValue* other = find_kwarg(b, entry.first);
      if (!other) return fail("kwarg '" + entry.first + "' missing on the right");
      if (!at(entry.first, [&] { return eq(entry.second, *other); })) return false;
    }
    return true;
  }

  // ---- types ----
  // Tensor and tile types compare field by field (the reflected overload); the buffer field
  // takes part only when asked.
  bool eq(const BufferRef& a, const BufferRef& b) {
    return options_.buffers == Buffers::ignored || eq(static_cast<const Expr&>(a), static_cast<const Expr&>(b));
  }
  bool eq(const Type& a, const Type& b) {
    if (a == b) return true;
    if (!a || !b) return fail("type missing on one side");
    if (a->v.index() != b->v.index()) return fail("type kinds differ");
    return dispatch(a->v, [&](const auto& x) { return eq(x, std::get<std::decay_t<decltype(x)>>(b->v)); });
  }

  // ---- expressions ----
  bool eq_var(const Expr& a, const Expr& b) {
    if (options_.vars == VarMatch::by_identity) {
      if (a == b) return true;
      return fail("variable '" + std::string(name_hint(a)) + "' vs '" + std::string(name_hint(b)) +
                  "' (two definitions)");
    }
    auto l = left_to_right_.find(a.get());
    auto r = right_to_left_.find(b.get());
    if (l != left_to_right_.end() || r != right_to_left_.end()) {
      if (l != left_to_right_.end() && l->second == b.get()) return true;
      return fail("variable '" + std::string(name_hint(a)) + "' vs '" + std::string(name_hint(b)) +
                  "' (bound to different definitions)");
    }
    left_to_right_.emplace(a.get(), b.get());
    right_to_left_.emplace(b.get(), a.get());
    if (a == b) return true;
    return at(Segment{"type of ", name_hint(a)}, [&] { return eq(a->type, b->type); });
  }
  bool eq(const Expr& a, const Expr& b) {
    // Vars are never short-cut by identity: the same Var on both sides must still be
    // bound to itself, or `f(a, b) = a` would equal `f(a, b) = b`.
    if (a && b && is_var_like(a) && is_var_like(b) && a->v.index() == b->v.index()) {
      if (!eq_var(a, b)) return false;
      if (auto* x = as<IterArg>(a); x && a != b) return at("init", [&] { return eq(x->init, as<IterArg>(b)->init); });
      return true;
    }
    if (a == b) return true;
    if (!a || !b) return fail(a ? "expression vs nothing" : "nothing vs expression");
    if (a->v.index() != b->v.index()) return fail("expression kinds differ");
    if (auto* x = as<ConstInt>(a)) {
      auto* y = as<ConstInt>(b);
      auto* ta = as<ScalarType>(a->type);
      auto* tb = as<ScalarType>(b->type);
      if (x->value != y->value)
        return fail("constant " + std::to_string(x->value) + " vs " + std::to_string(y->value));
      if (ta && tb &&
          (options_.constants == ConstantDtypes::exact ? ta->dtype != tb->dtype : !same_index_class(ta->dtype, tb->dtype)))
        return fail("constant dtypes differ");
      return true;
    }
    bool ok = dispatch(a->v, [&](const auto& x) { return eq(x, std::get<std::decay_t<decltype(x)>>(b->v)); });
    return ok && at("type", [&] { return eq(a->type, b->type); });
  }

  // ---- statements, functions, programs ----
  bool eq(const Stmt& a, const Stmt& b) {
    if (a == b) return true;
    if (!a || !b) return fail(a ? "statement vs nothing" : "nothing vs statement");
    if (a->v.index() != b->v.index()) return fail("statement kinds differ");
    if (auto* x = as<For>(a); x && options_.vars == VarMatch::by_definition) {
      // A loop index is INDEX or INT64 depending on how its bounds were spelled.
      const For& y = *as<For>(b);
      auto* ta = as<ScalarType>(x->loop_var->type);
      auto* tb = as<ScalarType>(y.loop_var->type);
      if (ta && tb && same_index_class(ta->dtype, tb->dtype) &&
          !left_to_right_.count(x->loop_var.get())) {
        left_to_right_.emplace(x->loop_var.get(), y.loop_var.get());
        right_to_left_.emplace(y.loop_var.get(), x->loop_var.get());
      }
    }
    return located(a->span, b->span, [&] {
      return dispatch(a->v, [&](const auto& x) { return eq(x, std::get<std::decay_t<decltype(x)>>(b->v)); });
    });
  }
  // Function names are labels, like Var names; the body, signature and kind are compared.
  bool eq(const FunctionNode& a, const FunctionNode& b) {
    return at("params", [&] { return eq(a.params, b.params); }) &&
           at("return types", [&] { return eq(a.return_types, b.return_types); }) &&
           (a.type == b.type || fail("function types differ")) && eq(a.level, b.level) &&
           eq(a.role, b.role) && at("attrs", [&] { return eq(a.attrs, b.attrs); }) &&
           at("body", [&] { return eq(a.body, b.body); });
  }
  bool eq(const Function& a, const Function& b) {
    if (a == b) return true;
    return at(Segment{"function ", a->name}, [&] { return located(a->span, b->span, [&] { return eq(*a, *b); }); });
  }
  bool eq(const Program& a, const Program& b) {
    if (a == b) return true;
    return eq(a->functions, b->functions);
  }
};

template <class T>
bool structural_equal(const T& a, const T& b) {
  return StructuralEqual{}(a, b);
}

// Equal, or the first difference as a sentence.
template <class T>
std::optional<std::string> structural_difference(const T& a, const T& b) {
  StructuralEqual cmp;
  if (cmp(a, b)) return std::nullopt;
  return cmp.first_difference();
}

// ---- hashing ----------------------------------------------------------------------------
// Consistent with StructuralEqual under the same options: matched by definition, Vars hash by
// the order in which they are first met; by identity, by address.
class StructuralHash {
 public:
  StructuralHash() = default;
  explicit StructuralHash(EqualityOptions options) noexcept : options_(options) {}

  std::size_t operator()(const Program& p) { return (h(p->functions), seed_); }
  std::size_t operator()(const Function& f) { return (h(*f), seed_); }
  std::size_t operator()(const Stmt& s) { return (h(s), seed_); }
  std::size_t operator()(const Expr& e) { return (h(e), seed_); }
  std::size_t operator()(const Type& t) { return (h(t), seed_); }

 private:
  EqualityOptions options_;
  std::size_t seed_ = 0x9e3779b97f4a7c15ull;
  std::unordered_map<const ExprNode*, std::size_t> vars_;

  void mix(std::size_t v) { seed_ ^= v + 0x9e3779b97f4a7c15ull + (seed_ << 6) + (seed_ >> 2); }
  void h(const Name&) {}
  void h(const Comments&) {}
  void h(const Span&) {}
  void h(const Callee& c) { mix(c.op.value); mix(std::hash<std::string_view>{}(c.function)); }
  void h(double d) { mix(std::hash<double>{}(d)); }
  void h(const std::string& s) { mix(std::hash<std::string>{}(s)); }
  void h(const EnumText& s) { h(s.text); }
  template <class T>
    requires(std::is_integral_v<T> || std::is_enum_v<T>)
  void h(T v) { mix(static_cast<std::size_t>(v)); }
  template <class T>
  void h(const std::vector<T>& v) { mix(v.size()); for (const auto& x : v) h(x); }
  template <class T>
  void h(const std::optional<T>& v) { mix(v.has_value()); if (v) h(*v); }
  template <class T>
    requires detail::is_reflected<T>
  void h(const T& x) { detail::for_each_field(x, [&](const char*, const auto& f) { h(f); }); }
  void h(const AttrValue& v) { mix(v.index()); dispatch(v, [&](const auto& x) { h(x); }); }
  void h(const Kwargs& kw) {
    // Order-independent: sum of per-entry hashes.
    std::size_t sum = 0;
    for (const auto& [k, v] : kw) {
      StructuralHash sub(options_);
      sub.vars_ = vars_;
      sub.h(k);
      sub.h(v);
      sum += sub.seed_;
    }
    mix(sum);
  }
  void h(const BufferRef& b) {
    if (options_.buffers == Buffers::compared) h(static_cast<const Expr&>(b));
  }
  void h(const Type& t) { if (!t) return mix(0); mix(t->v.index()); dispatch(t->v, [&](const auto& x) { h(x); }); }
  void h(const Expr& e) {
    if (!e) return mix(0);
    mix(e->v.index());
    if (auto* c = as<ConstInt>(e)) return mix(static_cast<std::size_t>(c->value));
    if (is_var_like(e)) {
      if (options_.vars == VarMatch::by_identity) return mix(std::hash<const ExprNode*>{}(e.get()));
      auto [it, fresh] = vars_.emplace(e.get(), vars_.size());
      mix(it->second);
      if (fresh) h(e->type);
      if (auto* a = as<IterArg>(e); a && fresh) h(a->init);
      return;
    }
    dispatch(e->v, [&](const auto& x) { h(x); });
    h(e->type);
  }
  void h(const Stmt& s) { if (!s) return mix(0); mix(s->v.index()); dispatch(s->v, [&](const auto& x) { h(x); }); }
  void h(const Function& f) { h(*f); }
};

template <class T>
std::size_t structural_hash(const T& node) {
  return StructuralHash{}(node);
}

// ---- the type equality ------------------------------------------------------------------
// Whether `a` and `b` are one type: every field, symbolic dims by the Var they name, buffer
// references unless `buffers` is Buffers::ignored. This is the question "may a value of
// type `b` stand where `a` is declared" that the parser (a reassigned name keeps its Var) and
// the passes (does a rewritten value still fit its Var) ask.
inline bool same_type(const Type& a, const Type& b, Buffers buffers = Buffers::compared) {
  if (a == b) return true;
  return StructuralEqual({VarMatch::by_identity, buffers})(a, b);
}
// Why they are not, as a path and a reason ("shape / [0]: variable 'n' vs 'm' (two
// definitions)"), or nullopt when they are one type.
inline std::optional<std::string> type_difference(const Type& a, const Type& b,
                                                  Buffers buffers = Buffers::compared) {
  StructuralEqual cmp({VarMatch::by_identity, buffers});
  if (a == b || cmp(a, b)) return std::nullopt;
  return cmp.first_difference();
}
// A hash consistent with same_type: types that are one type hash alike.
inline std::size_t type_hash(const Type& t, Buffers buffers = Buffers::compared) {
  return StructuralHash({VarMatch::by_identity, buffers})(t);
}

}  // namespace tilewright::ir
