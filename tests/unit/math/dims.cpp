// Compile-time and run-time checks for the dims container, result and product (TVS-01).
#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include <doctest/doctest.h>

#include "tilewright/math/dims.hpp"

namespace m = tilewright::math;

// TVS-01: product of constants; the empty product is 1.
static_assert(m::product(m::dims{2, 3, 5}).value() == 30);        // TVS-01
static_assert(m::product(m::dims{}).value() == 1);                // TVS-01
static_assert(m::product(m::maybe_dims{2, 3, 5}).value() == 30);  // TVS-01
// TVS-01: a symbolic extent has no constant product (upstream answers -1).
static_assert(!m::product(m::maybe_dims{2, std::nullopt, 5}));
static_assert(m::product(m::maybe_dims{2, std::nullopt, 5}).error().axis == 1);

// The container compares only its live prefix.
static_assert(m::dims{1, 2} == m::dims{1, 2});
static_assert(!(m::dims{1, 2} == m::dims{1, 2, 3}));
static_assert(m::dims::capacity() == m::k_max_rank);
static_assert(m::to_maybe(m::dims{4, 5}) == m::maybe_dims{4, 5});
static_assert(m::all_known(m::maybe_dims{4, 5}).value() == m::dims{4, 5});
static_assert(!m::all_known(m::maybe_dims{4, std::nullopt}));

// result<T, E> is usable in constant expressions on both alternatives.
static_assert(m::result<int, m::product_error>(3).value_or(0) == 3);
static_assert(m::result<int, m::product_error>(m::product_error{}).value_or(7) == 7);

TEST_CASE("TVS-01 product overflow is an error value carrying the numbers") {
  constexpr std::int64_t big = std::int64_t{1} << 40;
  const auto r = m::product(m::dims{big, big});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == m::product_errc::overflow);
  CHECK(r.error().axis == 1);
  CHECK(r.error().accumulated == big);
  CHECK(r.error().extent == big);
}

TEST_CASE("TVS-01 symbolic extent is reported with its axis") {
  const auto r = m::product(m::maybe_dims{7, std::nullopt});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == m::product_errc::symbolic);
  CHECK(r.error().axis == 1);
  CHECK(r.error().accumulated == 7);
}

TEST_CASE("dims accepts any contiguous source through std::span") {
  const std::vector<std::int64_t> v{2, 3, 4};
  CHECK(m::product(v).value() == 24);
  const std::array<std::int64_t, 2> a{6, 7};
  CHECK(m::product(a).value() == 42);
}

TEST_CASE("fixed_vector refuses to grow past its capacity") {
  m::dims d;
  for (std::size_t i = 0; i < m::k_max_rank; ++i) CHECK(d.push_back(1));
  CHECK_FALSE(d.push_back(1));
  CHECK(d.size() == m::k_max_rank);
  const std::vector<std::int64_t> nine(9, 1);
  CHECK_FALSE(m::dims::from(nine).has_value());
  CHECK(m::dims::from(std::span<const std::int64_t>(nine).first(8)).has_value());
}
