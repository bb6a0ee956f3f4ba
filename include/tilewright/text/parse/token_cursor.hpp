#pragma once
// The parser's view of the token stream: the current token, lookahead, the expect/accept
// vocabulary every production uses, the comments that precede a statement, and the depth
// guard that keeps recursive productions off the end of the stack.
//
// Comment lines never enter the stream: the lexer sets them aside, by the index of the token
// they precede, so the grammar never sees them and a statement can claim its own.
//
// Tokens are read through a window the scanner refills a line at a time, and released at
// each top-level statement (release_before), so a kernel of 100k statements never holds more
// than one statement's tokens: memory stays flat and the tokens stay in cache. Token indices
// are serial numbers over the whole text; a Checkpoint (a copy of the scanner and the tokens
// read ahead) lets the parser come back to a function body after reading every signature.
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
#include "tilewright/text/parse/token_window.hpp"

namespace tilewright::text::parser_detail {

using ir::Span;

inline constexpr int kMaxDepth = 200;

class TokenCursor {
 public:
  TokenCursor(std::string_view src, std::string file)
      : src_(src), file_(file), scanner_(src_, file_) {}

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

  // A place in the text to read from again: the scanner as it was, and the tokens it had
  // produced past the cursor.
  struct Checkpoint {
    std::size_t pos = 0;
    text::detail::Scanner scanner;
    std::vector<Token> ahead;
    bool scanned_all = false;
  };

  // The token with serial number `i` (the END token for any i past it). References stay
  // valid until the token is released.
  // The parser asks for a token some 20 times per token, so the window's hit stays a few
  // inlined instructions and the scanning is a call.
  [[nodiscard]] const Token& tok(std::size_t i) const {
    if (window_.holds(i)) [[likely]]
      return window_[i];
    return tok_outside_window(i);
  }
  // The token with serial number `i` when the window still holds it, else null: for an
  // index remembered from a statement that may be over.
  [[nodiscard]] const Token* kept(std::size_t i) const { return i >= window_.begin() ? &tok(i) : nullptr; }
  // tok() as a function object, for helpers outside the class.
  [[nodiscard]] auto token_at() const {
    return [this](std::size_t i) -> const Token& { return tok(i); };
  }
  [[nodiscard]] const Token& cur() const { return tok(pos_); }
  [[nodiscard]] const Token& peek(std::size_t n = 1) const { return tok(pos_ + n); }
  [[nodiscard]] bool at(TokenKind k) const { return cur().kind == k; }
  [[nodiscard]] bool at_name(std::string_view s) const { return cur().is_name(s); }
  const Token& advance() {
    const Token& t = cur();
    if (!t.is(TokenKind::end)) ++pos_;
    return t;
  }
  // Drops the tokens before serial `i`: called where no production holds a token or an
  // index before it (between top-level statements of a body).
  void release_before(std::size_t i) { window_.release_before(i); }
  // Whether token `i` is scanned and held (reading it costs no scanning).
  [[nodiscard]] bool scanned(std::size_t i) const { return window_.holds(i); }
  // Skips the rest of a block `depth` indents deep that is not scanned yet: the scanner
  // counts its tokens without making them, and the cursor resumes after the DEDENT closing it.
  void skip_unscanned_block(int depth) {
    scanner_.skip_block(depth);
    while (scanner_.skipping() && !scanned_all_) refill();
    pos_ = scanner_.resume_serial();
  }
  [[nodiscard]] Checkpoint checkpoint() const {
    (void)cur();  // the cursor's token is scanned, so `ahead` starts with it
    Checkpoint c{pos_, scanner_, {}, scanned_all_};
    for (std::size_t i = pos_; i < window_.end(); ++i) c.ahead.push_back(window_[i]);
    return c;
  }
  void restore(const Checkpoint& c) {
    window_.reset(c.pos, c.ahead);
    pos_ = c.pos;
    scanner_ = c.scanner;
    scanned_all_ = c.scanned_all;
  }
  bool accept(TokenKind k) {
    if (!at(k)) return false;
    advance();
    return true;
  }
  [[nodiscard]] std::size_t prev_end() const {
    if (pos_ == 0) return 0;
    const Token& t = tok(pos_ - 1);
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
    (void)tok(at_index);  // the comments before a token are set aside when it is scanned
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
    if (!tok(i).is(TokenKind::name)) return false;
    while (tok(i + 1).is(TokenKind::dot) && tok(i + 2).is(TokenKind::name)) i += 2;
    return tok(i).text == last && tok(i + 1).is(TokenKind::lparen);
  }

  std::string_view src_;
  ir::FileName file_;
  // Filled as the scanner reaches them, hence mutable like the window.
  mutable std::unordered_map<std::size_t, std::vector<std::string>> comments_at_;
  std::size_t pos_ = 0;
  int depth_ = 0;

 private:
  [[gnu::noinline]] const Token& tok_outside_window(std::size_t i) const {
    if (i < window_.begin()) released(i);
    while (i >= window_.end() && !scanned_all_) refill();
    return i < window_.end() ? window_[i] : window_.back();
  }
  void refill() const {
    // A body is scanned twice (skipped while signatures are read, then parsed): its comment
    // lines are set aside the first time only.
    comments_.clear();
    scanner_.scan_more(window_, &comments_);
    if (window_.back().is(TokenKind::end)) scanned_all_ = true;
    for (auto& [before, line] : comments_)
      if (before >= scanned_to_) comments_at_[before].push_back(std::move(line));
    scanned_to_ = std::max(scanned_to_, window_.end());
  }
  [[noreturn]] void released(std::size_t i) const {
    ir::throw_internal_error("parser", "token " + std::to_string(i) +
                                           " was read after its statement released it");
  }

  mutable text::detail::Scanner scanner_;
  mutable TokenWindow window_;
  mutable bool scanned_all_ = false;    // END is in the window
  mutable std::size_t scanned_to_ = 0;  // serials below this were scanned once already
  mutable text::detail::Scanner::CommentsAside comments_;
};

}  // namespace tilewright::text::parser_detail
