#pragma once
// Calls (§4.5–§4.7): kwarg and attr values in each encoding, op heads, the DSL signatures that
// differ from the IR argument list, calls of the program's functions and submits.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "tilewright/ops/catalog.hpp"
#include "tilewright/text/print/printer_class.hpp"

namespace tilewright::text::printer_detail {

// Values shared by every encoding; returns false for the kinds the caller decides.
inline bool Printer::common_value(const ir::AttrValue& v, StrStyle strings) {
  switch (v.index()) {
    case 0:
      append_int(out, std::get<std::int64_t>(v));
      return true;
    case 1:
      out += std::get<bool>(v) ? "True" : "False";
      return true;
    case 2: {
      const std::string& s = std::get<std::string>(v);
      if (strings == StrStyle::single_quoted) {
        append_string_literal(out, s, '\'');
      } else {
        append_quoted(out, s);
      }
      return true;
    }
    case 3:
      append_float(out, std::get<double>(v));
      return true;
    case 4:
      dtype(std::get<ir::DataType>(v));
      return true;
    case 5:
      out += "pl.Mem.";
      out += enum_name(std::get<ir::MemorySpace>(v));
      return true;
    case 6:
      out += "pl.TensorLayout.";
      out += enum_name(std::get<ir::TensorLayout>(v));
      return true;
    case 7:
      out += "pl.TileLayout.";
      out += enum_name(std::get<ir::TileLayout>(v));
      return true;
    case 8:
      out += "pl.PadValue.";
      out += enum_name(std::get<ir::PadValue>(v));
      return true;
    case 9:
      out += "pl.adir.";
      out += enum_name(std::get<ir::ArgDirection>(v));
      return true;
    case 10: {
      auto& ds = std::get<std::vector<ir::ArgDirection>>(v);
      out += '[';
      for (std::size_t i = 0; i < ds.size(); ++i) {
        if (i) out += ", ";
        out += "pl.adir.";
        out += enum_name(ds[i]);
      }
      out += ']';
      return true;
    }
    case 11: {
      auto& xs = std::get<std::vector<std::int64_t>>(v);
      out += '[';
      for (std::size_t i = 0; i < xs.size(); ++i) {
        if (i) out += ", ";
        append_int(out, xs[i]);
      }
      out += ']';
      return true;
    }
    case 12:
      expr(std::get<Expr>(v));
      return true;
    case 13:
      out += '[';
      expr_list(std::get<std::vector<Expr>>(v));
      out += ']';
      return true;
    case 14:
      out += std::get<ir::EnumText>(v).text;
      return true;
    default:
      return false;
  }
}

// An integer kwarg the row declares as an enum prints by the member's name.
inline void Printer::kwarg_value(const ops::OpInfo* row, std::string_view key, const ir::AttrValue& v,
                                 StrStyle strings) {
  const auto* i = std::get_if<std::int64_t>(&v);
  const ops::KwargSpec* spec = i && row ? row->kwarg(key) : nullptr;
  switch (spec ? spec->kind : ops::KwargKind::any) {
    case ops::KwargKind::pipe_type:
      append_enum_or_int<ir::PipeType>(out, "pl.PipeType.", *i);
      return;
    case ops::KwargKind::cast_mode:
      append_enum_or_int<ir::CastMode>(out, "'", *i, "'");
      return;
    case ops::KwargKind::atomic_type:
      append_enum_or_int<ir::AtomicType>(out, "pl.AtomicType.", *i);
      return;
    default:
      common_value(v, strings);
  }
}

inline void Printer::attrs_dict(const ir::Kwargs& attrs, bool function_call) {
  out += "attrs={";
  bool first = true;
  auto entry = [&](const std::pair<std::string, ir::AttrValue>& kv) {
    if (!first) out += ", ";
    first = false;
    append_quoted(out, kv.first);
    out += ": ";
    common_value(kv.second, StrStyle::double_quoted);
  };
  if (function_call) {
    // §4.7: the two attrs the orchestration codegen reads come first.
    for (std::string_view k : {std::string_view("dump_vars"), std::string_view("arg_directions")})
      for (const auto& kv : attrs)
        if (kv.first == k) entry(kv);
    for (const auto& kv : attrs)
      if (kv.first != "dump_vars" && kv.first != "arg_directions") entry(kv);
  } else {
    for (const auto& kv : attrs) entry(kv);
  }
  out += '}';
}

inline const std::string& Printer::op_spelling(ir::OpId op) {
  auto it = callee_cache.find(op.value);
  if (it == callee_cache.end())
    it = callee_cache.emplace(op.value, callee_spelling(ir::op_name(op))).first;
  return it->second;
}

inline const ops::OpInfo* Printer::op_row(ir::OpId op) {
  auto it = row_cache.find(op.value);
  if (it == row_cache.end()) {
    const ops::Registry& r = registry ? *registry : ops::builtin_registry();
    it = row_cache.emplace(op.value, r.find(op)).first;
  }
  return it->second;
}

inline void Printer::call(const ir::Call& c) {
  ir::OpId op = c.callee.op;
  const ops::OpInfo* row = op ? op_row(op) : nullptr;
  static const ops::TextForm plain;
  const ops::TextForm& form = row ? row->text : plain;
  bool sep = false;
  auto comma = [&] {
    if (sep) out += ", ";
    sep = true;
  };
  auto positional = [&](std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to && i < c.args.size(); ++i) {
      comma();
      expr(c.args[i]);
    }
  };

  StrStyle strings = form.double_quoted_strings ? StrStyle::double_quoted : StrStyle::single_quoted;
  const bool submit = op && !c.callee.function.empty();
  // Inside pl.split_aiv the scope implies this kwarg.
  std::string_view implied = split_aiv_depth > 0 ? std::string_view(form.kwarg_implied_by_split_aiv)
                                                 : std::string_view();
  auto kwargs = [&] {
    for (const auto& [k, v] : c.kwargs) {
      // §4.5: the assignment's name stands for it; any other name must be printed to survive.
      if (!form.kwarg_from_assigned_name.empty() && k == form.kwarg_from_assigned_name &&
          &c == assigned_call) {
        auto* text = std::get_if<std::string>(&v);
        if (text && *text == assigned_name) continue;
      }
      if (!implied.empty() && k == implied) continue;
      comma();
      out += k;
      out += '=';
      if (submit && k == "predicate" && std::holds_alternative<Expr>(v))
        scope_value(k, v);  // §4.7: printed in parentheses, as on scopes
      else
        kwarg_value(row, k, v, strings);
    }
  };
  auto attrs = [&](bool function_call) {
    if (c.attrs.empty()) return;
    comma();
    attrs_dict(c.attrs, function_call);
  };

  if (!op) {  // a function of the program
    if (in_program) out += "self.";
    out += c.callee.function;
    out += '(';
    positional(0, c.args.size());
    kwargs();
    attrs(true);
    out += ')';
    return;
  }
  if (!c.callee.function.empty()) {
    // Submit is its own node upstream and always spelled `pl.submit` / `pl.spmd_submit`.
    std::string_view name = ir::op_name(op);
    if (name.find('.') == std::string_view::npos) out += "pl.";
    out += name;
    out += '(';
  } else if (!form.constant_operand_name.empty() && c.args.size() >= 2 &&
             (ir::as<ir::ConstInt>(c.args[1]) || ir::as<ir::ConstFloat>(c.args[1]))) {
    out += callee_spelling(form.constant_operand_name);
    out += '(';
  } else {
    out += op_spelling(op);
    out += '(';
  }
  if (!c.callee.function.empty()) {  // pl.submit(self.k, ...)
    comma();
    if (in_program) out += "self.";
    out += c.callee.function;
  }
  if (row && row->keyword_args_from >= 0 && c.args.size() > static_cast<std::size_t>(row->keyword_args_from)) {
    // §4.5: the arguments the DSL takes by keyword print as keywords, after the kwargs.
    auto from = static_cast<std::size_t>(row->keyword_args_from);
    positional(0, from);
    kwargs();
    for (std::size_t i = from; i < c.args.size(); ++i) {
      std::string_view key = i < row->arg_names.size() ? std::string_view(row->arg_names[i]) : std::string_view();
      comma();
      out += key;
      out += '=';
      // A fill value is a bare number whatever the tile dtype.
      auto* f = ir::as<ir::ConstFloat>(c.args[i]);
      auto* n = ir::as<ir::ConstInt>(c.args[i]);
      if (form.bare_number_keywords && (f || n)) {
        if (f) append_float(out, f->value);
        else append_int(out, n->value);
      } else {
        expr(c.args[i]);
      }
    }
  } else if (auto m = static_cast<std::size_t>(form.memory_space_arg);
             form.memory_space_arg >= 0 && m < c.args.size() && ir::as<ir::ConstInt>(c.args[m])) {
    positional(0, m);
    comma();
    append_enum_or_int<ir::MemorySpace>(out, "pl.Mem.", ir::as<ir::ConstInt>(c.args[m])->value);
    positional(m + 1, c.args.size());
    kwargs();
  } else if (!form.arguments_as_list_kwarg.empty() && !c.args.empty() &&
             !ir::find_kwarg(c.kwargs, form.arguments_as_list_kwarg)) {
    kwargs();
    comma();
    out += form.arguments_as_list_kwarg;
    out += "=[";
    expr_list(c.args);
    out += ']';
  } else {
    positional(0, c.args.size());
    kwargs();
  }
  attrs(false);
  out += ')';
}

}  // namespace tilewright::text::printer_detail
