#pragma once
// tile.* data movement and creation: load, store, create, full, move, read, write,
// extract, alloc and the gather/scatter/index ops of the same upstream files.
#include "tilewright/ops/builder.hpp"
#include "tilewright/ops/deduce.hpp"

namespace tilewright::ops {

namespace deduce {

inline bool is_mx_layout(ir::TensorLayout l) {
  return l == ir::TensorLayout::MX_A_ZZ || l == ir::TensorLayout::MX_B_NN;
}

inline Type load(const DeduceInput& in) {
  const TensorType& src = tensor_arg(in, 0);
  const auto& offsets = index_literal(in, 1);
  const auto& shapes = index_literal(in, 2);
  const auto& valid = index_literal(in, 3);
  if (shapes.empty() || offsets.size() != shapes.size() || valid.size() != shapes.size())
    fail(in, "offsets " + dims_text(offsets) + ", shapes " + dims_text(shapes) + " and valid_shape " +
                 dims_text(valid) + " must be non-empty tuples of the same rank");
  auto target = kw<MemorySpace>(in, "target_memory");
  ir::TensorLayout layout = src.view ? src.view->layout : ir::TensorLayout::ND;
  TileView view = default_view();
  if (is_mx_layout(layout)) {
    if (src.dtype != DataType::FP8E8M0 && src.dtype != DataType::UINT8)
      fail(in, "an MX scale source must be FP8E8M0 or UINT8, got " + dtype_text(src.dtype));
    if (src.shape.size() != 2) fail(in, "an MX scale source must be 2-D, got " + dims_text(src.shape));
    if (target != MemorySpace::Mat) fail(in, "an MX scale source must be loaded with target_memory=pl.Mem.Mat");
    bool a = layout == ir::TensorLayout::MX_A_ZZ;
    view.blayout = a ? TileLayout::row_major : TileLayout::col_major;
    view.slayout = a ? TileLayout::row_major : TileLayout::col_major;
    view.fractal = 32;
  } else if (target == MemorySpace::Mat) {
    bool dn = layout == ir::TensorLayout::DN;
    view.blayout = dn ? TileLayout::row_major : TileLayout::col_major;
    view.slayout = dn ? TileLayout::col_major : TileLayout::row_major;
    // A single-row window feeds GEMV / bias as a plain ND row vector.
    if (shapes.size() == 2 && is_const(shapes[dn ? 1 : 0], 1)) {
      view.blayout = TileLayout::row_major;
      view.slayout = TileLayout::none_box;
    }
  } else if (target && is_const(shapes.back(), 1)) {
    view.blayout = TileLayout::col_major;
  }
  if (shapes.size() == src.shape.size()) {
    bool clamp = kw_flag(in, "clamp");
    view.valid_shape = window_read_valid(in, src.shape, ir::valid_shape(src), offsets, shapes, &valid,
                                         /*exact=*/false, clamp);
  } else {
    view.valid_shape = valid;
  }
  return tile(shapes, src.dtype, view, target);
}

inline Type store(const DeduceInput& in) {
  const TileType& t = tile_arg(in, 0);
  auto offsets = index_tuple(in, 1);
  const TensorType& dst = tensor_arg(in, 2);
  if (offsets.size() != dst.shape.size())
    fail(in, "offsets " + dims_text(offsets) + " give " + std::to_string(offsets.size()) +
                 " coordinates for the output tensor " + dims_text(dst.shape) + " of rank " +
                 std::to_string(dst.shape.size()) + "; give one offset per tensor axis");
  reject_negative_offsets(in, offsets);
  if (auto atomic = kw<std::int64_t>(in, "atomic"); atomic && *atomic == 1) {
    switch (t.dtype) {
      case DataType::FP32: case DataType::BF16: case DataType::FP16: case DataType::INT32:
      case DataType::INT16: case DataType::INT8: break;
      default: fail(in, "atomic add is not supported for " + dtype_text(t.dtype) +
                            " tiles; use FP32, BF16, FP16, INT32, INT16 or INT8");
    }
  }
  const Type& dst_type = arg(in, 2)->type;
  // The region written, in tensor coordinates: the 4th `shapes` when given, else the tile's
  // valid extent (only it reaches the tensor). Statically past a tensor dim, the data would
  // land outside the tensor.
  auto check_fits = [&](const std::vector<Expr>& extent, std::string_view what) {
    for (std::size_t i = 0; i < extent.size(); ++i) {
      auto end = checked_end(in, offsets[i], extent[i], i);
      auto lim = ir::const_int(dst.shape[i]);
      if (end && lim && *end > *lim)
        fail(in, std::string(what) + " " + dims_text(extent) + " at offset " + dims_text(offsets) +
                     " runs past the output tensor " + dims_text(dst.shape) + " in dim " + std::to_string(i) +
                     " (" + std::to_string(*end) + " > " + std::to_string(*lim) +
                     "); the data would land outside the tensor");
    }
  };
  if (has_arg(in, 3)) {
    auto shapes = index_tuple(in, 3);
    if (shapes.empty() || shapes.size() != offsets.size())
      fail(in, "shapes " + dims_text(shapes) + " must be a non-empty tuple of the rank of offsets " +
                   dims_text(offsets));
    check_fits(shapes, "the window");
    return dst_type;
  }
  if (t.shape.size() != dst.shape.size()) return dst_type;
  check_fits(ir::valid_shape(t), "tile valid");
  // The destination's valid region grows by what the store writes (ValidRegionTransfer).
  const auto& dv = ir::valid_shape(dst);
  if (ir::loosely_equal(dv, dst.shape)) return dst_type;
  const auto& sv = ir::valid_shape(t);
  std::vector<Expr> grown;
  for (std::size_t i = 0; i < dv.size(); ++i) {
    auto a = ir::const_int(dv[i]), o = ir::const_int(offsets[i]), s = ir::const_int(sv[i]),
         n = ir::const_int(dst.shape[i]);
    if (!a || !o || !s || !n) return dst_type;  // not decidable: keep the declared region
    if (*o + *s > *n)
      fail(in, "tile valid " + dims_text(sv) + " at offset " + dims_text(offsets) +
                   " does not fit the destination " + dims_text(dst.shape));
    grown.push_back(idx(std::min(*n, std::max(*a, *o + *s))));
  }
  if (ir::loosely_equal(grown, dv)) return dst_type;
  ir::TensorView v = dst.view ? *dst.view : ir::TensorView{};
  v.valid_shape = grown;
  return ir::make_tensor_type(dst.shape, dst.dtype, v, dst.memref, dst.distributed);
}

inline Type create(const DeduceInput& in) {
  auto shape = static_shape_arg(in, 0);
  DataType dt = required_dtype(in, "dtype");
  auto target = kw<MemorySpace>(in, "target_memory");
  bool transpose = kw_flag(in, "transpose");
  bool flat = kw_flag(in, "flat_layout");
  bool compact = kw_flag(in, "compact");
  if (target == MemorySpace::LeftScale || target == MemorySpace::RightScale)
    fail(in, "cannot create a tile in " + std::string(ir::name_of(*target)) +
                 "; move an Mat tile there with tile.move");
  if (transpose && (shape.size() != 2 || target != MemorySpace::Mat))
    fail(in, "transpose=True needs a 2-D shape and target_memory=pl.Mem.Mat");
  if (flat && (target != MemorySpace::Mat || transpose))
    fail(in, "flat_layout=True needs target_memory=pl.Mem.Mat and no transpose");
  TileView view = default_view();
  std::optional<MemorySpace> stamp;
  if (flat) {
    stamp = MemorySpace::Mat;
  } else if (target == MemorySpace::Acc) {
    view = acc_view();
    stamp = MemorySpace::Acc;
  } else if (transpose) {
    view.slayout = TileLayout::col_major;
  } else {
    view.blayout = ir::shape_blayout(shape);
  }
  // Seed 003's loop-carry narrowing declares Acc seeds compact.
  if (compact) view.compact = ir::CompactMode::normal;
  return tile(shape, dt, view, stamp);
}

inline Type full(const DeduceInput& in) {
  auto shape = static_shape_arg(in, 0);
  DataType dt = required_dtype(in, "dtype");
  const Expr& value = arg(in, 1);
  if (!ir::as<ir::ConstInt>(value) && !ir::as<ir::ConstFloat>(value))
    fail(in, "value must be a numeric constant, got " + expr_text(value));
  return tile(shape, dt, default_view());
}

inline bool is_scale_space(MemorySpace m) { return m == MemorySpace::LeftScale || m == MemorySpace::RightScale; }

inline Type move(const DeduceInput& in) {
  const TileType& src = tile_arg(in, 0);
  auto target = kw<MemorySpace>(in, "target_memory");
  if (!ir::find_kwarg(in.kwargs, "target_memory") || !target)
    fail(in, "kwarg 'target_memory' is required, e.g. target_memory=pl.Mem.Vec");
  auto blayout = kw<TileLayout>(in, "blayout");
  auto slayout = kw<TileLayout>(in, "slayout");
  TileView se = ir::effective_view(src);
  DataType dt = src.dtype;
  if (is_scale_space(*target)) {
    bool left = *target == MemorySpace::LeftScale;
    TileLayout want = left ? TileLayout::row_major : TileLayout::col_major;
    if (src.shape.size() != 2) fail(in, "a scale tile must be 2-D, got " + dims_text(src.shape));
    if (src.memory != MemorySpace::Mat || se.blayout != want || se.slayout != want || se.fractal != 32)
      fail(in, "moving into " + std::string(ir::name_of(*target)) + " needs an Mat source with the " +
                   (left ? "row/row" : "col/col") + "/32 scale view");
    if (dt != DataType::UINT8 && dt != DataType::FP8E8M0)
      fail(in, "a scale tile must be UINT8 or FP8E8M0, got " + dtype_text(dt));
    if (blayout || slayout) fail(in, "blayout/slayout cannot be changed when moving into a scale space");
    dt = DataType::FP8E8M0;
  }
  ir::TileLayoutTriple dst = ir::implicit_tile_layout(src.shape, target);
  ir::TileLayoutTriple plain = ir::implicit_tile_layout(src.shape, std::nullopt);
  TileView v = default_view();
  v.blayout = dst.blayout;
  v.slayout = dst.slayout;
  if (dst == plain) {
    // Spaces without a box layout keep the arrangement the data already has.
    v.blayout = se.blayout;
    v.slayout = se.slayout;
  }
  if (*target == MemorySpace::Right) v.blayout = TileLayout::row_major;
  if (blayout) v.blayout = *blayout;
  if (slayout) v.slayout = *slayout;
  v.fractal = dst.fractal;
  v.valid_shape = ir::valid_shape(src);
  v.pad = se.pad;
  return tile(src.shape, dt, v, target);
}

inline Type read(const DeduceInput& in) {
  const TileType& t = tile_arg(in, 0);
  check_element_indices(in, t.shape.size(), "tile");
  return ir::scalar_type(t.dtype);
}

inline Type write(const DeduceInput& in) {
  const TileType& t = tile_arg(in, 0);
  check_element_indices(in, t.shape.size(), "tile");
  check_written_value(in, t.dtype, "tile");
  return arg(in, 0)->type;
}

inline Type extract(const DeduceInput& in) {
  const TileType& src = tile_arg(in, 0);
  if (src.shape.size() != 2) fail(in, "source must be 2-D, got " + dims_text(src.shape));
  index_arg(in, 1);
  index_arg(in, 2);
  const auto& shape = literal_tuple(in, 3);
  if (shape.size() != 2) fail(in, "shape must have 2 elements, got " + dims_text(shape));
  static_shape_arg(in, 3);
  MemorySpace target = kw<MemorySpace>(in, "target_memory").value_or(MemorySpace::Vec);
  std::vector<Expr> offsets{arg(in, 1), arg(in, 2)};
  TileView v = ir::implicit_view(shape, target);
  v.valid_shape = window_read_valid(in, src.shape, ir::valid_shape(src), offsets, shape, nullptr,
                                    /*exact=*/true, /*clamp=*/false);
  if (target == MemorySpace::Left) v.blayout = v.slayout = TileLayout::row_major;
  if (target == MemorySpace::Right) {
    v.blayout = TileLayout::row_major;
    v.slayout = TileLayout::col_major;
  }
  if ((target == MemorySpace::Left || target == MemorySpace::Right) && !ir::loosely_equal(v.valid_shape, shape))
    v.compact = ir::CompactMode::normal;
  return tile(shape, src.dtype, v, target);
}

inline Type alloc(const DeduceInput& in) {
  auto code = ir::const_int(arg(in, 0));
  if (!code || *code < 0 || *code > static_cast<std::int64_t>(MemorySpace::RightScale))
    fail(in, "the first argument must be a memory space such as pl.Mem.Vec, got " + expr_text(arg(in, 0)));
  index_arg(in, 1);
  return ir::marker_type(ir::Marker::Ptr);
}

}  // namespace deduce

inline void register_tile_memory_ops(Registry& r) {
  using M = ir::MemorySpace;
  using K = KwargKind;
  const std::string f = "memory";
  add(r, OpRow("tile.load", {"tensor", "offsets", "shapes", "valid_shape"})
             .kw("target_memory", K::memory_space).kw("clamp", K::boolean, false)
             .dsl({dsl_arg("tensor", 0), dsl_arg("offsets", 1), dsl_arg("shapes", 2), dsl_arg("valid_shapes", 3, 2),
                   dsl_kw("target_memory", M::Vec)})
             .out_kwarg().func().unified_name("load").family(f).deduce(deduce::load));
  add(r, OpRow("tile.store", {"tile", "offsets", "output_tensor", "shapes"}).optional_from(3)
             .kw("atomic", K::atomic_type, std::int64_t{0})
             .in(0, {M::Vec, M::Acc}).reuse(2).effect(2, ArgEffect::kwarg_dependent)
             .channel(WriteChannel::dma).unified_name("store").family(f).deduce(deduce::store));
  add(r, OpRow("tile.create", {"shape"})
             .required("dtype", K::dtype).kw("target_memory", K::memory_space)
             .kw("transpose", K::boolean, false).kw("flat_layout", K::boolean, false)
             .kw("compact", K::boolean, false)
             // An allocation written without target_memory is left for the compiler to place (upstream's
             // newest DSL): an accumulator allocated so may still be packed into Acc (FL-64).
             .dsl({dsl_arg("shape", 0), dsl_kw("dtype"), dsl_kw("target_memory")})
             .out_kwarg().affinity(CoreAffinity::shared).noacc().unified_name("create_tile")
             .family(f).deduce(deduce::create));
  add(r, OpRow("tile.full", {"shape", "value"}).required("dtype", K::dtype)
             .dsl({dsl_arg("shape", 0), dsl_kw("dtype"), dsl_arg("value", 1)}).keyword_args_from(1)
             .bare_number_keywords().out(M::Vec).func().family(f).deduce(deduce::full));
  add(r, OpRow("tile.move", {"tile"})
             .kw("target_memory", K::memory_space).kw("blayout", K::tile_layout)
             .kw("slayout", K::tile_layout)
             .dsl({dsl_arg("tile", 0), dsl_kw("target_memory"), dsl_kw("blayout"), dsl_kw("slayout")})
             .out_kwarg(M::Vec).func().nis().rowwise().family(f).deduce(deduce::move));
  add(r, OpRow("tile.read", {"tile", "indices"}).in(0, {M::Vec}).family(f).deduce(deduce::read));
  add(r, OpRow("tile.write", {"tile", "indices", "value"}).in(0, {M::Vec}).out(M::Vec)
             .effect(0, ArgEffect::read_write).family(f).deduce(deduce::write));
  add(r, OpRow("tile.extract", {"src", "index_row", "index_col", "shape"})
             .kw("target_memory", K::memory_space).out_kwarg(M::Vec).nis().family("transform")
             .deduce(deduce::extract));
  add(r, OpRow("tile.alloc", {"memory_space", "size"}).kw("pinned", K::boolean, false)
             .memory_space_arg(0).no_memory_spec().noacc().affinity(CoreAffinity::vector).family(f).deduce(deduce::alloc));
  add(r, OpRow("tile.get_block_idx", {}).no_memory_spec().noacc().affinity(CoreAffinity::shared).family(f));
  add(r, OpRow("tile.get_subblock_idx", {}).no_memory_spec().noacc().affinity(CoreAffinity::vector).family(f));
  add(r, OpRow("tile.get_block_num", {}).no_memory_spec().noacc().affinity(CoreAffinity::shared).family(f));
  add(r, OpRow("tile.mscatter", {"src", "idx", "output_tensor"}).vec_in({0, 1}).reuse(2)
             .effect(2, ArgEffect::write).channel(WriteChannel::dma).family(f));
  add(r, OpRow("tile.mgather", {"mem", "idx", "scratch", "valid_shape"}).optional_from(2)
             .kw("coalesce", K::integer).kw("gather_oob", K::integer).kw("target_memory", K::memory_space)
             .out_kwarg(M::Vec).nis().channel(WriteChannel::dma).effect(2, ArgEffect::kwarg_dependent)
             .keyword_args_from(2).family(f));
  add(r, OpRow("tile.ci", {"start", "shape"}).required("dtype", K::dtype).kw("descending", K::boolean, false)
             .dsl({dsl_arg("start", 0), dsl_arg("shape", 1), dsl_kw("dtype", ir::DataType::INT32),
                   dsl_kw("descending", false)})
             .out(M::Vec).func().family(f));
  add(r, OpRow("tile.tri", {"diagonal", "shape", "valid_shape"}).optional_from(2)
             .required("dtype", K::dtype).kw("upper", K::boolean, false).out(M::Vec).family(f));
  add(r, OpRow("tile.random", {"key0", "key1", "counter0", "counter1", "counter2", "counter3", "shape",
                               "valid_shape"}).optional_from(7)
             .required("dtype", K::dtype).kw("rounds", K::integer).out(M::Vec).func().family(f));
  add(r, OpRow("tile.gather_row", {"dst", "src", "dst_offset", "src_offset", "shapes", "valid_shape"})
             .optional_from(5).kw("transpose", K::boolean, false).keyword_args_from(5).reuse(0)
             .effect(0, ArgEffect::read_write).family("paged_gather"));
}

}  // namespace tilewright::ops
