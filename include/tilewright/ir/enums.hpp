#pragma once
// Every enumeration the IR and its text form know, each with its printed names.
//
// One table per enum drives both directions (name → value for the parser, value → name for
// the printer), so a spelling exists exactly once.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace tilewright::ir {

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
}  // namespace detail

// Declares `enum class E` and the `enum_names(E)` table that lists its printed spellings
// in declaration order.
#define TILEWRIGHT_ENUM(E, ...)                                                           \
  enum class E : std::uint8_t { __VA_ARGS__ };                                            \
  constexpr auto enum_names(E) noexcept {                                                 \
    constexpr std::string_view text = #__VA_ARGS__;                                       \
    return ::tilewright::ir::detail::split_enum_names<E, ::tilewright::ir::detail::count_names(text)>(text); \
  }

namespace detail {
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

TILEWRIGHT_ENUM(DataType, BOOL, INT4, INT8, INT16, INT32, INT64, UINT4, UINT8, UINT16, UINT32,
                UINT64, FP4, FP8E4M3FN, FP8E5M2, FP8E8M0, FP16, FP32, BF16, HF4, HF8, INDEX,
                TASK_ID)
TILEWRIGHT_ENUM(MemorySpace, DDR, Vec, Mat, Left, Right, Acc, Bias, ScalarLocal, LeftScale,
                RightScale)
TILEWRIGHT_ENUM(TensorLayout, ND, DN, NZ, MX_A_ZZ, MX_B_NN)
TILEWRIGHT_ENUM(TileLayout, none_box, row_major, col_major)
TILEWRIGHT_ENUM(PadValue, null, zero, max, min)
TILEWRIGHT_ENUM(CompactMode, null, normal)
TILEWRIGHT_ENUM(ForKind, range, parallel, unroll, pipeline)
TILEWRIGHT_ENUM(FunctionType, Opaque, Orchestration, InCore, AIC, AIV, Group, Spmd, Inline,
                Graph)
TILEWRIGHT_ENUM(Level, AIV, AIC, CORE_GROUP, CHIP_DIE, CHIP, HOST, CLUSTER_0, CLUSTER_1,
                CLUSTER_2, GLOBAL)
TILEWRIGHT_ENUM(Role, Orchestrator, SubWorker)
TILEWRIGHT_ENUM(ParamDirection, In, Out, InOut)
TILEWRIGHT_ENUM(ArgDirection, input, output, inout, output_existing, no_dep, scalar)
TILEWRIGHT_ENUM(PipeType, MTE1, MTE2, MTE3, M, V, S, FIX, ALL)
TILEWRIGHT_ENUM(CastMode, none, rint, round, floor, ceil, trunc, odd)
TILEWRIGHT_ENUM(AtomicType, None_, Add)
TILEWRIGHT_ENUM(SplitMode, NONE, UP_DOWN, LEFT_RIGHT)

#undef TILEWRIGHT_ENUM

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

// The DSL accepts a few historical spellings of levels.
constexpr std::optional<Level> level_from_name(std::string_view s) noexcept {
  if (auto l = enum_from_name<Level>(s)) return l;
  if (s == "L2CACHE" || s == "PROCESSOR") return Level::CHIP_DIE;
  if (s == "UMA") return Level::CHIP;
  if (s == "NODE") return Level::HOST;
  if (s == "POD") return Level::CLUSTER_0;
  if (s == "CLOS1") return Level::CLUSTER_1;
  if (s == "CLOS2") return Level::CLUSTER_2;
  return std::nullopt;
}

// ---- DataType facts ----------------------------------------------------------------------

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
constexpr int byte_width(DataType t) noexcept { return (bit_width(t) + 7) / 8; }
// Sub-byte types are stored as packed nibbles; BOOL occupies a full byte.
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

constexpr bool is_incore(FunctionType t) noexcept {
  return t == FunctionType::InCore || t == FunctionType::AIC || t == FunctionType::AIV;
}

}  // namespace tilewright::ir
