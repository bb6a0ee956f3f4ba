// The store partition window (FL-22..FL-24, seed 003).
#include <cstdint>
#include <optional>
#include <string>

#include <doctest/doctest.h>

#include "tilewright/math/partition_window.hpp"

namespace m = tilewright::math;
using m::dims;
using m::maybe_dims;
constexpr auto sym = std::nullopt;

namespace {
constexpr m::maybe_dims window(const dims& tile, const dims& tensor, const dims& offsets) {
  return m::store_partition_window(tile, tensor, offsets).value().shape;
}
}  // namespace

// FL-22: a tile whose axes are the tensor's innermost ones gets 1s prepended.
static_assert(window(dims{2, 3, 4}, dims{2, 3, 4}, dims{0, 0, 0}) == maybe_dims{2, 3, 4});  // FL-22
static_assert(window(dims{16, 64}, dims{2, 16, 64}, dims{1, 0, 0}) ==
              maybe_dims{1, 16, 64});  // FL-22 [B,M,N] ← [M,N]
static_assert(
    !m::store_partition_window(dims{16, 64}, dims{2, 16, 64}, dims{1, 0, 0}).value().collapsed);
// FL-24: a folded leading extent is walked back over the axes it spans.
static_assert(window(dims{6, 8}, dims{2, 3, 8}, dims{0, 0, 0}) == maybe_dims{2, 3, 8});  // FL-24
static_assert(m::store_partition_window(dims{6, 8}, dims{2, 3, 8}, dims{0, 0, 0})
                  .value()
                  .collapsed);  // FL-24
static_assert(window(dims{1, 10, 512}, dims{1, 16, 512}, dims{0, 0, 0}) ==
              maybe_dims{1, 10, 512});  // FL-24 valid tail
static_assert(window(dims{8, 8}, dims{4, 4, 8}, dims{2, 0, 0}) ==
              maybe_dims{2, 4, 8});  // FL-24 outer axis partial
static_assert(window(dims{4, 4}, dims{5, 2, 8}, dims{0, 0, 4}) ==
              maybe_dims{2, 2, 4});  // FL-24 partial columns
// FL-24: the innermost axis may be symbolic; only the leading ones are walked.
static_assert(m::store_partition_window(maybe_dims{6, 8}, maybe_dims{2, 3, sym},
                                        maybe_dims{0, 0, 0})
                  .value()
                  .shape == maybe_dims{2, 3, 8});  // FL-24 [6,8] into [2,3,D]
// FL-24: aligned entries stay symbolic where the tile's valid extent is.
static_assert(m::store_partition_window(maybe_dims{1, sym, 512}, maybe_dims{4, 64, 512},
                                        maybe_dims{0, sym, 0})
                  .value()
                  .shape == maybe_dims{1, sym, 512});  // FL-24 dynamic chunk

namespace {
m::partition_error reject(const dims& tile, const dims& tensor, const dims& offsets) {
  const auto r = m::store_partition_window(tile, tensor, offsets);
  REQUIRE_FALSE(r.has_value());
  return r.error();
}
}  // namespace

TEST_CASE("FL-24 rows that do not fill an axis a whole number of times are rejected") {
  const auto e = reject(dims{12, 8}, dims{2, 2, 4, 8}, dims{0, 0, 0, 0});
  CHECK(e.code == m::partition_errc::rows_not_whole_axis);
  CHECK(e.axis == 1);
  CHECK(e.extent == 2);
  CHECK(e.remaining == 3);
  CHECK(m::partition_error_message(e) ==
        "tile.store cannot lower a 12x8 tile into this tensor: its rows span several axes, so they "
        "must fill "
        "axis 1 (extent 2) a whole number of times, but 3 rows remain. A flattened store writes "
        "consecutive "
        "row-major positions, and no partition window describes that here. Store one whole axis at "
        "a time "
        "(loop the outer axis with pl.range/pl.parallel), or reshape the destination so the tile's "
        "rows are a "
        "single axis");
}

TEST_CASE("FL-24 columns past the innermost extent are rejected") {
  const auto e = reject(dims{6, 8}, dims{2, 3, 12}, dims{0, 0, 8});
  CHECK(e.code == m::partition_errc::columns_past_end);
  CHECK(m::partition_error_message(e) ==
        "tile.store writes 8 columns at offset 8 of an axis whose extent is 12; the write runs "
        "past the tensor");
}

TEST_CASE("FL-24 rows past the axis where they stop are rejected") {
  const auto e = reject(dims{8, 8}, dims{4, 4, 8}, dims{3, 0, 0});
  CHECK(e.code == m::partition_errc::rows_past_end);
  CHECK(e.axis == 0);
  CHECK(m::partition_error_message(e) ==
        "tile.store writes 2 rows at offset 3 of axis 0, whose extent is 4; the write runs past "
        "the tensor");
}

TEST_CASE("FL-24 an axis filled completely must start at offset 0") {
  const auto e = reject(dims{6, 8}, dims{2, 3, 8}, dims{0, 1, 0});
  CHECK(e.code == m::partition_errc::nonzero_offset_on_full_axis);
  CHECK(m::partition_error_message(e) ==
        "tile.store fills axis 1 (extent 3) completely, so it must start at offset 0; a non-zero "
        "offset there "
        "would make the written region a non-contiguous run that no partition window describes");
  // A symbolic offset on such an axis is not provably 0 either.
  const auto r =
      m::store_partition_window(maybe_dims{6, 8}, maybe_dims{2, 3, 8}, maybe_dims{0, sym, 0});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == m::partition_errc::nonzero_offset_on_full_axis);
}

TEST_CASE("FL-24 more rows than the leading axes hold are rejected") {
  const auto e = reject(dims{12, 8}, dims{2, 3, 8}, dims{0, 0, 0});
  CHECK(e.code == m::partition_errc::rows_exceed_tensor);
  CHECK(e.capacity == 6);
  CHECK(m::partition_error_message(e) ==
        "tile.store writes a 12x8 tile into a tensor whose leading axes hold only 6 rows; the "
        "write runs past the "
        "tensor");
}

TEST_CASE("FL-24 structural failures are distinct error values") {
  const auto dyn =
      m::store_partition_window(maybe_dims{6, 8}, maybe_dims{sym, 3, 8}, maybe_dims{0, 0, 0});
  REQUIRE_FALSE(dyn.has_value());
  CHECK(dyn.error().code == m::partition_errc::symbolic_leading_extent);
  CHECK(dyn.error().axis == 0);

  const auto tile =
      m::store_partition_window(maybe_dims{sym, 8}, maybe_dims{2, 3, 4}, maybe_dims{0, 0, 0});
  REQUIRE_FALSE(tile.has_value());  // 8 > 4 forces the collapsed path, which needs a static tile
  CHECK(tile.error().code == m::partition_errc::tile_not_static);
  CHECK(tile.error().merge.code == m::merge_errc::symbolic_dim);

  CHECK(reject(dims{6, 8}, dims{2, 3, 8}, dims{0, 0}).code ==
        m::partition_errc::offset_rank_mismatch);
  CHECK(reject(dims{1, 2, 3, 8}, dims{2, 3, 8}, dims{0, 0, 0}).code ==
        m::partition_errc::tile_rank_exceeds_tensor);
}

// Issue 34: a tile of lower rank writes a run of consecutive rows; the aligned box is that run
// only when the rows provably stay inside the axis they start on.
static_assert(window(dims{16, 64}, dims{2, 20, 64}, dims{0, 4, 0}) ==
              maybe_dims{1, 16, 64});  // FL-24 4 + 16 <= 20
// A symbolic valid extent is bounded by the tile's physical one.
static_assert(m::store_partition_window(maybe_dims{sym, 64}, maybe_dims{16, 64}, maybe_dims{2, 20, 64},
                                        maybe_dims{0, 4, 0})
                  .value()
                  .shape == maybe_dims{1, sym, 64});
// A tile of the tensor's rank lands one axis on one: its box, whatever the extents.
static_assert(m::store_partition_window(maybe_dims{2, 8, 64}, maybe_dims{2, sym, 64}, maybe_dims{0, 0, 0})
                  .value()
                  .shape == maybe_dims{2, 8, 64});

TEST_CASE("FL-24, issue 34: rows that may spill over an axis are refused, never boxed") {
  // Static: 16 rows at offset 10 of an axis of 20 run on into the next index.
  CHECK(reject(dims{16, 64}, dims{2, 20, 64}, dims{0, 10, 0}).code == m::partition_errc::rows_past_end);
  // A dynamic middle axis: the rows stay inside it only when it is at least 16.
  const auto dyn = m::store_partition_window(maybe_dims{16, 64}, maybe_dims{2, sym, 64}, maybe_dims{0, 0, 0});
  REQUIRE_FALSE(dyn.has_value());
  CHECK(dyn.error().code == m::partition_errc::symbolic_leading_extent);
  CHECK(m::partition_error_message(dyn.error()).find("whether they stay inside that axis or spill") !=
        std::string::npos);
  // A dynamic offset on the axis the rows stop on.
  const auto off = m::store_partition_window(maybe_dims{16, 64}, maybe_dims{2, 20, 64}, maybe_dims{0, sym, 0});
  REQUIRE_FALSE(off.has_value());
  CHECK(off.error().code == m::partition_errc::rows_may_cross_axis);
  CHECK(off.error().axis == 1);
  CHECK(m::partition_error_message(off.error()).find("start at a dynamic offset on axis 1 (extent 20)") !=
        std::string::npos);
  // One row cannot spill: a dynamic offset is fine.
  CHECK(m::store_partition_window(maybe_dims{1, 64}, maybe_dims{2, 20, 64}, maybe_dims{0, sym, 0}).has_value());
  // A rank-3 tile into a rank-4 tensor whose inner axis it does not fill: the box [1, 2, 3, 8]
  // would leave gaps in the run of 6 rows, and 6 rows do not fill the axis of 5 either.
  CHECK(reject(dims{2, 3, 8}, dims{4, 2, 5, 8}, dims{0, 0, 0, 0}).code == m::partition_errc::rows_not_whole_axis);
}
