#pragma once
// Blocks and simple statements (§3.1–§3.2): suites, comments carried onto the statement
// they precede, assignments (annotated, plain, tuple-unpacking, augmented) and expression
// statements. Python scoping: one name table per function; plain reassignment reuses the Var.
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/text/parse/annotations.hpp"
#include "tilewright/text/parse/parser_class.hpp"

namespace tilewright::text::parser_detail {

inline Stmt Parser::with_comments(const Stmt& s, std::vector<std::string> lines) {
  if (lines.empty() || !s) return s;
  std::vector<std::string> all = std::move(lines);
  all.insert(all.end(), s->comments.lines.begin(), s->comments.lines.end());
  return ir::make_stmt(ir::StmtNode{s->v, s->span, ir::Comments{std::move(all)}});
}

// After the ':' of a compound statement: an indented block or one simple line.
inline std::vector<Stmt> Parser::parse_suite(std::string_view what) {
  std::vector<Stmt> out;
  ++nest_;  // an error ends the whole parse, so no unwinding is needed
  const std::uint32_t outer = block_;
  block_ = ++blocks_;
  if (accept(TokenKind::newline)) {
    DepthGuard g(*this, cur().span);
    if (!at(TokenKind::indent))
      fail_expected("an indented block", "for the body of " + std::string(what));
    advance();
    block_rest(out);
  } else {
    parse_simple_line(out);
  }
  block_ = outer;
  --nest_;
  return out;
}

inline void Parser::block_rest(std::vector<Stmt>& out) {
  while (!at(TokenKind::dedent) && !at(TokenKind::end)) parse_statement(out);
  expect(TokenKind::dedent, "to end the block");
}

inline void Parser::parse_statement(std::vector<Stmt>& out) {
  std::size_t first = pos_;
  // Between top-level statements no production holds a token: the ones before go (the last
  // is kept, for the end of the previous statement).
  if (nest_ == 0 && first > 0) release_before(first - 1);
  std::vector<std::string> comments = take_comments(first);
  comments.insert(comments.begin(), carried_.begin(), carried_.end());
  carried_.clear();
  std::size_t before = out.size();
  const Token& t = cur();
  if (t.is_name("if")) {
    parse_if(out);
  } else if (t.is_name("for")) {
    parse_for(out);
  } else if (t.is_name("while")) {
    parse_while(out);
  } else if (t.is_name("with")) {
    parse_with(out);
  } else if (t.is_name("def") || t.is_name("class")) {
    fail(t.span, "nested '" + t.text + "' definitions are not supported");
  } else if (t.is_name("elif") || t.is_name("else")) {
    fail(t.span, "'" + t.text + "' without a matching 'if'");
  } else if (t.is(TokenKind::indent)) {
    fail(t.span, "unexpected indent");
  } else {
    parse_simple_line(out);
  }
  if (out.size() > before)
    out[before] = with_comments(out[before], std::move(comments));
  else
    carried_.insert(carried_.end(), comments.begin(), comments.end());
}

inline void Parser::parse_simple_line(std::vector<Stmt>& out) {
  for (;;) {
    std::size_t before = out.size();
    parse_simple(out);
    if (out.size() > before && !carried_.empty()) {
      out[before] = with_comments(out[before], std::move(carried_));
      carried_.clear();
    }
    if (!accept(TokenKind::semicolon)) break;
    if (at(TokenKind::newline) || at(TokenKind::end)) break;
  }
  expect_line_end("after the statement");
}

// Scans the logical line for an assignment at bracket depth 0.
inline TokenKind Parser::line_assign_kind() const {
  int depth = 0;
  for (std::size_t i = pos_;; ++i) {
    TokenKind k = tok(i).kind;
    if (k == TokenKind::lparen || k == TokenKind::lbracket || k == TokenKind::lbrace)
      ++depth;
    else if (k == TokenKind::rparen || k == TokenKind::rbracket || k == TokenKind::rbrace)
      --depth;
    else if (depth <= 0 &&
             (k == TokenKind::newline || k == TokenKind::semicolon || k == TokenKind::end ||
              k == TokenKind::indent || k == TokenKind::dedent))
      return TokenKind::end;
    else if (depth == 0 && (k == TokenKind::assign ||
                            (k >= TokenKind::plus_assign && k <= TokenKind::rshift_assign)))
      return k;
    else if (k == TokenKind::end)
      return TokenKind::end;
  }
}

inline void Parser::parse_simple(std::vector<Stmt>& out) {
  const Token& t = cur();
  Span s = t.span;
  if (t.is_name("pass")) {
    advance();
    return;
  }
  if (t.is(TokenKind::ellipsis)) {
    advance();
    return;
  }
  if (t.is_name("break") || t.is_name("continue")) {
    bool brk = t.text == "break";
    advance();
    if (brk)
      out.push_back(ir::make_stmt(ir::Break{}, s));
    else
      out.push_back(ir::make_stmt(ir::Continue{}, s));
    return;
  }
  if (t.is_name("return")) {
    advance();
    std::vector<Expr> vals;
    if (!at(TokenKind::newline) && !at(TokenKind::semicolon) && !at(TokenKind::end)) {
      PVals vs = parse_expr_list();
      if (vs.size() == 1 && vs[0].kind == PVal::Kind::list && vs[0].paren_tuple) vs = vs[0].items;
      for (const auto& v : vs) vals.push_back(value_expr(v, "a return value"));
      check_returns(vals, vs, s);
    }
    out.push_back(ir::make_stmt(ir::Return{std::move(vals)}, s));
    return;
  }
  if (is_python_keyword(t.text) && t.is(TokenKind::name) && t.text != "None" && t.text != "True" &&
      t.text != "False" && t.text != "not")
    fail(s, "'" + t.text + "' statements are not supported");
  if (t.is(TokenKind::name) && peek().is(TokenKind::colon)) {
    parse_annotated_assign(out);
    return;
  }
  TokenKind ak = line_assign_kind();
  if (ak == TokenKind::assign) {
    parse_assign(out);
    return;
  }
  if (ak != TokenKind::end) {
    parse_aug_assign(out);
    return;
  }
  parse_expr_stmt(out);
}

// A returned value must fit the declared return type by the annotation rule (§6.4): the
// signature is the annotation of what the function gives back.
inline void Parser::check_returns(const std::vector<Expr>& vals, const PVals& written,
                                  const Span& s) const {
  const auto& declared = fn_->returns;
  if (declared.empty()) return;  // printed functions without `->` may still return values
  // `return r` of a function declared `-> tuple[A, B]`, r a Tuple[A, B] (what an Orchestration
  // function gives back from a kernel call returning several values): checked element-wise.
  if (vals.size() == 1 && declared.size() > 1)
    if (auto* tuple = ir::as<ir::TupleType>(vals[0]->type); tuple && tuple->elements.size() == declared.size()) {
      for (std::size_t i = 0; i < declared.size(); ++i) {
        Reconciled r = reconcile_annotation(declared[i], tuple->elements[i]);
        if (r.problem.empty()) continue;
        fail(written[0].span, "element " + std::to_string(i + 1) + " of the tuple '" + fn_->name + "' returns has type " +
                                  type_text(tuple->elements[i]) + ", but the function is declared to return " +
                                  type_text(declared[i]) + " there: " + r.problem +
                                  "; correct the return annotation or the value");
      }
      return;
    }
  if (declared.size() != vals.size())
    fail(s, "'" + fn_->name + "' is declared to return " + std::to_string(declared.size()) +
                (declared.size() == 1 ? " value" : " values") + " but this return gives " +
                std::to_string(vals.size()));
  for (std::size_t i = 0; i < vals.size(); ++i) {
    Reconciled r = reconcile_annotation(declared[i], vals[i]->type);
    if (r.problem.empty()) continue;
    fail(written[i].span, "return value " + std::to_string(i + 1) + " of '" + fn_->name + "' has type " +
                              type_text(vals[i]->type) + ", but the function is declared to return " +
                              type_text(declared[i]) + ": " + r.problem +
                              "; correct the return annotation or the value");
  }
}

inline PVals Parser::parse_expr_list() {
  PVals vs;
  vs.push_back(parse_expr());
  while (accept(TokenKind::comma)) {
    if (at(TokenKind::newline) || at(TokenKind::end) || at(TokenKind::semicolon) ||
        at(TokenKind::assign))
      break;
    vs.push_back(parse_expr());
  }
  return vs;
}

inline void Parser::parse_annotated_assign(std::vector<Stmt>& out) {
  const Token& name = advance();
  Span s = name.span;
  advance();  // ':'
  Span ann_span = cur().span;
  Type ann;
  {
    TypeCtx tc(*this);
    ann = parse_type();
  }
  if (!at(TokenKind::assign))
    fail_expected("'='", "after the annotation of '" + name.text +
                             "' (declarations without a value are not supported)");
  advance();
  if (at_yield_call()) {
    std::vector<Expr> vals = parse_yield_values();
    if (ann && vals.size() == 1) check_compatible(ann, vals[0]->type, ann_span, name.text);
    record_yield({&name}, ann, vals, s);
    out.push_back(ir::make_stmt(ir::Yield{std::move(vals)}, s));
    return;
  }
  rhs_tok_ = pos_;
  while (tok(rhs_tok_).is(TokenKind::lparen)) ++rhs_tok_;
  rhs_ann_ = ann;
  PVal rhs = parse_expr();
  rhs_ann_ = nullptr;
  finish_assign(name, ann, ann_span, rhs, s, out);
}

inline void Parser::finish_assign(const Token& name, Type ann, const Span& ann_span,
                                  const PVal& rhs, const Span& s, std::vector<Stmt>& out) {
  Expr v = value_expr(rhs, "a value on the right of '='");
  if (!ann && rhs.literal) {
    // `x = 1` on an existing scalar x takes x's dtype, as the annotation the printer writes would.
    auto it = fn_->scope.find(name.text);
    if (it != fn_->scope.end() && ir::as<ir::Var>(it->second) &&
        ir::as<ir::ScalarType>(it->second->type))
      ann = it->second->type;
  }
  v = name_from_assignment(v, name.text);
  Type t = v->type;
  if (ann) {
    Reconciled r = reconcile_annotation(ann, v->type);
    if (!r.problem.empty()) annotation_conflict(name.text, ann, v->type, r.problem, ann_span);
    t = types_(r.type);
    if (r.annotation_wins && ir::as<ir::Call>(v) && t != v->type) {
      v = ir::make_expr(v->v, t, v->span);  // §6.4: the call is rebuilt with the winning type
    } else if (r.annotation_wins && rhs.literal && ir::as<ir::ConstInt>(v)) {
      ir::DataType dt = ir::as<ir::ScalarType>(t)->dtype;
      if (ir::is_float(dt))
        v = ir::make_float(static_cast<double>(ir::as<ir::ConstInt>(v)->value), dt, v->span);
      else if (ir::is_integer(dt))
        v = ir::make_int(ir::as<ir::ConstInt>(v)->value, dt, v->span);
    }
  }
  if (strict_ssa_) check_single_assignment(name);
  Expr var = define(
      name, t, ir::as<ir::MarkerType>(t) && ir::as<ir::MarkerType>(t)->kind == ir::Marker::Ptr);
  out.push_back(ir::make_stmt(ir::Assign{var, v}, s));
}

// strict_ssa=True: a name is assigned once per block (a parameter, a loop variable or an
// iter_arg may be assigned once more, as upstream's parser allows).
inline void Parser::check_single_assignment(const Token& name) {
  auto [it, first] = fn_->assigned_in.try_emplace(name.text + "#" + std::to_string(block_), name.span);
  if (first) return;
  fail(name.span, "'" + name.text + "' is already defined in this block (line " + std::to_string(it->second.line) +
                      "), and the program asks for strict_ssa=True: each name is assigned once per block; give this "
                      "value a new name, or drop strict_ssa");
}

// `w = pld.tensor.alloc_window_buffer(...)`: the printer leaves out a `name` equal to the
// assigned name (§4.5, TextForm::kwarg_from_assigned_name), so the assignment supplies it back.
inline Expr Parser::name_from_assignment(const Expr& v, const std::string& lhs) const {
  auto* c = ir::as<ir::Call>(v);
  if (!c || !c->callee.function.empty() || !c->callee.op) return v;
  const ops::OpInfo* row = reg_.find(c->callee.op);
  if (!row) return v;
  const std::string& key = row->text.kwarg_from_assigned_name;
  if (key.empty() || ir::find_kwarg(c->kwargs, key)) return v;
  ir::Call named = *c;
  named.kwargs.emplace_back(key, lhs);
  return ir::make_expr(std::move(named), v->type, v->span);
}

inline void Parser::annotation_conflict(const std::string& name, const Type& ann, const Type& val,
                                        const std::string& problem, const Span& s) const {
  // Two types that read alike differ in their views: spell those out.
  const bool alike = type_text(ann) == type_text(val);
  auto text = [&](const Type& t) { return alike ? type_text_with_view(t) : type_text(t); };
  fail(s, "the annotation of '" + name + "' is " + text(ann) + ", but its value has type " +
              text(val) + ": " + problem + "; correct the annotation or leave it out");
}

inline void Parser::check_compatible(const Type& ann, const Type& val, const Span& s,
                                     const std::string& name) const {
  Reconciled r = reconcile_annotation(ann, val);
  if (!r.problem.empty()) annotation_conflict(name, ann, val, r.problem, s);
}

// One Var per name per function: plain reassignment reuses the Var (non-strict SSA).
inline Expr Parser::define(const Token& name, const Type& t, bool ptr) {
  if (ptr) {
    if (auto it = fn_->ptrs.find(name.text); it != fn_->ptrs.end()) {
      fn_->scope[name.text] = it->second;
      return it->second;
    }
  }
  if (auto it = fn_->scope.find(name.text); it != fn_->scope.end() && ir::as<ir::Var>(it->second)) {
    // The Var is reused, so its one type must fit every value it is given: the printer
    // writes that type as the annotation of each assignment (upstream rejects a change too).
    const Type& old = it->second->type;
    if (auto difference = ir::type_difference(old, t)) {
      std::string was = type_text(old), now = type_text(t);
      fail(name.span, "'" + name.text + "' was defined with type " + was +
                          " and cannot be reassigned a value of type " + now +
                          (was == now ? " (their views or buffers differ: " + *difference + ")" : "") +
                          "; use a new name");
    }
    return it->second;
  }
  Expr v = ir::make_var(name.text, t, name.span);
  fn_->scope[name.text] = v;
  if (ptr) fn_->ptrs[name.text] = v;
  return v;
}

inline Expr Parser::fresh(const std::string& name, const Type& t, const Span& s) {
  Expr v = ir::make_var(name, t, s);
  fn_->scope[name] = v;
  return v;
}

inline void Parser::parse_assign(std::vector<Stmt>& out) {
  Span s = cur().span;
  std::vector<const Token*> names;
  bool paren = accept(TokenKind::lparen);
  for (;;) {
    if (!at(TokenKind::name) || is_python_keyword(cur().text))
      fail_expected("a name to assign to", "(only names can be assignment targets)");
    names.push_back(&advance());
    if (!accept(TokenKind::comma)) break;
    if (at(TokenKind::assign) || at(TokenKind::rparen)) break;
  }
  bool tuple_target = names.size() > 1 || tok(pos_ - 1).is(TokenKind::comma);
  if (paren) expect(TokenKind::rparen, "to close the assignment targets");
  if (!at(TokenKind::assign))
    fail_expected("'='", "after the assignment targets (only names can be assigned)");
  advance();
  if (at_yield_call()) {
    std::vector<Expr> vals = parse_yield_values();
    record_yield(names, nullptr, vals, s);
    out.push_back(ir::make_stmt(ir::Yield{std::move(vals)}, s));
    return;
  }
  if (line_assign_kind() == TokenKind::assign)
    fail(cur().span, "chained assignment 'a = b = c' is not supported");
  PVals rhs = parse_expr_list();
  PVal value;
  if (rhs.size() == 1) {
    value = std::move(rhs[0]);
  } else {
    value.kind = PVal::Kind::list;
    value.paren_tuple = true;
    value.span = rhs[0].span;
    value.items = std::move(rhs);
  }
  if (!tuple_target) {
    finish_assign(*names[0], nullptr, s, value, s, out);
    return;
  }
  // `a, b = f(...)`: a temporary tuple and one TupleGetItem per target (§6.1).
  Expr v = value_expr(value, "a tuple value");
  auto* tt = ir::as<ir::TupleType>(v->type);
  if (!tt)
    fail(value.span, "cannot unpack a value of type " + type_text(v->type) + " into " +
                         std::to_string(names.size()) + " names");
  if (tt->elements.size() != names.size())
    fail(value.span, "cannot unpack a tuple of " + std::to_string(tt->elements.size()) +
                         " values into " + std::to_string(names.size()) + " names");
  auto* c = ir::as<ir::Call>(v);
  bool submit = c && c->callee.op && !c->callee.function.empty();
  Expr tmp = ir::make_var(submit ? "_submit_tmp" : "_tuple_tmp", v->type, s);
  out.push_back(ir::make_stmt(ir::Assign{tmp, v}, s));
  for (std::size_t i = 0; i < names.size(); ++i) {
    Expr item =
        ir::make_expr(ir::TupleGetItem{tmp, static_cast<std::int64_t>(i)}, tt->elements[i], s);
    Expr var = define(*names[i], item->type, false);
    out.push_back(ir::make_stmt(ir::Assign{var, item}, names[i]->span));
  }
}

inline void Parser::parse_aug_assign(std::vector<Stmt>& out) {
  if (!at(TokenKind::name)) fail_expected("a name", "before an augmented assignment");
  const Token& name = advance();
  const Token& op = advance();
  using B = ir::BinaryOp;
  std::optional<B> b;
  switch (op.kind) {
    case TokenKind::plus_assign:
      b = B::Add;
      break;
    case TokenKind::minus_assign:
      b = B::Sub;
      break;
    case TokenKind::star_assign:
      b = B::Mul;
      break;
    case TokenKind::slash_assign:
      b = B::FloatDiv;
      break;
    case TokenKind::double_slash_assign:
      b = B::FloorDiv;
      break;
    case TokenKind::percent_assign:
      b = B::FloorMod;
      break;
    case TokenKind::lshift_assign:
      b = B::Shl;
      break;
    case TokenKind::rshift_assign:
      b = B::Shr;
      break;
    default:
      fail(op.span,
           "augmented assignment '" + op.text + "' is not supported; expected a name before '='");
  }
  PVal l = of(resolve_name(name.text, name.span), name.span);
  PVal r = parse_expr();
  PVal v = binary_val(*b, op.text.substr(0, op.text.size() - 1), l, r, name.span);
  finish_assign(name, nullptr, name.span, v, name.span, out);
}

inline void Parser::parse_expr_stmt(std::vector<Stmt>& out) {
  Span s = cur().span;
  if (at_yield_call()) {
    if (nest_ == 0)
      fail(s, "pl.yield_ at the top of a function body reads back as return; write return instead");
    std::vector<Expr> vals = parse_yield_values();
    if (!yields_.empty()) record_yield({}, nullptr, vals, s);
    out.push_back(ir::make_stmt(ir::Yield{std::move(vals)}, s));
    return;
  }
  if (at_path("pl", "func_attr"))
    fail(s, "pl.func_attr must be the first statement of the function body");
  if (at_path("pl", "static_print") || at_path("pl", "static_assert") ||
      at_path("pl", "dump_tag")) {
    parse_dotted("a call");  // compile-time only upstream: no IR
    parse_call_args("this call");
    return;
  }
  if (at(TokenKind::string)) {  // a docstring: kept as the next statement's comment
    std::string text;
    while (at(TokenKind::string)) text += advance().text;
    for (auto& line : docstring_lines(text)) carried_.push_back(std::move(line));
    return;
  }
  eval_tok_ = pos_;
  while (tok(eval_tok_).is(TokenKind::lparen)) ++eval_tok_;
  PVal v = parse_expr();
  eval_tok_ = kNoToken;
  if (at(TokenKind::comma)) fail(cur().span, "a tuple is not a statement");
  out.push_back(ir::make_stmt(ir::Eval{value_expr(v, "an expression statement")}, s));
}

}  // namespace tilewright::text::parser_detail
