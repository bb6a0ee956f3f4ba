#pragma once
// Backends as policy types. A backend contributes data only: the capacity of each on-chip
// memory. "none" means unlimited, as upstream behaves when no backend is configured.
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

#include "tilewright/ir/enums.hpp"

namespace tilewright::backend {

inline constexpr std::uint64_t unlimited = std::numeric_limits<std::uint64_t>::max();

struct BackendInfo {
  std::string_view name;
  std::array<std::uint64_t, 10> capacity{};  // bytes, indexed by ir::MemorySpace

  [[nodiscard]] constexpr std::uint64_t capacity_of(ir::MemorySpace m) const noexcept {
    return capacity[static_cast<std::size_t>(m)];
  }
  [[nodiscard]] constexpr bool configured() const noexcept { return name != "none"; }
};

namespace detail {
// Order: DDR, Vec, Mat, Left, Right, Acc, Bias, ScalarLocal, LeftScale, RightScale.
constexpr std::uint64_t KiB = 1024;
}  // namespace detail

struct None {
  static constexpr BackendInfo info{"none", {unlimited, unlimited, unlimited, unlimited, unlimited,
                                             unlimited, unlimited, unlimited, unlimited, unlimited}};
};
struct Ascend910B {
  static constexpr BackendInfo info{
      "ascend910b",
      {unlimited, 184 * detail::KiB, 512 * detail::KiB, 64 * detail::KiB, 64 * detail::KiB,
       128 * detail::KiB, 1 * detail::KiB, 0, 0, 0}};
};
struct Ascend950 {
  static constexpr BackendInfo info{
      "ascend950",
      {unlimited, 240 * detail::KiB, 512 * detail::KiB, 64 * detail::KiB, 64 * detail::KiB,
       256 * detail::KiB, 4 * detail::KiB, 0, 4 * detail::KiB, 4 * detail::KiB}};
};

constexpr BackendInfo none() noexcept { return None::info; }

constexpr std::optional<BackendInfo> backend_by_name(std::string_view name) noexcept {
  for (const BackendInfo& b : {None::info, Ascend910B::info, Ascend950::info})
    if (b.name == name) return b;
  return std::nullopt;
}

}  // namespace tilewright::backend
