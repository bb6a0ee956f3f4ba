# The compiled mode: `tilewright::compiled`, a static library holding the parser, the printer
# and the op catalog, compiled once (src/tilewright.cpp, tilewright/config.hpp). Shared by the
# source tree (add_subdirectory, FetchContent) and the installed package, which ships the
# source file and builds the library in the consumer's own build, with its compiler and flags:
# the installed package stays architecture independent.
#
#   tilewright_add_compiled_library(<target> <source file> <header-only target>)
function(tilewright_add_compiled_library target source interface)
  # EXCLUDE_FROM_ALL: built only when something links it.
  add_library(${target} STATIC EXCLUDE_FROM_ALL "${source}")
  target_link_libraries(${target} PUBLIC ${interface})
  target_compile_definitions(${target} PUBLIC TILEWRIGHT_COMPILED=1)
  target_compile_features(${target} PUBLIC cxx_std_20)
  set_target_properties(${target} PROPERTIES EXPORT_NAME compiled)
endfunction()
