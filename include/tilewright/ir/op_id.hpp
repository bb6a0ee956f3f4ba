#pragma once
// Interned operator identities. An op is a small integer from the moment it is first
// named; matching compares integers, never strings. Each id carries what per-statement code
// asks about an op without a registry lookup: its family (tile, tensor, …) and a few traits
// the registry stamps when it adds the op's row. The registry (ops/) attaches the full table
// row; the IR only needs the id, the spelling, the family and the traits.
//
// Reading an id's name, family or traits takes no lock: entries live in fixed chunks that
// are published once and never move. Only interning a new name takes the lock.
#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>

namespace tilewright::ir {

struct OpId {
  std::uint32_t value = 0;  // 0 is "no op"
  friend bool operator==(OpId, OpId) = default;
  explicit operator bool() const noexcept { return value != 0; }
};

// The namespace an op belongs to. A name's prefix gives the default (`tile.exp` is a tile op,
// `pld.tile.remote_load` a distributed one); a registry row may declare another, which is how
// a downstream `mylib.scale` becomes a tile op the passes treat like the built-in ones.
enum class OpFamily : std::uint8_t { none, tile, tensor, system, array, distributed, other };

// What the registry row says about an op, as bits on its id.
enum class OpTrait : std::uint32_t {
  no_memory_access = 1u << 0,  // a pure view or declaration (no_execution_memory_access)
  inplace_unsafe = 1u << 1,    // the output must not share its input's buffer
  internal_only = 1u << 2,     // created by passes, not by users
  retargetable = 1u << 3,      // the output space comes from a `target_memory` kwarg with no default
  deduces_type = 1u << 4,      // the row has a type deducer
  rowwise = 1u << 5,           // each result row is computed from the same row of each operand
};
using OpTraits = std::uint32_t;
constexpr OpTraits operator|(OpTrait a, OpTrait b) noexcept {
  return static_cast<OpTraits>(a) | static_cast<OpTraits>(b);
}

constexpr OpFamily family_of_name(std::string_view name) noexcept {
  if (name.starts_with("tile.")) return OpFamily::tile;
  if (name.starts_with("tensor.")) return OpFamily::tensor;
  if (name.starts_with("system.")) return OpFamily::system;
  if (name.starts_with("array.")) return OpFamily::array;
  if (name.starts_with("pld.")) return OpFamily::distributed;
  return name.empty() ? OpFamily::none : OpFamily::other;
}

namespace detail {
struct OpEntry {
  std::string name;
  std::atomic<OpFamily> family{OpFamily::none};
  std::atomic<OpTraits> traits{0};
};

class OpInterner {
 public:
  static constexpr std::size_t chunk_bits = 8;
  static constexpr std::size_t chunk_size = std::size_t{1} << chunk_bits;
  static constexpr std::size_t max_chunks = 4096;  // a million ops

  static OpInterner& instance() {
    static OpInterner table;
    return table;
  }

  std::uint32_t intern(std::string_view name) {
    std::lock_guard lock(mutex_);
    if (auto it = ids_.find(name); it != ids_.end()) return it->second;
    const std::uint32_t id = size_.load(std::memory_order_relaxed);
    const std::size_t chunk = id >> chunk_bits;
    if (chunk >= max_chunks) throw std::length_error("tilewright: more than a million distinct op names");
    if (!chunks_[chunk].load(std::memory_order_relaxed))
      chunks_[chunk].store(new OpEntry[chunk_size], std::memory_order_release);
    OpEntry& e = entry_unchecked(id);
    e.name = name;
    e.family.store(family_of_name(name), std::memory_order_relaxed);
    ids_.emplace(e.name, id);
    size_.store(id + 1, std::memory_order_release);  // publishes the entry
    return id;
  }

  // Null for an id that was never handed out.
  [[nodiscard]] OpEntry* find(std::uint32_t id) const noexcept {
    if (id >= size_.load(std::memory_order_acquire)) return nullptr;
    return &entry_unchecked(id);
  }

  OpInterner(const OpInterner&) = delete;
  OpInterner& operator=(const OpInterner&) = delete;
  ~OpInterner() {
    for (auto& c : chunks_) delete[] c.load(std::memory_order_relaxed);
  }

 private:
  OpInterner() { intern(""); }  // id 0: no op

  OpEntry& entry_unchecked(std::uint32_t id) const noexcept {
    return chunks_[id >> chunk_bits].load(std::memory_order_acquire)[id & (chunk_size - 1)];
  }

  std::mutex mutex_;
  std::unordered_map<std::string_view, std::uint32_t> ids_;  // views into the entries' names
  std::array<std::atomic<OpEntry*>, max_chunks> chunks_{};
  std::atomic<std::uint32_t> size_{0};
};
}  // namespace detail

inline OpId intern_op(std::string_view name) { return OpId{detail::OpInterner::instance().intern(name)}; }

inline std::string_view op_name(OpId id) noexcept {
  auto* e = detail::OpInterner::instance().find(id.value);
  return e ? std::string_view(e->name) : std::string_view();
}

inline OpFamily op_family(OpId id) noexcept {
  auto* e = detail::OpInterner::instance().find(id.value);
  return e ? e->family.load(std::memory_order_relaxed) : OpFamily::none;
}
inline bool is_tile_op(OpId id) noexcept { return op_family(id) == OpFamily::tile; }

inline OpTraits op_traits(OpId id) noexcept {
  auto* e = detail::OpInterner::instance().find(id.value);
  return e ? e->traits.load(std::memory_order_relaxed) : 0;
}
inline bool op_has(OpId id, OpTrait t) noexcept { return (op_traits(id) & static_cast<OpTraits>(t)) != 0; }

// The registry stamps these when it adds a row; the last row added for a name wins.
inline void set_op_family(OpId id, OpFamily family) noexcept {
  if (auto* e = detail::OpInterner::instance().find(id.value)) e->family.store(family, std::memory_order_relaxed);
}
inline void set_op_traits(OpId id, OpTraits traits) noexcept {
  if (auto* e = detail::OpInterner::instance().find(id.value)) e->traits.store(traits, std::memory_order_relaxed);
}

}  // namespace tilewright::ir
