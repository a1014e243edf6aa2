// Design points per second of the quickstart study's solver: the solver alone (one point at a
// time, one thread, quickstart grid) and a sweep of tests/bench/sweep_grid.yaml on 1 and 2 threads.
//   ./build/tests/bench/dsx_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <cstdio>
#include <stdexcept>
#include <string>

#include "dse/grid.hpp"
#include "dse/study.hpp"
#include "dse/sweep.hpp"

namespace {

dsx::ResolvedStudy load(const char* file) {
  dsx::Diagnostics diags;
  auto s = dsx::load_study(file, DSX_SOURCE_DIR "/studies/catalog", diags);
  if (!s) {
    std::fputs(diags.format().c_str(), stderr);
    throw std::runtime_error(std::string("cannot load ") + file);
  }
  return std::move(*s);
}

const dsx::ResolvedStudy& quickstart() {
  static const dsx::ResolvedStudy study = load(DSX_SOURCE_DIR "/studies/quickstart.yaml");
  return study;
}

const dsx::ResolvedStudy& sweep_grid() {
  static const dsx::ResolvedStudy study = load(DSX_SOURCE_DIR "/tests/bench/sweep_grid.yaml");
  return study;
}

void BM_SolverPoint(benchmark::State& state) {
  const auto& study = quickstart();
  const dsx::Grid grid(study);
  std::vector<double> metrics(study.solver->metrics().size());
  dsx::PointInputs inputs;
  std::uint64_t i = 0;
  for (auto _ : state) {
    grid.inputs(i, inputs);
    benchmark::DoNotOptimize(study.solver->evaluate(inputs, metrics));
    benchmark::DoNotOptimize(metrics.data());
    if (++i == grid.size()) i = 0;
  }
  state.counters["points_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SolverPoint);

void BM_SweepBlock(benchmark::State& state) {
  const auto& study = sweep_grid();
  const dsx::Grid grid(study);
  const auto threads = static_cast<unsigned>(state.range(0));
  dsx::SweepBlock block;
  std::uint64_t points = 0;
  for (auto _ : state) {
    dsx::evaluate_block(grid, *study.solver, 0, grid.size(), threads, block);
    points += grid.size();
  }
  state.counters["points_per_s"] = benchmark::Counter(static_cast<double>(points), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SweepBlock)->Arg(1)->Arg(2)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
