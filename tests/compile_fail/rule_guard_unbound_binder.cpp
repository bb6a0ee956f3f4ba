// A guard that reads a binder its pattern never captures is rejected at compile time.
// TILEWRIGHT_EXPECT_ERROR: the guard reads a binder that the pattern does not capture
#include "tilewright/rewrite/rule.hpp"

using namespace tilewright;
using namespace tilewright::rewrite;
using namespace tilewright::rewrite::placeholders;

int main() {
  auto bad = rule("bad", call<"tile.exp">(_x), when<_y>([](const ir::Expr& y) { return y != nullptr; }), _x);
  (void)bad;
}
