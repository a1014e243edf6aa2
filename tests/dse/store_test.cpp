#include "dse/store.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>

#include "tests/dse/result_table_text.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// A fresh folder per test, removed afterwards.
class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("dsx_store_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = result_store_path(dir_.string());
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  std::string path_;
};

ResultTable columns() {
  ResultTable t;
  t.axis_names = {"hardware", "batch_size"};
  t.metric_names = {"latency_s", "energy_j", "cost_usd"};
  t.reasons = {"does not fit in memory", "precision \"int4\", unsupported"};
  return t;
}

// Random finite doubles over the whole exponent range (subnormals included), from raw bits.
double random_finite(std::mt19937_64& rng) {
  for (;;) {
    const double v = std::bit_cast<double>(rng());
    if (std::isfinite(v) && v != 0) return v;
  }
}

// Rows for points [first, first + n): mixed statuses, details with quotes, commas and newlines,
// NaN metrics, infinities and arbitrary bit patterns.
ResultTable make_rows(std::uint64_t first, std::size_t n, std::uint64_t seed) {
  ResultTable t = columns();
  std::mt19937_64 rng(seed);
  const char* hardware[] = {"A100", "H100 \"SXM\"", "MI300X, 192 GB", "TPU\nv5e", ""};
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t p = first + i;
    t.point_index.push_back(p);
    t.push_label(hardware[p % 5]);
    t.push_label(std::to_string(1u << (p % 11)));
    switch (p % 3) {
      case 0:
        t.status.push_back(PointStatus::ok);
        t.push_detail("");
        break;
      case 1:
        t.status.push_back(PointStatus::infeasible);
        t.push_detail(t.reasons[p % 2]);
        break;
      default:
        t.status.push_back(PointStatus::error);
        t.push_detail("exception: \"bad\", line\r\n" + std::to_string(p));
        break;
    }
    for (int m = 0; m < 3; ++m) {
      const std::uint64_t pick = rng() % 8;
      double v = random_finite(rng);
      if (pick == 0) v = kNaN;
      if (pick == 1) v = (m % 2 == 0) ? kInf : -kInf;
      if (pick == 2) v = static_cast<double>(p);  // whole numbers: SQLite stores them as integers
      t.metrics.push_back(v);
    }
  }
  return t;
}

bool same_double(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

void expect_same_table(const ResultTable& got, const ResultTable& want) {
  EXPECT_EQ(got.axis_names, want.axis_names);
  EXPECT_EQ(got.metric_names, want.metric_names);
  EXPECT_EQ(got.reasons, want.reasons);
  ASSERT_EQ(got.point_index, want.point_index);
  EXPECT_EQ(testing::label_texts(got), testing::label_texts(want));
  EXPECT_EQ(got.status, want.status);
  EXPECT_EQ(testing::detail_texts(got), testing::detail_texts(want));
  ASSERT_EQ(got.metrics.size(), want.metrics.size());
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < got.metrics.size(); ++i) {
    if (!same_double(got.metrics[i], want.metrics[i])) {
      if (++mismatches <= 5) {
        ADD_FAILURE() << "metric " << i << ": got " << got.metrics[i] << " want " << want.metrics[i];
      }
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

void append_table(ResultTable& to, const ResultTable& from) {
  for (std::size_t r = 0; r < from.rows(); ++r) {
    to.point_index.push_back(from.point_index[r]);
    for (std::size_t a = 0; a < from.axis_names.size(); ++a) to.push_label(from.label(r, a));
    to.status.push_back(from.status[r]);
    to.push_detail(from.detail(r));
  }
  to.metrics.insert(to.metrics.end(), from.metrics.begin(), from.metrics.end());
}

// Runs one SQL statement through a separate connection and returns the first column of each row
// as text ("NULL" for NULL).
std::vector<std::string> raw_query(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  std::vector<std::string> out;
  while (sqlite3_step(s) == SQLITE_ROW) {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    out.emplace_back(text == nullptr ? "NULL" : text);
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return out;
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

TEST(ResultTableTest, ColumnsAndStatusNames) {
  const ResultTable t = columns();
  EXPECT_EQ(t.axis_column("hardware"), 0);
  EXPECT_EQ(t.axis_column("batch_size"), 1);
  EXPECT_EQ(t.axis_column("latency_s"), -1);
  EXPECT_EQ(t.metric_column("cost_usd"), 2);
  EXPECT_EQ(t.metric_column("hardware"), -1);
  EXPECT_EQ(status_name(PointStatus::ok), "ok");
  EXPECT_EQ(status_name(PointStatus::infeasible), "infeasible");
  EXPECT_EQ(status_name(PointStatus::error), "error");
}

TEST_F(StoreTest, PathIsResultsSqliteInTheRunFolder) {
  EXPECT_EQ(fs::path(path_), dir_ / "results.sqlite");
}

TEST_F(StoreTest, WritesInBatchesAndReadsBackIdentical) {
  const std::size_t total = 25'000;
  const ResultTable all = make_rows(0, total, 42);
  {
    ResultStore store(path_);
    EXPECT_FALSE(store.has_results());
    store.ensure_schema(all);
    EXPECT_TRUE(store.has_results());
    // Uneven batches, one larger than a transaction, one straddling a transaction boundary.
    EXPECT_EQ(store.append(all, 0, 7'000), 7'000u);
    EXPECT_EQ(store.append(all, 7'000, 12'345), 12'345u);
    EXPECT_EQ(store.append(all, 19'345), total - 19'345);
    EXPECT_EQ(store.row_count(), total);
  }
  ResultStore reopened(path_);
  EXPECT_TRUE(reopened.has_results());
  EXPECT_EQ(reopened.row_count(), total);
  EXPECT_EQ(reopened.max_point_index(), std::optional<std::uint64_t>(total - 1));
  const std::vector<std::uint64_t> indices = reopened.point_indices();
  EXPECT_EQ(indices, all.point_index);
  expect_same_table(reopened.read_results(), all);
}

// A row read back costs its codes and numbers: 8 (point_index) + 4 per axis (label codes) + 1
// (status) + 4 (detail code) + 8 per metric bytes, and each distinct text is held once. Labels and
// details as std::string would cost 32 bytes each before any heap block.
TEST_F(StoreTest, ReadRowsHoldLabelsAndDetailsAsCodes) {
  ResultTable t = columns();
  const char* hardware[] = {"a100_80gb_sxm", "h100_sxm", "mi300x, 192 GB", "l4", "b200"};
  constexpr std::size_t kRows = 20'000;
  for (std::size_t p = 0; p < kRows; ++p) {
    t.point_index.push_back(p);
    t.push_labels({hardware[p % 5], std::to_string(1u << (p % 9))});
    t.status.push_back(p % 4 == 0 ? PointStatus::infeasible : PointStatus::ok);
    t.push_detail(p % 4 == 0 ? t.reasons[p % 8 == 0 ? 0 : 1] : "");
    for (int m = 0; m < 3; ++m) t.metrics.push_back(static_cast<double>(p) * (m + 1));
  }
  {
    ResultStore store(path_);
    store.ensure_schema(t);
    store.append(t);
  }
  const ResultTable back = ResultStore(path_, StoreMode::read_only).read_results();
  ASSERT_EQ(back.rows(), kRows);
  // Axes of 5 and 9 labels and 3 detail texts: a byte a code.
  const std::size_t row_bytes = back.point_index.capacity() * 8 + back.axis_codes[0].heap_bytes() +
                                back.axis_codes[1].heap_bytes() + back.status.capacity() * 1 +
                                back.detail_codes.heap_bytes() + back.metrics.capacity() * 8;
  EXPECT_EQ(row_bytes, kRows * (8 + 2 * 1 + 1 + 1 + 3 * 8));
  ASSERT_EQ(back.axis_texts.size(), 2u);
  EXPECT_EQ(back.axis_texts[0].size(), 5u);
  EXPECT_EQ(back.axis_texts[1].size(), 9u);
  EXPECT_EQ(back.detail_texts.size(), 3u);
  EXPECT_LT(back.heap_bytes(), kRows * 45 + 16 * 1024);
  EXPECT_EQ(testing::label_texts(back), testing::label_texts(t));
  EXPECT_EQ(testing::detail_texts(back), testing::detail_texts(t));
}

TEST_F(StoreTest, ReadsBackInPointIndexOrder) {
  const ResultTable high = make_rows(100, 50, 1);
  const ResultTable low = make_rows(0, 100, 2);
  ResultStore store(path_);
  store.ensure_schema(high);
  store.append(high);
  store.append(low);
  ResultTable want = columns();
  append_table(want, low);
  append_table(want, high);
  expect_same_table(store.read_results(), want);
}

TEST_F(StoreTest, ANewStoreTakesLargePagesAndAnOlderFileKeepsItsOwn) {
  {
    ResultStore store(path_);
    store.ensure_schema(columns());
    store.append(make_rows(0, 10, 5));
  }
  EXPECT_EQ(raw_query(path_, "PRAGMA page_size"), std::vector<std::string>{std::to_string(kStorePageBytes)});

  // A file an earlier dsx made has SQLite's default 4 KiB pages: it is read and extended as it is.
  const std::string older = (dir_ / "older.sqlite").string();
  raw_exec(older, "PRAGMA page_size=4096; CREATE TABLE x(y); DROP TABLE x");
  const ResultTable low = make_rows(0, 3000, 6);
  const ResultTable high = make_rows(3000, 3000, 7);
  {
    ResultStore store(older);
    store.ensure_schema(low);
    EXPECT_EQ(store.append(low), low.rows());
  }
  ResultStore store(older);
  EXPECT_EQ(store.append(high), high.rows());
  ResultTable want = columns();
  append_table(want, low);
  append_table(want, high);
  expect_same_table(store.read_results(), want);
  EXPECT_EQ(raw_query(older, "PRAGMA page_size"), std::vector<std::string>{"4096"});
}

TEST_F(StoreTest, OnDiskLayoutUsesNullForNaNAndEmptyDetail) {
  ResultTable t = columns();
  t.point_index = {7};
  t.push_labels({"A100", "32"});
  t.status = {PointStatus::infeasible};
  t.push_detail("does not fit in memory");
  t.metrics = {kNaN, 2.5, -kInf};
  ResultTable ok = columns();
  ok.point_index = {8};
  ok.push_labels({"H100", "64"});
  ok.status = {PointStatus::ok};
  ok.push_detail("");
  ok.metrics = {1.0, 2.0, 3.0};
  {
    ResultStore store(path_);
    store.ensure_schema(t);
    store.append(t);
    store.append(ok);
  }
  EXPECT_EQ(raw_query(path_, "SELECT typeof(latency_s) FROM results WHERE point_index = 7"),
            std::vector<std::string>{"null"});
  EXPECT_EQ(raw_query(path_, "SELECT status || '|' || detail || '|' || hardware || '|' || batch_size "
                             "FROM results WHERE point_index = 7"),
            std::vector<std::string>{"infeasible|does not fit in memory|A100|32"});
  EXPECT_EQ(raw_query(path_, "SELECT status FROM results WHERE point_index = 8"),
            std::vector<std::string>{"ok"});
  EXPECT_EQ(raw_query(path_, "SELECT typeof(detail) FROM results WHERE point_index = 8"),
            std::vector<std::string>{"null"});
  EXPECT_EQ(raw_query(path_, "SELECT name || ' ' || type FROM pragma_table_info('results') ORDER BY cid"),
            (std::vector<std::string>{"point_index INTEGER", "hardware TEXT", "batch_size TEXT",
                                      "status TEXT", "detail TEXT", "latency_s REAL", "energy_j REAL",
                                      "cost_usd REAL"}));
  EXPECT_EQ(raw_query(path_, "PRAGMA journal_mode"), std::vector<std::string>{"wal"});
  EXPECT_EQ(raw_query(path_, "SELECT text FROM reasons ORDER BY reason_index"), t.reasons);
}

TEST_F(StoreTest, NegativeZeroReadsBackAsZero) {
  ResultTable t = columns();
  t.point_index = {0};
  t.push_labels({"A100", "1"});
  t.status = {PointStatus::ok};
  t.push_detail("");
  t.metrics = {-0.0, 0.0, 1.0};
  ResultStore store(path_);
  store.ensure_schema(t);
  store.append(t);
  const ResultTable back = store.read_results();
  EXPECT_EQ(back.metrics[0], 0.0);
  EXPECT_EQ(back.metrics[1], 0.0);
  EXPECT_EQ(back.metrics[2], 1.0);
}

TEST_F(StoreTest, StoredPointsScatteredThroughOneInsertStatementAreSkippedOneByOne) {
  const std::size_t n = 5 * kStoreRowsPerInsert + 3;
  const ResultTable all = make_rows(0, n, 11);
  ResultTable every_third = columns();
  for (std::size_t r = 0; r < n; r += 3) append_table(every_third, make_rows(r, 1, 12));
  ResultStore store(path_);
  store.ensure_schema(all);
  ASSERT_EQ(store.append(every_third), every_third.rows());
  EXPECT_EQ(store.append(all), n - every_third.rows());

  const ResultTable back = store.read_results();
  ASSERT_EQ(back.rows(), n);
  for (std::size_t r = 0; r < n; ++r) {
    const ResultTable& want = r % 3 == 0 ? every_third : all;
    const std::size_t w = r % 3 == 0 ? r / 3 : r;
    EXPECT_EQ(back.point_index[r], want.point_index[w]);
    for (std::size_t m = 0; m < 3; ++m) {
      EXPECT_TRUE(same_double(back.metric(r, m), want.metric(w, m)) ||
                  (want.metric(w, m) == 0 && back.metric(r, m) == 0))
          << "row " << r << " metric " << m;
    }
  }
}

TEST_F(StoreTest, RewritingTheSamePointsInsertsNothing) {
  const ResultTable first = make_rows(0, 25'000, 7);
  ResultStore store(path_);
  store.ensure_schema(first);
  ASSERT_EQ(store.append(first), 25'000u);
  // The same points with other values: the stored rows win, nothing is duplicated.
  const ResultTable again = make_rows(0, 25'000, 8);
  EXPECT_EQ(store.append(again), 0u);
  EXPECT_EQ(store.row_count(), 25'000u);
  // An overlapping block adds only its new points.
  const ResultTable overlap = make_rows(24'000, 2'000, 9);
  EXPECT_EQ(store.append(overlap), 1'000u);
  EXPECT_EQ(store.row_count(), 26'000u);
  EXPECT_EQ(store.max_point_index(), std::optional<std::uint64_t>(25'999));

  ResultTable want = first;
  ResultTable tail = columns();
  for (std::size_t r = 1000; r < overlap.rows(); ++r) tail.append_row(overlap, r);
  append_table(want, tail);
  expect_same_table(store.read_results(), want);
}

TEST_F(StoreTest, CommitsEveryTransactionOfBoundedSize) {
  const ResultTable t = make_rows(0, 2 * kStoreRowsPerTransaction, 3);
  {
    ResultStore store(path_);
    store.ensure_schema(t);
  }
  // A trigger makes the insert of one point in the second transaction fail.
  const std::uint64_t failing = kStoreRowsPerTransaction + kStoreRowsPerTransaction / 2;
  raw_exec(path_, "CREATE TRIGGER fail BEFORE INSERT ON results WHEN NEW.point_index = " +
                      std::to_string(failing) + " BEGIN SELECT RAISE(ABORT, 'disk on fire'); END");
  ResultStore store(path_);
  try {
    store.append(t);
    FAIL() << "append should have thrown";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path_), std::string::npos) << what;
    EXPECT_NE(what.find("disk on fire"), std::string::npos) << what;
    EXPECT_NE(what.find(std::to_string(failing)), std::string::npos) << what;
  }
  // The first transaction is committed whole; the failing one is rolled back whole.
  EXPECT_EQ(store.row_count(), kStoreRowsPerTransaction);
  EXPECT_EQ(store.max_point_index(), std::optional<std::uint64_t>(kStoreRowsPerTransaction - 1));
  // The store stays usable: without the trigger the rest goes in.
  raw_exec(path_, "DROP TRIGGER fail");
  EXPECT_EQ(store.append(t), kStoreRowsPerTransaction);
  EXPECT_EQ(store.row_count(), 2 * kStoreRowsPerTransaction);
}

TEST_F(StoreTest, MetaRoundTrip) {
  {
    ResultStore store(path_);
    EXPECT_EQ(store.meta("study_hash"), std::nullopt);
    store.set_meta("study_hash", "9f2c");
    const std::vector<std::pair<std::string, std::string>> entries = {
        {"dsx_version", "0.1.0"}, {"catalog_hash", "ab,\"cd\"\n"}, {"empty", ""}};
    store.set_meta(entries);
    store.set_meta("study_hash", "0e1d");  // replaces
  }
  ResultStore store(path_, StoreMode::read_only);
  EXPECT_EQ(store.meta("study_hash"), std::optional<std::string>("0e1d"));
  EXPECT_EQ(store.meta("empty"), std::optional<std::string>(""));
  EXPECT_EQ(store.meta("missing"), std::nullopt);
  const std::vector<std::pair<std::string, std::string>> want = {
      {"catalog_hash", "ab,\"cd\"\n"}, {"dsx_version", "0.1.0"}, {"empty", ""}, {"study_hash", "0e1d"}};
  EXPECT_EQ(store.read_meta(), want);
}

TEST_F(StoreTest, ParetoRoundTripReplacesTheFront) {
  ResultStore store(path_);
  EXPECT_TRUE(store.read_pareto().empty());
  const std::vector<std::uint64_t> front = {42, 7, 19, 7};
  store.write_pareto(front);
  EXPECT_EQ(store.read_pareto(), (std::vector<std::uint64_t>{7, 19, 42}));
  const std::vector<std::uint64_t> other = {3};
  store.write_pareto(other);
  EXPECT_EQ(store.read_pareto(), (std::vector<std::uint64_t>{3}));
}

TEST_F(StoreTest, EmptyStore) {
  ResultStore store(path_);
  EXPECT_EQ(store.row_count(), 0u);
  EXPECT_EQ(store.max_point_index(), std::nullopt);
  EXPECT_TRUE(store.point_indices().empty());
  const ResultTable t = store.read_results();
  EXPECT_TRUE(t.axis_names.empty());
  EXPECT_EQ(t.rows(), 0u);
  EXPECT_THROW(store.append(make_rows(0, 1, 1)), std::logic_error);

  store.ensure_schema(columns());
  EXPECT_EQ(store.row_count(), 0u);
  EXPECT_EQ(store.max_point_index(), std::nullopt);
  const ResultTable back = store.read_results();
  EXPECT_EQ(back.axis_names, columns().axis_names);
  EXPECT_EQ(back.metric_names, columns().metric_names);
  EXPECT_EQ(back.rows(), 0u);
}

TEST_F(StoreTest, QuotesIdentifiers) {
  ResultTable t;
  t.axis_names = {"odd \"name\", x", "select"};
  t.metric_names = {"drop table results; --", "µs"};
  t.point_index = {1};
  t.push_labels({"a", "b"});
  t.status = {PointStatus::ok};
  t.push_detail("");
  t.metrics = {1.5, 2.5};
  {
    ResultStore store(path_);
    store.ensure_schema(t);
    EXPECT_EQ(store.append(t), 1u);
  }
  ResultStore store(path_);
  store.ensure_schema(t);  // same columns: accepted
  expect_same_table(store.read_results(), t);
}

TEST_F(StoreTest, RejectsCollidingColumnNames) {
  ResultStore store(path_);
  ResultTable t = columns();
  t.axis_names = {"Status"};
  EXPECT_THROW(store.ensure_schema(t), std::logic_error);
  t.axis_names = {"batch", "BATCH"};
  EXPECT_THROW(store.ensure_schema(t), std::logic_error);
  t.axis_names = {"hardware"};
  t.metric_names = {"point_index"};
  EXPECT_THROW(store.ensure_schema(t), std::logic_error);
  t.metric_names = {""};
  EXPECT_THROW(store.ensure_schema(t), std::logic_error);
  EXPECT_FALSE(store.has_results());
}

TEST_F(StoreTest, ReopeningForOtherColumnsFails) {
  {
    ResultStore store(path_);
    store.ensure_schema(columns());
  }
  ResultStore store(path_);
  ResultTable other = columns();
  other.metric_names = {"latency_s", "energy_j"};
  try {
    store.ensure_schema(other);
    FAIL() << "ensure_schema should have thrown";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path_), std::string::npos) << what;
    EXPECT_NE(what.find("cost_usd"), std::string::npos) << what;
  }
  ResultTable rows = make_rows(0, 3, 1);
  rows.metric_names = other.metric_names;
  EXPECT_THROW(store.append(rows), std::logic_error);
}

TEST_F(StoreTest, RejectsMalformedTablesAndPointIndices) {
  ResultStore store(path_);
  store.ensure_schema(columns());
  ResultTable t = make_rows(0, 4, 1);
  t.metrics.pop_back();
  EXPECT_THROW(store.append(t), std::logic_error);
  ResultTable big = make_rows(0, 2, 1);
  big.point_index[1] = std::uint64_t{1} << 63;
  EXPECT_THROW(store.append(big), std::logic_error);
  EXPECT_EQ(store.row_count(), 0u);  // checked before anything was written
  const std::vector<std::uint64_t> front = {std::uint64_t{1} << 63};
  EXPECT_THROW(store.write_pareto(front), std::logic_error);
}

TEST_F(StoreTest, ReadOnlyMode) {
  EXPECT_THROW(ResultStore(path_, StoreMode::read_only), std::runtime_error);
  EXPECT_FALSE(fs::exists(path_));  // read-only never creates
  const ResultTable t = make_rows(0, 10, 5);
  {
    ResultStore store(path_);
    store.ensure_schema(t);
    store.append(t);
  }
  ResultStore store(path_, StoreMode::read_only);
  expect_same_table(store.read_results(), t);
  EXPECT_THROW(store.append(t), std::logic_error);
}

TEST_F(StoreTest, OpenErrorsNameThePath) {
  const std::string missing_dir = (dir_ / "no" / "such" / "folder" / "results.sqlite").string();
  try {
    ResultStore store(missing_dir);
    FAIL() << "open should have thrown";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(missing_dir), std::string::npos) << e.what();
  }
}

TEST_F(StoreTest, RefusesForeignAndNewerDatabases) {
  raw_exec(path_, "CREATE TABLE something(x)");
  EXPECT_THROW(ResultStore store(path_), std::runtime_error);
  remove_result_store(path_);
  EXPECT_FALSE(fs::exists(path_));
  {
    ResultStore store(path_);
  }
  raw_exec(path_, "PRAGMA user_version = " + std::to_string(kStoreFormatVersion + 1));
  try {
    ResultStore store(path_);
    FAIL() << "open should have thrown";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos) << e.what();
  }
}

TEST_F(StoreTest, RemoveDeletesTheStoreAndItsCompanions) {
  {
    ResultStore store(path_);
    store.ensure_schema(columns());
    store.append(make_rows(0, 10, 1));
    // While a connection is open in WAL mode the -wal and -shm files exist.
    EXPECT_TRUE(fs::exists(path_ + "-wal"));
    EXPECT_TRUE(fs::exists(path_ + "-shm"));
  }
  remove_result_store(path_);
  EXPECT_FALSE(fs::exists(path_));
  EXPECT_FALSE(fs::exists(path_ + "-wal"));
  EXPECT_FALSE(fs::exists(path_ + "-shm"));
  remove_result_store(path_);  // nothing left to remove: not an error
  ResultStore fresh(path_);
  EXPECT_FALSE(fresh.has_results());
}

// Rows of `detail_bytes`-long details: a few thousand fill the WAL past its checkpoint threshold.
ResultTable wide_rows(std::uint64_t first, std::size_t n, std::size_t detail_bytes) {
  ResultTable t = make_rows(first, n, 11);
  for (std::size_t i = 0; i < n; ++i) {
    t.status[i] = PointStatus::error;
    t.set_detail(i, std::string(detail_bytes, static_cast<char>('a' + (first + i) % 26)));
  }
  return t;
}

TEST_F(StoreTest, BackgroundCheckpointsCopyTheWalIntoTheDatabaseWhileTheWriterGoesOn) {
  ResultStore store(path_);
  store.ensure_schema(columns());
  const std::size_t block_rows = 2'000;
  const std::size_t detail_bytes = 2'000;
  // 24 blocks of 4 MB: the WAL passes the threshold again and again.
  const std::size_t blocks = 6 * kStoreWalCheckpointBytes / (block_rows * detail_bytes);
  const fs::path wal = path_ + "-wal";
  std::uintmax_t largest_wal = 0;
  ResultTable want = columns();
  {
    const ResultStore::BackgroundCheckpoints checkpoints(store);
    for (std::size_t b = 0; b < blocks; ++b) {
      const ResultTable rows = wide_rows(b * block_rows, block_rows, detail_bytes);
      store.commit_block(rows, {}, {});
      append_table(want, rows);
      largest_wal = std::max(largest_wal, fs::file_size(wal));
    }
    // The rows reach the database file while the store is open: copied by the checkpoint thread.
    for (int wait = 0; wait < 200 && fs::file_size(path_) < kStoreWalCheckpointBytes; ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_GE(fs::file_size(path_), static_cast<std::uintmax_t>(kStoreWalCheckpointBytes));
  }
  // The WAL is bounded: at most four thresholds and the block that passed them.
  EXPECT_LE(largest_wal, 4 * static_cast<std::uintmax_t>(kStoreWalCheckpointBytes) + 2 * block_rows * detail_bytes);
  // SQLite's own checkpoint is back: the writer copies the WAL itself once it passes the threshold.
  const std::uintmax_t before = fs::file_size(path_);
  for (std::size_t b = blocks; b < blocks + 6; ++b) {
    const ResultTable rows = wide_rows(b * block_rows, block_rows, detail_bytes);
    store.commit_block(rows, {}, {});
    append_table(want, rows);
  }
  EXPECT_GT(fs::file_size(path_), before);
  expect_same_table(store.read_results(), want);
}

TEST_F(StoreTest, MovesKeepTheConnection) {
  ResultStore a(path_);
  a.ensure_schema(columns());
  ResultStore b(std::move(a));
  EXPECT_EQ(b.append(make_rows(0, 5, 1)), 5u);
  ResultStore c((dir_ / "other.sqlite").string());
  c = std::move(b);
  EXPECT_EQ(c.row_count(), 5u);
  EXPECT_EQ(c.path(), path_);
}

}  // namespace
}  // namespace dsx
