// A guard written over the match (`when([](const auto& m) { … m[_y] … })`) that reads a binder
// the pattern never captures is rejected when the rule is instantiated by a driver.
// TILEWRIGHT_EXPECT_ERROR: a guard or computed value reads a binder that the pattern does not capture
#include "tilewright/rewrite/driver.hpp"

using namespace tilewright;
using namespace tilewright::rewrite;
using namespace tilewright::rewrite::placeholders;

int main() {
  auto bad = rule("bad", call<"tile.exp">(_x), when([](const auto& m) { return m[_y] != nullptr; }), _x);
  auto out = rewrite_post_order(rule_set(bad), ir::Stmt{});
  (void)out;
}
