// The one translation unit of the compiled mode (the `tilewright::compiled` CMake target).
//
// The parser, the printer, the op catalog, the shipped passes by name (passes/registry.hpp)
// the property verifiers and the interpreter's entry points are the library's largest inline code: a header-only
// build compiles them again in every translation unit that uses them. Linking
// `tilewright::compiled` defines TILEWRIGHT_COMPILED for its users: their translation units
// see only the declarations of those entry points (tilewright/config.hpp), and the
// definitions are compiled once, here. Everything else (the IR, the pass classes, the rules,
// every template) stays in the headers, the same in both modes.
#ifndef TILEWRIGHT_COMPILED
#error "src/tilewright.cpp is built by the tilewright::compiled target, which defines TILEWRIGHT_COMPILED"
#endif
#define TILEWRIGHT_COMPILED_SOURCE 1

#include "tilewright/interp/driver.hpp"
#include "tilewright/interp/equivalence.hpp"
#include "tilewright/ops/catalog.hpp"
#include "tilewright/pass/verify.hpp"
#include "tilewright/passes/registry.hpp"
#include "tilewright/text/parser.hpp"
#include "tilewright/text/printer.hpp"
