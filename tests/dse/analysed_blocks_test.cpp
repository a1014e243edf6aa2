// Reading the store in blocks: ResultStore::read_results with a column subset and a row range reads
// exactly those cells, and results.csv written block by block (for_each_analysed_block) is the text
// written from the whole analysed table, derived metrics, constraint statuses and intervals
// included, whatever the block size; and a study with derived metrics loads only the solver
// metrics it names.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "dse/analysis/analysed_run.hpp"
#include "dse/analysis/report_columns.hpp"
#include "dse/grid.hpp"
#include "dse/store.hpp"
#include "dse/study.hpp"
#include "dse/sweep.hpp"
#include "dse/sweep_store.hpp"
#include "output/csv.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

const std::string kCatalog = DSX_SOURCE_DIR "/studies/catalog";

// The shipped calibration profile (no `calibration: none`), so the rows carry intervals of solver
// metrics and of a derived metric; a constraint turns some feasible rows infeasible.
const char* kStudy = R"(study: blocks
title: t
question: q
solver: inference
axes:
  hardware: [a100_80gb_sxm, h100_sxm, l4]
  model: [resnet50, gpt2]
  precision: [fp16, fp32]
  batch: {from: 1, to: 256, scale: log, factor: 2}
fixed:
  execution: compiled
  launch_overhead: 10 us
derived:
  - {name: samples_per_usd, expr: "throughput_samples_per_s / hardware_price_usd"}
  - {name: fixed_price_usd, expr: "hardware_price_usd"}
constraints:
  - {name: small, expr: "batch <= 128"}
objectives:
  - {metric: latency_s, direction: min}
  - {metric: samples_per_usd, direction: max}
)";

ResolvedStudy load(const std::string& text) {
  Diagnostics d;
  auto study = load_study_text("t.yaml", text, kCatalog, d);
  if (!study) throw std::runtime_error(d.format());
  return std::move(*study);
}

class AnalysedBlocks : public ::testing::Test {
 protected:
  void SetUp() override {
    study_.emplace(load(kStudy));
    const Grid grid(*study_);
    ResultStore store(path());
    store.ensure_schema(make_result_table(*study_));
    sweep_into_store(*study_, grid, store, SweepOptions{});
  }
  std::string path() const { return dir_.path() + "/results.sqlite"; }
  TempDir dir_{"analysed_blocks"};
  std::optional<ResolvedStudy> study_;
};

TEST_F(AnalysedBlocks, ReadsOnlyTheColumnsAndRowsAsked) {
  const ResultStore store(path(), StoreMode::read_only);
  const ResultTable all = store.read_results();
  ASSERT_GT(all.rows(), 10u);
  ResultReadOptions options;
  options.metrics = std::vector<std::string>{"throughput_samples_per_s", "latency_s", "no_such_metric"};
  options.after_point = all.point_index[3];
  options.max_rows = 5;
  const ResultTable part = store.read_results(options);
  const int latency = all.metric_column("latency_s"), throughput = all.metric_column("throughput_samples_per_s");
  ASSERT_GE(latency, 0);
  ASSERT_GE(throughput, 0);
  // The store's order, whatever the order asked.
  const std::vector<std::string> expected_names =
      latency < throughput ? std::vector<std::string>{"latency_s", "throughput_samples_per_s"}
                           : std::vector<std::string>{"throughput_samples_per_s", "latency_s"};
  EXPECT_EQ(part.metric_names, expected_names);
  EXPECT_EQ(part.axis_names, all.axis_names);
  EXPECT_EQ(part.reasons, all.reasons);
  ASSERT_EQ(part.rows(), 5u);
  EXPECT_EQ(part.metrics.size(), 10u);
  for (std::size_t r = 0; r < part.rows(); ++r) {
    const std::size_t from = r + 4;
    EXPECT_EQ(part.point_index[r], all.point_index[from]);
    EXPECT_EQ(part.status[r], all.status[from]);
    EXPECT_EQ(part.detail(r), all.detail(from));
    for (std::size_t a = 0; a < all.axis_names.size(); ++a) EXPECT_EQ(part.label(r, a), all.label(from, a));
    for (std::size_t m = 0; m < part.metric_names.size(); ++m) {
      const double want = all.metric(from, static_cast<std::size_t>(all.metric_column(part.metric_names[m])));
      const double got = part.metric(r, m);
      EXPECT_TRUE(std::isnan(want) ? std::isnan(got) : got == want) << part.metric_names[m];
    }
  }
  options.after_point = all.point_index.back();
  EXPECT_EQ(store.read_results(options).rows(), 0u);
}

TEST_F(AnalysedBlocks, ResultsCsvFromBlocksIsTheWholeTablesText) {
  const ResultStore store(path(), StoreMode::read_only);
  const AnalysedRun run = analyse_run(*study_, store.read_results());
  // The study exercises what a block must reproduce: a derived interval column, a constraint.
  ASSERT_GE(run.table.metric_column("samples_per_usd_p10"), 0);
  ASSERT_FALSE(run.interval_columns.empty());
  EXPECT_GT(run.formulas.constraint_violations.at(0), 0u);
  const std::vector<FixedInput> fixed = fixed_inputs(*study_);
  const std::string whole = results_csv(run.table, fixed);
  for (const std::size_t block_rows : {std::size_t{1}, std::size_t{7}, std::size_t{64}, std::size_t{100000}}) {
    ResultTable header;
    header.axis_names = run.table.axis_names;
    header.metric_names = run.table.metric_names;
    std::string text;
    const auto sink = [&text](std::string_view piece) { text += piece; };
    results_csv_pieces(header, fixed, sink);
    std::size_t blocks = 0;
    for_each_analysed_block(*study_, store, run.table.metric_names, block_rows, [&](const ResultTable& block) {
      ++blocks;
      EXPECT_LE(block.rows(), block_rows);
      results_csv_pieces(block, fixed, sink, 1 << 20, false);
    });
    EXPECT_EQ(blocks, (run.table.rows() + block_rows - 1) / block_rows);
    EXPECT_EQ(text, whole) << "blocks of " << block_rows << " rows";
  }
}

// A study with derived metrics and a constraint loads only the solver metrics its objectives and
// formulas name (dse/analysis/report_columns.hpp), and its analysed table, fronts, statuses and
// results.csv are those of the table of every column, value for value and byte for byte.
TEST_F(AnalysedBlocks, FormulasLoadOnlyTheColumnsTheyName) {
  const ResultStore store(path(), StoreMode::read_only);
  std::vector<std::string> named;
  for (const MetricSpec& m : study_->solver->metrics()) {
    if (m.name == "latency_s" || m.name == "throughput_samples_per_s") named.emplace_back(m.name);
  }
  ASSERT_EQ(named.size(), 2u);
  const ReportColumns columns = report_columns(*study_);
  EXPECT_FALSE(columns.every);
  EXPECT_EQ(columns.metrics, named);
  const ResultTable loaded = read_report_rows(*study_, store);
  EXPECT_EQ(loaded.metric_names, named);

  const AnalysedRun selected = analyse_run(*study_, loaded);
  const AnalysedRun whole = analyse_run(*study_, store.read_results());
  EXPECT_TRUE(selected.columns_selected);
  EXPECT_FALSE(whole.columns_selected);
  // The derived metric that reads a covered metric has an interval; the constant one has none.
  const std::vector<std::string> held = {"latency_s",         "throughput_samples_per_s", "samples_per_usd",
                                         "fixed_price_usd",   "latency_s_p10",            "latency_s_p90",
                                         "throughput_samples_per_s_p10", "throughput_samples_per_s_p90",
                                         "samples_per_usd_p10",          "samples_per_usd_p90"};
  EXPECT_EQ(selected.table.metric_names, held);
  ASSERT_EQ(selected.table.rows(), whole.table.rows());
  for (std::size_t m = 0; m < held.size(); ++m) {
    const std::size_t w = whole.table.require_metric_column(held[m]);
    for (std::size_t r = 0; r < whole.table.rows(); ++r) {
      const double a = selected.table.metric(r, m), b = whole.table.metric(r, w);
      ASSERT_TRUE(std::isnan(b) ? std::isnan(a) : a == b) << held[m] << " row " << r;
    }
  }
  EXPECT_EQ(selected.table.status, whole.table.status);
  EXPECT_EQ(selected.table.detail_codes.codes(), whole.table.detail_codes.codes());
  EXPECT_EQ(selected.formulas.kept, whole.formulas.kept);
  EXPECT_EQ(selected.formulas.constraint_violations, whole.formulas.constraint_violations);
  EXPECT_EQ(selected.fronts.rows, whole.fronts.rows);
  ASSERT_EQ(selected.best.size(), whole.best.size());
  for (std::size_t o = 0; o < whole.best.size(); ++o) EXPECT_EQ(selected.best[o].rows, whole.best[o].rows);

  // The whole table's columns, from the selected one, and results.csv written from the store's blocks.
  EXPECT_FALSE(analysed_metric_names(*study_).has_value());
  const std::vector<std::string> every = analysed_metric_names(*study_, &selected.table).value();
  EXPECT_EQ(every, whole.table.metric_names);
  const std::vector<FixedInput> fixed = fixed_inputs(*study_);
  ResultTable header;
  header.axis_names = selected.table.axis_names;
  header.metric_names = every;
  std::string text;
  const auto sink = [&text](std::string_view piece) { text += piece; };
  results_csv_pieces(header, fixed, sink);
  for_each_analysed_block(*study_, store, every, kAnalysedBlockRows,
                          [&](const ResultTable& block) { results_csv_pieces(block, fixed, sink, 1 << 20, false); });
  EXPECT_EQ(text, results_csv(whole.table, fixed));
}

}  // namespace
}  // namespace dsx
