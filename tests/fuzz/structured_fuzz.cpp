// libFuzzer target, structured mode: inputs are pl programs mutated by StructuredMutator
// (one number, dtype, memory space, op, name, list element, statement or kwarg at a time),
// so most mutants are well-formed text that reaches type deduction and the passes. Whatever
// parses must keep the round-trip property and go through the default pipeline with
// nothing but located user errors (roundtrip_property.hpp). One mutation in four is
// libFuzzer's own byte-level one, for the lexer's corners. Build and run: docs/fuzzing.md.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "roundtrip_property.hpp"
#include "structured_mutator.hpp"

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  if (seed % 4 == 0) return LLVMFuzzerMutate(data, size, max_size);
  tilewright::fuzz::StructuredMutator mutator(seed);
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string mutant = mutator.mutate(text);
  if (mutant == text || mutant.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, mutant.data(), mutant.size());
  return mutant.size();
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto outcome = tilewright::fuzz::check_roundtrip(text);
  if (!outcome.violation && outcome.parsed) outcome.violation = tilewright::fuzz::check_pipeline(outcome.program);
  if (outcome.violation) {
    std::fprintf(stderr, "property violated: %s\n", outcome.violation->c_str());
    if (outcome.parsed) std::fprintf(stderr, "--- printed ---\n%s\n---------------\n", outcome.printed.c_str());
    std::abort();
  }
  return 0;
}
