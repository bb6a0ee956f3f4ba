#pragma once
// Shared helpers of the ops_* unit tests: building typed values and calls tersely.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/ops/catalog.hpp"
#include "tilewright/ops/create.hpp"

namespace ops_test {

using namespace tilewright;
using ir::DataType;
using ir::MemorySpace;
using ir::TileLayout;

inline ir::Expr I(std::int64_t v) { return ir::make_int(v); }
inline ir::Expr sym(const char* name) { return ir::make_var(name, ir::scalar_type(DataType::INDEX)); }
inline ir::Expr tup(std::vector<ir::Expr> e) { return ir::make_tuple(std::move(e)); }
inline ir::Expr tup(std::initializer_list<std::int64_t> v) {
  std::vector<ir::Expr> e;
  for (auto x : v) e.push_back(I(x));
  return ir::make_tuple(std::move(e));
}
inline std::vector<ir::Expr> dims(std::initializer_list<std::int64_t> v) {
  std::vector<ir::Expr> e;
  for (auto x : v) e.push_back(I(x));
  return e;
}
inline ir::Expr tile(const char* name, std::vector<ir::Expr> shape, DataType dt,
                     std::optional<MemorySpace> mem = MemorySpace::Vec,
                     std::optional<ir::TileView> view = std::nullopt) {
  return ir::make_var(name, ir::make_tile_type(std::move(shape), dt, std::move(view), mem));
}
inline ir::Expr tile(const char* name, std::initializer_list<std::int64_t> shape, DataType dt,
                     std::optional<MemorySpace> mem = MemorySpace::Vec) {
  return tile(name, dims(shape), dt, mem);
}
inline ir::Expr tensor(const char* name, std::initializer_list<std::int64_t> shape, DataType dt,
                       std::optional<ir::TensorView> view = std::nullopt) {
  return ir::make_var(name, ir::make_tensor_type(dims(shape), dt, std::move(view)));
}
inline ir::Expr call(std::string_view op, std::vector<ir::Expr> args, ir::Kwargs kw = {}) {
  return ops::create_call(ops::builtin_registry(), op, std::move(args), std::move(kw), {});
}
inline const ir::TileType& T(const ir::Expr& e) {
  auto* t = ir::tile_type(e);
  REQUIRE(t != nullptr);
  return *t;
}
inline std::vector<std::int64_t> ints(const std::vector<ir::Expr>& v) {
  std::vector<std::int64_t> out;
  for (const auto& e : v) out.push_back(ir::const_int(e).value_or(-999));
  return out;
}
inline std::vector<std::int64_t> shape_of(const ir::Expr& e) { return ints(T(e).shape); }
inline std::vector<std::int64_t> valid_of(const ir::Expr& e) { return ints(ir::valid_shape(T(e))); }
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ir::Error& e) {
    return e.what();
  }
  return "<no error>";
}
using V = std::vector<std::int64_t>;
inline bool same(const ir::Type& a, const ir::Type& b) { return ir::structural_equal(a, b); }

}  // namespace ops_test
