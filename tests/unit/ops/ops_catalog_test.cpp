// The op catalog: every op of the upstream table is registered with the flags and memory
// rules the passes query, and create_call reports malformed calls as user errors.
#include "ops_test_util.hpp"

using namespace ops_test;
using ops::builtin_registry;

namespace {

// Every row of tile_table.md (138 tile.* ops + the two tensor split ops).
const char* const k_table_ops[] = {
    "tile.batch_matmul", "tile.batch_matmul_acc", "tile.row_expand", "tile.row_expand_sub", "tile.row_expand_div",
    "tile.row_expand_mul", "tile.row_expand_add", "tile.row_expand_max", "tile.row_expand_min",
    "tile.row_expand_expdif", "tile.col_expand", "tile.col_expand_mul", "tile.col_expand_add", "tile.col_expand_div",
    "tile.col_expand_sub", "tile.col_expand_max", "tile.col_expand_min", "tile.col_expand_expdif", "tile.expands",
    "tile.tpush_to_aiv", "tile.tpush_to_aic", "tile.tpop_from_aic", "tile.tpop_from_aiv", "tile.aiv_shard",
    "tile.aic_gather", "tensor.aiv_shard", "tensor.aic_gather", "tile.mul", "tile.add", "tile.div", "tile.sub",
    "tile.maximum", "tile.minimum", "tile.rem", "tile.part_add", "tile.part_mul", "tile.part_max", "tile.part_min",
    "tile.fmod", "tile.muls", "tile.adds", "tile.divs", "tile.subs", "tile.rems", "tile.fmods", "tile.shl",
    "tile.shls", "tile.shr", "tile.shrs", "tile.maximums", "tile.minimums", "tile.and", "tile.ands", "tile.or",
    "tile.ors", "tile.xor", "tile.xors", "tile.prelu", "tile.addc", "tile.subc", "tile.addsc", "tile.subsc",
    "tile.lrelu", "tile.sel", "tile.sels", "tile.cmp", "tile.cmps", "tile.fillpad", "tile.fillpad_inplace",
    "tile.fillpad_expand", "tile.gather", "tile.gatherb", "tile.gather_mask", "tile.gather_compare", "tile.matmul",
    "tile.matmul_acc", "tile.matmul_bias", "tile.gemv", "tile.gemv_acc", "tile.gemv_bias", "tile.matmul_mx",
    "tile.matmul_mx_acc", "tile.matmul_mx_bias", "tile.tget_scale_addr", "tile.write", "tile.get_block_idx",
    "tile.get_subblock_idx", "tile.get_block_num", "tile.read", "tile.create", "tile.load", "tile.store",
    "tile.mscatter", "tile.mgather", "tile.move", "tile.alloc", "tile.full", "tile.ci", "tile.tri", "tile.random",
    "tile.gather_row", "tile.row_sum", "tile.row_max", "tile.row_min", "tile.row_prod", "tile.col_sum",
    "tile.col_max", "tile.col_min", "tile.col_prod", "tile.row_argmax", "tile.row_argmin", "tile.col_argmax",
    "tile.col_argmin", "tile.scatter", "tile.scatter_mask", "tile.sort32", "tile.mrgsort_format2",
    "tile.mrgsort_format1", "tile.slice", "tile.reshape", "tile.reinterpret_view", "tile.transpose",
    "tile.transpose_view", "tile.assemble", "tile.extract", "tile.scatter_update", "tile.concat",
    "tile.set_validshape", "tile.neg", "tile.exp", "tile.sin", "tile.cos", "tile.recip", "tile.sqrt", "tile.rsqrt",
    "tile.cast", "tile.log", "tile.abs", "tile.relu", "tile.not",
};

// Every tensor.*, system.*, pld.* op the golden kernels call.
const char* const k_golden_ops[] = {
    "tensor.view", "tensor.create", "tensor.adds", "tensor.full", "tensor.add", "tensor.muls",
    "system.bar_all", "system.bar_v", "system.bar_m", "system.sync_src", "system.sync_dst", "system.sync_set",
    "system.sync_wait", "system.syncall", "system.task_dummy", "pld.tile.remote_load", "pld.tile.remote_store",
    "array.create", "array.get_element", "array.update_element",
};

const ops::OpInfo& row(const char* name) {
  const ops::OpInfo* info = builtin_registry().find(name);
  REQUIRE_MESSAGE(info != nullptr, name);
  return *info;
}

std::vector<std::string> names_where(bool (*pred)(const ops::OpInfo&)) {
  std::vector<std::string> out;
  builtin_registry().for_each([&](const ops::OpInfo& i) {
    if (i.name.rfind("tile.", 0) == 0 && pred(i)) out.push_back(i.name);
  });
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

TEST_CASE("ops: every op of the tile table and of the golden kernels is registered") {
  for (const char* n : k_table_ops) CHECK_MESSAGE(builtin_registry().find(n) != nullptr, n);
  for (const char* n : k_golden_ops) CHECK_MESSAGE(builtin_registry().find(n) != nullptr, n);
  std::size_t tile_ops = 0;
  builtin_registry().for_each([&](const ops::OpInfo& i) { tile_ops += i.name.rfind("tile.", 0) == 0; });
  CHECK(tile_ops == 138);
}

TEST_CASE("ops: registry-derived sets match ir_ops B.3.7") {
  CHECK(names_where([](const ops::OpInfo& i) { return i.output_inherits_input(); }) ==
        sorted({"tile.slice", "tile.reshape", "tile.reinterpret_view", "tile.transpose", "tile.transpose_view",
                "tile.assemble", "tile.set_validshape", "tile.tget_scale_addr"}));
  CHECK(names_where([](const ops::OpInfo& i) { return i.output_inherits_input() && i.flags.inplace_safe; }) ==
        sorted({"tile.slice", "tile.reshape", "tile.reinterpret_view", "tile.transpose_view", "tile.assemble",
                "tile.set_validshape", "tile.tget_scale_addr"}));
  CHECK(names_where([](const ops::OpInfo& i) { return i.flags.output_reuses_input == 0; }) ==
        sorted({"tile.matmul_acc", "tile.gemv_acc", "tile.matmul_mx_acc", "tile.batch_matmul_acc", "tile.scatter",
                "tile.scatter_mask", "tile.scatter_update", "tile.fillpad_inplace", "tile.gather_row",
                "tile.tget_scale_addr"}));
  CHECK(names_where([](const ops::OpInfo& i) { return i.flags.output_reuses_input == 2; }) ==
        sorted({"tile.store", "tile.mscatter"}));
  CHECK(names_where([](const ops::OpInfo& i) { return !i.flags.inplace_safe; }) ==
        sorted({"tile.move", "tile.extract", "tile.transpose", "tile.concat", "tile.mgather", "tile.fmod",
                "tile.fmods", "tile.ands", "tile.ors", "tile.xors", "tile.prelu", "tile.recip", "tile.rsqrt",
                "tile.fillpad_expand", "tile.gather", "tile.gatherb", "tile.gather_mask", "tile.gather_compare",
                "tile.row_sum", "tile.row_max", "tile.row_min", "tile.row_prod", "tile.row_argmax",
                "tile.row_argmin", "tile.col_argmax", "tile.col_argmin", "tile.sort32", "tile.mrgsort_format1",
                "tile.mrgsort_format2"}));
  CHECK(names_where([](const ops::OpInfo& i) { return i.flags.no_execution_memory_access; }) ==
        sorted({"tile.create", "tile.slice", "tile.reshape", "tile.reinterpret_view", "tile.transpose_view",
                "tile.set_validshape", "tile.alloc", "tile.get_block_idx", "tile.get_subblock_idx",
                "tile.get_block_num"}));
  CHECK(names_where([](const ops::OpInfo& i) { return i.retargetable(); }) == sorted({"tile.load", "tile.create"}));
  for (const char* n : {"tile.move", "tile.extract", "tile.mgather"}) {
    CHECK(row(n).memory.output == ops::OutputMemory::from_kwarg);
    CHECK(row(n).memory.fixed_space == MemorySpace::Vec);
  }
}

TEST_CASE("ops: rows carry the table's arity, kwargs, memory and flags") {
  const auto& store = row("tile.store");
  CHECK(store.min_args == 3);
  CHECK(store.max_args == 4);
  CHECK(store.memory.inputs.at(0) == std::vector<MemorySpace>{MemorySpace::Vec, MemorySpace::Acc});
  CHECK(store.flags.write_channel == ops::WriteChannel::dma);
  const auto& slice = row("tile.slice");
  CHECK(slice.min_args == 3);
  CHECK(slice.max_args == 5);
  CHECK(slice.arg_names == std::vector<std::string>{"input", "shape", "offset", "valid_shape", "drop_dims"});
  REQUIRE(slice.kwarg("pad_value") != nullptr);
  CHECK(slice.kwarg("pad_value")->kind == ops::KwargKind::pad_value);
  const auto& create = row("tile.create");
  CHECK(create.kwarg("dtype")->required);
  CHECK(create.kwarg("compact") != nullptr);  // seed 003 loop-carry narrowing
  CHECK(create.flags.affinity == ops::CoreAffinity::shared);
  const auto& cast = row("tile.cast");
  CHECK(cast.kwarg("target_type")->required);
  CHECK(cast.kwarg("mode")->required);
  const auto& mm = row("tile.matmul_acc");
  CHECK(mm.min_args == 3);
  CHECK(mm.max_args == 4);
  CHECK(mm.memory.inputs.at(1) == std::vector<MemorySpace>{MemorySpace::Left});
  CHECK(mm.memory.fixed_space == MemorySpace::Acc);
  CHECK(row("tile.sel").flags.forbid_output_alias == std::vector<int>{0, 3});
  CHECK(row("tile.col_expand_mul").flags.forbid_output_alias == std::vector<int>{1});
  CHECK(row("tile.col_expand_mul").flags.functional_access);
  CHECK_FALSE(row("tile.col_expand").flags.functional_access);
  CHECK(row("tile.alloc").memory.opted_out);
  CHECK(row("tile.tpush_to_aiv").flags.affinity == ops::CoreAffinity::cube);
  CHECK(row("tile.transpose").min_args == 3);
  CHECK(row("tile.transpose").max_args == 4);
  CHECK(row("tile.assemble").flags.output_reuses_input == -1);
  CHECK(row("tile.assemble").flags.arg_effects ==
        std::vector<std::pair<int, ops::ArgEffect>>{{0, ops::ArgEffect::read_write}});
}

TEST_CASE("ops: create_call errors") {
  auto a = tile("a", {16, 32}, DataType::FP32);
  auto b = tile("b", {16, 32}, DataType::FP32);
  CHECK(error_of([&] { call("tile.ad", {a, b}); }) == "unknown op 'tile.ad'; did you mean 'tile.add'?");
  CHECK(error_of([&] { call("tile.frobnicate", {a}); }) == "unknown op 'tile.frobnicate'");
  CHECK(error_of([&] { call("kernel", {a}); }).find("probably a function") != std::string::npos);
  CHECK(error_of([&] { call("tile.add", {a, b, a}); }) == "tile.add takes 2 arguments, got 3");
  CHECK(error_of([&] { call("tile.exp", {}); }) == "tile.exp takes 1 argument, got 0");
  CHECK(error_of([&] { call("tile.slice", {a}); }) == "tile.slice takes 3 to 5 arguments, got 1");
  CHECK(error_of([&] { call("tile.add", {a, b}, {{"mode", std::int64_t{1}}}); }) ==
        "tile.add has no kwarg 'mode'; it takes no kwargs");
  CHECK(error_of([&] { call("tile.move", {a}, {{"target", MemorySpace::Mat}}); }) ==
        "tile.move has no kwarg 'target'; accepted: target_memory, blayout, slayout");
  CHECK(error_of([&] { call("tile.move", {a}, {{"target_memory", std::string("Mat")}}); }) ==
        "tile.move: kwarg 'target_memory' expects MemorySpace, got str");
  CHECK(error_of([&] { call("tile.create", {tup({16, 16})}, {}); }) ==
        "tile.create requires kwarg 'dtype' (DataType)");
  CHECK(error_of([&] {
          call("tile.create", {tup({16, 16})}, {{"dtype", DataType::FP32}, {"dtype", DataType::FP16}});
        }) == "tile.create: kwarg 'dtype' is given twice");
  CHECK(error_of([&] { call("tile.cmp", {a, b}, {{"cmp_type", std::int64_t{0}}}); }).find("annotate") !=
        std::string::npos);
  // Deduction errors are user errors originating at the op.
  try {
    call("tile.add", {a, tile("c", {8, 32}, DataType::FP32)});
    FAIL("expected an error");
  } catch (const ir::Error& e) {
    CHECK(e.diagnostic().kind == ir::ErrorKind::user);
    CHECK(e.diagnostic().origin == "tile.add");
    CHECK(std::string(e.what()) ==
          "tile.add: shapes [16, 32] and [8, 32] ('rhs' (argument 2)) do not broadcast; make the dims equal or 1");
  }
}

TEST_CASE("ops: DataType kwargs accept their integer code; annotated types fill missing deducers") {
  auto t = call("tile.create", {tup({16, 16})},
                {{"dtype", static_cast<std::int64_t>(DataType::FP16)}, {"target_memory", MemorySpace::Vec}});
  CHECK(T(t).dtype == DataType::FP16);
  auto a = tile("a", {16, 32}, DataType::FP32);
  auto annotated = ir::make_tile_type(dims({16, 32}), DataType::UINT8, std::nullopt, MemorySpace::Vec);
  auto c = ops::create_call(builtin_registry(), "tile.cmp", {a, a}, {{"cmp_type", std::int64_t{1}}}, {}, annotated);
  CHECK(c->type == annotated);
  CHECK_FALSE(ops::deduce_type(row("tile.cmp"), {a, a}, {}, {}).has_value());
}

TEST_CASE("ops: users extend a copy of the builtin registry") {
  ops::Registry mine = builtin_registry();
  ops::add(mine, ops::OpRow("my.double", {"x"}).vec_in({0}).out(MemorySpace::Vec)
                     .kw("scale", ops::KwargKind::integer, std::int64_t{2})
                     .deduce([](const ops::DeduceInput& in) {
                       const auto& t = ops::deduce::tile_arg(in, 0);
                       return ir::make_tile_type(t.shape, t.dtype);
                     }));
  CHECK(mine.size() == builtin_registry().size() + 1);
  CHECK(builtin_registry().find("my.double") == nullptr);
  auto a = tile("a", {16, 32}, DataType::FP32, MemorySpace::Vec);
  auto c = ops::create_call(mine, "my.double", {a}, {{"scale", std::int64_t{3}}}, {});
  CHECK(T(c).memory == MemorySpace::Vec);  // stamped from the row's fixed output space
  CHECK(shape_of(c) == V{16, 32});
  CHECK(error_of([&] { ops::create_call(mine, "my.doubel", {a}, {}, {}); }) ==
        "unknown op 'my.doubel'; did you mean 'my.double'?");
}

TEST_CASE("ops: memory stamping — resolver first, then the first tile argument; tuples too") {
  auto a = tile("a", dims({16, 32}), DataType::FP32, MemorySpace::Mat);
  // inherit-input: slice of an Mat tile lands in Mat and acquires Mat's implicit NZ layout.
  auto s = call("tile.slice", {a, tup({16, 16}), tup({0, 0})});
  CHECK(T(s).memory == MemorySpace::Mat);
  CHECK_FALSE(T(s).view.has_value());
  CHECK(ir::effective_view(T(s)).blayout == TileLayout::col_major);
  // from_kwarg without a value and no tile argument: stays unset (retargetable load).
  auto x = tensor("x", {64, 64}, DataType::FP16);
  auto l = call("tile.load", {x, tup({0, 0}), tup({16, 16}), tup({16, 16})});
  CHECK_FALSE(T(l).memory.has_value());
  // Tuple results are stamped element-wise.
  ops::OpInfo pair;
  pair.name = "my.pair";
  pair.min_args = pair.max_args = 1;
  pair.memory.output = ops::OutputMemory::fixed;
  pair.memory.fixed_space = MemorySpace::Vec;
  auto bare = ir::make_tile_type(dims({4, 4}), DataType::FP32);
  auto stamped = ops::stamp_memory(pair, ir::make_type(ir::TupleType{{bare, bare}}), {}, {});
  CHECK(ir::as<ir::TileType>(ir::as<ir::TupleType>(stamped)->elements[1])->memory == MemorySpace::Vec);
}
