// The sweep into a store with its writer thread (dse/sweep_store.hpp): on more than one thread the
// blocks are committed on a thread of their own, and the store must be the one a single thread
// writes, a commit that fails there must reach the caller, and the run must resume from what was
// committed.
#include "dse/sweep_store.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "dse/grid.hpp"
#include "dse/store.hpp"
#include "dse/study.hpp"
#include "tests/dse/result_table_text.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

// Keeps every row (no keep:), 4 x 3 x 2 x 11 x 3 = 792 points.
const char* kStudy = R"(study: writer
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
)";

ResolvedStudy load() {
  Diagnostics d;
  auto study = load_study_text("t.yaml", kStudy, DSX_SOURCE_DIR "/studies/catalog", d);
  if (!study) throw std::runtime_error(d.format());
  return std::move(*study);
}

void raw_exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* message = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  EXPECT_EQ(rc, SQLITE_OK) << (message ? message : "");
  sqlite3_free(message);
  sqlite3_close(db);
}

// The rows, bit for bit (NaN metrics included), and the counts stored with them.
void expect_same_store(const std::string& a, const std::string& b) {
  const ResultStore x(a, StoreMode::read_only);
  const ResultStore y(b, StoreMode::read_only);
  const ResultTable s = x.read_results();
  const ResultTable t = y.read_results();
  EXPECT_EQ(s.point_index, t.point_index);
  EXPECT_EQ(testing::label_texts(s), testing::label_texts(t));
  EXPECT_EQ(s.status, t.status);
  EXPECT_EQ(testing::detail_texts(s), testing::detail_texts(t));
  ASSERT_EQ(s.metrics.size(), t.metrics.size());
  EXPECT_EQ(std::memcmp(s.metrics.data(), t.metrics.data(), s.metrics.size() * sizeof(double)), 0);
  EXPECT_EQ(x.meta(kSweepCountsKey), y.meta(kSweepCountsKey));
}

class SweepStore : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("dsx_sweep_store_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string sweep(const std::string& name, unsigned threads, std::uint64_t block_points) {
    const std::string path = (dir_ / name).string();
    ResultStore store(path);
    store.ensure_schema(make_result_table(study_));
    SweepOptions options;
    options.threads = threads;
    options.block_points = block_points;
    sweep_into_store(study_, grid_, store, options);
    return path;
  }

  fs::path dir_;
  const ResolvedStudy study_ = load();
  const Grid grid_{study_};
};

TEST_F(SweepStore, KeepingEveryRowOnTwoThreadsWritesTheStoreOfOneThread) {
  ASSERT_EQ(grid_.size(), 792U);
  const std::string one = sweep("one.sqlite", 1, 1U << 14U);
  // Blocks of 37 points: 22 commits, more than the writer's ring holds.
  const std::string two = sweep("two.sqlite", 2, 37);
  EXPECT_EQ(ResultStore(one, StoreMode::read_only).row_count(), 792U);
  expect_same_store(one, two);
}

TEST_F(SweepStore, ACommitThatFailsOnTheWriterThreadReachesTheCallerAndTheRunResumes) {
  const std::string one = sweep("one.sqlite", 1, 1U << 14U);
  const std::string path = (dir_ / "failing.sqlite").string();
  {
    ResultStore store(path);
    store.ensure_schema(make_result_table(study_));
  }
  raw_exec(path, "CREATE TRIGGER fail BEFORE INSERT ON results WHEN NEW.point_index = 500 "
                 "BEGIN SELECT RAISE(ABORT, 'disk on fire'); END");
  {
    ResultStore store(path);
    SweepOptions options;
    options.threads = 2;
    options.block_points = 37;
    try {
      sweep_into_store(study_, grid_, store, options);
      FAIL() << "the sweep should have thrown";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("disk on fire"), std::string::npos) << e.what();
    }
    // The blocks before the failing one (points [0, 481)) are committed, each with its counts.
    EXPECT_EQ(store.row_count(), 481U);
    EXPECT_EQ(stored_sweep_counts(store, study_)->points_done, 481U);
  }
  raw_exec(path, "DROP TRIGGER fail");
  {
    ResultStore store(path);
    SweepOptions options;
    options.threads = 2;
    options.block_points = 37;
    sweep_into_store(study_, grid_, store, options);
  }
  expect_same_store(one, path);
}

}  // namespace
}  // namespace dsx
