#pragma once
// Kept heap. glibc hands the top of its heap back to the kernel once more than its trim
// threshold is free there, and serves large blocks with fresh mmaps. A pass that builds a
// 100k-statement output (tens of MB) frees it at the end of each timed run; the next run then
// gets the memory back from the kernel one zeroed page at a time, and every page fault is
// timed as part of the pass. A smaller output stays under the threshold and is served from
// memory the process already has, so the page faults grow time per statement with the size
// although the work per statement does not.
//
// With the heap kept, freed memory stays in the process, as it does in a compiler that runs
// passes one after another (each output lands on memory the previous program gave back).
// Switched on by TILEWRIGHT_BENCH_KEEP_HEAP=1 (the Google Benchmark families) or --keep-heap
// (the file mode). Without it the allocator keeps its defaults.
//
// The executable links mimalloc when the build found it (tilewright_use_tool_allocator); glibc's
// knobs then tune an allocator nobody calls, and mimalloc's own one is turned instead.
#include <cstdlib>
#include <cstring>

#if defined(TILEWRIGHT_TOOL_ALLOCATOR_NAME)
#include <mimalloc.h>
#elif defined(__GLIBC__)
#include <malloc.h>
#endif

namespace tilewright::bench {

#if defined(TILEWRIGHT_TOOL_ALLOCATOR_NAME)
inline constexpr const char* allocator_name = TILEWRIGHT_TOOL_ALLOCATOR_NAME;
#else
inline constexpr const char* allocator_name = "system";
#endif

inline bool keep_heap_from_environment() {
  const char* env = std::getenv("TILEWRIGHT_BENCH_KEEP_HEAP");
  return env && *env && std::strcmp(env, "0") != 0;
}

// Whether the allocator now keeps what is freed; false where it cannot be told to (neither glibc nor mimalloc).
inline bool keep_freed_memory() {
#if defined(TILEWRIGHT_TOOL_ALLOCATOR_NAME)
  mi_option_disable(mi_option_allow_decommit);  // freed pages stay mapped and are reused
  return true;
#elif defined(__GLIBC__)
  // Never trim the heap's top; serve every block up to glibc's largest mmap threshold
  // (32 MiB on 64-bit) from the heap, whose pages are reused, rather than from a fresh mmap.
  const bool trim = mallopt(M_TRIM_THRESHOLD, 0x7fffffff) == 1;
  const bool mmap = mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024) == 1;
  return trim && mmap;
#else
  return false;
#endif
}

}  // namespace tilewright::bench
