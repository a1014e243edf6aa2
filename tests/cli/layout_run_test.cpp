// A layout axis end to end: `dsx run` on a study that asks for every layout of 64 GPUs writes the
// layout labels into results.csv, top_k.csv, pareto.csv, the figures and the resolved study, and
// `dsx report` re-renders the run from what it stored.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/cli/shell.hpp"
#include "tests/test_files.hpp"

namespace {

namespace fs = std::filesystem;
using dsx::read_text;
using dsx::run_dsx;

constexpr const char* kStudy = R"yaml(study: layouts
title: "Every layout of 64 H100s for Llama 3 8B"
question: "Which split of 64 GPUs trains fastest?"
solver: training
axes:
  layout: {gpus: 64, tp: [1, 2, 4, 8], pp: any}
  recompute: [selective, full]
fixed:
  node: dgx_h100
  model: llama3_8b
  global_batch: 512
objectives:
  - {metric: tflops_per_gpu, direction: max}
  - {metric: memory_per_gpu_bytes, direction: min}
top_k: 3
compare:
  - name: "dp is what the GPUs leave"
    where: {layout: tp4 pp2 dp8, recompute: full}
    metric: dp
    expected: 8
    tolerance: 0
    source: "64 / (4 x 2)"
figures:
  - {name: ranked, kind: bars, title: "TFLOP/s per GPU", caption: "Each layout.", x: layout, y: tflops_per_gpu, where: {recompute: full}}
  - {name: grid, kind: heatmap, title: "TFLOP/s per GPU", caption: "Layout by recomputation.", x: recompute, y: layout, z: tflops_per_gpu}
  - {name: front, kind: scatter, title: "Speed and memory", caption: "The front.", x: memory_per_gpu_bytes, y: tflops_per_gpu, group: recompute, pareto: true}
)yaml";

TEST(LayoutRun, LabelsFlowThroughResultsFiguresAndTheResolvedStudy) {
  const fs::path dir = fs::temp_directory_path() / ("dsx_layout_run_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "layouts.yaml") << kStudy;
  const auto run = run_dsx("run '" + (dir / "layouts.yaml").string() + "' --quiet --out '" + (dir / "out").string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const fs::path out = dir / "out";

  // llama3_8b: 32 layers, 32 heads: tp 1, 2, 4, 8 with every pp dividing what is left (pp 64 > 32
  // layers is left out): 6 + 6 + 5 + 4 = 21 layouts, 2 recomputations each.
  const std::string results = read_text(out / "results.csv");
  std::istringstream lines(results);
  std::string header;
  std::getline(lines, header);
  EXPECT_EQ(header.rfind("point_index,layout,recompute,", 0), 0U) << header;
  std::size_t rows = 0;
  for (std::string line; std::getline(lines, line);) ++rows;
  EXPECT_EQ(rows, 42U);
  for (const char* label : {",tp1 pp1 dp64,", ",tp1 pp32 dp2,", ",tp8 pp8 dp1,", ",tp4 pp2 dp8,"}) {
    EXPECT_NE(results.find(label), std::string::npos) << label;
  }
  EXPECT_EQ(results.find("pp64"), std::string::npos);

  EXPECT_NE(read_text(out / "top_k.csv").find(",layout,"), std::string::npos);
  EXPECT_NE(read_text(out / "pareto.csv").find(",layout,"), std::string::npos);
  EXPECT_NE(read_text(out / "comparisons.csv").find(",agrees,"), std::string::npos);
  for (const char* f : {"figures/ranked.svg", "figures/grid.svg", "figures/front.svg"}) {
    EXPECT_TRUE(fs::exists(out / f)) << f;
  }
  EXPECT_NE(read_text(out / "figures/grid.dat").find("tp8 pp8 dp1"), std::string::npos);
  const std::string report = read_text(out / "report.md");
  EXPECT_NE(report.find("layout = tp4 pp2 dp8 (gpus = 64, tp = 4, pp = 2, ep = 1, cp = 1)"), std::string::npos);
  EXPECT_NE(read_text(out / "study.resolved.yaml").find("  layout: [tp1 pp1 dp64, tp1 pp2 dp32,"), std::string::npos);

  // The run re-renders from its store and resolved study alone.
  const auto again = run_dsx("report '" + out.string() + "'");
  EXPECT_EQ(again.exit_code, 0) << again.out;
  EXPECT_EQ(read_text(out / "report.md"), report);
  fs::remove_all(dir);
}

}  // namespace
