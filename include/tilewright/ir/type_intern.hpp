#pragma once
// Hash-consing of types: one node per distinct type. A kernel has a handful of distinct tile
// and tensor types and repeats them on every line; interning them makes each line's type the
// node the previous line had, so a program keeps one copy, and a walk that remembers the
// types it found unchanged (ir::Mutator does) meets each one once.
//
// "Distinct" is the strictest equality there is: every field, buffer references included,
// symbolic dims by the Var they name, constants by value and dtype (the printer writes `4`
// and `pl.const(4, pl.INT64)` differently). Only spans may differ, so the node kept carries
// the spans of its first occurrence.
#include <cstddef>
#include <unordered_map>
#include <utility>

#include "tilewright/ir/structural_equal.hpp"

namespace tilewright::ir {

class TypeInterner {
 public:
  // The interned node equal to `t`: `t` itself the first time such a type is met. Scalars
  // and markers are returned as they are (they are small and have nothing to share).
  Type operator()(const Type& t) {
    if (!is_structured_type(t)) return t;
    std::size_t h = StructuralHash(exact)(t);
    auto [first, last] = table_.equal_range(h);
    for (auto it = first; it != last; ++it)
      if (it->second == t || equal_(it->second, t)) return it->second;
    table_.emplace(h, t);
    return t;
  }

  [[nodiscard]] std::size_t size() const noexcept { return table_.size(); }

 private:
  static constexpr EqualityOptions exact{VarMatch::by_identity, Buffers::compared, ConstantDtypes::exact};
  std::unordered_multimap<std::size_t, Type> table_;
  // One comparator for every lookup: a fresh one allocates its path anew at each comparison,
  // and a kernel interns a type per line. Comparing by identity keeps no state between calls
  // but the path, which every comparison leaves empty.
  StructuralEqual equal_{exact};
};

}  // namespace tilewright::ir
