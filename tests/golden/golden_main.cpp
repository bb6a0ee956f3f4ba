// doctest main of tilewright-golden-tests. The corpus lives outside the repository; without
// it the binary says so and exits with 77, which CTest reports as Skipped (SKIP_RETURN_CODE),
// neither a failure nor a pass.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <filesystem>
#include <iostream>

int main(int argc, char** argv) {
  if (!std::filesystem::is_directory(TILEWRIGHT_GOLDEN_DIR)) {
    std::cout << "golden corpus not found at " << TILEWRIGHT_GOLDEN_DIR
              << ": skipped (configure with -DTILEWRIGHT_GOLDEN_DIR=<path to shared/golden>)\n";
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
