// TileBufSignature defaults and the integer-level builder (FR-05, ir_ops.md C.1).
#include <cstdint>
#include <optional>

#include <doctest/doctest.h>

#include "tilewright/math/tile_buf_signature.hpp"

namespace m = tilewright::math;
using m::dims;
using m::maybe_dims;
constexpr auto sym = std::nullopt;

constexpr m::tile_buf_signature k_default{};
static_assert(k_default.space == m::MemorySpace::Vec &&
              k_default.dtype == m::DataType::FP32);  // FR-05 defaults
static_assert(k_default.rows == 32 && k_default.cols == 32 && k_default.v_row == 32 &&
              k_default.v_col == 32);  // FR-05
static_assert(k_default.blayout == m::TileLayout::row_major &&
              k_default.slayout == m::TileLayout::none_box);  // FR-05
static_assert(k_default.fractal == 512 && k_default.pad == m::PadValue::null &&
              k_default.compact == m::CompactMode::null);            // FR-05
static_assert(!k_default.v_row_dynamic && !k_default.v_col_dynamic);  // FR-05

// FR-05: rows/cols from the first two extents; later extents ignored.
static_assert(m::signature_from_dims(m::MemorySpace::Vec, m::DataType::FP32, dims{64, 64},
                                     std::nullopt)
                  .rows == 64);
static_assert(
    m::signature_from_dims(std::nullopt, m::DataType::FP32, dims{4, 8, 16}, std::nullopt).cols ==
    8);  // FR-05
// FR-05: rank 1 reads as one row.
static_assert(
    m::signature_from_dims(std::nullopt, m::DataType::FP16, dims{128}, std::nullopt).rows == 1);
static_assert(
    m::signature_from_dims(std::nullopt, m::DataType::FP16, dims{128}, std::nullopt).cols == 128);
// FR-05: a symbolic extent keeps the default 32.
static_assert(m::signature_from_dims(std::nullopt, m::DataType::FP32, maybe_dims{sym, 16},
                                     std::nullopt)
                  .rows == 32);
// FR-05: implicit view, [R,1] with R > 1 is a column vector.
static_assert(m::signature_from_dims(std::nullopt, m::DataType::FP32, dims{4096, 1}, std::nullopt)
                  .blayout == m::TileLayout::col_major);
static_assert(m::signature_from_dims(std::nullopt, m::DataType::FP32, dims{1, 1}, std::nullopt)
                  .blayout == m::TileLayout::row_major);
// FR-05: the implicit Mat layout is NOT applied without a stored view.
static_assert(m::signature_from_dims(m::MemorySpace::Mat, m::DataType::FP16, dims{16, 128},
                                     std::nullopt)
                  .blayout == m::TileLayout::row_major);
// FR-04: [64,64] vs [4096,1] differ, so the reshape is genuine.
static_assert(m::signature_from_dims(m::MemorySpace::Vec, m::DataType::FP32, dims{64, 64},
                                     std::nullopt) !=
              m::signature_from_dims(m::MemorySpace::Vec, m::DataType::FP32, dims{4096, 1},
                                     std::nullopt));
// FR-06: the same [64,64] Vec tile on both sides folds.
static_assert(m::signature_from_dims(m::MemorySpace::Vec, m::DataType::FP32, dims{64, 64},
                                     std::nullopt) ==
              m::signature_from_dims(std::nullopt, m::DataType::FP32, dims{64, 64},
                                     std::nullopt));

TEST_CASE("FR-05 a stored view supplies layouts, fractal, pad, compact and valid extents") {
  m::signature_view view;
  view.blayout = m::TileLayout::col_major;
  view.slayout = m::TileLayout::row_major;
  view.fractal = 1024;
  view.pad = m::PadValue::zero;
  view.compact = m::CompactMode::normal;
  view.valid = maybe_dims{10, sym};
  const auto sig =
      m::signature_from_dims(m::MemorySpace::Acc, m::DataType::FP32, dims{16, 64}, view);
  CHECK(sig.space == m::MemorySpace::Acc);
  CHECK(sig.blayout == m::TileLayout::col_major);
  CHECK(sig.slayout == m::TileLayout::row_major);
  CHECK(sig.fractal == 1024);
  CHECK(sig.pad == m::PadValue::zero);
  CHECK(sig.compact == m::CompactMode::normal);
  CHECK(sig.v_row == 10);
  CHECK_FALSE(sig.v_row_dynamic);
  CHECK(sig.v_col == 64);  // a dynamic entry keeps the physical value and sets the flag
  CHECK(sig.v_col_dynamic);
}

TEST_CASE("FR-05 two different dynamic valid extents compare equal") {
  m::signature_view a;
  a.valid = maybe_dims{sym, 128};
  m::signature_view b = a;  // another symbolic row: the signature cannot tell them apart
  CHECK(m::signature_from_dims(std::nullopt, m::DataType::FP32, dims{64, 128}, a) ==
        m::signature_from_dims(std::nullopt, m::DataType::FP32, dims{64, 128}, b));
  m::signature_view c;
  c.valid = maybe_dims{32, 128};
  CHECK(m::signature_from_dims(std::nullopt, m::DataType::FP32, dims{64, 128}, a) !=
        m::signature_from_dims(std::nullopt, m::DataType::FP32, dims{64, 128}, c));
}

TEST_CASE("FR-05 an explicit view without the column-vector rule keeps its own blayout") {
  m::signature_view view;  // row_major, even for an [R,1] tile
  const auto sig = m::signature_from_dims(std::nullopt, m::DataType::FP32, dims{64, 1}, view);
  CHECK(sig.blayout == m::TileLayout::row_major);
  CHECK(sig !=
        m::signature_from_dims(std::nullopt, m::DataType::FP32, dims{64, 1}, std::nullopt));
}

TEST_CASE("ir_ops C.1 storage compatibility and root signature") {
  m::signature_view view;
  view.valid = maybe_dims{8, 16};
  view.pad = m::PadValue::max;
  const auto partial =
      m::signature_from_dims(std::nullopt, m::DataType::FP32, dims{16, 16}, view);
  const auto full =
      m::signature_from_dims(std::nullopt, m::DataType::FP32, dims{16, 16}, m::signature_view{});
  CHECK(partial != full);
  CHECK(m::is_storage_compatible(partial, full));
  CHECK(m::root_signature(partial) == m::root_signature(full));
  CHECK_FALSE(m::is_storage_compatible(
      full, m::signature_from_dims(std::nullopt, m::DataType::FP16, dims{16, 16}, std::nullopt)));
}
