#pragma once
// The expression family, and the canonicalizing constructors of tensor and tile types
// (they need expression equality to recognise a full valid_shape).
#include <boost/hana/define_struct.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "tilewright/ir/op_id.hpp"
#include "tilewright/ir/span.hpp"
#include "tilewright/ir/symbol.hpp"
#include "tilewright/ir/type.hpp"

namespace tilewright::ir {

// `pl.<Enum>.<member>` spellings without a dedicated enum (scope options, split modes in
// function attributes, …) are kept as their printed text.
struct EnumText {
  std::string text;
  friend bool operator==(const EnumText&, const EnumText&) = default;
};

// Kwarg and attribute values: exactly the kinds upstream lets an op or attribute carry.
using AttrValue =
    std::variant<std::int64_t, bool, std::string, double, DataType, MemorySpace, TensorLayout,
                 TileLayout, PadValue, ArgDirection, std::vector<ArgDirection>,
                 std::vector<std::int64_t>, Expr, std::vector<Expr>, EnumText>;
using Kwargs = std::vector<std::pair<std::string, AttrValue>>;

inline const AttrValue* find_kwarg(const Kwargs& kw, std::string_view key) noexcept {
  for (const auto& [k, v] : kw)
    if (k == key) return &v;
  return nullptr;
}
template <class T>
const T* kwarg_as(const Kwargs& kw, std::string_view key) noexcept {
  const AttrValue* v = find_kwarg(kw, key);
  return v ? std::get_if<T>(v) : nullptr;
}

// A Var is identified by its node's address; the name is only a hint.
struct Var {
  BOOST_HANA_DEFINE_STRUCT(Var, (Name, name));
};
// A loop-carried value: a Var with the value it starts from.
struct IterArg {
  BOOST_HANA_DEFINE_STRUCT(IterArg, (Name, name), (Expr, init));
};
// A buffer reference: `base` is the Ptr Var of the allocation (identity = same allocation).
struct MemRef {
  BOOST_HANA_DEFINE_STRUCT(MemRef, (Expr, base), (Expr, offset), (std::uint64_t, size),
                           (bool, pinned), (std::int64_t, slots), (Expr, slot_index));
};
struct ConstInt {
  BOOST_HANA_DEFINE_STRUCT(ConstInt, (std::int64_t, value));
};
struct ConstFloat {
  BOOST_HANA_DEFINE_STRUCT(ConstFloat, (double, value));
};
struct ConstBool {
  BOOST_HANA_DEFINE_STRUCT(ConstBool, (bool, value));
};

enum class BinaryOp : std::uint8_t {
  Add, Sub, Mul, FloorDiv, FloorMod, FloatDiv, Min, Max, Pow, Eq, Ne, Lt, Le, Gt, Ge, And, Or,
  Xor, BitAnd, BitOr, BitXor, Shl, Shr
};
enum class UnaryOp : std::uint8_t { Neg, Not, BitNot, Abs, Cast };

struct Binary {
  BOOST_HANA_DEFINE_STRUCT(Binary, (BinaryOp, op), (Expr, lhs), (Expr, rhs));
};
struct Unary {
  BOOST_HANA_DEFINE_STRUCT(Unary, (UnaryOp, op), (Expr, operand));
};

// The callee of a Call: a registered op, or a function of the program by name.
struct Callee {
  OpId op;
  Symbol function;  // the called function; with an op, the function `pl.submit` launches
  [[nodiscard]] bool is_function() const noexcept { return !op; }
  friend bool operator==(const Callee& a, const Callee& b) noexcept = default;
};

// Below, facts derived from a node's children are kept beside its reflected fields: make_expr
// sets them on every node it makes, so they hold for every node there is; equality, hashing,
// printing and the walks, which go by the reflected fields, never see them. An expression is
// *closed* when no Var or IterArg occurs in it; the facts say so conservatively (constants,
// and tuples of closed expressions), so that a walk looking for Vars may pass over what they
// mark without reading it.
struct Call {
  BOOST_HANA_DEFINE_STRUCT(Call, (Callee, callee), (std::vector<Expr>, args), (Kwargs, kwargs),
                           (Kwargs, attrs));
  // Bit i: args[i] is closed (the first 32 arguments).
  std::uint32_t closed_args = 0;
  [[nodiscard]] bool arg_is_closed(std::size_t i) const noexcept {
    return i < 32 && ((closed_args >> i) & 1U) != 0;
  }
};
struct MakeTuple {
  BOOST_HANA_DEFINE_STRUCT(MakeTuple, (std::vector<Expr>, elements));
  bool closed = false;  // every element is closed
};
struct TupleGetItem {
  BOOST_HANA_DEFINE_STRUCT(TupleGetItem, (Expr, tuple), (std::int64_t, index));
};

struct ExprNode {
  using Variant = std::variant<Var, IterArg, MemRef, ConstInt, ConstFloat, ConstBool, Binary,
                               Unary, Call, MakeTuple, TupleGetItem>;
  Variant v;
  Type type;
  Span span;
};

template <class T>
const T* as(const Expr& e) noexcept {
  return e ? std::get_if<T>(&e->v) : nullptr;
}
// Vars and IterArgs are the values a statement can define.
inline bool is_var_like(const Expr& e) noexcept { return as<Var>(e) || as<IterArg>(e); }

inline std::string_view name_hint(const Expr& e) noexcept {
  if (auto* v = as<Var>(e)) return v->name.text;
  if (auto* v = as<IterArg>(e)) return v->name.text;
  if (auto* m = as<MemRef>(e)) return name_hint(m->base);
  return {};
}

// ---- constructors ----------------------------------------------------------------------

inline Type make_type(TypeNode::Variant v) { return std::make_shared<const TypeNode>(TypeNode{std::move(v)}); }

// Scalar types are interned: constants and loop indices would otherwise allocate one each.
inline const Type& scalar_type(DataType dt) {
  static const auto table = [] {
    std::vector<Type> t;
    for (std::size_t i = 0; i < enum_table<DataType>.names.size(); ++i)
      t.push_back(make_type(ScalarType{static_cast<DataType>(i)}));
    return t;
  }();
  return table[static_cast<std::size_t>(dt)];
}
inline const Type& unknown_type() {
  static const Type t = make_type(UnknownType{});
  return t;
}
inline const Type& marker_type(Marker m) {
  static const auto table = [] {
    std::vector<Type> t;
    for (int i = 0; i <= static_cast<int>(Marker::AsyncSession); ++i)
      t.push_back(make_type(MarkerType{static_cast<Marker>(i)}));
    return t;
  }();
  return table[static_cast<std::size_t>(m)];
}

// A constant, or a tuple of closed expressions (see Call).
inline bool is_closed(const Expr& e) noexcept {
  if (!e) return false;
  if (auto* t = as<MakeTuple>(e)) return t->closed;
  return as<ConstInt>(e) || as<ConstFloat>(e) || as<ConstBool>(e);
}

// Every expression node is made here, which is what lets the derived facts be trusted: they
// are computed from the direct children alone (each child's own facts were set when it was
// made), so making a node reads no deeper than its children.
inline Expr make_expr(ExprNode::Variant v, Type type, Span span = {}) {
  if (auto* t = std::get_if<MakeTuple>(&v)) {
    t->closed = true;
    for (const auto& e : t->elements) t->closed = t->closed && is_closed(e);
  } else if (auto* c = std::get_if<Call>(&v)) {
    c->closed_args = 0;
    for (std::size_t i = 0; i < c->args.size() && i < 32; ++i)
      if (is_closed(c->args[i])) c->closed_args |= std::uint32_t{1} << i;
  }
  return std::make_shared<const ExprNode>(ExprNode{std::move(v), std::move(type), std::move(span)});
}
inline Expr make_var(std::string name, Type type, Span span = {}) {
  return make_expr(Var{Name{std::move(name)}}, std::move(type), std::move(span));
}
inline Expr make_iter_arg(std::string name, Type type, Expr init, Span span = {}) {
  return make_expr(IterArg{Name{std::move(name)}, std::move(init)}, std::move(type), std::move(span));
}
inline Expr make_int(std::int64_t v, DataType dt = DataType::INDEX, Span span = {}) {
  return make_expr(ConstInt{v}, scalar_type(dt), std::move(span));
}
inline Expr make_float(double v, DataType dt = DataType::FP32, Span span = {}) {
  return make_expr(ConstFloat{v}, scalar_type(dt), std::move(span));
}
inline Expr make_bool(bool v, Span span = {}) {
  return make_expr(ConstBool{v}, scalar_type(DataType::BOOL), std::move(span));
}
inline Expr make_tuple(std::vector<Expr> elements, Span span = {}) {
  std::vector<Type> types;
  types.reserve(elements.size());
  for (const auto& e : elements) types.push_back(e->type);
  return make_expr(MakeTuple{std::move(elements)}, make_type(TupleType{std::move(types)}),
                   std::move(span));
}
inline Expr make_call(OpId op, std::vector<Expr> args, Kwargs kwargs, Type type, Span span = {},
                      Kwargs attrs = {}) {
  return make_expr(Call{Callee{op, {}}, std::move(args), std::move(kwargs), std::move(attrs)},
                   std::move(type), std::move(span));
}
inline Expr make_function_call(std::string function, std::vector<Expr> args, Type type,
                               Span span = {}, Kwargs attrs = {}) {
  return make_expr(Call{Callee{OpId{}, Symbol(function)}, std::move(args), {}, std::move(attrs)},
                   std::move(type), std::move(span));
}

// ---- constant helpers ------------------------------------------------------------------

inline std::optional<std::int64_t> const_int(const Expr& e) noexcept {
  if (auto* c = as<ConstInt>(e)) return c->value;
  return std::nullopt;
}

// Static extents of a shape, or nullopt if any dim is symbolic.
inline std::optional<std::vector<std::int64_t>> static_dims(const std::vector<Expr>& shape) {
  std::vector<std::int64_t> out;
  out.reserve(shape.size());
  for (const auto& d : shape) {
    auto c = const_int(d);
    if (!c) return std::nullopt;
    out.push_back(*c);
  }
  return out;
}

// Equality used inside types: the same node, equal constants, or the same operator over
// loosely equal operands. Symbolic Vars match only themselves.
inline bool loosely_equal(const Expr& a, const Expr& b) noexcept {
  if (a == b) return true;
  if (!a || !b) return false;
  if (auto* x = as<ConstInt>(a)) {
    auto* y = as<ConstInt>(b);
    return y && x->value == y->value;
  }
  if (auto* x = as<Binary>(a)) {
    auto* y = as<Binary>(b);
    return y && x->op == y->op && loosely_equal(x->lhs, y->lhs) && loosely_equal(x->rhs, y->rhs);
  }
  if (auto* x = as<Call>(a)) {
    auto* y = as<Call>(b);
    if (!y || !(x->callee == y->callee) || x->args.size() != y->args.size()) return false;
    for (std::size_t i = 0; i < x->args.size(); ++i)
      if (!loosely_equal(x->args[i], y->args[i])) return false;
    return true;
  }
  return false;
}
inline bool loosely_equal(const std::vector<Expr>& a, const std::vector<Expr>& b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!loosely_equal(a[i], b[i])) return false;
  return true;
}

// ---- canonical tensor and tile types -----------------------------------------------------

inline Type make_tensor_type(std::vector<Expr> shape, DataType dtype,
                             std::optional<TensorView> view = std::nullopt, Expr memref = nullptr,
                             bool distributed = false) {
  if (view) {
    if (loosely_equal(view->valid_shape, shape)) view->valid_shape.clear();
    if (view->stride.empty() && view->layout == TensorLayout::ND && view->valid_shape.empty() &&
        view->pad == PadValue::null)
      view.reset();
  }
  return make_type(TensorType{std::move(shape), dtype, std::move(view), std::move(memref), distributed});
}

inline TileLayout shape_blayout(const std::vector<Expr>& shape) noexcept {
  return shape.size() == 2 ? shape_blayout(2, const_int(shape[0]), const_int(shape[1]))
                           : TileLayout::row_major;
}
inline TileLayoutTriple implicit_tile_layout(const std::vector<Expr>& shape,
                                             std::optional<MemorySpace> memory) noexcept {
  return implicit_tile_layout(shape_blayout(shape), memory);
}

inline Type make_tile_type(std::vector<Expr> shape, DataType dtype,
                           std::optional<TileView> view = std::nullopt,
                           std::optional<MemorySpace> memory = std::nullopt, Expr memref = nullptr) {
  if (view) {
    if (loosely_equal(view->valid_shape, shape)) view->valid_shape.clear();
    TileLayoutTriple implicit = implicit_tile_layout(shape, memory);
    if (view->valid_shape.empty() && view->stride.empty() && !view->start_offset &&
        view->pad == PadValue::null && view->compact == CompactMode::null &&
        TileLayoutTriple{view->blayout, view->slayout, view->fractal} == implicit)
      view.reset();
  }
  return make_type(TileType{std::move(shape), dtype, std::move(view), memory, std::move(memref)});
}

// The view a tile has in effect: the stored one with a full valid_shape spelled out, or
// the implicit view of its memory space.
inline TileView effective_view(const TileType& t) {
  if (t.view) {
    TileView v = *t.view;
    if (v.valid_shape.empty()) v.valid_shape = t.shape;
    return v;
  }
  TileLayoutTriple l = implicit_tile_layout(t.shape, t.memory);
  return TileView{t.shape, {}, nullptr, l.blayout, l.slayout, l.fractal, PadValue::null,
                  CompactMode::null};
}

// A TileView filled with the implicit layout for (shape, memory): the starting point for
// "the implicit view but with X changed".
inline TileView implicit_view(const std::vector<Expr>& shape, std::optional<MemorySpace> memory) {
  TileLayoutTriple l = implicit_tile_layout(shape, memory);
  return TileView{{}, {}, nullptr, l.blayout, l.slayout, l.fractal, PadValue::null, CompactMode::null};
}

inline const std::vector<Expr>& valid_shape(const TileType& t) noexcept {
  return t.view && !t.view->valid_shape.empty() ? t.view->valid_shape : t.shape;
}
inline const std::vector<Expr>& valid_shape(const TensorType& t) noexcept {
  return t.view && !t.view->valid_shape.empty() ? t.view->valid_shape : t.shape;
}

inline const TileType* tile_type(const Expr& e) noexcept { return e ? as<TileType>(e->type) : nullptr; }
inline const TensorType* tensor_type(const Expr& e) noexcept { return e ? as<TensorType>(e->type) : nullptr; }

}  // namespace tilewright::ir
