#pragma once
// A success-or-error value for the geometry layer.
//
// The math headers must run inside constant evaluation (their worked numbers are pinned
// with static_assert), so a failure cannot be an exception: it is returned as an error
// value that carries the numbers a diagnostic will need. std::expected is C++23, hence
// this small stand-in. Both alternatives are stored side by side instead of in a union:
// every T and E used here is a small literal type, and the simple layout keeps the type
// trivially usable in constant expressions on both GCC 12 and Clang 14.
#include <cstdlib>
#include <type_traits>
#include <utility>

namespace tilewright::math {

namespace detail {
// Reached only when a caller reads the wrong alternative. Not constexpr on purpose: in
// constant evaluation the call itself makes the expression ill-formed, so a static_assert
// that reads value() of an error fails to compile instead of yielding garbage.
[[noreturn]] inline void bad_result_access() noexcept { std::abort(); }
}  // namespace detail

template <class T, class E>
class [[nodiscard]] result {
  static_assert(!std::is_same_v<T, E>,
                "result<T, E> needs distinct types to tell success from failure");
  static_assert(std::is_default_constructible_v<T> && std::is_default_constructible_v<E>,
                "result<T, E> stores both alternatives and needs them default-constructible");

 public:
  using value_type = T;
  using error_type = E;

  constexpr result(T value) : value_(std::move(value)), ok_(true) {}   // NOLINT(implicit)
  constexpr result(E error) : error_(std::move(error)), ok_(false) {}  // NOLINT(implicit)

  [[nodiscard]] constexpr bool has_value() const noexcept { return ok_; }
  constexpr explicit operator bool() const noexcept { return ok_; }

  [[nodiscard]] constexpr const T& value() const {
    if (!ok_) detail::bad_result_access();
    return value_;
  }
  [[nodiscard]] constexpr const E& error() const {
    if (ok_) detail::bad_result_access();
    return error_;
  }
  constexpr const T& operator*() const { return value(); }
  constexpr const T* operator->() const { return &value(); }

  [[nodiscard]] constexpr T value_or(T fallback) const {
    return ok_ ? value_ : std::move(fallback);
  }

 private:
  T value_{};
  E error_{};
  bool ok_ = false;
};

}  // namespace tilewright::math
