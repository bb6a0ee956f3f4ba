// Consumer example (consume_find_package, compiled mode): links tilewright::compiled, which the
// installed package builds from its shipped source, so the parser and the printer it calls
// come from the library's own translation unit (docs/compiled_mode.md).
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
  std::cout << "consume_find_package (compiled): tilewright " << tilewright::version() << '\n' << text << '\n';
  return text.find("def k(") == std::string::npos ? 1 : 0;
}
