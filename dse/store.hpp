// The result store: a run folder's `results.sqlite`, where a sweep commits its rows as they are
// produced so that a killed run loses at most the rows of its last open transaction and a resumed
// run (INSERT OR IGNORE keyed by point_index) never duplicates one. `dsx report` reads it back to
// re-render without evaluating anything.
//
// Database layout (PRAGMA user_version = kStoreFormatVersion):
//   results(point_index INTEGER PRIMARY KEY, "<axis>" TEXT ..., status TEXT, detail TEXT,
//           "<metric>" REAL ...)
//       one row per kept design point (every evaluated point unless the study's keep: chooses
//       fewer; dse/analysis/retention.hpp); status is status_name() ("ok", "infeasible", "error");
//       detail is the reason or error message, NULL when empty; a NaN metric is NULL.
//   meta(key TEXT PRIMARY KEY, value TEXT)        run metadata (study hash, catalog hash, version)
//       and "sweep_counts", the counts over every point swept so far, committed with the rows
//       (dse/sweep_store.hpp)
//   pareto(point_index INTEGER PRIMARY KEY)        the rows of the study's Pareto front
//   reasons(reason_index INTEGER PRIMARY KEY, text TEXT)  ResultTable::reasons, in order
//   analysis tables (write_table): derived metrics, break-even crossings, sensitivity indices,
//       assertions, top-k, Pareto groups; each replaced as a whole when the analyses run
//       (output/analysis_report.hpp lists their columns)
// Column roles are recovered from position: the columns between point_index and status are axes,
// those after detail are metrics, which is why no axis or metric may be named point_index, status
// or detail (SQLite column names are case-insensitive, so neither may differ only in case).
//
// The database runs in WAL mode with synchronous=NORMAL, and with kStorePageBytes pages when it is
// new: a committed transaction survives a crash of the process (a power loss may drop the last
// commits but never corrupts the file), and a reader such as `dsx report` can read while a sweep
// writes. See SQLite's "Write-Ahead Logging"
// and "PRAGMA synchronous" documentation.
//
// Limitations: SQLite stores a REAL that is a whole number as an integer, so -0.0 reads back as
// +0.0; every other double, infinities included, reads back bit-identical.
//
// Errors: a failure of SQLite or of the file (cannot open, disk full, corrupt file, a store made
// for other columns) throws std::runtime_error whose message names the database path and carries
// sqlite3_errmsg. Misuse by the caller (appending before ensure_schema, a table whose vectors
// disagree in length, column names that collide) throws std::logic_error.
//
// A ResultStore is used by one thread at a time; the sweep feeds it from a single writer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dse/results.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace dsx {

inline constexpr int kStoreFormatVersion = 1;
// Rows per transaction in ResultStore::append: bounds the work a crash can lose and the size of
// the WAL between checkpoints.
inline constexpr std::size_t kStoreRowsPerTransaction = 10'000;
// Rows per INSERT statement: one step and reset of SQLite's program for this many rows.
inline constexpr std::size_t kStoreRowsPerInsert = 16;
// Page size of a new store: a row of some 30 columns takes about 300 bytes, so 16 KiB pages mean a
// quarter as many B-tree pages, WAL frames and write calls per row as SQLite's default 4 KiB. Larger
// pages write still less per row but more per commit: a sweep that keeps only a front rewrites a few
// whole pages with every block. A store made with other pages keeps them.
inline constexpr int kStorePageBytes = 16'384;
// SQLite's page cache per connection. A sweep block's rows must fit it (16,384 rows of 300 bytes
// are 5 MB) or SQLite spills dirty pages into the WAL in the middle of the transaction and writes
// them again at the commit; the default is 2 MiB.
inline constexpr int kStoreCacheKiB = 16 * 1024;
// The WAL is copied into the database once it holds this much (SQLite's default is 1,000 pages,
// which would be 16 MiB of kStorePageBytes pages but only 4 MiB of an earlier store's).
inline constexpr int kStoreWalCheckpointBytes = 16 * 1024 * 1024;

// `<run_dir>/results.sqlite`.
std::string result_store_path(std::string_view run_dir);

// Deletes a store and its -wal and -shm companions (for `dsx run --fresh`); missing files are
// not an error. Throws std::runtime_error when a file exists but cannot be removed.
void remove_result_store(const std::string& path);

// A table of analysis results, written whole. Cells are row-major: each row has one text value per
// text column and one number per real or integer column (NaN is NULL; an integer column holds
// whole numbers).
struct StoreTable {
  enum class Type : std::uint8_t { text, real, integer };
  struct Column {
    std::string name;
    Type type = Type::real;
  };
  std::string name;
  std::vector<Column> columns;
  std::vector<std::string> text;
  std::vector<double> numbers;
  std::size_t rows = 0;

  std::size_t text_columns() const;
  std::size_t number_columns() const;
  // Appends a row; throws std::logic_error when the counts disagree with the columns.
  void add_row(std::vector<std::string> text_cells, std::vector<double> number_cells);
};

// What ResultStore::read_results reads: which metric columns, which rows, and room for columns the
// caller appends.
struct ResultReadOptions {
  // The store's metric columns to read (in the store's order, whatever the order here; a name the
  // store lacks is skipped); every column when unset.
  std::optional<std::vector<std::string>> metrics;
  // Only rows whose point_index is above this one.
  std::optional<std::uint64_t> after_point;
  // At most this many rows (the first ones in point_index order).
  std::optional<std::size_t> max_rows;
  // The metrics vector has room for this many more columns (ResultTable::append_metric_columns then
  // widens it in place; capacity never written is never resident).
  std::size_t spare_metric_columns = 0;
};

enum class StoreMode : std::uint8_t {
  read_write,  // creates the file when absent
  read_only,   // the file must exist
};

class ResultStore {
 public:
  // Opens (or, read_write, creates) the database at `path`, sets WAL and synchronous=NORMAL, and
  // creates the meta, pareto and reasons tables. The results table exists once ensure_schema ran.
  explicit ResultStore(std::string path, StoreMode mode = StoreMode::read_write);
  ~ResultStore();
  ResultStore(ResultStore&& other) noexcept;
  ResultStore& operator=(ResultStore&& other) noexcept;
  ResultStore(const ResultStore&) = delete;
  ResultStore& operator=(const ResultStore&) = delete;

  const std::string& path() const { return path_; }

  // While it lives, the WAL is copied into the database by a thread of its own, over a connection
  // of its own, instead of by the commit that fills it past kStoreWalCheckpointBytes: a commit then
  // only appends to the WAL and never waits for the checkpoint's reads, writes and fsyncs. The
  // checkpoint is SQLite's PASSIVE one, which runs beside the writer, so a commit is as durable as
  // without it. A checkpoint that fails (a full disk) is retried with the next; the rows stay in the
  // WAL meanwhile, as with SQLite's own automatic checkpoint, which is back once it is destroyed.
  // The store must outlive it; it is for a store opened read_write.
  class BackgroundCheckpoints {
   public:
    explicit BackgroundCheckpoints(ResultStore& store);
    ~BackgroundCheckpoints();
    BackgroundCheckpoints(const BackgroundCheckpoints&) = delete;
    BackgroundCheckpoints& operator=(const BackgroundCheckpoints&) = delete;

   private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
  };

  // Creates the results table for `columns`' axis_names and metric_names (rows are ignored) and
  // replaces the stored reasons with `columns.reasons`; when the table exists, checks that its
  // columns are exactly these, in this order, and throws std::runtime_error listing both when not
  // (a resumed run must be the same study).
  void ensure_schema(const ResultTable& columns);
  // True once the results table exists (in this file, by whoever made it).
  bool has_results() const;

  // Inserts rows [first, first + count) of `table` (count clamped to the table), committing every
  // kStoreRowsPerTransaction rows and at the end. A point_index already stored is left as it is.
  // Returns the number of rows actually inserted. Requires ensure_schema with the same columns.
  std::size_t append(const ResultTable& table, std::size_t first = 0,
                     std::size_t count = static_cast<std::size_t>(-1));

  // One sweep block in one transaction: deletes the rows of `removed` points, inserts `added`
  // (a point already stored is left as it is) and sets the meta entries, so that the rows and the
  // counts stored with them never disagree after a crash. Requires ensure_schema.
  void commit_block(const ResultTable& added, std::span<const std::uint64_t> removed,
                    std::span<const std::pair<std::string, std::string>> meta);

  // The whole results table in point_index order, with its column names and reasons. The metrics
  // vector has room for `spare_metric_columns` more columns (ResultTable::append_metric_columns
  // then widens it in place; capacity never written is never resident).
  ResultTable read_results(std::size_t spare_metric_columns = 0) const;
  // The rows and metric columns `options` names, in point_index order, with every axis, the status,
  // the detail and the reasons.
  ResultTable read_results(const ResultReadOptions& options) const;

  // The results table one row at a time, for reading a store too large to hold (dsx diff). Rows
  // come ordered by the axis columns `order_by` (SQLite's BINARY text order, which is std::string's),
  // then by point_index; SQLite sorts on disk past its cache, so memory stays bounded. An unknown
  // axis throws std::logic_error. The cursor must not outlive its store.
  // When the analyses wrote the `derived` table, its metrics follow the solver's (metric_names())
  // and its status and detail, which the study's constraints set, replace the solver's.
  class RowCursor {
   public:
    RowCursor(const ResultStore& store, std::span<const std::string> order_by);
    ~RowCursor();
    RowCursor(const RowCursor&) = delete;
    RowCursor& operator=(const RowCursor&) = delete;
    // Steps to the next row; false after the last. Throws std::runtime_error on a read failure.
    bool next();
    std::uint64_t point_index() const { return point_index_; }
    const std::string& label(std::size_t axis) const { return labels_[axis]; }  // store axis order
    const std::string& status() const { return status_; }                          // "ok", "infeasible", ...
    const std::string& detail() const { return detail_; }
    double metric(std::size_t m) const { return metrics_[m]; }                     // NaN when NULL
    const std::vector<std::string>& metric_names() const { return metric_names_; }

   private:
    const ResultStore* store_;
    sqlite3_stmt* stmt_ = nullptr;
    std::uint64_t point_index_ = 0;
    std::vector<std::string> labels_;
    std::string status_, detail_;
    std::vector<double> metrics_;
    std::vector<std::string> metric_names_;
  };
  const std::vector<std::string>& axis_names() const { return axis_names_; }
  const std::vector<std::string>& metric_names() const { return metric_names_; }
  std::uint64_t row_count() const;
  // Highest committed point_index; nullopt when no row is stored.
  std::optional<std::uint64_t> max_point_index() const;
  // Every committed point_index, ascending (what a resumed sweep may skip).
  std::vector<std::uint64_t> point_indices() const;

  // Run metadata; set_meta replaces an existing key. read_meta is ordered by key.
  void set_meta(std::string_view key, std::string_view value);
  void set_meta(std::span<const std::pair<std::string, std::string>> entries);  // one transaction
  std::optional<std::string> meta(std::string_view key) const;
  std::vector<std::pair<std::string, std::string>> read_meta() const;

  // Replaces the stored Pareto front with `point_indices` (in one transaction).
  void write_pareto(std::span<const std::uint64_t> point_indices);
  // The stored front, ascending.
  std::vector<std::uint64_t> read_pareto() const;

  // Replaces table `table.name` (dropped and created again with its columns) and its rows, in one
  // transaction. The store's own tables (results, meta, pareto, reasons) and names starting with
  // "sqlite_" are refused with std::logic_error, as are column names that collide.
  void write_table(const StoreTable& table);
  // The same for a table too large to hold in memory beside the rows it is computed from: `header`
  // gives the name and columns (its cells are ignored), and `fill` is asked for rows 0 .. rows-1 in
  // order, each time with empty vectors to fill with that row's text and number cells.
  using RowFill = std::function<void(std::size_t row, std::vector<std::string>& text, std::vector<double>& numbers)>;
  void write_table(const StoreTable& header, std::size_t rows, const RowFill& fill);
  // A table written by write_table; nullopt when there is none of that name.
  std::optional<StoreTable> read_table(std::string_view name) const;
  // Removes a table written by write_table, if present (an analysis no longer declared).
  void drop_table(std::string_view name);

 private:
  void close() noexcept;
  void exec(const char* sql) const;
  // Throws with `what`, SQLite's message and, for an I/O failure, the OS error `os_errno`.
  [[noreturn]] void fail(std::string_view what, int os_errno = 0) const;
  std::string os_reason(int os_errno) const;
  sqlite3_stmt* prepare(std::string_view sql) const;
  void load_schema();
  void check_append(const ResultTable& table) const;
  void bind_row(sqlite3_stmt* s, int first_param, const ResultTable& table, std::size_t row) const;
  // Rows [first, last) of `table`, inside a transaction; returns how many were new.
  std::size_t insert_rows(const ResultTable& table, std::size_t first, std::size_t last);
  std::size_t insert_one_by_one(const ResultTable& table, std::size_t first, std::size_t last);
  void clear_insert_bindings() noexcept;

  std::string path_;
  sqlite3* db_ = nullptr;
  int wal_checkpoint_pages_ = 0;  // SQLite's automatic checkpoint threshold for this store's pages
  bool has_schema_ = false;
  std::vector<std::string> axis_names_;
  std::vector<std::string> metric_names_;
  sqlite3_stmt* insert_ = nullptr;       // one row, prepared once the schema is known
  sqlite3_stmt* insert_many_ = nullptr;  // kStoreRowsPerInsert rows
};

}  // namespace dsx
