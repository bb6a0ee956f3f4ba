#pragma once
// Scalar expressions (§4.3): Python precedence from `or` down to atoms, the implicit
// conversions of mixed operands, and name resolution (inside annotations an unknown name is a
// program-level dynamic dimension).
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilewright/text/parse/parser_class.hpp"

namespace tilewright::text::parser_detail {

inline const ir::ScalarType& Parser::scalar_operand(const Expr& e, const Span& s,
                                                    std::string_view op) const {
  auto* st = e ? ir::as<ir::ScalarType>(e->type) : nullptr;
  if (!st)
    fail(s, "operator '" + std::string(op) + "' needs scalar operands, found a value of type " +
                type_text(e ? e->type : nullptr));
  return *st;
}

inline Expr Parser::cast_to(const Expr& e, ir::DataType dt) {
  return ir::make_expr(ir::Unary{ir::UnaryOp::Cast, e}, ir::scalar_type(dt), e->span);
}

inline Expr Parser::make_binary(ir::BinaryOp op, std::string_view spelling, const PVal& l,
                                const PVal& r, const Span& span) {
  Expr a = value_expr(l, "an operand");
  Expr b = value_expr(r, "an operand");
  ir::DataType da = scalar_operand(a, l.span, spelling).dtype;
  ir::DataType db = scalar_operand(b, r.span, spelling).dtype;
  using B = ir::BinaryOp;
  if (op == B::And || op == B::Or)
    return ir::make_expr(ir::Binary{op, a, b}, ir::scalar_type(ir::DataType::BOOL), span);
  if (ir::is_float(da) != ir::is_float(db))
    fail(span, "operator '" + std::string(spelling) + "' cannot mix pl." +
                   std::string(ir::name_of(da)) + " and pl." + std::string(ir::name_of(db)) +
                   " operands; convert one side with pl.cast");
  ir::DataType res = da;
  if (da != db && !ir::same_index_class(da, db))
    res = ir::bit_width(db) > ir::bit_width(da) ? db : da;
  if (da != res && !ir::same_index_class(da, res)) a = cast_to(a, res);
  if (db != res && !ir::same_index_class(db, res)) b = cast_to(b, res);
  bool cmp = op == B::Eq || op == B::Ne || op == B::Lt || op == B::Le || op == B::Gt || op == B::Ge;
  return ir::make_expr(ir::Binary{op, a, b}, ir::scalar_type(cmp ? ir::DataType::BOOL : res), span);
}

// Turns a parsed value into an IR expression where one is required.
inline Expr Parser::value_expr(const PVal& v, std::string_view what) {
  switch (v.kind) {
    case PVal::Kind::expr:
      return v.e;
    case PVal::Kind::list: {
      std::vector<Expr> els;
      els.reserve(v.items.size());
      for (const auto& it : v.items) els.push_back(value_expr(it, "a list element"));
      Type type = tuple_type_of(els);
      return ir::make_expr(ir::MakeTuple{std::move(els)}, std::move(type), v.span);
    }
    case PVal::Kind::path: {
      if (auto m = memory_space_of(v.s))
        return ir::make_int(static_cast<std::int64_t>(*m), ir::DataType::INDEX, v.span);
      break;
    }
    case PVal::Kind::none:
      return build_op("system.task_invalid", CallArgs{}, v.span);
    default:
      break;
  }
  fail(v.span, "expected " + std::string(what) + ", found " + describe_val(v));
}

// The type of `[0, 0]` repeats on every line: a short list whose element types are nodes met
// before takes the interned type found for them then, without building a TupleType to intern.
inline Type Parser::tuple_type_of(const std::vector<Expr>& els) {
  const bool short_list = els.size() <= TupleTypeKey::kMax;
  TupleTypeKey key;
  if (short_list) {
    key.count = els.size();
    for (std::size_t i = 0; i < els.size(); ++i) key.elements[i] = els[i]->type.get();
    if (auto it = tuple_types_.find(key); it != tuple_types_.end()) return it->second.type;
  }
  std::vector<Type> types;
  types.reserve(els.size());
  for (const auto& e : els) types.push_back(e->type);
  Type type = types_(ir::make_type(ir::TupleType{std::move(types)}));
  if (short_list) {
    RememberedTupleType entry;
    for (std::size_t i = 0; i < els.size(); ++i) entry.elements[i] = els[i]->type;
    entry.type = type;
    tuple_types_.emplace(key, std::move(entry));
  }
  return type;
}

// A list, tuple or dict: one level above its deepest item.
inline PVal Parser::with_items_depth(PVal v) const {
  std::uint32_t below = 0;
  for (const auto& it : v.items) below = std::max(below, it.depth);
  v.depth = below + 1;
  if (v.depth > kMaxExprDepth)
    fail(v.span, "this expression nests more than " + std::to_string(kMaxExprDepth) +
                     " operations and calls inside one another; split it into several assignments");
  return v;
}

inline PVal Parser::nested(Expr e, Span s, std::uint32_t below) const {
  PVal v = of(std::move(e), s);
  v.depth = below + 1;
  if (v.depth > kMaxExprDepth)
    fail(v.span, "this expression nests more than " + std::to_string(kMaxExprDepth) +
                     " operations and calls inside one another; split it into several assignments");
  return v;
}

// A binary node one level above its operands, counting the conversion an operand may gain.
inline PVal Parser::binary_val(ir::BinaryOp op, std::string_view spelling, const PVal& l, const PVal& r,
                               const Span& span) {
  Expr e = make_binary(op, spelling, l, r, span);
  auto* b = ir::as<ir::Binary>(e);
  auto below = [&](const PVal& v, const Expr& used) { return v.depth + (v.kind == PVal::Kind::expr && used != v.e); };
  return nested(std::move(e), span, b ? std::max(below(l, b->lhs), below(r, b->rhs)) : std::max(l.depth, r.depth));
}

inline PVal Parser::parse_expr() {
  DepthGuard g(*this, cur().span);
  std::size_t start = pos_;
  PVal v = parse_or();
  v.begin = tok(start).offset;
  v.end = std::max(prev_end(), v.begin);
  return v;
}

inline PVal Parser::parse_or() {
  PVal l = parse_and();
  while (at_name("or")) {
    Span s = advance().span;
    PVal r = parse_and();
    Span ls = l.span;
    l = binary_val(ir::BinaryOp::Or, "or", l, r, ls);
    (void)s;
  }
  return l;
}

inline PVal Parser::parse_and() {
  PVal l = parse_not();
  while (at_name("and")) {
    advance();
    PVal r = parse_not();
    Span ls = l.span;
    l = binary_val(ir::BinaryOp::And, "and", l, r, ls);
  }
  return l;
}

inline PVal Parser::parse_not() {
  if (!at_name("not")) return parse_cmp();
  DepthGuard g(*this, cur().span);
  Span s = advance().span;
  PVal o = parse_not();
  Expr e = value_expr(o, "an operand of 'not'");
  scalar_operand(e, o.span, "not");
  return nested(ir::make_expr(ir::Unary{ir::UnaryOp::Not, e}, ir::scalar_type(ir::DataType::BOOL), s), s,
                o.depth);
}

inline std::optional<std::pair<ir::BinaryOp, std::string_view>> Parser::cmp_op() const {
  using B = ir::BinaryOp;
  switch (cur().kind) {
    case TokenKind::equal_equal:
      return std::pair{B::Eq, std::string_view("==")};
    case TokenKind::not_equal:
      return std::pair{B::Ne, std::string_view("!=")};
    case TokenKind::less:
      return std::pair{B::Lt, std::string_view("<")};
    case TokenKind::less_equal:
      return std::pair{B::Le, std::string_view("<=")};
    case TokenKind::greater:
      return std::pair{B::Gt, std::string_view(">")};
    case TokenKind::greater_equal:
      return std::pair{B::Ge, std::string_view(">=")};
    default:
      return std::nullopt;
  }
}

inline PVal Parser::parse_cmp() {
  PVal l = parse_bitor();
  if (at_name("in") || at_name("is") || (at_name("not") && peek().is_name("in")))
    fail(cur().span, "'" + cur().text + "' comparisons are not supported");
  auto op = cmp_op();
  if (!op) return l;
  advance();
  PVal r = parse_bitor();
  if (cmp_op())
    fail(cur().span, "chained comparisons are not supported; add parentheses, e.g. (a < b) == c");
  Span ls = l.span;
  return binary_val(op->first, op->second, l, r, ls);
}

template <class Next>
inline PVal Parser::parse_left_assoc(Next next,
                                     std::initializer_list<std::pair<TokenKind, ir::BinaryOp>> ops,
                                     std::initializer_list<std::string_view> spellings) {
  PVal l = (this->*next)();
  for (;;) {
    std::size_t k = 0;
    bool found = false;
    for (const auto& [tk, bop] : ops) {
      if (at(tk)) {
        found = true;
        advance();
        PVal r = (this->*next)();
        Span ls = l.span;
        l = binary_val(bop, *(spellings.begin() + static_cast<std::ptrdiff_t>(k)), l, r, ls);
        break;
      }
      ++k;
    }
    if (!found) return l;
  }
}

inline PVal Parser::parse_bitor() {
  return parse_left_assoc(&Parser::parse_bitxor, {{TokenKind::pipe, ir::BinaryOp::BitOr}}, {"|"});
}

inline PVal Parser::parse_bitxor() {
  return parse_left_assoc(&Parser::parse_bitand, {{TokenKind::caret, ir::BinaryOp::BitXor}}, {"^"});
}

inline PVal Parser::parse_bitand() {
  return parse_left_assoc(&Parser::parse_shift, {{TokenKind::amp, ir::BinaryOp::BitAnd}}, {"&"});
}

inline PVal Parser::parse_shift() {
  return parse_left_assoc(
      &Parser::parse_arith,
      {{TokenKind::lshift, ir::BinaryOp::Shl}, {TokenKind::rshift, ir::BinaryOp::Shr}},
      {"<<", ">>"});
}

inline PVal Parser::parse_arith() {
  return parse_left_assoc(
      &Parser::parse_term,
      {{TokenKind::plus, ir::BinaryOp::Add}, {TokenKind::minus, ir::BinaryOp::Sub}}, {"+", "-"});
}

inline PVal Parser::parse_term() {
  PVal l = parse_left_assoc(&Parser::parse_unary,
                            {{TokenKind::star, ir::BinaryOp::Mul},
                             {TokenKind::slash, ir::BinaryOp::FloatDiv},
                             {TokenKind::double_slash, ir::BinaryOp::FloorDiv},
                             {TokenKind::percent, ir::BinaryOp::FloorMod}},
                            {"*", "/", "//", "%"});
  if (at(TokenKind::at))
    fail(cur().span, "the matrix-multiply operator '@' is not supported; use pl.tile.matmul");
  return l;
}

inline PVal Parser::parse_unary() {
  if (!at(TokenKind::minus) && !at(TokenKind::plus) && !at(TokenKind::tilde)) return parse_power();
  DepthGuard g(*this, cur().span);
  const Token& op = advance();
  Span s = op.span;
  TokenKind k = op.kind;
  if (k == TokenKind::minus && at(TokenKind::integer) &&
      cur().int_value == std::numeric_limits<std::int64_t>::min() &&
      !peek().is(TokenKind::double_star)) {
    advance();
    return of(ir::make_int(std::numeric_limits<std::int64_t>::min(), ir::DataType::INDEX, s), s,
              true);
  }
  PVal o = parse_unary();
  if (k == TokenKind::minus && o.kind == PVal::Kind::path && o.s == "math.inf") {
    o.s = "-math.inf";  // a spelling of PadValue.min (attributes.hpp), not arithmetic
    o.span = s;
    return o;
  }
  if (k == TokenKind::minus && o.literal && o.kind == PVal::Kind::expr) {
    if (auto* c = ir::as<ir::ConstInt>(o.e))
      return of(ir::make_int(static_cast<std::int64_t>(0ULL - static_cast<std::uint64_t>(c->value)),
                             ir::as<ir::ScalarType>(o.e->type)->dtype, s),
                s, true);
    if (auto* f = ir::as<ir::ConstFloat>(o.e))
      return of(ir::make_float(-f->value, ir::as<ir::ScalarType>(o.e->type)->dtype, s), s, true);
  }
  std::string_view sp = k == TokenKind::minus ? "-" : k == TokenKind::plus ? "+" : "~";
  Expr e = value_expr(o, "an operand");
  const ir::ScalarType& st = scalar_operand(e, o.span, sp);
  if (k == TokenKind::plus) return o;
  if (k == TokenKind::tilde && !ir::is_integer(st.dtype))
    fail(o.span,
         "operator '~' needs an integer operand, found pl." + std::string(ir::name_of(st.dtype)));
  return nested(
      ir::make_expr(ir::Unary{k == TokenKind::minus ? ir::UnaryOp::Neg : ir::UnaryOp::BitNot, e},
                    e->type, s),
      s, o.depth);
}

// `**` is right-associative: `a ** b ** c` is `a ** (b ** c)`. The operands are collected
// first and folded from the right, so a long chain does not recurse. An exponent that starts
// with a unary operator (`a ** -b ** c`) takes the rest of the chain, as in Python.
inline PVal Parser::parse_power() {
  // Nearly every operand has no `**`: it must not pay for the chain's vector.
  PVal first = parse_primary();
  if (!at(TokenKind::double_star)) return first;
  PVals chain;
  chain.push_back(std::move(first));
  while (at(TokenKind::double_star)) {
    advance();
    if (at(TokenKind::minus) || at(TokenKind::plus) || at(TokenKind::tilde)) {
      chain.push_back(parse_unary());
      break;
    }
    chain.push_back(parse_primary());
  }
  PVal result = std::move(chain.back());
  for (std::size_t i = chain.size() - 1; i-- > 0;) {
    Span s = chain[i].span;
    result = binary_val(ir::BinaryOp::Pow, "**", chain[i], result, s);
  }
  return result;
}

inline PVal Parser::parse_primary() {
  PVal v = parse_atom();
  for (;;) {
    if (at(TokenKind::lbracket)) {
      Span s = advance().span;
      PVal idx = parse_expr();
      expect(TokenKind::rbracket, "to close the subscript");
      if (v.kind != PVal::Kind::expr || !ir::as<ir::TupleType>(v.e->type))
        fail(s, "subscripts are supported only on tuple values, found " + describe_val(v));
      auto* c = idx.kind == PVal::Kind::expr && idx.literal ? ir::as<ir::ConstInt>(idx.e) : nullptr;
      if (!c)
        fail(idx.span, "a tuple index must be an integer literal, found " + describe_val(idx));
      const auto& els = ir::as<ir::TupleType>(v.e->type)->elements;
      if (c->value < 0 || static_cast<std::uint64_t>(c->value) >= els.size())
        fail(idx.span, "tuple index " + std::to_string(c->value) + " is out of range for " +
                           type_text(v.e->type));
      Span vs = v.span;
      v = nested(ir::make_expr(ir::TupleGetItem{v.e, c->value}, els[static_cast<std::size_t>(c->value)], vs),
                 vs, v.depth);
    } else if (at(TokenKind::lparen)) {
      fail(cur().span, "this value cannot be called");
    } else if (at(TokenKind::dot)) {
      fail(cur().span, "attribute access on values is not supported");
    } else {
      return v;
    }
  }
}

inline PVal Parser::parse_atom() {
  const Token& t = cur();
  Span s = t.span;
  switch (t.kind) {
    case TokenKind::integer:
      if (t.int_value == std::numeric_limits<std::int64_t>::min())
        fail(s, "integer literal " + t.text + " does not fit in 64 bits");
      advance();
      return of(ir::make_int(t.int_value, ir::DataType::INDEX, s), s, true);
    case TokenKind::floating: {
      double f = t.float_value;
      advance();
      return of(ir::make_float(f, ir::DataType::FP32, s), s, true);
    }
    case TokenKind::string: {
      PVal v;
      v.kind = PVal::Kind::str;
      v.span = s;
      while (at(TokenKind::string)) v.s += advance().text;
      return v;
    }
    case TokenKind::lparen: {
      advance();
      if (accept(TokenKind::rparen)) {
        PVal v;
        v.kind = PVal::Kind::list;
        v.paren_tuple = true;
        v.span = s;
        return v;
      }
      PVal first = parse_expr();
      if (!at(TokenKind::comma)) {
        expect(TokenKind::rparen, "to close the parenthesised expression");
        return first;
      }
      PVal v;
      v.kind = PVal::Kind::list;
      v.paren_tuple = true;
      v.span = s;
      const std::size_t mark = pending_.size();
      pending_.push_back(std::move(first));
      while (accept(TokenKind::comma)) {
        if (at(TokenKind::rparen)) break;
        pending_.push_back(parse_expr());
      }
      expect(TokenKind::rparen, "to close the tuple");
      v.items = take_pending(mark);
      return with_items_depth(std::move(v));
    }
    case TokenKind::lbracket: {
      advance();
      PVal v;
      v.kind = PVal::Kind::list;
      v.span = s;
      const std::size_t mark = pending_.size();
      while (!at(TokenKind::rbracket)) {
        pending_.push_back(parse_expr());
        if (!accept(TokenKind::comma)) break;
      }
      expect(TokenKind::rbracket, "to close the list");
      v.items = take_pending(mark);
      return with_items_depth(std::move(v));
    }
    case TokenKind::lbrace: {
      advance();
      PVal v;
      v.kind = PVal::Kind::dict;
      v.span = s;
      while (!at(TokenKind::rbrace)) {
        if (!at(TokenKind::string)) fail_expected("a string key", "in the dict");
        std::string key = advance().text;
        for (const auto& k : v.keys)
          if (k == key) fail(tok(pos_ - 1).span, "duplicate key \"" + key + "\" in dict");
        expect(TokenKind::colon, "after the dict key");
        v.keys.push_back(std::move(key));
        v.items.push_back(parse_expr());
        if (!accept(TokenKind::comma)) break;
      }
      expect(TokenKind::rbrace, "to close the dict");
      return with_items_depth(std::move(v));
    }
    case TokenKind::name:
      break;
    default:
      fail_expected("an expression");
  }
  if (t.text == "True" || t.text == "False") {
    bool b = t.text == "True";
    advance();
    return of(ir::make_bool(b, s), s, true);
  }
  if (t.text == "None") {
    advance();
    PVal v;
    v.kind = PVal::Kind::none;
    v.span = s;
    return v;
  }
  if (is_python_keyword(t.text)) fail_expected("an expression");
  const Expr* bound = lookup_bound(t.text);
  if (peek().is(TokenKind::dot) &&
      (!bound || t.text == "pl" || t.text == "pld" || t.text == "self")) {
    std::string path = parse_dotted("a name");
    if (at(TokenKind::lparen)) return call_path(path, s);
    PVal v;
    v.kind = PVal::Kind::path;
    v.s = std::move(path);
    v.span = s;
    return v;
  }
  if (peek().is(TokenKind::lparen) && !bound) {
    std::string name = advance().text;
    return call_path(name, s);
  }
  if (!bound)
    if (auto c = consts_.find(t.text); c != consts_.end()) {
      advance();
      return of(constant_at(c->second, s), s, /*literal=*/true);
    }
  advance();
  return of(resolve_name(t.text, s), s);
}

inline const Expr* Parser::lookup_bound(const std::string& name) const {
  if (fn_) {
    if (auto it = fn_->scope.find(name); it != fn_->scope.end()) return &it->second;
  }
  if (auto it = dyn_.find(name); it != dyn_.end()) return &it->second;
  return nullptr;
}

inline Expr Parser::resolve_name(const std::string& name, const Span& s) {
  if (const Expr* e = lookup_bound(name)) return *e;
  if (type_ctx_) return dynamic_var(name, s);
  if (name == "pl" || name == "pld" || name == "self")
    fail(s, "'" + name + "' is a namespace, not a value");
  fail(s, "undefined name '" + name + "'");
}

inline Expr Parser::dynamic_var(const std::string& name, const Span& s) {
  auto it = dyn_.find(name);
  if (it != dyn_.end()) return it->second;
  Expr v = ir::make_var(name, ir::scalar_type(ir::DataType::INDEX), s);
  dyn_.emplace(name, v);
  return v;
}

}  // namespace tilewright::text::parser_detail
