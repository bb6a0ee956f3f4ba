#pragma once
// 32-byte alignment of zero-copy tile windows, computed modulo 256 bits (CT-13..CT-15).
//
// A Vec slice that is not copied out starts at
//   base_bits + row * row_stride_bits + col * storage_bits
// inside its source tile, and vector instructions require that address to be a multiple
// of 32 bytes. Everything is reduced modulo 256 bits, so constant offsets fold to a
// residue and symbolic offsets only need a "known multiple": a number every runtime value
// is divisible by (a gcd-style abstraction, capped at 256 because only residues mod 256
// matter). Bits rather than bytes keep packed 4-bit elements exact.
#include <cstdint>
#include <numeric>
#include <optional>

#include "tilewright/math/checked.hpp"
#include "tilewright/math/enums.hpp"

namespace tilewright::math {

inline constexpr std::int64_t k_vec_alignment_bytes = 32;
inline constexpr std::int64_t k_alignment_bits = k_vec_alignment_bytes * 8;  // 256

// Bytes needed to store `count` elements: ceil(count * storage_bits / 8). Overflow and a
// negative count are reported as std::nullopt.
[[nodiscard]] constexpr std::optional<std::int64_t> static_storage_bytes(std::int64_t count,
                                                                         DataType t) noexcept {
  if (count < 0) return std::nullopt;
  const auto bits = checked_mul(count, storage_bits(t));
  if (!bits) return std::nullopt;
  return *bits / 8 + (*bits % 8 != 0 ? 1 : 0);
}

// Row pitch of a 2-D base tile in bits, modulo 256: (base_cols mod 256) * storage_bits.
[[nodiscard]] constexpr std::int64_t row_stride_bits(std::int64_t base_cols,
                                                     std::int64_t element_bits) noexcept {
  return floor_mod(floor_mod(base_cols, k_alignment_bits) * element_bits, k_alignment_bits);
}

// Residue of the base tile's own address, from its MemRef byte offset. Pass 0 when the
// tile has no MemRef yet. The -1 allocation-planning sentinel (any negative offset) means
// "not placed yet": the allocator will place the root aligned, so it contributes 0. A
// symbolic offset cannot be reasoned about: std::nullopt.
[[nodiscard]] constexpr std::optional<std::int64_t> base_offset_bits(
    const maybe_i64& byte_offset) noexcept {
  if (!byte_offset) return std::nullopt;
  if (*byte_offset < 0) return 0;
  return floor_mod(*byte_offset, k_vec_alignment_bytes) * 8;
}

// --- Known multiples (CT-14) --------------------------------------------------------------

// Every value of the expression is divisible by the result; always in [1, 256].
[[nodiscard]] constexpr std::int64_t known_multiple_of_constant(std::int64_t v) noexcept {
  return std::gcd(floor_mod(v, k_alignment_bits), k_alignment_bits);  // gcd(0, 256) = 256
}

// An unknown value (a parameter, a loop variable, an opaque op) is only a multiple of 1.
inline constexpr std::int64_t k_unknown_multiple = 1;

// a + b and a - b keep every common divisor of the two.
[[nodiscard]] constexpr std::int64_t known_multiple_add(std::int64_t a, std::int64_t b) noexcept {
  return std::gcd(a, b);
}
[[nodiscard]] constexpr std::int64_t known_multiple_sub(std::int64_t a, std::int64_t b) noexcept {
  return std::gcd(a, b);
}
// a * b is a multiple of both factors' multiples multiplied (both are <= 256, so the
// product cannot overflow).
[[nodiscard]] constexpr std::int64_t known_multiple_mul(std::int64_t a, std::int64_t b) noexcept {
  return std::gcd(a * b, k_alignment_bits);
}

// One coordinate of a window origin: a constant, or a symbolic value of which only a
// known multiple is available.
struct index_fact {
  bool is_constant = true;
  std::int64_t value = 0;  // the constant, or the known multiple when symbolic

  [[nodiscard]] static constexpr index_fact constant(std::int64_t v) noexcept { return {true, v}; }
  [[nodiscard]] static constexpr index_fact symbolic(std::int64_t multiple) noexcept {
    return {false, multiple};
  }
};

// CT-13: the window origin's bit residue modulo 256, or std::nullopt when it cannot be
// proven. `base_cols` is the base tile's column extent (nullopt when symbolic);
// `base_bits` comes from base_offset_bits.
//   FP32 col 1  → 32 (unaligned)     FP32 col 8 → 0      FP16 col 8 → 128
//   FP32 [8,12] row 1 → 128          row 2 → 0           INT4 col 64 → 0
[[nodiscard]] constexpr std::optional<std::int64_t> window_address_bits(
    std::optional<std::int64_t> base_bits, index_fact row, index_fact col,
    const maybe_i64& base_cols, std::int64_t element_bits) noexcept {
  if (!base_bits || element_bits <= 0) return std::nullopt;
  std::int64_t addr = floor_mod(*base_bits, k_alignment_bits);

  if (col.is_constant) {
    addr += floor_mod(floor_mod(col.value, k_alignment_bits) * element_bits, k_alignment_bits);
  } else if ((floor_mod(col.value, k_alignment_bits) * element_bits) % k_alignment_bits != 0) {
    return std::nullopt;
  }

  const bool row_is_zero = row.is_constant && row.value == 0;
  if (!row_is_zero) {
    if (!base_cols) return std::nullopt;
    const std::int64_t pitch = row_stride_bits(*base_cols, element_bits);
    if (row.is_constant) {
      addr += floor_mod(floor_mod(row.value, k_alignment_bits) * pitch, k_alignment_bits);
    } else if ((floor_mod(row.value, k_alignment_bits) * pitch) % k_alignment_bits != 0) {
      return std::nullopt;
    }
  }
  return floor_mod(addr, k_alignment_bits);
}

// The decision CanonicalizeTileSlice acts on: copy the window out unless its origin is
// provably on a 32-byte boundary.
[[nodiscard]] constexpr bool is_provably_aligned(std::optional<std::int64_t> base_bits,
                                                 index_fact row, index_fact col,
                                                 const maybe_i64& base_cols,
                                                 std::int64_t element_bits) noexcept {
  const auto bits = window_address_bits(base_bits, row, col, base_cols, element_bits);
  return bits.has_value() && *bits == 0;
}

}  // namespace tilewright::math
