#pragma once
// The printer's lexical pieces: numbers (§4.1), string literals, enum member names, the spelling
// of an op call's head (§4.5) and the ops whose DSL signature differs from their IR arguments.
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tilewright/ir/function.hpp"
#include "tilewright/text/lexer.hpp"

namespace tilewright::text::printer_detail {

using ir::Expr;
using ir::ExprNode;
using ir::Stmt;
using ir::Type;
using ir::TypeNode;

template <class E>
std::string_view enum_name(E e) noexcept {
  return ir::name_of(e);
}
// An enum-valued kwarg held as an integer: `prefix` + the member's name, or the number itself
// when it names no member, so that the text still reads back to the same value (an int64
// squeezed into the enum's byte would name another member).
template <class E>
void append_enum_or_int(std::string& out, std::string_view prefix, std::int64_t v,
                        std::string_view suffix = {}) {
  if (v < 0 || static_cast<std::size_t>(v) >= ir::enum_table<E>.names.size()) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
    return;
  }
  out += prefix;
  out += ir::name_of(static_cast<E>(v));
  out += suffix;
}

inline void append_int(std::string& out, std::int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}
inline void append_uint(std::string& out, std::uint64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// §4.1: `%.17g` in the classic locale, then `.0` so that the literal reparses as a float.
// std::to_chars(general, 17) is specified as printf's %.17g.
inline void append_float(std::string& out, double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 17);
  std::string_view s(buf, static_cast<std::size_t>(r.ptr - buf));
  out += s;
  if (std::isfinite(v) && s.find_first_of(".eE") == std::string_view::npos) out += ".0";
}

// A Python string literal in `quote`. Upstream escapes only the quote and `\` in attr strings
// (std::quoted) and nothing at all in op kwargs; printable text comes out the same here, and
// the characters that would end or break the literal (the quote, `\`, line breaks, other
// control characters) are escaped so that the text reads back to the same string. Bytes
// from 0x80 up stay raw: the reader keeps them as they are, while a \x escape would read
// back as a code point.
inline void append_string_literal(std::string& out, std::string_view s, char quote) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += quote;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == quote || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7F) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xF];
    } else {
      out += c;
    }
  }
  out += quote;
}
inline void append_quoted(std::string& out, std::string_view s) {
  append_string_literal(out, s, '"');
}

// The spelling of an op call's head (§4.5): `pl.` + dotted name, `pld.` verbatim, a dot-less
// name bare; a Python keyword as last component gains `_` so the text stays valid Python.
inline std::string callee_spelling(std::string_view name) {
  std::string s;
  if (name.substr(0, 4) == "pld.") {
    s = name;
  } else if (name.find('.') != std::string_view::npos) {
    s = "pl.";
    s += name;
  } else {
    s = name;
  }
  auto dot = name.rfind('.');
  std::string_view last = dot == std::string_view::npos ? name : name.substr(dot + 1);
  if (is_python_keyword(last)) s += '_';
  return s;
}

// The placeholder a task scope's `as tid` stands for (§3.1); the op-specific spellings of calls
// are in their registry rows (ops::TextForm).
inline ir::OpId task_invalid_op() {
  static const ir::OpId op = ir::intern_op("system.task_invalid");
  return op;
}

inline std::optional<ir::DataType> scalar_dtype(const Type& t) noexcept {
  if (auto* s = ir::as<ir::ScalarType>(t)) return s->dtype;
  return std::nullopt;
}

inline bool is_index_const(const Expr& e, std::int64_t v) noexcept {
  auto* c = ir::as<ir::ConstInt>(e);
  return c && c->value == v && scalar_dtype(e->type) == ir::DataType::INDEX;
}

}  // namespace tilewright::text::printer_detail
