#pragma once
// A table keyed by node address (a Var's identity, a type node): a flat open-addressing hash
// map.
//
// Walks probe such tables once or more per node (the Mutator's substitution, the analyses'
// per-Var facts), so they decide a pass's speed on large bodies. A node-based std::unordered_map allocates one node per entry and
// follows a pointer per probe; here the entries live in one dense array, in insertion order,
// and a second array of (key, index) slots, at most half full, finds them by a multiplicative
// hash of the node's address and linear probing; both are freed at once. Entries are only
// ever added (the pass never forgets a Var), so there are no tombstones; a value may be overwritten. Growth moves the
// entries: a pointer into the table is valid until the next insertion, as for a vector.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "tilewright/ir/fwd.hpp"

namespace tilewright::ir {

template <class Key, class T>
class PointerMap {
 public:
  using key_type = Key;
  struct Entry {
    key_type first;
    T second;
  };
  using iterator = Entry*;
  using const_iterator = const Entry*;

  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
  [[nodiscard]] bool empty() const noexcept { return entries_.empty(); }

  // Room for `n` entries without growing.
  void reserve(std::size_t n) {
    entries_.reserve(n);
    if (n * 2 > slots_.size()) rehash(std::bit_ceil(std::max<std::size_t>(n * 2, 16)));
  }

  // In insertion order.
  iterator begin() noexcept { return entries_.data(); }
  iterator end() noexcept { return entries_.data() + entries_.size(); }
  const_iterator begin() const noexcept { return entries_.data(); }
  const_iterator end() const noexcept { return entries_.data() + entries_.size(); }

  iterator find(key_type key) noexcept { return entries_.data() + index_of(key); }
  const_iterator find(key_type key) const noexcept { return entries_.data() + index_of(key); }
  [[nodiscard]] bool contains(key_type key) const noexcept {
    return index_of(key) != entries_.size();
  }

  // As std::unordered_map::try_emplace: the value is made from `args` only when `key` is new,
  // before the table grows, so `args` may refer into the table.
  template <class... Args>
  std::pair<iterator, bool> emplace(key_type key, Args&&... args) {
    if (std::size_t i = index_of(key); i != entries_.size()) return {entries_.data() + i, false};
    T value(std::forward<Args>(args)...);
    if ((entries_.size() + 1) * 2 > slots_.size())
      rehash(slots_.empty() ? 16 : slots_.size() * 2);
    slots_[free_slot(key)] = Slot{key, static_cast<std::uint32_t>(entries_.size())};
    entries_.push_back(Entry{key, std::move(value)});
    return {&entries_.back(), true};
  }
  std::pair<iterator, bool> insert(key_type key) { return emplace(key); }
  T& operator[](key_type key) { return emplace(key).first->second; }

 private:
  struct Slot {
    key_type key = nullptr;  // null: free
    std::uint32_t index = 0;  // into entries_
  };

  // Fibonacci hashing of the address: the high bits of the product pick the slot, so the
  // allocator's alignment (the low bits, always equal) does not cluster the keys.
  [[nodiscard]] std::size_t home(key_type key) const noexcept {
    return static_cast<std::size_t>(
        (static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(key)) *
         0x9E3779B97F4A7C15ull) >>
        shift_);
  }
  // The entry holding `key`, or entries_.size(); a null key is never held (a free slot is
  // tested first, so null finds nothing rather than the free slot's index).
  [[nodiscard]] std::size_t index_of(key_type key) const noexcept {
    if (slots_.empty()) return entries_.size();
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = home(key);; i = (i + 1) & mask) {
      if (!slots_[i].key) return entries_.size();
      if (slots_[i].key == key) return slots_[i].index;
    }
  }
  [[nodiscard]] std::size_t free_slot(key_type key) const noexcept {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = home(key);
    while (slots_[i].key) i = (i + 1) & mask;
    return i;
  }
  void rehash(std::size_t capacity) {
    slots_.assign(capacity, Slot{});
    shift_ = 64 - std::countr_zero(capacity);
    for (std::size_t k = 0; k < entries_.size(); ++k)
      slots_[free_slot(entries_[k].first)] = Slot{entries_[k].first, static_cast<std::uint32_t>(k)};
  }

  std::vector<Entry> entries_;  // dense, in insertion order
  std::vector<Slot> slots_;     // a power of two in size, at most half full
  int shift_ = 64;
};

// Keyed by expression node; a set of expression nodes.
template <class T>
using NodeMap = PointerMap<const ExprNode*, T>;
using NodeSet = NodeMap<bool>;

}  // namespace tilewright::ir
