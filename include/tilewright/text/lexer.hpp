#pragma once
// Tokenizer for PyPTO's `pl` text (a subset of Python's lexical grammar).
//
// It accepts both the raw printer layout and the ruff-formatted one, so it follows
// Python's rules where they matter for layout: implicit line joining inside brackets,
// backslash continuation, INDENT/DEDENT from a stack of indentation widths, blank and
// comment-only lines being invisible to the indentation logic, both quote styles.
//
// Comment-only lines are kept as COMMENT tokens because the printer writes leading
// comments that must survive a round trip. Each one is emitted right before the first
// token of the statement that follows it, i.e. after that statement's INDENT/DEDENT
// tokens, so the parser can attach pending comments when it starts a statement.
// Comments that follow the last statement are emitted just before END. Trailing
// comments on a code line and comments inside brackets carry nothing the printer
// produces, so they are dropped.
//
// Columns count bytes, not code points: printed text is ASCII outside strings.
#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "tilewright/ir/diagnostic.hpp"
#include "tilewright/ir/span.hpp"

namespace tilewright::text {

// clang-format off
enum class TokenKind : std::uint8_t {
  // Keywords are plain names; the parser compares their text.
  name, integer, floating, string, comment, newline, indent, dedent, end,
  lparen, rparen, lbracket, rbracket, lbrace, rbrace,
  comma, colon, semicolon, dot, ellipsis, arrow, assign, walrus, at,
  plus, minus, star, double_star, slash, double_slash, percent,
  lshift, rshift, amp, pipe, caret, tilde,
  less, greater, less_equal, greater_equal, equal_equal, not_equal,
  plus_assign, minus_assign, star_assign, double_star_assign, slash_assign,
  double_slash_assign, percent_assign, at_assign, amp_assign, pipe_assign, caret_assign,
  lshift_assign, rshift_assign,
};
// clang-format on

struct Token {
  TokenKind kind = TokenKind::end;
  char quote = 0;  // STRING only: '\'' or '"'
  // The exact source spelling, except: STRING holds the decoded value (UTF-8) and
  // COMMENT holds the text after `#` and one following space. Empty for the
  // layout tokens NEWLINE, INDENT, DEDENT and END.
  std::string text;
  // INTEGER only. The literal 9223372036854775808 is accepted so that INT64_MIN can be
  // written as `-9223372036854775808`; it is stored as INT64_MIN, and the parser must
  // reject it unless it folds it under a unary minus (negating it gives itself back).
  std::int64_t int_value = 0;
  double float_value = 0.0;  // FLOATING only
  ir::Span span;             // where the token starts
  std::size_t offset = 0;    // byte range in the source (for a STRING: including quotes)
  std::size_t length = 0;

  [[nodiscard]] bool is(TokenKind k) const noexcept { return kind == k; }
  [[nodiscard]] bool is_name(std::string_view s) const noexcept {
    return kind == TokenKind::name && text == s;
  }
};

// Python's reserved words: never a name in `pl` text (the printer appends `_` to an op whose
// last component is one, the reader strips it).
inline bool is_python_keyword(std::string_view s) noexcept {
  static constexpr std::string_view kKeywords[] = {
      "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
      "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
      "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
  for (auto k : kKeywords)
    if (k == s) return true;
  return false;
}

namespace detail {

struct Punct {
  std::string_view spelling;
  TokenKind kind;
};

// Longest spellings first, so a linear scan gives maximal munch.
inline constexpr Punct kPunct[] = {
    {"**=", TokenKind::double_star_assign},
    {"//=", TokenKind::double_slash_assign},
    {"<<=", TokenKind::lshift_assign},
    {">>=", TokenKind::rshift_assign},
    {"...", TokenKind::ellipsis},
    {"->", TokenKind::arrow},
    {"**", TokenKind::double_star},
    {"//", TokenKind::double_slash},
    {"<<", TokenKind::lshift},
    {">>", TokenKind::rshift},
    {"<=", TokenKind::less_equal},
    {">=", TokenKind::greater_equal},
    {"==", TokenKind::equal_equal},
    {"!=", TokenKind::not_equal},
    {":=", TokenKind::walrus},
    {"+=", TokenKind::plus_assign},
    {"-=", TokenKind::minus_assign},
    {"*=", TokenKind::star_assign},
    {"/=", TokenKind::slash_assign},
    {"%=", TokenKind::percent_assign},
    {"@=", TokenKind::at_assign},
    {"&=", TokenKind::amp_assign},
    {"|=", TokenKind::pipe_assign},
    {"^=", TokenKind::caret_assign},
    {"(", TokenKind::lparen},
    {")", TokenKind::rparen},
    {"[", TokenKind::lbracket},
    {"]", TokenKind::rbracket},
    {"{", TokenKind::lbrace},
    {"}", TokenKind::rbrace},
    {",", TokenKind::comma},
    {":", TokenKind::colon},
    {";", TokenKind::semicolon},
    {".", TokenKind::dot},
    {"=", TokenKind::assign},
    {"@", TokenKind::at},
    {"+", TokenKind::plus},
    {"-", TokenKind::minus},
    {"*", TokenKind::star},
    {"/", TokenKind::slash},
    {"%", TokenKind::percent},
    {"&", TokenKind::amp},
    {"|", TokenKind::pipe},
    {"^", TokenKind::caret},
    {"~", TokenKind::tilde},
    {"<", TokenKind::less},
    {">", TokenKind::greater},
};

// The entries of kPunct by their first character, longest first: a token is matched against
// the few spellings that can start with its character, not against the whole table.
struct PunctCandidates {
  std::uint8_t count = 0;
  std::array<std::uint8_t, 6> index{};
};
inline constexpr auto kPunctByFirst = [] {
  std::array<PunctCandidates, 128> table{};
  for (std::size_t i = 0; i < std::size(kPunct); ++i) {
    PunctCandidates& c = table[static_cast<unsigned char>(kPunct[i].spelling[0])];
    c.index[c.count++] = static_cast<std::uint8_t>(i);
  }
  return table;
}();

inline bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
inline bool is_name_start(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
inline bool is_name_char(char c) noexcept { return is_name_start(c) || is_digit(c); }
inline int hex_value(char c) noexcept {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

inline void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// A literal as messages quote it: a very long one keeps its head and says how long it is.
inline std::string clipped(std::string_view text) {
  constexpr std::size_t kShown = 32;
  if (text.size() <= kShown) return std::string(text);
  return std::string(text.substr(0, kShown)) + "... (" + std::to_string(text.size()) + " characters)";
}

// Quoted for printable ASCII; raw bytes would garble the message, so show them in hex.
inline std::string describe_char(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x21 && u < 0x7F) return std::string("character '") + c + "'";
  static constexpr char kHex[] = "0123456789ABCDEF";
  return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 0xF];
}

class Scanner {
 public:
  // Comment-only lines, set aside by the serial number of the token they precede (the
  // parser's form), instead of entering the token stream as COMMENT tokens.
  using CommentsAside = std::vector<std::pair<std::size_t, std::string>>;

  Scanner(std::string_view src, ir::FileName file) : src_(src), file_(std::move(file)) {
    // Lines and columns are ints in Span; refuse inputs that could overflow them.
    if (src_.size() >= static_cast<std::size_t>(std::numeric_limits<int>::max()))
      fail(0, "source text is too large (2 GiB or more)");
    if (src_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = line_start_ = 3;  // UTF-8 BOM
    // Without a single line feed every line ending is a lone CR: say so once, at the first.
    if (auto cr = src_.find('\r'); cr != std::string_view::npos && src_.find('\n') == std::string_view::npos)
      fail(cr, "this text uses CR-only line endings (a carriage return without a line feed ends each line); "
               "convert it to LF or CRLF line endings");
  }

  // Scans the next logical line that has tokens, appending them to `out` (at least one
  // token unless the text is used up); false once END has been produced. The parser reads
  // through a window of tokens this refills, so a kernel's tokens never all live at once;
  // a copy of the scanner is a checkpoint to scan again from.
  template <class Out>
  bool scan_more(Out& out, CommentsAside* comments = nullptr) {
    if (finished_) return false;
    Sink<Out> sink{out, comments};
    sink_ = &sink;
    const std::size_t before = serial_;
    while (pos_ < src_.size() && (serial_ == before || !at_line_start_)) {  // to the end of a logical line
      if (at_line_start_) start_line();
      else scan_in_line();
    }
    if (pos_ >= src_.size() && serial_ == before) finish();
    sink_ = nullptr;
    return true;
  }

  // Counts the tokens of the rest of a block `depth` indents deep (the DEDENT closing it
  // included) without making them: the parser skips a function body this way while it reads
  // the signatures, at a fraction of the cost of tokens it would drop. Token serial numbers
  // and set-aside comments are as a full scan gives them, so the body reads the same later.
  void skip_block(int depth) { skip_depth_ = depth; }
  [[nodiscard]] bool skipping() const noexcept { return skip_depth_ > 0; }
  // After a skip: the serial number of the token following the block.
  [[nodiscard]] std::size_t resume_serial() const noexcept { return resume_serial_; }

  // Tokenizes the rest of the text.
  template <class Out>
  void run(Out& out, CommentsAside* comments = nullptr) {
    while (scan_more(out, comments)) {
    }
  }

 private:
  // Where tokens and set-aside comments go: the scanner's loops are not templates, the
  // sink is (a vector for tokenize, the parser's window).
  struct SinkBase {
    virtual void token(Token&& t, std::size_t serial) = 0;
    virtual Token& last() = 0;
    virtual bool comment(std::size_t before, std::string&& text) = 0;
  protected:
    ~SinkBase() = default;
  };
  template <class Out>
  struct Sink final : SinkBase {
    Out& out;
    CommentsAside* comments;
    Sink(Out& o, CommentsAside* c) : out(o), comments(c) {}
    void token(Token&& t, std::size_t serial) override {
      if constexpr (requires { out.push_at(serial, std::move(t)); }) out.push_at(serial, std::move(t));
      else out.push_back(std::move(t));  // a plain list: every token, so serial == its size
    }
    Token& last() override { return out.back(); }
    bool comment(std::size_t before, std::string&& text) override {
      if (!comments) return false;
      comments->emplace_back(before, std::move(text));
      return true;
    }
  };

  void finish() {
    if (!brackets_.empty()) {
      const Open& o = brackets_.back();
      fail_at(o.span, std::string("'") + o.ch + "' was never closed");
    }
    if (line_has_tokens_) push(TokenKind::newline, pos_, 0);
    line_has_tokens_ = false;
    while (indents_.size() > 1) {
      indents_.pop_back();
      push(TokenKind::dedent, pos_, 0);
    }
    flush_comments();
    push(TokenKind::end, pos_, 0);
    finished_ = true;
  }

 private:
  struct Open {
    char ch;
    ir::Span span;
  };

  [[nodiscard]] char at(std::size_t i) const noexcept { return i < src_.size() ? src_[i] : '\0'; }
  [[nodiscard]] bool is_line_end(std::size_t i) const noexcept {
    return at(i) == '\n' || (at(i) == '\r' && at(i + 1) == '\n');
  }
  [[nodiscard]] ir::Span span_at(std::size_t offset) const {
    return ir::Span{file_, line_, static_cast<int>(offset - line_start_) + 1};
  }

  [[noreturn]] static void fail_at(ir::Span span, std::string message) {
    ir::throw_user_error("parser", std::move(message), std::move(span));
  }
  [[noreturn]] void fail(std::size_t offset, std::string message) const {
    fail_at(span_at(offset), std::move(message));
  }

  Token& push(TokenKind kind, std::size_t offset, std::size_t length, std::string_view text = {}) {
    if (skip_depth_ > 0) {  // inside a skipped block: counted, not made
      ++serial_;
      if (kind == TokenKind::indent) ++skip_depth_;
      else if (kind == TokenKind::dedent && --skip_depth_ == 0) resume_serial_ = serial_;
      return scratch_;
    }
    Token t;
    t.kind = kind;
    t.text = text;
    t.span = span_at(offset);
    t.offset = offset;
    t.length = length;
    sink_->token(std::move(t), serial_);
    ++serial_;
    return sink_->last();
  }

  void consume_line_end() {
    pos_ += at(pos_) == '\r' ? 2 : 1;
    ++line_;
    line_start_ = pos_;
  }

  void flush_comments() {
    for (Token& c : pending_comments_) {
      if (!sink_->comment(serial_, std::move(c.text))) {
        sink_->token(std::move(c), serial_);
        ++serial_;
      }
    }
    pending_comments_.clear();
  }

  // Handles the start of a physical line outside brackets: skips blank lines, queues
  // comment-only lines, and turns the indentation of a code line into INDENT/DEDENT.
  void start_line() {
    std::size_t i = pos_;
    while (at(i) == ' ' || at(i) == '\t') ++i;
    if (i >= src_.size()) {
      pos_ = i;
      return;
    }
    if (is_line_end(i)) {
      pos_ = i;
      consume_line_end();
      return;
    }
    if (at(i) == '#') {
      std::size_t end = i;
      while (end < src_.size() && src_[end] != '\n') ++end;
      std::size_t text_end = end > i && at(end - 1) == '\r' && end < src_.size() ? end - 1 : end;
      std::size_t body = i + 1 + (at(i + 1) == ' ' ? 1 : 0);
      if (body > text_end) body = text_end;
      Token t;
      t.kind = TokenKind::comment;
      t.text = std::string(src_.substr(body, text_end - body));
      t.span = span_at(i);
      t.offset = i;
      t.length = text_end - i;
      pending_comments_.push_back(std::move(t));
      pos_ = end;
      if (pos_ < src_.size()) consume_line_end();
      return;
    }
    // Tabs are harmless on blank lines, but their width is ambiguous in indentation.
    if (std::size_t tab = src_.substr(pos_, i - pos_).find('\t'); tab != std::string_view::npos)
      fail(pos_ + tab, "tab character in indentation; indent with spaces only");
    std::size_t width = i - pos_;
    pos_ = i;
    if (width > indents_.back()) {
      indents_.push_back(width);
      push(TokenKind::indent, line_start_, width);
    } else {
      while (width < indents_.back()) {
        indents_.pop_back();
        push(TokenKind::dedent, pos_, 0);
      }
      if (width != indents_.back())
        fail(pos_, "unindent does not match any outer indentation level");
    }
    flush_comments();
    at_line_start_ = false;
    line_has_tokens_ = false;
  }

  void scan_in_line() {
    const char c = src_[pos_];
    if (c == ' ' || c == '\t') {
      ++pos_;
    } else if (is_line_end(pos_)) {
      if (brackets_.empty()) {
        if (line_has_tokens_) push(TokenKind::newline, pos_, at(pos_) == '\r' ? 2 : 1);
        at_line_start_ = true;
        line_has_tokens_ = false;
      }
      consume_line_end();
    } else if (c == '\r') {
      fail(pos_, "carriage return not followed by a line feed; remove it or end the line with CRLF");
    } else if (c == '#') {
      while (pos_ < src_.size() && !is_line_end(pos_)) ++pos_;
    } else if (c == '\\') {
      if (pos_ + 1 >= src_.size()) fail(pos_, "line continuation character at end of file");
      if (!is_line_end(pos_ + 1))
        fail(pos_ + 1, "unexpected character after line continuation character");
      ++pos_;
      consume_line_end();
    } else if (is_digit(c) || (c == '.' && is_digit(at(pos_ + 1)))) {
      scan_number();
    } else if (is_name_start(c)) {
      std::size_t start = pos_;
      while (is_name_char(at(pos_))) ++pos_;
      // String prefixes: r"..." keeps backslashes, u"..." is the plain form. Byte and
      // format strings have no meaning in pl text.
      std::string_view word = src_.substr(start, pos_ - start);
      if ((at(pos_) == '\'' || at(pos_) == '"') && word.size() == 1) {
        if (word == "r" || word == "R" || word == "u" || word == "U") return scan_string(start, word == "r" || word == "R");
        if (word == "f" || word == "F" || word == "b" || word == "B")
          fail(start, "'" + std::string(word) + "' string literals are not supported; write a plain string");
      }
      push(TokenKind::name, start, pos_ - start, src_.substr(start, pos_ - start));
      line_has_tokens_ = true;
    } else if (c == '\'' || c == '"') {
      scan_string(pos_, false);
    } else {
      scan_punct();
    }
  }

  void scan_number() {
    const std::size_t start = pos_;
    while (is_digit(at(pos_))) ++pos_;
    bool is_float = false;
    if (at(pos_) == '.') {
      is_float = true;
      ++pos_;
      while (is_digit(at(pos_))) ++pos_;
    }
    if (at(pos_) == 'e' || at(pos_) == 'E') {
      std::size_t exp = pos_ + 1;
      if (at(exp) == '+' || at(exp) == '-') ++exp;
      if (is_digit(at(exp))) {
        is_float = true;
        pos_ = exp;
        while (is_digit(at(pos_))) ++pos_;
      }
    }
    // `0x10`, `1_000`, `1e`, `3j` and friends: Python accepts some, the printer emits
    // none, and splitting them into a number and a name would hide the mistake.
    if (is_name_char(at(pos_)) || (at(pos_) == '.' && is_digit(at(pos_ + 1)))) {
      std::size_t end = pos_;
      while (is_name_char(at(end)) || at(end) == '.') ++end;
      fail(start, "invalid numeric literal '" + clipped(src_.substr(start, end - start)) +
                      "'; only decimal integers and floats are accepted");
    }
    std::string text(src_.substr(start, pos_ - start));
    if (is_float) {
      double value = 0.0;
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (ec != std::errc() || ptr != text.data() + text.size())
        fail(start, "float literal " + clipped(text) + " is out of range for a 64-bit float");
      const std::size_t length = text.size();
      Token& t = push(TokenKind::floating, start, length, text);
      t.float_value = value;
    } else {
      if (text.size() > 1 && text[0] == '0' && text.find_first_not_of('0') != std::string::npos)
        fail(start, "leading zeros in decimal integer literal " + clipped(text) + " are not permitted");
      constexpr std::uint64_t kLimit = std::uint64_t{1} << 63;  // see Token::int_value
      std::uint64_t value = 0;
      for (char d : text) {
        auto digit = static_cast<std::uint64_t>(d - '0');
        if (value > (kLimit - digit) / 10)
          fail(start, "integer literal " + clipped(text) + " does not fit in 64 bits");
        value = value * 10 + digit;
      }
      const std::size_t length = text.size();
      Token& t = push(TokenKind::integer, start, length, text);
      t.int_value = value == kLimit ? std::numeric_limits<std::int64_t>::min()
                                    : static_cast<std::int64_t>(value);
    }
    line_has_tokens_ = true;
  }

  // Reads `digits` hex digits after an escape letter; returns the code point.
  std::uint32_t read_hex_escape(std::size_t escape, int digits) {
    std::uint32_t value = 0;
    for (int k = 0; k < digits; ++k) {
      int h = hex_value(at(pos_));
      if (h < 0 || pos_ >= src_.size())
        fail(escape, std::string("truncated \\") + src_[escape + 1] + " escape in string literal");
      value = value * 16 + static_cast<std::uint32_t>(h);
      ++pos_;
    }
    return value;
  }

  // `start` is where the literal begins (its prefix, if any); pos_ is at the opening quote.
  // A triple-quoted literal runs over lines; its line ends read as "\n", as in Python.
  void scan_string(std::size_t start, bool raw) {
    const ir::Span start_span = span_at(start);
    const char q = src_[pos_];
    const bool triple = at(pos_ + 1) == q && at(pos_ + 2) == q;
    pos_ += triple ? 3 : 1;
    std::string value;
    for (;;) {
      if (pos_ >= src_.size() || (!triple && is_line_end(pos_)))
        fail_at(start_span, triple ? "unterminated triple-quoted string literal"
                                   : "unterminated string literal");
      const char c = src_[pos_];
      if (c == q && (!triple || (at(pos_ + 1) == q && at(pos_ + 2) == q))) {
        pos_ += triple ? 3 : 1;
        break;
      }
      if (triple && is_line_end(pos_)) {
        value += '\n';
        consume_line_end();
        continue;
      }
      if (c == '\r') fail(pos_, "carriage return without a line feed inside a string literal");
      if (c != '\\' || raw) {
        value += c;
        ++pos_;
        if (raw && c == '\\' && pos_ < src_.size() && !is_line_end(pos_)) value += src_[pos_++];
        continue;
      }
      const std::size_t escape = pos_;
      ++pos_;
      if (pos_ >= src_.size()) fail_at(start_span, "unterminated string literal");
      const char e = src_[pos_];
      if (is_line_end(pos_)) {  // a backslash-newline inside a string joins the lines
        consume_line_end();
        continue;
      }
      ++pos_;
      switch (e) {
        case '\\':
          value += '\\';
          break;
        case '\'':
          value += '\'';
          break;
        case '"':
          value += '"';
          break;
        case 'n':
          value += '\n';
          break;
        case 't':
          value += '\t';
          break;
        case 'r':
          value += '\r';
          break;
        case 'a':
          value += '\a';
          break;
        case 'b':
          value += '\b';
          break;
        case 'f':
          value += '\f';
          break;
        case 'v':
          value += '\v';
          break;
        case 'x':
          append_utf8(value, read_hex_escape(escape, 2));
          break;
        case 'u':
        case 'U': {
          std::uint32_t cp = read_hex_escape(escape, e == 'u' ? 4 : 8);
          if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            fail(escape, "escape \\" + std::string(src_.substr(escape + 1, pos_ - escape - 1)) +
                             " is not a valid Unicode scalar value");
          append_utf8(value, cp);
          break;
        }
        case 'N':
          fail(escape, "\\N{...} escapes are not supported");
        default:
          if (e >= '0' && e <= '7') {
            std::uint32_t cp = static_cast<std::uint32_t>(e - '0');
            for (int k = 0; k < 2 && at(pos_) >= '0' && at(pos_) <= '7'; ++k, ++pos_)
              cp = cp * 8 + static_cast<std::uint32_t>(at(pos_) - '0');
            append_utf8(value, cp);
          } else {  // Python keeps unknown escapes verbatim
            value += '\\';
            value += e;
          }
      }
    }
    Token& t = push(TokenKind::string, start, pos_ - start, value);
    t.span = start_span;  // a line break inside the literal may have moved line_ past the start
    t.quote = q;
    line_has_tokens_ = true;
  }

  void scan_punct() {
    const std::size_t start = pos_;
    const std::string_view rest = src_.substr(pos_);
    const char c = rest[0];
    const auto first = static_cast<unsigned char>(c);
    const PunctCandidates& candidates = kPunctByFirst[first < kPunctByFirst.size() ? first : 0];
    for (std::size_t k = 0; k < candidates.count; ++k) {
      const Punct& p = kPunct[candidates.index[k]];
      if (rest.substr(0, p.spelling.size()) != p.spelling) continue;
      if (p.spelling.size() == 1 && (c == '(' || c == '[' || c == '{')) {
        brackets_.push_back(Open{c, span_at(start)});
      } else if (p.spelling.size() == 1 && (c == ')' || c == ']' || c == '}')) {
        if (brackets_.empty()) fail(start, std::string("unbalanced '") + c + "'");
        const Open& o = brackets_.back();
        const char want = o.ch == '(' ? ')' : o.ch == '[' ? ']' : '}';
        if (c != want)
          fail(start, std::string("closing '") + c + "' does not match '" + o.ch + "' opened at " +
                          std::to_string(o.span.line) + ":" + std::to_string(o.span.column));
        brackets_.pop_back();
      }
      pos_ += p.spelling.size();
      push(p.kind, start, p.spelling.size(), p.spelling);
      line_has_tokens_ = true;
      return;
    }
    const auto u = static_cast<unsigned char>(src_[pos_]);
    if (u == 0) fail(start, "NUL byte in the text; pl source is plain text (is this a binary file?)");
    fail(start, "unexpected " + describe_char(src_[pos_]) +
                    (u >= 0x80 ? "; names and operators must be ASCII" : ""));
  }

  std::string_view src_;
  ir::FileName file_;
  std::size_t pos_ = 0;
  std::size_t line_start_ = 0;
  int line_ = 1;
  bool at_line_start_ = true;
  bool line_has_tokens_ = false;
  std::vector<std::size_t> indents_{0};
  std::vector<Open> brackets_;
  std::vector<Token> pending_comments_;
  SinkBase* sink_ = nullptr;   // set while scan_more runs
  std::size_t serial_ = 0;     // tokens produced so far: the next token's index
  bool finished_ = false;
  int skip_depth_ = 0;         // > 0 while skip_block counts a block's tokens
  std::size_t resume_serial_ = 0;
  Token scratch_;              // what push returns for a token it does not make
};

}  // namespace detail

// Tokenizes the whole text. Throws ir::Error (origin "parser", user kind) at the first
// lexical error. The result always ends with exactly one END token; every non-empty
// logical line ends with NEWLINE, even without a final line feed.
inline std::vector<Token> tokenize(std::string_view source, ir::FileName file = {}) {
  std::vector<Token> out;
  detail::Scanner(source, std::move(file)).run(out);
  return out;
}

// For parser messages ("expected ':'"): "name", "end of line", "':'", ...
inline std::string token_kind_name(TokenKind kind) {
  switch (kind) {
    case TokenKind::name:
      return "name";
    case TokenKind::integer:
      return "integer literal";
    case TokenKind::floating:
      return "float literal";
    case TokenKind::string:
      return "string literal";
    case TokenKind::comment:
      return "comment";
    case TokenKind::newline:
      return "end of line";
    case TokenKind::indent:
      return "indent";
    case TokenKind::dedent:
      return "dedent";
    case TokenKind::end:
      return "end of input";
    default:
      break;
  }
  for (const detail::Punct& p : detail::kPunct)
    if (p.kind == kind) return "'" + std::string(p.spelling) + "'";
  return "token";
}

// "name 'x'", "integer literal 42", "'('", "end of line" — for "expected X, found Y".
inline std::string describe(const Token& t) {
  switch (t.kind) {
    case TokenKind::name:
      return "name '" + t.text + "'";
    case TokenKind::integer:
    case TokenKind::floating:
      return token_kind_name(t.kind) + " " + t.text;
    case TokenKind::string:
      return "string literal";
    case TokenKind::comment:
    case TokenKind::newline:
    case TokenKind::indent:
    case TokenKind::dedent:
    case TokenKind::end:
      return token_kind_name(t.kind);
    default:
      return "'" + t.text + "'";
  }
}

}  // namespace tilewright::text
