#pragma once
// How the library is built: header-only (the default) or compiled.
//
// Header-only: every function is defined in the headers, `inline`; nothing to link.
// Compiled: TILEWRIGHT_COMPILED is defined (linking the CMake target tilewright::compiled does
// it). The parser, the printer and the op catalog are then compiled once, in
// src/tilewright.cpp, and their headers only declare their entry points; every other header,
// and every template, is the same in both modes. A program must not mix the modes.
//
//   TILEWRIGHT_API          on those entry points: `inline` header-only, nothing compiled
//   TILEWRIGHT_DEFINITIONS  1 where their definitions are compiled: header-only mode, and the
//                           compiled mode's own translation unit (TILEWRIGHT_COMPILED_SOURCE)
#if defined(TILEWRIGHT_COMPILED)
#define TILEWRIGHT_API
#if defined(TILEWRIGHT_COMPILED_SOURCE)
#define TILEWRIGHT_DEFINITIONS 1
#else
#define TILEWRIGHT_DEFINITIONS 0
#endif
#else
#define TILEWRIGHT_API inline
#define TILEWRIGHT_DEFINITIONS 1
#endif
