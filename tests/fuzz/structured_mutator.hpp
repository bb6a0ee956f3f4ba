#pragma once
// The structured mutator of the fuzzer (structured_fuzz.cpp, docs/fuzzing.md): it changes a
// valid program the way a person's typo or a generator's bug would — one number, dtype,
// memory space, op, name or list element at a time — so the text stays tokenizable and most
// mutants parse far enough to reach type deduction, the annotation rules and the passes,
// instead of dying in the lexer as byte flips do.
//
// A mutation works on the token stream: it picks a token of one class and rewrites just its
// bytes in the source, so layout, comments and everything else stay as they were.
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "tilewright/ops/catalog.hpp"
#include "tilewright/text/lexer.hpp"

namespace tilewright::fuzz {

class StructuredMutator {
 public:
  explicit StructuredMutator(std::uint32_t seed) : rng_(seed) {
    ops::builtin_registry().for_each([&](const ops::OpInfo& info) {
      auto dot = info.name.find('.');
      if (info.name.rfind("tile.", 0) == 0 || info.name.rfind("tensor.", 0) == 0 ||
          info.name.rfind("system.", 0) == 0)
        op_stems_.push_back(info.name.substr(dot + 1));
    });
  }

  // One mutant of `text`, or `text` itself when it does not tokenize (the caller then falls
  // back to byte-level mutation).
  std::string mutate(std::string_view text) {
    std::vector<text::Token> toks;
    try {
      toks = text::tokenize(text, std::make_shared<const std::string>("<mutant>"));
    } catch (...) {
      return std::string(text);
    }
    std::string out(text);
    int edits = 1 + static_cast<int>(pick(3));
    for (int k = 0; k < edits; ++k) {
      try {
        toks = text::tokenize(out, std::make_shared<const std::string>("<mutant>"));
      } catch (...) {
        break;
      }
      if (toks.size() < 2) break;
      apply_one(out, toks);
    }
    return out;
  }

 private:
  std::size_t pick(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng_() % n); }

  static bool is_layout_token(const text::Token& t) {
    using K = text::TokenKind;
    return t.kind == K::newline || t.kind == K::indent || t.kind == K::dedent || t.kind == K::end ||
           t.kind == K::comment;
  }

  // Index of a random token satisfying `ok`, or npos.
  template <class F>
  std::size_t find(const std::vector<text::Token>& toks, F ok) {
    std::vector<std::size_t> hits;
    for (std::size_t i = 0; i < toks.size(); ++i)
      if (ok(i)) hits.push_back(i);
    return hits.empty() ? std::string::npos : hits[pick(hits.size())];
  }

  static void replace(std::string& out, const text::Token& t, std::string_view with) {
    out.replace(t.offset, t.length, with);
  }

  void apply_one(std::string& out, const std::vector<text::Token>& toks) {
    using K = text::TokenKind;
    auto dot_after = [&](std::size_t i, std::string_view a) {  // toks[i-2] == a, toks[i-1] == '.'
      return i >= 2 && toks[i - 1].is(K::dot) && toks[i - 2].is_name(a);
    };
    switch (pick(9)) {
      case 0: {  // a number becomes an interesting neighbour
        static constexpr const char* kNumbers[] = {"0",  "1",   "2",   "-1",   "3",    "7",   "8",
                                                   "15", "16",  "17",  "31",   "32",   "33",  "64",
                                                   "128", "255", "256", "512", "1024", "65536",
                                                   "9223372036854775807", "2.5", "0.0"};
        std::size_t i = find(toks, [&](std::size_t j) { return toks[j].is(K::integer) || toks[j].is(K::floating); });
        if (i != std::string::npos) replace(out, toks[i], kNumbers[pick(std::size(kNumbers))]);
        return;
      }
      case 1: {  // a dtype becomes another
        static constexpr const char* kDtypes[] = {"FP32", "FP16", "BF16", "INT8", "INT16", "INT32", "INT64",
                                                  "UINT8", "BOOL", "INDEX", "FP8E4M3FN", "INT4"};
        std::size_t i = find(toks, [&](std::size_t j) {
          return toks[j].is(K::name) && dot_after(j, "pl") && ir::enum_from_name<ir::DataType>(toks[j].text);
        });
        if (i != std::string::npos) replace(out, toks[i], kDtypes[pick(std::size(kDtypes))]);
        return;
      }
      case 2: {  // a memory space becomes another
        static constexpr const char* kSpaces[] = {"Vec", "Mat", "Left", "Right", "Acc", "Bias", "DDR", "LeftScale"};
        std::size_t i = find(toks, [&](std::size_t j) { return toks[j].is(K::name) && dot_after(j, "Mem"); });
        if (i != std::string::npos) replace(out, toks[i], kSpaces[pick(std::size(kSpaces))]);
        return;
      }
      case 3: {  // an op becomes another of its namespace
        std::size_t i = find(toks, [&](std::size_t j) {
          return toks[j].is(K::name) && (dot_after(j, "tile") || dot_after(j, "tensor")) && j + 1 < toks.size() &&
                 toks[j + 1].is(K::lparen);
        });
        if (i != std::string::npos && !op_stems_.empty()) {
          std::string stem = op_stems_[pick(op_stems_.size())];
          if (text::is_python_keyword(stem)) stem += '_';
          replace(out, toks[i], stem);
        }
        return;
      }
      case 4: {  // a use of a name becomes another name of the text
        std::vector<std::string> names;
        for (std::size_t j = 0; j < toks.size(); ++j)
          if (toks[j].is(K::name) && !text::is_python_keyword(toks[j].text) && toks[j].text != "pl" &&
              toks[j].text != "self" && !(j > 0 && toks[j - 1].is(K::dot)))
            names.push_back(toks[j].text);
        std::size_t i = find(toks, [&](std::size_t j) {
          return toks[j].is(K::name) && !text::is_python_keyword(toks[j].text) && toks[j].text != "pl" &&
                 !(j > 0 && toks[j - 1].is(K::dot)) && j + 1 < toks.size() && !toks[j + 1].is(K::colon) &&
                 !toks[j + 1].is(K::assign) && !toks[j + 1].is(K::dot);
        });
        if (i != std::string::npos && !names.empty()) replace(out, toks[i], names[pick(names.size())]);
        return;
      }
      case 5: {  // a list gains or loses an element
        std::size_t i = find(toks, [&](std::size_t j) { return toks[j].is(K::lbracket); });
        if (i == std::string::npos || i + 1 >= toks.size()) return;
        const text::Token& first = toks[i + 1];
        if (pick(2) == 0 && first.is(K::integer) && i + 3 < toks.size() && toks[i + 2].is(K::comma))
          out.erase(first.offset, toks[i + 3].offset - first.offset);  // drop `a, `
        else
          out.insert(toks[i].offset + 1, pick(2) ? "1, " : "16, ");
        return;
      }
      case 6: {  // True and False trade places
        std::size_t i = find(toks, [&](std::size_t j) { return toks[j].is_name("True") || toks[j].is_name("False"); });
        if (i != std::string::npos) replace(out, toks[i], toks[i].is_name("True") ? "False" : "True");
        return;
      }
      case 7: {  // a statement line is duplicated or dropped
        std::size_t i = find(toks, [&](std::size_t j) {
          return j > 0 && toks[j - 1].is(K::newline) && !is_layout_token(toks[j]) && toks[j].span.column > 5;
        });
        if (i == std::string::npos) return;
        std::size_t begin = out.rfind('\n', toks[i].offset);
        begin = begin == std::string::npos ? 0 : begin + 1;
        std::size_t end = out.find('\n', toks[i].offset);
        end = end == std::string::npos ? out.size() : end + 1;
        if (pick(2)) out.insert(begin, out.substr(begin, end - begin));
        else out.erase(begin, end - begin);
        return;
      }
      default: {  // a keyword argument is dropped
        std::size_t i = find(toks, [&](std::size_t j) {
          return j + 1 < toks.size() && toks[j].is(K::comma) && toks[j + 1].is(K::name) && j + 2 < toks.size() &&
                 toks[j + 2].is(K::assign);
        });
        if (i == std::string::npos) return;
        int depth = 0;
        std::size_t j = i + 1;
        for (; j < toks.size(); ++j) {
          if (toks[j].is(K::lparen) || toks[j].is(K::lbracket) || toks[j].is(K::lbrace)) ++depth;
          if (toks[j].is(K::rparen) || toks[j].is(K::rbracket) || toks[j].is(K::rbrace)) {
            if (depth == 0) break;
            --depth;
          }
          if (depth == 0 && toks[j].is(K::comma)) break;
        }
        if (j < toks.size()) out.erase(toks[i].offset, toks[j].offset - toks[i].offset);
        return;
      }
    }
  }

  std::mt19937 rng_;
  std::vector<std::string> op_stems_;
};

}  // namespace tilewright::fuzz
