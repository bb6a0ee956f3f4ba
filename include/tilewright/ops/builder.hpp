#pragma once
// A fluent spelling of one registry row, so each catalog entry reads like its line in the
// op table (args, kwargs, memory, flags) instead of a wall of field assignments.
#include <initializer_list>
#include <string>
#include <utility>

#include "tilewright/ops/registry.hpp"

namespace tilewright::ops {

class OpRow {
 public:
  OpRow(std::string name, std::initializer_list<const char*> args) {
    info_.name = std::move(name);
    for (const char* a : args) info_.arg_names.emplace_back(a);
    info_.min_args = info_.max_args = static_cast<int>(info_.arg_names.size());
  }

  // Arguments from index `n` on may be omitted.
  OpRow& optional_from(int n) { info_.min_args = n; return *this; }
  OpRow& variadic() { info_.max_args = -1; return *this; }
  OpRow& kw(std::string name, KwargKind kind, std::optional<AttrValue> def = std::nullopt) {
    info_.kwargs.push_back(KwargSpec{std::move(name), kind, false, std::move(def)});
    return *this;
  }
  OpRow& required(std::string name, KwargKind kind) {
    info_.kwargs.push_back(KwargSpec{std::move(name), kind, true, std::nullopt});
    return *this;
  }
  OpRow& open_kwargs() { info_.open_kwargs = true; return *this; }

  OpRow& in(std::size_t arg, std::initializer_list<ir::MemorySpace> spaces) {
    if (info_.memory.inputs.size() <= arg) info_.memory.inputs.resize(arg + 1);
    info_.memory.inputs[arg].assign(spaces);
    return *this;
  }
  // Every listed argument must live in Vec (the vector-unit families).
  OpRow& vec_in(std::initializer_list<std::size_t> args) {
    for (std::size_t a : args) in(a, {ir::MemorySpace::Vec});
    return *this;
  }
  OpRow& out(ir::MemorySpace space) {
    info_.memory.output = OutputMemory::fixed;
    info_.memory.fixed_space = space;
    return *this;
  }
  OpRow& out_kwarg(std::optional<ir::MemorySpace> def = std::nullopt) {
    info_.memory.output = OutputMemory::from_kwarg;
    info_.memory.fixed_space = def;
    return *this;
  }
  OpRow& out_inherit() { info_.memory.output = OutputMemory::inherit_input; return *this; }
  OpRow& no_memory_spec() { info_.memory.opted_out = true; return *this; }

  OpRow& nis() { info_.flags.inplace_safe = false; return *this; }
  OpRow& reuse(int arg) { info_.flags.output_reuses_input = arg; return *this; }
  OpRow& noacc() { info_.flags.no_execution_memory_access = true; return *this; }
  OpRow& func() { info_.flags.functional_access = true; return *this; }
  OpRow& noalias(int arg) { info_.flags.forbid_output_alias.push_back(arg); return *this; }
  OpRow& affinity(CoreAffinity a) { info_.flags.affinity = a; return *this; }
  OpRow& effect(int arg, ArgEffect e) { info_.flags.arg_effects.emplace_back(arg, e); return *this; }
  OpRow& channel(WriteChannel c) { info_.flags.write_channel = c; return *this; }
  OpRow& internal() { info_.flags.internal_only = true; return *this; }
  OpRow& rowwise() { info_.flags.rowwise = true; return *this; }

  OpRow& family(std::string f) { info_.family = std::move(f); return *this; }
  // The passes treat the op as a member of `f` (e.g. a downstream tile op outside `tile.`).
  OpRow& in_family(ir::OpFamily f) { info_.op_family = f; return *this; }
  // The DSL signature, parameter by parameter (see DslParam).
  OpRow& dsl(std::initializer_list<DslParam> params) { info_.dsl.assign(params); return *this; }
  OpRow& keyword_args_from(int arg) { info_.keyword_args_from = arg; return *this; }
  // The printed forms that are the op's own (see TextForm, field by field).
  OpRow& number_operand_name(std::string n) { info_.text.constant_operand_name = std::move(n); return *this; }
  OpRow& unified_name(std::string n) { info_.text.unified_name = std::move(n); return *this; }
  OpRow& bare_number_keywords() { info_.text.bare_number_keywords = true; return *this; }
  OpRow& memory_space_arg(int arg) { info_.text.memory_space_arg = arg; return *this; }
  OpRow& arguments_as_list_kwarg(std::string k) { info_.text.arguments_as_list_kwarg = std::move(k); return *this; }
  OpRow& kwarg_from_assigned_name(std::string k) { info_.text.kwarg_from_assigned_name = std::move(k); return *this; }
  OpRow& kwarg_implied_by_split_aiv(std::string k) { info_.text.kwarg_implied_by_split_aiv = std::move(k); return *this; }
  OpRow& double_quoted_strings() { info_.text.double_quoted_strings = true; return *this; }
  OpRow& deduce(Deducer d) { info_.deduce = std::move(d); return *this; }

  [[nodiscard]] OpInfo take() && { return std::move(info_); }
  OpInfo& info() { return info_; }

 private:
  OpInfo info_;
};

inline OpInfo& add(Registry& r, OpRow row) { return r.add(std::move(row).take()); }

// DSL parameters: an IR argument, an argument defaulting to another, a kwarg (with the value
// the DSL passes when it is left out).
inline DslParam dsl_arg(std::string name, int arg) { return DslParam{std::move(name), arg, std::nullopt, -1}; }
inline DslParam dsl_arg(std::string name, int arg, int default_from) {
  return DslParam{std::move(name), arg, std::nullopt, default_from};
}
inline DslParam dsl_kw(std::string name, std::optional<AttrValue> default_value = std::nullopt) {
  return DslParam{std::move(name), -1, std::move(default_value), -1};
}

}  // namespace tilewright::ops
