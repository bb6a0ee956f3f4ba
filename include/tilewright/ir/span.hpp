#pragma once
// Source locations. A Span names a file by a shared pointer so that every node parsed
// from one buffer shares the name without copying it.
#include <memory>
#include <string>

namespace tilewright::ir {

struct Span {
  std::shared_ptr<const std::string> file;  // null when unknown
  int line = -1;                            // 1-based; -1 when unknown
  int column = -1;                          // 1-based; -1 when unknown

  [[nodiscard]] bool known() const noexcept { return line > 0; }
  [[nodiscard]] std::string file_name() const { return file ? *file : std::string(); }

  // Spans never take part in structural equality or hashing.
  friend bool operator==(const Span&, const Span&) noexcept { return true; }
};

}  // namespace tilewright::ir
