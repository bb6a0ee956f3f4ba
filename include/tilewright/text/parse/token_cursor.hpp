#pragma once
// The parser's view of the token stream: the current token, lookahead, the expect/accept
// vocabulary every production uses, the comments that precede a statement, and the depth
// guard that keeps recursive productions off the end of the stack.
//
// Comment lines never enter the stream: the lexer sets them aside, by the index of the token
// they precede, so the grammar never sees them and a statement can claim its own.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tilewright/ir/diagnostic.hpp"
#include "tilewright/ir/span.hpp"
#include "tilewright/text/lexer.hpp"

namespace tilewright::text::parser_detail {

using ir::Span;

inline constexpr int kMaxDepth = 200;

class TokenCursor {
 public:
  TokenCursor(std::string_view src, std::string file)
      : src_(src), file_(file) {
    std::vector<std::pair<std::size_t, std::string>> comments;
    toks_ = text::detail::Scanner(src_, file_).run(&comments);
    for (auto& [before, line] : comments) comments_at_[before].push_back(std::move(line));
  }

 protected:
  struct DepthGuard {
    TokenCursor& p;
    DepthGuard(TokenCursor& parser, const Span& s) : p(parser) {
      if (++p.depth_ > kMaxDepth) {
        --p.depth_;
        p.fail(s, "nesting is too deep (more than " + std::to_string(kMaxDepth) +
                      " levels of brackets, operators, types or blocks)");
      }
    }
    ~DepthGuard() { --p.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
  };

  [[nodiscard]] const Token& cur() const { return toks_[pos_]; }
  [[nodiscard]] const Token& peek(std::size_t n = 1) const {
    return toks_[std::min(pos_ + n, toks_.size() - 1)];
  }
  [[nodiscard]] bool at(TokenKind k) const { return cur().kind == k; }
  [[nodiscard]] bool at_name(std::string_view s) const { return cur().is_name(s); }
  const Token& advance() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool accept(TokenKind k) {
    if (!at(k)) return false;
    advance();
    return true;
  }
  [[nodiscard]] std::size_t prev_end() const {
    if (pos_ == 0) return 0;
    const Token& t = toks_[pos_ - 1];
    return t.offset + t.length;
  }
  [[noreturn]] void fail(const Span& s, std::string msg) const {
    ir::throw_user_error("parser", std::move(msg), s);
  }
  [[noreturn]] void fail_expected(std::string_view what, std::string_view context = {}) const {
    std::string m = "expected ";
    m += what;
    if (!context.empty()) {
      m += ' ';
      m += context;
    }
    m += ", found " + describe(cur());
    fail(cur().span, std::move(m));
  }
  const Token& expect(TokenKind k, std::string_view context = {}) {
    if (!at(k)) fail_expected(token_kind_name(k), context);
    return advance();
  }
  const Token& expect_name(std::string_view what, std::string_view context = {}) {
    if (!at(TokenKind::name)) fail_expected(what, context);
    return advance();
  }
  void expect_keyword(std::string_view kw, std::string_view context = {}) {
    if (!at_name(kw)) fail_expected("'" + std::string(kw) + "'", context);
    advance();
  }
  void expect_line_end(std::string_view context) {
    if (at(TokenKind::end)) return;
    if (!at(TokenKind::newline)) fail_expected("end of line", context);
    advance();
  }
  // A dotted name `a.b.c` starting at the current NAME token.
  std::string parse_dotted(std::string_view what, std::string_view context = {}) {
    std::string path = expect_name(what, context).text;
    while (at(TokenKind::dot)) {
      advance();
      path += '.';
      path += expect_name("a name after '.'").text;
    }
    return path;
  }
  bool at_path(std::string_view a, std::string_view b) const {
    return cur().is_name(a) && peek(1).is(TokenKind::dot) && peek(2).is_name(b);
  }
  std::vector<std::string> take_comments(std::size_t at_index) {
    auto it = comments_at_.find(at_index);
    if (it == comments_at_.end()) return {};
    std::vector<std::string> out = std::move(it->second);
    comments_at_.erase(it);
    return out;
  }
  static bool same_start(const Span& a, const Span& b) {
    return a.line == b.line && a.column == b.column;
  }
  bool at_call_of(std::string_view last) const {
    // `pl.X(` / `X(` where X == last
    std::size_t i = pos_;
    if (!toks_[i].is(TokenKind::name)) return false;
    while (toks_[std::min(i + 1, toks_.size() - 1)].is(TokenKind::dot) &&
           toks_[std::min(i + 2, toks_.size() - 1)].is(TokenKind::name))
      i += 2;
    return toks_[i].text == last && toks_[std::min(i + 1, toks_.size() - 1)].is(TokenKind::lparen);
  }

  std::string_view src_;
  ir::FileName file_;
  std::vector<Token> toks_;
  std::unordered_map<std::size_t, std::vector<std::string>> comments_at_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace tilewright::text::parser_detail
