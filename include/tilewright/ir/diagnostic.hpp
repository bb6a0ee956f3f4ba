#pragma once
// One diagnostic type shared by the parser, the verifiers and the passes.
//
// A user error means "this input cannot be handled; here is why and how to fix it".
// An internal error means "a pipeline invariant is broken" (a pass ran out of order, a
// verifier found IR that no earlier pass should have produced).
#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilewright/ir/span.hpp"

namespace tilewright::ir {

enum class Severity { error, warning, note };
enum class ErrorKind { user, internal };

struct Diagnostic {
  Severity severity = Severity::error;
  ErrorKind kind = ErrorKind::user;
  std::string origin;   // pass, verifier rule or "parser"
  std::string message;  // one sentence or more: what is wrong and how to fix it
  Span span;
  std::vector<std::pair<std::string, Span>> notes;
};

using Diagnostics = std::vector<Diagnostic>;

// Thrown by library code that cannot continue; carries the diagnostic to render.
class Error : public std::runtime_error {
 public:
  explicit Error(Diagnostic d) : std::runtime_error(d.message), diag_(std::move(d)) {}
  [[nodiscard]] const Diagnostic& diagnostic() const noexcept { return diag_; }

 private:
  Diagnostic diag_;
};

[[noreturn]] inline void throw_user_error(std::string origin, std::string message, Span span = {}) {
  throw Error(Diagnostic{Severity::error, ErrorKind::user, std::move(origin), std::move(message),
                         std::move(span), {}});
}

[[noreturn]] inline void throw_internal_error(std::string origin, std::string message,
                                              Span span = {}) {
  throw Error(Diagnostic{Severity::error, ErrorKind::internal, std::move(origin),
                         std::move(message), std::move(span), {}});
}

// Renders `file:line:col: error: message`, then the source line and a caret when the
// span is known and `source` holds the text the span points into.
inline std::string render(const Diagnostic& d, std::string_view source = {}) {
  std::string out;
  auto location = [&](const Span& s) {
    if (!s.known()) return;
    out += s.file_name().empty() ? std::string("<input>") : s.file_name();
    out += ':' + std::to_string(s.line) + ':' + std::to_string(s.column) + ": ";
  };
  // Message text can quote the input (a string literal, a name): keep control bytes out of
  // the terminal, spelled as \xNN.
  auto printable = [&](std::string_view text) {
    static constexpr char kHex[] = "0123456789abcdef";
    for (char c : text) {
      auto u = static_cast<unsigned char>(c);
      if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7F) {
        out += "\\x";
        out += kHex[u >> 4];
        out += kHex[u & 0xF];
      } else {
        out += c;
      }
    }
  };
  auto excerpt = [&](const Span& s) {
    if (!s.known() || source.empty()) return;
    std::size_t begin = 0;
    for (int line = 1; line < s.line && begin != std::string_view::npos; ++line) {
      begin = source.find('\n', begin);
      if (begin != std::string_view::npos) ++begin;
    }
    if (begin == std::string_view::npos || begin > source.size()) return;
    std::size_t end = source.find('\n', begin);
    std::string_view text = source.substr(begin, end == std::string_view::npos ? end : end - begin);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    // A very long line (generated text, a 100k-digit literal) shows only a window around
    // the caret, marked with "...".
    constexpr std::size_t kLongLine = 320, kWindow = 120;
    std::size_t caret = static_cast<std::size_t>(s.column > 0 ? s.column - 1 : 0);
    if (caret > text.size()) caret = text.size();
    bool clip = text.size() > kLongLine;
    std::size_t from = clip && caret > kWindow ? caret - kWindow : 0;
    std::size_t to = clip ? std::min(text.size(), caret + kWindow) : text.size();
    std::string_view shown = text.substr(from, to - from);
    std::string lead = from > 0 ? "..." : "";
    out += "  " + lead;
    // Control bytes (a NUL, an escape sequence) would reach the terminal raw: show '?'.
    for (char c : shown) {
      auto u = static_cast<unsigned char>(c);
      out += (u < 0x20 && c != '\t') || u == 0x7F ? '?' : c;
    }
    if (to < text.size()) out += "...";
    out += "\n  ";
    out.append(lead.size(), ' ');
    for (std::size_t i = 0; i < caret - from; ++i) out += shown[i] == '\t' ? '\t' : ' ';
    out += "^\n";
  };
  location(d.span);
  out += d.severity == Severity::error ? (d.kind == ErrorKind::internal ? "internal error: " : "error: ")
         : d.severity == Severity::warning ? "warning: "
                                            : "note: ";
  if (!d.origin.empty()) out += d.origin + ": ";
  printable(d.message);
  out += '\n';
  excerpt(d.span);
  for (const auto& [text, span] : d.notes) {
    location(span);
    out += "note: ";
    printable(text);
    out += '\n';
    excerpt(span);
  }
  return out;
}

}  // namespace tilewright::ir
