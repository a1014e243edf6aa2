// `dsx diff RUN_A RUN_B` end to end: two runs of one study agree (exit 0), a changed fixed input is
// named with the largest metric changes, numbers checked against results.csv (exit 1), and a folder
// that is not a run says which file it lacks (exit 2).
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/report_agreement.hpp"
#include "tests/cli/shell.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

// metric values of a results.csv by the labels of `axes`.
std::map<std::vector<std::string>, double> metric_by_point(const std::string& csv, const std::vector<std::string>& axes,
                                                           const std::string& metric) {
  const agreement::CsvFile records = agreement::read_csv(csv);
  std::map<std::vector<std::string>, double> out;
  for (std::size_t r = 0; r < records.rows.size(); ++r) {
    std::vector<std::string> key;
    for (const std::string& a : axes) key.push_back(records.rows[r].at(records.column(a)));
    out[key] = std::stod(records.rows[r].at(records.column(metric)));
  }
  return out;
}

TEST(DiffCli, TwoRunsOfOneStudyAgree) {
  TempDir tmp("diff_cli");
  for (const char* run : {"a", "b"}) {
    const CommandResult r = run_dsx("run studies/quickstart.yaml --quiet --out '" + tmp.path() + "/" + run + "'");
    ASSERT_EQ(r.exit_code, 0) << r.out;
  }
  const CommandResult d = run_dsx("diff '" + tmp.path() + "/a' '" + tmp.path() + "/b'");
  EXPECT_EQ(d.exit_code, 0) << d.out;
  EXPECT_NE(d.out.find("\nno differences\n"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("resolved study: no differences"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("144 in both, 0 only in A, 0 only in B; 0 changed status"), std::string::npos) << d.out;
  const CommandResult j = run_dsx("diff --json '" + tmp.path() + "/a' '" + tmp.path() + "/b'");
  EXPECT_EQ(j.exit_code, 0) << j.out;
  const auto json = nlohmann::json::parse(j.out);
  EXPECT_FALSE(json["differ"].get<bool>());
  EXPECT_EQ(json["decisions"]["files_compared"], nlohmann::json({"comparisons.csv", "pareto.csv"}));
}

TEST(DiffCli, AChangedFixedInputIsNamedWithTheLargestMetricChanges) {
  TempDir tmp("diff_cli");
  std::string study = read_text(fs::path(DSX_SOURCE_DIR) / "studies/quickstart.yaml");
  const std::string from = "\n  eta: 0.5\n";
  ASSERT_NE(study.find(from), std::string::npos);
  study.replace(study.find(from), from.size(), "\n  eta: 0.4\n");
  const std::string changed = tmp.path() + "/quickstart_eta.yaml";
  std::ofstream(changed) << study;
  ASSERT_EQ(run_dsx("run studies/quickstart.yaml --quiet --out '" + tmp.path() + "/a'").exit_code, 0);
  const CommandResult b = run_dsx("run '" + changed + "' --quiet --out '" + tmp.path() + "/b'");
  ASSERT_EQ(b.exit_code, 0) << b.out;

  const std::string args = "'" + tmp.path() + "/a' '" + tmp.path() + "/b' --top 3";
  const CommandResult d = run_dsx("diff " + args + " --markdown '" + tmp.path() + "/diff.md'");
  EXPECT_EQ(d.exit_code, 1) << d.out;
  EXPECT_NE(d.out.find("  fixed.eta: 0.5 -> 0.4\n"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("\nthe runs differ\n"), std::string::npos) << d.out;

  // The largest change of latency_s, computed here from the two results.csv: the first point in
  // label order among those with the largest |B - A| / |A|.
  const std::vector<std::string> axes = {"hardware", "model", "execution", "launch_overhead"};
  const auto la = metric_by_point(tmp.path() + "/a/results.csv", axes, "latency_s");
  const auto lb = metric_by_point(tmp.path() + "/b/results.csv", axes, "latency_s");
  ASSERT_EQ(la.size(), 144u);
  std::vector<std::string> best;
  double best_change = 0;
  std::size_t changed_rows = 0;
  for (const auto& [key, a] : la) {
    const double r = (lb.at(key) - a) / std::fabs(a);
    if (std::fabs(r) > 1e-9) ++changed_rows;
    if (std::fabs(r) > std::fabs(best_change)) {
      best_change = r;
      best = key;
    }
  }
  ASSERT_GT(changed_rows, 0u);
  const auto j = nlohmann::json::parse(run_dsx("diff --json " + args).out);
  EXPECT_TRUE(j["differ"].get<bool>());
  const nlohmann::json* latency = nullptr;
  for (const auto& m : j["metrics"]) {
    if (m["metric"] == "latency_s") latency = &m;
  }
  ASSERT_NE(latency, nullptr);
  EXPECT_EQ((*latency)["compared"].get<std::size_t>(), 144u);
  EXPECT_EQ((*latency)["changed"].get<std::size_t>(), changed_rows);
  const auto& top = (*latency)["largest"].at(0);
  for (std::size_t i = 0; i < axes.size(); ++i) EXPECT_EQ(top["point"][axes[i]], best[i]);
  EXPECT_EQ(top["a"].get<double>(), la.at(best));
  EXPECT_EQ(top["b"].get<double>(), lb.at(best));
  EXPECT_EQ(top["relative_change"].get<double>(), best_change);
  const std::string line = fmt::format("hardware={}, model={}, execution={}, launch_overhead={}: {} -> {}", best[0],
                                       best[1], best[2], best[3], la.at(best), lb.at(best));
  EXPECT_NE(d.out.find(line), std::string::npos) << line << "\n" << d.out;
  EXPECT_NE(d.out.find(fmt::format("latency_s: {} of 144 rows changed", changed_rows)), std::string::npos) << d.out;

  const std::string md = read_text(tmp.path() + "/diff.md");
  EXPECT_NE(md.find("| fixed.eta | 0.5 | 0.4 |"), std::string::npos) << md;
  EXPECT_NE(md.find("The runs differ"), std::string::npos) << md;
}

TEST(DiffCli, AFolderThatIsNotARunIsBadInputNamingTheMissingFile) {
  TempDir tmp("diff_cli");
  ASSERT_EQ(run_dsx("run studies/quickstart.yaml --quiet --out '" + tmp.path() + "/a'").exit_code, 0);
  fs::create_directories(tmp.path() + "/b");
  fs::copy_file(tmp.path() + "/a/study.resolved.yaml", tmp.path() + "/b/study.resolved.yaml");
  fs::copy_file(tmp.path() + "/a/manifest.json", tmp.path() + "/b/manifest.json");
  const CommandResult d = run_dsx("diff '" + tmp.path() + "/a' '" + tmp.path() + "/b'");
  EXPECT_EQ(d.exit_code, 2) << d.out;
  EXPECT_EQ(d.out, "dsx diff: error: " + tmp.path() + "/b: not a run folder: results.sqlite is missing\n");
  const CommandResult usage = run_dsx("diff '" + tmp.path() + "/a'");
  EXPECT_EQ(usage.exit_code, 2) << usage.out;
  const CommandResult tolerance = run_dsx("diff '" + tmp.path() + "/a' '" + tmp.path() + "/a' --tolerance -1");
  EXPECT_EQ(tolerance.exit_code, 2) << tolerance.out;
}

}  // namespace
}  // namespace dsx
