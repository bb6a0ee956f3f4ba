#pragma once
// Functions and the module (§1): decorators and signatures first, for every function,
// then the bodies — printed text lists callees first, but user text need not, and
// `self.f(...)` needs f's return types.
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilewright/text/parse/parser_class.hpp"

namespace tilewright::text::parser_detail {

inline void Parser::parse_function_header(FnState& f) {
  // decorator: '@' pl.function [ '(' kwargs ')' ] NEWLINE
  Span ds = expect(TokenKind::at, "to start a decorator").span;
  std::string deco = parse_dotted("a decorator");
  if (deco != "pl.function")
    fail(ds, "unsupported decorator '@" + deco + "'; expected @pl.function");
  Span level_span = ds, role_span = ds;
  if (at(TokenKind::lparen)) {
    CallArgs a = parse_call_args("@pl.function");
    if (!a.pos.empty()) fail(a.pos[0].span, "@pl.function takes keyword arguments only");
    for (std::size_t i = 0; i < a.kw.size(); ++i) {
      const std::string& k = a.kw[i].first;  // not a structured binding: lambdas capture it
      const PVal& v = a.kw[i].second;
      auto member = [&](std::string_view fam) -> std::string {
        auto seg = split_path(v.s);
        if (v.kind != PVal::Kind::path || seg.size() < 2 || seg[seg.size() - 2] != fam)
          fail(v.span, "expected pl." + std::string(fam) + ".<name> for " + k + "=, found " +
                           describe_val(v));
        return std::string(seg.back());
      };
      if (k == "type") {
        auto t = ir::enum_from_name<ir::FunctionType>(member("FunctionType"));
        if (!t) fail(v.span, "unknown function type '" + v.s + "'");
        f.type = *t;
      } else if (k == "level") {
        auto l = ir::level_from_name(member("Level"));
        if (!l) fail(v.span, "unknown level '" + v.s + "'");
        f.level = l;
        level_span = v.span;
      } else if (k == "role") {
        auto r = ir::enum_from_name<ir::Role>(member("Role"));
        if (!r) fail(v.span, "unknown role '" + v.s + "'");
        f.role = r;
        role_span = v.span;
      } else if (k == "auto_scope") {
        auto* b = v.kind == PVal::Kind::expr ? ir::as<ir::ConstBool>(v.e) : nullptr;
        if (!b) fail(v.span, "expected True or False for auto_scope=");
        if (!b->value) f.attrs.emplace_back("auto_scope", false);
      } else if (k == "external_source") {
        if (v.kind != PVal::Kind::str) fail(v.span, "expected a string for external_source=");
        f.attrs.emplace_back("external_source", v.s);
      } else if (k == "strict_ssa") {
        f.strict_ssa = strict_ssa_flag(v);
      } else if (k == "attrs") {
        for (auto& kv : attrs_dict(v)) f.attrs.push_back(std::move(kv));
      } else {
        fail(a.kw_spans[i], "unknown keyword '" + k + "' for @pl.function");
      }
    }
  }
  if (auto implied = ir::implied_placement(f.type)) {
    std::string type = "type=pl.FunctionType." + std::string(ir::name_of(f.type));
    if (f.level && *f.level != implied->level)
      fail(level_span, "a function of " + type + " runs at level=pl.Level." +
                           std::string(ir::name_of(implied->level)) + ", not pl.Level." +
                           std::string(ir::name_of(*f.level)) + "; drop level= or make it agree");
    if (f.role && *f.role != implied->role)
      fail(role_span, "a function of " + type + " has role=pl.Role." +
                          std::string(ir::name_of(implied->role)) + ", not pl.Role." +
                          std::string(ir::name_of(*f.role)) + "; drop role= or make it agree");
    f.level = implied->level;
    f.role = implied->role;
  }
  expect(TokenKind::newline, "after the decorator");
  if (at(TokenKind::at)) fail(cur().span, "only one decorator (@pl.function) is supported");
  expect_keyword("def", "after @pl.function");
  const Token& name = expect_name("a function name");
  f.name = name.text;
  f.span = name.span;
  expect(TokenKind::lparen, "to open the parameter list of '" + f.name + "'");
  bool first = true;
  while (!at(TokenKind::rparen)) {
    const Token& p = expect_name("a parameter name", "in the parameter list of '" + f.name + "'");
    if (first && p.text == "self" && !at(TokenKind::colon)) {
      first = false;
      if (!accept(TokenKind::comma)) break;
      continue;
    }
    first = false;
    if (!at(TokenKind::colon)) fail_expected("':' and a type", "after parameter '" + p.text + "'");
    advance();
    ir::ParamDirection dir = ir::ParamDirection::In;
    Type t;
    {
      TypeCtx tc(*this);
      Span ts = cur().span;
      if (at(TokenKind::name)) {
        std::size_t save = pos_;
        std::string path = parse_dotted("a type");
        auto last = split_path(path).back();
        if ((last == "Out" || last == "InOut") && at(TokenKind::lbracket)) {
          advance();
          dir = last == "Out" ? ir::ParamDirection::Out : ir::ParamDirection::InOut;
          t = parse_type();
          expect(TokenKind::rbracket, "to close " + path + "[...]");
        } else {
          pos_ = save;
          t = parse_type();
        }
      } else {
        t = parse_type();
      }
      if (!t) fail(ts, "parameter '" + p.text + "' needs a real type annotation, not a string");
      if (ir::as<ir::TupleType>(t)) fail(ts, "a tuple is not allowed as a parameter type");
      if (dir == ir::ParamDirection::InOut && ir::as<ir::ScalarType>(t))
        fail(ts, "a scalar parameter cannot be pl.InOut");
    }
    if (at(TokenKind::assign)) fail(cur().span, "default parameter values are not supported");
    if (f.scope.count(p.text)) fail(p.span, "duplicate parameter '" + p.text + "'");
    Expr var = ir::make_var(p.text, t, p.span);
    f.scope[p.text] = var;
    f.params.push_back(ir::Param{var, dir});
    if (!accept(TokenKind::comma)) break;
  }
  expect(TokenKind::rparen, "to close the parameter list of '" + f.name + "'");
  if (accept(TokenKind::arrow)) {
    TypeCtx tc(*this);
    Span rs = cur().span;
    if (at_name("None")) {
      advance();
    } else if (at_name("tuple") && peek().is(TokenKind::lbracket)) {
      advance();
      advance();
      while (!at(TokenKind::rbracket)) {
        Span es = cur().span;
        Type t = parse_type();
        if (!t) fail(es, "a string is not a return type");
        f.returns.push_back(t);
        if (!accept(TokenKind::comma)) break;
      }
      expect(TokenKind::rbracket, "to close tuple[...]");
    } else {
      Type t = parse_type();
      if (!t) fail(rs, "a string is not a return type");
      f.returns.push_back(t);
    }
  }
  expect(TokenKind::colon, "after the signature of '" + f.name + "'");
  f.body = checkpoint();
  skip_body();
}

inline void Parser::skip_body() {
  if (!accept(TokenKind::newline)) {
    while (!at(TokenKind::newline) && !at(TokenKind::end)) advance();
    accept(TokenKind::newline);
    return;
  }
  if (!at(TokenKind::indent)) fail_expected("an indented block", "for the function body");
  // The body is read again from its checkpoint: here its tokens are walked only as far as
  // they are scanned already, and the scanner counts the rest without making them.
  int depth = 0;
  do {
    if (!scanned(pos_)) return skip_unscanned_block(depth);
    if (at(TokenKind::indent))
      ++depth;
    else if (at(TokenKind::dedent))
      --depth;
    else if (at(TokenKind::end))
      fail_expected("the end of the function body");
    advance();
    release_before(pos_);
  } while (depth > 0);
}

inline bool Parser::strict_ssa_flag(const PVal& v) const {
  auto* b = v.kind == PVal::Kind::expr ? ir::as<ir::ConstBool>(v.e) : nullptr;
  if (!b) fail(v.span, "expected True or False for strict_ssa=");
  return b->value;
}

inline ir::Function Parser::parse_function_body(FnState& f) {
  fn_ = &f;
  restore(*f.body);
  nest_ = 0;
  // In a program only the program's own strict_ssa counts (text_format §1.4).
  strict_ssa_ = program_strict_ssa_ ? *program_strict_ssa_ : f.strict_ssa.value_or(false);
  block_ = 0;
  std::vector<Stmt> body;
  auto func_attr = [&] {
    if (!(at_path("pl", "func_attr") && peek(3).is(TokenKind::lparen))) return;
    std::vector<std::string> c = take_comments(pos_);
    parse_dotted("pl.func_attr");
    CallArgs a = parse_call_args("pl.func_attr");
    no_kwargs(a, "pl.func_attr");
    arity(a, 1, 1, "pl.func_attr", a.close);
    for (auto& kv : attrs_dict(a.pos[0])) f.attrs.push_back(std::move(kv));
    expect_line_end("after pl.func_attr(...)");
  };
  if (accept(TokenKind::newline)) {
    DepthGuard g(*this, cur().span);
    expect(TokenKind::indent, "for the body of '" + f.name + "'");
    while (at(TokenKind::string)) {  // docstrings before pl.func_attr
      std::size_t before = body.size();
      parse_statement(body);
      (void)before;
    }
    func_attr();
    block_rest(body);
  } else {
    parse_simple_line(body);
  }
  carried_.clear();
  fn_ = nullptr;
  return ir::make_function(ir::FunctionNode{f.name, f.params, f.returns,
                                            ir::make_seq(std::move(body), f.span), f.type, f.level,
                                            f.role, f.attrs, f.span});
}

// `NAME = pl.dynamic("NAME")` declares a program-level dimension; `NAME = <constant>` a
// module constant (`CHUNK = 16`), which reads as its value wherever the name appears, as
// Python's evaluation of the module would give it.
inline void Parser::parse_module_assign() {
  const Token& name = advance();
  advance();  // '='
  if (lookup_bound(name.text) || consts_.count(name.text))
    fail(name.span, "'" + name.text + "' is already defined at the top level");
  if (at_path("pl", "dynamic")) return parse_dynamic_decl(name);
  PVal v = parse_expr();
  auto value = fold_constant(v.kind == PVal::Kind::expr ? v.e : nullptr);
  if (!value)
    fail(v.span, "a top-level assignment must be 'NAME = pl.dynamic(\"NAME\")' or a constant such as " +
                     name.text + " = 16 (a number or bool, or arithmetic on them), found " + describe_val(v));
  consts_.emplace(name.text, value);
  expect_line_end("after the top-level assignment");
}

inline void Parser::parse_dynamic_decl(const Token& name) {
  Span s = cur().span;
  parse_dotted("pl.dynamic");
  CallArgs a = parse_call_args("pl.dynamic");
  if (a.pos.size() != 1 || a.pos[0].kind != PVal::Kind::str)
    fail(s, "pl.dynamic takes one string argument, the dimension's name");
  // The printer writes `N = pl.dynamic("N")` from the one name the Var has, so a different
  // string could not be printed back.
  if (a.pos[0].s != name.text)
    fail(a.pos[0].span, "pl.dynamic must repeat the name it is assigned to: write " + name.text +
                            " = pl.dynamic(\"" + name.text + "\")");
  if (!dyn_.count(name.text))
    dyn_.emplace(name.text,
                 ir::make_var(name.text, ir::scalar_type(ir::DataType::INDEX), name.span));
  expect_line_end("after the pl.dynamic declaration");
}

inline void Parser::skip_import() {
  while (!at(TokenKind::newline) && !at(TokenKind::end)) advance();
  accept(TokenKind::newline);
}

inline ir::Program Parser::run() {
  std::string program_name;
  bool have_program = false, have_function = false;
  while (!at(TokenKind::end)) {
    if (accept(TokenKind::newline)) continue;
    if (at_name("import") || at_name("from")) {
      skip_import();
      continue;
    }
    if (at(TokenKind::name) && peek().is(TokenKind::assign)) {
      if (have_program || have_function)
        fail(cur().span, "pl.dynamic declarations and module constants must come before the program");
      parse_module_assign();
      continue;
    }
    if (at(TokenKind::string)) {  // a module docstring: outside the program, so it is not kept
      skip_import();
      continue;
    }
    if (at(TokenKind::at)) {
      if (have_program || have_function)
        fail(cur().span, "the text must contain exactly one @pl.program or one @pl.function");
      if (peek().is_name("pl") && peek(3).is_name("program")) {
        advance();
        parse_dotted("pl.program");
        if (at(TokenKind::lparen)) {
          CallArgs a = parse_call_args("@pl.program");
          for (std::size_t i = 0; i < a.kw.size(); ++i) {
            if (a.kw[i].first != "strict_ssa")
              fail(a.kw_spans[i], "unknown keyword '" + a.kw[i].first + "' for @pl.program");
            program_strict_ssa_ = strict_ssa_flag(a.kw[i].second);
          }
          if (!a.pos.empty()) fail(a.pos[0].span, "@pl.program takes keyword arguments only");
        }
        expect(TokenKind::newline, "after @pl.program");
        expect_keyword("class", "after @pl.program");
        program_name = expect_name("a class name").text;
        if (accept(TokenKind::lparen)) expect(TokenKind::rparen, "(a program class has no bases)");
        expect(TokenKind::colon, "after the class name");
        expect(TokenKind::newline, "after 'class " + program_name + ":'");
        expect(TokenKind::indent, "for the body of class " + program_name);
        {
          DepthGuard g(*this, cur().span);
          while (!at(TokenKind::dedent) && !at(TokenKind::end)) {
            if (at(TokenKind::string) || at_name("pass")) {
              skip_import();
              continue;
            }
            if (!at(TokenKind::at)) fail_expected("'@pl.function'", "in the program class");
            FnState f;
            fn_ = &f;
            parse_function_header(f);
            fn_ = nullptr;
            for (const auto& g2 : fns_)
              if (g2.name == f.name) fail(f.span, "duplicate function '" + f.name + "'");
            fns_.push_back(std::move(f));
          }
          expect(TokenKind::dedent, "to end the program class");
        }
        have_program = true;
        continue;
      }
      FnState f;
      fn_ = &f;
      parse_function_header(f);
      fn_ = nullptr;
      fns_.push_back(std::move(f));
      have_function = true;
      continue;
    }
    fail_expected("'@pl.program', '@pl.function', an import or a pl.dynamic declaration",
                  "at the top level");
  }
  if (!have_program && !have_function) fail(cur().span, "no @pl.program or @pl.function found");
  Checkpoint end = checkpoint();
  std::vector<ir::Function> fns;
  fns.reserve(fns_.size());
  for (auto& f : fns_) fns.push_back(parse_function_body(f));
  restore(end);
  return ir::make_program(program_name, std::move(fns));
}

}  // namespace tilewright::text::parser_detail
