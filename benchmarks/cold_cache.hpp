#pragma once
// Cold-cache runs. A program of 1k statements (~1.4 MB of IR) stays in a 2 MiB L2 from one
// timed run to the next; 10k and 100k do not, and each run reads them from L3 or DRAM. A
// benchmark that repeats on the same input therefore times the small program warm and the
// large one cold, and time per statement "grows" with the size even when the work per
// statement does not. With the caches evicted before every run (outside the timed region) all
// sizes start alike, as a pass in a pipeline does on a program it has not touched yet.
//
// Switched on by TILEWRIGHT_BENCH_COLD_CACHE=1 (the Google Benchmark families) or --cold-cache
// (the file mode).
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace tilewright::bench {

inline bool cold_cache_from_environment() {
  const char* env = std::getenv("TILEWRIGHT_BENCH_COLD_CACHE");
  return env && *env && std::strcmp(env, "0") != 0;
}

// Writes, then reads, a buffer twice the size of the largest last-level cache we measure on
// (32 MiB), so that nothing the timed run will read is left in any level.
inline void evict_caches() {
  constexpr std::size_t bytes = std::size_t{64} << 20;
  static const std::unique_ptr<unsigned char[]> buffer(new unsigned char[bytes]);
  static unsigned char round = 0;
  ++round;
  std::memset(buffer.get(), round, bytes);
  volatile unsigned char sink = 0;
  for (std::size_t i = 0; i < bytes; i += 64) sink = static_cast<unsigned char>(sink + buffer[i]);
}

}  // namespace tilewright::bench
