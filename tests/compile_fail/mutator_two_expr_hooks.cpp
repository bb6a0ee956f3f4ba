// A walker may answer for expressions through rewrite_expr or through replace_expr, not both:
// the Mutator would have to pick one and silently ignore the other.
// TILEWRIGHT_EXPECT_ERROR: defines both rewrite_expr and replace_expr
#include "tilewright/ir/mutate.hpp"

using namespace tilewright;

struct Both : ir::Mutator<Both> {
  ir::Expr rewrite_expr(const ir::Expr& rebuilt, const ir::Expr&) { return rebuilt; }
  ir::Expr replace_expr(const ir::Expr&, const ir::Expr&) { return nullptr; }
};

int main() {
  Both walk;
  ir::Expr e = ir::make_int(1);
  (void)walk.mutate_expr(e);
}
