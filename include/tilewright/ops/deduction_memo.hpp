#pragma once
// Remembered type deductions: the type ops::create_call gives a call, computed once per
// distinct (op, operands as deduction sees them, kwargs) and handed out again after.
//
// A pass that re-creates many calls of a few shapes (every matmul of a kernel reading a
// Left copy of a [16, 128] Mat slice, say) pays the row's validation and deduction once per
// shape instead of once per call. What a deducer reads decides the key:
//   * a tile or tensor operand only through its type: keyed by the type, compared exactly
//     (ir::TypeInterner: every field, symbolic dims by their Var); a type node met before is
//     recognised by its address alone, so the parser's shared annotations cost one probe,
//     and a program built with fresh type nodes per line (the C++ builder's) still shares
//     deductions. A tile is never an index value, so its Var cannot end up inside the
//     deduced type;
//   * a constant by its value and dtype, a literal tuple by its elements, recursively;
//   * anything else — a scalar Var, a tuple-typed Var, an index expression — by the node
//     itself: a deducer may write it into the result (a symbolic extent, a TupleGetItem).
// The memo holds every node and type its keys point at, so an address is never reused for
// another node while it is alive. On a hit the row's validation is not run again: the same
// op with the same operand count and kwargs passes it as it did the first time.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "tilewright/ir/node_map.hpp"
#include "tilewright/ir/type_intern.hpp"
#include "tilewright/ops/create.hpp"

namespace tilewright::ops {

class DeductionMemo {
 public:
  // call_type(info, args, kwargs, span, annotated): the type create_call gives the call.
  [[nodiscard]] Type type_of(const OpInfo& info, const std::vector<Expr>& args,
                             const Kwargs& kwargs, const Span& span, const Type& annotated = nullptr) {
    size_ = 0;
    word(reinterpret_cast<std::uintptr_t>(&info));
    word(args.size());
    for (const auto& a : args) operand(a, 0, nullptr);
    // The annotation matters only to an op without a deducer.
    if (!info.deduce) hold(annotated, nullptr);
    // A key too long for the probe (a call with dozens of operands) is not remembered.
    const bool remembered = size_ <= key_.size();
    const std::uint64_t h = remembered ? hash(kwargs) : 0;
    if (remembered && !slots_.empty())
      for (std::size_t i = h & (slots_.size() - 1); slots_[i].entry; i = (i + 1) & (slots_.size() - 1)) {
        if (slots_[i].hash != h) continue;
        const Entry& e = entries_[slots_[i].entry - 1];
        if (std::equal(e.key.begin(), e.key.end(), key_.begin(), key_.begin() + size_) &&
            e.kwargs == kwargs) {
          ++hits_;
          return e.type;
        }
      }
    Type type = call_type(info, args, kwargs, span, annotated);
    if (!remembered) return type;
    // The owners are gathered for a new entry only: a probe touches no reference count.
    Owners owners;
    const std::size_t probe = size_;
    for (const auto& a : args) operand(a, 0, &owners);
    if (!info.deduce) hold(annotated, &owners);
    entries_.push_back(Entry{{key_.begin(), key_.begin() + probe}, kwargs, std::move(owners), type});
    index(h, entries_.size());
    return type;
  }

  // create_call through the memo; `attrs` are carried on the call as they are.
  [[nodiscard]] Expr create_call(const OpInfo& info, std::vector<Expr> args, Kwargs kwargs, Span span,
                                 const Type& annotated = nullptr, Kwargs attrs = {}) {
    Type type = type_of(info, args, kwargs, span, annotated);
    return ir::make_call(info.id, std::move(args), std::move(kwargs), std::move(type), std::move(span),
                         std::move(attrs));
  }

  // How often a remembered type was handed out, and how many are remembered.
  [[nodiscard]] std::size_t hits() const noexcept { return hits_; }
  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }

 private:
  // Literal tuples nest rarely and shallowly; a deeper one is keyed as a node.
  static constexpr int max_tuple_depth = 4;

  enum Tag : std::uintptr_t { null, typed, integer, floating, boolean, tuple, node };

  using Owners = std::vector<std::shared_ptr<const void>>;

  // Past the probe's end only the count goes on: the key is then too long to remember.
  void word(std::uintptr_t w) noexcept {
    if (size_ < key_.size()) key_[size_] = w;
    ++size_;
  }
  // A node's address in the key; with `owners`, the node kept alive too.
  template <class T>
  void hold(const std::shared_ptr<T>& p, Owners* owners) {
    word(reinterpret_cast<std::uintptr_t>(p.get()));
    if (owners && p) owners->push_back(p);
  }

  void operand(const Expr& e, int depth, Owners* owners) {
    if (!e) return word(Tag::null);
    if (ir::is_var_like(e) && (ir::as<ir::TileType>(e->type) || ir::as<ir::TensorType>(e->type))) {
      word(Tag::typed);
      return word(reinterpret_cast<std::uintptr_t>(canonical(e->type)));
    }
    auto* scalar = ir::as<ir::ScalarType>(e->type);
    if (auto* c = ir::as<ir::ConstInt>(e); c && scalar) {
      word(Tag::integer);
      word(static_cast<std::uintptr_t>(c->value));
      return word(static_cast<std::uintptr_t>(scalar->dtype));
    }
    if (auto* c = ir::as<ir::ConstFloat>(e); c && scalar) {
      word(Tag::floating);
      word(std::bit_cast<std::uint64_t>(c->value));
      return word(static_cast<std::uintptr_t>(scalar->dtype));
    }
    if (auto* c = ir::as<ir::ConstBool>(e)) {
      word(Tag::boolean);
      return word(c->value ? 1 : 0);
    }
    if (auto* t = ir::as<ir::MakeTuple>(e); t && depth < max_tuple_depth) {
      word(Tag::tuple);
      word(t->elements.size());
      for (const auto& element : t->elements) operand(element, depth + 1, owners);
      return;
    }
    word(Tag::node);
    hold(e, owners);
  }

  // The one node standing for every type exactly equal to `t`. Both are kept alive: `t` by
  // the table of nodes met, its stand-in by the interner.
  const ir::TypeNode* canonical(const Type& t) {
    auto [it, fresh] = stand_ins_.emplace(t.get());
    if (fresh) it->second = {t, interner_(t)};
    return it->second.second.get();
  }

  [[nodiscard]] std::uint64_t hash(const Kwargs& kwargs) const noexcept {
    std::uint64_t h = 0xcbf29ce484222325ull;
    auto mix = [&](std::uint64_t v) { h = (h ^ v) * 0x100000001b3ull; };
    for (std::size_t i = 0; i < size_; ++i) mix(key_[i]);
    mix(kwargs.size());
    for (const auto& [name, value] : kwargs) mix(name.size() ^ (value.index() << 8));
    // A product carries low bits only upward, and slots are picked by the low bits: fold the
    // high half down (the aligned addresses' low bits are all zero).
    h ^= h >> 32;
    h *= 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
  }

  struct Entry {
    std::vector<std::uintptr_t> key;
    Kwargs kwargs;
    Owners owners;  // what the key's addresses point at
    Type type;
  };

  // Entry `entry` (counted from 1: 0 marks a free slot) under its key's hash, found by linear
  // probing from the hash; at most half the slots are used.
  struct Slot {
    std::uint64_t hash = 0;
    std::size_t entry = 0;
  };
  void index(std::uint64_t h, std::size_t entry) {
    if (entries_.size() * 2 > slots_.size()) {
      std::vector<Slot> old = std::exchange(slots_, std::vector<Slot>(std::max<std::size_t>(16, slots_.size() * 2)));
      for (const Slot& slot : old)
        if (slot.entry) place(slot);
    }
    place(Slot{h, entry});
  }
  void place(const Slot& slot) {
    std::size_t i = slot.hash & (slots_.size() - 1);
    while (slots_[i].entry) i = (i + 1) & (slots_.size() - 1);
    slots_[i] = slot;
  }

  std::vector<Entry> entries_;
  std::vector<Slot> slots_;  // a power of two in size
  ir::TypeInterner interner_;
  ir::PointerMap<const ir::TypeNode*, std::pair<Type, Type>> stand_ins_;  // node met → (it, stand-in)
  std::array<std::uintptr_t, 64> key_;  // the probe being built
  std::size_t size_ = 0;                // its length (may pass key_.size())
  std::size_t hits_ = 0;
};

}  // namespace tilewright::ops
