#pragma once
// What each tile.* op computes, on the interpreter's values (value.hpp).
//
// The shared rules:
// * A result's shape, valid region and dtype come from the Call's type (evaluated). Elements
//   outside the valid region are undefined; inside it an element is defined when every
//   input it is computed from is defined.
// * Arithmetic runs in double and the result is rounded once to the result dtype.
// * Reductions and matmuls sum over the valid extent of the reduced axis only.
// * Windows (load, store, slice, extract, assemble) that run past their container stop the
//   run with a `cannot_run` error: the program cannot run with those values.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tilewright/interp/interpreter.hpp"

namespace tilewright::interp::ops_detail {

// Row-major linear index → multi-index, one step at a time.
inline bool next_index(Dims& idx, const Dims& shape) noexcept {
  for (std::size_t k = idx.size(); k-- > 0;) {
    if (++idx[k] < shape[k]) return true;
    idx[k] = 0;
  }
  return false;
}

inline std::int64_t linear(const Dims& idx, const Dims& shape) noexcept {
  std::int64_t lin = 0;
  for (std::size_t k = 0; k < idx.size(); ++k) lin = lin * shape[k] + idx[k];
  return lin;
}

inline Dims unflatten(std::int64_t lin, const Dims& shape) {
  Dims idx(shape.size(), 0);
  for (std::size_t k = shape.size(); k-- > 0;) {
    if (shape[k] > 0) {
      idx[k] = lin % shape[k];
      lin /= shape[k];
    }
  }
  return idx;
}

inline std::string index_string(const Dims& d) { return dims_string(d); }

inline std::shared_ptr<Tile> new_result(const OpCall& c) {
  TileInfo info = c.result_tile();
  if (!is_modelled(info.dtype))
    c.fail(RunErrorKind::unsupported, "dtype " + std::string(ir::name_of(info.dtype)) + " is not modelled");
  run_allocation(element_count(info.shape), "the tile " + dims_string(info.shape), c.expr->span);
  return std::make_shared<Tile>(info.dtype, info.shape, info.valid);
}

// Rounds every defined element to the tile's dtype and clears the defined bit outside the
// valid region.
inline Value finish(std::shared_ptr<Tile> t) {
  for (std::size_t i = 0; i < t->size(); ++i) {
    if (t->defined[i]) t->data[i] = store_rounded(t->data[i], t->dtype);
    else t->data[i] = 0.0;
  }
  Interpreter::mask_to_valid(*t);
  return TilePtr(std::move(t));
}

// Maps result indices onto an operand under NumPy broadcasting (right-aligned, size-1 axes
// repeat): the operand's linear offset as a dot product with per-result-axis strides.
struct Broadcast {
  Dims strides;  // per result axis; 0 where the operand repeats
  bool identity = false;

  Broadcast(const Dims& operand, const Dims& result) {
    identity = operand == result;
    strides.assign(result.size(), 0);
    std::int64_t s = 1;
    for (std::size_t k = operand.size(); k-- > 0;) {
      std::size_t j = k + result.size() - operand.size();
      strides[j] = operand[k] == 1 ? 0 : s;
      s *= operand[k];
    }
  }
  [[nodiscard]] std::int64_t offset(const Dims& idx) const noexcept {
    std::int64_t o = 0;
    for (std::size_t k = 0; k < idx.size(); ++k) o += idx[k] * strides[k];
    return o;
  }
};

inline void check_broadcast(const OpCall& c, const Tile& t, const Dims& result) {
  if (t.rank() > result.size()) c.fail("an operand of shape " + dims_string(t.shape) + " does not broadcast to " + dims_string(result));
  for (std::size_t k = 0; k < t.rank(); ++k) {
    auto r = result[k + result.size() - t.rank()];
    if (t.shape[k] != 1 && t.shape[k] != r)
      c.fail("an operand of shape " + dims_string(t.shape) + " does not broadcast to " + dims_string(result));
  }
}

// An element-for-element op reads operand element i for result element i. The ops whose
// result type comes from an annotation instead of a deduction (tensor.cast, tensor.exp) can
// be handed a result of another size: refuse it rather than read past the operand.
inline void check_same_size(const OpCall& c, const Tile& a, const Tile& out) {
  if (element_count(a.shape) != element_count(out.shape))
    c.fail("the operand " + dims_string(a.shape) + " and the result " + dims_string(out.shape) + " differ in size");
}

// out[i] = f(a[i], b[i]) over the result shape, with broadcasting.
template <class F>
Value map2(OpCall& c, const Tile& a, const Tile& b, F f) {
  auto out = new_result(c);
  check_broadcast(c, a, out->shape);
  check_broadcast(c, b, out->shape);
  Broadcast ba(a.shape, out->shape), bb(b.shape, out->shape);
  if (ba.identity && b.size() == 1) {  // a tile and a scalar
    for (std::size_t i = 0; i < out->size(); ++i) {
      out->defined[i] = a.defined[i] & b.defined[0];
      if (out->defined[i]) out->data[i] = f(a.data[i], b.data[0]);
    }
    return finish(std::move(out));
  }
  if (ba.identity && bb.identity) {
    for (std::size_t i = 0; i < out->size(); ++i) {
      out->defined[i] = a.defined[i] & b.defined[i];
      if (out->defined[i]) out->data[i] = f(a.data[i], b.data[i]);
    }
    return finish(std::move(out));
  }
  Dims idx(out->rank(), 0);
  for (std::size_t i = 0; i < out->size(); ++i, next_index(idx, out->shape)) {
    auto oa = static_cast<std::size_t>(ba.offset(idx)), ob = static_cast<std::size_t>(bb.offset(idx));
    out->defined[i] = a.defined[oa] & b.defined[ob];
    if (out->defined[i]) out->data[i] = f(a.data[oa], b.data[ob]);
  }
  return finish(std::move(out));
}

template <class F>
Value map1(OpCall& c, const Tile& a, F f) {
  auto out = new_result(c);
  check_same_size(c, a, *out);
  for (std::size_t i = 0; i < out->size(); ++i) {
    out->defined[i] = a.defined[i];
    if (a.defined[i]) out->data[i] = f(a.data[i]);
  }
  return finish(std::move(out));
}

inline Tile scalar_tile(const Scalar& s) {
  Tile t(s.dtype, {1}, {1});
  t.data[0] = s.value;
  t.defined[0] = s.defined;
  return t;
}

inline std::int64_t to_int(double v) noexcept { return to_i64(v); }

// ---- the element functions ----------------------------------------------------------------

inline double f_add(double a, double b) { return a + b; }
inline double f_sub(double a, double b) { return a - b; }
inline double f_mul(double a, double b) { return a * b; }
inline double f_div(double a, double b) { return a / b; }
inline double f_max(double a, double b) { return std::isnan(a) || std::isnan(b) ? std::nan("") : std::max(a, b); }
inline double f_min(double a, double b) { return std::isnan(a) || std::isnan(b) ? std::nan("") : std::min(a, b); }
inline double f_fmod(double a, double b) { return std::fmod(a, b); }
inline double f_and(double a, double b) { return static_cast<double>(to_int(a) & to_int(b)); }
inline double f_or(double a, double b) { return static_cast<double>(to_int(a) | to_int(b)); }
inline double f_xor(double a, double b) { return static_cast<double>(to_int(a) ^ to_int(b)); }
inline double f_shl(double a, double b) {
  return b < 0 || b >= 63 ? 0.0 : static_cast<double>(static_cast<std::int64_t>(static_cast<std::uint64_t>(to_int(a)) << to_int(b)));
}
inline double f_shr(double a, double b) { return b < 0 || b >= 63 ? (a < 0 ? -1.0 : 0.0) : static_cast<double>(to_int(a) >> to_int(b)); }
inline double f_expdif(double a, double b) { return std::exp(a - b); }
inline double f_second(double, double b) { return b; }

inline double f_exp(double a) { return std::exp(a); }
inline double f_neg(double a) { return -a; }
inline double f_abs(double a) { return std::fabs(a); }
inline double f_sqrt(double a) { return std::sqrt(a); }
inline double f_rsqrt(double a) { return 1.0 / std::sqrt(a); }
inline double f_recip(double a) { return 1.0 / a; }
inline double f_relu(double a) { return a > 0 ? a : 0.0; }
inline double f_log(double a) { return std::log(a); }
inline double f_sin(double a) { return std::sin(a); }
inline double f_cos(double a) { return std::cos(a); }
inline double f_not(double a) { return static_cast<double>(~to_int(a)); }

using Binary = double (*)(double, double);
using Unary = double (*)(double);

// Integer division truncates (the vector ALU), float division is IEEE.
template <Binary F>
Value tile_tile(OpCall& c) {
  const Tile& a = c.tile(0);
  const Tile& b = c.tile(1);
  if constexpr (F == f_div) {
    if (!ir::is_float(a.dtype))
      return map2(c, a, b, [](double x, double y) { return y == 0 ? 0.0 : std::trunc(x / y); });
  }
  return map2(c, a, b, F);
}

template <Binary F>
Value tile_scalar(OpCall& c) {
  const Tile& a = c.tile(0);
  Tile s = scalar_tile(c.scalar(1));
  if constexpr (F == f_div) {
    if (!ir::is_float(a.dtype))
      return map2(c, a, s, [](double x, double y) { return y == 0 ? 0.0 : std::trunc(x / y); });
  }
  return map2(c, a, s, F);
}

template <Unary F>
Value unary(OpCall& c) {
  return map1(c, c.tile(0), F);
}

inline Value lrelu(OpCall& c) {
  double slope = c.scalar(1).value;
  Tile s = scalar_tile(c.scalar(1));
  return map2(c, c.tile(0), s, [slope](double x, double) { return x > 0 ? x : x * slope; });
}

// tile.expands(target, scalar): the target's shape filled with the scalar.
inline Value expands(OpCall& c) {
  Tile s = scalar_tile(c.scalar(1));
  return map2(c, c.tile(0), s, f_second);
}

// row_expand / col_expand: the vector operand broadcasts over the target ([R, 1] along
// rows, [1, C] along columns); the plain forms copy the vector.
template <Binary F>
Value expand(OpCall& c) {
  return map2(c, c.tile(0), c.tile(1), F);
}

inline CastMode cast_mode(const OpCall& c) {
  if (auto m = c.kw<std::int64_t>("mode"); m && *m >= 0 && *m <= static_cast<std::int64_t>(CastMode::odd))
    return static_cast<CastMode>(*m);
  return CastMode::none;
}

inline Value cast(OpCall& c) {
  const Tile& a = c.tile(0);
  auto out = new_result(c);
  check_same_size(c, a, *out);
  CastMode mode = cast_mode(c);
  for (std::size_t i = 0; i < out->size(); ++i) {
    out->defined[i] = a.defined[i];
    if (a.defined[i]) out->data[i] = cast_value(a.data[i], a.dtype, out->dtype, mode);
  }
  return finish(std::move(out));
}

// out[i] = f(a[i], b[i], d[i]) over the result shape, with broadcasting (the fused ternary
// ops: addc a + b + d, subc a - b + d, and with a scalar b, addsc / subsc).
template <class F>
Value map3(OpCall& c, const Tile& a, const Tile& b, const Tile& d, F f) {
  auto out = new_result(c);
  for (const Tile* t : {&a, &b, &d}) check_broadcast(c, *t, out->shape);
  Broadcast ba(a.shape, out->shape), bb(b.shape, out->shape), bd(d.shape, out->shape);
  Dims idx(out->rank(), 0);
  for (std::size_t i = 0; i < out->size(); ++i, next_index(idx, out->shape)) {
    auto oa = static_cast<std::size_t>(ba.offset(idx)), ob = static_cast<std::size_t>(bb.offset(idx)),
         od = static_cast<std::size_t>(bd.offset(idx));
    out->defined[i] = a.defined[oa] & b.defined[ob] & d.defined[od];
    if (out->defined[i]) out->data[i] = f(a.data[oa], b.data[ob], d.data[od]);
  }
  return finish(std::move(out));
}

template <bool Sub>
Value ternary_tiles(OpCall& c) {
  return map3(c, c.tile(0), c.tile(1), c.tile(2), [](double a, double b, double d) { return (Sub ? a - b : a + b) + d; });
}

template <bool Sub>
Value ternary_scalar(OpCall& c) {
  Tile s = scalar_tile(c.scalar(1));
  return map3(c, c.tile(0), s, c.tile(2), [](double a, double b, double d) { return (Sub ? a - b : a + b) + d; });
}

// prelu(x, slope, tmp): x where x > 0, else x * slope (a slope per element).
inline Value prelu(OpCall& c) {
  return map2(c, c.tile(0), c.tile(1), [](double x, double slope) { return x > 0 ? x : x * slope; });
}

// The partial ops (part_add, …) combine two tiles of the result's shape whose valid regions
// differ: where both are defined, f of both; where one is, that one; elsewhere undefined.
template <Binary F>
Value part(OpCall& c) {
  const Tile& a = c.tile(0);
  const Tile& b = c.tile(1);
  auto out = new_result(c);
  if (a.shape != out->shape || b.shape != out->shape)
    c.fail("the operands " + dims_string(a.shape) + " and " + dims_string(b.shape) + " must have the result's shape " +
           dims_string(out->shape));
  for (std::size_t i = 0; i < out->size(); ++i) {
    const bool da = a.defined[i] != 0, db = b.defined[i] != 0;
    out->defined[i] = da || db;
    out->data[i] = da && db ? F(a.data[i], b.data[i]) : da ? a.data[i] : db ? b.data[i] : 0.0;
  }
  return finish(std::move(out));
}

// ---- compare and select --------------------------------------------------------------------
//
// tile.cmp/cmps produce a packed predicate, as PTO's TCMP does: along the last axis, element
// c of a row is bit c % w (lowest first) of mask element c / w of the same row, w the mask
// dtype's width; a row's bits past the operand's valid columns are 0. tile.sel/sels read a
// mask the same way. Rows stay rows, so merging leading axes keeps every bit with its
// element — what FlattenTileNdTo2D relies on when it re-creates these ops on 2D tiles.

// The mask element holding column `c` of the row at `lead` (the leading indices), checked
// against the mask's shape: the mask must have the data's rank and leading extents.
struct PackedMask {
  const Tile* mask = nullptr;
  int width = 0;

  PackedMask(const OpCall& c, const Tile& m, const Dims& data_shape) : mask(&m) {
    if (!ir::is_integer(m.dtype) || ir::bit_width(m.dtype) < 8 || ir::bit_width(m.dtype) > 32)
      c.fail(RunErrorKind::unsupported, "a predicate mask of dtype " + std::string(ir::name_of(m.dtype)) +
                                            " is not modelled (an 8, 16 or 32-bit integer tile packs the predicate bits)");
    width = static_cast<int>(ir::bit_width(m.dtype));
    bool lines_up = m.rank() == data_shape.size() && m.rank() >= 1;
    for (std::size_t k = 0; lines_up && k + 1 < m.rank(); ++k) lines_up = m.shape[k] == data_shape[k];
    if (lines_up) {
      const std::int64_t columns = data_shape.back();
      lines_up = m.shape.back() * width >= columns;
    }
    if (!lines_up)
      c.fail("the predicate mask " + dims_string(m.shape) + " (" + std::string(ir::name_of(m.dtype)) +
             ") does not hold one bit per element of " + dims_string(data_shape) +
             " row by row: it needs the same leading extents and at least ceil(columns / " +
             std::to_string(ir::bit_width(m.dtype)) + ") elements per row");
  }
  // The element of the mask holding (idx), as a linear index, and the bit in it.
  [[nodiscard]] std::pair<std::size_t, int> at(const Dims& idx) const {
    Dims m = idx;
    m.back() = idx.back() / width;
    return {static_cast<std::size_t>(linear(m, mask->shape)), static_cast<int>(idx.back() % width)};
  }
  [[nodiscard]] bool bit(std::size_t element, int b) const {
    auto bits = static_cast<std::uint64_t>(to_int(mask->data[element]));
    return ((bits >> b) & 1u) != 0;
  }
};

inline bool compare(std::int64_t mode, double a, double b) {
  switch (mode) {
    case 0: return a == b;
    case 1: return a != b;
    case 2: return a < b;
    case 3: return a <= b;
    case 4: return a > b;
    default: return a >= b;
  }
}

// cmp(lhs, rhs) / cmps(lhs, scalar): the predicate over lhs's shape (rhs broadcast to it),
// packed into the result's rows.
inline Value compare_packed(OpCall& c, const Tile& a, const Tile& b) {
  const auto mode = c.kw<std::int64_t>("cmp_type").value_or(0);
  if (mode < 0 || mode > 5) c.fail("cmp_type " + std::to_string(mode) + " is not a comparison (0..5: eq, ne, lt, le, gt, ge)");
  auto out = new_result(c);
  check_broadcast(c, b, a.shape);
  Broadcast bb(b.shape, a.shape);
  const PackedMask packed(c, *out, a.shape);
  const std::int64_t valid_columns = a.valid.empty() ? 1 : a.valid.back();
  std::vector<std::uint64_t> bits(out->size(), 0);
  std::vector<std::uint8_t> seen(out->size(), 0);  // 1: a bit seen, 2: an undefined one
  Dims idx(a.rank(), 0);
  for (std::size_t i = 0; i < a.size(); ++i, next_index(idx, a.shape)) {
    if (idx.back() >= valid_columns) continue;  // padding: stays 0
    auto [e, bit] = packed.at(idx);
    const auto ob = static_cast<std::size_t>(bb.offset(idx));
    if (!a.defined[i] || !b.defined[ob]) {
      seen[e] = 2;
      continue;
    }
    if (seen[e] == 0) seen[e] = 1;
    if (compare(mode, a.data[i], b.data[ob])) bits[e] |= std::uint64_t{1} << bit;
  }
  const int width = packed.width;
  for (std::size_t e = 0; e < out->size(); ++e) {
    out->defined[e] = seen[e] == 1;
    if (!out->defined[e]) continue;
    auto v = static_cast<double>(bits[e]);
    if (!ir::is_unsigned(out->dtype) && (bits[e] >> (width - 1)) != 0) v -= std::ldexp(1.0, width);
    out->data[e] = v;
  }
  return finish(std::move(out));
}

inline Value cmp(OpCall& c) { return compare_packed(c, c.tile(0), c.tile(1)); }
inline Value cmps(OpCall& c) {
  Tile s = scalar_tile(c.scalar(1));
  return compare_packed(c, c.tile(0), s);
}

// sel(mask, lhs, rhs, tmp): lhs where the element's bit is 1, rhs where it is 0;
// sels(mask, src, tmp, scalar): src where 1, the scalar where 0.
inline Value select_packed(OpCall& c, const Tile& mask, const Tile& on, const Tile& off) {
  auto out = new_result(c);
  check_broadcast(c, on, out->shape);
  check_broadcast(c, off, out->shape);
  Broadcast bon(on.shape, out->shape), boff(off.shape, out->shape);
  const PackedMask packed(c, mask, out->shape);
  Dims idx(out->rank(), 0);
  for (std::size_t i = 0; i < out->size(); ++i, next_index(idx, out->shape)) {
    auto [e, bit] = packed.at(idx);
    if (!mask.defined[e]) continue;
    const Tile& from = packed.bit(e, bit) ? on : off;
    const auto o = static_cast<std::size_t>((&from == &on ? bon : boff).offset(idx));
    out->defined[i] = from.defined[o];
    if (out->defined[i]) out->data[i] = from.data[o];
  }
  return finish(std::move(out));
}

inline Value sel(OpCall& c) { return select_packed(c, c.tile(0), c.tile(1), c.tile(2)); }
inline Value sels(OpCall& c) {
  Tile s = scalar_tile(c.scalar(3));
  return select_packed(c, c.tile(0), c.tile(1), s);
}

// ---- reductions --------------------------------------------------------------------------

enum class Reduce : std::uint8_t { sum, max, min, prod };

inline double reduce_init(Reduce r) {
  switch (r) {
    case Reduce::sum: return 0.0;
    case Reduce::prod: return 1.0;
    case Reduce::max: return -INFINITY;
    case Reduce::min: return INFINITY;
  }
  return 0.0;
}
inline double reduce_step(Reduce r, double acc, double x) {
  switch (r) {
    case Reduce::sum: return acc + x;
    case Reduce::prod: return acc * x;
    case Reduce::max: return f_max(acc, x);
    case Reduce::min: return f_min(acc, x);
  }
  return acc;
}

// Reduces axis `axis` of the input (the last for row_*, the first for col_*) over its valid
// extent; the result keeps that axis with extent 1. `fold(element, k)` is called for the k-th
// valid element along the axis, in order, and `value()` gives the result once all are seen;
// an undefined element makes the result undefined.
template <bool Rows, class Start>
Value reduce_axis(OpCall& c, Start start) {
  const Tile& a = c.tile(0);
  if (a.rank() < 1) c.fail("needs a tile of rank >= 1");
  auto out = new_result(c);
  std::size_t axis = Rows ? a.rank() - 1 : 0;
  Dims expect = a.shape;
  expect[axis] = 1;
  if (element_count(expect) != element_count(out->shape))
    c.fail("result " + dims_string(out->shape) + " does not match the reduction of " + dims_string(a.shape));
  std::int64_t n = a.valid[axis];
  std::int64_t stride = 1;
  for (std::size_t k = axis + 1; k < a.rank(); ++k) stride *= a.shape[k];
  Dims idx(expect.size(), 0);
  for (std::size_t i = 0; i < out->size(); ++i, next_index(idx, expect)) {
    std::int64_t base = linear(idx, a.shape);
    auto acc = start();
    bool defined = n > 0;
    for (std::int64_t k = 0; k < n && defined; ++k) {
      auto at = static_cast<std::size_t>(base + k * stride);
      defined = a.defined[at];
      acc.fold(a.data[at], k);
    }
    out->defined[i] = defined;
    if (defined) out->data[i] = acc.value();
  }
  return finish(std::move(out));
}

template <Reduce R, bool Rows>
Value reduce(OpCall& c) {
  struct Acc {
    double v = reduce_init(R);
    void fold(double x, std::int64_t) { v = reduce_step(R, v, x); }
    [[nodiscard]] double value() const { return v; }
  };
  return reduce_axis<Rows>(c, [] { return Acc{}; });
}

// row_argmax / col_argmax and the argmin forms: the index, along the reduced axis, of the
// first largest (smallest) element of its valid extent.
template <bool Max, bool Rows>
Value arg_reduce(OpCall& c) {
  struct Acc {
    double best = Max ? -INFINITY : INFINITY;
    std::int64_t at = 0;
    void fold(double x, std::int64_t k) {
      if (k == 0 || (Max ? x > best : x < best)) {
        best = x;
        at = k;
      }
    }
    [[nodiscard]] double value() const { return static_cast<double>(at); }
  };
  return reduce_axis<Rows>(c, [] { return Acc{}; });
}

// ---- matmul family -----------------------------------------------------------------------

// One [M, N] product page: out[o + i*N + j] (+)= Σ_k<K lhs[i, k] * rhs[k, j], K the lhs's
// valid column extent. `acc`: the accumulator page to add to, or null.
struct Page {
  const Tile* t;
  std::int64_t base;  // element offset of the page
  std::int64_t rows, cols, valid_rows, valid_cols;
};

inline Page page_of(const Tile& t, std::int64_t batch) {
  std::size_t n = t.rank();
  std::int64_t rows = t.shape[n - 2], cols = t.shape[n - 1];
  return {&t, batch * rows * cols, rows, cols, t.valid[n - 2], t.valid[n - 1]};
}

inline void multiply_page(Tile& out, std::int64_t out_base, std::int64_t out_cols, std::int64_t m, std::int64_t n,
                          const Page& lhs, const Page& rhs, const Page* acc, const Page* bias) {
  std::int64_t k_valid = lhs.valid_cols;
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      auto o = static_cast<std::size_t>(out_base + i * out_cols + j);
      bool defined = i < lhs.rows && j < rhs.cols;
      double sum = 0.0;
      if (acc) {
        auto a = static_cast<std::size_t>(acc->base + i * acc->cols + j);
        defined = defined && acc->t->defined[a];
        sum = acc->t->data[a];
      }
      if (bias) {
        auto b = static_cast<std::size_t>(bias->base + j);
        defined = defined && bias->t->defined[b];
        sum += bias->t->data[b];
      }
      for (std::int64_t k = 0; k < k_valid && defined; ++k) {
        auto l = static_cast<std::size_t>(lhs.base + i * lhs.cols + k);
        auto r = static_cast<std::size_t>(rhs.base + k * rhs.cols + j);
        defined = lhs.t->defined[l] && rhs.t->defined[r];
        sum += lhs.t->data[l] * rhs.t->data[r];
      }
      out.defined[o] = defined;
      out.data[o] = defined ? sum : 0.0;
    }
  }
}

inline bool init_cond(const OpCall& c, std::size_t i) {
  if (!c.has(i)) return false;
  const Scalar& s = c.scalar(i);
  if (!s.defined) c.fail(RunErrorKind::cannot_run, "init_cond is undefined");
  return s.value != 0;
}

// matmul(lhs, rhs), matmul_acc(acc, lhs, rhs[, init_cond]), matmul_bias(lhs, rhs, bias) and
// the gemv forms (their [16, N] result holds the product in row 0).
template <bool Acc, bool Bias>
Value matmul(OpCall& c) {
  std::size_t l = Acc ? 1 : 0;
  const Tile& lhs = c.tile(l);
  const Tile& rhs = c.tile(l + 1);
  if (lhs.rank() != 2 || rhs.rank() != 2) c.fail("lhs and rhs must be 2-D, got " + dims_string(lhs.shape) + " and " + dims_string(rhs.shape));
  if (lhs.shape[1] != rhs.shape[0]) c.fail("inner dims differ: " + dims_string(lhs.shape) + " x " + dims_string(rhs.shape));
  auto out = new_result(c);
  if (out->rank() != 2) c.fail("the result must be 2-D");
  Page pl = page_of(lhs, 0), pr = page_of(rhs, 0);
  Page pa{}, pb{};
  bool use_acc = false;
  if constexpr (Acc) {
    const Tile& acc = c.tile(0);
    if (acc.shape != out->shape) c.fail("acc " + dims_string(acc.shape) + " and result " + dims_string(out->shape) + " differ");
    pa = page_of(acc, 0);
    use_acc = !init_cond(c, 3);
  }
  if constexpr (Bias) pb = page_of(c.tile(2), 0);
  multiply_page(*out, 0, out->shape[1], out->shape[0], out->shape[1], pl, pr, use_acc ? &pa : nullptr,
                Bias ? &pb : nullptr);
  return finish(std::move(out));
}

// The batch shape two operands' batch dims broadcast to (right-aligned, size-1 axes repeat).
inline Dims broadcast_batch(const OpCall& c, const Dims& a, const Dims& b) {
  const Dims& longer = a.size() >= b.size() ? a : b;
  const Dims& shorter = a.size() >= b.size() ? b : a;
  Dims out = longer;
  for (std::size_t k = 0; k < shorter.size(); ++k) {
    std::int64_t& o = out[k + longer.size() - shorter.size()];
    std::int64_t s = shorter[k];
    if (o == 1) o = s;
    else if (s != 1 && s != o) c.fail("batch dims " + dims_string(a) + " and " + dims_string(b) + " do not broadcast");
  }
  return out;
}

// batch_matmul(lhs[..., M, K], rhs[..., K, N]) and batch_matmul_acc(acc, lhs, rhs): one page
// per batch index of the operands' broadcast batch shape; a size-1 or missing operand axis
// repeats. The pages follow one another row-major in the result, which its annotation may
// give another shape of the same size (the flattened form a pass prints: [B, M, N] read as
// [B * M, N]), so the result's own shape only has to hold them.
template <bool Acc>
Value batch_matmul(OpCall& c) {
  std::size_t l = Acc ? 1 : 0;
  const Tile& lhs = c.tile(l);
  const Tile& rhs = c.tile(l + 1);
  if (lhs.rank() < 2 || rhs.rank() < 2) c.fail("operands must be at least 2-D");
  if (lhs.shape.back() != rhs.shape[rhs.rank() - 2]) c.fail("inner dims differ: " + dims_string(lhs.shape) + " x " + dims_string(rhs.shape));
  auto out = new_result(c);
  Dims lb(lhs.shape.begin(), lhs.shape.end() - 2), rb(rhs.shape.begin(), rhs.shape.end() - 2);
  Dims batch = broadcast_batch(c, lb, rb);
  if (batch.empty()) batch = {1};
  const std::int64_t m = lhs.shape[lhs.rank() - 2], nn = rhs.shape.back();
  const std::int64_t pages = element_count(batch);
  if (element_count(out->shape) != pages * m * nn)
    c.fail("the result " + dims_string(out->shape) + " does not hold " + std::to_string(pages) + " products of " +
           std::to_string(m) + " x " + std::to_string(nn));
  Broadcast bl(lb.empty() ? Dims{1} : lb, batch);
  Broadcast br(rb.empty() ? Dims{1} : rb, batch);
  const Tile* acc = Acc ? &c.tile(0) : nullptr;
  bool use_acc = Acc && !init_cond(c, 3);
  if (acc && acc->shape != out->shape) c.fail("acc " + dims_string(acc->shape) + " and result " + dims_string(out->shape) + " differ");
  Dims idx(batch.size(), 0);
  for (std::int64_t b = 0; b < pages; ++b, next_index(idx, batch)) {
    Page pl = page_of(lhs, bl.offset(idx)), pr = page_of(rhs, br.offset(idx));
    Page pa = acc ? Page{acc, b * m * nn, m, nn, m, nn} : Page{};
    multiply_page(*out, b * m * nn, nn, m, nn, pl, pr, use_acc ? &pa : nullptr, nullptr);
  }
  return finish(std::move(out));
}

// ---- creation and movement ---------------------------------------------------------------

inline Value create(OpCall& c) { return finish(new_result(c)); }

inline Value full(OpCall& c) {
  auto out = new_result(c);
  const Scalar& v = c.scalar(1);
  for (std::size_t i = 0; i < out->size(); ++i) {
    out->data[i] = v.value;
    out->defined[i] = v.defined;
  }
  return finish(std::move(out));
}

// The same elements in row-major order under the result's type (move, reshape, retyping).
inline Value copy_as_result(OpCall& c, const Tile& a) {
  auto out = new_result(c);
  if (element_count(a.shape) != element_count(out->shape))
    c.fail("cannot view " + dims_string(a.shape) + " as " + dims_string(out->shape) + ": the element counts differ");
  out->data = a.data;
  out->defined = a.defined;
  return finish(std::move(out));
}

inline Value move(OpCall& c) { return copy_as_result(c, c.tile(0)); }
inline Value reshape(OpCall& c) { return copy_as_result(c, c.tile(0)); }

inline Value set_validshape(OpCall& c) { return copy_as_result(c, c.tile(0)); }

inline double pad_fill(ir::PadValue p, DataType dt) {
  switch (p) {
    case ir::PadValue::max: return ir::is_float(dt) ? INFINITY : integer_max(dt);
    case ir::PadValue::min: return ir::is_float(dt) ? -INFINITY : integer_min(dt);
    default: return 0.0;
  }
}

// fillpad, fillpad_expand: the source's valid elements keep their index; every other
// element of the result (outside the valid region, or beyond the source's shape when the
// result is larger) takes the pad value. The result is valid everywhere.
inline Value fillpad(OpCall& c) {
  const Tile& a = c.tile(0);
  auto out = new_result(c);
  if (out->rank() != a.rank()) c.fail("the result must have the source's rank " + dims_string(a.shape));
  double pad = pad_fill(c.kw<ir::PadValue>("pad_value").value_or(ir::PadValue::zero), out->dtype);
  Dims idx(out->rank(), 0);
  for (std::size_t i = 0; i < out->size(); ++i, next_index(idx, out->shape)) {
    bool inside = true;
    for (std::size_t k = 0; k < a.rank(); ++k) inside = inside && idx[k] < a.valid[k] && idx[k] < a.shape[k];
    if (!inside) {
      out->data[i] = pad;
      out->defined[i] = 1;
      continue;
    }
    auto j = static_cast<std::size_t>(linear(idx, a.shape));
    out->data[i] = a.data[j];
    out->defined[i] = a.defined[j];
  }
  return finish(std::move(out));
}

inline Value read(OpCall& c) {
  const Tile& a = c.tile(0);
  Dims at = c.dims(1);
  if (at.size() != a.rank()) c.fail("expects " + std::to_string(a.rank()) + " indices");
  for (std::size_t k = 0; k < at.size(); ++k)
    if (at[k] < 0 || at[k] >= a.shape[k]) c.fail(RunErrorKind::cannot_run, "index " + dims_string(at) + " is outside " + dims_string(a.shape));
  auto i = static_cast<std::size_t>(linear(at, a.shape));
  return Scalar{a.dtype, a.data[i], a.defined[i] != 0};
}

inline Value write(OpCall& c) {
  const Tile& a = c.tile(0);
  Dims at = c.dims(1);
  const Scalar& v = c.scalar(2);
  if (at.size() != a.rank()) c.fail("expects " + std::to_string(a.rank()) + " indices");
  for (std::size_t k = 0; k < at.size(); ++k)
    if (at[k] < 0 || at[k] >= a.shape[k]) c.fail(RunErrorKind::cannot_run, "index " + dims_string(at) + " is outside " + dims_string(a.shape));
  auto out = new_result(c);
  out->data = a.data;
  out->defined = a.defined;
  auto i = static_cast<std::size_t>(linear(at, a.shape));
  out->data[i] = v.value;
  out->defined[i] = v.defined;
  return finish(std::move(out));
}

// ---- windows -----------------------------------------------------------------------------

// A window of `window` elements at `offset` of `a` (same rank), read row-major into the
// result. The whole window must lie inside `a`.
inline Value read_window(OpCall& c, const Tile& a, const Dims& offset, const Dims& window) {
  if (offset.size() != a.rank() || window.size() != a.rank())
    c.fail("offset " + dims_string(offset) + " and shape " + dims_string(window) + " must have the source's rank " +
           std::to_string(a.rank()));
  for (std::size_t k = 0; k < a.rank(); ++k)
    if (offset[k] < 0 || offset[k] + window[k] > a.shape[k])
      c.fail(RunErrorKind::cannot_run, "the window " + dims_string(window) + " at " + dims_string(offset) +
                                           " runs past the source " + dims_string(a.shape));
  auto out = new_result(c);
  if (element_count(window) != element_count(out->shape))
    c.fail("the window " + dims_string(window) + " and the result " + dims_string(out->shape) + " differ in size");
  Dims idx(window.size(), 0), at(window.size(), 0);
  for (std::size_t i = 0; i < out->size(); ++i, next_index(idx, window)) {
    for (std::size_t k = 0; k < idx.size(); ++k) at[k] = offset[k] + idx[k];
    auto s = static_cast<std::size_t>(linear(at, a.shape));
    out->data[i] = a.data[s];
    out->defined[i] = a.defined[s];
  }
  return finish(std::move(out));
}

// tile.slice(input, shape, offset[, valid_shape[, drop_dims]]): dropping unit axes keeps the
// row-major order, so the window is read straight into the result shape.
inline Value slice(OpCall& c) { return read_window(c, c.tile(0), c.dims(2), c.dims(1)); }

// tile.extract(src, row, col, shape)
inline Value extract(OpCall& c) { return read_window(c, c.tile(0), {c.index(1), c.index(2)}, c.dims(3)); }

inline std::size_t normalize_axis(const OpCall& c, std::int64_t a, std::size_t rank) {
  auto r = static_cast<std::int64_t>(rank);
  if (a < -r || a >= r) c.fail("axis " + std::to_string(a) + " is out of range for rank " + std::to_string(rank));
  return static_cast<std::size_t>(a < 0 ? a + r : a);
}

// Result element idx is source element idx with axes a1 and a2 swapped.
inline Value permute(OpCall& c, const Tile& a, std::size_t a1, std::size_t a2) {
  auto out = new_result(c);
  Dims shape = a.shape;
  std::swap(shape[a1], shape[a2]);
  if (element_count(shape) != element_count(out->shape))
    c.fail("the transposed shape " + dims_string(shape) + " and the result " + dims_string(out->shape) + " differ in size");
  Dims idx(shape.size(), 0);
  for (std::size_t i = 0; i < out->size(); ++i, next_index(idx, shape)) {
    Dims src = idx;
    std::swap(src[a1], src[a2]);
    auto s = static_cast<std::size_t>(linear(src, a.shape));
    out->data[i] = a.data[s];
    out->defined[i] = a.defined[s];
  }
  return finish(std::move(out));
}

// tile.transpose(input, axis1, axis2[, tmp]): the scratch operand holds nothing the result reads.
inline Value transpose(OpCall& c) {
  const Tile& a = c.tile(0);
  return permute(c, a, normalize_axis(c, c.index(1), a.rank()), normalize_axis(c, c.index(2), a.rank()));
}

inline Value transpose_view(OpCall& c) {
  const Tile& a = c.tile(0);
  if (a.rank() < 2) c.fail("needs rank >= 2");
  return permute(c, a, a.rank() - 2, a.rank() - 1);
}

// tile.assemble(target, source, offset): the target with the source's valid region written
// at `offset` (FP32 sources round to a BF16/FP16 target).
inline Value assemble(OpCall& c) {
  const Tile& t = c.tile(0);
  const Tile& s = c.tile(1);
  Dims off = c.dims(2);
  if (s.rank() != t.rank() || off.size() != t.rank())
    c.fail(RunErrorKind::unsupported, "a source of rank " + std::to_string(s.rank()) + " into a rank-" +
                                          std::to_string(t.rank()) + " target is not modelled");
  for (std::size_t k = 0; k < t.rank(); ++k)
    if (off[k] < 0 || off[k] + s.valid[k] > t.shape[k])
      c.fail(RunErrorKind::cannot_run, "the source's valid region " + dims_string(s.valid) + " at " + dims_string(off) +
                                           " runs past the target " + dims_string(t.shape));
  auto out = new_result(c);
  if (out->shape != t.shape) c.fail("the result " + dims_string(out->shape) + " is not the target's shape " + dims_string(t.shape));
  out->data = t.data;
  out->defined = t.defined;
  if (element_count(s.valid) > 0) {
    Dims idx(s.rank(), 0), at(s.rank(), 0);
    do {
      for (std::size_t k = 0; k < idx.size(); ++k) at[k] = off[k] + idx[k];
      auto d = static_cast<std::size_t>(linear(at, t.shape));
      auto from = static_cast<std::size_t>(linear(idx, s.shape));
      out->data[d] = s.data[from];
      out->defined[d] = s.defined[from];
    } while (next_index(idx, s.valid));
  }
  return finish(std::move(out));
}

inline Value concat(OpCall& c) {
  const Tile& a = c.tile(0);
  const Tile& b = c.tile(1);
  auto out = new_result(c);
  if (a.rank() != 2 || b.rank() != 2 || out->rank() != 2) c.fail("needs 2-D tiles");
  for (std::int64_t i = 0; i < out->shape[0]; ++i)
    for (std::int64_t j = 0; j < out->shape[1]; ++j) {
      auto o = static_cast<std::size_t>(i * out->shape[1] + j);
      bool left = j < a.shape[1];
      const Tile& src = left ? a : b;
      std::int64_t jj = left ? j : j - a.shape[1];
      if (i >= src.shape[0] || jj >= src.shape[1]) continue;
      auto s = static_cast<std::size_t>(i * src.shape[1] + jj);
      out->data[o] = src.data[s];
      out->defined[o] = src.defined[s];
    }
  return finish(std::move(out));
}

// Whether the operand's elements are contiguous along its second-to-last axis: a column-major
// tile, a DN tensor.
inline bool column_major_operand(const OpCall& c, std::size_t i) {
  const ir::Type& t = c.call.args.at(i)->type;
  if (const auto* tile = ir::as<ir::TileType>(t)) return ir::effective_view(*tile).blayout == ir::TileLayout::col_major;
  if (const auto* tensor = ir::as<ir::TensorType>(t)) return tensor->view && tensor->view->layout == ir::TensorLayout::DN;
  return false;
}

// tile.reinterpret_view (and tensor.reinterpret_view, on the tensor's elements): the bytes of
// each line along the contiguous axis (the last for a row-major view, the second-to-last for
// a column-major tile or a DN tensor) read as another dtype.
inline Value reinterpret_view(OpCall& c) {
  const Tile& a = c.tile(0);
  auto out = new_result(c);
  int from = ir::storage_bits(a.dtype), to = ir::storage_bits(out->dtype);
  if (from % 8 || to % 8 || !is_modelled(a.dtype))
    c.fail(RunErrorKind::unsupported, "reinterpreting " + std::string(ir::name_of(a.dtype)) + " as " +
                                          std::string(ir::name_of(out->dtype)) + " is not modelled");
  if (a.rank() != out->rank()) c.fail(RunErrorKind::unsupported, "a rank-changing reinterpret_view is not modelled");
  bool col = a.rank() >= 2 && column_major_operand(c, 0);
  std::size_t axis = col ? a.rank() - 2 : a.rank() - 1;
  // Move the contiguous axis last: lines of bytes are then rows.
  auto line_major = [&](const Tile& t) {
    Dims shape = t.shape;
    std::swap(shape[axis], shape.back());
    return shape;
  };
  Dims as = line_major(a), os = line_major(*out);
  std::int64_t lines = element_count(as) / std::max<std::int64_t>(as.back(), 1);
  if (lines != element_count(os) / std::max<std::int64_t>(os.back(), 1) || as.back() * from != os.back() * to)
    c.fail("the source " + dims_string(a.shape) + " and the result " + dims_string(out->shape) + " do not cover the same bytes");
  Dims outer(as.begin(), as.end() - 1);
  if (outer != Dims(os.begin(), os.end() - 1))
    c.fail("the source " + dims_string(a.shape) + " and the result " + dims_string(out->shape) + " differ off the contiguous axis");
  auto bytes_a = static_cast<std::size_t>(from / 8), bytes_o = static_cast<std::size_t>(to / 8);
  std::vector<std::uint8_t> line(static_cast<std::size_t>(as.back()) * bytes_a), line_def(line.size());
  // Index in line-major order (contiguous axis last) → linear index in the tile itself.
  auto index_in = [&](Dims i, const Dims& shape) {
    std::swap(i[axis], i.back());
    return static_cast<std::size_t>(linear(i, shape));
  };
  Dims oi(outer.size(), 0);
  for (std::int64_t l = 0; l < lines; ++l, next_index(oi, outer)) {
    Dims i = oi;
    i.push_back(0);
    for (std::int64_t e = 0; e < as.back(); ++e) {
      i.back() = e;
      std::size_t s = index_in(i, a.shape);
      std::uint64_t bits = encode_bits(a.data[s], a.dtype);
      for (std::size_t b = 0; b < bytes_a; ++b) {
        line[static_cast<std::size_t>(e) * bytes_a + b] = static_cast<std::uint8_t>(bits >> (8 * b));
        line_def[static_cast<std::size_t>(e) * bytes_a + b] = a.defined[s];
      }
    }
    for (std::int64_t e = 0; e < os.back(); ++e) {
      i.back() = e;
      std::uint64_t bits = 0;
      bool defined = true;
      for (std::size_t b = 0; b < bytes_o; ++b) {
        bits |= std::uint64_t{line[static_cast<std::size_t>(e) * bytes_o + b]} << (8 * b);
        defined = defined && line_def[static_cast<std::size_t>(e) * bytes_o + b];
      }
      std::size_t o = index_in(i, out->shape);
      out->data[o] = decode_bits(bits, out->dtype);
      out->defined[o] = defined;
    }
  }
  // Bits are exact: store without rounding, then mask.
  for (std::size_t i = 0; i < out->size(); ++i)
    if (!out->defined[i]) out->data[i] = 0.0;
  Interpreter::mask_to_valid(*out);
  return TilePtr(std::move(out));
}

// ---- generators, gathers, scatters, sorts -------------------------------------------------

// The flat (row-major, physical) element `i` of `a`, or a cannot_run error naming the op's
// index operand: the hardware's out-of-range behaviour is target-defined.
inline std::size_t flat_slot(const OpCall& c, const Tile& a, double index, const char* what) {
  auto i = to_i64(index);
  if (i < 0 || static_cast<std::size_t>(i) >= a.size())
    c.fail(RunErrorKind::cannot_run, std::string(what) + " " + std::to_string(i) + " is outside the " +
                                         std::to_string(a.size()) + " elements of " + dims_string(a.shape));
  return static_cast<std::size_t>(i);
}

inline void require_2d(const OpCall& c, const Tile& a, const char* what) {
  if (a.rank() != 2) c.fail(std::string(what) + " must be 2-D, got " + dims_string(a.shape));
}

// tile.ci(start, shape): the first row counts from `start` over the valid columns, up
// (start + k) or, with descending=True, down (start - k). The instruction writes no other row.
inline Value ci(OpCall& c) {
  const Scalar& start = c.scalar(0);
  auto out = new_result(c);
  if (out->rank() == 0) c.fail("the result has no axis");
  const bool down = c.kw<bool>("descending").value_or(false);
  const std::int64_t n = std::min<std::int64_t>({out->valid.back(), out->shape.back(), static_cast<std::int64_t>(out->size())});
  for (std::int64_t k = 0; k < n; ++k) {
    auto i = static_cast<std::size_t>(k);
    out->data[i] = start.value + static_cast<double>(down ? -k : k);
    out->defined[i] = start.defined;
  }
  return finish(std::move(out));
}

// tile.tri(diagonal, shape[, valid_shape]): 1 on and below the diagonal shifted right by
// `diagonal` (np.tril), or on and above it with upper=True (np.triu), 0 elsewhere.
inline Value tri(OpCall& c) {
  const Scalar& d = c.scalar(0);
  auto out = new_result(c);
  require_2d(c, *out, "the result");
  const bool upper = c.kw<bool>("upper").value_or(false);
  // Beyond ±2^40 the diagonal misses every tile the budget allows; clamping keeps the
  // comparison below free of overflow.
  const std::int64_t diag = std::clamp<std::int64_t>(to_i64(d.value), -(std::int64_t{1} << 40), std::int64_t{1} << 40);
  Dims idx(2, 0);
  for (std::size_t i = 0; i < out->size(); ++i, next_index(idx, out->shape)) {
    const bool on = upper ? idx[1] >= idx[0] + diag : idx[1] <= idx[0] + diag;
    out->data[i] = on ? 1.0 : 0.0;
    out->defined[i] = d.defined;
  }
  return finish(std::move(out));
}

// tile.gather(src, indices, tmp): out[i, j] = src's flat element indices[i, j]; tmp is the
// instruction's workspace.
inline Value gather(OpCall& c) {
  const Tile& src = c.tile(0);
  const Tile& ix = c.tile(1);
  auto out = new_result(c);
  if (out->shape != ix.shape) c.fail("the result " + dims_string(out->shape) + " must have the indices' shape " + dims_string(ix.shape));
  for (std::size_t i = 0; i < out->size(); ++i) {
    if (!ix.defined[i]) continue;
    std::size_t s = flat_slot(c, src, ix.data[i], "index");
    out->data[i] = src.data[s];
    out->defined[i] = src.defined[s];
  }
  return finish(std::move(out));
}

// The columns a gather_mask / scatter_mask pattern marks: every `stride`-th from `phase`.
struct MaskPattern {
  std::int64_t stride = 1, phase = 0;
};
inline MaskPattern mask_pattern(const OpCall& c) {
  switch (c.kw<std::int64_t>("mask_pattern").value_or(0)) {
    case 1: return {2, 0};  // P0101
    case 2: return {2, 1};  // P1010
    case 3: return {4, 0};  // P0001
    case 4: return {4, 1};  // P0010
    case 5: return {4, 2};  // P0100
    case 6: return {4, 3};  // P1000
    case 7: return {1, 0};  // P1111
    default: c.fail("mask_pattern must be 1..7");
  }
}

// Element `v` of dtype `from` as the dtype `to` of the same width reads its bits.
inline double same_bits(double v, DataType from, DataType to) {
  return from == to ? v : decode_bits(encode_bits(v, from), to);
}

// tile.gather_mask(src, mask_pattern): each row's marked columns, in order; output_dtype
// (of src's width) reads their bits.
inline Value gather_mask(OpCall& c) {
  const Tile& src = c.tile(0);
  require_2d(c, src, "src");
  auto out = new_result(c);
  require_2d(c, *out, "the result");
  const MaskPattern m = mask_pattern(c);
  if (ir::storage_bits(src.dtype) != ir::storage_bits(out->dtype))
    c.fail("output_dtype " + std::string(ir::name_of(out->dtype)) + " must have the width of " + std::string(ir::name_of(src.dtype)));
  Dims idx(2, 0);
  for (std::size_t i = 0; i < out->size(); ++i, next_index(idx, out->shape)) {
    std::int64_t col = m.stride * idx[1] + m.phase;
    if (idx[0] >= src.shape[0] || col >= src.shape[1]) continue;
    auto s = static_cast<std::size_t>(idx[0] * src.shape[1] + col);
    out->data[i] = same_bits(src.data[s], src.dtype, out->dtype);
    out->defined[i] = src.defined[s];
  }
  Interpreter::mask_to_valid(*out);
  return TilePtr(std::move(out));
}

// tile.gatherb(src, offset): entry k of an offset row is a byte offset into src (its whole
// tile, row-major, little-endian); the 32 bytes there become the row's k-th block of
// 32 / sizeof(output dtype) elements. Bytes are copied, never converted.
inline Value gatherb(OpCall& c) {
  const Tile& src = c.tile(0);
  const Tile& off = c.tile(1);
  require_2d(c, off, "offset");
  auto out = new_result(c);
  require_2d(c, *out, "the result");
  const int in_bits = ir::storage_bits(src.dtype), out_bits = ir::storage_bits(out->dtype);
  if (in_bits % 8 || out_bits % 8 || !is_modelled(src.dtype))
    c.fail(RunErrorKind::unsupported, "gathering blocks of " + std::string(ir::name_of(src.dtype)) + " as " +
                                          std::string(ir::name_of(out->dtype)) + " is not modelled");
  if (column_major_operand(c, 0) && src.rank() >= 2)
    c.fail(RunErrorKind::unsupported, "src is column-major; tile.gatherb addresses a row-major tile");
  const auto in_bytes = static_cast<std::size_t>(in_bits / 8), out_bytes = static_cast<std::size_t>(out_bits / 8);
  const std::int64_t per_block = static_cast<std::int64_t>(32 / out_bytes);
  if (out->shape[0] != off.shape[0] || out->shape[1] != off.shape[1] * per_block)
    c.fail("the result " + dims_string(out->shape) + " must have offset's rows and " + std::to_string(per_block) +
           " columns per offset " + dims_string(off.shape));
  const std::size_t src_bytes = src.size() * in_bytes;
  // Byte b of src, and whether the element holding it is defined.
  auto byte_at = [&](std::size_t b) {
    const std::size_t e = b / in_bytes;
    return std::pair{static_cast<std::uint8_t>(encode_bits(src.data[e], src.dtype) >> (8 * (b % in_bytes))), src.defined[e] != 0};
  };
  Dims idx(2, 0);
  for (std::size_t i = 0; i < out->size(); ++i, next_index(idx, out->shape)) {
    const auto o = static_cast<std::size_t>(idx[0] * off.shape[1] + idx[1] / per_block);
    if (!off.defined[o]) continue;
    const std::int64_t base = to_i64(off.data[o]);
    if (base < 0 || static_cast<std::size_t>(base) + 32 > src_bytes)
      c.fail(RunErrorKind::cannot_run, "offset " + std::to_string(base) + " names a 32-byte block past the " +
                                           std::to_string(src_bytes) + " bytes of src " + dims_string(src.shape));
    const std::size_t first = static_cast<std::size_t>(base) + static_cast<std::size_t>(idx[1] % per_block) * out_bytes;
    std::uint64_t bits = 0;
    bool defined = true;
    for (std::size_t b = 0; b < out_bytes; ++b) {
      auto [byte, def] = byte_at(first + b);
      bits |= std::uint64_t{byte} << (8 * b);
      defined = defined && def;
    }
    out->data[i] = defined ? decode_bits(bits, out->dtype) : 0.0;
    out->defined[i] = defined;
  }
  Interpreter::mask_to_valid(*out);  // bits are exact: no rounding
  return TilePtr(std::move(out));
}

// A destination-passing op's result: the destination's elements under the result's type.
inline std::shared_ptr<Tile> copy_of_destination(OpCall& c, const Tile& dst) {
  auto out = new_result(c);
  if (out->shape != dst.shape) c.fail("the result " + dims_string(out->shape) + " must have the destination's shape " + dims_string(dst.shape));
  out->data = dst.data;
  out->defined = dst.defined;
  return out;
}

// tile.scatter(dst, src, indexes): dst's flat element indexes[i, j] becomes src[i, j], for
// src's valid elements in row-major order (a later write wins); other elements keep dst's.
inline Value scatter(OpCall& c) {
  const Tile& dst = c.tile(0);
  const Tile& src = c.tile(1);
  const Tile& ix = c.tile(2);
  if (ix.shape != src.shape) c.fail("indexes " + dims_string(ix.shape) + " must have src's shape " + dims_string(src.shape));
  auto out = copy_of_destination(c, dst);
  Dims idx(src.rank(), 0);
  if (element_count(src.valid) > 0) do {
      auto i = static_cast<std::size_t>(linear(idx, src.shape));
      if (!ix.defined[i]) c.fail(RunErrorKind::cannot_run, "index " + dims_string(idx) + " of indexes is undefined");
      std::size_t d = flat_slot(c, dst, ix.data[i], "index");
      out->data[d] = src.data[i];
      out->defined[d] = src.defined[i];
    } while (next_index(idx, src.valid));
  return finish(std::move(out));
}

// tile.scatter_mask(dst, src, mask_pattern): the k-th marked column of each dst row becomes
// src[row, k]; unmarked columns keep dst's elements.
inline Value scatter_mask(OpCall& c) {
  const Tile& dst = c.tile(0);
  const Tile& src = c.tile(1);
  require_2d(c, dst, "dst");
  require_2d(c, src, "src");
  const MaskPattern m = mask_pattern(c);
  if (src.shape[0] != dst.shape[0] || src.shape[1] * m.stride != dst.shape[1])
    c.fail("dst " + dims_string(dst.shape) + " must have src's rows and " + std::to_string(m.stride) + " times its columns " +
           dims_string(src.shape));
  auto out = copy_of_destination(c, dst);
  Dims idx(2, 0);
  for (std::size_t i = 0; i < src.size(); ++i, next_index(idx, src.shape)) {
    auto d = static_cast<std::size_t>(idx[0] * dst.shape[1] + m.stride * idx[1] + m.phase);
    out->data[d] = src.data[i];
    out->defined[d] = src.defined[i];
  }
  return finish(std::move(out));
}

// tile.scatter_update(input, index, src, dim=-2) on 2-D tiles: input row index.flat[k]
// becomes src row k, in index order (a later write wins); other rows keep input's.
inline Value scatter_update(OpCall& c) {
  const Tile& in = c.tile(0);
  const Tile& ix = c.tile(1);
  const Tile& src = c.tile(2);
  if (in.rank() != 2) c.fail(RunErrorKind::unsupported, "scatter_update of a rank-" + std::to_string(in.rank()) + " input is not modelled");
  require_2d(c, src, "src");
  if (c.kw<std::int64_t>("dim").value_or(-2) != -2) c.fail("dim must be -2");
  if (static_cast<std::int64_t>(ix.size()) != src.shape[0] || src.shape[1] != in.shape[1])
    c.fail("src " + dims_string(src.shape) + " must hold one row of " + std::to_string(in.shape[1]) + " per index of " +
           dims_string(ix.shape));
  auto out = copy_of_destination(c, in);
  for (std::size_t k = 0; k < ix.size(); ++k) {
    if (!ix.defined[k]) c.fail(RunErrorKind::cannot_run, "index " + std::to_string(k) + " of index is undefined");
    std::int64_t row = to_i64(ix.data[k]);
    if (row < 0 || row >= in.shape[0])
      c.fail(RunErrorKind::cannot_run, "row " + std::to_string(row) + " is outside the input " + dims_string(in.shape));
    for (std::int64_t j = 0; j < in.shape[1]; ++j) {
      auto d = static_cast<std::size_t>(row * in.shape[1] + j), s = static_cast<std::size_t>(static_cast<std::int64_t>(k) * in.shape[1] + j);
      out->data[d] = src.data[s];
      out->defined[d] = src.defined[s];
    }
  }
  return finish(std::move(out));
}

// A (value, index) pair of the sort instructions' 8-byte structs; on FP32 tiles the index
// travels as the raw bits of a UINT32 in the odd lane.
struct SortPair {
  double value = 0.0;
  double index_bits = 0.0;  // the odd lane's element, bits of the index
  bool defined = true;
};

// Writes pair `p` at lane `o` (value) and `o + 1` (index bits) of row-major tile `t`.
inline void put_pair(Tile& t, std::size_t o, const SortPair& p) {
  t.data[o] = p.value;
  t.data[o + 1] = p.index_bits;
  t.defined[o] = t.defined[o + 1] = p.defined;
}

inline void require_fp32_pairs(const OpCall& c, DataType dt) {
  if (dt != DataType::FP32)
    c.fail(RunErrorKind::unsupported, "sorting " + std::string(ir::name_of(dt)) + " tiles is not modelled (FP32 only)");
}

// Descending by value; an equal value keeps the earlier pair first.
inline bool sorts_before(const SortPair& a, const SortPair& b) { return a.value > b.value; }

// tile.sort32(src, idx): each row's valid columns in blocks of 32, each block sorted
// descending (ties: the earlier element first) into (value, idx bits) pairs.
inline Value sort32(OpCall& c) {
  const Tile& src = c.tile(0);
  const Tile& ix = c.tile(1);
  require_2d(c, src, "src");
  require_fp32_pairs(c, src.dtype);
  if (ix.shape != src.shape) c.fail("idx " + dims_string(ix.shape) + " must have src's shape " + dims_string(src.shape));
  auto out = new_result(c);
  require_2d(c, *out, "the result");
  if (out->shape[0] < src.shape[0] || out->shape[1] < 2 * src.shape[1])
    c.fail("the result " + dims_string(out->shape) + " must hold two lanes per element of " + dims_string(src.shape));
  std::vector<SortPair> block;
  for (std::int64_t r = 0; r < src.valid[0]; ++r) {
    for (std::int64_t b = 0; b < src.valid[1]; b += 32) {
      block.clear();
      for (std::int64_t j = b; j < std::min<std::int64_t>(b + 32, src.valid[1]); ++j) {
        auto s = static_cast<std::size_t>(r * src.shape[1] + j);
        block.push_back({src.data[s], same_bits(ix.data[s], ix.dtype, DataType::FP32), src.defined[s] && ix.defined[s]});
      }
      std::stable_sort(block.begin(), block.end(), sorts_before);
      for (std::size_t k = 0; k < block.size(); ++k) {
        put_pair(*out, static_cast<std::size_t>(r * out->shape[1] + 2 * (b + static_cast<std::int64_t>(k))), block[k]);
      }
    }
  }
  Interpreter::mask_to_valid(*out);
  return TilePtr(std::move(out));
}

// The pairs of row 0 of a pair tile, columns [from, to) (two lanes each).
inline std::vector<SortPair> pairs_of(const Tile& t, std::int64_t from, std::int64_t to) {
  std::vector<SortPair> p;
  for (std::int64_t j = from; j + 1 < to; j += 2) {
    auto s = static_cast<std::size_t>(j);
    p.push_back({t.data[s], t.data[s + 1], t.defined[s] && t.defined[s + 1]});
  }
  return p;
}

// Merges descending runs: the larger head first, the earlier run on a tie. With
// `stop_at_first_empty`, output stops once any run is used up; it never exceeds `limit` pairs.
inline std::vector<SortPair> merge_runs(const std::vector<std::vector<SortPair>>& runs, std::size_t limit,
                                        bool stop_at_first_empty) {
  std::vector<std::size_t> head(runs.size(), 0);
  std::vector<SortPair> merged;
  while (merged.size() < limit) {
    std::size_t best = runs.size();
    bool any_empty = false;
    for (std::size_t k = 0; k < runs.size(); ++k) {
      if (head[k] == runs[k].size()) {
        any_empty = true;
        continue;
      }
      if (best == runs.size() || sorts_before(runs[k][head[k]], runs[best][head[best]])) best = k;
    }
    if (best == runs.size() || (stop_at_first_empty && any_empty)) break;
    merged.push_back(runs[best][head[best]++]);
  }
  return merged;
}

inline void require_pair_row(const OpCall& c, const Tile& t, const char* what) {
  require_2d(c, t, what);
  require_fp32_pairs(c, t.dtype);
  if (t.shape[0] != 1) c.fail(std::string(what) + " must be one row, got " + dims_string(t.shape));
}

// tile.mrgsort_format1(src, block_len): each group of four consecutive runs of block_len
// lanes is merged into one descending run in place; a tail short of a whole group is not
// written.
inline Value mrgsort_format1(OpCall& c) {
  const Tile& src = c.tile(0);
  require_pair_row(c, src, "src");
  const std::int64_t len = c.index(1);
  if (len <= 0 || len % 2) c.fail("block_len " + std::to_string(len) + " must be a positive even number of lanes");
  auto out = new_result(c);
  if (out->shape != src.shape) c.fail("the result must have src's shape " + dims_string(src.shape));
  const std::int64_t n = src.valid[1];
  for (std::int64_t g = 0; len <= n / 4 && g <= n - 4 * len; g += 4 * len) {
    std::vector<std::vector<SortPair>> runs;
    for (std::int64_t k = 0; k < 4; ++k) runs.push_back(pairs_of(src, g + k * len, g + (k + 1) * len));
    auto merged = merge_runs(runs, static_cast<std::size_t>(2 * len), false);
    for (std::size_t k = 0; k < merged.size(); ++k) put_pair(*out, static_cast<std::size_t>(g) + 2 * k, merged[k]);
  }
  Interpreter::mask_to_valid(*out);
  return TilePtr(std::move(out));
}

// tile.mrgsort_format2(src0, src1[, src2[, src3]], tmp): the sorted lists merged into a
// result of tmp's size, until it is full or the lists run out (exhausted=True: until one does).
inline Value mrgsort_format2(OpCall& c) {
  const std::size_t lists = c.args.size() - 1;
  if (lists < 2 || lists > 4) c.fail("expects 2 to 4 lists and tmp");
  std::vector<std::vector<SortPair>> runs;
  for (std::size_t k = 0; k < lists; ++k) {
    const Tile& t = c.tile(k);
    require_pair_row(c, t, "each list");
    runs.push_back(pairs_of(t, 0, t.valid[1]));
  }
  auto out = new_result(c);
  require_pair_row(c, *out, "the result");
  auto merged = merge_runs(runs, static_cast<std::size_t>(out->shape[1] / 2), c.kw<bool>("exhausted").value_or(false));
  for (std::size_t k = 0; k < merged.size(); ++k) put_pair(*out, 2 * k, merged[k]);
  Interpreter::mask_to_valid(*out);
  return TilePtr(std::move(out));
}

// ---- tensors: load and store -------------------------------------------------------------

inline void check_address(const OpCall& c, const Buffer& b, std::int64_t addr) {
  if (addr < 0 || static_cast<std::size_t>(addr) >= b.data.size())
    c.fail(RunErrorKind::cannot_run, "the view reaches element " + std::to_string(addr) + " of buffer '" + b.name +
                                         "', which holds " + std::to_string(b.data.size()));
}

// Element `i` of tile `t` becomes buffer element `addr`, defined bit included.
inline void read_element(const OpCall& c, const Buffer& b, std::int64_t addr, Tile& t, std::size_t i) {
  check_address(c, b, addr);
  t.data[i] = b.data[static_cast<std::size_t>(addr)];
  t.defined[i] = b.defined[static_cast<std::size_t>(addr)];
}

// tile.load(tensor, offsets, shapes[, valid_shape]): the window's valid part (within the
// requested valid extent and the tensor's valid region) is read through the tensor's view,
// row-major into the result tile.
inline Value load(OpCall& c) {
  const TensorRef& t = c.tensor(0);
  TensorAccess acc = c.access(0);
  Dims off = c.dims(1), win = c.dims(2);
  Dims req = c.has(3) ? c.dims(3) : win;
  if (off.size() != acc.shape.size() || win.size() != acc.shape.size() || req.size() != win.size())
    c.fail(RunErrorKind::unsupported, "a window of rank " + std::to_string(win.size()) + " over a rank-" +
                                          std::to_string(acc.shape.size()) + " tensor is not modelled");
  bool clamp = c.kw<bool>("clamp").value_or(false);
  auto out = new_result(c);
  if (element_count(win) != element_count(out->shape))
    c.fail("the window " + dims_string(win) + " and the result " + dims_string(out->shape) + " differ in size");
  if (element_count(win) == 0) return finish(std::move(out));
  const Buffer& buf = *t.buffer;
  Dims idx(win.size(), 0);
  for (std::size_t i = 0; i < out->size(); ++i, next_index(idx, win)) {
    bool wanted = true, inside = true, valid = true;
    std::int64_t addr = 0;
    for (std::size_t k = 0; k < idx.size(); ++k) {
      std::int64_t at = off[k] + idx[k];
      wanted = wanted && idx[k] < req[k];
      inside = inside && at >= 0 && at < acc.shape[k];
      valid = valid && at >= 0 && at < acc.valid[k];
      if (inside) addr += at * acc.strides[k];  // only in range: check_reach bounds it there
    }
    if (!wanted) continue;
    if (!inside) {
      if (clamp) continue;
      c.fail(RunErrorKind::cannot_run, "the window " + dims_string(win) + " at " + dims_string(off) +
                                           " runs past the tensor " + dims_string(acc.shape));
    }
    if (!valid) continue;
    read_element(c, buf, addr, *out, i);
  }
  return finish(std::move(out));
}

// A write through a tensor.slice (or reinterpret_view) reaches its source; the interpreter holds
// such a view as a copy, so it cannot run one.
inline void check_writable(const OpCall& c, const Buffer& b) {
  if (b.slice_copy)
    c.fail(RunErrorKind::unsupported,
           "writes through a tensor.slice or tensor.reinterpret_view are not modelled: the interpreter holds such a view "
           "as a copy of what it shows");
}

// tile.store(tile, offsets, tensor[, shapes]) writes the tile's valid region.
// * 4 operands: the tile's rows (row-major over its leading axes) fill the partition window
//   `shapes` at `offsets` row-major, its columns the window's last axis.
// * 3 operands, tile rank == tensor rank: element i lands at offsets + i.
// * 3 operands, other ranks: the rows fill consecutive row-major positions of the tensor's
//   leading axes from `offsets` on.
inline Value store(OpCall& c) {
  const Tile& t = c.tile(0);
  Dims off = c.dims(1);
  const TensorRef& dst = c.tensor(2);
  TensorAccess acc = c.access(2);
  std::size_t n = acc.shape.size();
  if (off.size() != n) c.fail("offsets " + dims_string(off) + " must have the tensor's rank " + std::to_string(n));
  std::optional<Dims> window;
  if (c.has(3)) {
    window = c.dims(3);
    if (window->size() != n) c.fail("the partition window " + dims_string(*window) + " must have the tensor's rank");
  }
  bool atomic = c.kw<std::int64_t>("atomic").value_or(0) == 1;
  Buffer& buf = *dst.buffer;
  check_writable(c, buf);
  if (t.rank() == 0 || n == 0) c.fail(RunErrorKind::unsupported, "rank-0 stores are not modelled");
  std::size_t undefined_into_valid = 0;
  Dims lead_t(t.shape.begin(), t.shape.end() - 1);
  Dims lead_n(acc.shape.begin(), acc.shape.end() - 1);
  Dims lead_w = window ? Dims(window->begin(), window->end() - 1) : Dims{};
  std::int64_t window_rows = window ? element_count(lead_w) : 0;
  std::int64_t tensor_rows = element_count(lead_n);
  Dims off_lead(off.begin(), off.end() - 1);
  std::int64_t row_origin = linear(off_lead, lead_n);
  if (element_count(t.valid) == 0) return dst;
  Dims idx(t.rank(), 0), at(n, 0);
  do {
    Dims lead_idx(idx.begin(), idx.end() - 1);
    std::int64_t r = linear(lead_idx, lead_t), col = idx.back();
    if (window) {
      if (r >= window_rows || col >= window->back()) continue;
      Dims w = unflatten(r, lead_w);
      for (std::size_t k = 0; k + 1 < n; ++k) at[k] = off[k] + w[k];
      at[n - 1] = off[n - 1] + col;
    } else if (t.rank() == n) {
      for (std::size_t k = 0; k < n; ++k) at[k] = off[k] + idx[k];
    } else {
      std::int64_t row = row_origin + r;
      if (row >= tensor_rows)
        c.fail(RunErrorKind::cannot_run, "the tile's rows run past the tensor " + dims_string(acc.shape));
      Dims l = unflatten(row, lead_n);
      for (std::size_t k = 0; k + 1 < n; ++k) at[k] = l[k];
      at[n - 1] = off[n - 1] + col;
    }
    bool in_valid = true;
    std::int64_t addr = 0;
    for (std::size_t k = 0; k < n; ++k) {
      if (at[k] < 0 || at[k] >= acc.shape[k])
        c.fail(RunErrorKind::cannot_run, "the store of " + dims_string(t.valid) + " valid elements at " +
                                             dims_string(off) + " runs past the tensor " + dims_string(acc.shape));
      in_valid = in_valid && at[k] < acc.valid[k];
      addr += at[k] * acc.strides[k];
    }
    check_address(c, buf, addr);
    auto s = static_cast<std::size_t>(linear(idx, t.shape));
    auto d = static_cast<std::size_t>(addr);
    bool def = t.defined[s] != 0;
    if (!def && in_valid) ++undefined_into_valid;
    if (atomic) {
      buf.defined[d] = buf.defined[d] && def;
      buf.data[d] = buf.defined[d] ? store_rounded(buf.data[d] + t.data[s], buf.dtype) : 0.0;
    } else {
      buf.defined[d] = def;
      buf.data[d] = def ? store_rounded(t.data[s], buf.dtype) : 0.0;
    }
  } while (next_index(idx, t.valid));
  if (undefined_into_valid)
    c.interp.note(std::to_string(undefined_into_valid) + " undefined element(s) of the tile were stored into the valid region of tensor '" +
                      buf.name + "'",
                  c.expr->span);
  return dst;
}

// pld.tile.remote_load(target, peer, offsets, shape[, valid_shape]) and
// pld.tile.remote_store(src, target, peer, offsets), modelled as local memory: every rank's
// window buffer is the tensor the program names, so the peer only selects which copy of it
// is read or written. They run as tile.load / tile.store over the operands without the peer.
inline Value as_local(OpCall& c, const std::vector<std::size_t>& order, Value (*op)(OpCall&)) {
  const std::size_t needed = *std::max_element(order.begin(), order.end()) + 1;
  if (c.args.size() < needed) c.fail("expects at least " + std::to_string(needed) + " operands");
  ir::Call local = c.call;
  local.args.clear();
  std::vector<Value> values;
  for (std::size_t i : order) {
    local.args.push_back(c.call.args[i]);
    values.push_back(c.args[i]);
  }
  OpCall inner{c.interp, local, c.expr, std::move(values), c.name};
  return op(inner);
}
inline Value remote_load(OpCall& c) {
  return as_local(c, c.args.size() > 4 ? std::vector<std::size_t>{0, 2, 3, 4} : std::vector<std::size_t>{0, 2, 3}, load);
}
inline Value remote_store(OpCall& c) {
  as_local(c, {0, 3, 1}, store);
  return Value{};
}

// ---- tensors in orchestration ------------------------------------------------------------

inline Value same_buffer(OpCall& c) { return c.tensor(0); }

inline Value tensor_create(OpCall& c) {
  TensorAccess a = c.interp.tensor_access(c.expr->type, c.expr->span);
  auto b = std::make_shared<Buffer>();
  b->name = "tensor.create";
  b->dtype = a.dtype;
  b->data.assign(run_allocation(a.extent(), "the tensor " + dims_string(a.shape), c.expr->span), 0.0);
  b->defined.assign(b->data.size(), 0);
  if (c.name == "tensor.full") {
    const Scalar& v = c.scalar(1);
    for (auto& x : b->data) x = store_rounded(v.value, a.dtype);
    for (auto& d : b->defined) d = v.defined;
  }
  return TensorRef{std::move(b)};
}

// ---- tensors: element-wise ops, reductions, element access (orchestration code) ------------
//
// A tensor operand is read through its type (shape, strides, valid region), as tile.load
// reads it, so a stride MaterializeTensorStrides gets wrong changes what the op sees; a
// result is a fresh buffer laid out as the call's type says.

// The elements of tensor operand `i`, row-major over its shape; undefined outside its valid
// region.
inline Tile tensor_elements(const OpCall& c, std::size_t i) {
  const Buffer& buf = *c.tensor(i).buffer;
  const TensorAccess a = c.access(i);
  run_allocation(element_count(a.shape), "the tensor " + dims_string(a.shape), c.expr->span);
  Tile t(a.dtype, a.shape, a.valid);
  Dims idx(a.shape.size(), 0);
  for (std::size_t e = 0; e < t.size(); ++e, next_index(idx, a.shape)) {
    bool valid = true;
    std::int64_t addr = 0;
    for (std::size_t k = 0; k < idx.size(); ++k) {
      valid = valid && idx[k] < a.valid[k];
      addr += idx[k] * a.strides[k];
    }
    if (!valid) continue;
    read_element(c, buf, addr, t, e);
  }
  return t;
}

// The call's result tensor as an empty tile (its shape, valid region and dtype) to compute
// into, and that tile written into a fresh buffer laid out by the call's type.
inline Tile tensor_result_tile(const OpCall& c) {
  const TensorAccess a = c.interp.tensor_access(c.expr->type, c.expr->span);
  run_allocation(element_count(a.shape), "the tensor " + dims_string(a.shape), c.expr->span);
  if (!is_modelled(a.dtype))
    c.fail(RunErrorKind::unsupported, "dtype " + std::string(ir::name_of(a.dtype)) + " is not modelled");
  return Tile(a.dtype, a.shape, a.valid);
}
inline Value tensor_from_tile(const OpCall& c, const Tile& t) {
  const TensorAccess a = c.interp.tensor_access(c.expr->type, c.expr->span);
  auto b = std::make_shared<Buffer>();
  b->name = std::string(c.name);
  b->dtype = a.dtype;
  b->data.assign(run_allocation(a.extent(), "the tensor " + dims_string(a.shape), c.expr->span), 0.0);
  b->defined.assign(b->data.size(), 0);
  Dims idx(a.shape.size(), 0);
  for (std::size_t e = 0; e < t.size(); ++e, next_index(idx, a.shape)) {
    bool valid = true;
    std::int64_t addr = 0;
    for (std::size_t k = 0; k < idx.size(); ++k) {
      valid = valid && idx[k] < a.valid[k];
      addr += idx[k] * a.strides[k];
    }
    if (!valid || !t.defined[e]) continue;
    auto at = static_cast<std::size_t>(addr);
    b->data[at] = store_rounded(t.data[e], a.dtype);
    b->defined[at] = 1;
  }
  return TensorRef{std::move(b)};
}

// ---- tensors: gather and scatter by index -------------------------------------------------
//
// tile.mgather and tile.mscatter address a GM tensor by element offsets from its base (and
// mgather's row mode by row). Where the tensor's view is packed row-major, a flat offset is
// also the row-major position of an element, and every reading of the ISA agrees; other views
// (DN, padded strides) are not modelled, rather than guessed at.

inline void require_packed_row_major(const OpCall& c, const TensorAccess& a, const char* what) {
  std::int64_t expected = 1;
  for (std::size_t k = a.shape.size(); k-- > 0;) {
    if (a.shape[k] > 1 && a.strides[k] != expected)
      c.fail(RunErrorKind::unsupported, std::string(what) + " of shape " + dims_string(a.shape) + " has strides " +
                                            dims_string(a.strides) + "; " + std::string(c.name) +
                                            " is modelled on packed row-major tensors only");
    expected *= std::max<std::int64_t>(a.shape[k], 1);
  }
}

// Whether the row-major element `flat` of a tensor lies in its valid region.
inline bool in_valid_region(std::int64_t flat, const TensorAccess& a) {
  for (std::size_t k = a.shape.size(); k-- > 0;) {
    const std::int64_t extent = std::max<std::int64_t>(a.shape[k], 1);
    if (flat % extent >= a.valid[k]) return false;
    flat /= extent;
  }
  return true;
}

// tile.mgather(mem, idx[, scratch][, valid_shape]), kwargs coalesce (0 row, 1 element) and
// gather_oob (0 undefined, 1 clamp, 2 wrap, 3 zero). Element mode: out[i, j] is element
// idx[i, j] of mem, flat. Row mode: out[i, j] is column j of row idx_i (idx is one row or one
// column) of mem, its leading axes merged into rows. An index outside mem (its row count, or
// its element count) is clamped, wrapped or read as 0 as gather_oob says; the default leaves
// it to the target, and the run stops there. idx is a tile (Vec result) or an INT32 tensor (Mat
// result, read through its type); scratch is the instruction's workspace.
inline Value mgather(OpCall& c) {
  const TensorAccess a = c.access(0);
  require_packed_row_major(c, a, "mem");
  const Buffer& buf = *c.tensor(0).buffer;
  const Tile ix = c.args.at(1).tensor() ? tensor_elements(c, 1) : c.tile(1);
  require_2d(c, ix, "idx");
  if (a.shape.empty()) c.fail("mem has no axis");
  const bool by_element = c.kw<std::int64_t>("coalesce").value_or(0) == 1;
  const std::int64_t oob = c.kw<std::int64_t>("gather_oob").value_or(0);
  if (oob < 0 || oob > 3) c.fail("gather_oob must be 0..3, got " + std::to_string(oob));
  const std::int64_t cols = std::max<std::int64_t>(a.shape.back(), 1), elements = element_count(a.shape);
  const std::int64_t capacity = by_element ? elements : elements / cols;
  if (capacity <= 0) c.fail(RunErrorKind::cannot_run, "mem " + dims_string(a.shape) + " holds nothing to gather");
  auto out = new_result(c);
  require_2d(c, *out, "the result");
  if (by_element ? out->shape != ix.shape
                 : (ix.shape[0] != 1 && ix.shape[1] != 1) || out->shape != Dims{element_count(ix.shape), cols})
    c.fail("the result " + dims_string(out->shape) + " does not fit idx " + dims_string(ix.shape) + " over mem " +
           dims_string(a.shape) + (by_element ? " (element mode: idx's shape)" : " (row mode: [idx's length, mem's columns])"));
  Dims at(2, 0);
  for (std::size_t i = 0; i < out->size(); ++i, next_index(at, out->shape)) {
    const auto k = static_cast<std::size_t>(by_element ? static_cast<std::int64_t>(i) : at[0]);
    if (!ix.defined[k]) continue;
    std::int64_t n = to_i64(ix.data[k]);
    if (n < 0 || n >= capacity) {
      switch (oob) {
        case 1: n = std::clamp<std::int64_t>(n, 0, capacity - 1); break;
        case 2:
          if (n < 0) c.fail(RunErrorKind::cannot_run, "index " + std::to_string(n) + " is negative: how it wraps is target-defined");
          n %= capacity;
          break;
        case 3:
          out->data[i] = 0.0;
          out->defined[i] = 1;
          continue;
        default:
          c.fail(RunErrorKind::cannot_run, "index " + std::to_string(n) + " is outside the " + std::to_string(capacity) +
                                               (by_element ? " elements" : " rows") + " of mem " + dims_string(a.shape) +
                                               " and gather_oob leaves it to the target");
      }
    }
    const std::int64_t flat = by_element ? n : n * cols + at[1];
    if (!in_valid_region(flat, a)) continue;
    read_element(c, buf, flat, *out, i);
  }
  return finish(std::move(out));
}

// tile.gather_row(dst, src, dst_offset, src_offset, shapes[, valid_shape], transpose): dst with
// the valid part (valid_shape, default the whole window `shapes`) of the window of the 2-D
// tensor src at src_offset, read through src's view, written at dst_offset; transpose=True
// writes window row i as dst column i. Every other element of dst keeps its value (the op
// writes dst in place). A window past src or dst cannot run.
inline Value gather_row(OpCall& c) {
  const Tile& dst = c.tile(0);
  require_2d(c, dst, "dst");
  const TensorRef& src = c.tensor(1);
  const TensorAccess a = c.access(1);
  if (a.shape.size() != 2) c.fail(RunErrorKind::unsupported, "a gather_row from a rank-" + std::to_string(a.shape.size()) + " tensor is not modelled");
  const Dims at = c.dims(2), from = c.dims(3), window = c.dims(4);
  const Dims valid = c.has(5) ? c.dims(5) : window;
  if (at.size() != 2 || from.size() != 2 || window.size() != 2 || valid.size() != 2)
    c.fail("dst_offset, src_offset, shapes and valid_shape must each name a row and a column");
  const bool transpose = c.kw<bool>("transpose").value_or(false);
  auto out = copy_of_destination(c, dst);
  const Buffer& buf = *src.buffer;
  for (std::int64_t i = 0; i < std::min(valid[0], window[0]); ++i)
    for (std::int64_t j = 0; j < std::min(valid[1], window[1]); ++j) {
      const std::int64_t sr = from[0] + i, sc = from[1] + j;
      const std::int64_t dr = at[0] + (transpose ? j : i), dc = at[1] + (transpose ? i : j);
      if (sr < 0 || sc < 0 || sr >= a.shape[0] || sc >= a.shape[1])
        c.fail(RunErrorKind::cannot_run, "the window " + dims_string(window) + " at " + dims_string(from) +
                                             " runs past the tensor " + dims_string(a.shape));
      if (dr < 0 || dc < 0 || dr >= dst.shape[0] || dc >= dst.shape[1])
        c.fail(RunErrorKind::cannot_run, "the window " + dims_string(window) + (transpose ? " (transposed)" : "") +
                                             " at " + dims_string(at) + " runs past dst " + dims_string(dst.shape));
      const auto d = static_cast<std::size_t>(dr * dst.shape[1] + dc);
      if (sr >= a.valid[0] || sc >= a.valid[1]) {
        out->defined[d] = 0;
        continue;
      }
      const std::int64_t addr = sr * a.strides[0] + sc * a.strides[1];
      read_element(c, buf, addr, *out, d);
    }
  return finish(std::move(out));
}

// tile.mscatter(src, idx, output_tensor): element idx[p] of the output tensor, flat, becomes
// src[p] for src's valid elements in row-major order (a later write wins); in place, as the
// result is the output tensor.
inline Value mscatter(OpCall& c) {
  const Tile& src = c.tile(0);
  const Tile& ix = c.tile(1);
  if (ix.shape != src.shape) c.fail("idx " + dims_string(ix.shape) + " must have src's shape " + dims_string(src.shape));
  const TensorRef& dst = c.tensor(2);
  const TensorAccess a = c.access(2);
  require_packed_row_major(c, a, "the output tensor");
  Buffer& buf = *dst.buffer;
  check_writable(c, buf);
  const std::int64_t elements = element_count(a.shape);
  std::size_t undefined_into_valid = 0;
  Dims p(src.rank(), 0);
  if (element_count(src.valid) > 0) do {
      auto i = static_cast<std::size_t>(linear(p, src.shape));
      if (!ix.defined[i]) c.fail(RunErrorKind::cannot_run, "index " + dims_string(p) + " of idx is undefined");
      const std::int64_t n = to_i64(ix.data[i]);
      if (n < 0 || n >= elements)
        c.fail(RunErrorKind::cannot_run, "index " + std::to_string(n) + " is outside the " + std::to_string(elements) +
                                             " elements of the output tensor " + dims_string(a.shape));
      check_address(c, buf, n);
      const bool def = src.defined[i] != 0;
      if (!def && in_valid_region(n, a)) ++undefined_into_valid;
      buf.data[static_cast<std::size_t>(n)] = def ? store_rounded(src.data[i], buf.dtype) : 0.0;
      buf.defined[static_cast<std::size_t>(n)] = def;
    } while (next_index(p, src.valid));
  if (undefined_into_valid)
    c.interp.note(std::to_string(undefined_into_valid) + " undefined element(s) of src were scattered into the valid region of tensor '" +
                      buf.name + "'",
                  c.expr->span);
  return dst;
}

// tensor.add/sub/mul/div/maximum/minimum(lhs, rhs) and the scalar forms (adds, …): the tile
// ops' arithmetic (integer division truncates), NumPy broadcasting.
template <Binary F>
Value tensor_binary(OpCall& c) {
  const Tile a = tensor_elements(c, 0);
  const Tile b = c.args.at(1).tensor() ? tensor_elements(c, 1) : scalar_tile(c.scalar(1));
  Tile out = tensor_result_tile(c);
  check_broadcast(c, a, out.shape);
  check_broadcast(c, b, out.shape);
  Broadcast ba(a.shape, out.shape), bb(b.shape, out.shape);
  const bool truncate = F == f_div && !ir::is_float(out.dtype);
  Dims idx(out.rank(), 0);
  for (std::size_t i = 0; i < out.size(); ++i, next_index(idx, out.shape)) {
    auto oa = static_cast<std::size_t>(ba.offset(idx)), ob = static_cast<std::size_t>(bb.offset(idx));
    out.defined[i] = a.defined[oa] & b.defined[ob];
    if (!out.defined[i]) continue;
    out.data[i] = truncate ? (b.data[ob] == 0 ? 0.0 : std::trunc(a.data[oa] / b.data[ob])) : F(a.data[oa], b.data[ob]);
  }
  return tensor_from_tile(c, out);
}

// The tensor reductions: along `axis` (default the last for row_*, the one before for col_*;
// negative counts from the end) over its valid extent; `keep_dim` (default true) keeps the
// axis with extent 1, else it is dropped — a scalar once no axis is left. The arg forms give
// the index of the first extreme element.
template <class Start>
Value tensor_reduce_axis(OpCall& c, std::int64_t default_axis, Start start) {
  const Tile a = tensor_elements(c, 0);
  const auto rank = static_cast<std::int64_t>(a.rank());
  std::int64_t axis = c.kw<std::int64_t>("axis").value_or(default_axis);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) c.fail("axis " + std::to_string(axis) + " is out of range for " + dims_string(a.shape));
  const auto ax = static_cast<std::size_t>(axis);
  Dims expect = a.shape;
  expect[ax] = 1;
  const std::int64_t n = a.valid[ax];
  std::int64_t stride = 1;
  for (std::size_t k = ax + 1; k < a.rank(); ++k) stride *= a.shape[k];
  Tile out(a.dtype, expect, expect);
  Dims idx(expect.size(), 0);
  for (std::size_t i = 0; i < out.size(); ++i, next_index(idx, expect)) {
    bool inside = true;
    for (std::size_t k = 0; k < idx.size(); ++k) inside = inside && (k == ax || idx[k] < a.valid[k]);
    const std::int64_t base = linear(idx, a.shape);
    auto acc = start();
    bool defined = inside && n > 0;
    for (std::int64_t k = 0; k < n && defined; ++k) {
      auto at = static_cast<std::size_t>(base + k * stride);
      defined = a.defined[at];
      acc.fold(a.data[at], k);
    }
    out.defined[i] = defined;
    if (defined) out.data[i] = acc.value();
  }
  if (ir::as<ir::ScalarType>(c.expr->type)) {
    const DataType dt = scalar_dtype(c.expr);
    return Scalar{dt, out.defined[0] ? store_rounded(out.data[0], dt) : 0.0, out.defined[0] != 0};
  }
  Tile result = tensor_result_tile(c);
  if (element_count(result.shape) != element_count(expect))
    c.fail("result " + dims_string(result.shape) + " does not match the reduction of " + dims_string(a.shape));
  // Dropping an axis of extent 1 keeps the row-major order: the elements map one to one.
  result.data = std::move(out.data);
  result.defined = std::move(out.defined);
  return tensor_from_tile(c, result);
}

template <Reduce R, std::int64_t Axis>
Value tensor_reduce(OpCall& c) {
  struct Acc {
    double v = reduce_init(R);
    void fold(double x, std::int64_t) { v = reduce_step(R, v, x); }
    [[nodiscard]] double value() const { return v; }
  };
  return tensor_reduce_axis(c, Axis, [] { return Acc{}; });
}

template <bool Max, std::int64_t Axis>
Value tensor_arg_reduce(OpCall& c) {
  struct Acc {
    double best = Max ? -INFINITY : INFINITY;
    std::int64_t at = 0;
    void fold(double x, std::int64_t k) {
      if (k == 0 || (Max ? x > best : x < best)) {
        best = x;
        at = k;
      }
    }
    [[nodiscard]] double value() const { return static_cast<double>(at); }
  };
  return tensor_reduce_axis(c, Axis, [] { return Acc{}; });
}

// tensor.read(t, indices) / tensor.write(t, indices, value): one element, addressed through
// the tensor's type; the write goes to the tensor's buffer, which the result shares.
inline std::size_t tensor_element_address(const OpCall& c) {
  const TensorAccess a = c.access(0);
  const Dims at = c.dims(1);
  if (at.size() != a.shape.size()) c.fail("expects " + std::to_string(a.shape.size()) + " indices");
  std::int64_t addr = 0;
  for (std::size_t k = 0; k < at.size(); ++k) {
    if (at[k] < 0 || at[k] >= a.shape[k])
      c.fail(RunErrorKind::cannot_run, "index " + dims_string(at) + " is outside " + dims_string(a.shape));
    addr += at[k] * a.strides[k];
  }
  check_address(c, *c.tensor(0).buffer, addr);
  return static_cast<std::size_t>(addr);
}
inline Value tensor_read(OpCall& c) {
  const Buffer& b = *c.tensor(0).buffer;
  const std::size_t at = tensor_element_address(c);
  return Scalar{b.dtype, b.data[at], b.defined[at] != 0};
}
inline Value tensor_write(OpCall& c) {
  const TensorRef& t = c.tensor(0);
  check_writable(c, *t.buffer);
  const std::size_t at = tensor_element_address(c);
  const Scalar& v = c.scalar(2);
  t.buffer->data[at] = v.defined ? store_rounded(v.value, t.buffer->dtype) : 0.0;
  t.buffer->defined[at] = v.defined;
  return t;
}

// tensor.slice(input, shape, offset[, valid_shape, drop_dims]): the window's elements, read
// through the source's type, in a fresh tensor laid out by the result's type. The result's
// type spells packed strides of its own shape (MaterializeTensorStrides fills them so), not
// the source's, so the slice is held as a copy, and a write into it refuses to run
// (check_writable): upstream's slice is a view, whose writes reach the source.
// Dropped axes have extent 1, so the row-major order of the window is the result's.
inline Value tensor_slice(OpCall& c) {
  const Tile a = tensor_elements(c, 0);
  const Dims window = c.dims(1), offset = c.dims(2);
  if (window.size() != a.rank() || offset.size() != a.rank())
    c.fail("shape " + dims_string(window) + " and offset " + dims_string(offset) + " must have the source's rank " +
           std::to_string(a.rank()));
  Tile out = tensor_result_tile(c);
  if (element_count(window) != element_count(out.shape))
    c.fail("the window " + dims_string(window) + " and the result " + dims_string(out.shape) + " differ in size");
  Dims idx(window.size(), 0), at(window.size(), 0), out_idx(out.rank(), 0);
  for (std::size_t i = 0; i < out.size(); ++i, next_index(idx, window), next_index(out_idx, out.shape)) {
    bool valid = true;
    for (std::size_t k = 0; k < out.rank(); ++k) valid = valid && out_idx[k] < out.valid[k];
    if (!valid) continue;
    for (std::size_t k = 0; k < idx.size(); ++k) {
      at[k] = offset[k] + idx[k];
      if (at[k] < 0 || at[k] >= a.shape[k])
        c.fail(RunErrorKind::cannot_run, "the valid window " + dims_string(out.valid) + " at " + dims_string(offset) +
                                             " runs past the source " + dims_string(a.shape));
    }
    auto j = static_cast<std::size_t>(linear(at, a.shape));
    out.data[i] = a.data[j];
    out.defined[i] = a.defined[j];
  }
  Value v = tensor_from_tile(c, out);
  std::get<TensorRef>(v.v).buffer->slice_copy = true;
  return v;
}

// A tensor op computed by its tile counterpart: each tensor operand read into a tile through
// its type, the result tile written into a fresh buffer laid out by the call's type
// (tensor.exp, tensor.cast, tensor.transpose).
template <OpHandler TileOp>
Value on_tensors(OpCall& c) {
  OpCall as_tiles{c.interp, c.call, c.expr, c.args, c.name};
  for (std::size_t i = 0; i < c.args.size(); ++i)
    if (c.args[i].tensor()) as_tiles.args[i] = TilePtr(std::make_shared<Tile>(tensor_elements(c, i)));
  Value r = TileOp(as_tiles);
  const Tile* t = r.tile();
  if (!t) c.fail("the result is not a tensor");
  return tensor_from_tile(c, *t);
}

// tensor.reinterpret_view(data[, shape], dtype): the bytes of data's elements read as another
// dtype (reinterpret_view above). Upstream's is a view of the same memory; the interpreter
// holds a copy, as it does a tensor.slice, so a write through it refuses to run.
inline Value tensor_reinterpret_view(OpCall& c) {
  Value v = on_tensors<reinterpret_view>(c);
  std::get<TensorRef>(v.v).buffer->slice_copy = true;
  return v;
}

// tensor.matmul(lhs, rhs): 2-D operands, `a_trans` / `b_trans` transposing them first; the
// sum runs over the valid extent of the inner axis and is rounded once to the result dtype.
inline Value tensor_matmul(OpCall& c) {
  const Tile a = tensor_elements(c, 0), b = tensor_elements(c, 1);
  if (a.rank() != 2 || b.rank() != 2)
    c.fail(RunErrorKind::unsupported, "tensor.matmul of " + dims_string(a.shape) + " and " + dims_string(b.shape) +
                                          " is not modelled (2-D operands only)");
  const bool ta = c.kw<bool>("a_trans").value_or(false), tb = c.kw<bool>("b_trans").value_or(false);
  // Element (i, j) of an operand after its optional transpose, with its extents.
  auto at = [](const Tile& t, bool trans, std::int64_t i, std::int64_t j) {
    return static_cast<std::size_t>(trans ? j * t.shape[1] + i : i * t.shape[1] + j);
  };
  const std::int64_t m = ta ? a.shape[1] : a.shape[0], k = ta ? a.shape[0] : a.shape[1];
  const std::int64_t kb = tb ? b.shape[1] : b.shape[0], n = tb ? b.shape[0] : b.shape[1];
  const std::int64_t kv = std::min(ta ? a.valid[0] : a.valid[1], tb ? b.valid[1] : b.valid[0]);
  if (k != kb) c.fail("inner dims differ: " + dims_string(a.shape) + " x " + dims_string(b.shape));
  Tile out = tensor_result_tile(c);
  if (out.shape != Dims{m, n}) c.fail("the result " + dims_string(out.shape) + " must be [" + std::to_string(m) + ", " + std::to_string(n) + "]");
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0.0;
      bool defined = true;
      for (std::int64_t p = 0; p < kv; ++p) {
        std::size_t x = at(a, ta, i, p), y = at(b, tb, p, j);
        defined = defined && a.defined[x] && b.defined[y];
        sum += a.data[x] * b.data[y];
      }
      auto o = static_cast<std::size_t>(i * n + j);
      out.data[o] = sum;
      out.defined[o] = defined;
    }
  return tensor_from_tile(c, out);
}

// tensor.assemble(target, source, offset[, atomic=1]): the source's valid elements written
// into the target at `offset` (added with atomic=1), in place, as upstream's result keeps the
// target's memory; a lower-rank source lines up with the target's last axes.
inline Value tensor_assemble(OpCall& c) {
  const TensorRef& dst = c.tensor(0);
  check_writable(c, *dst.buffer);
  const TensorAccess acc = c.access(0);
  const Tile src = tensor_elements(c, 1);
  const Dims off = c.dims(2);
  const std::size_t n = acc.shape.size();
  if (off.size() != n || src.rank() > n)
    c.fail("offset " + dims_string(off) + " must have the target's rank " + std::to_string(n) + ", and the source " +
           dims_string(src.shape) + " at most that");
  const bool add = c.kw<std::int64_t>("atomic").value_or(0) == 1;
  const std::size_t lead = n - src.rank();  // target axes the source does not have
  Buffer& buf = *dst.buffer;
  if (element_count(src.valid) == 0) return dst;
  Dims idx(src.rank(), 0);
  do {
    std::int64_t addr = 0;
    for (std::size_t k = 0; k < n; ++k) {
      std::int64_t p = off[k] + (k < lead ? 0 : idx[k - lead]);
      if (p < 0 || p >= acc.shape[k])
        c.fail(RunErrorKind::cannot_run, "the source " + dims_string(src.valid) + " at " + dims_string(off) +
                                             " runs past the target " + dims_string(acc.shape));
      addr += p * acc.strides[k];
    }
    check_address(c, buf, addr);
    auto s = static_cast<std::size_t>(linear(idx, src.shape));
    auto d = static_cast<std::size_t>(addr);
    const bool def = src.defined[s] && (!add || buf.defined[d]);
    buf.data[d] = def ? store_rounded(add ? buf.data[d] + src.data[s] : src.data[s], buf.dtype) : 0.0;
    buf.defined[d] = def;
  } while (next_index(idx, src.valid));
  return dst;
}

// ---- arrays ------------------------------------------------------------------------------

// An array (array.create) is held as a rank-1 tile of its extent, zero-filled as upstream's
// orchestration code declares it (`T a[N] = {0}`). array.update_element returns a new
// array: the IR's arrays are values.
inline Value array_create(OpCall& c) {
  const auto* at = ir::as<ir::ArrayType>(c.expr->type);
  if (!at) c.fail("the result is not an array");
  if (!is_modelled(at->dtype)) c.fail(RunErrorKind::unsupported, "dtype " + std::string(ir::name_of(at->dtype)) + " is not modelled");
  if (at->extent < 0) c.fail("the extent " + std::to_string(at->extent) + " is negative");
  run_allocation(at->extent, "the array of " + std::to_string(at->extent), c.expr->span);
  auto a = std::make_shared<Tile>(at->dtype, Dims{at->extent}, Dims{at->extent});
  std::fill(a->defined.begin(), a->defined.end(), std::uint8_t{1});
  return TilePtr(std::move(a));
}

inline std::size_t array_slot(OpCall& c, const Tile& a) {
  std::int64_t i = c.index(1);
  if (a.rank() != 1) c.fail("argument 0 is not an array");
  if (i < 0 || i >= a.shape[0])
    c.fail(RunErrorKind::cannot_run, "index " + std::to_string(i) + " is outside the array of " + std::to_string(a.shape[0]));
  return static_cast<std::size_t>(i);
}

inline Value array_get(OpCall& c) {
  const Tile& a = c.tile(0);
  std::size_t i = array_slot(c, a);
  return Scalar{a.dtype, a.data[i], a.defined[i] != 0};
}

inline Value array_update(OpCall& c) {
  const Tile& a = c.tile(0);
  std::size_t i = array_slot(c, a);
  const Scalar& v = c.scalar(2);
  auto out = std::make_shared<Tile>(a);
  out->data[i] = v.defined ? store_rounded(v.value, a.dtype) : 0.0;
  out->defined[i] = v.defined;
  return TilePtr(std::move(out));
}

inline Value nothing(OpCall&) { return {}; }
inline Value opaque(OpCall& c) { return Opaque{std::string(c.name)}; }
inline Value zero_index(OpCall& c) { return Scalar{scalar_dtype(c.expr), 0.0, true}; }
inline Value one_index(OpCall& c) { return Scalar{scalar_dtype(c.expr), 1.0, true}; }

inline void register_ops(OpTable& t) {
  // memory
  t.add("tile.load", load);
  t.add("tile.store", store);
  t.add("pld.tile.remote_load", remote_load);
  t.add("pld.tile.remote_store", remote_store);
  t.add("tile.create", create);
  t.add("tile.full", full);
  t.add("tile.move", move);
  t.add("tile.read", read);
  t.add("tile.write", write);
  t.add("tile.extract", extract);
  t.add("tile.alloc", opaque);
  t.add("tile.get_block_idx", zero_index);
  t.add("tile.get_subblock_idx", zero_index);
  t.add("tile.get_block_num", one_index);
  // views
  t.add("tile.slice", slice);
  t.add("tile.reshape", reshape);
  t.add("tile.reinterpret_view", reinterpret_view);
  t.add("tile.transpose", transpose);
  t.add("tile.transpose_view", transpose_view);
  t.add("tile.assemble", assemble);
  t.add("tile.set_validshape", set_validshape);
  t.add("tile.concat", concat);
  // element-wise
  t.add("tile.add", tile_tile<f_add>);
  t.add("tile.sub", tile_tile<f_sub>);
  t.add("tile.mul", tile_tile<f_mul>);
  t.add("tile.div", tile_tile<f_div>);
  t.add("tile.maximum", tile_tile<f_max>);
  t.add("tile.minimum", tile_tile<f_min>);
  t.add("tile.fmod", tile_tile<f_fmod>);
  t.add("tile.rem", tile_tile<f_fmod>);
  t.add("tile.and", tile_tile<f_and>);
  t.add("tile.or", tile_tile<f_or>);
  t.add("tile.xor", tile_tile<f_xor>);
  t.add("tile.shl", tile_tile<f_shl>);
  t.add("tile.shr", tile_tile<f_shr>);
  t.add("tile.adds", tile_scalar<f_add>);
  t.add("tile.subs", tile_scalar<f_sub>);
  t.add("tile.muls", tile_scalar<f_mul>);
  t.add("tile.divs", tile_scalar<f_div>);
  t.add("tile.maximums", tile_scalar<f_max>);
  t.add("tile.minimums", tile_scalar<f_min>);
  t.add("tile.fmods", tile_scalar<f_fmod>);
  t.add("tile.rems", tile_scalar<f_fmod>);
  t.add("tile.ands", tile_scalar<f_and>);
  t.add("tile.ors", tile_scalar<f_or>);
  t.add("tile.xors", tile_scalar<f_xor>);
  t.add("tile.shls", tile_scalar<f_shl>);
  t.add("tile.shrs", tile_scalar<f_shr>);
  t.add("tile.lrelu", lrelu);
  t.add("tile.expands", expands);
  t.add("tile.exp", unary<f_exp>);
  t.add("tile.neg", unary<f_neg>);
  t.add("tile.abs", unary<f_abs>);
  t.add("tile.sqrt", unary<f_sqrt>);
  t.add("tile.rsqrt", unary<f_rsqrt>);
  t.add("tile.recip", unary<f_recip>);
  t.add("tile.relu", unary<f_relu>);
  t.add("tile.log", unary<f_log>);
  t.add("tile.sin", unary<f_sin>);
  t.add("tile.cos", unary<f_cos>);
  t.add("tile.not", unary<f_not>);
  t.add("tile.cast", cast);
  t.add("tile.fillpad", fillpad);
  t.add("tile.fillpad_inplace", fillpad);
  t.add("tile.fillpad_expand", fillpad);
  // reductions
  t.add("tile.row_sum", reduce<Reduce::sum, true>);
  t.add("tile.row_max", reduce<Reduce::max, true>);
  t.add("tile.row_min", reduce<Reduce::min, true>);
  t.add("tile.row_prod", reduce<Reduce::prod, true>);
  t.add("tile.col_sum", reduce<Reduce::sum, false>);
  t.add("tile.col_max", reduce<Reduce::max, false>);
  t.add("tile.col_min", reduce<Reduce::min, false>);
  t.add("tile.col_prod", reduce<Reduce::prod, false>);
  t.add("tile.row_argmax", arg_reduce<true, true>);
  t.add("tile.row_argmin", arg_reduce<false, true>);
  t.add("tile.col_argmax", arg_reduce<true, false>);
  t.add("tile.col_argmin", arg_reduce<false, false>);
  t.add("tile.addc", ternary_tiles<false>);
  t.add("tile.subc", ternary_tiles<true>);
  t.add("tile.addsc", ternary_scalar<false>);
  t.add("tile.subsc", ternary_scalar<true>);
  t.add("tile.prelu", prelu);
  t.add("tile.cmp", cmp);
  t.add("tile.cmps", cmps);
  t.add("tile.sel", sel);
  t.add("tile.sels", sels);
  t.add("tile.part_add", part<f_add>);
  t.add("tile.part_mul", part<f_mul>);
  t.add("tile.part_max", part<f_max>);
  t.add("tile.part_min", part<f_min>);
  // broadcasts
  for (const char* prefix : {"tile.row_expand", "tile.col_expand"}) {
    std::string p = prefix;
    t.add(p, expand<f_second>);
    t.add(p + "_add", expand<f_add>);
    t.add(p + "_sub", expand<f_sub>);
    t.add(p + "_mul", expand<f_mul>);
    t.add(p + "_div", expand<f_div>);
    t.add(p + "_max", expand<f_max>);
    t.add(p + "_min", expand<f_min>);
    t.add(p + "_expdif", expand<f_expdif>);
  }
  // matmul family
  t.add("tile.matmul", matmul<false, false>);
  t.add("tile.matmul_acc", matmul<true, false>);
  t.add("tile.matmul_bias", matmul<false, true>);
  t.add("tile.gemv", matmul<false, false>);
  t.add("tile.gemv_acc", matmul<true, false>);
  t.add("tile.gemv_bias", matmul<false, true>);
  t.add("tile.batch_matmul", batch_matmul<false>);
  t.add("tile.batch_matmul_acc", batch_matmul<true>);
  // tensors and the rest of orchestration
  t.add("tensor.view", same_buffer);
  t.add("tensor.reshape", same_buffer);
  t.add("tensor.create", tensor_create);
  t.add("tensor.full", tensor_create);
  t.add("tensor.read", tensor_read);
  t.add("tensor.slice", tensor_slice);
  t.add("tensor.reinterpret_view", tensor_reinterpret_view);
  t.add("tensor.alloc", opaque);
  t.add("tensor.exp", on_tensors<unary<f_exp>>);
  t.add("tensor.cast", on_tensors<cast>);
  t.add("tensor.transpose", on_tensors<transpose>);
  t.add("tensor.matmul", tensor_matmul);
  t.add("tensor.assemble", tensor_assemble);
  t.add("tensor.write", tensor_write);
  t.add("tensor.add", tensor_binary<f_add>);
  t.add("tensor.sub", tensor_binary<f_sub>);
  t.add("tensor.mul", tensor_binary<f_mul>);
  t.add("tensor.div", tensor_binary<f_div>);
  t.add("tensor.maximum", tensor_binary<f_max>);
  t.add("tensor.minimum", tensor_binary<f_min>);
  t.add("tensor.adds", tensor_binary<f_add>);
  t.add("tensor.subs", tensor_binary<f_sub>);
  t.add("tensor.muls", tensor_binary<f_mul>);
  t.add("tensor.divs", tensor_binary<f_div>);
  t.add("tensor.row_sum", tensor_reduce<Reduce::sum, -1>);
  t.add("tensor.row_max", tensor_reduce<Reduce::max, -1>);
  t.add("tensor.row_min", tensor_reduce<Reduce::min, -1>);
  t.add("tensor.row_prod", tensor_reduce<Reduce::prod, -1>);
  t.add("tensor.col_sum", tensor_reduce<Reduce::sum, -2>);
  t.add("tensor.col_max", tensor_reduce<Reduce::max, -2>);
  t.add("tensor.col_min", tensor_reduce<Reduce::min, -2>);
  t.add("tensor.col_prod", tensor_reduce<Reduce::prod, -2>);
  t.add("tensor.row_argmax", tensor_arg_reduce<true, -1>);
  t.add("tensor.row_argmin", tensor_arg_reduce<false, -1>);
  t.add("tensor.col_argmax", tensor_arg_reduce<true, -2>);
  t.add("tensor.col_argmin", tensor_arg_reduce<false, -2>);
  for (const char* n : {"system.bar_all", "system.bar_v", "system.bar_m", "system.sync_src", "system.sync_dst",
                        "system.sync_set", "system.sync_wait", "system.syncall", "system.fence",
                        "system.cacheinvalid", "system.set_ffts"})
    t.add(n, nothing);
  t.add("tile.ci", ci);
  t.add("tile.tri", tri);
  t.add("tile.gather", gather);
  t.add("tile.gather_mask", gather_mask);
  t.add("tile.gatherb", gatherb);
  t.add("tile.mgather", mgather);
  t.add("tile.mscatter", mscatter);
  t.add("tile.gather_row", gather_row);
  t.add("tile.scatter", scatter);
  t.add("tile.scatter_mask", scatter_mask);
  t.add("tile.scatter_update", scatter_update);
  t.add("tile.sort32", sort32);
  t.add("tile.mrgsort_format1", mrgsort_format1);
  t.add("tile.mrgsort_format2", mrgsort_format2);
  t.add("array.create", array_create);
  t.add("array.get_element", array_get);
  t.add("array.update_element", array_update);
  t.add("system.task_dummy", opaque);
  t.add("system.task_invalid", opaque);
}

}  // namespace tilewright::interp::ops_detail

namespace tilewright::interp {

inline const OpTable& builtin_op_table() {
  static const OpTable table = [] {
    OpTable t;
    ops_detail::register_ops(t);
    return t;
  }();
  return table;
}

}  // namespace tilewright::interp
