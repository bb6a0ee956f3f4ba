#pragma once
// Element arithmetic of the reference interpreter: rounding a real number to a dtype (on
// every store into a tile or tensor of that dtype), the seven cast modes, and the bit
// patterns tile.reinterpret_view reads.
//
// Values travel as doubles. Every float format the tiles use is a binary format with fewer
// significand bits than a double, so "compute in double, round once to the format" is the
// correctly rounded result of the format's own add, sub, mul, div and sqrt.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include "tilewright/ir/enums.hpp"

namespace tilewright::interp {

using ir::CastMode;
using ir::DataType;

// A double as an int64, saturating (NaN reads as 0): no conversion is undefined behaviour.
inline std::int64_t to_i64(double v) noexcept {
  if (std::isnan(v)) return 0;
  if (v >= 9.2233720368547758e18) return std::numeric_limits<std::int64_t>::max();
  if (v <= -9.2233720368547758e18) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(v);
}

// A binary float format: exponent and fraction widths, and whether the all-ones exponent
// encodes infinities (IEEE) or ordinary numbers (the FN formats, which have no infinity).
struct FloatFormat {
  int exponent_bits = 0;
  int fraction_bits = 0;
  bool has_infinity = true;
  [[nodiscard]] constexpr int bias() const noexcept { return (1 << (exponent_bits - 1)) - 1; }
  [[nodiscard]] constexpr int min_exponent() const noexcept { return 1 - bias(); }
  [[nodiscard]] double max_finite() const noexcept {
    int emax = (1 << exponent_bits) - 1 - bias() - (has_infinity ? 1 : 0);
    // FN formats reserve only the all-ones pattern for NaN: the top fraction is one lower.
    double frac = has_infinity ? 2.0 - std::ldexp(1.0, -fraction_bits) : 2.0 - std::ldexp(2.0, -fraction_bits);
    return std::ldexp(frac, emax);
  }
};

// The float formats the interpreter models, or nullopt (FP32 is exact in a double only up
// to its own precision, so it is rounded like the others).
constexpr std::optional<FloatFormat> float_format(DataType t) noexcept {
  switch (t) {
    case DataType::FP32: return FloatFormat{8, 23, true};
    case DataType::FP16: return FloatFormat{5, 10, true};
    case DataType::BF16: return FloatFormat{8, 7, true};
    case DataType::FP8E5M2: return FloatFormat{5, 2, true};
    case DataType::FP8E4M3FN: return FloatFormat{4, 3, false};
    default: return std::nullopt;
  }
}

// Dtypes whose values the interpreter can hold exactly (up to the double's 53 bits for the
// 64-bit integers). FP4, HF4, HF8, FP8E8M0 (a pure exponent) and the sub-byte integers are
// not modelled; an op that produces one is reported.
constexpr bool is_modelled(DataType t) noexcept {
  switch (t) {
    case DataType::FP4: case DataType::HF4: case DataType::HF8: case DataType::FP8E8M0:
    case DataType::INT4: case DataType::UINT4: case DataType::TASK_ID:
      return false;
    default: return true;
  }
}

namespace detail {

inline double round_integer(double v, CastMode mode) noexcept {
  switch (mode) {
    case CastMode::none:
    case CastMode::rint: return std::nearbyint(v);  // the default environment: ties to even
    case CastMode::round: return std::round(v);     // ties away from zero
    case CastMode::floor: return std::floor(v);
    case CastMode::ceil: return std::ceil(v);
    case CastMode::trunc: return std::trunc(v);
    case CastMode::odd: {
      double t = std::trunc(v);
      if (t == v) return v;
      return std::fmod(t, 2.0) != 0.0 ? t : t + (v < 0 ? -1.0 : 1.0);
    }
  }
  return std::nearbyint(v);
}

}  // namespace detail

// Rounds `x` to the float format with the given mode; overflow saturates to the largest
// finite value (Ascend's conversions saturate), an infinity stays one where the format has it.
inline double round_to_format(double x, FloatFormat f, CastMode mode = CastMode::rint) noexcept {
  if (std::isnan(x) || x == 0.0) return x;
  if (std::isinf(x)) return f.has_infinity ? x : std::copysign(f.max_finite(), x);
  int e = 0;
  std::frexp(x, &e);  // |x| in [2^(e-1), 2^e)
  int exponent = std::max(e - 1, f.min_exponent());
  double quantum = std::ldexp(1.0, exponent - f.fraction_bits);
  double r = detail::round_integer(x / quantum, mode) * quantum;
  double m = f.max_finite();
  if (std::fabs(r) > m) r = std::copysign(m, r);
  return r;
}

constexpr bool is_signed_integer(DataType t) noexcept {
  return t == DataType::INT8 || t == DataType::INT16 || t == DataType::INT32 || t == DataType::INT64 ||
         t == DataType::INDEX;
}

// The range of an integer dtype, as doubles.
inline double integer_min(DataType t) noexcept {
  if (!is_signed_integer(t)) return 0.0;
  return -std::ldexp(1.0, ir::bit_width(t) - 1);
}
inline double integer_max(DataType t) noexcept {
  int bits = ir::bit_width(t);
  return is_signed_integer(t) ? std::ldexp(1.0, bits - 1) - 1.0 : std::ldexp(1.0, bits) - 1.0;
}

// Wraps an integral value to the dtype's width, as the integer ALUs do (two's complement).
inline double wrap_integer(double v, DataType t) noexcept {
  int bits = ir::bit_width(t);
  if (bits >= 64 || !std::isfinite(v)) return v;
  double span = std::ldexp(1.0, bits);
  double w = std::fmod(std::trunc(v), span);
  if (w < 0) w += span;
  if (is_signed_integer(t) && w > integer_max(t)) w -= span;
  return w;
}

// The value an arithmetic result takes once stored into an element of dtype `t`.
inline double store_rounded(double v, DataType t) noexcept {
  // FP32 round-to-nearest-even is the hardware conversion to float (within float's range).
  if (t == DataType::FP32 && std::fabs(v) <= static_cast<double>(std::numeric_limits<float>::max()))
    return static_cast<double>(static_cast<float>(v));
  if (auto f = float_format(t)) return round_to_format(v, *f);
  if (t == DataType::BOOL) return v != 0.0 ? 1.0 : 0.0;
  if (ir::is_integer(t)) return wrap_integer(v, t);
  return v;
}

// tile.cast / scalar casts: `mode` rounds to the target (to an integer for integer targets);
// out-of-range values saturate. `none` rounds like `rint` where precision is lost, and is
// exact elsewhere, which a correctly rounded conversion already is.
inline double cast_value(double v, DataType from, DataType to, CastMode mode) noexcept {
  if (to == DataType::BOOL) return v != 0.0 ? 1.0 : 0.0;
  if (auto f = float_format(to)) return round_to_format(v, *f, mode);
  if (ir::is_integer(to)) {
    if (std::isnan(v)) return 0.0;
    double r = ir::is_float(from) ? detail::round_integer(v, mode) : v;
    if (ir::bit_width(to) >= 64) return r;
    return std::clamp(r, integer_min(to), integer_max(to));
  }
  return v;
}

// ---- bit patterns (tile.reinterpret_view) ----------------------------------------------

inline std::uint64_t encode_float(double v, FloatFormat f) noexcept {
  std::uint64_t sign = std::signbit(v) ? 1 : 0;
  std::uint64_t exp_all = (std::uint64_t{1} << f.exponent_bits) - 1;
  std::uint64_t frac_all = (std::uint64_t{1} << f.fraction_bits) - 1;
  std::uint64_t e = 0, m = 0;
  double a = std::fabs(v);
  if (std::isnan(v)) {
    e = exp_all;
    m = frac_all;
  } else if (std::isinf(v)) {
    e = exp_all;
  } else if (a != 0.0) {
    int k = 0;
    std::frexp(a, &k);
    int exponent = k - 1;
    if (exponent < f.min_exponent()) {
      m = static_cast<std::uint64_t>(std::ldexp(a, f.fraction_bits - f.min_exponent()));
    } else {
      e = static_cast<std::uint64_t>(exponent + f.bias());
      m = static_cast<std::uint64_t>((std::ldexp(a, -exponent) - 1.0) * std::ldexp(1.0, f.fraction_bits));
    }
  }
  return (sign << (f.exponent_bits + f.fraction_bits)) | (e << f.fraction_bits) | m;
}

inline double decode_float(std::uint64_t bits, FloatFormat f) noexcept {
  std::uint64_t frac_all = (std::uint64_t{1} << f.fraction_bits) - 1;
  std::uint64_t exp_all = (std::uint64_t{1} << f.exponent_bits) - 1;
  std::uint64_t m = bits & frac_all;
  std::uint64_t e = (bits >> f.fraction_bits) & exp_all;
  bool negative = (bits >> (f.exponent_bits + f.fraction_bits)) & 1;
  double a = 0.0;
  if (e == exp_all && (f.has_infinity || m == frac_all)) {
    a = (f.has_infinity && m == 0) ? std::numeric_limits<double>::infinity()
                                   : std::numeric_limits<double>::quiet_NaN();
  } else if (e == 0) {
    a = std::ldexp(static_cast<double>(m), f.min_exponent() - f.fraction_bits);
  } else {
    a = std::ldexp(1.0 + std::ldexp(static_cast<double>(m), -f.fraction_bits),
                   static_cast<int>(e) - f.bias());
  }
  return negative ? -a : a;
}

// The storage bits of a value of dtype `t` (byte-wide and wider dtypes only).
inline std::uint64_t encode_bits(double v, DataType t) noexcept {
  if (t == DataType::FP32) {
    float x = static_cast<float>(v);
    std::uint32_t b = 0;
    std::memcpy(&b, &x, sizeof b);
    return b;
  }
  if (auto f = float_format(t)) return encode_float(v, *f);
  int bits = ir::storage_bits(t);
  auto i = to_i64(v);
  auto u = static_cast<std::uint64_t>(i);
  return bits >= 64 ? u : u & ((std::uint64_t{1} << bits) - 1);
}

inline double decode_bits(std::uint64_t b, DataType t) noexcept {
  if (t == DataType::FP32) {
    auto w = static_cast<std::uint32_t>(b);
    float x = 0;
    std::memcpy(&x, &w, sizeof x);
    return x;
  }
  if (auto f = float_format(t)) return decode_float(b, *f);
  int bits = ir::storage_bits(t);
  if (t == DataType::BOOL) return b != 0 ? 1.0 : 0.0;
  if (bits < 64 && is_signed_integer(t) && ((b >> (bits - 1)) & 1)) return static_cast<double>(static_cast<std::int64_t>(b | ~((std::uint64_t{1} << bits) - 1)));
  return is_signed_integer(t) ? static_cast<double>(static_cast<std::int64_t>(b)) : static_cast<double>(b);
}

// Elements compare equal when both are NaN, or equal as numbers and of the same sign of
// zero (a pass that turns +0 into -0 changes what a later division computes).
inline bool same_element(double a, double b) noexcept {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

}  // namespace tilewright::interp
