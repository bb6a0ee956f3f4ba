#pragma once
// Source locations: a file, a line and a column, attached to tokens, nodes and diagnostics.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "tilewright/ir/detail/intern.hpp"

namespace tilewright::ir {

// The name of a source file, interned for the life of the process, so that a span is two
// ints and a pointer: every token and every node carries one, and copying them must cost
// nothing (a shared_ptr here cost an atomic increment per token and per rebuilt node).
// The table is detail::intern_string's, shared with Symbol.
class FileName {
 public:
  FileName() = default;
  FileName(std::nullptr_t) noexcept {}                         // NOLINT(google-explicit-constructor)
  FileName(std::string_view name) : name_(&detail::intern_string(name)) {}  // NOLINT(google-explicit-constructor)
  FileName(const char* name) : FileName(std::string_view(name)) {}  // NOLINT(google-explicit-constructor)
  FileName(const std::string& name) : FileName(std::string_view(name)) {}  // NOLINT(google-explicit-constructor)
  FileName(const std::shared_ptr<const std::string>& name)  // NOLINT(google-explicit-constructor)
      : name_(name ? &detail::intern_string(*name) : nullptr) {}

  explicit operator bool() const noexcept { return name_ != nullptr; }
  const std::string& operator*() const noexcept { return *name_; }
  const std::string* operator->() const noexcept { return name_; }
  // One pointer per distinct name, so equal names compare by address.
  friend bool operator==(const FileName&, const FileName&) noexcept = default;

 private:
  const std::string* name_ = nullptr;
};

struct Span {
  FileName file;     // null when unknown
  int line = -1;     // 1-based; -1 when unknown
  int column = -1;   // 1-based; -1 when unknown

  [[nodiscard]] bool known() const noexcept { return line > 0; }
  [[nodiscard]] std::string file_name() const { return file ? *file : std::string(); }

  // Spans never take part in structural equality or hashing.
  friend bool operator==(const Span&, const Span&) noexcept { return true; }
};

}  // namespace tilewright::ir
