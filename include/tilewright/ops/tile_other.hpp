#pragma once
// tile.* ops the four passes never create or re-deduce: cross-core transfers, gather,
// scatter and sort. Their rows carry the table's flags and memory rules; without a
// deducer the result type comes from the annotation.
#include "tilewright/ops/builder.hpp"

namespace tilewright::ops {

inline void register_tile_other_ops(Registry& r) {
  using M = ir::MemorySpace;
  using K = KwargKind;
  const std::string cc = "cross_core", ga = "gather", sc = "scatter", so = "sort";
  add(r, OpRow("tile.tpush_to_aiv", {"tile"}).kw("split", K::integer).kw("lane_stride", K::integer)
             .kw("id", K::integer).no_memory_spec().affinity(CoreAffinity::cube).family(cc));
  add(r, OpRow("tile.tpush_to_aic", {"tile"}).kw("split", K::integer).kw("id", K::integer).no_memory_spec()
             .affinity(CoreAffinity::vector).family(cc));
  add(r, OpRow("tile.tpop_from_aic", {}).kw("split", K::integer).kw("lane_stride", K::integer)
             .kw("id", K::integer).no_memory_spec().affinity(CoreAffinity::vector).family(cc));
  add(r, OpRow("tile.tpop_from_aiv", {}).kw("split", K::integer).kw("id", K::integer).no_memory_spec()
             .affinity(CoreAffinity::cube).family(cc));
  // Inside pl.split_aiv the scope's split is the shard's: upstream prints it only outside.
  add(r, OpRow("tile.aiv_shard", {"tile"}).kw("split", K::integer).kw("lane_stride", K::integer).out(M::Vec)
             .kwarg_implied_by_split_aiv("split").family(cc));
  add(r, OpRow("tile.aic_gather", {"tile"}).kw("split", K::integer).out(M::Mat)
             .kwarg_implied_by_split_aiv("split").family(cc));

  add(r, OpRow("tile.gather", {"src", "indices", "tmp"}).vec_in({0, 1, 2}).out(M::Vec).nis().family(ga));
  add(r, OpRow("tile.gatherb", {"src", "offset"}).kw("output_dtype", K::dtype).vec_in({0, 1}).out(M::Vec).nis()
             .family(ga));
  add(r, OpRow("tile.gather_mask", {"src"}).kw("mask_pattern", K::integer).kw("output_dtype", K::dtype)
             .dsl({dsl_arg("src", 0), dsl_kw("mask_pattern"), dsl_kw("output_dtype")})
             .vec_in({0}).out(M::Vec).nis().family(ga));
  add(r, OpRow("tile.gather_compare", {"src", "kvalue", "tmp"}).kw("cmp_mode", K::integer).kw("offset", K::integer)
             .kw("out_cols", K::integer).kw("count_dtype", K::dtype).vec_in({0, 2}).out(M::Vec).nis().family(ga));

  add(r, OpRow("tile.scatter", {"dst", "src", "indexes"}).vec_in({0, 1, 2}).out(M::Vec).reuse(0)
             .effect(0, ArgEffect::read_write).family(sc));
  add(r, OpRow("tile.scatter_mask", {"dst", "src"}).kw("mask_pattern", K::integer).vec_in({0, 1}).out(M::Vec)
             .reuse(0).effect(0, ArgEffect::read_write).family(sc));

  add(r, OpRow("tile.sort32", {"src", "idx"}).vec_in({0, 1}).out(M::Vec).func().nis().family(so));
  add(r, OpRow("tile.mrgsort_format2", {"src0", "src1", "tmp_or_src2", "tmp_or_src3", "tmp"}).optional_from(3)
             .kw("exhausted", K::boolean, false).vec_in({0, 1, 2, 3, 4}).out(M::Vec).nis().family(so));
  add(r, OpRow("tile.mrgsort_format1", {"src", "block_len"}).vec_in({0}).out(M::Vec).func().nis().family(so));
}

}  // namespace tilewright::ops
