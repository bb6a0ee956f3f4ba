#pragma once
// The op registry: one table row per op, keyed by its interned OpId.
//
// A row says how to call the op (arity, positional names, kwargs with kinds and defaults),
// what the passes may assume about it (flags, memory rules) and how to deduce its result
// type. Users register their own ops the same way the built-in catalog does.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tilewright/ir/diagnostic.hpp"
#include "tilewright/ir/expr.hpp"

namespace tilewright::ops {

using ir::AttrValue;
using ir::Expr;
using ir::Kwargs;
using ir::OpId;
using ir::Span;
using ir::Type;

// What kind of value a kwarg holds; `any` accepts every AttrValue. The last three hold an
// integer that the text spells by name: `pl.PipeType.MTE2`, `mode='round'`,
// `pl.AtomicType.Add`.
enum class KwargKind : std::uint8_t {
  integer, boolean, string, floating, dtype, memory_space, tensor_layout, tile_layout, pad_value,
  expr, any, pipe_type, cast_mode, atomic_type
};

struct KwargSpec {
  std::string name;
  KwargKind kind = KwargKind::any;
  bool required = false;
  std::optional<AttrValue> default_value;
};

// Where a tile result's memory space comes from when deduction leaves it open.
enum class OutputMemory : std::uint8_t {
  unspecified,     // no rule: the first tile argument that has a space lends it
  fixed,           // always `fixed_space`
  from_kwarg,      // the `target_memory` kwarg; with no default the op is retargetable
  inherit_input,   // the output lives where its input lives
};

struct MemorySpec {
  OutputMemory output = OutputMemory::unspecified;
  std::optional<ir::MemorySpace> fixed_space;    // for `fixed`, or the default of `from_kwarg`
  std::vector<std::vector<ir::MemorySpace>> inputs;  // allowed spaces per argument (may be empty)
  // Upstream's no_memory_spec(): the registry never stamps a space on this op's result.
  bool opted_out = false;
};

// Which core kind runs an op when the registry pins it (otherwise it follows memory spaces).
enum class CoreAffinity : std::uint8_t { unspecified, cube, vector, shared, mixed };
enum class ArgEffect : std::uint8_t { read, write, read_write, kwarg_dependent };
enum class WriteChannel : std::uint8_t { none, dma, scalar };

struct OpFlags {
  bool inplace_safe = true;               // false: output must not share its input's buffer
  int output_reuses_input = -1;           // index of the argument whose buffer the result writes
  bool no_execution_memory_access = false;  // pure view / declaration
  std::vector<int> forbid_output_alias;   // arguments the output may not alias
  bool internal_only = false;             // created by passes, not by users
  bool functional_access = false;         // functional_execution_memory_access()
  CoreAffinity affinity = CoreAffinity::unspecified;
  std::vector<std::pair<int, ArgEffect>> arg_effects;  // arguments the op writes (or reads back)
  WriteChannel write_channel = WriteChannel::none;
  // Row-wise: every row of the result (an index of all axes but the last) is computed from
  // the same row of each tile operand, or from a broadcast single row, and no argument names
  // an axis or a coordinate. Such an op means the same on a tile whose leading axes are
  // merged, so FlattenTileNdTo2D may re-create it on the 2D tiles; any other tile op on a
  // >2D tile is refused there rather than guessed at.
  bool rowwise = false;
};

// One parameter of the op's DSL signature (PyPTO's `pl.tile.<op>(...)` wrapper), in the
// order the DSL takes them positionally. A parameter fills an IR argument or a kwarg; one the
// text leaves out takes the DSL's default: a kwarg value the wrapper always passes, or, for
// an argument, a copy of another argument (`pl.tile.load`'s valid_shapes is its shapes).
struct DslParam {
  std::string name;
  int arg = -1;                          // the IR argument it fills; -1: the kwarg `name`
  std::optional<AttrValue> default_value;  // kwarg filled in when left out
  int default_from = -1;                 // argument copied in when left out
};

// Where upstream's printer spells a call of the op otherwise than `pl.<op>(arguments...,
// kwargs...)` (§4.5), beyond `OpInfo::dsl` and `keyword_args_from`. The printer writes these
// forms and the parser reads them back by the same row: neither side knows an op by name.
struct TextForm {
  // The name a call is spelled by when its argument 1 is a number literal (`tensor.adds` for
  // tensor.add); the parser reads that name as this op.
  std::string constant_operand_name;
  // The DSL's unified `pl.<name>(...)` that means this op whatever its operands
  // (`pl.load` → tile.load); the other unified names choose tile or tensor by their operands.
  std::string unified_name;
  // Number literals among the keyword arguments print bare, whatever the tile's dtype
  // (`value=0.0`).
  bool bare_number_keywords = false;
  // This argument, when an integer constant, prints as `pl.Mem.<space>`.
  int memory_space_arg = -1;
  // Without a kwarg of this name, the arguments print as `<name>=[...]`.
  std::string arguments_as_list_kwarg;
  // This string kwarg is left out when it equals the name the call is assigned to; the
  // parser supplies it back from the assignment.
  std::string kwarg_from_assigned_name;
  // This kwarg is left out inside a `pl.split_aiv` scope, which implies it.
  std::string kwarg_implied_by_split_aiv;
  // String kwargs print in double quotes, not single (the soft-mode syncall).
  bool double_quoted_strings = false;
};

struct DeduceInput {
  const struct OpInfo& op;
  const std::vector<Expr>& args;
  const Kwargs& kwargs;
  Span span;
};

// Returns the result type or throws ir::Error (a user error naming the op and the fix).
using Deducer = std::function<Type(const DeduceInput&)>;

struct OpInfo {
  OpId id;
  std::string name;
  int min_args = 0;
  int max_args = 0;  // -1: variadic
  std::vector<std::string> arg_names;
  std::vector<KwargSpec> kwargs;
  bool open_kwargs = false;  // accept kwargs not listed (ops whose schema we do not pin)
  OpFlags flags;
  MemorySpec memory;
  Deducer deduce;  // empty: the result type must come from an annotation
  std::string family;  // catalog header / upstream file the row belongs to (documentation)
  // The namespace the passes treat the op as part of; unset: the one its name's prefix says
  // (ir::family_of_name). A downstream tile op outside `tile.` declares OpFamily::tile here.
  std::optional<ir::OpFamily> op_family;
  // How the text spells a call. `dsl` is the DSL signature when it is not just the argument
  // list (empty: the arguments in order, no defaults); the parser reads calls by it. From
  // `keyword_args_from` on, arguments print as `name=value` after the kwargs, the way
  // upstream's printer writes them (`pl.tile.full(shape, dtype=..., value=0.0)`).
  std::vector<DslParam> dsl;
  int keyword_args_from = -1;
  TextForm text;

  [[nodiscard]] bool retargetable() const noexcept {
    return memory.output == OutputMemory::from_kwarg && !memory.fixed_space;
  }
  [[nodiscard]] bool output_inherits_input() const noexcept {
    return memory.output == OutputMemory::inherit_input;
  }
  [[nodiscard]] const KwargSpec* kwarg(std::string_view key) const noexcept {
    for (const auto& k : kwargs)
      if (k.name == key) return &k;
    return nullptr;
  }
};

// The facts about a row that ride on its op id (ir::op_traits), for per-statement code.
inline ir::OpTraits traits_of(const OpInfo& info) noexcept {
  ir::OpTraits t = 0;
  auto set = [&](bool on, ir::OpTrait bit) {
    if (on) t |= static_cast<ir::OpTraits>(bit);
  };
  set(info.flags.no_execution_memory_access, ir::OpTrait::no_memory_access);
  set(!info.flags.inplace_safe, ir::OpTrait::inplace_unsafe);
  set(info.flags.internal_only, ir::OpTrait::internal_only);
  set(info.retargetable(), ir::OpTrait::retargetable);
  set(static_cast<bool>(info.deduce), ir::OpTrait::deduces_type);
  set(info.flags.rowwise, ir::OpTrait::rowwise);
  return t;
}

class Registry {
 public:
  // Adds or replaces the row for `info.name`; the id is assigned here, and the id's family
  // and traits are stamped from the row (the last row added for a name wins).
  OpInfo& add(OpInfo info) {
    info.id = ir::intern_op(info.name);
    ir::set_op_family(info.id, info.op_family.value_or(ir::family_of_name(info.name)));
    ir::set_op_traits(info.id, traits_of(info));
    auto& slot = rows_[info.id.value];
    slot = std::move(info);
    return slot;
  }
  [[nodiscard]] const OpInfo* find(OpId id) const noexcept {
    auto it = rows_.find(id.value);
    return it == rows_.end() ? nullptr : &it->second;
  }
  [[nodiscard]] const OpInfo* find(std::string_view name) const { return find(ir::intern_op(name)); }
  [[nodiscard]] std::size_t size() const noexcept { return rows_.size(); }
  template <class F>
  void for_each(F&& f) const {
    for (const auto& [id, info] : rows_) f(info);
  }

 private:
  std::unordered_map<std::uint32_t, OpInfo> rows_;
};

}  // namespace tilewright::ops
