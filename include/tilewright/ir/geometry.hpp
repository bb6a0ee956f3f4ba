#pragma once
// The bridge from IR values to the integer geometry of math/: enum conversions and
// Expr dims as known-or-symbolic integers. The IR keeps the symbols; math sees "unknown".
#include <vector>

#include "tilewright/ir/expr.hpp"
#include "tilewright/math/math.hpp"

namespace tilewright::ir {

// The math enums mirror the IR enums value for value; a static_cast is the conversion.
static_assert(static_cast<int>(math::dtype_code::fp32) == static_cast<int>(DataType::FP32) &&
              static_cast<int>(math::dtype_code::bf16) == static_cast<int>(DataType::BF16));
static_assert(static_cast<int>(math::memory_space::right_scale) == static_cast<int>(MemorySpace::RightScale));
static_assert(static_cast<int>(math::tensor_layout::mx_b_nn) == static_cast<int>(TensorLayout::MX_B_NN));
static_assert(static_cast<int>(math::tile_layout::col_major) == static_cast<int>(TileLayout::col_major));

constexpr math::dtype_code to_math(DataType t) noexcept { return static_cast<math::dtype_code>(t); }
constexpr math::memory_space to_math(MemorySpace m) noexcept { return static_cast<math::memory_space>(m); }
constexpr math::tensor_layout to_math(TensorLayout l) noexcept { return static_cast<math::tensor_layout>(l); }
constexpr math::tile_layout to_math(TileLayout l) noexcept { return static_cast<math::tile_layout>(l); }

inline std::vector<math::maybe_i64> maybe_dims(const std::vector<Expr>& dims) {
  std::vector<math::maybe_i64> out;
  out.reserve(dims.size());
  for (const auto& d : dims) {
    auto c = const_int(d);
    out.push_back(c ? math::maybe_i64(*c) : math::maybe_i64());
  }
  return out;
}

}  // namespace tilewright::ir
