#pragma once
// tile.* vector element-wise, scalar, unary, compare, cast and bitwise families.
// Table-driven: one registration line per op name; ops of one rule share a deducer.
#include "tilewright/ops/builder.hpp"
#include "tilewright/ops/deduce.hpp"

namespace tilewright::ops {

namespace deduce {

// Result of a tile op computed over tile operands `tiles` (in order): broadcast shape,
// promoted dtype, valid shape and layout of the first of them.
inline Type over_tiles(const DeduceInput& in, std::initializer_list<std::size_t> tiles) {
  const TileType* first = nullptr;
  std::vector<Expr> shape;
  DataType dt{};
  for (std::size_t i : tiles) {
    const TileType& t = tile_arg(in, i);
    if (!first) {
      first = &t;
      shape = t.shape;
      dt = t.dtype;
      continue;
    }
    auto b = broadcast_shapes(shape, t.shape);
    if (!b)
      fail(in, "shapes " + dims_text(shape) + " and " + dims_text(t.shape) + " (" + arg_label(in, i) +
                   ") do not broadcast; make the dims equal or 1");
    shape = std::move(*b);
    dt = ir::promote(dt, t.dtype);
  }
  TileView v = default_view();
  // The first operand's valid region, as upstream keeps it; a lower-rank first operand is
  // broadcast along the result's leading axes, which its region does not restrict (a
  // region of another rank than the shape would be no type at all).
  const std::vector<Expr>& valid = ir::valid_shape(*first);
  v.valid_shape.assign(shape.begin(), shape.end() - static_cast<std::ptrdiff_t>(valid.size()));
  v.valid_shape.insert(v.valid_shape.end(), valid.begin(), valid.end());
  inherit_layout(v, *first);
  return tile(shape, dt, v);
}

// Same shape, valid and layout as tile operand `i`, with dtype `dt`.
inline Type like_tile(const DeduceInput& in, std::size_t i, std::optional<DataType> dt = std::nullopt) {
  const TileType& t = tile_arg(in, i);
  TileView v = default_view();
  v.valid_shape = ir::valid_shape(t);
  inherit_layout(v, t);
  return tile(t.shape, dt.value_or(t.dtype), v);
}

inline void require_dtype(const DeduceInput& in, std::size_t i, std::initializer_list<DataType> allowed) {
  DataType d = tile_arg(in, i).dtype;
  std::string names;
  for (DataType a : allowed) {
    if (a == d) return;
    names += (names.empty() ? "" : ", ") + dtype_text(a);
  }
  fail(in, arg_label(in, i) + " has dtype " + dtype_text(d) + "; supported: " + names);
}

inline void require_integer_tile(const DeduceInput& in, std::size_t i) {
  DataType d = tile_arg(in, i).dtype;
  if (!ir::is_integer(d)) fail(in, arg_label(in, i) + " must be an integer tile, got " + dtype_text(d));
}

inline void no_high_precision_for_ints(const DeduceInput& in, DataType d) {
  if (kw_flag(in, "high_precision") && !ir::is_float(d))
    fail(in, "high_precision=True applies to float tiles only, got " + dtype_text(d));
}

inline Type binary_tiles(const DeduceInput& in) { return over_tiles(in, {0, 1}); }

inline Type div(const DeduceInput& in) {
  const TileType& a = tile_arg(in, 0);
  const TileType& b = tile_arg(in, 1);
  require_dtype(in, 0, {DataType::INT16, DataType::INT32, DataType::FP16, DataType::FP32});
  if (a.dtype != b.dtype) fail(in, "lhs and rhs must share a dtype, got " + dtype_text(a.dtype) + " and " + dtype_text(b.dtype));
  if (!ir::loosely_equal(a.shape, b.shape))
    fail(in, "lhs shape " + dims_text(a.shape) + " and rhs shape " + dims_text(b.shape) + " must be equal (no broadcasting)");
  auto va = ir::valid_shape(a), vb = ir::valid_shape(b);
  for (std::size_t i = 0; i < va.size(); ++i)
    if (!same_dim(va[i], vb[i]))
      fail(in, "lhs valid " + dims_text(va) + " and rhs valid " + dims_text(vb) + " must be provably equal");
  no_high_precision_for_ints(in, a.dtype);
  return over_tiles(in, {0, 1});
}

inline Type integer_binary(const DeduceInput& in) {
  require_integer_tile(in, 0);
  require_integer_tile(in, 1);
  return over_tiles(in, {0, 1});
}

inline Type shift_binary(const DeduceInput& in) {
  require_integer_tile(in, 0);
  require_integer_tile(in, 1);
  over_tiles(in, {0, 1});  // shape check only: the shifted value keeps its dtype
  const TileType& a = tile_arg(in, 0);
  auto shape = broadcast_shapes(a.shape, tile_arg(in, 1).shape);
  TileView v = default_view();
  v.valid_shape = ir::valid_shape(a);
  inherit_layout(v, a);
  return tile(*shape, a.dtype, v);
}

inline Type tile_scalar(const DeduceInput& in) {
  scalar_arg(in, 1);
  return like_tile(in, 0);
}

inline Type subs(const DeduceInput& in) {
  require_dtype(in, 0, {DataType::INT8, DataType::INT16, DataType::INT32, DataType::FP16, DataType::FP32,
                        DataType::BF16});
  return tile_scalar(in);
}

inline Type tile_int_scalar(const DeduceInput& in) {
  require_integer_tile(in, 0);
  if (!ir::is_integer(scalar_arg(in, 1)))
    fail(in, arg_label(in, 1) + " must be an integer scalar, got " + expr_text(arg(in, 1)));
  return like_tile(in, 0);
}

inline Type xors(const DeduceInput& in) {
  tile_int_scalar(in);
  tile_arg(in, 2);
  return like_tile(in, 0);
}

// (tile, scalar, tile): result over the two tiles.
inline Type tile_scalar_tile(const DeduceInput& in) {
  scalar_arg(in, 1);
  return over_tiles(in, {0, 2});
}

inline Type sel(const DeduceInput& in) {
  tile_arg(in, 0);
  tile_arg(in, 3);
  return over_tiles(in, {1, 2});
}

inline Type sels(const DeduceInput& in) {
  tile_arg(in, 0);
  tile_arg(in, 2);
  scalar_arg(in, 3);
  return like_tile(in, 1);
}

inline Type unary(const DeduceInput& in) {
  no_high_precision_for_ints(in, tile_arg(in, 0).dtype);
  return like_tile(in, 0);
}

inline Type fp32_only(const DeduceInput& in) {
  require_dtype(in, 0, {DataType::FP32});
  return like_tile(in, 0);
}

inline Type log(const DeduceInput& in) {
  require_dtype(in, 0, {DataType::FP16, DataType::FP32});
  return unary(in);
}

inline Type not_(const DeduceInput& in) {
  require_dtype(in, 0, {DataType::INT16, DataType::UINT16});
  return like_tile(in, 0);
}

inline Type rsqrt(const DeduceInput& in) {
  if (has_arg(in, 1)) {
    const TileType& a = tile_arg(in, 0);
    const TileType& t = tile_arg(in, 1);
    if (t.dtype != a.dtype || !ir::loosely_equal(t.shape, a.shape))
      fail(in, "tmp " + type_text(arg(in, 1)->type) + " must match the input's dtype and shape " + dims_text(a.shape));
  }
  return like_tile(in, 0);
}

inline Type cast(const DeduceInput& in) {
  const TileType& t = tile_arg(in, 0);
  DataType target = required_dtype(in, "target_type");
  auto mode = kw<std::int64_t>(in, "mode");
  if (!mode) fail(in, "kwarg 'mode' (a cast mode such as 'round') is required");
  // Only the named modes exist: any other number would print as no mode at all (found by the
  // structured fuzzer: `mode=16` printed as `mode='?'`, which does not read back).
  if (*mode < 0 || *mode > static_cast<std::int64_t>(ir::CastMode::odd))
    fail(in, "kwarg 'mode' is " + std::to_string(*mode) +
                 ", which is not a cast mode; write one of 'none', 'rint', 'round', 'floor', 'ceil', "
                 "'trunc', 'odd' (or 0 … 6)");
  if (target == t.dtype)
    fail(in, "casting " + dtype_text(t.dtype) + " to itself; drop the cast");
  return like_tile(in, 0, target);
}

// The tile's shape with the dtype promoted against the scalar.
inline Type expands(const DeduceInput& in) {
  DataType s = scalar_arg(in, 1);
  return like_tile(in, 0, ir::promote(tile_arg(in, 0).dtype, s));
}

inline ir::PadValue fill_pad(const DeduceInput& in) {
  auto pad = kw<ir::PadValue>(in, "pad_value").value_or(ir::PadValue::zero);
  if (pad == ir::PadValue::null) fail(in, "pad_value must not be null; use zero, max or min");
  return pad;
}

// The padding is materialised: the whole tile becomes valid and its buffer is kept.
inline Type fillpad(const DeduceInput& in) {
  const TileType& t = tile_arg(in, 0);
  TileView v = ir::effective_view(t);
  v.valid_shape.clear();
  v.pad = fill_pad(in);
  return ir::make_tile_type(t.shape, t.dtype, v, t.memory, t.memref);
}

inline Type fillpad_expand(const DeduceInput& in) {
  const TileType& t = tile_arg(in, 0);
  auto shape = static_shape_arg(in, 1);
  if (shape.size() != t.shape.size()) fail(in, "shape " + dims_text(shape) + " must have the tile's rank");
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (auto le = prove_le(t.shape[i], shape[i]); le && !*le)
      fail(in, "shape " + dims_text(shape) + " must not be smaller than the tile " + dims_text(t.shape));
  TileView v = default_view();
  inherit_layout(v, t);
  v.pad = fill_pad(in);
  return tile(shape, t.dtype, v);
}

}  // namespace deduce

inline void register_tile_elementwise_ops(Registry& r) {
  using K = KwargKind;
  const std::string ew = "elementwise", un = "unary";
  auto two = [&](const char* name, Deducer d) {
    return OpRow(name, {"lhs", "rhs"}).vec_in({0, 1}).out(ir::MemorySpace::Vec).rowwise().family(ew).deduce(std::move(d));
  };
  auto tile_scalar = [&](const char* name, Deducer d) {
    return OpRow(name, {"lhs", "rhs"}).vec_in({0}).out(ir::MemorySpace::Vec).rowwise().family(ew).deduce(std::move(d));
  };
  auto one = [&](const char* name, Deducer d) {
    return OpRow(name, {"tile"}).vec_in({0}).out(ir::MemorySpace::Vec).func().rowwise().family(un).deduce(std::move(d));
  };

  for (const char* n : {"tile.add", "tile.sub", "tile.mul", "tile.maximum", "tile.minimum"})
    add(r, two(n, deduce::binary_tiles).func());
  add(r, two("tile.div", deduce::div).func().kw("high_precision", K::boolean, false));
  add(r, two("tile.fmod", deduce::binary_tiles).func().nis());
  for (const char* n : {"tile.and", "tile.or"}) add(r, two(n, deduce::integer_binary).func());
  for (const char* n : {"tile.shl", "tile.shr"}) add(r, two(n, deduce::shift_binary).func());
  for (const char* n : {"tile.part_add", "tile.part_mul", "tile.part_max", "tile.part_min"}) {
    OpRow row = two(n, deduce::binary_tiles);
    row.info().arg_names = {"src0", "src1"};
    add(r, std::move(row));
  }
  for (const char* n : {"tile.rem", "tile.xor"})
    add(r, OpRow(n, {"lhs", "rhs", "tmp"}).rowwise().vec_in({0, 1, 2}).out(ir::MemorySpace::Vec).family(ew)
               .deduce([](const DeduceInput& in) { deduce::tile_arg(in, 2); return deduce::over_tiles(in, {0, 1}); }));

  for (const char* n : {"tile.adds", "tile.muls", "tile.divs", "tile.maximums", "tile.minimums"})
    add(r, tile_scalar(n, deduce::tile_scalar).func());
  add(r, tile_scalar("tile.subs", deduce::subs).func());
  add(r, tile_scalar("tile.fmods", deduce::tile_scalar).func().nis());
  for (const char* n : {"tile.shls", "tile.shrs"}) add(r, tile_scalar(n, deduce::tile_int_scalar).func());
  for (const char* n : {"tile.ands", "tile.ors"}) add(r, tile_scalar(n, deduce::tile_int_scalar).func().nis());
  add(r, OpRow("tile.lrelu", {"tile", "slope"}).rowwise().vec_in({0}).out(ir::MemorySpace::Vec).func().family(ew)
             .deduce(deduce::tile_scalar));
  add(r, OpRow("tile.xors", {"lhs", "rhs", "tmp"}).rowwise().vec_in({0, 2}).out(ir::MemorySpace::Vec).nis().family(ew)
             .deduce(deduce::xors));
  add(r, OpRow("tile.rems", {"lhs", "rhs", "tmp"}).rowwise().vec_in({0, 2}).out(ir::MemorySpace::Vec).family(ew)
             .deduce(deduce::tile_scalar_tile));
  for (const char* n : {"tile.addsc", "tile.subsc"})
    add(r, OpRow(n, {"lhs", "rhs", "rhs2"}).rowwise().vec_in({0, 2}).out(ir::MemorySpace::Vec).func().family(ew)
               .deduce(deduce::tile_scalar_tile));
  for (const char* n : {"tile.addc", "tile.subc"})
    add(r, OpRow(n, {"lhs", "rhs", "rhs2"}).rowwise().vec_in({0, 1, 2}).out(ir::MemorySpace::Vec).func().family(ew)
               .deduce([](const DeduceInput& in) { return deduce::over_tiles(in, {0, 1, 2}); }));
  add(r, OpRow("tile.prelu", {"tile", "slope", "tmp"}).rowwise().vec_in({0, 1, 2}).out(ir::MemorySpace::Vec).nis()
             .family(ew).deduce([](const DeduceInput& in) { deduce::tile_arg(in, 2); return deduce::over_tiles(in, {0, 1}); }));
  add(r, OpRow("tile.sel", {"mask", "lhs", "rhs", "tmp"}).rowwise().vec_in({0, 1, 2, 3}).out(ir::MemorySpace::Vec)
             .noalias(0).noalias(3).family(ew).deduce(deduce::sel));
  add(r, OpRow("tile.sels", {"mask", "src", "tmp", "scalar"}).rowwise().vec_in({0, 1, 2}).out(ir::MemorySpace::Vec)
             .func().noalias(0).family(ew).deduce(deduce::sels));
  // The packed predicate layout of compare results is not pinned: annotate the result.
  for (auto* row : {"tile.cmp", "tile.cmps"}) {
    OpRow op = std::string_view(row) == "tile.cmp" ? two(row, nullptr) : tile_scalar(row, nullptr);
    add(r, op.func().required("cmp_type", K::integer)
               .dsl({dsl_arg("lhs", 0), dsl_arg("rhs", 1), dsl_kw("cmp_type", std::int64_t{0})}));
  }
  add(r, OpRow("tile.fillpad", {"tile"}).kw("pad_value", K::pad_value, ir::PadValue::zero).rowwise().vec_in({0})
             .dsl({dsl_arg("tile", 0), dsl_kw("pad_value", ir::PadValue::zero)})
             .out(ir::MemorySpace::Vec).family(ew).deduce(deduce::fillpad));
  add(r, OpRow("tile.fillpad_inplace", {"tile"}).kw("pad_value", K::pad_value, ir::PadValue::zero)
             .dsl({dsl_arg("tile", 0), dsl_kw("pad_value", ir::PadValue::zero)})
             .rowwise().vec_in({0}).out(ir::MemorySpace::Vec).reuse(0).effect(0, ArgEffect::read_write).family(ew)
             .deduce(deduce::fillpad));
  add(r, OpRow("tile.fillpad_expand", {"tile", "shape"}).kw("pad_value", K::pad_value, ir::PadValue::zero)
             .vec_in({0}).out(ir::MemorySpace::Vec).func().nis().family(ew).deduce(deduce::fillpad_expand));

  for (const char* n : {"tile.exp", "tile.neg", "tile.abs", "tile.sqrt", "tile.relu"}) add(r, one(n, deduce::unary));
  for (const char* n : {"tile.sin", "tile.cos"}) add(r, one(n, deduce::fp32_only));
  add(r, one("tile.log", deduce::log).kw("high_precision", K::boolean, false));
  add(r, one("tile.recip", deduce::unary).nis().kw("high_precision", K::boolean, false));
  add(r, OpRow("tile.rsqrt", {"tile", "tmp"}).optional_from(1).rowwise().vec_in({0, 1}).out(ir::MemorySpace::Vec).nis()
             .family(un).deduce(deduce::rsqrt));
  add(r, one("tile.not", deduce::not_));
  // mode is a cast-mode code; the DSL's default is 'round' (2).
  add(r, one("tile.cast", deduce::cast).required("target_type", K::dtype).required("mode", K::cast_mode)
             .dsl({dsl_arg("tile", 0), dsl_kw("target_type"),
                   dsl_kw("mode", static_cast<std::int64_t>(ir::CastMode::round))}));
}

}  // namespace tilewright::ops
