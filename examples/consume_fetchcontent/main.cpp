// Consumer example (consume_fetchcontent): uses tilewright only through its public umbrella header.
#include <iostream>

#include <tilewright/tilewright.hpp>

int main() {
  std::cout << "consume_fetchcontent: tilewright " << tilewright::version() << '\n';
  return tilewright::version().empty() ? 1 : 0;
}
