#pragma once
// Functions (§1.2–§1.5): the decorator, the signature with parameter directions and return
// types, the pl.func_attr prologue, then the body.
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "tilewright/text/print/printer_class.hpp"

namespace tilewright::text::printer_detail {

inline void Printer::decorator(const ir::FunctionNode& f, int level) {
  newline(level);
  out += "@pl.function";
  bool open = false;
  auto kw = [&] {
    out += open ? ", " : "(";
    open = true;
  };
  if (f.type != ir::FunctionType::Opaque) {
    kw();
    out += "type=pl.FunctionType.";
    out += enum_name(f.type);
  }
  if (f.level) {
    kw();
    out += "level=pl.Level.";
    out += enum_name(*f.level);
  }
  if (f.role) {
    kw();
    out += "role=pl.Role.";
    out += enum_name(*f.role);
  }
  if (auto* b = ir::kwarg_as<bool>(f.attrs, "auto_scope"); b && !*b) {
    kw();
    out += "auto_scope=False";
  }
  if (auto* s = ir::kwarg_as<std::string>(f.attrs, "external_source")) {
    kw();
    out += "external_source=";
    append_quoted(out, *s);
  }
  if (open) out += ')';
}

inline bool Printer::is_split_none(const ir::AttrValue& v) {
  if (auto* t = std::get_if<ir::EnumText>(&v)) return t->text == "pl.SplitMode.NONE";
  if (auto* i = std::get_if<std::int64_t>(&v)) return *i == 0;
  return false;
}

inline void Printer::func_attr_prologue(const ir::FunctionNode& f, int level) {
  bool open = false;
  for (const auto& [k, v] : f.attrs) {
    if (k == "auto_scope" || k == "external_source") continue;
    if (k == "split" && is_split_none(v)) continue;
    if (!open) {
      newline(level);
      out += "pl.func_attr({";
      open = true;
    } else {
      out += ", ";
    }
    append_quoted(out, k);
    out += ": ";
    if (auto* i = std::get_if<std::int64_t>(&v); i && k == "split") {
      append_enum_or_int<ir::SplitMode>(out, "pl.SplitMode.", *i);
    } else {
      common_value(v, StrStyle::double_quoted);
    }
  }
  if (open) out += "})";
}

inline void Printer::function(const ir::FunctionNode& f, const FunctionScan& scan, int level) {
  bind_function(scan);
  decorator(f, level);
  newline(level);
  out += "def ";
  out += f.name;
  out += '(';
  bool sep = false;
  if (in_program && f.role != ir::Role::SubWorker) {
    out += "self";
    sep = true;
  }
  in_signature = true;
  for (const auto& p : f.params) {
    if (sep) out += ", ";
    sep = true;
    var_name(p.var);
    out += ": ";
    switch (p.direction) {
      case ir::ParamDirection::In:
        type(p.var->type);
        break;
      case ir::ParamDirection::Out:
        out += "pl.Out[";
        type(p.var->type);
        out += ']';
        break;
      case ir::ParamDirection::InOut:
        out += "pl.InOut[";
        type(p.var->type);
        out += ']';
        break;
    }
  }
  out += ')';
  if (f.return_types.size() == 1) {
    out += " -> ";
    type(f.return_types[0]);
  } else if (f.return_types.size() > 1) {
    out += " -> tuple[";
    for (std::size_t i = 0; i < f.return_types.size(); ++i) {
      if (i) out += ", ";
      type(f.return_types[i]);
    }
    out += ']';
  }
  in_signature = false;
  out += ':';
  func_attr_prologue(f, level + 1);
  block(f.body, level + 1, {nullptr, true});
}

}  // namespace tilewright::text::printer_detail
