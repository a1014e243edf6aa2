// One study in shards: `dsx run --shard I/N` and `dsx merge` give the run folder one `dsx run`
// gives, byte for byte, whatever the number of shards and the order they are named in; a merge
// that cannot be right says why and writes nothing.
#include "dse/shard.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "dse/store.hpp"
#include "dse/sweep_store.hpp"
#include "tests/cli/shell.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

TEST(Shard, ParsesIndexAndCountAndRefusesTheRest) {
  std::string why;
  const auto s = parse_shard("3/64", why);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->index, 3u);
  EXPECT_EQ(s->count, 64u);
  EXPECT_EQ(s->text(), "3/64");
  for (const char* bad : {"64/64", "1", "a/2", "1/0", "-1/4", "1/2/3", "/4", "2/"}) {
    EXPECT_FALSE(parse_shard(bad, why)) << bad;
  }
  EXPECT_FALSE(parse_shard("4/4", why));
  EXPECT_EQ(why, "the shard index must be below the number of shards (0 to 3)");
}

TEST(Shard, RangesCoverTheGridOnceInNearlyEqualParts) {
  for (const std::uint64_t total : {0ULL, 1ULL, 7ULL, 144ULL, 1000800000ULL, 18446744073709551615ULL}) {
    for (const std::uint64_t n : {1ULL, 2ULL, 3ULL, 64ULL, 1000ULL}) {
      std::uint64_t next = 0;
      for (std::uint64_t i = 0; i < n; ++i) {
        const PointRange r = shard_range(ShardSpec{i, n}, total);
        EXPECT_EQ(r.first, next) << total << " " << i << "/" << n;
        EXPECT_LE(r.end - r.first - total / n, 1u);
        EXPECT_GE(r.end - r.first, total / n);
        next = r.end;
      }
      EXPECT_EQ(next, total);
    }
  }
}

class ShardedRun : public ::testing::Test {
 protected:
  void run_shards(const std::string& study, std::uint64_t n, const std::string& prefix) {
    for (std::uint64_t i = 0; i < n; ++i) {
      const CommandResult r = run_dsx("run '" + study + "' --quiet --out '" + prefix + std::to_string(i) + "' --shard " +
                           std::to_string(i) + "/" + std::to_string(n));
      ASSERT_EQ(r.exit_code, 0) << r.out;
    }
  }
  static void expect_same_outputs(const fs::path& a, const fs::path& b) {
    for (const char* f : {"results.csv", "pareto.csv", "comparisons.csv", "report.md", "report.html"}) {
      EXPECT_EQ(read_text(a / f), read_text(b / f)) << f;
      EXPECT_FALSE(read_text(a / f).empty()) << f;
    }
    for (const auto& e : fs::directory_iterator(a / "figures")) {
      if (e.path().extension() == ".svg") {
        EXPECT_EQ(read_text(e.path()), read_text(b / "figures" / e.path().filename()));
      }
    }
  }
  TempDir dir_{"shard"};
};

TEST_F(ShardedRun, ThreeShardsMergedInAnyOrderAreTheSingleRun) {
  const std::string base = dir_.path();
  ASSERT_EQ(run_dsx("run studies/quickstart.yaml --quiet --out '" + base + "/one'").exit_code, 0);
  run_shards("studies/quickstart.yaml", 3, base + "/s");
  const CommandResult m = run_dsx("merge '" + base + "/merged' '" + base + "/s2' '" + base + "/s0' '" + base + "/s1'");
  ASSERT_EQ(m.exit_code, 0) << m.out;
  expect_same_outputs(base + "/one", base + "/merged");
}

TEST_F(ShardedRun, KeptFrontsTopKSamplesAndAssertionsMergeExactly) {
  const std::string base = dir_.path();
  std::string study = read_text(fs::path(DSX_SOURCE_DIR) / "studies/quickstart.yaml");
  study += "\nkeep: {front: true, top_k: 2, sample: 7}\nassertions:\n"
           "  - {name: some_busy, expr: \"gpu_utilization > 0.9\", require: any}\n"
           "  - {name: all_quick, expr: \"latency_s < 0.004\", require: all}\n";
  std::ofstream(base + "/keep.yaml") << study;
  const CommandResult one = run_dsx("run '" + base + "/keep.yaml' --quiet --out '" + base + "/one'");
  ASSERT_EQ(one.exit_code, 3) << one.out;  // all_quick fails: the example row must survive the merge
  run_shards(base + "/keep.yaml", 5, base + "/s");
  const CommandResult m = run_dsx("merge '" + base + "/merged' '" + base + "/s0' '" + base + "/s1' '" + base + "/s2' '" + base +
                       "/s3' '" + base + "/s4'");
  EXPECT_EQ(m.exit_code, 3) << m.out;
  expect_same_outputs(base + "/one", base + "/merged");
  EXPECT_EQ(read_text(base + "/one/assertions.csv"), read_text(base + "/merged/assertions.csv"));
  EXPECT_EQ(read_text(base + "/one/top_k.csv"), read_text(base + "/merged/top_k.csv"));
}

TEST_F(ShardedRun, MoreShardsThanPointsLeaveSomeEmpty) {
  const std::string base = dir_.path();
  const std::string study =
      "study: small\ntitle: Six points\nquestion: Q?\nsolver: inference\n"
      "axes:\n  execution: [eager, compiled]\n  launch_overhead: [5 us, 10 us, 20 us]\n"
      "fixed:\n  hardware: a100_80gb_sxm\n  model: lab07_kws\n  precision: fp16\n  batch: 1\n  eta: 0.5\n"
      "objectives:\n  - {metric: latency_s, direction: min}\n  - {metric: energy_j, direction: min}\n";
  std::ofstream(base + "/small.yaml") << study;  // 1 x 1 x 2 x 3 = 6 points
  ASSERT_EQ(run_dsx("run '" + base + "/small.yaml' --quiet --out '" + base + "/one'").exit_code, 0);
  run_shards(base + "/small.yaml", 8, base + "/s");
  std::string dirs;
  for (int i = 0; i < 8; ++i) dirs += " '" + base + "/s" + std::to_string(i) + "'";
  const CommandResult m = run_dsx("merge '" + base + "/merged'" + dirs);
  ASSERT_EQ(m.exit_code, 0) << m.out;
  expect_same_outputs(base + "/one", base + "/merged");
}

TEST_F(ShardedRun, AMergeThatCannotBeRightSaysWhyAndWritesNothing) {
  const std::string base = dir_.path();
  run_shards("studies/quickstart.yaml", 3, base + "/s");
  // A missing shard and a shard given twice.
  CommandResult m = run_dsx("merge '" + base + "/m' '" + base + "/s0' '" + base + "/s0' '" + base + "/s2'");
  EXPECT_EQ(m.exit_code, 2);
  EXPECT_NE(m.out.find("shard 0/3 is given twice"), std::string::npos) << m.out;
  EXPECT_NE(m.out.find("missing shard 1 of 3"), std::string::npos) << m.out;
  EXPECT_FALSE(fs::exists(base + "/m"));
  // A shard of another study, and a folder that is not a shard.
  ASSERT_EQ(run_dsx("run studies/lab07_fusion.yaml --quiet --out '" + base + "/other' --shard 1/3").exit_code, 0);
  ASSERT_EQ(run_dsx("run studies/quickstart.yaml --quiet --out '" + base + "/whole'").exit_code, 0);
  m = run_dsx("merge '" + base + "/m' '" + base + "/s0' '" + base + "/other' '" + base + "/s2' '" + base + "/whole'");
  EXPECT_EQ(m.exit_code, 2);
  EXPECT_NE(m.out.find(base + "/other holds another study than " + base + "/s0"), std::string::npos) << m.out;
  EXPECT_NE(m.out.find(base + "/whole is not a shard"), std::string::npos) << m.out;
  EXPECT_FALSE(fs::exists(base + "/m"));
  // A shard that stopped part-way: its counts end before its range does.
  {
    ResultStore store(result_store_path(base + "/s1"));
    std::string counts = *store.meta(kSweepCountsKey);
    const std::string done = "\"points_done\":96";
    ASSERT_NE(counts.find(done), std::string::npos) << counts;
    counts.replace(counts.find(done), done.size(), "\"points_done\":60");
    store.set_meta(kSweepCountsKey, counts);
  }
  m = run_dsx("merge '" + base + "/m' '" + base + "/s0' '" + base + "/s1' '" + base + "/s2'");
  EXPECT_EQ(m.exit_code, 2);
  EXPECT_NE(m.out.find("shard 1/3 in " + base + "/s1 stopped after 12 of 48 points: finish it with dsx run "
                       "studies/quickstart.yaml --shard 1/3 --out " + base + "/s1"),
            std::string::npos)
      << m.out;
}

TEST_F(ShardedRun, AShardRunResumesItsOwnRangeAndRefusesAnother) {
  const std::string base = dir_.path();
  ASSERT_EQ(run_dsx("run studies/quickstart.yaml --quiet --out '" + base + "/s' --shard 1/3").exit_code, 0);
  const CommandResult again = run_dsx("run studies/quickstart.yaml --quiet --out '" + base + "/s' --shard 2/3");
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.out.find("shard is 1/3 there and 2/3 now"), std::string::npos) << again.out;
  const CommandResult bad = run_dsx("run studies/quickstart.yaml --quiet --out '" + base + "/t' --shard 3/3");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.out.find("--shard 3/3: the shard index must be below the number of shards (0 to 2)"), std::string::npos)
      << bad.out;
}

}  // namespace
}  // namespace dsx
