#pragma once
// A Mutator that maps types. Types are shared between Vars, Calls and signatures, so the
// mapping runs once per distinct type node: `Derived::map_type(t)` is asked the first time a
// node is met and its answer is remembered for every later meeting. The default `map_type`
// rebuilds the node's children through the walker (tuple elements, symbolic dims), so a
// derived mapper calls it for the parts it does not handle itself.
//
//   struct Widen : ir::TypeMappingMutator<Widen> {
//     ir::Type map_type(const ir::Type& t) {
//       ir::Type inner = TypeMappingMutator::map_type(t);   // elements, dims
//       return is_narrow(inner) ? widened(inner) : inner;
//     }
//   };
//
// MaterializeTensorStrides is one such mapper; FlattenTileNdTo2D's walker is another (its
// rules run on top of the mapped types).
#include <utility>

#include "tilewright/ir/mutate.hpp"
#include "tilewright/ir/node_map.hpp"

namespace tilewright::ir {

template <class Derived>
class TypeMappingMutator : public Mutator<Derived> {
 public:
  Type mutate_type(const Type& t) {
    if (!t) return t;
    if (auto it = memo_.find(t.get()); it != memo_.end()) return it->second.second;
    Type out = static_cast<Derived&>(*this).map_type(t);
    // The entry keeps its key alive, so a freed type's address can never alias a live one.
    memo_.emplace(t.get(), std::pair{t, out});
    return out;
  }

  Type map_type(const Type& t) { return Mutator<Derived>::mutate_type(t); }

 private:
  PointerMap<const TypeNode*, std::pair<Type, Type>> memo_;  // flat: no node per entry
};

}  // namespace tilewright::ir
