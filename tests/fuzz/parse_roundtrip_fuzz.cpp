// libFuzzer target: any byte string is fed to the `pl` parser; whatever parses must survive
// print → parse → print (tests/fuzz/roundtrip_property.hpp). Build and run: docs/fuzzing.md.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "roundtrip_property.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  tilewright::fuzz::RoundtripOutcome outcome = tilewright::fuzz::check_roundtrip(text);
  if (outcome.violation) {
    std::fprintf(stderr, "round-trip property violated: %s\n", outcome.violation->c_str());
    if (outcome.parsed) std::fprintf(stderr, "--- printed ---\n%s\n---------------\n", outcome.printed.c_str());
    std::abort();
  }
  return 0;
}
