#pragma once
// Heap accounting for the benchmarks: allocation_counter.cpp replaces the global operator
// new/delete of tilewright-bench, so every C++ heap allocation of the process is counted.
// Sizes are the allocator's usable sizes (what the heap really hands out), so `live` is the
// heap footprint of everything still allocated.
#include <cstddef>

namespace tilewright::bench {

struct AllocationCounters {
  std::size_t allocated = 0;    // bytes handed out since the process started
  std::size_t allocations = 0;  // number of operator new calls since the process started
  std::size_t live = 0;         // bytes currently allocated
  std::size_t peak = 0;         // highest `live` since the last reset_peak()
};

AllocationCounters allocation_counters() noexcept;

// Starts a new peak measurement from the current live size.
void reset_peak() noexcept;

// Counting costs two malloc_usable_size calls per allocation (a few percent of an allocating
// pass), so the timed runs switch it off; the heap figures come from a run of their own.
void count_allocations(bool on) noexcept;

}  // namespace tilewright::bench
