#pragma once
// Backends as policy types. A backend contributes data only — the capacity of each on-chip
// memory, whose table lives in math/capacity.hpp. "none" means unlimited, as upstream
// behaves when no backend is configured.
#include <optional>
#include <string_view>

#include "tilewright/ir/enums.hpp"
#include "tilewright/math/capacity.hpp"

namespace tilewright::backend {

struct BackendInfo {
  std::string_view name;
  math::backend_kind kind = math::backend_kind::none;

  // The budget a pass may fill in `space`; unlimited without a backend, or where the
  // backend has no such memory.
  [[nodiscard]] constexpr math::byte_budget budget(ir::MemorySpace space) const noexcept {
    return math::budget_of(kind, space);
  }
  [[nodiscard]] constexpr bool configured() const noexcept { return kind != math::backend_kind::none; }
};

struct None {
  static constexpr BackendInfo info{"none", math::backend_kind::none};
};
struct Ascend910B {
  static constexpr BackendInfo info{"ascend910b", math::backend_kind::ascend910b};
};
struct Ascend950 {
  static constexpr BackendInfo info{"ascend950", math::backend_kind::ascend950};
};

constexpr BackendInfo none() noexcept { return None::info; }

constexpr std::optional<BackendInfo> backend_by_name(std::string_view name) noexcept {
  for (const BackendInfo& b : {None::info, Ascend910B::info, Ascend950::info})
    if (b.name == name) return b;
  return std::nullopt;
}

// BK-01: Mat is 512 KiB on both targets; Acc differs (128 KiB vs 256 KiB).
static_assert(Ascend910B::info.budget(ir::MemorySpace::Acc).fits(128 * 1024) &&
              !Ascend910B::info.budget(ir::MemorySpace::Acc).fits(128 * 1024 + 1));
static_assert(Ascend950::info.budget(ir::MemorySpace::Acc).fits(256 * 1024));
static_assert(None::info.budget(ir::MemorySpace::Mat).is_unlimited());

}  // namespace tilewright::backend
