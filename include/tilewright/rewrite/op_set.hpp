#pragma once
// Compile-time sets of op names. A rule names the ops it is rooted at as a type,
// `ops_of<"tile.load", "tile.store">`; the names are interned once, on first use, and from
// then on membership is a handful of integer comparisons.
#include <algorithm>
#include <array>
#include <cstddef>
#include <string_view>

#include "tilewright/ir/op_id.hpp"

namespace tilewright::rewrite {

// A string usable as a template argument: `ops_of<"tile.add">`.
template <std::size_t N>
struct fixed_string {
  char text[N]{};
  constexpr fixed_string(const char (&s)[N]) noexcept { std::copy_n(s, N, text); }  // NOLINT: implicit by design
  [[nodiscard]] constexpr std::string_view view() const noexcept { return {text, N - 1}; }
};

template <fixed_string... Names>
struct op_set {
  static_assert(sizeof...(Names) > 0, "rewrite::ops_of<...> needs at least one op name, e.g. ops_of<\"tile.add\">");
  static constexpr std::size_t size = sizeof...(Names);
  static constexpr std::array<std::string_view, sizeof...(Names)> names{Names.view()...};

  static const std::array<ir::OpId, sizeof...(Names)>& ids() {
    static const std::array<ir::OpId, sizeof...(Names)> interned{ir::intern_op(Names.view())...};
    return interned;
  }
  static bool contains(ir::OpId op) {
    for (ir::OpId id : ids())
      if (id == op) return true;
    return false;
  }
};

// Every op: the root of a rule that inspects any call (a generic fallback rule).
struct any_op_set {
  static constexpr std::size_t size = 0;
  static constexpr std::array<std::string_view, 0> names{};
  static bool contains(ir::OpId op) noexcept { return static_cast<bool>(op); }
};

template <fixed_string... Names>
inline constexpr op_set<Names...> ops_of{};
inline constexpr any_op_set any_op{};

template <class T>
inline constexpr bool is_op_set = false;
template <fixed_string... N>
inline constexpr bool is_op_set<op_set<N...>> = true;
template <>
inline constexpr bool is_op_set<any_op_set> = true;

}  // namespace tilewright::rewrite
