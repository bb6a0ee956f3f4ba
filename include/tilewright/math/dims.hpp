#pragma once
// The dims container and the product of extents (TVS-01).
//
// Convention for the whole math layer: functions READ extents through
// std::span<const std::int64_t> (or std::span<const maybe_i64> when some may be symbolic)
// and RETURN them in a fixed_vector of capacity k_max_rank. Spans accept std::array,
// std::vector and our own containers alike; a fixed-capacity result needs no allocation,
// so it can be built and compared inside static_assert. Tiles and tensors here never
// exceed rank 8 (the blocked NZ form, the largest, is rank 5), and an input that does is
// reported as an error value rather than truncated.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <span>

#include "tilewright/math/checked.hpp"
#include "tilewright/math/result.hpp"

namespace tilewright::math {

inline constexpr std::size_t k_max_rank = 8;

namespace detail {
// Constructing a fixed_vector from a braced list longer than its capacity is a programming
// error in the caller's source, not a data-dependent failure; fail loudly (and, in constant
// evaluation, at compile time because this is not constexpr).
[[noreturn]] inline void fixed_vector_overflow() noexcept { std::abort(); }
}  // namespace detail

template <class T, std::size_t N>
class fixed_vector {
 public:
  using value_type = T;
  using size_type = std::size_t;
  using iterator = T*;
  using const_iterator = const T*;

  constexpr fixed_vector() = default;
  constexpr fixed_vector(std::initializer_list<T> items) {
    if (items.size() > N) detail::fixed_vector_overflow();
    for (const T& item : items) items_[size_++] = item;
  }

  // Copies a span when it fits; std::nullopt when it is longer than the capacity.
  [[nodiscard]] static constexpr std::optional<fixed_vector> from(std::span<const T> items) {
    if (items.size() > N) return std::nullopt;
    fixed_vector out;
    for (const T& item : items) out.items_[out.size_++] = item;
    return out;
  }

  // Returns false (and leaves the vector unchanged) when full.
  constexpr bool push_back(const T& item) noexcept {
    if (size_ == N) return false;
    items_[size_++] = item;
    return true;
  }

  [[nodiscard]] static constexpr std::size_t capacity() noexcept { return N; }
  [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
  [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }

  constexpr T* data() noexcept { return items_.data(); }
  constexpr const T* data() const noexcept { return items_.data(); }
  constexpr T* begin() noexcept { return items_.data(); }
  constexpr T* end() noexcept { return items_.data() + size_; }
  constexpr const T* begin() const noexcept { return items_.data(); }
  constexpr const T* end() const noexcept { return items_.data() + size_; }

  constexpr T& operator[](std::size_t i) noexcept { return items_[i]; }
  constexpr const T& operator[](std::size_t i) const noexcept { return items_[i]; }
  constexpr T& front() noexcept { return items_[0]; }
  constexpr const T& front() const noexcept { return items_[0]; }
  constexpr T& back() noexcept { return items_[size_ - 1]; }
  constexpr const T& back() const noexcept { return items_[size_ - 1]; }

  // Only the live prefix takes part: two vectors holding the same extents are equal
  // whatever stale values sit past size().
  friend constexpr bool operator==(const fixed_vector& a, const fixed_vector& b) noexcept {
    if (a.size_ != b.size_) return false;
    for (std::size_t i = 0; i < a.size_; ++i) {
      if (!(a.items_[i] == b.items_[i])) return false;
    }
    return true;
  }

 private:
  std::array<T, N> items_{};
  std::size_t size_ = 0;
};

// Constant extents, strides or offsets.
using dims = fixed_vector<std::int64_t, k_max_rank>;
// Extents of which some may be symbolic (std::nullopt).
using maybe_dims = fixed_vector<maybe_i64, k_max_rank>;

// Lifts constant extents into the maybe-symbolic vocabulary. Callers check the rank first.
[[nodiscard]] constexpr maybe_dims to_maybe(std::span<const std::int64_t> items) noexcept {
  maybe_dims out;
  for (std::int64_t item : items) {
    if (!out.push_back(item)) break;
  }
  return out;
}

// All entries known → their values; std::nullopt as soon as one is symbolic.
[[nodiscard]] constexpr std::optional<dims> all_known(std::span<const maybe_i64> items) noexcept {
  if (items.size() > k_max_rank) return std::nullopt;
  dims out;
  for (const maybe_i64& item : items) {
    if (!item) return std::nullopt;
    out.push_back(*item);
  }
  return out;
}

enum class product_errc : std::uint8_t { symbolic, overflow };

struct product_error {
  product_errc code = product_errc::overflow;
  std::size_t axis = 0;          // the extent that was symbolic or tipped the product over
  std::int64_t accumulated = 0;  // product of the extents before `axis`
  std::int64_t extent = 0;       // the extent at `axis` (0 when symbolic)
};

// TVS-01: product of all extents; the empty product is 1. Overflow is an error value,
// never a wrapped number.
[[nodiscard]] constexpr result<std::int64_t, product_error> product(
    std::span<const std::int64_t> extents) noexcept {
  std::int64_t acc = 1;
  for (std::size_t i = 0; i < extents.size(); ++i) {
    const auto next = checked_mul(acc, extents[i]);
    if (!next) return product_error{product_errc::overflow, i, acc, extents[i]};
    acc = *next;
  }
  return acc;
}

// TVS-01 with symbolic entries: upstream answers -1 for "not a constant"; here that case
// is the `symbolic` error, naming the first unknown axis.
[[nodiscard]] constexpr result<std::int64_t, product_error> product(
    std::span<const maybe_i64> extents) noexcept {
  std::int64_t acc = 1;
  for (std::size_t i = 0; i < extents.size(); ++i) {
    if (!extents[i]) return product_error{product_errc::symbolic, i, acc, 0};
    const auto next = checked_mul(acc, *extents[i]);
    if (!next) return product_error{product_errc::overflow, i, acc, *extents[i]};
    acc = *next;
  }
  return acc;
}

}  // namespace tilewright::math
