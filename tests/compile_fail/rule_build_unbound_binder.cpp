// A replacement that constructs a call from a binder its pattern never captures is rejected at
// compile time.
// TILEWRIGHT_EXPECT_ERROR: the replacement reads a binder that the pattern does not capture
#include "tilewright/rewrite/rule.hpp"

using namespace tilewright::rewrite;
using namespace tilewright::rewrite::placeholders;

int main() {
  auto bad = rule("bad", call<"tile.exp">(_x), call<"tile.muls">(_y, const_float(2.0)));
  (void)bad;
}
