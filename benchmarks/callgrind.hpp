// Switches callgrind's instrumentation on and off around a timed loop, so that under
// `valgrind --tool=callgrind --instr-atstart=no` the total is the instruction count of the
// measured work alone; nothing when valgrind's header is absent or the program runs natively.
#pragma once

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define TILEWRIGHT_BENCH_CALLGRIND 1
#endif

namespace tilewright::bench {

inline void instrument(bool on) {
#ifdef TILEWRIGHT_BENCH_CALLGRIND
  if (on)
    CALLGRIND_START_INSTRUMENTATION;
  else
    CALLGRIND_STOP_INSTRUMENTATION;
#else
  (void)on;
#endif
}

}  // namespace tilewright::bench
