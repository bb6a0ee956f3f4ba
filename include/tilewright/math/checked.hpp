#pragma once
// Overflow-checked int64 arithmetic, usable in constant evaluation.
//
// Shapes, strides and byte counts are products of user-supplied extents; a silent wrap
// would turn an absurd kernel into a plausible-looking wrong address. Every helper returns
// std::nullopt when the exact result does not fit in int64.
#include <cstdint>
#include <optional>

namespace tilewright::math {

// A dimension, stride or offset that may be unknown at compile time. std::nullopt stands
// for a symbolic value: the IR layer maps ConstInt to a number and anything else to
// nullopt, so the geometry can answer "provably yes", "provably no" or "cannot tell".
using maybe_i64 = std::optional<std::int64_t>;

[[nodiscard]] constexpr std::optional<std::int64_t> checked_add(std::int64_t a,
                                                                std::int64_t b) noexcept {
  std::int64_t out{};
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

[[nodiscard]] constexpr std::optional<std::int64_t> checked_sub(std::int64_t a,
                                                                std::int64_t b) noexcept {
  std::int64_t out{};
  if (__builtin_sub_overflow(a, b, &out)) return std::nullopt;
  return out;
}

[[nodiscard]] constexpr std::optional<std::int64_t> checked_mul(std::int64_t a,
                                                                std::int64_t b) noexcept {
  std::int64_t out{};
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

// Rounds `value` up to a multiple of `step` (step > 0, value >= 0); nullopt on overflow
// or on a precondition breach, so callers never divide by zero.
[[nodiscard]] constexpr std::optional<std::int64_t> round_up(std::int64_t value,
                                                             std::int64_t step) noexcept {
  if (step <= 0 || value < 0) return std::nullopt;
  const std::int64_t rem = value % step;
  if (rem == 0) return value;
  return checked_add(value, step - rem);
}

// Mathematical (non-negative) remainder, so -1 mod 32 is 31 rather than C++'s -1.
[[nodiscard]] constexpr std::int64_t floor_mod(std::int64_t value, std::int64_t modulus) noexcept {
  const std::int64_t rem = value % modulus;
  return rem < 0 ? rem + modulus : rem;
}

}  // namespace tilewright::math
