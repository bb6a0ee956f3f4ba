// Temporary: the real CLI lands with the text layer.
#include <cstdio>
#include <cstring>
int main(int argc, char** argv) {
  if (argc > 1 && (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "--version"))) {
    std::puts("tilewright-opt 0.1.0");
    return 0;
  }
  std::fputs("tilewright-opt: the text layer is not built yet\n", stderr);
  return 2;
}
