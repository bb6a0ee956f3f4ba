#pragma once
// The type family: one std::variant of small aggregates.
//
// Construct tensor and tile types through make_tensor_type / make_tile_type (expr.hpp):
// they canonicalize, so two spellings of one type are one value.
#include <boost/hana/define_struct.hpp>
#include <cstdint>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "tilewright/ir/enums.hpp"
#include "tilewright/ir/fwd.hpp"

namespace tilewright::ir {

// A buffer reference (a MemRef expression) on a tensor or tile type. It is an Expr in every
// way; its own type says "allocation detail", so that the equalities which leave allocation
// out (structural_equal, same_type(..., Buffers::ignored)) know the field by its type and
// need no special case per type kind.
struct BufferRef : Expr {
  using Expr::Expr;
  BufferRef() = default;
  BufferRef(Expr e) noexcept : Expr(std::move(e)) {}  // NOLINT(google-explicit-constructor)
};

struct UnknownType {
  BOOST_HANA_DEFINE_STRUCT(UnknownType);
};

struct ScalarType {
  BOOST_HANA_DEFINE_STRUCT(ScalarType, (DataType, dtype));
};

struct TensorView {
  BOOST_HANA_DEFINE_STRUCT(TensorView, (std::vector<Expr>, valid_shape), (std::vector<Expr>, stride),
                           (TensorLayout, layout), (PadValue, pad));
};

// Also models DistributedTensorType (`distributed`): the passes treat both alike and must
// preserve the flag, the memref and the view when they rebuild one.
struct TensorType {
  BOOST_HANA_DEFINE_STRUCT(TensorType, (std::vector<Expr>, shape), (DataType, dtype),
                           (std::optional<TensorView>, view), (BufferRef, memref),
                           (bool, distributed));
};

struct TileView {
  BOOST_HANA_DEFINE_STRUCT(TileView, (std::vector<Expr>, valid_shape), (std::vector<Expr>, stride),
                           (Expr, start_offset), (TileLayout, blayout), (TileLayout, slayout),
                           (std::uint64_t, fractal), (PadValue, pad), (CompactMode, compact));
};

struct TileType {
  BOOST_HANA_DEFINE_STRUCT(TileType, (std::vector<Expr>, shape), (DataType, dtype),
                           (std::optional<TileView>, view), (std::optional<MemorySpace>, memory),
                           (BufferRef, memref));
};

struct ArrayType {
  BOOST_HANA_DEFINE_STRUCT(ArrayType, (DataType, dtype), (std::int64_t, extent));
};

struct TupleType {
  BOOST_HANA_DEFINE_STRUCT(TupleType, (std::vector<Type>, elements));
};

// Field-less types that only mark what a value is.
enum class Marker : std::uint8_t {
  Ptr, MemRefType, WindowBufferType, CommCtxType, PrefetchAsyncContext, AsyncEvent, AsyncSession
};
struct MarkerType {
  BOOST_HANA_DEFINE_STRUCT(MarkerType, (Marker, kind));
};

struct TypeNode {
  using Variant =
      std::variant<UnknownType, ScalarType, TensorType, TileType, ArrayType, TupleType, MarkerType>;
  Variant v;
};

template <class T>
const T* as(const Type& t) noexcept {
  return t ? std::get_if<T>(&t->v) : nullptr;
}

// A tensor, tile or tuple type: the types with structure, which a kernel repeats line after
// line (interned, and printed once per body); scalars and markers are small leaves.
inline bool is_structured_type(const Type& t) noexcept {
  return as<TensorType>(t) || as<TileType>(t) || as<TupleType>(t);
}

// ---- implicit tile layout ---------------------------------------------------------------
// The layout a tile has when its type carries no view, per memory space. A present view
// always differs from this somewhere (canonicalization drops it otherwise).

struct TileLayoutTriple {
  TileLayout blayout = TileLayout::row_major;
  TileLayout slayout = TileLayout::none_box;
  std::uint64_t fractal = 512;
  friend bool operator==(const TileLayoutTriple&, const TileLayoutTriple&) = default;
};

// A static column vector [R, 1] with R > 1 is stored column-major; everything else row-major.
// `rows`/`cols` are the static extents of a 2D shape, or nullopt when not both static.
constexpr TileLayout shape_blayout(std::size_t rank, std::optional<std::int64_t> rows,
                                   std::optional<std::int64_t> cols) noexcept {
  return rank == 2 && rows && cols && *cols == 1 && *rows > 1 ? TileLayout::col_major
                                                                : TileLayout::row_major;
}

constexpr TileLayoutTriple implicit_tile_layout(TileLayout shape_rule,
                                                std::optional<MemorySpace> memory) noexcept {
  if (!memory) return {shape_rule, TileLayout::none_box, 512};
  switch (*memory) {
    case MemorySpace::Mat:
    case MemorySpace::Left: return {TileLayout::col_major, TileLayout::row_major, 512};
    case MemorySpace::Right: return {shape_rule, TileLayout::col_major, 512};
    case MemorySpace::Acc: return {TileLayout::col_major, TileLayout::row_major, 1024};
    case MemorySpace::LeftScale: return {TileLayout::row_major, TileLayout::row_major, 32};
    case MemorySpace::RightScale: return {TileLayout::col_major, TileLayout::col_major, 32};
    default: return {shape_rule, TileLayout::none_box, 512};
  }
}

}  // namespace tilewright::ir
