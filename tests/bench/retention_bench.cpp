// Design points per second of a whole sweep into a result store (evaluate, keep, commit) for each
// retention mode of the study's keep: block, on 1 and 2 threads, over tests/bench/sweep_grid.yaml
// with ten times the launch-overhead values (259,200 points) and two objectives:
//   ./build/tests/bench/dsx_bench --benchmark_filter=BM_SweepIntoStore --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "dse/grid.hpp"
#include "dse/store.hpp"
#include "dse/study.hpp"
#include "dse/sweep_store.hpp"

namespace {

const char* const kKeep[] = {
    "",                                    // every row
    "keep: {front: true}\n",               // the Pareto front only
    "keep: {top_k: 10}\n",                 // the 10 best per objective
    "keep: {sample: 1000}\n",              // a uniform sample
};
const char* const kKeepNames[] = {"all", "front", "top_k", "sample"};

dsx::ResolvedStudy load(int mode) {
  std::ifstream in(DSX_SOURCE_DIR "/tests/bench/sweep_grid.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string grid = text.str();
  const std::string count = "count: 40}";
  const std::size_t at = grid.find(count);
  if (at == std::string::npos) throw std::runtime_error("sweep_grid.yaml: no 'count: 40}' to widen");
  grid.replace(at, count.size(), "count: 400}");
  const std::string study = grid +
                            "objectives:\n  - {metric: latency_s, direction: min}\n"
                            "  - {metric: throughput_samples_per_s, direction: max}\n" +
                            kKeep[mode];
  dsx::Diagnostics diags;
  auto s = dsx::load_study_text("sweep_grid.yaml", study, DSX_SOURCE_DIR "/studies/catalog", diags);
  if (!s) {
    std::fputs(diags.format().c_str(), stderr);
    throw std::runtime_error("cannot load the benchmark study");
  }
  return std::move(*s);
}

void BM_SweepIntoStore(benchmark::State& state) {
  const int mode = static_cast<int>(state.range(0));
  const auto threads = static_cast<unsigned>(state.range(1));
  const dsx::ResolvedStudy study = load(mode);
  const dsx::Grid grid(study);
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("dsx_bench_" + std::to_string(::getpid()) + ".sqlite");
  std::uint64_t points = 0;
  std::uint64_t kept = 0;
  for (auto _ : state) {
    state.PauseTiming();
    dsx::remove_result_store(path.string());
    state.ResumeTiming();
    dsx::ResultStore store(path.string());
    store.ensure_schema(dsx::make_result_table(study));
    dsx::SweepOptions options;
    options.threads = threads;
    dsx::sweep_into_store(study, grid, store, options);
    kept = store.row_count();
    points += grid.size();
  }
  dsx::remove_result_store(path.string());
  state.SetLabel(kKeepNames[mode]);
  state.counters["points_per_s"] = benchmark::Counter(static_cast<double>(points), benchmark::Counter::kIsRate);
  state.counters["rows_kept"] = static_cast<double>(kept);
}
BENCHMARK(BM_SweepIntoStore)
    ->ArgsProduct({{0, 1, 2, 3}, {1, 2}})
    ->ArgNames({"keep", "threads"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
