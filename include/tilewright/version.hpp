#pragma once
// The library version, for drivers that print it without including the whole library.
#include <string_view>

namespace tilewright {

/// The library version, "MAJOR.MINOR.PATCH"; kept equal to project(VERSION) in CMakeLists.txt.
[[nodiscard]] constexpr std::string_view version() noexcept { return "0.1.0"; }

}  // namespace tilewright
