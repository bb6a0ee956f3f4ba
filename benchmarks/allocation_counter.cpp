// The counting replacement of the global operator new/delete declared in
// allocation_counter.hpp. The counters are plain integers, not atomics: every benchmark runs
// on one thread, and a locked add per allocation would tax the allocation-heavy benchmarks
// (parse) more than the others and skew the comparison.
#include "allocation_counter.hpp"

#include <cstdlib>
#include <malloc.h>
#include <new>

namespace tilewright::bench {
namespace {

AllocationCounters counters;
bool counting = true;

void* counted_allocate(std::size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (!p) throw std::bad_alloc();
  if (!counting) return p;
  const std::size_t usable = malloc_usable_size(p);
  counters.allocated += usable;
  ++counters.allocations;
  counters.live += usable;
  if (counters.live > counters.peak) counters.peak = counters.live;
  return p;
}

void counted_free(void* p) noexcept {
  if (!p) return;
  if (counting) {
    // A block allocated while counting was off was never added: `live` only drifts down, and
    // the figures are differences within one counted run.
    const std::size_t usable = malloc_usable_size(p);
    counters.live -= usable < counters.live ? usable : counters.live;
  }
  std::free(p);
}

}  // namespace

AllocationCounters allocation_counters() noexcept { return counters; }

void reset_peak() noexcept { counters.peak = counters.live; }

void count_allocations(bool on) noexcept { counting = on; }

}  // namespace tilewright::bench

// The nothrow forms of libstdc++ forward to these, so they are counted too. Over-aligned
// allocations keep the library's own operators (the IR has no over-aligned types).
void* operator new(std::size_t n) { return tilewright::bench::counted_allocate(n); }
void* operator new[](std::size_t n) { return tilewright::bench::counted_allocate(n); }
void operator delete(void* p) noexcept { tilewright::bench::counted_free(p); }
void operator delete[](void* p) noexcept { tilewright::bench::counted_free(p); }
void operator delete(void* p, std::size_t) noexcept { tilewright::bench::counted_free(p); }
void operator delete[](void* p, std::size_t) noexcept { tilewright::bench::counted_free(p); }
