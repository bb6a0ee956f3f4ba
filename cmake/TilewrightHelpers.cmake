# Helpers shared by tools/, tests/, benchmarks/ and examples/.
include_guard(GLOBAL)

# tilewright_configure_target(<target> [NO_SANITIZE])
#   Warnings (-Wall -Wextra -Wpedantic, plus -Werror when TILEWRIGHT_WERROR) and, when
#   TILEWRIGHT_SANITIZE is set, the sanitizers. Only for tilewright's own targets: the library
#   itself is an INTERFACE target and never pushes flags onto consumers.
function(tilewright_configure_target target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "NO_SANITIZE" "" "")
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
    if(TILEWRIGHT_WERROR)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
    if(TILEWRIGHT_SANITIZE AND NOT ARG_NO_SANITIZE)
      set(san -fsanitize=${TILEWRIGHT_SANITIZE})
      # -fno-sanitize-recover: a UBSan finding aborts the test instead of scrolling by.
      target_compile_options(${target} PRIVATE
        ${san} -fno-omit-frame-pointer -fno-sanitize-recover=all)
      # Sanitizers do not see a read of an empty std::optional or an out-of-range
      # operator[]; the library's own assertions do.
      target_compile_definitions(${target} PRIVATE _GLIBCXX_ASSERTIONS)
      get_target_property(type ${target} TYPE)
      if(NOT type STREQUAL "OBJECT_LIBRARY")
        target_link_options(${target} PRIVATE ${san})
      endif()
    endif()
  elseif(MSVC)
    target_compile_options(${target} PRIVATE /W4 /permissive- /Zc:__cplusplus)
    if(TILEWRIGHT_WERROR)
      target_compile_options(${target} PRIVATE /WX)
    endif()
  endif()
endfunction()

# Environment for running instrumented binaries from CTest.
set(TILEWRIGHT_SANITIZER_TEST_ENV
  "ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1"
  "UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1")

# tilewright_add_test(<name> COMMAND <cmd>...)  — add_test plus the sanitizer environment.
function(tilewright_add_test name)
  add_test(NAME ${name} ${ARGN})
  if(TILEWRIGHT_SANITIZE)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${TILEWRIGHT_SANITIZER_TEST_ENV}")
  endif()
endfunction()

set(_TILEWRIGHT_COMPILE_FAIL_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/TilewrightCompileFail.cmake")

# ---------------------------------------------------------------------------------------------
# HOOK: compile-fail tests.
#
# tilewright_add_compile_fail_test(<name> <source> <regex>)
#   Adds the CTest test `compile_fail.<name>`, which PASSES only when <source> does NOT compile
#   and the compiler's output matches <regex> (e.g. the text of a static_assert).
#
#   The source becomes an EXCLUDE_FROM_ALL object library that links tilewright::tilewright
#   with exactly the flags of the real build (standard, includes, -Werror, sanitizers); at
#   test time the test asks the build tool to compile that one target (see
#   cmake/TilewrightCompileFail.cmake). A source that compiles, or fails for another reason,
#   fails the test. tests/CMakeLists.txt calls this for every tests/compile_fail/*.cpp.
# ---------------------------------------------------------------------------------------------
function(tilewright_add_compile_fail_test name source regex)
  set(target tilewright-compile-fail-${name})
  add_library(${target} OBJECT EXCLUDE_FROM_ALL "${source}")
  target_link_libraries(${target} PRIVATE tilewright::tilewright)
  tilewright_configure_target(${target} NO_SANITIZE)

  # The regex goes through a file: no quoting or list-splitting of ';', '\' or spaces.
  set(regex_file "${CMAKE_CURRENT_BINARY_DIR}/compile_fail/${name}.regex")
  file(WRITE "${regex_file}" "${regex}")

  add_test(NAME compile_fail.${name}
    COMMAND "${CMAKE_COMMAND}"
      "-DBUILD_DIR=${PROJECT_BINARY_DIR}"
      "-DTARGET=${target}"
      "-DCONFIG=$<CONFIG>"
      "-DSOURCE=${source}"
      "-DREGEX_FILE=${regex_file}"
      -P "${_TILEWRIGHT_COMPILE_FAIL_SCRIPT}")
  # Each test drives the build tool in the shared build tree: never two at once.
  set_tests_properties(compile_fail.${name} PROPERTIES
    RESOURCE_LOCK tilewright-build-tree
    LABELS compile-fail
    TIMEOUT 300)
endfunction()

# The executables we ship (tilewright-opt, tilewright-bench) allocate and free millions of
# small IR nodes per large kernel; glibc's malloc spends a third of a 100k-statement run in
# its own bookkeeping (docs/benchmarks.md). They link mimalloc (Debian: libmimalloc-dev),
# which replaces malloc for the whole process when it is linked. The library itself never
# picks an allocator: an embedding compiler keeps its own.
#   TILEWRIGHT_TOOL_ALLOCATOR = auto (mimalloc when found), mimalloc (required) or system.
set(TILEWRIGHT_TOOL_ALLOCATOR "auto" CACHE STRING
  "malloc of tilewright's executables: auto, mimalloc or system")
set_property(CACHE TILEWRIGHT_TOOL_ALLOCATOR PROPERTY STRINGS auto mimalloc system)

function(tilewright_use_tool_allocator target)
  # Sanitizers replace malloc themselves; a second replacement would hide what they find.
  if(TILEWRIGHT_TOOL_ALLOCATOR STREQUAL "system" OR TILEWRIGHT_SANITIZE)
    return()
  endif()
  if(NOT TARGET mimalloc)
    if(TILEWRIGHT_TOOL_ALLOCATOR STREQUAL "mimalloc")
      find_package(mimalloc CONFIG REQUIRED)
    else()
      find_package(mimalloc CONFIG QUIET)
    endif()
  endif()
  if(NOT TARGET mimalloc)
    message(STATUS "tilewright: mimalloc not found, ${target} uses the system malloc "
                   "(install libmimalloc-dev for the faster one)")
    return()
  endif()
  # --no-as-needed: nothing names a mimalloc symbol, yet it must be loaded to take over malloc.
  target_link_options(${target} PRIVATE "LINKER:--no-as-needed")
  target_link_libraries(${target} PRIVATE mimalloc)
  target_compile_definitions(${target} PRIVATE TILEWRIGHT_TOOL_ALLOCATOR_NAME="mimalloc")
endfunction()
