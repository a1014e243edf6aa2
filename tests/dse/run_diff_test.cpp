// dsx diff's pieces (dse/run_diff.hpp): the relative change, the ranking of the largest changes, and
// the matching of rows by axis labels between stores whose grids differ.
#include "dse/run_diff.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "dse/store.hpp"
#include "output/run_diff_markdown.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(DiffRelativeChange, IsBMinusAOverMagnitudeOfA) {
  EXPECT_EQ(relative_change(2.0, 3.0), 0.5);
  EXPECT_EQ(relative_change(-2.0, -3.0), -0.5);
  EXPECT_EQ(relative_change(4.0, 4.0), 0.0);
  EXPECT_EQ(relative_change(0.0, 0.0), 0.0);
  EXPECT_EQ(relative_change(0.0, 1e-300), kInf);
  EXPECT_EQ(relative_change(0.0, -1.0), -kInf);
  EXPECT_EQ(relative_change(kNaN, kNaN), 0.0);  // both missing: the same
  EXPECT_EQ(relative_change(kNaN, 1.0), kInf);  // one missing: changed
  EXPECT_EQ(relative_change(1.0, kNaN), kInf);
  EXPECT_EQ(relative_change(kInf, kInf), 0.0);
  EXPECT_EQ(relative_change(kInf, -kInf), kInf);
  EXPECT_TRUE(changed_beyond(1.0, 1.0 + 1e-8, 1e-9));
  EXPECT_FALSE(changed_beyond(1.0, 1.0 + 1e-10, 1e-9));
  EXPECT_FALSE(changed_beyond(1.0, 1.1, 0.2));
}

TEST(DiffLargestChanges, KeepsTheLargestMagnitudesAndTheFirstOfEqualOnes) {
  LargestChanges top(3);
  top.offer({"a"}, 1, 2, 1.0);
  top.offer({"b"}, 1, 0.5, -0.5);
  top.offer({"c"}, 1, 3, 2.0);
  top.offer({"d"}, 1, 0, -1.0);   // ties with a, offered later: after it
  top.offer({"e"}, 1, 1.1, 0.1);  // smaller than all three kept
  top.offer({"f"}, 0, 1, kInf);   // infinite ranks first
  ASSERT_EQ(top.changes().size(), 3u);
  EXPECT_EQ(top.changes()[0].point, PointKey{"f"});
  EXPECT_EQ(top.changes()[1].point, PointKey{"c"});
  EXPECT_EQ(top.changes()[2].point, PointKey{"a"});
  LargestChanges none(0);
  none.offer({"a"}, 1, 2, 1.0);
  EXPECT_TRUE(none.changes().empty());
}

// A minimal run folder: a resolved study with `axes` and `fixed`, a manifest and a store.
void write_run(const std::string& dir, const std::string& axes_yaml, const std::string& fixed_yaml,
               const ResultTable& table, const std::string& more_yaml = "") {
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/study.resolved.yaml") << "study: tiny\nsolver: inference\naxes:\n"
                                              << axes_yaml << "fixed:\n"
                                              << fixed_yaml << more_yaml;
  std::ofstream(dir + "/manifest.json")
      << R"({"dsx_version": "0.1.0", "git_revision": "abc", "study_hash": "1", "catalog_hash": "2"})";
  ResultStore store(result_store_path(dir));
  store.ensure_schema(table);
  store.append(table);
}

void add_row(ResultTable& t, std::uint64_t index, std::vector<std::string> labels, PointStatus status,
             std::string detail, std::vector<double> metrics) {
  t.point_index.push_back(index);
  for (auto& l : labels) t.push_label(l);
  t.status.push_back(status);
  t.push_detail(detail);
  for (double m : metrics) t.metrics.push_back(m);
}

TEST(DiffRuns, MatchesRowsByLabelsNotPointIndexAndFillsAnAxisOneRunLacksFromItsFixedValue) {
  TempDir tmp("run_diff");
  // A sweeps hardware at batch 1 (fixed); B sweeps hardware x batch, in another order, with other
  // point indices, a new hardware, one part gone, and a metric A does not have.
  ResultTable a;
  a.axis_names = {"hardware"};
  a.metric_names = {"latency_s", "energy_j"};
  add_row(a, 0, {"h100"}, PointStatus::ok, "", {2.0, 10.0});
  add_row(a, 1, {"a100"}, PointStatus::ok, "", {4.0, 20.0});
  add_row(a, 2, {"l4"}, PointStatus::ok, "", {8.0, 5.0});
  write_run(tmp.path() + "/a", "  hardware: [h100, a100, l4]\n", "  batch: 1\n  eta: 0.5\n", a);

  ResultTable b;
  b.axis_names = {"batch", "hardware"};
  b.metric_names = {"energy_j", "latency_s", "power_w"};
  add_row(b, 0, {"1", "a100"}, PointStatus::ok, "", {20.0, 5.0, 1.0});  // latency +25 %
  add_row(b, 1, {"1", "h100"}, PointStatus::ok, "", {10.0, 1.0, 1.0});  // latency -50 %
  add_row(b, 2, {"1", "b200"}, PointStatus::ok, "", {1.0, 1.0, 1.0});   // new
  add_row(b, 3, {"8", "a100"}, PointStatus::ok, "", {1.0, 1.0, 1.0});   // new batch
  add_row(b, 4, {"8", "h100"}, PointStatus::infeasible, "out of memory", {kNaN, kNaN, kNaN});
  write_run(tmp.path() + "/b", "  batch: [1, 8]\n  hardware: [a100, h100, b200]\n", "  eta: 0.5\n", b);

  std::vector<std::string> problems;
  const auto d = diff_runs(tmp.path() + "/a", tmp.path() + "/b", RunDiffOptions{1e-9, 10}, problems);
  ASSERT_TRUE(d) << (problems.empty() ? "" : problems.front());
  EXPECT_EQ(d->key_axes, (std::vector<std::string>{"hardware", "batch"}));
  EXPECT_EQ(d->rows_a, 3u);
  EXPECT_EQ(d->rows_b, 5u);
  EXPECT_EQ(d->matched, 2u);  // a100 and h100 at batch 1
  EXPECT_EQ(d->only_a, 1u);
  EXPECT_EQ(d->only_b, 3u);
  EXPECT_EQ(d->only_a_examples, (std::vector<PointKey>{{"l4", "1"}}));
  EXPECT_EQ(d->only_b_examples, (std::vector<PointKey>{{"a100", "8"}, {"b200", "1"}, {"h100", "8"}}));
  EXPECT_EQ(d->status_changed, 0u);
  EXPECT_EQ(d->metrics_only_b, std::vector<std::string>{"power_w"});
  ASSERT_EQ(d->metrics.size(), 2u);
  EXPECT_EQ(d->metrics[0].name, "latency_s");
  EXPECT_EQ(d->metrics[0].compared, 2u);
  EXPECT_EQ(d->metrics[0].changed, 2u);
  ASSERT_EQ(d->metrics[0].largest.size(), 2u);
  EXPECT_EQ(d->metrics[0].largest[0].point, (PointKey{"h100", "1"}));
  EXPECT_EQ(d->metrics[0].largest[0].relative, -0.5);
  EXPECT_EQ(d->metrics[0].largest[1].point, (PointKey{"a100", "1"}));
  EXPECT_EQ(d->metrics[0].largest[1].relative, 0.25);
  EXPECT_EQ(d->metrics[1].name, "energy_j");
  EXPECT_EQ(d->metrics[1].changed, 0u);
  // The resolved studies: batch moved from fixed to an axis, the hardware list changed.
  std::vector<std::string> paths;
  for (const Change& c : d->study_changes) paths.push_back(c.what);
  EXPECT_EQ(paths, (std::vector<std::string>{"axes.batch", "axes.hardware (added b200; removed l4)", "fixed.batch"}));
  EXPECT_TRUE(d->differs());
}

TEST(DiffRuns, CatalogEntriesAreMatchedByIdAndFormattingDoesNotCount) {
  TempDir tmp("run_diff");
  ResultTable a;
  a.axis_names = {"hardware"};
  a.metric_names = {"latency_s"};
  add_row(a, 0, {"h100"}, PointStatus::ok, "", {2.0});
  write_run(tmp.path() + "/a", "  hardware: [h100]\n", "  batch: 1\n", a,
            "# a comment\ncatalog:\n  hardware:\n    - {id: l4, tdp: 72 W}\n    - {id: h100, tdp: 700 W}\n");
  write_run(tmp.path() + "/b", "  hardware: [h100]\n", "  batch: \"1\"\n", a,
            "catalog:\n  hardware:\n    - id: h100\n      tdp: 800 W\n    - id: b200\n      tdp: 1 kW\n");
  std::vector<std::string> problems;
  const auto d = diff_runs(tmp.path() + "/a", tmp.path() + "/b", RunDiffOptions{}, problems);
  ASSERT_TRUE(d) << (problems.empty() ? "" : problems.front());
  ASSERT_EQ(d->study_changes.size(), 3u);
  EXPECT_EQ(d->study_changes[0].what, "catalog.hardware[b200]");
  EXPECT_EQ(d->study_changes[0].a, "");
  EXPECT_EQ(d->study_changes[0].b, "{id: b200, tdp: 1 kW}");
  EXPECT_EQ(d->study_changes[1].what, "catalog.hardware[h100].tdp");
  EXPECT_EQ(d->study_changes[1].a, "700 W");
  EXPECT_EQ(d->study_changes[1].b, "800 W");
  EXPECT_EQ(d->study_changes[2].what, "catalog.hardware[l4]");
  EXPECT_EQ(d->study_changes[2].b, "");
  EXPECT_EQ(d->metrics[0].changed, 0u);
  EXPECT_TRUE(d->differs());
}

TEST(DiffRuns, StatusChangesAreCountedWithTheirReasons) {
  TempDir tmp("run_diff");
  ResultTable a;
  a.axis_names = {"hardware"};
  a.metric_names = {"latency_s"};
  add_row(a, 0, {"h100"}, PointStatus::ok, "", {2.0});
  add_row(a, 1, {"l4"}, PointStatus::ok, "", {3.0});
  write_run(tmp.path() + "/a", "  hardware: [h100, l4]\n", "  batch: 1\n", a);
  ResultTable b = a;
  b.status[1] = PointStatus::infeasible;
  b.set_detail(1, "out of memory");
  b.metrics[1] = kNaN;
  write_run(tmp.path() + "/b", "  hardware: [h100, l4]\n", "  batch: 1\n", b);
  std::vector<std::string> problems;
  const auto d = diff_runs(tmp.path() + "/a", tmp.path() + "/b", RunDiffOptions{}, problems);
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->study_changes.empty());
  EXPECT_EQ(d->status_changed, 1u);
  ASSERT_EQ(d->status_transitions.size(), 1u);
  EXPECT_EQ(d->status_transitions[0].first, "ok -> infeasible (out of memory)");
  EXPECT_EQ(d->metrics[0].compared, 1u);
  EXPECT_EQ(d->metrics[0].changed, 0u);
  EXPECT_TRUE(d->differs());
  // A run against itself agrees.
  const auto same = diff_runs(tmp.path() + "/a", tmp.path() + "/a", RunDiffOptions{}, problems);
  ASSERT_TRUE(same);
  EXPECT_FALSE(same->differs());
}

// The analyses' derived table: its metrics are compared too, and a constraint's status counts.
void write_derived(const std::string& dir, const std::vector<std::string>& status, const std::vector<double>& cost) {
  StoreTable t;
  t.name = "derived";
  t.columns = {{"point_index", StoreTable::Type::integer},
               {"status", StoreTable::Type::text},
               {"detail", StoreTable::Type::text},
               {"kept", StoreTable::Type::integer},
               {"cost_usd", StoreTable::Type::real}};
  for (std::size_t i = 0; i < status.size(); ++i) {
    t.add_row({status[i], status[i] == "ok" ? "" : "over budget"}, {static_cast<double>(i), 1, cost[i]});
  }
  ResultStore(result_store_path(dir)).write_table(t);
}

TEST(DiffRuns, ComparesDerivedMetricsAndConstraintStatuses) {
  TempDir tmp("run_diff");
  ResultTable a;
  a.axis_names = {"hardware"};
  a.metric_names = {"latency_s"};
  add_row(a, 0, {"h100"}, PointStatus::ok, "", {2.0});
  add_row(a, 1, {"l4"}, PointStatus::ok, "", {3.0});
  add_row(a, 2, {"t4"}, PointStatus::ok, "", {4.0});
  write_run(tmp.path() + "/a", "  hardware: [h100, l4, t4]\n", "  batch: 1\n", a);
  write_run(tmp.path() + "/b", "  hardware: [h100, l4, t4]\n", "  batch: 1\n", a);
  write_derived(tmp.path() + "/a", {"ok", "ok", "ok"}, {10.0, 20.0, 30.0});
  write_derived(tmp.path() + "/b", {"ok", "ok", "infeasible"}, {10.0, 21.0, kNaN});
  std::vector<std::string> problems;
  const auto d = diff_runs(tmp.path() + "/a", tmp.path() + "/b", RunDiffOptions{}, problems);
  ASSERT_TRUE(d) << (problems.empty() ? "" : problems.front());
  ASSERT_EQ(d->metrics.size(), 2u);
  EXPECT_EQ(d->metrics[1].name, "cost_usd");
  EXPECT_EQ(d->metrics[1].compared, 2u);
  EXPECT_EQ(d->metrics[1].changed, 1u);
  ASSERT_EQ(d->metrics[1].largest.size(), 1u);
  EXPECT_EQ(d->metrics[1].largest[0].point, PointKey{"l4"});
  EXPECT_EQ(d->metrics[1].largest[0].relative, 0.05);
  ASSERT_EQ(d->status_transitions.size(), 1u);
  EXPECT_EQ(d->status_transitions[0].first, "ok -> infeasible (over budget)");
}

TEST(DiffMarkdown, ValuesFromTheRunsCannotAddMarkupOrBreakATable) {
  RunDiff d;
  d.a.dir = "runs/a";
  d.b.dir = "runs/b";
  d.study_changes.push_back({"title", "<script>alert(1)</script>", "a | b *c*"});
  const std::string md = run_diff_markdown(d);
  for (std::size_t at = md.find('<'); at != std::string::npos; at = md.find('<', at + 1)) {
    EXPECT_TRUE(at > 0 && md[at - 1] == '\\') << "raw HTML at " << at << ":\n" << md;
  }
  EXPECT_NE(md.find("| title | \\<script"), std::string::npos) << md;
  EXPECT_NE(md.find(" | a \\| b \\*c\\* |\n"), std::string::npos) << md;
  EXPECT_NE(md.find("The runs differ"), std::string::npos) << md;
}

TEST(DiffRuns, NamesTheMissingFileOfAFolderThatIsNotARun) {
  TempDir tmp("run_diff");
  std::filesystem::create_directories(tmp.path() + "/x");
  std::ofstream(tmp.path() + "/x/study.resolved.yaml") << "study: x\n";
  std::vector<std::string> problems;
  EXPECT_FALSE(diff_runs(tmp.path() + "/x", tmp.path() + "/nowhere", RunDiffOptions{}, problems));
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_EQ(problems[0], tmp.path() + "/x: not a run folder: results.sqlite is missing");
  EXPECT_EQ(problems[1], tmp.path() + "/x: not a run folder: manifest.json is missing");
  EXPECT_EQ(problems[2], tmp.path() + "/nowhere: not a run folder: no such folder");
}

}  // namespace
}  // namespace dsx
