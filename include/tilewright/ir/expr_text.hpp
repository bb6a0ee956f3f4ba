#pragma once
// The text of expressions and dims in diagnostics ("[16, N * 2]"), shared by the deducers, the
// parser and the passes, so that a message spells a dim the same way wherever it comes from.
#include <charconv>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tilewright/ir/expr.hpp"

namespace tilewright::ir {

inline std::string expr_text(const Expr& e) {
  if (!e) return "?";
  if (auto c = const_int(e)) return std::to_string(*c);
  if (auto* f = as<ConstFloat>(e)) {
    // The shortest text that reads back as the value, as Python writes a float (`0.0`, `1e-06`).
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, f->value);
    std::string out(buf, ec == std::errc() ? end : buf);
    if (out.find_first_of(".eEn") == std::string::npos) out += ".0";  // not inf/nan, no point yet
    return out;
  }
  if (auto* b = as<ConstBool>(e)) return b->value ? "True" : "False";
  if (is_var_like(e) || as<MemRef>(e)) {
    auto n = name_hint(e);
    return n.empty() ? std::string("<var>") : std::string(n);
  }
  if (auto* b = as<Binary>(e)) {
    static constexpr std::string_view sym[] = {"+",  "-",  "*",  "//", "%",   "/",  "min", "max",
                                               "**", "==", "!=", "<",  "<=",  ">",  ">=",  "and",
                                               "or", "xor", "&", "|",  "^",   "<<", ">>"};
    auto s = sym[static_cast<std::size_t>(b->op)];
    if (b->op == BinaryOp::Min || b->op == BinaryOp::Max)
      return std::string(s) + "(" + expr_text(b->lhs) + ", " + expr_text(b->rhs) + ")";
    return expr_text(b->lhs) + " " + std::string(s) + " " + expr_text(b->rhs);
  }
  if (auto* t = as<MakeTuple>(e)) {
    std::string out = "[";
    for (std::size_t i = 0; i < t->elements.size(); ++i)
      out += (i ? ", " : "") + expr_text(t->elements[i]);
    return out + "]";
  }
  return "<expr>";
}

inline std::string dims_text(const std::vector<Expr>& dims) {
  std::string out = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + expr_text(dims[i]);
  return out + "]";
}
inline std::string dims_text(std::span<const std::int64_t> dims) {
  std::string out = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
  return out + "]";
}

}  // namespace tilewright::ir
