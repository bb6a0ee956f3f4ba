// Compile-time probe (docs/benchmarks.md, "Compile times"): what a kernel generator that builds
// IR with the C++ builder and runs one pass pays to compile. Not built by CMake; timed by
// benchmarks/compile_time/measure.sh in both build modes.
#include <cstdio>

#include "tilewright/build/builder.hpp"
#include "tilewright/passes/materialize_tensor_strides/pass.hpp"

using namespace tilewright;

int main() {
  build::ProgramBuilder program("Scale");
  auto& scale = program.function("scale", ir::FunctionType::InCore);
  auto x = scale.param("x", build::tensor({64, 64}, ir::DataType::FP16, ir::TensorLayout::DN));
  auto out = scale.param("out_0", build::tensor({64, 64}, ir::DataType::FP16), ir::ParamDirection::Out);
  const ir::Kwargs to_vec{{"target_memory", ir::MemorySpace::Vec}};
  auto t = scale.let("t", "tile.load", {x, build::ints({0, 0}), build::ints({64, 64}), build::ints({64, 64})}, to_vec);
  auto s = scale.let("s", "tile.muls", {t, build::f32(0.5)});
  scale.ret({scale.let("out_1", "tile.store", {s, build::ints({0, 0}), out})});
  pass::PassContext ctx;
  ir::Program lowered = passes::MaterializeTensorStrides{}(program.finish(), ctx);
  std::printf("%zu function(s)\n", lowered->functions.size());
  return 0;
}
