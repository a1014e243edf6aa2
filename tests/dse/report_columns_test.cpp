// The report's table holds only the metric columns a study reads (dse/analysis/report_columns.hpp):
// quickstart's objectives, figures and comparisons name five of the inference solver's metrics, and
// the calibration profile gives two of those (latency_s, energy_j) an interval; every other column
// stays in the store and reaches results.csv from its blocks. What the table holds is the whole
// table's value for value.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "dse/analysis/analysed_run.hpp"
#include "dse/analysis/report_columns.hpp"
#include "dse/grid.hpp"
#include "dse/store.hpp"
#include "dse/study.hpp"
#include "dse/sweep.hpp"
#include "dse/sweep_store.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

const std::string kSourceDir = DSX_SOURCE_DIR;

ResolvedStudy shipped(const std::string& name) {
  Diagnostics d;
  auto study = load_study(kSourceDir + "/studies/" + name + ".yaml", kSourceDir + "/studies/catalog", d);
  if (!study) throw std::runtime_error(d.format());
  return std::move(*study);
}

// quickstart.yaml: objectives latency_s and energy_j; figures of gpu_utilization, memory_share,
// dispatch_share, latency_s and energy_j; comparisons of gpu_utilization. In the solver's order.
const std::vector<std::string> kQuickstartReads = {"latency_s", "gpu_utilization", "dispatch_share", "memory_share",
                                                   "energy_j"};

TEST(ReportColumns, QuickstartReadsFiveOfItsSolversMetrics) {
  const ResolvedStudy study = shipped("quickstart");
  const ReportColumns columns = report_columns(study);
  EXPECT_FALSE(columns.every);
  EXPECT_EQ(columns.metrics, kQuickstartReads);
  EXPECT_GT(study.solver->metrics().size(), 20u);
}

TEST(ReportColumns, FormulasReadOnlyTheMetricsTheyName) {
  // kv_cache_attention derives decode_tokens_per_s = batch / decode_step_s: decode_step_s is loaded
  // for it although no objective, figure, comparison or cited value names it.
  const ResolvedStudy study = shipped("kv_cache_attention");
  const ReportColumns columns = report_columns(study);
  EXPECT_FALSE(columns.every);
  EXPECT_NE(std::find(columns.metrics.begin(), columns.metrics.end(), "decode_step_s"), columns.metrics.end());
  EXPECT_LT(columns.metrics.size(), study.solver->metrics().size());
  // Its derived metric's intervals depend on the rows, so the whole table's columns are read from its
  // analysed table.
  EXPECT_FALSE(analysed_metric_names(study).has_value());
}

TEST(ReportColumns, LoadedTableHoldsOnlyWhatQuickstartReads) {
  const ResolvedStudy study = shipped("quickstart");
  TempDir dir("report_columns");
  const std::string path = dir.path() + "/results.sqlite";
  {
    ResultStore store(path);
    store.ensure_schema(make_result_table(study));
    sweep_into_store(study, Grid(study), store, SweepOptions{});
  }
  const ResultStore store(path, StoreMode::read_only);
  const ResultTable loaded = read_report_rows(study, store);
  EXPECT_EQ(loaded.metric_names, kQuickstartReads);
  const AnalysedRun selected = analyse_run(study, loaded);
  EXPECT_TRUE(selected.columns_selected);
  const std::vector<std::string> with_intervals = {"latency_s",     "gpu_utilization", "dispatch_share",
                                                   "memory_share",  "energy_j",        "latency_s_p10",
                                                   "latency_s_p90", "energy_j_p10",    "energy_j_p90"};
  EXPECT_EQ(selected.table.metric_names, with_intervals);

  const AnalysedRun whole = analyse_run(study, store.read_results());
  EXPECT_FALSE(whole.columns_selected);
  EXPECT_EQ(analysed_metric_names(study).value(), whole.table.metric_names);
  ASSERT_EQ(selected.table.rows(), whole.table.rows());
  ASSERT_GT(whole.table.rows(), 100u);
  for (std::size_t m = 0; m < with_intervals.size(); ++m) {
    const std::size_t w = whole.table.require_metric_column(with_intervals[m]);
    for (std::size_t r = 0; r < whole.table.rows(); ++r) {
      const double a = selected.table.metric(r, m), b = whole.table.metric(r, w);
      ASSERT_TRUE(std::isnan(b) ? std::isnan(a) : a == b) << with_intervals[m] << " row " << r;
    }
  }
  EXPECT_EQ(selected.fronts.rows, whole.fronts.rows);
  // A column the study does not read is not there to be read by mistake.
  EXPECT_THROW(selected.table.require_metric_column("throughput_samples_per_s"), std::logic_error);
  EXPECT_EQ(selected.table.metric_column("throughput_samples_per_s"), -1);
}

}  // namespace
}  // namespace dsx
