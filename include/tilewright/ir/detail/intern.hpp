#pragma once
// The process-wide table behind FileName and Symbol: one string per distinct text, never
// freed, so that a handle is a pointer that stays valid for spans and callees held by objects
// destroyed at exit. A program names a handful of files and functions: the table stays small.
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>

namespace tilewright::ir::detail {

inline const std::string& intern_string(std::string_view text) {
  static std::mutex lock;
  static auto* table = new std::unordered_set<std::string>;  // never freed: see above
  std::lock_guard<std::mutex> hold(lock);
  return *table->emplace(text).first;
}

}  // namespace tilewright::ir::detail
