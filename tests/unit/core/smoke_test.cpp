// Smoke test: the umbrella header compiles and reports the project's version.
#include <doctest/doctest.h>

#include <string_view>
#include <tilewright/tilewright.hpp>

TEST_CASE("tilewright::version() matches the CMake project version") {
  static_assert(!tilewright::version().empty());
  CHECK(tilewright::version() == std::string_view{TILEWRIGHT_PROJECT_VERSION});
}
