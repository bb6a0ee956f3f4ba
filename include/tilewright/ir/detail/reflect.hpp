#pragma once
// Field reflection over BOOST_HANA_DEFINE_STRUCT aggregates: equality, hashing and child
// traversal are written once against these two loops instead of once per node.
#include <boost/hana/accessors.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/first.hpp>
#include <boost/hana/second.hpp>
#include <boost/hana/string.hpp>
#include <boost/hana/concept/struct.hpp>

namespace tilewright::ir::detail {

template <class T>
inline constexpr bool is_reflected = boost::hana::Struct<T>::value;

// f(name, field) for every field, in declaration order.
template <class T, class F>
void for_each_field(T& object, F&& f) {
  boost::hana::for_each(boost::hana::accessors<std::remove_const_t<T>>(), [&](auto accessor) {
    f(boost::hana::to<const char*>(boost::hana::first(accessor)),
      boost::hana::second(accessor)(object));
  });
}

// f(name, field_of_a, field_of_b) for every field; stops at the first f that returns false.
template <class T, class F>
bool all_fields(const T& a, const T& b, F&& f) {
  bool ok = true;
  boost::hana::for_each(boost::hana::accessors<T>(), [&](auto accessor) {
    if (ok)
      ok = f(boost::hana::to<const char*>(boost::hana::first(accessor)),
             boost::hana::second(accessor)(a), boost::hana::second(accessor)(b));
  });
  return ok;
}

}  // namespace tilewright::ir::detail
