#pragma once
// Compound statements (§3.3–§3.7): if/else, for over pl.range and friends, both while
// forms, with-scopes, and the yields that name their return vars. A yield-assignment
// (`r: T = pl.yield_(v)`) records its names on a stack of contexts; the construct creates the
// return Vars once its body is complete.
#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilewright/text/parse/annotations.hpp"
#include "tilewright/text/parse/parser_class.hpp"

namespace tilewright::text::parser_detail {

inline bool Parser::at_yield_call() const {
  return at_path("pl", "yield_") && peek(3).is(TokenKind::lparen);
}

inline std::vector<Expr> Parser::parse_yield_values() {
  parse_dotted("pl.yield_");
  CallArgs a = parse_call_args("pl.yield_");
  no_kwargs(a, "pl.yield_");
  std::vector<Expr> vals;
  for (const auto& v : a.pos) vals.push_back(value_expr(v, "a yielded value"));
  return vals;
}

inline void Parser::record_yield(std::vector<const Token*> names, Type ann,
                                 const std::vector<Expr>& vals, const Span& s) {
  if (yields_.empty()) fail(s, "pl.yield_ with targets must be inside a for, while or if body");
  if (!names.empty() && names.size() != vals.size())
    fail(s, std::to_string(names.size()) + " targets cannot receive " +
                std::to_string(vals.size()) + " yielded values");
  YieldRec r;
  r.span = s;
  for (std::size_t i = 0; i < names.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (names[i]->text == names[j]->text)
        fail(names[i]->span, "'" + names[i]->text + "' is assigned twice by one pl.yield_");
  for (const Token* n : names) {
    r.names.push_back(n->text);
    r.spans.push_back(n->span);
    r.ann.push_back(ann);
  }
  for (const auto& v : vals) r.values.push_back(v->type);
  yields_.back().recs.push_back(std::move(r));
}

// The Yield that closes a block: its last statement, looking through trailing pl.scope blocks
// (the printer gives only that one the assignment form, §3.3, §3.7).
inline const ir::StmtNode* Parser::closing_yield(const std::vector<Stmt>& body) {
  if (body.empty()) return nullptr;
  const Stmt* last = ir::closing_stmt(body.back());
  return last && ir::as<ir::Yield>(*last) ? last->get() : nullptr;
}

// Marks the closing yield of `body` among the records, and rejects targets anywhere else:
// a yield in the middle of a block prints bare, so its targets would be lost.
inline void Parser::check_closing_yields(YieldCtx& c, const std::vector<Stmt>& body,
                                         std::string_view block) const {
  const ir::StmtNode* tail = closing_yield(body);
  for (auto& r : c.recs) {
    r.closing = tail && same_start(tail->span, r.span);
    if (!r.names.empty() && !r.closing)
      fail(r.span, "pl.yield_ with targets must be the last statement of " + std::string(block) +
                       "; a yield elsewhere cannot assign names");
  }
}

inline std::string Parser::target_list(const std::vector<std::string>& names) {
  std::string o = "(";
  for (std::size_t i = 0; i < names.size(); ++i) o += (i ? ", " : "") + names[i];
  return o + ")";
}

inline Expr Parser::bool_cond(const PVal& v, std::string_view what) {
  Expr e = value_expr(v, what);
  auto* st = ir::as<ir::ScalarType>(e->type);
  if (!st || st->dtype != ir::DataType::BOOL)
    fail(v.span, std::string(what) + " must be a pl.BOOL scalar, found a value of type " +
                     type_text(e->type));
  return e;
}

inline void Parser::parse_if(std::vector<Stmt>& out) {
  DepthGuard g(*this, cur().span);
  Span s = advance().span;  // 'if' or 'elif'
  Expr cond = bool_cond(parse_expr(), "an if condition");
  expect(TokenKind::colon, "after the if condition");
  yields_.push_back(YieldCtx{});
  std::vector<Stmt> then_body = parse_suite("if");
  YieldCtx then_ctx = std::move(yields_.back());
  yields_.pop_back();
  Stmt else_body;
  YieldCtx else_ctx;
  if (at_name("elif")) {
    yields_.push_back(YieldCtx{});
    std::vector<Stmt> e;
    parse_if(e);
    else_ctx = std::move(yields_.back());
    yields_.pop_back();
    else_body = ir::make_seq(std::move(e), s);
  } else if (at_name("else")) {
    advance();
    expect(TokenKind::colon, "after 'else'");
    yields_.push_back(YieldCtx{});
    else_body = ir::make_seq(parse_suite("else"), s);
    else_ctx = std::move(yields_.back());
    yields_.pop_back();
  }
  // Return vars (§3.6): the names the branches' closing yields assign. The printer writes
  // one target list for both branches, so the branches must agree on it.
  check_closing_yields(then_ctx, then_body, "an if branch");
  check_closing_yields(else_ctx, else_body ? ir::body_stmts(else_body) : std::vector<Stmt>{},
                       "an else branch");
  const YieldRec* named = nullptr;
  std::vector<Type> types;
  std::vector<bool> annotated;  // per name: has a yield's annotation set its type
  for (const YieldCtx* c : {&then_ctx, &else_ctx})
    for (const auto& r : c->recs) {
      if (r.names.empty()) continue;
      if (!named) {
        named = &r;
        for (std::size_t i = 0; i < r.names.size(); ++i) {
          types.push_back(r.ann[i] ? r.ann[i] : r.values[i]);
          annotated.push_back(static_cast<bool>(r.ann[i]));
        }
      } else if (r.names != named->names) {
        fail(r.span, "this branch yields to " + target_list(r.names) + " but the other one to " +
                         target_list(named->names) +
                         "; both branches of an if must yield to the same names");
      } else {
        for (std::size_t i = 0; i < r.names.size(); ++i) {
          if (!r.ann[i]) continue;
          // One return var per name, printed with one annotation in both branches: two
          // different annotations cannot both stand.
          if (annotated[i] && ir::type_difference(types[i], r.ann[i]))
            fail(r.spans[i], "the branches of this if annotate '" + r.names[i] + "' as " +
                                 type_text(types[i]) + " and " + type_text(r.ann[i]) +
                                 "; an if's result has one type: give both yields the same annotation");
          types[i] = r.ann[i];
          annotated[i] = true;
        }
      }
    }
  std::vector<Expr> rvs;
  if (named && !else_body)
    fail(named->span, "this if assigns " + target_list(named->names) +
                          " with pl.yield_ but has no else branch, so they would have no value when the "
                          "condition is false; add an else branch that yields them too");
  if (named) {
    // Each branch gives the names their value there: a branch without a closing yield would
    // leave them unset when it runs.
    auto check_ends_in_yield = [&](const YieldCtx& c, const std::vector<Stmt>& body, std::string_view branch) {
      for (const auto& r : c.recs)
        if (r.closing) return;
      const Span at = body.empty() || !body.back() ? s : body.back()->span;
      fail(at, "this if assigns " + target_list(named->names) + " with pl.yield_, but its " +
                   std::string(branch) + " does not end with a pl.yield_ of them, so they would have no "
                   "value when it runs; end both branches with pl.yield_(...) of " +
                   std::to_string(named->names.size()) + " value(s)");
    };
    check_ends_in_yield(then_ctx, then_body, "if branch");
    check_ends_in_yield(else_ctx, ir::body_stmts(else_body), "else branch");
    for (const YieldCtx* c : {&then_ctx, &else_ctx})
      for (const auto& r : c->recs)
        if (r.closing && r.values.size() != named->names.size())
          fail(r.span, "this branch yields " + std::to_string(r.values.size()) +
                           " values but the if assigns " + std::to_string(named->names.size()) +
                           " " + target_list(named->names));
    // The printer writes the result's type as the annotation of both branches' yields, so
    // each yielded value must stand under it as under any annotation: a branch yielding a
    // pl.INT32 where the other settles pl.INDEX would print text that does not read back.
    for (const YieldCtx* c : {&then_ctx, &else_ctx})
      for (const auto& r : c->recs)
        if (r.closing)
          for (std::size_t i = 0; i < r.values.size(); ++i)
            if (Reconciled m = reconcile_annotation(types[i], r.values[i]); !m.problem.empty())
              fail(r.span, "the if's result '" + named->names[i] + "' has type " + type_text(types[i]) +
                               ", but this branch yields a value of type " + type_text(r.values[i]) +
                               ": " + m.problem +
                               "; make both branches yield one type (convert with pl.cast)");
    for (std::size_t i = 0; i < named->names.size(); ++i)
      rvs.push_back(fresh(named->names[i], types[i], named->spans[i]));
  }
  out.push_back(ir::make_stmt(
      ir::If{cond, ir::make_seq(std::move(then_body), s), else_body, std::move(rvs)}, s));
}

inline Target Parser::parse_target_atom() {
  DepthGuard g(*this, cur().span);
  Target t;
  t.span = cur().span;
  if (at(TokenKind::name) && !is_python_keyword(cur().text)) {
    t.name = advance().text;
    return t;
  }
  if (accept(TokenKind::lparen)) {
    if (accept(TokenKind::rparen)) {
      t.is_tuple = true;
      return t;
    }
    Target inner = parse_target_list(TokenKind::rparen);
    expect(TokenKind::rparen, "to close the loop target");
    return inner;
  }
  fail_expected("a loop target name");
}

inline Target Parser::parse_target_list(TokenKind stop) {
  Span s = cur().span;
  Target first = parse_target_atom();
  if (!at(TokenKind::comma)) return first;
  Target t;
  t.is_tuple = true;
  t.span = s;
  t.items.push_back(std::move(first));
  while (accept(TokenKind::comma)) {
    if (at(stop) || at_name("in")) break;
    t.items.push_back(parse_target_atom());
  }
  return t;
}

inline std::vector<Expr> Parser::init_values(const PVal* v) {
  std::vector<Expr> out;
  if (!v) return out;
  if (v->kind != PVal::Kind::list)
    fail(v->span, "init_values must be a tuple or list, found " + describe_val(*v));
  for (const auto& it : v->items) out.push_back(value_expr(it, "an init value"));
  return out;
}

inline std::vector<Expr> Parser::make_iter_args(const std::vector<Target>& names,
                                                const std::vector<Expr>& inits, const Span& s) {
  if (names.size() != inits.size())
    fail(s, "the loop carries " + std::to_string(names.size()) + " values but init_values has " +
                std::to_string(inits.size()));
  std::vector<Expr> out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i].is_tuple) fail(names[i].span, "expected a name for a loop-carried value");
    Expr ia = ir::make_iter_arg(names[i].name, inits[i]->type, inits[i], names[i].span);
    fn_->scope[names[i].name] = ia;
    out.push_back(ia);
  }
  return out;
}

inline std::vector<Expr> Parser::loop_return_vars(const YieldCtx& c,
                                                  const std::vector<Expr>& iter_args,
                                                  const Span& loop) {
  // A carried value reaches the next trip and the results only through the closing yield;
  // without one the loop's results would be names nothing assigns.
  if (!iter_args.empty() &&
      std::none_of(c.recs.begin(), c.recs.end(), [](const YieldRec& r) { return r.closing; })) {
    std::string targets;
    for (std::size_t i = 0; i < iter_args.size(); ++i)
      targets += (i ? ", " : "") + std::string(ir::name_hint(iter_args[i])) + "_out";
    fail(loop, "a loop carrying values must end its body with a pl.yield_ of the next values: add " +
                   targets + " = pl.yield_(...) as its last statement, one value per init_values entry");
  }
  const YieldRec* named = nullptr;
  for (const auto& r : c.recs) {
    if (r.values.size() != iter_args.size())
      fail(r.span, "pl.yield_ yields " + std::to_string(r.values.size()) +
                       " values but the loop carries " + std::to_string(iter_args.size()));
    if (!named && !r.names.empty()) named = &r;
    // The loop's results are the names its closing yield assigns (upstream's DSL requires
    // the assignment form); a bare closing yield would leave them nameless, and the text after
    // the loop could only reach a body variable.
    if (r.closing && r.names.empty() && !iter_args.empty()) {
      std::string targets;
      for (std::size_t i = 0; i < iter_args.size(); ++i)
        targets += (i ? ", " : "") + std::string(ir::name_hint(iter_args[i])) + "_out";
      fail(r.span, "the pl.yield_ that closes a loop carrying values must assign its results: write " +
                       targets + " = pl.yield_(...), one name per value in init_values");
    }
  }
  std::vector<Expr> rvs;
  for (std::size_t i = 0; i < iter_args.size(); ++i) {
    std::string n = named ? named->names[i] : std::string(ir::name_hint(iter_args[i])) + "_out";
    Span sp = named ? named->spans[i] : iter_args[i]->span;
    // A result's annotation is checked as an assignment's is (§6.4); a contradiction is an error.
    Type t = iter_args[i]->type;
    if (named && named->ann[i]) {
      Reconciled r = reconcile_annotation(named->ann[i], t);
      if (!r.problem.empty()) annotation_conflict(named->names[i], named->ann[i], t, r.problem, sp);
      t = types_(r.type);
      // Only a lone result prints annotated: once a loop has two (ConvertToSSA adds carries),
      // the target list is bare and each result reads back with its carry's type. So a result
      // is its carry's type, but for its buffer: upstream prints results with a memref of
      // their own, and a reread compares buffers by shape, not by name.
      if (auto d = ir::type_difference(t, iter_args[i]->type, ir::Buffers::ignored))
        fail(sp, "the loop's result '" + n + "' is annotated " + type_text(named->ann[i]) +
                     ", but its carry '" + std::string(ir::name_hint(iter_args[i])) + "' has type " +
                     type_text(iter_args[i]->type) + ", its init value's (they differ in " + *d +
                     "); a loop's result has its carry's type: start the carry from a value of the "
                     "annotated type (an int literal as pl.const(0, pl.INT32), say) or annotate the result " +
                     type_text(iter_args[i]->type));
    }
    // The printer writes the result's type as the closing yield's annotation, so the yielded
    // value must stand under it (an unannotated yield of a pl.INT64 into an pl.INT32 carry
    // would print text that does not read back).
    for (const auto& r : c.recs)
      if (r.closing)
        if (Reconciled m = reconcile_annotation(t, r.values[i]); !m.problem.empty())
          fail(r.span, "the loop's result '" + n + "' has type " + type_text(t) +
                           (named && named->ann[i] ? "" : ", its init value's,") +
                           " but the closing pl.yield_ gives a value of type " + type_text(r.values[i]) +
                           ": " + m.problem +
                           "; yield a value of that type (convert with pl.cast) or start the loop from one of "
                           "the yielded type");
    rvs.push_back(ir::make_var(n, t, sp));
  }
  for (const auto& rv : rvs) fn_->scope[std::string(ir::name_hint(rv))] = rv;
  return rvs;
}

inline void Parser::parse_for(std::vector<Stmt>& out) {
  DepthGuard g(*this, cur().span);
  Span s = advance().span;
  Target tgt = parse_target_list(TokenKind::end);
  expect_keyword("in", "after the loop target");
  if (!at_name("pl"))
    fail_expected(
        "pl.range, pl.parallel, pl.unroll, pl.pipeline, pl.while_, pl.spmd or pl.split_aiv");
  Span is = cur().span;
  std::string it = parse_dotted("a loop iterator");
  std::string kind = it.substr(it.find('.') == std::string::npos ? 0 : it.find('.') + 1);
  if (kind == "while_") return parse_while_loop(tgt, s, out);
  if (kind == "spmd" || kind == "split_aiv") return parse_scope_loop(tgt, kind, s, out);
  auto fk = ir::enum_from_name<ir::ForKind>(kind);
  if (!fk || split_path(it).size() != 2)
    fail(is, "unknown loop iterator '" + it +
                 "'; expected pl.range, pl.parallel, pl.unroll, pl.pipeline, "
                 "pl.while_, pl.spmd or pl.split_aiv");
  CallArgs a = parse_call_args(it);
  arity(a, 1, 3, it, is);
  std::vector<Expr> b;
  for (const auto& p : a.pos) {
    Expr e = value_expr(p, "a loop bound");
    auto* st = ir::as<ir::ScalarType>(e->type);
    if (!st || !ir::is_integer(st->dtype))
      fail(p.span, "a loop bound must be an integer scalar, found " + describe_val(p));
    b.push_back(e);
  }
  Expr start = b.size() >= 2 ? b[0] : ir::make_int(0, ir::DataType::INDEX, is);
  Expr stop = b.size() >= 2 ? b[1] : b[0];
  Expr step = b.size() == 3 ? b[2] : ir::make_int(1, ir::DataType::INDEX, is);
  ir::Kwargs attrs;
  const PVal* inits = nullptr;
  for (std::size_t i = 0; i < a.kw.size(); ++i) {
    const auto& [k, v] = a.kw[i];
    if (k == "init_values") {
      inits = &v;
    } else if (k == "stage") {
      auto* c = v.kind == PVal::Kind::expr && v.literal ? ir::as<ir::ConstInt>(v.e) : nullptr;
      if (!c || c->value < 1) fail(v.span, "stage= must be an integer literal of at least 1");
      if (*fk != ir::ForKind::pipeline)
        fail(a.kw_spans[i], "stage= is only allowed on pl.pipeline");
      attrs.emplace(attrs.begin(), "pipeline_stages", c->value);
    } else if (k == "attrs") {
      for (auto& kv : attrs_dict(v)) attrs.push_back(std::move(kv));
    } else {
      fail(a.kw_spans[i], "unknown keyword '" + k + "' for " + it + " (init_values, stage, attrs)");
    }
  }
  std::vector<Expr> init = init_values(inits);
  expect(TokenKind::colon, "after the loop header");
  const Target* loop_name = &tgt;
  std::vector<Target> carried;
  if (tgt.is_tuple) {
    if (tgt.items.size() != 2 || tgt.items[0].is_tuple || !tgt.items[1].is_tuple)
      fail(tgt.span, "expected 'i' or 'i, (a, b)' as the loop target");
    loop_name = &tgt.items[0];
    carried = tgt.items[1].items;
  }
  if (carried.empty() && !init.empty())
    fail(tgt.span, "init_values needs loop-carried names: 'for i, (a,) in ...'");
  if (*fk == ir::ForKind::unroll && !init.empty()) fail(is, "pl.unroll does not take init_values");
  auto is64 = [](const Expr& e) {
    auto* st = ir::as<ir::ScalarType>(e->type);
    return st && st->dtype == ir::DataType::INT64;
  };
  ir::DataType ldt =
      is64(start) || is64(stop) || is64(step) ? ir::DataType::INT64 : ir::DataType::INDEX;
  Expr lv = fresh(loop_name->name, ir::scalar_type(ldt), loop_name->span);
  std::vector<Expr> ias = make_iter_args(carried, init, tgt.span);
  yields_.push_back(YieldCtx{});
  std::vector<Stmt> body = parse_suite("for");
  YieldCtx ctx = std::move(yields_.back());
  yields_.pop_back();
  check_closing_yields(ctx, body, "a for body");
  std::vector<Expr> rvs = loop_return_vars(ctx, ias, s);
  out.push_back(ir::make_stmt(ir::For{lv, start, stop, step, ias, ir::make_seq(std::move(body), s),
                                      std::move(rvs), *fk, std::move(attrs)},
                              s));
}

inline void Parser::parse_while_loop(const Target& tgt, const Span& s, std::vector<Stmt>& out) {
  CallArgs a = parse_call_args("pl.while_");
  if (!a.pos.empty()) fail(a.pos[0].span, "pl.while_ takes only init_values=");
  const PVal* inits = nullptr;
  for (std::size_t i = 0; i < a.kw.size(); ++i) {
    if (a.kw[i].first != "init_values") fail(a.kw_spans[i], "pl.while_ takes only init_values=");
    inits = &a.kw[i].second;
  }
  std::vector<Expr> init = init_values(inits);
  std::vector<Target> names = tgt.is_tuple ? tgt.items : std::vector<Target>{tgt};
  expect(TokenKind::colon, "after the loop header");
  std::vector<Expr> ias = make_iter_args(names, init, tgt.span);
  if (!accept(TokenKind::newline))
    fail_expected("a new line", "after 'pl.while_(...):' (the body must start with pl.cond)");
  DepthGuard g(*this, cur().span);
  expect(TokenKind::indent, "for the body of pl.while_");
  std::vector<std::string> cond_comments = take_comments(pos_);
  (void)cond_comments;
  if (!(at_path("pl", "cond") && peek(3).is(TokenKind::lparen)))
    fail_expected("pl.cond(...)", "as the first statement of a pl.while_ body");
  Span cs = cur().span;
  parse_dotted("pl.cond");
  CallArgs c = parse_call_args("pl.cond");
  no_kwargs(c, "pl.cond");
  arity(c, 1, 1, "pl.cond", cs);
  Expr cond = bool_cond(c.pos[0], "the pl.while_ condition");
  expect_line_end("after pl.cond(...)");
  yields_.push_back(YieldCtx{});
  std::vector<Stmt> body;
  ++nest_;
  block_rest(body);
  --nest_;
  YieldCtx ctx = std::move(yields_.back());
  yields_.pop_back();
  check_closing_yields(ctx, body, "a pl.while_ body");
  std::vector<Expr> rvs = loop_return_vars(ctx, ias, s);
  out.push_back(
      ir::make_stmt(ir::While{ias, cond, ir::make_seq(std::move(body), s), std::move(rvs)}, s));
}

inline void Parser::parse_while(std::vector<Stmt>& out) {
  DepthGuard g(*this, cur().span);
  Span s = advance().span;
  Expr cond = bool_cond(parse_expr(), "a while condition");
  expect(TokenKind::colon, "after the while condition");
  yields_.push_back(YieldCtx{});
  std::vector<Stmt> body = parse_suite("while");
  YieldCtx ctx = std::move(yields_.back());
  yields_.pop_back();
  check_closing_yields(ctx, body, "a while body");
  loop_return_vars(ctx, {}, s);
  out.push_back(ir::make_stmt(ir::While{{}, cond, ir::make_seq(std::move(body), s), {}}, s));
}

inline ir::Kwargs Parser::scope_params(const CallArgs& a, std::vector<Expr>* args,
                                       bool enum_positionals) {
  ir::Kwargs params;
  for (const auto& p : a.pos) {
    if (enum_positionals && p.kind == PVal::Kind::path) {
      auto seg = split_path(p.s);
      std::string fam = seg.size() >= 2 ? std::string(seg[seg.size() - 2]) : std::string();
      if (fam == "Level")
        params.emplace_back("level", ir::EnumText{p.s});
      else if (fam == "Role")
        params.emplace_back("role", ir::EnumText{p.s});
      else
        fail(p.span, "unexpected positional argument '" + p.s + "'");
      continue;
    }
    args->push_back(value_expr(p, "a scope argument"));
  }
  for (const auto& [k, v] : a.kw) params.emplace_back(k, attr_value(k, v, nullptr));
  return params;
}

inline void Parser::parse_scope_loop(const Target& tgt, const std::string& kind, const Span& s,
                                     std::vector<Stmt>& out) {
  if (tgt.is_tuple) fail(tgt.span, "expected a single name as the target of pl." + kind);
  CallArgs a = parse_call_args("pl." + kind);
  std::vector<Expr> args;
  ir::Kwargs params = scope_params(a, &args, false);
  expect(TokenKind::colon, "after the pl." + kind + " header");
  Expr bound = fresh(tgt.name, ir::scalar_type(ir::DataType::INDEX), tgt.span);
  std::vector<Stmt> body = parse_suite("pl." + kind);
  out.push_back(ir::make_stmt(
      ir::Scope{kind == "spmd" ? ir::ScopeKind::spmd_for : ir::ScopeKind::split_aiv,
                std::move(args), std::move(params), bound, ir::make_seq(std::move(body), s)},
      s));
}

inline void Parser::parse_with(std::vector<Stmt>& out) {
  DepthGuard g(*this, cur().span);
  Span s = advance().span;
  if (!at_name("pl"))
    fail_expected("pl.at, pl.cluster, pl.spmd, pl.scope or pl.manual_scope", "after 'with'");
  Span ps = cur().span;
  std::string path = parse_dotted("a scope");
  std::string kind = path.size() > 3 ? path.substr(3) : std::string();
  ir::ScopeKind sk;
  if (kind == "at")
    sk = ir::ScopeKind::at;
  else if (kind == "cluster")
    sk = ir::ScopeKind::cluster;
  else if (kind == "spmd")
    sk = ir::ScopeKind::spmd;
  else if (kind == "scope")
    sk = ir::ScopeKind::scope;
  else if (kind == "manual_scope")
    sk = ir::ScopeKind::manual_scope;
  else
    fail(ps, "unknown scope '" + path +
                 "'; expected pl.at, pl.cluster, pl.spmd, pl.scope or pl.manual_scope");
  CallArgs a = parse_call_args(path);
  if (sk == ir::ScopeKind::scope) {
    if (const PVal* m = kwarg(a, "mode")) {
      if (m->kind != PVal::Kind::path ||
          (m->s != "pl.ScopeMode.MANUAL" && m->s != "pl.ScopeMode.AUTO"))
        fail(m->span, "expected pl.ScopeMode.AUTO or pl.ScopeMode.MANUAL for mode=, found " +
                          describe_val(*m));
      if (m->s == "pl.ScopeMode.MANUAL") sk = ir::ScopeKind::manual_scope;
      drop_kwarg(a, "mode");
    }
  }
  std::vector<Expr> args;
  ir::Kwargs params = scope_params(a, &args, sk == ir::ScopeKind::at);
  Expr bound;
  const Token* as_name = nullptr;
  if (at_name("as")) {
    advance();
    as_name = &expect_name("a name", "after 'as'");
    if (sk != ir::ScopeKind::at && sk != ir::ScopeKind::spmd)
      fail(as_name->span, "'as' is only allowed on pl.at and pl.spmd");
  }
  expect(TokenKind::colon, "after the with header");
  if (as_name) bound = fresh(as_name->text, ir::scalar_type(ir::DataType::TASK_ID), as_name->span);
  std::vector<Stmt> body = parse_suite(path);
  out.push_back(ir::make_stmt(
      ir::Scope{sk, std::move(args), std::move(params), bound, ir::make_seq(std::move(body), s)},
      s));
}

}  // namespace tilewright::text::parser_detail
