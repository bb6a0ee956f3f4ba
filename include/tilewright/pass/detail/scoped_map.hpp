#pragma once
// A hash map with nested scopes undone by an undo log, for walks over structured control
// flow (what is visible inside a branch or loop body, and what a branch changed).
//
// Entering a scope is taking a mark; leaving it is rolling back to the mark. Each binding
// pushes one log entry and each rollback pops it once, so a whole walk costs time linear
// in the number of bindings: no scope is ever copied.
#include <cstddef>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tilewright::pass::detail {

template <class Key, class Value>
class ScopedMap {
 public:
  using Mark = std::size_t;

  // One binding as it was made: the key and what it was bound to before (if anything).
  struct Entry {
    Key key;
    Value previous;
    bool had_previous;
  };

  [[nodiscard]] Mark mark() const noexcept { return log_.size(); }

  void bind(const Key& key, Value value) {
    auto [it, inserted] = table_.try_emplace(key, value);
    if (inserted) {
      log_.push_back(Entry{key, Value{}, false});
    } else {
      log_.push_back(Entry{key, std::move(it->second), true});
      it->second = std::move(value);
    }
  }

  [[nodiscard]] const Value* find(const Key& key) const {
    auto it = table_.find(key);
    return it == table_.end() ? nullptr : &it->second;
  }

  // The bindings made since `m`, oldest first (a key bound twice appears twice; its first
  // entry tells what it was bound to when the mark was taken).
  [[nodiscard]] const Entry* since_begin(Mark m) const noexcept { return log_.data() + m; }
  [[nodiscard]] const Entry* since_end() const noexcept { return log_.data() + log_.size(); }

  void rollback(Mark m) {
    while (log_.size() > m) {
      Entry& e = log_.back();
      if (e.had_previous) table_[e.key] = std::move(e.previous);
      else table_.erase(e.key);
      log_.pop_back();
    }
  }

 private:
  std::unordered_map<Key, Value> table_;
  std::vector<Entry> log_;
};

}  // namespace tilewright::pass::detail
