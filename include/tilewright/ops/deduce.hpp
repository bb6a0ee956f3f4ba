#pragma once
// Building blocks shared by the deducers of every op family: argument access with
// diagnostics that name the op and the argument, kwarg lookup with schema defaults,
// constant-folding index arithmetic, broadcasting and the valid-shape window rules.
//
// Proofs here are deliberately shallow (constants and loose equality); a relation that
// cannot be decided is treated as "holds" so deduction never rejects well-formed symbolic
// IR, and symbolic results are spelled as min/max expressions over the inputs.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tilewright/ir/diagnostic.hpp"
#include "tilewright/ir/expr.hpp"
#include "tilewright/ir/expr_text.hpp"
#include "tilewright/math/checked.hpp"
#include "tilewright/ops/registry.hpp"

namespace tilewright::ops::deduce {

using ir::DataType;
using ir::MemorySpace;
using ir::TensorType;
using ir::TileLayout;
using ir::TileType;
using ir::TileView;

// ---- text for messages -------------------------------------------------------------------

using ir::dims_text;
using ir::expr_text;

inline std::string type_text(const Type& t) {
  if (!t) return "<no type>";
  if (auto* s = ir::as<ir::ScalarType>(t)) return "Scalar[" + std::string(ir::name_of(s->dtype)) + "]";
  if (auto* x = ir::as<TensorType>(t))
    return "Tensor[" + dims_text(x->shape) + ", " + std::string(ir::name_of(x->dtype)) + "]";
  if (auto* x = ir::as<TileType>(t)) {
    std::string out = "Tile[" + dims_text(x->shape) + ", " + std::string(ir::name_of(x->dtype));
    if (x->memory) out += ", " + std::string(ir::name_of(*x->memory));
    if (x->view && !x->view->valid_shape.empty()) out += ", valid=" + dims_text(x->view->valid_shape);
    return out + "]";
  }
  if (auto* x = ir::as<ir::TupleType>(t)) {
    std::string out = "Tuple[";
    for (std::size_t i = 0; i < x->elements.size(); ++i) out += (i ? ", " : "") + type_text(x->elements[i]);
    return out + "]";
  }
  if (ir::as<ir::ArrayType>(t)) return "Array";
  if (ir::as<ir::MarkerType>(t)) return "Ptr-like marker";
  return "Unknown";
}

// ---- failing -------------------------------------------------------------------------------

[[noreturn]] inline void fail(const DeduceInput& in, const std::string& message) {
  ir::throw_user_error(in.op.name, in.op.name + ": " + message, in.span);
}

inline std::string arg_label(const DeduceInput& in, std::size_t i) {
  std::string n = i < in.op.arg_names.size() ? "'" + in.op.arg_names[i] + "'" : "argument";
  return n + " (argument " + std::to_string(i + 1) + ")";
}

// ---- argument access -----------------------------------------------------------------------

inline bool has_arg(const DeduceInput& in, std::size_t i) { return i < in.args.size() && in.args[i]; }

inline const Expr& arg(const DeduceInput& in, std::size_t i) {
  if (!has_arg(in, i)) fail(in, arg_label(in, i) + " is missing");
  return in.args[i];
}

inline const TileType& tile_arg(const DeduceInput& in, std::size_t i) {
  const Expr& e = arg(in, i);
  if (auto* t = ir::tile_type(e)) return *t;
  fail(in, arg_label(in, i) + " must be a tile, got " + type_text(e->type));
}

inline const TensorType& tensor_arg(const DeduceInput& in, std::size_t i) {
  const Expr& e = arg(in, i);
  if (auto* t = ir::tensor_type(e)) return *t;
  fail(in, arg_label(in, i) + " must be a tensor, got " + type_text(e->type));
}

inline DataType scalar_arg(const DeduceInput& in, std::size_t i) {
  const Expr& e = arg(in, i);
  if (auto* s = ir::as<ir::ScalarType>(e->type)) return s->dtype;
  fail(in, arg_label(in, i) + " must be a scalar, got " + type_text(e->type));
}

inline DataType index_arg(const DeduceInput& in, std::size_t i) {
  DataType dt = scalar_arg(in, i);
  if (!ir::is_integer(dt))
    fail(in, arg_label(in, i) + " must be an integer scalar, got " + std::string(ir::name_of(dt)));
  return dt;
}

// A shape/offset written as a literal `[a, b, ...]`.
inline const std::vector<Expr>& literal_tuple(const DeduceInput& in, std::size_t i) {
  const Expr& e = arg(in, i);
  if (auto* t = ir::as<ir::MakeTuple>(e)) return t->elements;
  fail(in, arg_label(in, i) + " must be a literal tuple like [16, 32], got " + expr_text(e));
}

// A tuple-valued argument: the literal's elements, or one TupleGetItem per element.
inline std::vector<Expr> tuple_values(const DeduceInput& in, std::size_t i) {
  const Expr& e = arg(in, i);
  if (auto* t = ir::as<ir::MakeTuple>(e)) return t->elements;
  if (auto* tt = ir::as<ir::TupleType>(e->type)) {
    std::vector<Expr> out;
    for (std::size_t k = 0; k < tt->elements.size(); ++k)
      out.push_back(ir::make_expr(ir::TupleGetItem{e, static_cast<std::int64_t>(k)}, tt->elements[k], e->span));
    return out;
  }
  fail(in, arg_label(in, i) + " must be a tuple, got " + type_text(e->type));
}

inline bool is_index_value(const Expr& e) {
  auto* s = e ? ir::as<ir::ScalarType>(e->type) : nullptr;
  return s && ir::is_integer(s->dtype);
}

// Offsets, shapes and valid shapes count elements: every entry is an integer scalar.
inline void require_index_values(const DeduceInput& in, std::size_t i, const std::vector<Expr>& values) {
  for (const auto& e : values)
    if (!is_index_value(e))
      fail(in, arg_label(in, i) + " must hold integer values, got " + expr_text(e) + " in " + dims_text(values) +
                   " (a " + type_text(e ? e->type : nullptr) + ")");
}
inline const std::vector<Expr>& index_literal(const DeduceInput& in, std::size_t i) {
  const auto& v = literal_tuple(in, i);
  require_index_values(in, i, v);
  return v;
}
inline std::vector<Expr> index_tuple(const DeduceInput& in, std::size_t i) {
  auto v = tuple_values(in, i);
  require_index_values(in, i, v);
  return v;
}

// Literal tuple of positive integer constants (a static tile shape).
inline std::vector<Expr> static_shape_arg(const DeduceInput& in, std::size_t i) {
  const auto& dims = literal_tuple(in, i);
  if (dims.empty()) fail(in, arg_label(in, i) + " must not be empty");
  for (const auto& d : dims) {
    auto c = ir::const_int(d);
    if (!c || *c <= 0)
      fail(in, arg_label(in, i) + " must hold positive integer constants, got " + dims_text(dims));
  }
  return dims;
}

// ---- kwargs ----------------------------------------------------------------------------

// The kwarg as written, else the schema's default.
inline const AttrValue* kwarg_value(const DeduceInput& in, std::string_view key) {
  if (const AttrValue* v = ir::find_kwarg(in.kwargs, key)) return v;
  if (const KwargSpec* s = in.op.kwarg(key); s && s->default_value) return &*s->default_value;
  return nullptr;
}
template <class T>
std::optional<T> kw(const DeduceInput& in, std::string_view key) {
  const AttrValue* v = kwarg_value(in, key);
  if (!v) return std::nullopt;
  if (auto* x = std::get_if<T>(v)) return *x;
  return std::nullopt;
}
// DataType kwargs may also be written as their integer code.
inline std::optional<DataType> kw_dtype(const DeduceInput& in, std::string_view key) {
  const AttrValue* v = kwarg_value(in, key);
  if (!v) return std::nullopt;
  if (auto* d = std::get_if<DataType>(v)) return *d;
  if (auto* i = std::get_if<std::int64_t>(v)) return static_cast<DataType>(*i);
  return std::nullopt;
}
inline DataType required_dtype(const DeduceInput& in, std::string_view key) {
  auto d = kw_dtype(in, key);
  if (!d) fail(in, "kwarg '" + std::string(key) + "' (a DataType such as pl.FP32) is required");
  return *d;
}
inline bool kw_flag(const DeduceInput& in, std::string_view key) { return kw<bool>(in, key).value_or(false); }

// ---- index arithmetic ------------------------------------------------------------------

inline Expr idx(std::int64_t v) { return ir::make_int(v, DataType::INDEX); }

inline Expr binary(ir::BinaryOp op, Expr a, Expr b) {
  Type t = a && ir::as<ir::ScalarType>(a->type) ? a->type : ir::scalar_type(DataType::INDEX);
  return ir::make_expr(ir::Binary{op, std::move(a), std::move(b)}, std::move(t));
}
// Constants fold only when the exact result fits in 64 bits; otherwise the node stays
// symbolic, and the checks that need the value report the overflow (checked_end).
inline Expr add(const Expr& a, const Expr& b) {
  auto x = ir::const_int(a), y = ir::const_int(b);
  if (x && y)
    if (auto r = math::checked_add(*x, *y)) return idx(*r);
  if (x && *x == 0) return b;
  if (y && *y == 0) return a;
  return binary(ir::BinaryOp::Add, a, b);
}
inline Expr sub(const Expr& a, const Expr& b) {
  auto x = ir::const_int(a), y = ir::const_int(b);
  if (x && y)
    if (auto r = math::checked_sub(*x, *y)) return idx(*r);
  if (y && *y == 0) return a;
  return binary(ir::BinaryOp::Sub, a, b);
}
inline Expr mul(const Expr& a, const Expr& b) {
  auto x = ir::const_int(a), y = ir::const_int(b);
  if (x && y)
    if (auto r = math::checked_mul(*x, *y)) return idx(*r);
  if (x && *x == 1) return b;
  if (y && *y == 1) return a;
  return binary(ir::BinaryOp::Mul, a, b);
}
// Tri-state `a <= b`: nullopt when neither constants nor identity decide it.
inline std::optional<bool> prove_le(const Expr& a, const Expr& b) {
  if (ir::loosely_equal(a, b)) return true;
  auto x = ir::const_int(a), y = ir::const_int(b);
  if (x && y) return *x <= *y;
  return std::nullopt;
}
inline Expr min(const Expr& a, const Expr& b) {
  if (auto le = prove_le(a, b)) return *le ? a : b;
  return binary(ir::BinaryOp::Min, a, b);
}
inline Expr max(const Expr& a, const Expr& b) {
  if (auto le = prove_le(a, b)) return *le ? b : a;
  return binary(ir::BinaryOp::Max, a, b);
}
inline bool same_dim(const Expr& a, const Expr& b) { return ir::loosely_equal(a, b); }
inline bool is_const(const Expr& e, std::int64_t v) {
  auto c = ir::const_int(e);
  return c && *c == v;
}

// ---- shapes --------------------------------------------------------------------------

// NumPy right-aligned broadcast; nullopt when two dims differ and neither is 1.
inline std::optional<std::vector<Expr>> broadcast_shapes(const std::vector<Expr>& a,
                                                        const std::vector<Expr>& b) {
  std::size_t n = std::max(a.size(), b.size());
  std::vector<Expr> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Expr* x = i < n - a.size() ? nullptr : &a[i - (n - a.size())];
    const Expr* y = i < n - b.size() ? nullptr : &b[i - (n - b.size())];
    if (!x) out[i] = *y;
    else if (!y) out[i] = *x;
    else if (same_dim(*x, *y)) out[i] = *x;
    else if (is_const(*x, 1)) out[i] = *y;
    else if (is_const(*y, 1)) out[i] = *x;
    else return std::nullopt;
  }
  return out;
}

// nullopt when a dim is symbolic or the product does not fit in 64 bits.
inline std::optional<std::int64_t> static_product(const std::vector<Expr>& dims) {
  std::int64_t p = 1;
  for (const auto& d : dims) {
    auto c = ir::const_int(d);
    if (!c) return std::nullopt;
    auto q = math::checked_mul(p, *c);
    if (!q) return std::nullopt;
    p = *q;
  }
  return p;
}

// offset + extent when both are constants; a sum that does not fit in 64 bits is an error
// in the text (an offset near the top of the index range), not a wrapped index.
inline std::optional<std::int64_t> checked_end(const DeduceInput& in, const Expr& offset, const Expr& extent,
                                               std::size_t dim) {
  auto o = ir::const_int(offset), e = ir::const_int(extent);
  if (!o || !e) return std::nullopt;
  auto end = math::checked_add(*o, *e);
  if (!end)
    fail(in, "offset " + std::to_string(*o) + " + extent " + std::to_string(*e) + " in dim " + std::to_string(dim) +
                 " overflows 64-bit index arithmetic; the offset is out of any tensor's range");
  return end;
}

inline void reject_negative_offsets(const DeduceInput& in, const std::vector<Expr>& offsets) {
  for (std::size_t i = 0; i < offsets.size(); ++i)
    if (auto o = ir::const_int(offsets[i]); o && *o < 0)
      fail(in, "offset " + dims_text(offsets) + " is negative in dim " + std::to_string(i) +
                   "; offsets count from 0");
}

// Per dim: min(requested valid (or the window), clamp(source valid - offset, 0, window)).
// A source whose valid region is its full shape is assumed to cover every symbolic window
// (loads at loop-dependent offsets stay full), which is how kernels are written.
// `exact`: the whole window must lie inside the source shape (slice/extract); otherwise
// only the requested extent (load). Violations that constants prove are errors unless
// `clamp`.
inline std::vector<Expr> window_read_valid(const DeduceInput& in, const std::vector<Expr>& src_shape,
                                           const std::vector<Expr>& src_valid,
                                           const std::vector<Expr>& offsets,
                                           const std::vector<Expr>& window,
                                           const std::vector<Expr>* requested, bool exact, bool clamp) {
  std::vector<Expr> out;
  for (std::size_t i = 0; i < window.size(); ++i) {
    const Expr& req = requested ? (*requested)[i] : window[i];
    auto off = ir::const_int(offsets[i]);
    if (off && *off < 0 && !clamp)
      fail(in, "offset " + dims_text(offsets) + " is negative in dim " + std::to_string(i));
    const Expr& extent = exact ? window[i] : req;
    auto end = checked_end(in, offsets[i], extent, i);
    auto lim = ir::const_int(src_shape[i]);
    if (end && lim && *end > *lim && !clamp)
      fail(in, "window " + dims_text(window) + " at offset " + dims_text(offsets) +
                   " reads past the source shape " + dims_text(src_shape) + " in dim " +
                   std::to_string(i) + "; shrink the window or pass clamp=True");
    Expr available;
    if (same_dim(src_valid[i], src_shape[i]) && !(end && lim && *end > *lim)) {
      available = window[i];
    } else {
      Expr rest = sub(src_valid[i], offsets[i]);
      if (auto r = ir::const_int(rest); r && *r < 0) rest = idx(0);
      available = min(rest, window[i]);
    }
    // A requested valid extent never exceeds its window, so only a narrowed availability
    // can cut it further.
    if (same_dim(available, window[i])) out.push_back(req);
    else if (same_dim(req, window[i])) out.push_back(available);
    else out.push_back(min(req, available));
  }
  return out;
}

// ---- layout --------------------------------------------------------------------------

// InheritTileViewLayout: blayout, slayout, pad and compact of the source's effective view
// (fractal deliberately not carried).
inline void inherit_layout(TileView& dst, const TileType& src) {
  TileView e = ir::effective_view(src);
  dst.blayout = e.blayout;
  dst.slayout = e.slayout;
  dst.pad = e.pad;
  dst.compact = e.compact;
}

// TileView's field defaults (row_major, none_box, 512) — NOT the shape rule, so a [N, 1]
// result built from it keeps an explicit row_major view.
inline TileView default_view() {
  return TileView{{}, {}, nullptr, TileLayout::row_major, TileLayout::none_box, 512,
                  ir::PadValue::null, ir::CompactMode::null};
}
// The Acc box layout (col_major, row_major, 1024).
inline TileView acc_view() {
  TileView v = default_view();
  v.blayout = TileLayout::col_major;
  v.slayout = TileLayout::row_major;
  v.fractal = 1024;
  return v;
}

inline Type tile(std::vector<Expr> shape, DataType dtype, std::optional<TileView> view = std::nullopt,
                 std::optional<MemorySpace> memory = std::nullopt) {
  return ir::make_tile_type(std::move(shape), dtype, std::move(view), memory);
}

inline std::string dtype_text(DataType d) { return std::string(ir::name_of(d)); }

// ---- element access and reductions, shared by the tile and tensor forms ------------------

// Operand 1 of a read/write of one element: an integer index per axis of a rank-`rank` `what`.
inline void check_element_indices(const DeduceInput& in, std::size_t rank, std::string_view what) {
  auto indices = tuple_values(in, 1);
  if (indices.size() != rank)
    fail(in, "expects " + std::to_string(rank) + " indices for a rank-" + std::to_string(rank) + " " +
                 std::string(what) + ", got " + std::to_string(indices.size()));
  for (const auto& i : indices) {
    auto* s = ir::as<ir::ScalarType>(i->type);
    if (!s || !ir::is_integer(s->dtype)) fail(in, "indices must be integer scalars, got " + expr_text(i));
  }
}

// Operand 2 of a write of one element: a scalar of the destination's dtype.
inline void check_written_value(const DeduceInput& in, DataType dtype, std::string_view what) {
  DataType v = scalar_arg(in, 2);
  if (v != dtype)
    fail(in, "value dtype " + dtype_text(v) + " must equal the " + std::string(what) + " dtype " + dtype_text(dtype) +
                 "; cast the value first");
}

inline void reject_empty_valid(const DeduceInput& in, const std::vector<Expr>& valid) {
  for (const auto& d : valid)
    if (is_const(d, 0)) fail(in, "input valid shape " + dims_text(valid) + " is empty on some axis");
}

}  // namespace tilewright::ops::deduce
