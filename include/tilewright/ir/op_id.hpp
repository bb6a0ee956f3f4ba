#pragma once
// Interned operator identities. An op is a small integer from the moment it is first
// named; matching compares integers, never strings. The registry (ops/) attaches a table
// row to each id; the IR only needs the id and the spelling.
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace tilewright::ir {

struct OpId {
  std::uint32_t value = 0;  // 0 is "no op"
  friend bool operator==(OpId, OpId) = default;
  explicit operator bool() const noexcept { return value != 0; }
};

namespace detail {
struct OpInterner {
  std::mutex mutex;
  std::deque<std::string> names{std::string()};  // deque: stable addresses for string_views
  std::unordered_map<std::string_view, std::uint32_t> ids;

  static OpInterner& instance() {
    static OpInterner table;
    return table;
  }
};
}  // namespace detail

inline OpId intern_op(std::string_view name) {
  auto& t = detail::OpInterner::instance();
  std::lock_guard lock(t.mutex);
  if (auto it = t.ids.find(name); it != t.ids.end()) return OpId{it->second};
  t.names.emplace_back(name);
  auto id = static_cast<std::uint32_t>(t.names.size() - 1);
  t.ids.emplace(t.names.back(), id);
  return OpId{id};
}

inline std::string_view op_name(OpId id) {
  auto& t = detail::OpInterner::instance();
  std::lock_guard lock(t.mutex);
  return id.value < t.names.size() ? std::string_view(t.names[id.value]) : std::string_view();
}

}  // namespace tilewright::ir
