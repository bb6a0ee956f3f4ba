#pragma once
// Kwarg and attribute values: how a PVal becomes an ir::AttrValue, typed by its spelling
// (§4.5, §4.6) and, where the op row declares the kwarg, by its declared kind.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tilewright/text/parse/parser_class.hpp"

namespace tilewright::text::parser_detail {

inline std::string Parser::describe_val(const PVal& v) const {
  switch (v.kind) {
    case PVal::Kind::expr:
      return "a value of type " + type_text(v.e->type);
    case PVal::Kind::str:
      return "a string literal";
    case PVal::Kind::path:
      return "'" + v.s + "'";
    case PVal::Kind::list:
      return "a list";
    case PVal::Kind::dict:
      return "a dict";
    case PVal::Kind::none:
      return "None";
    case PVal::Kind::raw:
      return "'" + raw_text(v) + "'";
  }
  return "a value";
}

inline std::string Parser::raw_text(const PVal& v) const {
  if (v.end <= v.begin || v.end > src_.size()) return v.s;
  return std::string(src_.substr(v.begin, v.end - v.begin));
}

// The DSL's literal spellings of a fill pad value (upstream's fillpad accepts them as sugar):
// 0 and 0.0 are PadValue.zero, math.inf is max, -math.inf min. Any other number would be a fill
// value the hardware has no mode for: refused, not rounded to the nearest mode.
inline std::optional<ir::PadValue> Parser::pad_value_literal(std::string_view key, const PVal& v) {
  if (v.kind == PVal::Kind::path && v.s == "math.inf") return ir::PadValue::max;
  if (v.kind == PVal::Kind::path && v.s == "-math.inf") return ir::PadValue::min;
  if (v.kind != PVal::Kind::expr || !v.literal) return std::nullopt;
  auto* i = ir::as<ir::ConstInt>(v.e);
  auto* f = ir::as<ir::ConstFloat>(v.e);
  if (!i && !f) return std::nullopt;  // a bool: the kind check names it
  const double x = i ? static_cast<double>(i->value) : f->value;
  if (x == 0.0) return ir::PadValue::zero;
  if (std::isinf(x)) return x > 0 ? ir::PadValue::max : ir::PadValue::min;
  fail(v.span, "'" + std::string(key) + "' has no mode for the value " + ir::expr_text(v.e) +
                   ": use pl.PadValue.zero, pl.PadValue.max or pl.PadValue.min, or one of the literals 0, 0.0, "
                   "math.inf, -math.inf");
}

// A kwarg or attribute value, typed by its spelling (§4.5, §4.6) and, when the op row
// declares the kwarg, by its declared kind.
inline ir::AttrValue Parser::attr_value(std::string_view key, const PVal& v,
                                        const ops::KwargSpec* spec) {
  using K = ops::KwargKind;
  bool want_expr = spec && spec->kind == K::expr;
  if (spec && spec->kind == K::pad_value)
    if (auto pad = pad_value_literal(key, v)) return *pad;
  switch (v.kind) {
    case PVal::Kind::str:
      if (spec && spec->kind == K::cast_mode)  // `mode='round'`
        if (auto m = ir::enum_from_name<ir::CastMode>(v.s)) return static_cast<std::int64_t>(*m);
      return v.s;
    case PVal::Kind::path: {
      if (auto x = enum_of<ir::PipeType>(v.s, "PipeType")) return static_cast<std::int64_t>(*x);
      if (auto x = enum_of<ir::AtomicType>(v.s, "AtomicType")) return static_cast<std::int64_t>(*x);
      if (auto x = memory_space_of(v.s)) return *x;
      if (auto x = enum_of<ir::TensorLayout>(v.s, "TensorLayout")) return *x;
      if (auto x = enum_of<ir::TileLayout>(v.s, "TileLayout")) return *x;
      if (auto x = enum_of<ir::PadValue>(v.s, "PadValue")) return *x;
      if (auto x = enum_of<ir::ArgDirection>(v.s, "adir")) return *x;
      if (auto x = dtype_of(v.s)) return *x;
      if (split_path(v.s).size() < 3)
        fail(v.span, "unknown name '" + v.s + "' as the value of '" + std::string(key) + "'");
      return ir::EnumText{v.s};
    }
    case PVal::Kind::expr:
      if (v.literal && !want_expr) {
        if (auto* b = ir::as<ir::ConstBool>(v.e)) return b->value;
        if (auto* i = ir::as<ir::ConstInt>(v.e)) {
          if (spec && spec->kind == K::floating) return static_cast<double>(i->value);
          return i->value;
        }
        if (auto* f = ir::as<ir::ConstFloat>(v.e)) return f->value;
      }
      return v.e;
    case PVal::Kind::list: {
      if (want_expr) return value_expr(v, "a value");
      bool ints = true, dirs = true, exprs = true, raw = false;
      for (const auto& it : v.items) {
        ints = ints && it.kind == PVal::Kind::expr && it.literal && ir::as<ir::ConstInt>(it.e);
        dirs = dirs && it.kind == PVal::Kind::path && enum_of<ir::ArgDirection>(it.s, "adir");
        exprs = exprs && (it.kind == PVal::Kind::expr || it.kind == PVal::Kind::list);
        raw = raw || it.kind == PVal::Kind::raw;
      }
      if (raw) return ir::EnumText{raw_text(v)};
      if (ints) {
        std::vector<std::int64_t> xs;
        for (const auto& it : v.items) xs.push_back(ir::as<ir::ConstInt>(it.e)->value);
        return xs;
      }
      if (dirs) {
        std::vector<ir::ArgDirection> xs;
        for (const auto& it : v.items) xs.push_back(*enum_of<ir::ArgDirection>(it.s, "adir"));
        return xs;
      }
      if (exprs) {
        std::vector<Expr> xs;
        for (const auto& it : v.items) xs.push_back(value_expr(it, "a list element"));
        return xs;
      }
      return value_expr(v, "a list of values");
    }
    case PVal::Kind::raw:
      return ir::EnumText{raw_text(v)};
    case PVal::Kind::none:
    case PVal::Kind::dict:
      break;
  }
  fail(v.span, "unsupported value " + describe_val(v) + " for '" + std::string(key) + "'");
}

inline ir::Kwargs Parser::attrs_dict(const PVal& v) {
  if (v.kind != PVal::Kind::dict)
    fail(v.span, "expected a dict such as {\"key\": value} for attrs, found " + describe_val(v));
  ir::Kwargs out;
  for (std::size_t i = 0; i < v.keys.size(); ++i)
    out.emplace_back(v.keys[i], attr_value(v.keys[i], v.items[i], nullptr));
  return out;
}

template <class E>
inline E Parser::enum_kw(const PVal& v, std::string_view family, std::string_view key) {
  if (v.kind == PVal::Kind::path)
    if (auto x = enum_of<E>(v.s, family)) return *x;
  fail(v.span, "expected pl." + std::string(family) + ".<name> for " + std::string(key) +
                   ", found " + describe_val(v));
}

}  // namespace tilewright::text::parser_detail
