# Run at test time by the tests that tilewright_add_compile_fail_test() adds:
#   cmake -DBUILD_DIR=… -DTARGET=… -DCONFIG=… -DSOURCE=… -DREGEX_FILE=… -P TilewrightCompileFail.cmake
# Succeeds only when building TARGET fails AND the build output matches the regex.
foreach(var BUILD_DIR TARGET SOURCE REGEX_FILE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "TilewrightCompileFail.cmake: ${var} is not set")
  endif()
endforeach()
file(READ "${REGEX_FILE}" regex)

set(config_args)
if(CONFIG)
  set(config_args --config "${CONFIG}")
endif()

execute_process(
  COMMAND "${CMAKE_COMMAND}" --build "${BUILD_DIR}" --target "${TARGET}" ${config_args}
  RESULT_VARIABLE result
  OUTPUT_VARIABLE out
  ERROR_VARIABLE out)

# message() without a mode prints verbatim to stderr; FATAL_ERROR text gets re-wrapped.
if(result EQUAL 0)
  message("compile-fail test: ${SOURCE} COMPILED, but it must be rejected with an error "
    "matching the regex\n  ${regex}")
  message(FATAL_ERROR "expected a compile error, the source compiled")
endif()
if(NOT out MATCHES "${regex}")
  message("----- build output -----\n${out}------------------------")
  message("compile-fail test: ${SOURCE} failed to compile as expected, but the output does "
    "not match the regex\n  ${regex}")
  message(FATAL_ERROR "compile error did not match the expected regex")
endif()
message(STATUS "compile-fail test: ${SOURCE} was rejected as expected (matched: ${regex})")
