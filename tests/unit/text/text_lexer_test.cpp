#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "tilewright/text/lexer.hpp"
#include "tilewright/text/parse/token_window.hpp"

using tilewright::ir::Error;
using tilewright::ir::ErrorKind;
using tilewright::text::Token;
using tilewright::text::tokenize;
using tilewright::text::TokenKind;
using K = TokenKind;

namespace {

std::vector<TokenKind> kinds(std::string_view src) {
  std::vector<TokenKind> out;
  for (const Token& t : tokenize(src)) out.push_back(t.kind);
  return out;
}

std::vector<std::string> comments(std::string_view src) {
  std::vector<std::string> out;
  for (const Token& t : tokenize(src))
    if (t.kind == K::comment) out.push_back(t.text);
  return out;
}

struct Failure {
  std::string message;
  int line = 0;
  int column = 0;
};

Failure failure(std::string_view src) {
  try {
    tokenize(src, std::make_shared<const std::string>("t.pto"));
  } catch (const Error& e) {
    const auto& d = e.diagnostic();
    CHECK(d.origin == "parser");
    CHECK(d.kind == ErrorKind::user);
    CHECK(d.span.file_name() == "t.pto");
    return {d.message, d.span.line, d.span.column};
  }
  FAIL("expected a lexical error for: " << src);
  return {};
}

void check_error(std::string_view src, const std::string& message, int line, int column) {
  CAPTURE(src);
  Failure f = failure(src);
  CHECK(f.message == message);
  CHECK(f.line == line);
  CHECK(f.column == column);
}

}  // namespace

TEST_CASE("lexer: empty and blank inputs give only END") {
  CHECK(kinds("") == std::vector{K::end});
  CHECK(kinds("\n\n   \n") == std::vector{K::end});
  CHECK(kinds("   ") == std::vector{K::end});
  CHECK(kinds("\xEF\xBB\xBFx") == std::vector{K::name, K::newline, K::end});
}

TEST_CASE("lexer: names, keywords and spans") {
  auto file = std::make_shared<const std::string>("a.pto");
  auto toks = tokenize("def  _f9(self):\n    return x", file);
  REQUIRE(toks.size() == 13);
  CHECK(toks[0].is_name("def"));
  CHECK(toks[1].is_name("_f9"));
  CHECK(toks[1].span.line == 1);
  CHECK(toks[1].span.column == 6);
  CHECK(toks[1].offset == 5);
  CHECK(toks[1].length == 3);
  CHECK(toks[1].span.file == file);
  CHECK(toks[3].is_name("self"));
  CHECK(toks[6].kind == K::newline);
  CHECK(toks[7].kind == K::indent);
  CHECK(toks[8].is_name("return"));
  CHECK(toks[8].span.line == 2);
  CHECK(toks[8].span.column == 5);
  CHECK(toks[9].is_name("x"));
  CHECK(toks[10].kind == K::newline);  // synthesized at EOF without a final line feed
  CHECK(toks[11].kind == K::dedent);
  CHECK(toks[12].kind == K::end);
}

TEST_CASE("lexer: every operator and punctuation spelling") {
  const std::string opens = "([{", closes = ")]}";
  for (const auto& p : tilewright::text::detail::kPunct) {
    CAPTURE(p.spelling);
    // Brackets must balance, so pair each one with its partner.
    const std::string s(p.spelling);
    std::string src = "a " + s + " b";
    std::size_t at = 1;
    if (auto i = opens.find(s); s.size() == 1 && i != std::string::npos) {
      src += closes[i];
    } else if (auto j = closes.find(s); s.size() == 1 && j != std::string::npos) {
      src = opens[j] + src;
      at = 2;
    }
    auto toks = tokenize(src);
    REQUIRE(toks.size() == (src.size() == s.size() + 4 ? 5u : 6u));
    CHECK(toks[at].kind == p.kind);
    CHECK(toks[at].text == p.spelling);
    CHECK(toks[at].length == p.spelling.size());
    CHECK(toks[at].offset == src.find(s, at == 2 ? 1 : 0));
  }
}

TEST_CASE("lexer: maximal munch of operators") {
  CHECK(kinds("a**=b//c->d...e") == std::vector{K::name, K::double_star_assign, K::name,
                                                K::double_slash, K::name, K::arrow, K::name,
                                                K::ellipsis, K::name, K::newline, K::end});
  CHECK(kinds("a<<=b>=c!=d:=e") == std::vector{K::name, K::lshift_assign, K::name, K::greater_equal,
                                               K::name, K::not_equal, K::name, K::walrus, K::name,
                                               K::newline, K::end});
  CHECK(kinds("x = -1") ==
        std::vector{K::name, K::assign, K::minus, K::integer, K::newline, K::end});
  CHECK(kinds("a..b") == std::vector{K::name, K::dot, K::dot, K::name, K::newline, K::end});
}

TEST_CASE("lexer: integer literals") {
  auto toks = tokenize("0 42 00 9223372036854775807 9223372036854775808");
  CHECK(toks[0].int_value == 0);
  CHECK(toks[1].int_value == 42);
  CHECK(toks[1].text == "42");
  CHECK(toks[2].int_value == 0);
  CHECK(toks[3].int_value == std::numeric_limits<std::int64_t>::max());
  CHECK(toks[4].int_value == std::numeric_limits<std::int64_t>::min());
  CHECK(toks[4].text == "9223372036854775808");
  for (int i = 0; i < 5; ++i) CHECK(toks[static_cast<std::size_t>(i)].kind == K::integer);

  check_error("x = 999999999999999999999",
              "integer literal 999999999999999999999 does not fit in 64 bits", 1, 5);
  check_error("x = 9223372036854775809",
              "integer literal 9223372036854775809 does not fit in 64 bits", 1, 5);
  check_error("x = 007", "leading zeros in decimal integer literal 007 are not permitted", 1, 5);
}

TEST_CASE("lexer: float literals keep their text") {
  struct Case {
    const char* text;
    double value;
  };
  const Case cases[] = {
      {"0.5", 0.5},
      {"1e16", 1e16},
      {"1e+16", 1e16},
      {"1E-3", 1e-3},
      {".5", 0.5},
      {"2.", 2.0},
      {"0.0", 0.0},
      {"1.0000000000000001e-05", 1.0000000000000001e-05},
      {"1e+17", 1e17},
      {"0.10000000000000001", 0.10000000000000001},
      {"4.9406564584124654e-324", 4.9406564584124654e-324},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    auto toks = tokenize(c.text);
    REQUIRE(toks.size() == 3);
    CHECK(toks[0].kind == K::floating);
    CHECK(toks[0].text == c.text);
    CHECK(toks[0].float_value == c.value);
  }
  check_error("y = 1e999", "float literal 1e999 is out of range for a 64-bit float", 1, 5);
  check_error("y = 0x10",
              "invalid numeric literal '0x10'; only decimal integers and floats are accepted", 1,
              5);
  check_error("y = 1_000",
              "invalid numeric literal '1_000'; only decimal integers and floats are accepted", 1,
              5);
  check_error("y = 1e",
              "invalid numeric literal '1e'; only decimal integers and floats are accepted", 1, 5);
  check_error("y = 3j",
              "invalid numeric literal '3j'; only decimal integers and floats are accepted", 1, 5);
  check_error("y = 1.2.3",
              "invalid numeric literal '1.2.3'; only decimal integers and floats are accepted", 1,
              5);
}

TEST_CASE("lexer: string literals") {
  auto toks = tokenize(R"(f(mode='round', tag="outer", e='', d="it's", s='say "hi"'))");
  CHECK(toks[4].kind == K::string);
  CHECK(toks[4].text == "round");
  CHECK(toks[4].quote == '\'');
  CHECK(toks[4].offset == 7);
  CHECK(toks[4].length == 7);
  CHECK(toks[8].text == "outer");
  CHECK(toks[8].quote == '"');
  CHECK(toks[12].text.empty());
  CHECK(toks[16].text == "it's");
  CHECK(toks[20].text == "say \"hi\"");

  auto esc = tokenize(R"('a\nb\t\\\'\"\x41\101\u00e9\U0001F600\q')");
  REQUIRE(esc.size() == 3);
  CHECK(esc[0].text == "a\nb\t\\'\"AA\xC3\xA9\xF0\x9F\x98\x80\\q");
  CHECK(tokenize(R"('\0')")[0].text == std::string(1, '\0'));
  CHECK(tokenize(R"("\xff")")[0].text == "\xC3\xBF");  // a code point, as in Python 3 str

  // A backslash-newline inside a string joins the lines; the token keeps its start.
  auto joined = tokenize("x = 'ab\\\ncd'\ny");
  CHECK(joined[2].text == "abcd");
  CHECK(joined[2].span.line == 1);
  CHECK(joined[2].span.column == 5);
  CHECK(joined[4].span.line == 3);

  // Raw bytes pass through untouched.
  CHECK(tokenize("'\xE4\xB8\xAD'")[0].text == "\xE4\xB8\xAD");
}

TEST_CASE("lexer: string literal errors") {
  check_error("x = 'abc\ny = 1", "unterminated string literal", 1, 5);
  check_error("x = \"abc", "unterminated string literal", 1, 5);
  check_error("x = 'abc\\", "unterminated string literal", 1, 5);
  check_error("x = 'ab\r\n'", "unterminated string literal", 1, 5);
  check_error("x = \"\"\"doc\n", "unterminated triple-quoted string literal", 1, 5);
  check_error("x = f'{a}'", "'f' string literals are not supported; write a plain string", 1, 5);
  check_error("x = '\\x4'", "truncated \\x escape in string literal", 1, 6);
  check_error("x = '\\u12'", "truncated \\u escape in string literal", 1, 6);
  check_error("x = '\\U0011FFFF'", "escape \\U0011FFFF is not a valid Unicode scalar value", 1, 6);
  check_error("x = '\\ud800'", "escape \\ud800 is not a valid Unicode scalar value", 1, 6);
  check_error("x = '\\N{DASH}'", "\\N{...} escapes are not supported", 1, 6);
}

TEST_CASE("lexer: indentation produces INDENT and DEDENT") {
  const char* src =
      "class A:\n"
      "    def f():\n"
      "        if x:\n"
      "            y\n"
      "\n"
      "        z\n"
      "    def g():\n"
      "        w\n"
      "v\n";
  CHECK(kinds(src) ==
        std::vector{K::name,    K::name,   K::colon,   K::newline,                        //
                    K::indent,  K::name,   K::name,    K::lparen,  K::rparen,  K::colon,  //
                    K::newline,                                                           //
                    K::indent,  K::name,   K::name,    K::colon,   K::newline,            //
                    K::indent,  K::name,   K::newline,                                    //
                    K::dedent,  K::name,   K::newline,                                    //
                    K::dedent,  K::name,   K::name,    K::lparen,  K::rparen,  K::colon,  //
                    K::newline,                                                           //
                    K::indent,  K::name,   K::newline,                                    //
                    K::dedent,  K::dedent, K::name,    K::newline, K::end});
  // All open blocks close at the end of input, after the last NEWLINE.
  CHECK(kinds("a:\n  b:\n    c") == std::vector{K::name, K::colon, K::newline, K::indent, K::name,
                                                K::colon, K::newline, K::indent, K::name,
                                                K::newline, K::dedent, K::dedent, K::end});
  // A leading indent is reported; rejecting it is the parser's job.
  CHECK(kinds("  a") == std::vector{K::indent, K::name, K::newline, K::dedent, K::end});
  // Indentation of blank lines does not matter, tabs included.
  CHECK(kinds("a:\n        \n\t\n  b") == std::vector{K::name, K::colon, K::newline, K::indent,
                                                      K::name, K::newline, K::dedent, K::end});
  auto toks = tokenize("a:\n    b");
  CHECK(toks[3].kind == K::indent);
  CHECK(toks[3].span.line == 2);
  CHECK(toks[3].length == 4);
}

TEST_CASE("lexer: indentation errors") {
  check_error("if a:\n        b\n    c\n", "unindent does not match any outer indentation level", 3,
              5);
  check_error("if a:\n\tb\n", "tab character in indentation; indent with spaces only", 2, 1);
  check_error("if a:\n    \tb\n", "tab character in indentation; indent with spaces only", 2, 5);
}

TEST_CASE("lexer: implicit line joining inside brackets") {
  const char* src =
      "x = f(a,\n"
      "  b,   # dropped\n"
      "\n"
      "        # also dropped\n"
      "      [c,\n"
      "{d: e}])\n"
      "y\n";
  CHECK(kinds(src) == std::vector{K::name,    K::assign,   K::name,   K::lparen,   K::name,
                                  K::comma,   K::name,     K::comma,  K::lbracket, K::name,
                                  K::comma,   K::lbrace,   K::name,   K::colon,    K::name,
                                  K::rbrace,  K::rbracket, K::rparen, K::newline,  K::name,
                                  K::newline, K::end});
  auto toks = tokenize(src);
  CHECK(toks[6].span.line == 2);
  CHECK(toks[6].span.column == 3);
  CHECK(toks[19].span.line == 7);
}

TEST_CASE("lexer: backslash continuation") {
  CHECK(kinds("if a:\n    x = 1 + \\\n2\n    y") ==
        std::vector{K::name, K::name, K::colon, K::newline, K::indent, K::name, K::assign,
                    K::integer, K::plus, K::integer, K::newline, K::name, K::newline, K::dedent,
                    K::end});
  CHECK(kinds("x = \\\r\n  1") == std::vector{K::name, K::assign, K::integer, K::newline, K::end});
  check_error("x = 1 \\ + 2", "unexpected character after line continuation character", 1, 8);
  check_error("x = 1 \\", "line continuation character at end of file", 1, 7);
}

TEST_CASE("lexer: comment-only lines become COMMENT tokens before their statement") {
  const char* src =
      "# pypto.program: Demo\n"
      "import pypto.language as pl\n"
      "class A:\n"
      "    # leading\n"
      "    #   indented text\n"
      "    #\n"
      "    #tight\n"
      "    x = 1  # trailing, dropped\n"
      "    if c:\n"
      "        y = 2\n"
      "    # after dedent\n"
      "    z = 3\n"
      "# at the end\n";
  CHECK(comments(src) == std::vector<std::string>{"pypto.program: Demo", "leading",
                                                  "  indented text", "", "tight", "after dedent",
                                                  "at the end"});
  auto toks = tokenize(src);
  std::vector<TokenKind> ks;
  for (const Token& t : toks) ks.push_back(t.kind);
  CHECK(ks == std::vector{K::comment,  //
                          K::name,    K::name,    K::dot,     K::name,    K::name,
                          K::name,    K::newline,                                      //
                          K::name,    K::name,    K::colon,   K::newline,              //
                          K::indent,  K::comment, K::comment, K::comment, K::comment,  //
                          K::name,    K::assign,  K::integer, K::newline,              //
                          K::name,    K::name,    K::colon,   K::newline,              //
                          K::indent,  K::name,    K::assign,  K::integer, K::newline,  //
                          K::dedent,  K::comment, K::name,    K::assign,  K::integer,
                          K::newline,  //
                          K::dedent,  K::comment, K::end});
  CHECK(toks[0].span.line == 1);
  CHECK(toks[0].span.column == 1);
  CHECK(toks[13].span.line == 4);
  CHECK(toks[13].span.column == 5);
  CHECK(toks[13].offset == std::string_view(src).find("# leading"));
  CHECK(toks[13].length == std::string_view("# leading").size());
}

TEST_CASE("lexer: comment before a dedent to an outer block attaches after the DEDENT") {
  // The comment sits at the inner indentation, but the statement it precedes is outer.
  CHECK(kinds("if a:\n    b\n    # c\nd") == std::vector{K::name, K::name, K::colon, K::newline,
                                                         K::indent, K::name, K::newline, K::dedent,
                                                         K::comment, K::name, K::newline, K::end});
}

TEST_CASE("lexer: ruff layout with exploded signature and trailing commas") {
  const char* src =
      "import pypto.language as pl\n"
      "\n"
      "\n"
      "@pl.program\n"
      "class P:\n"
      "    @pl.function\n"
      "    def f(\n"
      "        self,\n"
      "        a: pl.Tensor[[16, 16], pl.FP32],\n"
      "        b: pl.Out[pl.Tensor[[16, 16], pl.FP32]],\n"
      "    ) -> pl.Tensor[[16, 16], pl.FP32]:\n"
      "        t: pl.Tile[\n"
      "            [16, 16],\n"
      "            pl.FP32,\n"
      "        ] = (\n"
      "            pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Vec)\n"
      "        )\n"
      "        return t\n"
      "\n"
      "    @pl.function\n"
      "    def g(self) -> None:\n"
      "        return\n";
  auto toks = tokenize(src);
  int indents = 0, dedents = 0, newlines = 0;
  for (const Token& t : toks) {
    indents += t.kind == K::indent;
    dedents += t.kind == K::dedent;
    newlines += t.kind == K::newline;
  }
  CHECK(indents == 3);  // class body, f body, g body
  CHECK(dedents == 3);
  // import, @pl.program, class, @pl.function, def f, t, return, @pl.function, def g, return
  CHECK(newlines == 10);
  // The exploded signature is one logical line: `def f ( self , ... ) -> ... :` NEWLINE.
  std::size_t def = 0;
  while (!toks[def].is_name("def")) ++def;
  std::size_t colon_nl = def;
  while (toks[colon_nl].kind != K::newline) ++colon_nl;
  CHECK(toks[colon_nl - 1].kind == K::colon);
  CHECK(toks[colon_nl - 1].span.line == 11);
  CHECK(toks[colon_nl + 1].kind == K::indent);
  CHECK(toks[colon_nl + 2].is_name("t"));
}

TEST_CASE("lexer: CRLF line endings") {
  const char* lf = "# c\nclass A:\n    x = 'a'\n\n    y = f(1,\n      2)\n";
  const char* crlf = "# c\r\nclass A:\r\n    x = 'a'\r\n\r\n    y = f(1,\r\n      2)\r\n";
  CHECK(kinds(lf) == kinds(crlf));
  auto toks = tokenize(crlf);
  CHECK(toks[0].text == "c");
  CHECK(toks[10].is_name("y"));
  CHECK(toks[10].span.line == 5);
  CHECK(toks[10].span.column == 5);
  check_error("x = 1\ry = 2", "this text uses CR-only line endings (a carriage return without a line feed ends each "
                              "line); convert it to LF or CRLF line endings", 1, 6);
  check_error("x = 1\ry = 2\n", "carriage return not followed by a line feed; remove it or end the line with CRLF", 1, 6);
}

TEST_CASE("lexer: bracket and character errors with positions") {
  check_error("x = a)", "unbalanced ')'", 1, 6);
  check_error("x = [a}\n", "closing '}' does not match '[' opened at 1:5", 1, 7);
  check_error("x = f(a,\n  [b]\n", "'(' was never closed", 1, 6);
  check_error("if a:\n    x = $y", "unexpected character '$'", 2, 9);
  check_error("x = a ? b", "unexpected character '?'", 1, 7);
  check_error("x = !a", "unexpected character '!'", 1, 5);
  check_error("x = `a`", "unexpected character '`'", 1, 5);
  check_error(std::string_view("x = \0", 5), "NUL byte in the text; pl source is plain text (is this a binary file?)", 1,
              5);
  check_error("x = \x7f", "unexpected byte 0x7F", 1, 5);
  check_error("caf\xC3\xA9 = 1", "unexpected byte 0xC3; names and operators must be ASCII", 1, 4);
  check_error("x = 1\n\fy", "unexpected byte 0x0C", 2, 1);
}

TEST_CASE("lexer: descriptions for parser messages") {
  using tilewright::text::describe;
  using tilewright::text::token_kind_name;
  CHECK(token_kind_name(K::rparen) == "')'");
  CHECK(token_kind_name(K::newline) == "end of line");
  CHECK(token_kind_name(K::double_slash_assign) == "'//='");
  auto toks = tokenize("x 1 2.5 'a' ()");
  CHECK(describe(toks[0]) == "name 'x'");
  CHECK(describe(toks[1]) == "integer literal 1");
  CHECK(describe(toks[2]) == "float literal 2.5");
  CHECK(describe(toks[3]) == "string literal");
  CHECK(describe(toks[4]) == "'('");
}

TEST_CASE("lexer: hostile inputs never crash") {
  // Deep nesting is iterative, so it cannot overflow the stack.
  std::string deep(200000, '(');
  deep += std::string(200000, ')');
  CHECK(tokenize(deep).size() == 400002);
  CHECK(failure(std::string(100000, '[')).message == "'[' was never closed");

  // Deterministic garbage drawn from the bytes that drive the state machine.
  static constexpr char kBytes[] = "\0\t\n\r \\'\"#()[]{}.:e+-0123456789ax\xC3\xFF";
  const std::string alphabet(kBytes, sizeof kBytes - 1);
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  for (int round = 0; round < 3000; ++round) {
    std::string src;
    const int len = round % 64;
    for (int i = 0; i < len; ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      src += alphabet[(state >> 33) % alphabet.size()];
    }
    try {
      auto toks = tokenize(src);
      REQUIRE(!toks.empty());
      CHECK(toks.back().kind == K::end);
      for (const Token& t : toks) CHECK(t.offset + t.length <= src.size());
    } catch (const Error& e) {
      CHECK(e.diagnostic().span.line >= 1);
      CHECK(e.diagnostic().span.column >= 1);
    }
  }
}

#ifdef TILEWRIGHT_GOLDEN_DIR
namespace {
std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

TEST_CASE("lexer: a real golden file" * doctest::skip(!std::filesystem::is_directory(TILEWRIGHT_GOLDEN_DIR))) {
  const std::filesystem::path path = std::filesystem::path(TILEWRIGHT_GOLDEN_DIR) /
                                     "roundtrip/raw_for_attrs_and_two_iter_args.pto";
  if (!std::filesystem::exists(path)) {
    MESSAGE("golden corpus not found at " << path.string() << "; skipped");
    return;
  }
  const std::string src = slurp(path);
  REQUIRE(!src.empty());
  auto toks = tokenize(src, std::make_shared<const std::string>(path.string()));
  CHECK(toks[0].kind == K::comment);
  CHECK(toks[0].text == "pypto.program: LoopAttrs");
  CHECK(toks[1].is_name("import"));
  // for i, (x, y) in pl.range(10, init_values=(a, b), attrs={"unroll_hint": 2, ..., "ratio": 0.5,
  // "hot": True}):
  std::size_t f = 0;
  while (!toks[f].is_name("for")) ++f;
  CHECK(toks[f].span.line == 8);
  CHECK(toks[f].span.column == 9);
  std::size_t s = f;
  while (toks[s].kind != K::string) ++s;
  CHECK(toks[s].text == "unroll_hint");
  CHECK(toks[s].quote == '"');
  CHECK(toks[s + 2].int_value == 2);
  std::size_t fl = s;
  while (toks[fl].kind != K::floating) ++fl;
  CHECK(toks[fl].text == "0.5");
  // Three INDENTs (class, def, for) and matching DEDENTs; the file has no final newline.
  int indents = 0, dedents = 0;
  for (const Token& t : toks) {
    indents += t.kind == K::indent;
    dedents += t.kind == K::dedent;
  }
  CHECK(indents == 3);
  CHECK(dedents == 3);
  CHECK(toks[toks.size() - 5].is_name("y_rv"));
  CHECK(toks[toks.size() - 4].kind == K::newline);
  CHECK(toks.back().kind == K::end);
  for (const Token& t : toks) {
    REQUIRE(t.offset + t.length <= src.size());
    if (t.kind == K::name || t.kind == K::integer || t.kind == K::floating)
      CHECK(src.substr(t.offset, t.length) == t.text);
  }
}

TEST_CASE("lexer: every golden file tokenizes" * doctest::skip(!std::filesystem::is_directory(TILEWRIGHT_GOLDEN_DIR))) {
  const std::filesystem::path dir(TILEWRIGHT_GOLDEN_DIR);
  if (!std::filesystem::is_directory(dir)) {
    MESSAGE("golden corpus not found at " << dir.string() << "; skipped");
    return;
  }
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.path().extension() != ".pto") continue;
    CAPTURE(entry.path().string());
    const std::string src = slurp(entry.path());
    try {
      auto toks = tokenize(src);
      CHECK(toks.back().kind == K::end);
    } catch (const Error& e) {
      FAIL(tilewright::ir::render(e.diagnostic(), src));
    }
    ++files;
  }
  CHECK(files > 0);
}
#endif

TEST_CASE("lexer: triple-quoted and raw strings (issue 10: docstrings)") {
  auto toks = tokenize("x = \"\"\"a\n  'b' \"c\"\n\"\"\"\ny = r'\\d\\''\n");
  REQUIRE(toks[2].is(TokenKind::string));
  CHECK(toks[2].text == "a\n  'b' \"c\"\n");
  CHECK(toks[2].span.line == 1);
  CHECK(toks[3].is(TokenKind::newline));
  CHECK(toks[4].is_name("y"));
  CHECK(toks[4].span.line == 4);  // lines inside the literal are counted
  REQUIRE(toks[6].is(TokenKind::string));
  CHECK(toks[6].text == "\\d\\'");  // a raw string keeps its backslashes
  // The same literal with CRLF line ends reads the same.
  auto crlf = tokenize("x = '''a\r\nb'''\r\n");
  CHECK(crlf[2].text == "a\nb");
}

// Issue 38: the scanner feeds the parser a line at a time, and the parser's window keeps
// references to its tokens valid until it releases them.
TEST_CASE("lexer: scanning a line at a time gives the tokens of one whole scan") {
  const std::string src = "def f(x):\n    # note\n    y = (x +\n         1)\n    return y\n";
  std::vector<Token> whole = tokenize(src);
  tilewright::text::detail::Scanner scanner(src, "t.pto");
  std::vector<Token> piecewise;
  int calls = 0;
  while (scanner.scan_more(piecewise)) ++calls;
  CHECK(calls > 3);  // several refills, not one
  REQUIRE(piecewise.size() == whole.size());
  for (std::size_t i = 0; i < whole.size(); ++i) {
    CHECK(piecewise[i].kind == whole[i].kind);
    CHECK(piecewise[i].text == whole[i].text);
    CHECK(piecewise[i].offset == whole[i].offset);
  }
  // Comments set aside carry the serial number of the token they precede.
  tilewright::text::detail::Scanner aside(src, "t.pto");
  std::vector<Token> toks;
  tilewright::text::detail::Scanner::CommentsAside comments;
  aside.run(toks, &comments);
  REQUIRE(comments.size() == 1);
  CHECK(comments[0].second == "note");
  CHECK(toks[comments[0].first].text == "y");
}

TEST_CASE("lexer: the token window keeps references until release, and reuses its blocks") {
  tilewright::text::parser_detail::TokenWindow w;
  auto token = [](std::size_t i) {
    Token t;
    t.kind = K::name;
    t.text = std::to_string(i).insert(0, 1, 'n');  // g++ 12 -O3: "n" + to_string warns (-Wrestrict)
    t.offset = i;
    return t;
  };
  w.push_back(token(0));
  const Token& first = w[0];
  for (std::size_t i = 1; i < 1000; ++i) w.push_back(token(i));
  CHECK(&first == &w[0]);  // 1000 pushes moved nothing
  CHECK(first.text == "n0");
  CHECK(w[999].text == "n999");
  w.release_before(600);
  CHECK(w.begin() == 600);
  CHECK(!w.holds(599));
  CHECK(w.holds(600));
  CHECK(w[777].text == "n777");
  w.release_before(5000);  // the last token always stays
  CHECK(w.begin() == 999);
  CHECK(w.back().text == "n999");
  w.reset(42, {token(42), token(43)});
  CHECK(w.begin() == 42);
  CHECK(w.end() == 44);
  CHECK(w[43].text == "n43");
}
