// Consumer example, compiled mode (consume_add_subdirectory and consume_find_package both build
// it): links tilewright::compiled, so the parser and the printer it calls come from the
// library's own translation unit (docs/compiled_mode.md). CONSUMER names the project.
#include <iostream>
#include <string>

#include <tilewright/text/parser.hpp>
#include <tilewright/text/printer.hpp>
#include <tilewright/version.hpp>

int main() {
  const char* kernel =
      "@pl.function\n"
      "def k(x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
      "    return x\n";
  auto program = tilewright::text::parse_program(kernel, "kernel.pto");
  std::string text = tilewright::text::print(program);
  std::cout << CONSUMER " (compiled): tilewright " << tilewright::version() << '\n' << text << '\n';
  return text.find("def k(") == std::string::npos ? 1 : 0;
}
