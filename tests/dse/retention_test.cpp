// Keeping only some rows (keep:) and grid constraints: a sweep that keeps the fronts, top-k and a
// sample gives the same fronts, top-k lists, assertion verdicts and counts as one that keeps every
// row, whatever the block size, the thread count and however often it is interrupted; grid
// constraints skip points before the solver and are counted.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "dse/analysis/analysed_run.hpp"
#include "dse/analysis/blocks.hpp"
#include "dse/analysis/chunk_selection.hpp"
#include "dse/analysis/retention.hpp"
#include "dse/grid.hpp"
#include "dse/pareto.hpp"
#include "dse/store.hpp"
#include "dse/study.hpp"
#include "dse/sweep.hpp"
#include "dse/sweep_store.hpp"
#include "tests/dse/result_table_text.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

const std::string kCatalog = DSX_SOURCE_DIR "/studies/catalog";

// Two objectives with a front per hardware; a derived metric objective, a constraint, a filter,
// assertions of both kinds, top-k and a comparison.
const char* kStudy = R"(study: keep
title: t
question: q
solver: inference
axes:
  hardware: [a100_80gb_sxm, h100_sxm, l4, b200]
  model: [resnet50, gpt2, bert_base]
  precision: [fp16, fp32]
  batch: {from: 1, to: 1024, scale: log, factor: 2}
  eta: [0.3, 0.45, 0.6]
fixed:
  execution: compiled
  launch_overhead: 10 us
objectives:
  - {metric: latency_s, direction: min}
  - {metric: samples_per_usd, direction: max}
derived:
  - {name: samples_per_usd, expr: "throughput_samples_per_s / hardware_price_usd"}
constraints:
  - {name: fits, expr: "batch <= 512"}
filters:
  - {name: fast_enough, expr: "latency_s < 0.5"}
assertions:
  - {name: some_fast, expr: "latency_s < 1e-3", require: any}
  - {name: all_positive, expr: "throughput_samples_per_s > 1000"}
top_k: 3
pareto:
  group: [hardware]
compare:
  - name: one_point
    where: {hardware: l4, model: resnet50, precision: fp16, batch: 8, eta: 0.45}
    metric: latency_s
    expected: 1 ms
    tolerance: 1000
    source: "a test"
)";

ResolvedStudy load(const std::string& text) {
  Diagnostics d;
  auto study = load_study_text("t.yaml", text, kCatalog, d);
  if (!study) throw std::runtime_error(d.format());
  return std::move(*study);
}

struct Swept {
  ResultTable stored;
  SweepCounts counts;
  std::vector<std::uint64_t> front;                     // point indices of the union of fronts
  std::vector<std::vector<std::uint64_t>> top_k;        // per objective
  std::vector<AssertionOutcome> assertions;
  std::vector<std::size_t> constraint_violations, filtered_out;
  std::vector<std::string> example_points;              // labels of each assertion's example
};

class Retention : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("dsx_retention_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Sweeps in slices of `max_blocks` blocks (0: in one go), re-opening the store for each slice as
  // a resumed run does.
  Swept sweep(const ResolvedStudy& study, std::uint64_t block_points, unsigned threads, std::uint64_t max_blocks = 0) {
    const std::string path = (dir_ / fmt::format("r{}.sqlite", n_++)).string();
    const Grid grid(study);
    for (;;) {
      ResultStore store(path);
      store.ensure_schema(make_result_table(study));
      SweepOptions options;
      options.threads = threads;
      options.block_points = block_points;
      options.max_blocks = max_blocks;
      if (sweep_into_store(study, grid, store, options).points_done == grid.size()) break;
    }
    ResultStore store(path);
    Swept out;
    out.stored = store.read_results();
    out.counts = *stored_sweep_counts(store, study);
    const AnalysedRun run = analyse_run(study, out.stored, &out.counts);
    out.front = point_indices_of(run.shown(), run.fronts.rows);
    for (const TopKList& t : run.top_k) out.top_k.push_back(point_indices_of(run.shown(), t.rows));
    out.assertions = run.assertions;
    out.constraint_violations = run.formulas.constraint_violations;
    out.filtered_out = run.formulas.filtered_out;
    for (const AssertionOutcome& o : run.assertions) {
      out.example_points.push_back(o.example_row ? std::to_string(run.shown().point_index[*o.example_row]) : "none");
    }
    return out;
  }

  fs::path dir_;
  int n_ = 0;
};

// What keep-all computes from every row, in the same shape.
Swept analyse_all(const ResolvedStudy& study, const Swept& all) {
  Swept out = all;
  const AnalysedRun run = analyse_run(study, all.stored, nullptr);
  out.front = point_indices_of(run.shown(), run.fronts.rows);
  out.top_k.clear();
  for (const TopKList& t : run.top_k) out.top_k.push_back(point_indices_of(run.shown(), t.rows));
  out.assertions = run.assertions;
  out.constraint_violations = run.formulas.constraint_violations;
  out.filtered_out = run.formulas.filtered_out;
  out.example_points.clear();
  for (const AssertionOutcome& o : run.assertions) {
    out.example_points.push_back(o.example_row ? std::to_string(run.shown().point_index[*o.example_row]) : "none");
  }
  return out;
}

void expect_same_answers(const Swept& kept, const Swept& all) {
  EXPECT_EQ(kept.front, all.front);
  EXPECT_EQ(kept.top_k, all.top_k);
  EXPECT_EQ(kept.constraint_violations, all.constraint_violations);
  EXPECT_EQ(kept.filtered_out, all.filtered_out);
  EXPECT_EQ(kept.example_points, all.example_points);
  ASSERT_EQ(kept.assertions.size(), all.assertions.size());
  for (std::size_t i = 0; i < kept.assertions.size(); ++i) {
    EXPECT_EQ(kept.assertions[i].held, all.assertions[i].held) << i;
    EXPECT_EQ(kept.assertions[i].rows_checked, all.assertions[i].rows_checked) << i;
    EXPECT_EQ(kept.assertions[i].rows_holding, all.assertions[i].rows_holding) << i;
  }
}

TEST_F(Retention, KeepingFrontsTopKAndASampleGivesTheAnswersOfKeepingEveryRow) {
  const ResolvedStudy all_study = load(kStudy);
  const ResolvedStudy kept_study = load(std::string(kStudy) + "keep: {front: true, top_k: 2, sample: 40}\n");
  const Swept all = analyse_all(all_study, sweep(all_study, 1U << 14U, 1));
  const std::uint64_t grid_points = Grid(all_study).size();
  ASSERT_EQ(all.stored.rows(), grid_points);
  ASSERT_FALSE(all.front.empty());
  ASSERT_EQ(all.top_k.size(), 2U);

  const Swept kept = sweep(kept_study, 1U << 14U, 1);
  expect_same_answers(kept, all);
  EXPECT_LT(kept.stored.rows(), grid_points / 4);
  EXPECT_EQ(kept.counts.evaluated, grid_points);
  // Every evaluated point is counted, kept or not; constraints are applied in the counts.
  std::uint64_t feasible = 0;
  for (std::size_t r = 0; r < all.stored.rows(); ++r) feasible += all.stored.status[r] == PointStatus::ok;
  EXPECT_EQ(kept.counts.feasible + all.constraint_violations.at(0), feasible);
  EXPECT_EQ(kept.counts.feasible + kept.counts.infeasible + kept.counts.errors, grid_points);
  // The comparison's point is kept whatever the sets choose, and the sample adds its 40 points.
  const std::vector<std::pair<std::string, std::string>> compared = {
      {"hardware", "l4"}, {"model", "resnet50"}, {"precision", "fp16"}, {"batch", "8"}, {"eta", "0.45"}};
  const auto is_compared = [&](std::size_t r) {
    return std::all_of(compared.begin(), compared.end(), [&](const auto& sel) {
      return kept.stored.label(r, static_cast<std::size_t>(kept.stored.axis_column(sel.first))) == sel.second;
    });
  };
  std::size_t matches = 0;
  for (std::size_t r = 0; r < kept.stored.rows(); ++r) matches += is_compared(r) ? 1 : 0;
  EXPECT_EQ(matches, 1U);
  EXPECT_GE(kept.stored.rows(), 40U);
}

// A point the prose cites (values:) is kept as a comparison's is, so that {{value.NAME}} has its row.
TEST_F(Retention, ACitedValuesPointIsKeptWhateverTheSetsChoose) {
  const std::string cited = "values:\n  - {name: slow, metric: latency_s, where: {hardware: a100_80gb_sxm, model: "
                            "bert_base, precision: fp32, batch: 1024, eta: 0.3}}\n";
  const Swept kept = sweep(load(std::string(kStudy) + cited + "keep: {front: true}\n"), 1U << 14U, 1);
  const Swept without = sweep(load(std::string(kStudy) + "keep: {front: true}\n"), 1U << 14U, 1);
  const std::vector<std::pair<std::string, std::string>> point = {
      {"hardware", "a100_80gb_sxm"}, {"model", "bert_base"}, {"precision", "fp32"}, {"batch", "1024"}, {"eta", "0.3"}};
  const auto count = [&](const Swept& s) {
    std::size_t n = 0;
    for (std::size_t r = 0; r < s.stored.rows(); ++r) {
      n += std::all_of(point.begin(), point.end(), [&](const auto& sel) {
        return s.stored.label(r, static_cast<std::size_t>(s.stored.axis_column(sel.first))) == sel.second;
      }) ? 1 : 0;
    }
    return n;
  };
  EXPECT_EQ(count(without), 0U) << "the fronts alone do not keep the slowest point";
  EXPECT_EQ(count(kept), 1U);
}

// Objectives that rank only some rows (where:) keep the rows keep-all would rank and put on the front.
TEST_F(Retention, ObjectivesWithWhereKeepWhatKeepingEveryRowRanks) {
  std::string text = kStudy;
  const std::string old_objectives = "  - {metric: latency_s, direction: min}\n  - {metric: samples_per_usd, direction: max}\n";
  const std::size_t at = text.find(old_objectives);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, old_objectives.size(),
               "  - {metric: latency_s, direction: min, where: {hardware: [l4, b200], precision: fp32}}\n"
               "  - {metric: samples_per_usd, direction: max, where: {hardware: [b200, a100_80gb_sxm]}}\n");
  const ResolvedStudy all_study = load(text);
  const ResolvedStudy kept_study = load(text + "keep: {front: true, top_k: 2}\n");
  const Swept all = analyse_all(all_study, sweep(all_study, 1U << 14U, 1));
  ASSERT_EQ(all.top_k.size(), 2U);
  ASSERT_FALSE(all.front.empty());
  const Swept kept = sweep(kept_study, 97, 2);
  expect_same_answers(kept, all);
  // The where chose the rows: the first objective's best are fp32 rows of l4 or b200.
  const int hw = all.stored.axis_column("hardware"), precision = all.stored.axis_column("precision");
  for (const std::uint64_t p : all.top_k[0]) {
    const std::size_t r = static_cast<std::size_t>(
        std::find(all.stored.point_index.begin(), all.stored.point_index.end(), p) - all.stored.point_index.begin());
    const std::string& h = all.stored.label(r, static_cast<std::size_t>(hw));
    EXPECT_TRUE(h == "l4" || h == "b200") << h;
    EXPECT_EQ(all.stored.label(r, static_cast<std::size_t>(precision)), "fp32");
  }
}

TEST_F(Retention, KeptRowsDoNotDependOnBlockSizeThreadsOrInterruptions) {
  const ResolvedStudy study = load(std::string(kStudy) + "keep: {front: true, sample: 25, seed: 7}\n");
  const Swept one = sweep(study, 1U << 14U, 1);
  const Swept small_blocks = sweep(study, 37, 2);
  const Swept sliced = sweep(study, 101, 2, 3);  // interrupted every 3 blocks and resumed
  EXPECT_EQ(one.stored.point_index, small_blocks.stored.point_index);
  EXPECT_EQ(one.stored.point_index, sliced.stored.point_index);
  EXPECT_EQ(one.stored.metrics, sliced.stored.metrics);
  EXPECT_EQ(one.counts.to_json(), sliced.counts.to_json());
  EXPECT_EQ(one.counts.to_json(), small_blocks.counts.to_json());
  expect_same_answers(sliced, one);
}

// A grid of many chunks (kSweepChunkPoints) per block, with blocks that are not a multiple of a
// chunk: the chunks are reduced on the evaluating threads and merged in order.
std::string wide_study(const std::string& keep) {
  std::string text = kStudy;
  const std::string eta = "  eta: [0.3, 0.45, 0.6]\n";
  const std::size_t at = text.find(eta);
  if (at == std::string::npos) throw std::logic_error("kStudy has no eta axis to widen");
  text.replace(at, eta.size(), "  eta: [0.025, 0.05, 0.075, 0.1, 0.125, 0.15, 0.175, 0.2, 0.225, 0.25, 0.275, 0.3, 0.325, 0.35, 0.375, 0.4, 0.425, 0.45, 0.475, 0.5, 0.525, 0.55, 0.575, 0.6, 0.625, 0.65, 0.675, 0.7, 0.725, 0.75, 0.775, 0.8, 0.825, 0.85, 0.875, 0.9, 0.925, 0.95, 0.975, 1]\n");
  return text + keep;
}

TEST_F(Retention, ChunksReducedOnTheEvaluatingThreadsKeepWhatOnePassKeeps) {
  const ResolvedStudy all_study = load(wide_study(""));
  const std::uint64_t points = Grid(all_study).size();
  ASSERT_GT(points, 8 * kSweepChunkPoints);
  const Swept all = analyse_all(all_study, sweep(all_study, 1U << 14U, 2));
  const ResolvedStudy study = load(wide_study("keep: {front: true, top_k: 4, sample: 300, seed: 3}\n"));
  const Swept one = sweep(study, 1U << 14U, 1);
  const Swept two = sweep(study, 2500, 2);
  const Swept sliced = sweep(study, 3 * kSweepChunkPoints + 17, 2, 1);  // resumed after every block
  expect_same_answers(one, all);
  expect_same_answers(two, all);
  expect_same_answers(sliced, all);
  EXPECT_EQ(one.stored.point_index, two.stored.point_index);
  EXPECT_EQ(one.stored.point_index, sliced.stored.point_index);
  EXPECT_EQ(one.counts.to_json(), two.counts.to_json());
  EXPECT_EQ(one.counts.to_json(), sliced.counts.to_json());
  EXPECT_EQ(one.counts.evaluated, points);
  // The sample is the 300 points of smallest key, every one of them stored.
  std::vector<retention::SampleKey> keys;
  for (std::uint64_t p = 0; p < points; ++p) keys.push_back(retention::sample_key(p, 3));
  std::sort(keys.begin(), keys.end());
  for (std::size_t s = 0; s < 300; ++s) {
    EXPECT_TRUE(std::binary_search(two.stored.point_index.begin(), two.stored.point_index.end(), keys[s].second)) << s;
  }
}

TEST_F(Retention, APreparedBlockGivesTheChangesOfOneTheKeeperReducesItself) {
  const ResolvedStudy study = load(wide_study("keep: {front: true, top_k: 2, sample: 50}\n"));
  const Grid grid(study);
  RowKeeper prepared(study, grid), plain(study, grid);
  SweepBlock a, b;
  RowKeeper::Change from_prepared, from_plain;
  for (std::uint64_t first = 0; first < grid.size(); first += 5000) {
    const std::uint64_t count = std::min<std::uint64_t>(5000, grid.size() - first);
    prepared.prepare(a);
    ASSERT_NE(a.prework, nullptr);
    evaluate_block(grid, *study.solver, first, count, 2, a);
    evaluate_block(grid, *study.solver, first, count, 1, b);
    ASSERT_EQ(b.prework, nullptr);
    prepared.take(a, from_prepared);
    plain.take(b, from_plain);
    EXPECT_EQ(from_prepared.added.point_index, from_plain.added.point_index) << first;
    EXPECT_EQ(from_prepared.removed, from_plain.removed) << first;
  }
  EXPECT_EQ(prepared.counts().to_json(), plain.counts().to_json());
  // A block prepared by another keeper is reduced again by the one that takes it.
  RowKeeper other(study, grid), third(study, grid);
  other.prepare(a);
  evaluate_block(grid, *study.solver, 0, 5000, 2, a);
  RowKeeper::Change change;
  third.take(a, change);
  SweepBlock c;
  evaluate_block(grid, *study.solver, 0, 5000, 1, c);
  RowKeeper fresh(study, grid);
  RowKeeper::Change want;
  fresh.take(c, want);
  EXPECT_FALSE(want.added.point_index.empty());
  EXPECT_EQ(change.added.point_index, want.added.point_index);
}

// A kept front answers "strictly dominated?" as a scan over all its points would: exactly with two
// objectives (ties included), never wrongly with more.
TEST(KeptFront, DominanceMatchesAScanOfTheFront) {
  const auto dominated_by = [](const std::vector<double>& front, std::size_t k, const std::vector<Direction>& dirs,
                               const std::vector<double>& v) {
    for (std::size_t at = 0; at < front.size(); at += k) {
      bool no_worse = true, better = false;
      for (std::size_t j = 0; j < k; ++j) {
        const double a = dirs[j] == Direction::maximize ? -front[at + j] : front[at + j];
        const double b = dirs[j] == Direction::maximize ? -v[j] : v[j];
        no_worse = no_worse && a <= b;
        better = better || a < b;
      }
      if (no_worse && better) return true;
    }
    return false;
  };
  std::uint64_t state = 12345;
  const auto next = [&] {  // a few distinct values, so ties are common
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>((state >> 33) % 20);
  };
  for (const std::size_t k : {std::size_t{2}, std::size_t{3}}) {
    const std::vector<Direction> dirs = k == 2 ? std::vector<Direction>{Direction::minimize, Direction::maximize}
                                               : std::vector<Direction>{Direction::minimize, Direction::maximize,
                                                                        Direction::minimize};
    std::vector<double> all;
    for (int p = 0; p < 200; ++p) {
      for (std::size_t j = 0; j < k; ++j) all.push_back(next());
    }
    std::vector<double> front;
    for (const std::size_t r : pareto_front(all, dirs)) front.insert(front.end(), all.begin() + r * k, all.begin() + (r + 1) * k);
    retention::KeptFront kept;
    kept.assign(front, dirs);
    std::size_t agree = 0, found = 0;
    for (int q = 0; q < 2000; ++q) {
      std::vector<double> v(k);
      for (double& x : v) x = next();
      const bool scan = dominated_by(front, k, dirs, v);
      const bool fast = kept.dominates(v);
      if (fast) {
        EXPECT_TRUE(scan);  // never a point the front does not dominate
      }
      if (k == 2) {
        EXPECT_EQ(fast, scan);
      }
      agree += fast == scan;
      found += fast;
    }
    EXPECT_GT(found, 100U) << k;
    if (k == 2) {
      EXPECT_EQ(agree, 2000U);
    }
  }
}

TEST_F(Retention, ASampleKeepsExactlyItsSizeSpreadOverTheGrid) {
  const ResolvedStudy study = load(std::string(kStudy) + "keep: {sample: 100}\n");
  const Swept s = sweep(study, 64, 1);
  const auto points = Grid(study).size();
  // The study's top_k (3 per objective), the comparison's point and each assertion's example may
  // add to the sample.
  EXPECT_GE(s.stored.rows(), 100U);
  EXPECT_LE(s.stored.rows(), 100U + 2 * 3 + 1 + 2);
  // Spread: both halves of the grid are represented.
  const auto low = std::count_if(s.stored.point_index.begin(), s.stored.point_index.end(),
                                 [&](std::uint64_t p) { return p < points / 2; });
  EXPECT_GT(low, 25);
  EXPECT_LT(low, 75);
  const Swept other_seed = sweep(load(std::string(kStudy) + "keep: {sample: 100, seed: 2}\n"), 64, 1);
  EXPECT_NE(s.stored.point_index, other_seed.stored.point_index);
}

TEST_F(Retention, TheFirstErrorRowsAreKeptSoTheirMessagesReachTheReport) {
  const ResolvedStudy study = load(std::string(kStudy) + "keep: {sample: 1}\n");
  const Grid grid(study);
  SweepBlock block;
  evaluate_block(grid, *study.solver, 0, 200, 1, block);
  // Every third point fails, as a solver that throws would make it.
  for (std::uint64_t i = 0; i < block.count; i += 3) {
    block.results[i] = {PointStatus::error, 0};
    block.errors[i] = "failure at point " + std::to_string(i);
  }
  RowKeeper keeper(study, grid);
  RowKeeper::Change change;
  keeper.take(block, change);
  EXPECT_EQ(keeper.counts().errors, 67U);
  ASSERT_EQ(keeper.counts().error_points.size(), kMaxKeptErrorRows);
  std::vector<std::uint64_t> errors;
  for (std::size_t r = 0; r < change.added.rows(); ++r) {
    if (change.added.status[r] == PointStatus::error) {
      errors.push_back(change.added.point_index[r]);
      EXPECT_EQ(change.added.detail(r), "failure at point " + std::to_string(change.added.point_index[r]));
    }
  }
  // The sample may add one more error row.
  ASSERT_GE(errors.size(), kMaxKeptErrorRows);
  for (std::size_t e = 0; e < kMaxKeptErrorRows; ++e) EXPECT_EQ(errors[e], 3 * e);
}

TEST_F(Retention, AChangeTakenAgainHoldsOnlyTheNewBlockAndReusesItsVectors) {
  const ResolvedStudy study = load(kStudy);
  const Grid grid(study);
  SweepBlock first, second;
  evaluate_block(grid, *study.solver, 0, 300, 1, first);
  evaluate_block(grid, *study.solver, 300, 200, 1, second);
  RowKeeper keeper(study, grid);
  ASSERT_TRUE(keeper.keeps_all());
  RowKeeper::Change change;
  change.added.axis_names = {"left_from_another_study"};
  change.added.point_index = {7};
  change.added.push_labels({"x"});
  change.added.status = {PointStatus::ok};
  change.added.push_detail("");
  keeper.take(first, change);
  ResultTable want = make_result_table(study);
  append_block(grid, first, want);
  EXPECT_EQ(change.added.axis_names, want.axis_names);
  EXPECT_EQ(change.added.point_index, want.point_index);

  const double* metrics_before = change.added.metrics.data();
  const void* labels_before = change.added.axis_codes[0].data();
  keeper.take(second, change);
  want = make_result_table(study);
  append_block(grid, second, want);
  EXPECT_EQ(change.added.axis_names, want.axis_names);
  EXPECT_EQ(change.added.metric_names, want.metric_names);
  EXPECT_EQ(change.added.reasons, want.reasons);
  EXPECT_EQ(change.added.point_index, want.point_index);
  EXPECT_EQ(testing::label_texts(change.added), testing::label_texts(want));
  EXPECT_EQ(change.added.status, want.status);
  EXPECT_EQ(testing::detail_texts(change.added), testing::detail_texts(want));
  ASSERT_EQ(change.added.metrics.size(), want.metrics.size());
  for (std::size_t i = 0; i < want.metrics.size(); ++i) {
    EXPECT_TRUE(change.added.metrics[i] == want.metrics[i] ||
                (std::isnan(change.added.metrics[i]) && std::isnan(want.metrics[i])));
  }
  EXPECT_EQ(change.added.metrics.data(), metrics_before);  // a smaller block fits what the first left
  EXPECT_EQ(change.added.axis_codes[0].data(), labels_before);
}

TEST_F(Retention, GridConstraintsSkipPointsBeforeTheSolverAndCountThem) {
  const std::string text = std::string(kStudy) +
                           "grid_constraints:\n"
                           "  - {name: small_batch_for_l4, expr: \"batch <= 64 || hardware_tdp_w > 100\"}\n"
                           "  - {name: eta_cap, expr: \"eta < 0.5\"}\n";
  const ResolvedStudy study = load(text);
  const Swept s = sweep(study, 500, 2);
  const std::uint64_t points = Grid(study).size();
  ASSERT_EQ(s.counts.excluded.size(), 2U);
  // eta 0.6 is one of three values: a third of the grid, less the points the first constraint took.
  EXPECT_GT(s.counts.excluded[0], 0U);
  EXPECT_EQ(s.counts.excluded[0] + s.counts.excluded[1] + s.counts.evaluated, points);
  EXPECT_EQ(s.stored.rows(), s.counts.evaluated);
  const int eta = s.stored.axis_column("eta");
  ASSERT_GE(eta, 0);
  for (std::size_t r = 0; r < s.stored.rows(); ++r) EXPECT_NE(s.stored.label(r, static_cast<std::size_t>(eta)), "0.6");
}

TEST_F(Retention, LoaderChecksKeepAndGridConstraints) {
  Diagnostics d;
  EXPECT_FALSE(load_study_text("t.yaml", std::string(kStudy) + "keep: {}\n", kCatalog, d));
  EXPECT_NE(d.format().find("keep: choose what to keep"), std::string::npos) << d.format();
  Diagnostics d2;
  EXPECT_FALSE(load_study_text("t.yaml", std::string(kStudy) + "keep: {sample: 0, fronts: true}\n", kCatalog, d2));
  EXPECT_NE(d2.format().find("did you mean 'front'"), std::string::npos) << d2.format();
  Diagnostics d3;
  EXPECT_FALSE(load_study_text("t.yaml", std::string(kStudy) + "grid_constraints:\n  - {name: g, expr: \"latency_s < 1\"}\n",
                               kCatalog, d3));
  EXPECT_NE(d3.format().find("unknown name 'latency_s'"), std::string::npos) << d3.format();
  Diagnostics d4;
  std::string one_objective = kStudy;
  const std::size_t line = one_objective.find("  - {metric: samples_per_usd");
  one_objective.erase(line, one_objective.find('\n', line) + 1 - line);
  one_objective += "keep: {front: true}\n";
  EXPECT_FALSE(load_study_text("t.yaml", one_objective, kCatalog, d4));
  EXPECT_NE(d4.format().find("keep.front: a front needs at least two objectives"), std::string::npos) << d4.format();
}

}  // namespace
}  // namespace dsx
