// make_pipeline must refuse a pass whose required property nothing provides.
// TILEWRIGHT_EXPECT_ERROR: a pass requires an IR property
#include "tilewright/pass/pipeline.hpp"

using namespace tilewright;

struct NeedsTileOps2D {
  static constexpr pass::PassInfo info{"NeedsTileOps2D", "needs", pass::PassLevel::program,
                                       {pass::Property::TileOps2D}, {}, {}};
  ir::Program operator()(const ir::Program& p, pass::PassContext&) const { return p; }
};

int main() { auto p = pass::make_pipeline(NeedsTileOps2D{}); (void)p; }
