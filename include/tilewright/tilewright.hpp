#pragma once
// tilewright — umbrella header.
//
// Including <tilewright/tilewright.hpp> gives the whole library: math/, ir/, ops/, text/,
// rewrite/, pass/, passes/<pass_name>/ and backend/. Each layer's headers are added here as
// they land; a pass's folder can be deleted by removing its include below (and its entry in
// the pipeline list).
//
// PLACEHOLDER created by the build setup: for now it only carries the version.
#include <string_view>

namespace tilewright {

/// The library version, "MAJOR.MINOR.PATCH"; kept equal to project(VERSION) in CMakeLists.txt.
[[nodiscard]] constexpr std::string_view version() noexcept { return "0.1.0"; }

}  // namespace tilewright
