#pragma once
// A name the IR refers to by identity (the function a Call calls): interned for the life of
// the process, so that holding one costs a pointer and comparing two costs a compare. A Call
// sits inside every expression node's storage, so the 32 bytes of a std::string here were
// paid by every constant of every program.
#include <string>
#include <string_view>

#include "tilewright/ir/detail/intern.hpp"

namespace tilewright::ir {

class Symbol {
 public:
  Symbol() = default;
  // Explicit, so that comparing with a string literal or a std::string reads it as text
  // rather than interning it first.
  explicit Symbol(std::string_view text) : text_(text.empty() ? nullptr : &detail::intern_string(text)) {}
  explicit Symbol(const char* text) : Symbol(std::string_view(text)) {}
  explicit Symbol(const std::string& text) : Symbol(std::string_view(text)) {}

  [[nodiscard]] bool empty() const noexcept { return text_ == nullptr; }
  [[nodiscard]] const std::string& str() const noexcept { return text_ ? *text_ : none(); }
  operator const std::string&() const noexcept { return str(); }  // NOLINT(google-explicit-constructor)
  operator std::string_view() const noexcept { return str(); }    // NOLINT(google-explicit-constructor)

  // Equal texts share one pointer.
  friend bool operator==(const Symbol&, const Symbol&) noexcept = default;
  friend bool operator==(const Symbol& a, std::string_view b) noexcept { return a.str() == b; }

 private:
  static const std::string& none() noexcept {
    static const std::string empty;
    return empty;
  }
  const std::string* text_ = nullptr;
};

}  // namespace tilewright::ir
