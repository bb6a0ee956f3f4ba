#pragma once
// system.* (synchronisation, barriers, task placeholders), pld.* (distributed) and
// array.* ops. Synchronisation ops produce no value (UnknownType); their kwarg schemas
// follow the printed forms, and the soft-mode syncall / distributed ops stay open.
#include "tilewright/ops/builder.hpp"
#include "tilewright/ops/deduce.hpp"

namespace tilewright::ops {

namespace deduce {

inline Type no_value(const DeduceInput&) { return ir::unknown_type(); }
inline Type task_id(const DeduceInput&) { return ir::scalar_type(DataType::TASK_ID); }

inline Type array_create(const DeduceInput& in) {
  auto n = ir::const_int(arg(in, 0));
  if (!n || *n <= 0) fail(in, "extent must be a positive integer constant, got " + expr_text(arg(in, 0)));
  DataType dt = required_dtype(in, "dtype");
  if (!ir::is_integer(dt) && dt != DataType::BOOL && dt != DataType::TASK_ID)
    fail(in, "arrays hold integer, BOOL or TASK_ID elements, got " + dtype_text(dt));
  return ir::make_type(ir::ArrayType{dt, *n});
}

inline const ir::ArrayType& array_arg(const DeduceInput& in, std::size_t i) {
  if (auto* a = ir::as<ir::ArrayType>(arg(in, i)->type)) return *a;
  fail(in, arg_label(in, i) + " must be an array, got " + type_text(arg(in, i)->type));
}

}  // namespace deduce

inline void register_system_ops(Registry& r) {
  using K = KwargKind;
  const std::string f = "system";
  // Every kwarg upstream's registry declares for an op is accepted, so whatever its printer
  // writes reads back (`core_type` names the core kind a barrier or flag belongs to).
  for (const char* n : {"system.bar_all", "system.bar_v", "system.bar_m", "system.fence"})
    add(r, OpRow(n, {}).kw("core_type", K::string).family(f).deduce(deduce::no_value));
  for (const char* n : {"system.sync_src", "system.sync_dst"})
    add(r, OpRow(n, {}).kw("set_pipe", K::pipe_type).kw("wait_pipe", K::pipe_type).kw("event_id", K::integer)
               .kw("core_type", K::string).family(f).deduce(deduce::no_value));
  // The event id is a static kwarg or one dynamic INDEX operand (printed positionally).
  add(r, OpRow("system.sync_set", {"event_id"}).optional_from(0).kw("pipe", K::pipe_type).kw("event_id", K::integer)
             .kw("ffts_mode", K::integer).kw("core_type", K::string).family(f).deduce(deduce::no_value));
  add(r, OpRow("system.sync_wait", {"event_id"}).optional_from(0).kw("pipe", K::pipe_type).kw("event_id", K::integer)
             .kw("core_type", K::string).family(f).deduce(deduce::no_value));
  add(r, OpRow("system.cacheinvalid", {"tensor", "offsets", "shapes"}).family(f).deduce(deduce::no_value));
  add(r, OpRow("system.set_ffts", {"workspace"}).family(f).deduce(deduce::no_value));
  for (const char* n : {"system.tfree_to_aic", "system.tfree_to_aiv"})
    add(r, OpRow(n, {"tile"}).kw("split", K::integer).kw("id", K::integer).family(f).deduce(deduce::no_value));
  for (const char* n : {"system.aic_initialize_pipe", "system.aiv_initialize_pipe"})
    add(r, OpRow(n, {"c2v_consumer_buf", "v2c_consumer_buf"}).kw("dir_mask", K::integer)
               .kw("slot_size", K::integer).kw("slot_num", K::integer).kw("local_slot_num", K::integer)
               .kw("id", K::integer).family(f).deduce(deduce::no_value));
  auto i32 = [](const DeduceInput&) { return ir::scalar_type(ir::DataType::INT32); };
  add(r, OpRow("system.reserve_buffer", {}).kw("name", K::string).kw("size", K::integer).kw("base", K::integer)
             .family(f).deduce(i32));
  add(r, OpRow("system.import_peer_buffer", {}).kw("name", K::string).kw("peer_func", K::string).family(f)
             .deduce(i32));
  add(r, OpRow("system.syncall", {}).variadic().open_kwargs().double_quoted_strings()
             .family(f).deduce(deduce::no_value));
  add(r, OpRow("system.task_dummy", {}).variadic().kw("deps", K::any).arguments_as_list_kwarg("deps")
             .family(f).deduce(deduce::task_id));
  add(r, OpRow("system.task_invalid", {}).family(f).deduce(deduce::task_id));

  const std::string d = "distributed";
  add(r, OpRow("pld.tile.remote_load", {"target", "peer", "offsets", "shape", "valid_shape"}).optional_from(4)
             .open_kwargs().no_memory_spec().family(d));
  add(r, OpRow("pld.tile._remote_load_with_physical_tail_padding",
               {"target", "peer", "offsets", "shape", "valid_shape"}).optional_from(4)
             .open_kwargs().no_memory_spec().family(d));
  add(r, OpRow("pld.tile.remote_store", {"src", "target", "peer", "offsets"}).open_kwargs().no_memory_spec()
             .family(d).deduce(deduce::no_value));
  add(r, OpRow("pld.tensor.alloc_window_buffer", {}).variadic().open_kwargs()
             .kwarg_from_assigned_name("name").family(d));

  const std::string a = "array";
  add(r, OpRow("array.create", {"extent"}).required("dtype", K::dtype).family(a).deduce(deduce::array_create));
  add(r, OpRow("array.get_element", {"array", "index"}).family(a).deduce([](const DeduceInput& in) {
    return ir::scalar_type(deduce::array_arg(in, 0).dtype);
  }));
  add(r, OpRow("array.update_element", {"array", "index", "value"}).family(a).deduce([](const DeduceInput& in) {
    deduce::array_arg(in, 0);
    return deduce::arg(in, 0)->type;
  }));
}

}  // namespace tilewright::ops
