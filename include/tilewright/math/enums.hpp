#pragma once
// Small math-local vocabularies: element types, memory spaces and layouts.
//
// The geometry layer may not include the IR, yet several formulas depend on which dtype,
// memory or layout they describe. These enums mirror the upstream enumerators one to one
// (same names, same order) so the IR layer can map its own types with a plain switch.
#include <cstdint>
#include <string_view>

namespace tilewright::math {

enum class dtype_code : std::uint8_t {
  bool_,
  int4,
  int8,
  int16,
  int32,
  int64,
  uint4,
  uint8,
  uint16,
  uint32,
  uint64,
  fp4,
  fp8e4m3fn,
  fp8e5m2,
  fp8e8m0,
  fp16,
  fp32,
  bf16,
  hf4,
  hf8,
  index,
  task_id,
};

// Logical bit width of one element. BOOL counts as one bit here; its storage is wider
// (see storage_bits in alignment.hpp). TASK_ID is an opaque 64-bit scalar upstream.
[[nodiscard]] constexpr std::int64_t bit_width(dtype_code t) noexcept {
  switch (t) {
    case dtype_code::bool_:
      return 1;
    case dtype_code::int4:
    case dtype_code::uint4:
    case dtype_code::fp4:
    case dtype_code::hf4:
      return 4;
    case dtype_code::int8:
    case dtype_code::uint8:
    case dtype_code::fp8e4m3fn:
    case dtype_code::fp8e5m2:
    case dtype_code::fp8e8m0:
    case dtype_code::hf8:
      return 8;
    case dtype_code::int16:
    case dtype_code::uint16:
    case dtype_code::fp16:
    case dtype_code::bf16:
      return 16;
    case dtype_code::int32:
    case dtype_code::uint32:
    case dtype_code::fp32:
      return 32;
    case dtype_code::int64:
    case dtype_code::uint64:
    case dtype_code::index:
    case dtype_code::task_id:
      return 64;
  }
  return 0;
}

// Whole bytes one element occupies when it is not packed: ceil(bits / 8).
[[nodiscard]] constexpr std::int64_t byte_width(dtype_code t) noexcept {
  return (bit_width(t) + 7) / 8;
}

// Upstream spelling, for diagnostics that name the element type.
[[nodiscard]] constexpr std::string_view dtype_name(dtype_code t) noexcept {
  switch (t) {
    case dtype_code::bool_:
      return "BOOL";
    case dtype_code::int4:
      return "INT4";
    case dtype_code::int8:
      return "INT8";
    case dtype_code::int16:
      return "INT16";
    case dtype_code::int32:
      return "INT32";
    case dtype_code::int64:
      return "INT64";
    case dtype_code::uint4:
      return "UINT4";
    case dtype_code::uint8:
      return "UINT8";
    case dtype_code::uint16:
      return "UINT16";
    case dtype_code::uint32:
      return "UINT32";
    case dtype_code::uint64:
      return "UINT64";
    case dtype_code::fp4:
      return "FP4";
    case dtype_code::fp8e4m3fn:
      return "FP8E4M3FN";
    case dtype_code::fp8e5m2:
      return "FP8E5M2";
    case dtype_code::fp8e8m0:
      return "FP8E8M0";
    case dtype_code::fp16:
      return "FP16";
    case dtype_code::fp32:
      return "FP32";
    case dtype_code::bf16:
      return "BF16";
    case dtype_code::hf4:
      return "HF4";
    case dtype_code::hf8:
      return "HF8";
    case dtype_code::index:
      return "INDEX";
    case dtype_code::task_id:
      return "TASK_ID";
  }
  return "?";
}

// On-chip and global memories. Order and names follow upstream's MemorySpace.
enum class memory_space : std::uint8_t {
  ddr,
  vec,
  mat,
  left,
  right,
  acc,
  bias,
  scalar_local,
  left_scale,
  right_scale,
};

[[nodiscard]] constexpr std::string_view memory_space_name(memory_space m) noexcept {
  switch (m) {
    case memory_space::ddr:
      return "DDR";
    case memory_space::vec:
      return "Vec";
    case memory_space::mat:
      return "Mat";
    case memory_space::left:
      return "Left";
    case memory_space::right:
      return "Right";
    case memory_space::acc:
      return "Acc";
    case memory_space::bias:
      return "Bias";
    case memory_space::scalar_local:
      return "ScalarLocal";
    case memory_space::left_scale:
      return "LeftScale";
    case memory_space::right_scale:
      return "RightScale";
  }
  return "?";
}

// How a tensor in global memory is laid out (a TensorView's layout tag).
enum class tensor_layout : std::uint8_t { nd, dn, nz, mx_a_zz, mx_b_nn };

[[nodiscard]] constexpr std::string_view tensor_layout_name(tensor_layout l) noexcept {
  switch (l) {
    case tensor_layout::nd:
      return "ND";
    case tensor_layout::dn:
      return "DN";
    case tensor_layout::nz:
      return "NZ";
    case tensor_layout::mx_a_zz:
      return "MX_A_ZZ";
    case tensor_layout::mx_b_nn:
      return "MX_B_NN";
  }
  return "?";
}

// Block / in-box order of an on-chip tile (a TileView's blayout and slayout).
enum class tile_layout : std::uint8_t { none_box, row_major, col_major };

enum class pad_value : std::uint8_t { null, zero, max, min };

enum class compact_mode : std::uint8_t { null, normal };

}  // namespace tilewright::math
