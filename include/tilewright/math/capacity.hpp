#pragma once
// On-chip memory capacities per backend (ir_ops.md §D.1, catalog §5), as constexpr data.
//
// Passes consult capacities to route work (whole vs per-batch Mat loads, BK-01) and to
// accept packed accumulators (Acc, BK-02). With no backend configured every shape fits:
// unit tests then exercise the geometry alone, as upstream does.
#include <cstdint>
#include <optional>

#include "tilewright/math/enums.hpp"

namespace tilewright::math {

enum class backend_kind : std::uint8_t { none, ascend910b, ascend950 };

struct memory_facts {
  std::uint64_t size_bytes = 0;  // usable bytes; 0 when the memory does not exist
  std::uint64_t alignment_bytes = 0;
  std::uint64_t physical_bytes = 0;  // differs from size_bytes only for Vec (reserved top)
};

inline constexpr std::uint64_t k_kib = 1024;

// The SoC table. DDR and ScalarLocal are not capacity-limited on-chip buffers: size 0.
[[nodiscard]] constexpr memory_facts memory_of(backend_kind backend, MemorySpace space) noexcept {
  const bool a5 = backend == backend_kind::ascend950;
  if (backend == backend_kind::none) return {};
  switch (space) {
    case MemorySpace::Mat:
      return {512 * k_kib, 128, 512 * k_kib};
    case MemorySpace::Left:
    case MemorySpace::Right:
      return {64 * k_kib, 64, 64 * k_kib};
    case MemorySpace::Acc:
      return a5 ? memory_facts{256 * k_kib, 128, 256 * k_kib}
                : memory_facts{128 * k_kib, 128, 128 * k_kib};
    case MemorySpace::Bias:
      return a5 ? memory_facts{4 * k_kib, 64, 4 * k_kib} : memory_facts{1 * k_kib, 64, 1 * k_kib};
    // Vec: the top 8 KiB of UB are reserved (pto-isa#170), so the usable size is smaller.
    case MemorySpace::Vec:
      return a5 ? memory_facts{240 * k_kib, 128, 248 * k_kib}
                : memory_facts{184 * k_kib, 128, 192 * k_kib};
    case MemorySpace::LeftScale:
    case MemorySpace::RightScale:
      return a5 ? memory_facts{4 * k_kib, 32, 4 * k_kib} : memory_facts{};
    case MemorySpace::DDR:
    case MemorySpace::ScalarLocal:
      return {};
  }
  return {};
}

// GetMemSize: usable bytes, 0 when absent (and for the "none" backend).
[[nodiscard]] constexpr std::uint64_t memory_size(backend_kind backend,
                                                  MemorySpace space) noexcept {
  return memory_of(backend, space).size_bytes;
}

// A budget a footprint is checked against; `unlimited` when no backend is configured or
// the backend reports 0 for the memory (FL-64b: "none or 0 → unlimited").
struct byte_budget {
  std::optional<std::uint64_t> limit;  // std::nullopt = unlimited

  [[nodiscard]] static constexpr byte_budget unlimited() noexcept { return {}; }
  [[nodiscard]] static constexpr byte_budget of(std::uint64_t bytes) noexcept { return {bytes}; }
  [[nodiscard]] constexpr bool is_unlimited() const noexcept { return !limit.has_value(); }
  [[nodiscard]] constexpr bool fits(std::uint64_t bytes) const noexcept {
    return !limit || bytes <= *limit;
  }
};

[[nodiscard]] constexpr byte_budget budget_of(backend_kind backend, MemorySpace space) noexcept {
  const std::uint64_t size = memory_size(backend, space);
  return size == 0 ? byte_budget::unlimited() : byte_budget::of(size);
}

}  // namespace tilewright::math
