// A rule whose replacement reads a binder its pattern never captures is rejected at compile time.
// TILEWRIGHT_EXPECT_ERROR: the replacement reads a binder that the pattern does not capture
#include "tilewright/rewrite/rule.hpp"

using namespace tilewright::rewrite;
using namespace tilewright::rewrite::placeholders;

int main() {
  auto bad = rule("bad", call<"tile.muls">(_x, const_float(1.0)), _y);
  (void)bad;
}
