// The analyses in a run folder: their CSV files, store tables, figures and report sections exist,
// are byte-identical from run to run and when `dsx report` re-renders them, read as sentences, and
// a failed assertion makes `dsx run` exit with status 3 after writing the report.
#include <gtest/gtest.h>

#include "output/readable_label.hpp"
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "dse/analysis/analysed_run.hpp"
#include "dse/grid.hpp"
#include "dse/study.hpp"
#include "dse/sweep.hpp"
#include "output/analysis_figures.hpp"
#include "output/analysis_report.hpp"
#include "output/readable_label.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

struct DsxResult {
  int status = -1;
  std::string output;
};

DsxResult run_dsx(const std::string& args) {
  const std::string command = std::string("cd '") + DSX_SOURCE_DIR + "' && '" + DSX_BINARY + "' " + args + " 2>&1";
  DsxResult r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) r.output += buffer;
  const int status = pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

const char* kStudy = R"(study: analysis_outputs
title: "Analysis outputs"
question: "Do the analyses land in the run folder?"
solver: inference
axes:
  hardware: [a100_80gb_sxm, h100_sxm]
  model: [resnet50, gpt2_layer]
  batch: [1, 4, 16, 64]
fixed:
  precision: fp16
  execution: compiled
  eta: 0.4
  launch_overhead: 10 us
derived:
  - {name: usd_per_sample_usd, expr: "hardware_price_usd / throughput_samples_per_s", unit: USD}
objectives:
  - {metric: usd_per_sample_usd, direction: min}
  - {metric: latency_s, direction: min}
pareto: {group: model}
top_k: 2
assertions:
  - {name: ASSERTION_NAME, expr: "ASSERTION_EXPR"}
breakeven:
  - {name: cost, metric: usd_per_sample_usd, along: batch, alternatives: hardware}
sensitivity:
  - name: drivers
    metric: usd_per_sample_usd
    base: {model: resnet50, batch: 16}
    decide: hardware
    inputs: [eta, launch_overhead, h100_sxm.price]
    morris: {trajectories: 4}
    sobol: {samples: 64, bootstrap: 20}
)";

std::string study_text(const std::string& name, const std::string& expr) {
  std::string s = kStudy;
  s.replace(s.find("ASSERTION_NAME"), 14, name);
  s.replace(s.find("ASSERTION_EXPR"), 14, expr);
  return s;
}

class AnalysisOutputs : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("dsx_analysis_outputs_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write_study(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / (name + ".yaml");
    std::ofstream(p) << text;
    return p;
  }
  fs::path dir_;
};

// Every file below `a` has an identical twin below `b`, except those that record the machine.
void expect_same_files(const fs::path& a, const fs::path& b) {
  std::size_t compared = 0;
  for (const auto& e : fs::recursive_directory_iterator(a)) {
    if (!e.is_regular_file()) continue;
    const fs::path rel = fs::relative(e.path(), a);
    const std::string name = rel.filename().string();
    if (name == "manifest.json" || name == ".dsx-run.lock" || name.starts_with("results.sqlite")) continue;
    ASSERT_TRUE(fs::exists(b / rel)) << rel;
    EXPECT_EQ(read_text(e.path()), read_text(b / rel)) << rel << " differs";
    ++compared;
  }
  EXPECT_GT(compared, 20u);
}

TEST_F(AnalysisOutputs, EveryAnalysisWritesItsFilesDeterministically) {
  const fs::path study = write_study("ok", study_text("fast_enough", "latency_s < 1"));
  const fs::path one = dir_ / "one";
  const fs::path two = dir_ / "two";
  const DsxResult a = run_dsx("run '" + study.string() + "' --quiet --threads 1 --out '" + one.string() + "'");
  ASSERT_EQ(a.status, 0) << a.output;
  const DsxResult b = run_dsx("run '" + study.string() + "' --quiet --threads 2 --out '" + two.string() + "'");
  ASSERT_EQ(b.status, 0) << b.output;
  for (const char* f : {"breakeven_cost.csv", "breakeven_cost_curves.csv", "sensitivity_drivers.csv", "assertions.csv",
                        "top_k.csv", "pareto.csv", "results.csv"}) {
    EXPECT_TRUE(fs::exists(one / f)) << f;
  }
  for (const char* fig : {"breakeven_cost_1", "breakeven_cost_2", "tornado_drivers", "morris_drivers", "sobol_drivers",
                          "pareto_fronts"}) {
    for (const char* ext : {".svg", ".pdf", ".png", ".gp", ".dat"}) {
      EXPECT_TRUE(fs::exists(one / "figures" / (std::string(fig) + ext))) << fig << ext;
    }
  }
  expect_same_files(one, two);

  const std::string csv = read_text(one / "results.csv");
  EXPECT_NE(csv.substr(0, csv.find('\n')).find(",usd_per_sample_usd"), std::string::npos) << "derived column missing";
  const std::string breakeven = read_text(one / "breakeven_cost.csv");
  EXPECT_EQ(breakeven.substr(0, breakeven.find('\n')),
            "model,kind,first,second,better_below,better_above,along,along_value,bracket_lo,bracket_hi,tolerance,"
            "metric_first,metric_second,evaluations,statement,interval_low,interval_high,interval_share_in_range");
  const std::string report = read_text(one / "report.md");
  for (const char* heading : {"## Assertions", "## Break-even points", "## Sensitivity", "### Fronts per group",
                              "## The 2 best design points per objective", "## Derived metrics"}) {
    EXPECT_NE(report.find(heading), std::string::npos) << heading;
  }
  EXPECT_NE(report.find("Sobol indices from N = 64 Saltelli samples"), std::string::npos);
  EXPECT_NE(report.find("Convergence: between N/2 and N samples"), std::string::npos);
  EXPECT_NE(report.find("![Tornado"), std::string::npos);
  // The HTML report inlines the analysis figures too.
  const std::string html = read_text(one / "report.html");
  EXPECT_EQ(html.find("<img src=\"figures/sobol_drivers.svg\""), std::string::npos);

  // `dsx report` re-renders the same files from the store (the analyses re-evaluate the solver).
  const fs::path three = dir_ / "three";
  fs::copy(one, three, fs::copy_options::recursive);
  for (const auto& e : fs::recursive_directory_iterator(three / "figures")) {
    if (e.is_regular_file()) fs::remove(e.path());
  }
  const DsxResult c = run_dsx("report '" + three.string() + "'");
  ASSERT_EQ(c.status, 0) << c.output;
  expect_same_files(one, three);
}

TEST_F(AnalysisOutputs, AFailedAssertionExitsThreeAfterWritingTheReport) {
  const fs::path study = write_study("fails", study_text("impossibly_fast", "latency_s < 1e-9"));
  const fs::path out = dir_ / "fails";
  const DsxResult r = run_dsx("run '" + study.string() + "' --quiet --out '" + out.string() + "'");
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_NE(r.output.find("assertion 'impossibly_fast' failed: latency_s < 1e-9"), std::string::npos) << r.output;
  ASSERT_TRUE(fs::exists(out / "report.md"));
  const std::string report = read_text(out / "report.md");
  EXPECT_NE(report.find("**FAILED**"), std::string::npos);
  EXPECT_NE(report.find("1 of 1 assertions FAILED"), std::string::npos);
  EXPECT_TRUE(fs::exists(out / "report.html"));
  EXPECT_NE(read_text(out / "assertions.csv").find("impossibly_fast,latency_s < 1e-9,,all,failed,16,0,"),
            std::string::npos);
  // dsx report re-checks the stored rows and says the same.
  EXPECT_EQ(run_dsx("report '" + out.string() + "'").status, 3);
}

TEST_F(AnalysisOutputs, ValidateReportsAnalysisProblemsWithoutEvaluating) {
  std::string text = study_text("x", "latency_s < 1");
  text.replace(text.find("along: batch"), 12, "along: eta");
  const fs::path study = write_study("bad", text);
  const DsxResult r = run_dsx("validate '" + study.string() + "'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("error: breakeven[0].along: 'eta' is not swept in this study"), std::string::npos) << r.output;
}

TEST(AnalysisSentences, CrossingsAndFlipsReadAsSentences) {
  Diagnostics d;
  const auto study = load_study_text("t.yaml", study_text("x", "latency_s < 1"), DSX_SOURCE_DIR "/studies/catalog", d);
  ASSERT_TRUE(study) << d.format();
  const Grid grid(*study);
  SweepBlock block;
  evaluate_block(grid, *study->solver, 0, grid.size(), 1, block);
  ResultTable table = make_result_table(*study);
  append_block(grid, block, table);
  const AnalysedRun run = analyse_run(*study, table);
  ASSERT_TRUE(run.breakevens.at(0).analysis);
  const BreakevenAnalysis& a = *run.breakevens[0].analysis;
  for (const BreakevenGroup& g : a.groups) {
    for (const Crossing& c : g.outcome.crossings) {
      const std::string s = crossing_sentence(*study, a, g, c);
      // The chips by their catalog names (the CSVs keep the ids in their own columns).
      const std::string above = study->catalog.find_hardware(a.alternatives[c.better_above])->name;
      const std::string below = study->catalog.find_hardware(a.alternatives[c.better_below])->name;
      EXPECT_TRUE(s.starts_with(above + " beats " + below)) << s;
      EXPECT_NE(s.find(" from batch = "), std::string::npos) << s;
      EXPECT_NE(s.find(" USD for both there)."), std::string::npos) << s;
    }
    if (g.outcome.crossings.empty()) {
      EXPECT_TRUE(no_crossing_sentence(*study, a, g).starts_with("No crossing of")) << no_crossing_sentence(*study, a, g);
    }
  }
  ASSERT_TRUE(run.sensitivities.at(0).analysis);
  const SensitivityAnalysis& s = *run.sensitivities[0].analysis;
  const std::vector<std::string> flips = flip_sentences(*study, s);
  ASSERT_EQ(flips.size(), 3u);
  const std::string best = study->catalog.find_hardware(s.alternatives[s.decision->best])->name;
  const std::string h100 = study->catalog.find_hardware("h100_sxm")->name;
  const FlipSearch& price = s.decision->flips[2].up.found ? s.decision->flips[2].up : s.decision->flips[2].down;
  ASSERT_TRUE(price.found);
  EXPECT_TRUE(flips[2].starts_with(best + " stops having the lowest usd per sample if the price of " + h100 + " " +
                                   (price.relative_change > 0 ? "rises " : "falls ")))
      << flips[2];
  EXPECT_EQ(sensitivity_input_value(*study, s, 2, 1.0), "31.2 k USD");  // the catalog's 31,250 USD
  EXPECT_EQ(sensitivity_input_value(*study, s, 1, 10e-6), "10.0 \u00b5s");
  const std::string csv = sensitivity_csv(*study, s);
  EXPECT_NE(csv.find("\nlocal,h100_sxm.price,1,0.9,1.1,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nsobol,eta,"), std::string::npos);
  EXPECT_NE(csv.find("\nflip,h100_sxm.price,1,"), std::string::npos);
  // Each alternative's metric at the base point, the choice's row marked.
  for (std::size_t i = 0; i < s.alternatives.size(); ++i) {
    const std::string kind = i == s.decision->best ? "choice" : "alternative";
    EXPECT_NE(csv.find("\n" + kind + "," + s.alternatives[i] + ","), std::string::npos) << kind << " " << s.alternatives[i] << "\n" << csv;
  }
}


// seeds/000 lab_07: "compiling pays off after ~134,000 images". The same statement from a study block
// comparing two metrics of the compile_breakeven solver.
TEST(AnalysisSentences, TheLab07CompileBreakEvenReadsAsTheSeedSaysIt) {
  Diagnostics d;
  const auto study = load_study_text("t.yaml", R"(study: lab07_sentence
title: t
question: q
solver: compile_breakeven
axes:
  run_inferences: [1000, 10000, 100000, 1000000]
fixed:
  compile_time: 30 s
  throughput_eager: 1450 /s
  gain: 0.48275862068965517
  volume: 1 /h
  duration: 0 s
breakeven:
  - {name: compile, metrics: [eager_time_s, compiled_time_s], along: run_inferences}
)", DSX_SOURCE_DIR "/studies/catalog", d);
  ASSERT_TRUE(study) << d.format();
  const Grid grid(*study);
  SweepBlock block;
  evaluate_block(grid, *study->solver, 0, grid.size(), 1, block);
  ResultTable table = make_result_table(*study);
  append_block(grid, block, table);
  const AnalysedRun run = analyse_run(*study, table);
  ASSERT_TRUE(run.breakevens.at(0).analysis);
  const BreakevenAnalysis& a = *run.breakevens[0].analysis;
  const BreakevenGroup& g = a.groups.at(0);
  ASSERT_EQ(g.outcome.crossings.size(), 1u);
  EXPECT_EQ(crossing_sentence(*study, a, g, g.outcome.crossings[0]),
            "compiled time is lower than eager time from run_inferences = 133,608 on (break-even at 133,607; 92.1 s "
            "each there).");
}

// What the report prints for a value: a chip by its catalog name, an efficiency regime by the
// label of its row in engine/efficiency.hpp, anything else as readable_label prints it.
TEST(ReadableValue, ChipsAndRegimesReadByTheirNames) {
  Diagnostics d;
  const auto study = load_study_text("t.yaml", R"(study: names
title: t
question: q
solver: efficiency
axes:
  hardware: [a100_80gb_sxm, h100_sxm]
  regime: [decode_bs1, training_large]
  throughput: [100 tokens/s, 1000 tokens/s]
fixed:
  model: llama2_7b
  precision: bf16
)", DSX_SOURCE_DIR "/studies/catalog", d);
  ASSERT_TRUE(study) << d.format();
  const HardwareSpec* h100 = study->catalog.find_hardware("h100_sxm");
  ASSERT_NE(h100, nullptr);
  EXPECT_EQ(readable_value(*study, "hardware", "h100_sxm"), h100->name);
  EXPECT_NE(h100->name, "h100_sxm");
  EXPECT_EQ(readable_value(*study, "regime", "decode_bs1"), "Decode, batch 1");
  EXPECT_EQ(readable_value(*study, "regime", "training_large"), "Training, large Transformer");
  EXPECT_EQ(readable_value(*study, "throughput", "1000 tokens/s"), readable_label("1000 tokens/s"));
  EXPECT_EQ(readable_value(*study, "precision", "bf16"), "bf16");
}

// A sensitivity input as the report's tables, sentences and figures name it: a parameter by the words
// and SI unit a metric of its name and dimension would read in, a chip's field by the chip's name, a
// field of every chip by its words.
TEST(ReadableInput, ParametersReadByTheirWordsAndUnit) {
  Diagnostics d;
  const auto study = load_study_text("t.yaml", R"(study: inputs
title: t
question: q
solver: inference
axes:
  hardware: [a100_80gb_sxm, h100_sxm]
fixed:
  model: resnet50
  precision: fp16
  batch: 16
  execution: compiled
  eta: 0.4
  launch_overhead: 10 us
)", DSX_SOURCE_DIR "/studies/catalog", d);
  ASSERT_TRUE(study) << d.format();
  EXPECT_EQ(readable_input(*study, "launch_overhead"), "launch overhead (s)");
  EXPECT_EQ(readable_input(*study, "eta"), "efficiency \u03b7 (%)");
  EXPECT_EQ(readable_input(*study, "batch"), "batch");
  EXPECT_EQ(readable_input(*study, "memory_bandwidth"), "memory bandwidth of every accelerator");
  EXPECT_EQ(readable_input(*study, "h100_sxm.price"), "price of " + study->catalog.find_hardware("h100_sxm")->name);
}

TEST_F(AnalysisOutputs, GroupedFrontsOfManyRowsAreThinnedToThePointCap) {
  const fs::path study = write_study("many", R"(study: many
title: "Grouped fronts over many rows"
question: "Is the grouped-fronts figure thinned?"
solver: inference
axes:
  hardware: [a100_80gb_sxm, h100_sxm, l4]
  model: [resnet50, gpt2_layer]
  launch_overhead: {from: 1 us, to: 25 us, count: 100}
  batch: {from: 1, to: 512, scale: log, factor: 2}
  eta: {from: 0.2, to: 0.9, count: 8}
fixed:
  precision: fp16
  execution: compiled
objectives:
  - {metric: latency_s, direction: min}
  - {metric: energy_j, direction: min}
pareto: {group: model}
)");
  const fs::path out = dir_ / "many";
  const DsxResult r = run_dsx("run '" + study.string() + "' --quiet --out '" + out.string() + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  std::size_t drawn = 0;
  std::istringstream dat(read_text(out / "figures" / "pareto_fronts.dat"));
  for (std::string line; std::getline(dat, line);) drawn += !line.empty() && line[0] != '#' ? 1 : 0;
  EXPECT_LE(drawn, 20000u + 100u);  // the feasible rows thinned, the fronts and knees whole
  EXPECT_GE(drawn, 1000u);
  EXPECT_NE(read_text(out / "report.md").find("one feasible point of each group where several would print as one mark"),
            std::string::npos);
}

}  // namespace
}  // namespace dsx
