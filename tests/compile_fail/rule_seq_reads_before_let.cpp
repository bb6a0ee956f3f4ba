// In a seq, a part may read a let's binder only after the let: reading it earlier is rejected
// at compile time like any unbound binder.
// TILEWRIGHT_EXPECT_ERROR: the replacement reads a binder that the pattern does not capture
#include "tilewright/rewrite/rule.hpp"

using namespace tilewright::rewrite;
using namespace tilewright::rewrite::placeholders;

int main() {
  auto bad = rule("bad", assign(_y, call<"tile.exp">(_x)),
                  seq(let(_z, "z", call<"tile.exp">(_t)), let(_t, "t", call<"tile.neg">(_x)), assign(_y, _z)));
  (void)bad;
}
