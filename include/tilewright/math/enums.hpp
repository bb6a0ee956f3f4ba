#pragma once
// The library's vocabularies of element types, memory spaces and layouts, and the facts about
// them the geometry needs (bit widths, storage widths, promotion).
//
// They live in the lowest layer so that the geometry can name what it describes without the
// IR; the IR takes the very same enums (ir/enums.hpp re-declares them by `using`), so a dtype
// or a byte width exists once. Each enum comes with its printed names in declaration order,
// one table for both directions (name → value for the parser, value → name for the printer
// and the diagnostics).
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace tilewright::math {

namespace detail {
template <class E, std::size_t N>
struct EnumNames {
  std::array<std::string_view, N> names;
  [[nodiscard]] constexpr std::string_view name(E e) const noexcept {
    auto i = static_cast<std::size_t>(e);
    return i < N ? names[i] : std::string_view("?");
  }
  [[nodiscard]] constexpr std::optional<E> find(std::string_view s) const noexcept {
    for (std::size_t i = 0; i < N; ++i)
      if (names[i] == s) return static_cast<E>(i);
    return std::nullopt;
  }
};

constexpr std::size_t count_names(std::string_view text) noexcept {
  std::size_t n = text.empty() ? 0 : 1;
  for (char c : text) n += c == ',';
  return n;
}
template <class E, std::size_t N>
constexpr EnumNames<E, N> split_enum_names(std::string_view text) noexcept {
  EnumNames<E, N> out{};
  std::size_t k = 0;
  std::size_t begin = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == ',') {
      std::string_view item = text.substr(begin, i - begin);
      while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
      while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
      out.names[k++] = item;
      begin = i + 1;
    }
  }
  return out;
}
}  // namespace detail

// Declares `enum class E` and the `enum_names(E)` table that lists its printed spellings
// in declaration order (found by argument-dependent lookup, in whichever namespace E is).
#define TILEWRIGHT_ENUM(E, ...)                                                                  \
  enum class E : std::uint8_t { __VA_ARGS__ };                                                   \
  constexpr auto enum_names(E) noexcept {                                                        \
    constexpr std::string_view text = #__VA_ARGS__;                                              \
    return ::tilewright::math::detail::split_enum_names<E, ::tilewright::math::detail::count_names(text)>( \
        text);                                                                                   \
  }

// Order and names follow upstream's enumerators.
TILEWRIGHT_ENUM(DataType, BOOL, INT4, INT8, INT16, INT32, INT64, UINT4, UINT8, UINT16, UINT32,
                UINT64, FP4, FP8E4M3FN, FP8E5M2, FP8E8M0, FP16, FP32, BF16, HF4, HF8, INDEX,
                TASK_ID)
TILEWRIGHT_ENUM(MemorySpace, DDR, Vec, Mat, Left, Right, Acc, Bias, ScalarLocal, LeftScale,
                RightScale)
// How a tensor in global memory is laid out (a TensorView's layout tag).
TILEWRIGHT_ENUM(TensorLayout, ND, DN, NZ, MX_A_ZZ, MX_B_NN)
// Block / in-box order of an on-chip tile (a TileView's blayout and slayout).
TILEWRIGHT_ENUM(TileLayout, none_box, row_major, col_major)
TILEWRIGHT_ENUM(PadValue, null, zero, max, min)
TILEWRIGHT_ENUM(CompactMode, null, normal)

// Each table is split once, at compile time; the printer and parser only index into it.
template <class E>
inline constexpr auto enum_table = enum_names(E{});

template <class E>
constexpr std::string_view name_of(E e) noexcept {
  return enum_table<E>.name(e);
}
template <class E>
constexpr std::optional<E> enum_from_name(std::string_view s) noexcept {
  return enum_table<E>.find(s);
}

// ---- DataType facts ----------------------------------------------------------------------

// Logical bit width of one element. BOOL counts as one bit here (upstream's GetBit); its
// storage is a byte (storage_bits). TASK_ID is an opaque 64-bit scalar upstream.
constexpr int bit_width(DataType t) noexcept {
  switch (t) {
    case DataType::BOOL: return 1;
    case DataType::INT4: case DataType::UINT4: case DataType::FP4: case DataType::HF4: return 4;
    case DataType::INT8: case DataType::UINT8: case DataType::FP8E4M3FN: case DataType::FP8E5M2:
    case DataType::FP8E8M0: case DataType::HF8: return 8;
    case DataType::INT16: case DataType::UINT16: case DataType::FP16: case DataType::BF16: return 16;
    case DataType::INT32: case DataType::UINT32: case DataType::FP32: return 32;
    case DataType::INT64: case DataType::UINT64: case DataType::INDEX: case DataType::TASK_ID: return 64;
  }
  return 0;
}
// Whole bytes one element occupies when it is not packed: ceil(bits / 8).
constexpr int byte_width(DataType t) noexcept { return (bit_width(t) + 7) / 8; }
// Bits one element occupies in a buffer: sub-byte types are packed nibbles; BOOL takes a
// full byte.
constexpr int storage_bits(DataType t) noexcept {
  return bit_width(t) == 4 ? 4 : byte_width(t) * 8;
}
constexpr bool is_float(DataType t) noexcept {
  switch (t) {
    case DataType::FP4: case DataType::FP8E4M3FN: case DataType::FP8E5M2: case DataType::FP8E8M0:
    case DataType::FP16: case DataType::FP32: case DataType::BF16: case DataType::HF4:
    case DataType::HF8: return true;
    default: return false;
  }
}
constexpr bool is_unsigned(DataType t) noexcept {
  return t == DataType::UINT4 || t == DataType::UINT8 || t == DataType::UINT16 ||
         t == DataType::UINT32 || t == DataType::UINT64;
}
constexpr bool is_integer(DataType t) noexcept {
  return !is_float(t) && t != DataType::BOOL && t != DataType::TASK_ID;
}
constexpr bool is_index_like(DataType t) noexcept {
  return t == DataType::INT64 || t == DataType::UINT64 || t == DataType::INDEX;
}
// INDEX and INT64 name the same machine integer; several comparisons treat them as one.
constexpr bool same_index_class(DataType a, DataType b) noexcept {
  auto norm = [](DataType t) { return t == DataType::INDEX ? DataType::INT64 : t; };
  return norm(a) == norm(b);
}

// Element-wise tile promotion: float beats int, wider beats narrower, signed beats unsigned.
constexpr DataType promote(DataType a, DataType b) noexcept {
  if (a == b) return a;
  if (is_float(a) != is_float(b)) return is_float(a) ? a : b;
  if (bit_width(a) != bit_width(b)) return bit_width(a) > bit_width(b) ? a : b;
  if (is_unsigned(a) != is_unsigned(b)) return is_unsigned(a) ? b : a;
  return a;
}

constexpr bool is_cube_memory(MemorySpace m) noexcept {
  return m == MemorySpace::Mat || m == MemorySpace::Left || m == MemorySpace::Right ||
         m == MemorySpace::Acc || m == MemorySpace::LeftScale || m == MemorySpace::RightScale;
}

}  // namespace tilewright::math
