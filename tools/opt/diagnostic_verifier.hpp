#pragma once
// --verify-diagnostics: MLIR's convention, written in `#` comments. An input states the
// diagnostics it must produce:
//
//   x = pl.tile.read(a, [0, 0, 0])   # expected-error {{is not supported on >2D tiles}}
//   # expected-error @+1 {{...}}     (on the next line; @-1 the previous one, @+N / @-N)
//   # expected-note @above {{...}}   (the nearest line above that is neither blank nor only
//                                     expectations; @below likewise)
//   # expected-error @unknown {{...}} (a diagnostic without a location)
//
// Kinds are error, warning and note; the text between {{ }} must occur in the diagnostic's
// message (its origin included, e.g. "FlattenTileNdTo2D: …"). Verification passes when the
// produced diagnostics and the expectations match one to one.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tilewright/ir/diagnostic.hpp"

namespace tilewright::opt {

struct ExpectedDiagnostic {
  ir::Severity severity = ir::Severity::error;
  std::optional<int> line;  // nullopt: @unknown
  std::string text;
  int written_line = 0;     // where the expectation is written
  int written_column = 0;
  bool matched = false;
};

struct ExpectationError {
  int line = 0;
  int column = 0;
  std::string message;
};

namespace detail {

inline std::string_view severity_word(ir::Severity s) {
  return s == ir::Severity::error ? "error" : s == ir::Severity::warning ? "warning" : "note";
}

// Lines @above / @below step over: blank ones and those holding nothing but expectations.
inline bool only_expectations(std::string_view line) {
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return true;
  std::size_t hash = line.find('#');
  if (hash == std::string_view::npos || line.substr(0, hash).find_first_not_of(" \t") != std::string_view::npos)
    return false;
  return line.find("expected-", hash) != std::string_view::npos;
}

}  // namespace detail

// The expectations written in `source` (lines numbered from first_line); malformed ones are
// reported in `errors`.
inline std::vector<ExpectedDiagnostic> parse_expectations(std::string_view source, int first_line,
                                                          std::vector<ExpectationError>& errors) {
  std::vector<std::string_view> lines;
  for (std::size_t begin = 0; begin <= source.size();) {
    std::size_t end = source.find('\n', begin);
    if (end == std::string_view::npos) end = source.size();
    lines.push_back(source.substr(begin, end - begin));
    begin = end + 1;
  }
  std::vector<ExpectedDiagnostic> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    std::size_t hash = line.find('#');
    if (hash == std::string_view::npos) continue;
    const int number = first_line + static_cast<int>(i);
    for (std::size_t at = line.find("expected-", hash); at != std::string_view::npos;
         at = line.find("expected-", at + 1)) {
      ExpectedDiagnostic e;
      e.written_line = number;
      e.written_column = static_cast<int>(at) + 1;
      std::size_t p = at + 9;
      auto word = [&](std::string_view w) {
        if (line.substr(p, w.size()) != w) return false;
        p += w.size();
        return true;
      };
      if (word("error")) e.severity = ir::Severity::error;
      else if (word("warning")) e.severity = ir::Severity::warning;
      else if (word("note")) e.severity = ir::Severity::note;
      else continue;  // prose such as "expected-value"; not ours
      auto blanks = [&] {
        while (p < line.size() && (line[p] == ' ' || line[p] == '\t')) ++p;
      };
      blanks();
      e.line = number;
      if (p < line.size() && line[p] == '@') {
        ++p;
        if (word("unknown")) {
          e.line.reset();
        } else if (word("above") || word("below")) {
          const bool above = line[p - 1] == 'e';
          std::size_t j = i;
          bool found = false;
          while (above ? j > 0 : j + 1 < lines.size()) {
            j = above ? j - 1 : j + 1;
            if (!detail::only_expectations(lines[j])) {
              found = true;
              break;
            }
          }
          if (!found) {
            errors.push_back({number, e.written_column, "no line " + std::string(above ? "above" : "below") +
                                                           " this expectation for @" + (above ? "above" : "below") + " to name"});
            continue;
          }
          e.line = first_line + static_cast<int>(j);
        } else if (p < line.size() && (line[p] == '+' || line[p] == '-')) {
          const int sign = line[p] == '-' ? -1 : 1;
          std::size_t digits = ++p;
          int offset = 0;
          while (p < line.size() && line[p] >= '0' && line[p] <= '9') offset = offset * 10 + (line[p++] - '0');
          if (p == digits) {
            errors.push_back({number, e.written_column, "expected a line offset after @+ or @-"});
            continue;
          }
          e.line = number + sign * offset;
        } else {
          errors.push_back({number, e.written_column, "unknown location '@" + std::string(line.substr(p, 8)) +
                                                         "' (use @+N, @-N, @above, @below or @unknown)"});
          continue;
        }
        blanks();
      }
      std::size_t open = line.substr(p, 2) == "{{" ? p : std::string_view::npos;
      std::size_t close = open == std::string_view::npos ? open : line.find("}}", open + 2);
      if (close == std::string_view::npos) {
        errors.push_back({number, e.written_column, "expected-" + std::string(detail::severity_word(e.severity)) +
                                                       " needs its text between {{ and }}"});
        continue;
      }
      e.text = std::string(line.substr(open + 2, close - open - 2));
      out.push_back(std::move(e));
      at = close;
    }
  }
  return out;
}

// Every diagnostic and each of its notes, as separately matchable diagnostics.
inline std::vector<ir::Diagnostic> flatten_notes(const std::vector<ir::Diagnostic>& diagnostics) {
  std::vector<ir::Diagnostic> out;
  for (const auto& d : diagnostics) {
    ir::Diagnostic main = d;
    main.notes.clear();
    out.push_back(std::move(main));
    for (const auto& [text, span] : d.notes)
      out.push_back(ir::Diagnostic{ir::Severity::note, d.kind, {}, text, span, {}});
  }
  return out;
}

// Matches produced diagnostics against the expectations; returns the problems, each as a
// rendered `file:line:col: error: …` line (empty when everything matched).
inline std::string verify_diagnostics(std::vector<ExpectedDiagnostic> expected,
                                      const std::vector<ir::Diagnostic>& produced, const std::string& file_name) {
  std::string out;
  for (const auto& d : flatten_notes(produced)) {
    const std::string message = d.origin.empty() ? d.message : d.origin + ": " + d.message;
    bool found = false;
    for (auto& e : expected) {
      if (e.matched || e.severity != d.severity) continue;
      if (e.line ? !(d.span.known() && d.span.line == *e.line) : d.span.known()) continue;
      if (message.find(e.text) == std::string::npos) continue;
      e.matched = found = true;
      break;
    }
    if (found) continue;
    out += d.span.known() ? file_name + ":" + std::to_string(d.span.line) + ":" + std::to_string(d.span.column)
                          : file_name;
    out += ": error: unexpected " + std::string(detail::severity_word(d.severity)) + ": " + message + "\n";
  }
  for (const auto& e : expected)
    if (!e.matched)
      out += file_name + ":" + std::to_string(e.written_line) + ":" + std::to_string(e.written_column) +
             ": error: expected " + std::string(detail::severity_word(e.severity)) + " \"" + e.text +
             "\" was not produced" +
             (e.line ? (*e.line != e.written_line ? " (at line " + std::to_string(*e.line) + ")" : std::string())
                     : std::string(" (at an unknown location)")) +
             "\n";
  return out;
}

}  // namespace tilewright::opt
