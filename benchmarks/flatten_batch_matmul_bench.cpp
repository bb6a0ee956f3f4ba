// FlattenTileNdTo2D on batched matmuls: an attention-like kernel at batch counts 1, 8 and 64
// and at 1k / 10k / 100k input statements (upstream's own flatten inputs are pipeline_bench's
// FlattenTileNdTo2D/pypto_file/<N>).
//
// The batched lowering unrolls at compile time, so its output grows with the batch as well
// as with the program: the question is whether the cost stays flat per statement of OUTPUT.
// Counters:
//   stmts        statements of the input
//   emitted      statements of the result
//   emitted/s    statements of the result produced per second (the pass is output-bound)
//   time/emitted seconds per statement of the result
//
// Names: FlattenTileNdTo2D/attention/B<batch>/<statements>.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "tilewright/passes/flatten_tile_nd_to_2d/pass.hpp"
#include "tilewright/text/parser.hpp"

#include "kernel_generator.hpp"

namespace {

using namespace tilewright;

// One block of the kernel: a K/V loop that accumulates P·V into a batched accumulator (a
// column-packed chain from the tile.create to the drain after the loop), with S = Q·Kᵀ through a
// transpose_view, staged through Vec for the exponent, and P moved back to Mat (a move-sourced
// operand). K and V windows cut the middle axis of every batch, so for B > 1 they are loaded
// again page by page. 14 statements.
std::string attention_block(std::size_t i, std::int64_t batch) {
  const std::string n = std::to_string(i), b = std::to_string(batch);
  auto tile = [&](const std::string& dims, const std::string& dtype, const std::string& mem) {
    return "pl.Tile[[" + b + ", " + dims + "], pl." + dtype + ", pl.Mem." + mem + "]";
  };
  auto window = [&](const std::string& dims) { return "[" + b + ", " + dims + "]"; };
  return "        acc0_" + n + ": " + tile("16, 64", "FP32", "Acc") + " = pl.tile.create(" + window("16, 64") +
         ", dtype=pl.FP32, target_memory=pl.Mem.Acc)\n"
         "        for j_" + n + ", (acc_" + n + ",) in pl.range(2, init_values=(acc0_" + n + ",)):\n"
         "            q_" + n + ": " + tile("16, 64", "FP16", "Mat") + " = pl.tile.load(q, [0, 0, 0], " + window("16, 64") +
         ", " + window("16, 64") + ", target_memory=pl.Mem.Mat)\n"
         "            k_" + n + ": " + tile("32, 64", "FP16", "Mat") + " = pl.tile.load(k, [0, j_" + n + " * 32, 0], " +
         window("32, 64") + ", " + window("32, 64") + ", target_memory=pl.Mem.Mat)\n"
         "            kt_" + n + ": pl.Tile[[" + b + ", 64, 32], pl.FP16, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, "
         "slayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(k_" + n + ")\n"
         "            s_" + n + ": " + tile("16, 32", "FP32", "Acc") + " = pl.tile.batch_matmul(q_" + n + ", kt_" + n + ")\n"
         "            sv_" + n + ": " + tile("16, 32", "FP32", "Vec") + " = pl.tile.move(s_" + n + ", target_memory=pl.Mem.Vec)\n"
         "            e_" + n + ": " + tile("16, 32", "FP32", "Vec") + " = pl.tile.exp(sv_" + n + ")\n"
         "            p_" + n + ": " + tile("16, 32", "FP16", "Vec") + " = pl.tile.cast(e_" + n +
         ", target_type=pl.FP16, mode='round')\n"
         "            pm_" + n + ": " + tile("16, 32", "FP16", "Mat") + " = pl.tile.move(p_" + n + ", target_memory=pl.Mem.Mat)\n"
         "            v_" + n + ": " + tile("32, 64", "FP16", "Mat") + " = pl.tile.load(v, [0, j_" + n + " * 32, 0], " +
         window("32, 64") + ", " + window("32, 64") + ", target_memory=pl.Mem.Mat)\n"
         "            acc2_" + n + ": " + tile("16, 64", "FP32", "Acc") + " = pl.tile.batch_matmul_acc(acc_" + n + ", pm_" + n +
         ", v_" + n + ")\n"
         "            accr_" + n + ": " + tile("16, 64", "FP32", "Acc") + " = pl.yield_(acc2_" + n + ")\n"
         "        o" + std::to_string(i + 1) + ": pl.Tensor[" + window("16, 64") + ", pl.FP32] = pl.tile.store(accr_" + n +
         ", [0, 0, 0], o" + n + ")\n";
}

// At least `statements` statements in InCore functions of 32 blocks each (so one function's
// unroll stays far below the default expansion budget at B = 64).
std::string attention_program(std::size_t statements, std::int64_t batch) {
  constexpr std::size_t per_block = 14, blocks_per_function = 32;
  const std::size_t blocks = (statements + per_block - 1) / per_block;
  const std::string b = std::to_string(batch);
  std::string text = "# pypto.program: Attention\nimport pypto.language as pl\n\n@pl.program\nclass Attention:\n";
  for (std::size_t first = 0, f = 0; first < blocks; first += blocks_per_function, ++f) {
    const std::size_t last = std::min(blocks, first + blocks_per_function);
    const std::string out = "pl.Tensor[[" + b + ", 16, 64], pl.FP32]";
    text += "    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)\n"
            "    def attention_" + std::to_string(f) + "(q: pl.Tensor[[" + b + ", 16, 64], pl.FP16], k: pl.Tensor[[" + b +
            ", 64, 64], pl.FP16], v: pl.Tensor[[" + b + ", 64, 64], pl.FP16], o" + std::to_string(first) +
            ": pl.Out[" + out + "]) -> " + out + ":\n";
    for (std::size_t i = first; i < last; ++i) text += attention_block(i, batch);
    text += "        return o" + std::to_string(last) + "\n";
  }
  return text;
}

void run_flatten(benchmark::State& state, const ir::Program& program) {
  pass::PassContext ctx;
  const std::size_t in = bench::count_statements(program);
  const std::size_t out = bench::count_statements(passes::flatten_tile_nd_to_2d(program, ctx));
  for (auto _ : state) {
    pass::PassContext run;
    ir::Program result = passes::flatten_tile_nd_to_2d(program, run);
    benchmark::DoNotOptimize(result.get());
  }
  state.counters["stmts"] = static_cast<double>(in);
  state.counters["emitted"] = static_cast<double>(out);
  state.counters["emitted/s"] = benchmark::Counter(static_cast<double>(out), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["time/emitted"] =
      benchmark::Counter(static_cast<double>(out), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

std::size_t max_statements() {
  const char* env = std::getenv("TILEWRIGHT_BENCH_MAX_STATEMENTS");
  return env ? std::strtoull(env, nullptr, 10) : 100'000;
}

[[maybe_unused]] const int registered = [] {
  for (std::int64_t batch : {1, 8, 64})
    for (std::size_t n : {1'000, 10'000, 100'000}) {
      if (n > max_statements()) continue;
      const std::string name = "FlattenTileNdTo2D/attention/B" + std::to_string(batch) + "/" + std::to_string(n);
      benchmark::RegisterBenchmark(name.c_str(), [batch, n](benchmark::State& state) {
        const ir::Program program = text::parse_program(attention_program(n, batch), "attention.pto");
        run_flatten(state, program);
      })->Unit(benchmark::kMillisecond);
    }
  return 0;
}();

}  // namespace
