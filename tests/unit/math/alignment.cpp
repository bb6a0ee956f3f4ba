// 32-byte alignment modulo 256 bits and known multiples (CT-13..CT-15).
#include <cstdint>
#include <limits>
#include <optional>

#include <doctest/doctest.h>

#include "tilewright/math/alignment.hpp"

namespace m = tilewright::math;
using m::DataType;
using m::index_fact;
constexpr auto sym = std::nullopt;

// Storage widths: packed nibbles, whole bytes otherwise, BOOL byte-wide.
static_assert(m::storage_bits(DataType::FP32) == 32);  // CT-13
static_assert(m::storage_bits(DataType::FP16) == 16 &&
              m::storage_bits(DataType::BF16) == 16);  // CT-13
static_assert(m::storage_bits(DataType::INT8) == 8);   // CT-13
static_assert(m::storage_bits(DataType::INT4) == 4 &&
              m::storage_bits(DataType::FP4) == 4);    // CT-13
static_assert(m::storage_bits(DataType::BOOL) == 8);  // ir_ops A.1: BOOL is byte-wide in storage
static_assert(m::bit_width(DataType::BOOL) == 1);     // ir_ops A.1: GetBit(BOOL) = 1
static_assert(m::static_storage_bytes(3, DataType::INT4) == 2);    // ir_ops A.1: ceil(3*4/8)
static_assert(m::static_storage_bytes(16, DataType::FP32) == 64);  // ir_ops A.1

// Row pitch modulo 256 bits.
static_assert(m::row_stride_bits(8, 32) == 0);     // CT-15: FP32 [32,8] pitch 256 ≡ 0
static_assert(m::row_stride_bits(12, 32) == 128);  // CT-15: FP32 [8,12] pitch 384 ≡ 128
static_assert(m::row_stride_bits(1, 32) == 32);    // CT-15: FP32 [17,1]

// Base MemRef offsets.
static_assert(m::base_offset_bits(0) == 0);     // CT-13: no MemRef / offset 0
static_assert(m::base_offset_bits(16) == 128);  // CT-15: byte_offset 16 → 128 bits
static_assert(m::base_offset_bits(64) == 0);    // CT-13
static_assert(m::base_offset_bits(-1) == 0);    // CT-13: the planning sentinel is an aligned root
static_assert(!m::base_offset_bits(sym));       // CT-13: symbolic offset is unprovable

// Known multiples.
static_assert(m::known_multiple_of_constant(0) == 256);   // CT-14
static_assert(m::known_multiple_of_constant(48) == 16);   // CT-14
static_assert(m::known_multiple_of_constant(-32) == 32);  // CT-14: non-negative residue first
static_assert(m::known_multiple_of_constant(300) == 4);   // CT-14: 300 mod 256 = 44
static_assert(m::known_multiple_add(32, 48) == 16);       // CT-14
static_assert(m::known_multiple_sub(64, 256) == 64);      // CT-14
static_assert(m::known_multiple_mul(16, 16) == 256);      // CT-14: capped at 256
// CT-15: INT32 col = (block_idx * 16) * 2 → multiple 32.
static_assert(m::known_multiple_mul(m::known_multiple_mul(m::k_unknown_multiple,
                                                          m::known_multiple_of_constant(16)),
                                    m::known_multiple_of_constant(2)) == 32);

// Window origins (base bits, row, col, base cols, element bits).
static_assert(m::window_address_bits(0, index_fact::constant(0), index_fact::constant(1), 8, 32) ==
              32);  // CT-15 FP32 [16,8] col 1
static_assert(m::is_provably_aligned(0, index_fact::constant(0), index_fact::constant(8), 16,
                                     32));  // CT-15 FP32 col 8
static_assert(m::is_provably_aligned(0, index_fact::symbolic(1), index_fact::constant(0), 8,
                                     32));  // CT-15 FP32 [32,8] dyn row
static_assert(m::is_provably_aligned(0, index_fact::constant(16), index_fact::constant(0), 1,
                                     32));  // CT-15 FP32 [32,1] row 16
static_assert(m::window_address_bits(0, index_fact::constant(1), index_fact::constant(0), 1, 32) ==
              32);  // CT-15 FP32 [17,1] row 1
static_assert(m::is_provably_aligned(0, index_fact::constant(0), index_fact::symbolic(32), 64,
                                     32));  // CT-15 INT32 col multiple 32
static_assert(!m::window_address_bits(0, index_fact::constant(0), index_fact::symbolic(1), 64,
                                      32));  // CT-15 dyn param col
static_assert(m::is_provably_aligned(0, index_fact::constant(0), index_fact::constant(16), 64,
                                     16));  // CT-15 FP16 col 16
static_assert(m::window_address_bits(0, index_fact::constant(0), index_fact::constant(8), 64, 16) ==
              128);  // CT-15 FP16 col 8
static_assert(m::is_provably_aligned(0, index_fact::constant(0), index_fact::constant(32), 64,
                                     8));  // CT-15 INT8 col 32
static_assert(m::is_provably_aligned(0, index_fact::constant(0), index_fact::constant(64), 128,
                                     4));  // CT-15 INT4 col 64
static_assert(m::window_address_bits(0, index_fact::constant(1), index_fact::constant(0), 12, 32) ==
              128);  // CT-15 FP32 [8,12] row 1
static_assert(m::is_provably_aligned(0, index_fact::constant(2), index_fact::constant(0), 12,
                                     32));  // CT-15 FP32 [8,12] row 2
static_assert(m::window_address_bits(128, index_fact::constant(0), index_fact::constant(0), 8,
                                     32) == 128);  // CT-15 byte_offset 16

TEST_CASE("CT-13 unprovable cases answer nullopt, never a guess") {
  // Symbolic base offset.
  CHECK_FALSE(m::window_address_bits(m::base_offset_bits(sym), index_fact::constant(0),
                                     index_fact::constant(0), 8, 32));
  // A non-zero row over a symbolic base column extent.
  CHECK_FALSE(m::window_address_bits(0, index_fact::constant(1), index_fact::constant(0), sym, 32));
  // Row 0 does not need the base column extent.
  CHECK(m::window_address_bits(0, index_fact::constant(0), index_fact::constant(8), sym, 32) == 0);
  // A symbolic row whose multiple does not cancel the pitch.
  CHECK_FALSE(m::window_address_bits(0, index_fact::symbolic(1), index_fact::constant(0), 12, 32));
  // ...and one whose multiple does: 2 rows of a 128-bit pitch is 256 bits.
  CHECK(m::window_address_bits(0, index_fact::symbolic(2), index_fact::constant(0), 12, 32) == 0);
  // An element without storage width is unprovable.
  CHECK_FALSE(m::window_address_bits(0, index_fact::constant(0), index_fact::constant(0), 8, 0));
  CHECK_FALSE(m::is_provably_aligned(0, index_fact::constant(0), index_fact::symbolic(1), 8, 32));
}

TEST_CASE("CT-13 negative constant offsets reduce to their non-negative residue") {
  // -8 FP32 columns = -256 bits ≡ 0.
  CHECK(m::window_address_bits(0, index_fact::constant(0), index_fact::constant(-8), 8, 32) == 0);
  CHECK(m::window_address_bits(0, index_fact::constant(0), index_fact::constant(-1), 8, 32) == 224);
}

TEST_CASE("ir_ops A.1 storage bytes reject negative counts and overflow") {
  CHECK_FALSE(m::static_storage_bytes(-1, DataType::FP32));
  CHECK_FALSE(m::static_storage_bytes(std::numeric_limits<std::int64_t>::max(), DataType::FP32));
}
