#include "dse/store.hpp"

#include <cerrno>
#include <cstring>

#include <sqlite3.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <stdexcept>
#include <system_error>

namespace dsx {

namespace {

struct StmtDeleter {
  void operator()(sqlite3_stmt* s) const noexcept { sqlite3_finalize(s); }
};
using Stmt = std::unique_ptr<sqlite3_stmt, StmtDeleter>;

constexpr std::string_view kPointIndexColumn = "point_index";
constexpr std::string_view kStatusColumn = "status";
constexpr std::string_view kDetailColumn = "detail";

std::string quote_identifier(std::string_view name) {
  std::string out;
  out.reserve(name.size() + 2);
  out += '"';
  for (const char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ", ";
    out += names[i];
  }
  return out;
}

// Every column of the results table, in order, must have a distinct name under SQLite's
// ASCII case folding, and none may be empty or hold a NUL byte.
void check_column_names(const std::vector<std::string>& axes, const std::vector<std::string>& metrics) {
  std::vector<std::pair<std::string, std::string>> seen;  // folded, original
  auto add = [&](std::string_view name, std::string_view role) {
    if (name.empty()) throw std::logic_error(std::string("result store: empty ") + std::string(role) + " name");
    if (name.find('\0') != std::string_view::npos) {
      throw std::logic_error(std::string("result store: ") + std::string(role) + " name holds a NUL byte");
    }
    std::string folded = ascii_lower(name);
    for (const auto& [f, original] : seen) {
      if (f == folded) {
        throw std::logic_error("result store: " + std::string(role) + " column '" + std::string(name) +
                               "' collides with column '" + original + "'");
      }
    }
    seen.emplace_back(std::move(folded), std::string(name));
  };
  add(kPointIndexColumn, "reserved");
  add(kStatusColumn, "reserved");
  add(kDetailColumn, "reserved");
  for (const auto& a : axes) add(a, "axis");
  for (const auto& m : metrics) add(m, "metric");
}

void check_table_shape(const ResultTable& t) {
  if (!t.columns_agree()) {
    throw std::logic_error("result store: ResultTable vectors disagree in length");
  }
}

std::optional<PointStatus> parse_status(std::string_view s) {
  for (const PointStatus p : {PointStatus::ok, PointStatus::infeasible, PointStatus::error}) {
    if (status_name(p) == s) return p;
  }
  return std::nullopt;
}

std::string_view column_text(sqlite3_stmt* s, int col) {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(s, col));
  if (text == nullptr) return {};
  return {text, static_cast<std::size_t>(sqlite3_column_bytes(s, col))};
}

std::int64_t to_rowid(std::uint64_t point_index) {
  if (point_index > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    throw std::logic_error("result store: point_index " + std::to_string(point_index) +
                           " exceeds SQLite's 64-bit signed integer range");
  }
  return static_cast<std::int64_t>(point_index);
}

}  // namespace

std::string result_store_path(std::string_view run_dir) {
  return (std::filesystem::path(run_dir) / "results.sqlite").string();
}

void remove_result_store(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    const std::string file = path + suffix;
    std::error_code ec;
    std::filesystem::remove(file, ec);
    if (ec) throw std::runtime_error("cannot remove " + file + ": " + ec.message());
  }
}

// ---------------------------------------------------------------------------------------------

ResultStore::ResultStore(std::string path, StoreMode mode) : path_(std::move(path)) {
  // One thread at a time uses a store (store.hpp), so the connection needs no mutex of its own:
  // SQLite's serialized mode would lock and unlock one for every bind of every row.
  const int flags = SQLITE_OPEN_NOMUTEX | (mode == StoreMode::read_only ? SQLITE_OPEN_READONLY
                                                                         : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE));
  if (sqlite3_open_v2(path_.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string message = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    close();
    throw std::runtime_error(path_ + ": cannot open result store: " + message);
  }
  try {
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_busy_timeout(db_, 10'000);
    exec(("PRAGMA cache_size=-" + std::to_string(kStoreCacheKiB)).c_str());
    if (mode == StoreMode::read_write) {
      exec(("PRAGMA page_size=" + std::to_string(kStorePageBytes)).c_str());  // only a new file takes it
      exec("PRAGMA journal_mode=WAL");
      int page_bytes = kStorePageBytes;
      {
        Stmt s(prepare("PRAGMA page_size"));
        if (sqlite3_step(s.get()) == SQLITE_ROW) page_bytes = std::max(sqlite3_column_int(s.get(), 0), 512);
      }
      wal_checkpoint_pages_ = kStoreWalCheckpointBytes / page_bytes;
      exec(("PRAGMA wal_autocheckpoint=" + std::to_string(wal_checkpoint_pages_)).c_str());
      exec("PRAGMA synchronous=NORMAL");
    }
    int version = 0;
    int tables = 0;
    {
      Stmt s(prepare("PRAGMA user_version"));
      if (sqlite3_step(s.get()) != SQLITE_ROW) fail("cannot read the store format");
      version = sqlite3_column_int(s.get(), 0);
    }
    {
      Stmt s(prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'table'"));
      if (sqlite3_step(s.get()) != SQLITE_ROW) fail("cannot read the schema");
      tables = sqlite3_column_int(s.get(), 0);
    }
    if (version > kStoreFormatVersion) {
      throw std::runtime_error(path_ + ": result store format " + std::to_string(version) +
                               " is newer than this dsx reads (" +
                               std::to_string(kStoreFormatVersion) + ")");
    }
    if (version == 0) {
      if (tables > 0 || mode == StoreMode::read_only) {
        throw std::runtime_error(path_ + ": not a dsx result store");
      }
      exec("BEGIN IMMEDIATE");
      try {
        exec("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT)");
        exec("CREATE TABLE IF NOT EXISTS pareto(point_index INTEGER PRIMARY KEY)");
        exec("CREATE TABLE IF NOT EXISTS reasons(reason_index INTEGER PRIMARY KEY, text TEXT)");
        exec(("PRAGMA user_version=" + std::to_string(kStoreFormatVersion)).c_str());
        exec("COMMIT");
      } catch (...) {
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
      }
    }
    load_schema();
  } catch (...) {
    close();
    throw;
  }
}

ResultStore::~ResultStore() { close(); }

ResultStore::ResultStore(ResultStore&& other) noexcept
    : path_(std::move(other.path_)),
      db_(std::exchange(other.db_, nullptr)),
      wal_checkpoint_pages_(other.wal_checkpoint_pages_),
      has_schema_(std::exchange(other.has_schema_, false)),
      axis_names_(std::move(other.axis_names_)),
      metric_names_(std::move(other.metric_names_)),
      insert_(std::exchange(other.insert_, nullptr)),
      insert_many_(std::exchange(other.insert_many_, nullptr)) {}

ResultStore& ResultStore::operator=(ResultStore&& other) noexcept {
  if (this != &other) {
    close();
    path_ = std::move(other.path_);
    db_ = std::exchange(other.db_, nullptr);
    wal_checkpoint_pages_ = other.wal_checkpoint_pages_;
    has_schema_ = std::exchange(other.has_schema_, false);
    axis_names_ = std::move(other.axis_names_);
    metric_names_ = std::move(other.metric_names_);
    insert_ = std::exchange(other.insert_, nullptr);
    insert_many_ = std::exchange(other.insert_many_, nullptr);
  }
  return *this;
}

struct ResultStore::BackgroundCheckpoints::Impl {
  explicit Impl(ResultStore& s) : store(s) {}
  ResultStore& store;
  sqlite3* db = nullptr;  // the checkpointer's own connection
  std::mutex mutex;
  std::condition_variable wanted;
  std::condition_variable idle;
  bool pending = false;
  bool running = false;
  bool quit = false;
  std::thread thread;

  // SQLite calls this on the committing thread after each commit, with the frames in the WAL.
  static int on_commit(void* self, sqlite3* db, const char* schema, int frames) {
    auto* impl = static_cast<Impl*>(self);
    // The WAL starts again from its beginning only at a write that finds every frame copied, which
    // a writer that never pauses may not give the passive checkpoints for a while: past four times
    // the threshold, the commit waits for the checkpoint in progress and copies what is left itself.
    // (SQLite refuses a second checkpoint beside a running one instead of waiting for it.)
    if (frames >= 4 * impl->store.wal_checkpoint_pages_) {
      std::unique_lock lock(impl->mutex);
      impl->idle.wait(lock, [&] { return !impl->running; });
      impl->pending = false;
      sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_FULL, nullptr, nullptr);
    } else if (frames >= impl->store.wal_checkpoint_pages_) {
      {
        const std::lock_guard lock(impl->mutex);
        impl->pending = true;
      }
      impl->wanted.notify_one();
    }
    return SQLITE_OK;
  }

  void run() {
    std::unique_lock lock(mutex);
    for (;;) {
      wanted.wait(lock, [&] { return quit || pending; });
      if (quit) return;
      pending = false;
      running = true;
      lock.unlock();
      // SQLITE_BUSY (the writer is restarting the WAL) or an I/O error leaves the frames for the next.
      sqlite3_wal_checkpoint_v2(db, "main", SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
      lock.lock();
      running = false;
      idle.notify_all();
    }
  }
};

ResultStore::BackgroundCheckpoints::BackgroundCheckpoints(ResultStore& store) : impl_(std::make_unique<Impl>(store)) {
  Impl& impl = *impl_;
  if (store.db_ == nullptr || store.wal_checkpoint_pages_ == 0) {
    throw std::logic_error(store.path_ + ": background checkpoints of a store not opened read_write");
  }
  if (sqlite3_open_v2(store.path_.c_str(), &impl.db, SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    const std::string message = impl.db != nullptr ? sqlite3_errmsg(impl.db) : "out of memory";
    sqlite3_close_v2(impl.db);
    throw std::runtime_error(store.path_ + ": cannot open a checkpoint connection: " + message);
  }
  sqlite3_busy_timeout(impl.db, 10'000);
  sqlite3_exec(impl.db, "PRAGMA synchronous=NORMAL", nullptr, nullptr, nullptr);
  impl.thread = std::thread([&impl] { impl.run(); });
  sqlite3_wal_hook(store.db_, &Impl::on_commit, &impl);  // replaces the automatic checkpoint
}

ResultStore::BackgroundCheckpoints::~BackgroundCheckpoints() {
  Impl& impl = *impl_;
  if (impl.store.db_ != nullptr) sqlite3_wal_autocheckpoint(impl.store.db_, impl.store.wal_checkpoint_pages_);
  {
    const std::lock_guard lock(impl.mutex);
    impl.quit = true;
  }
  impl.wanted.notify_one();
  impl.thread.join();
  sqlite3_close_v2(impl.db);
}

void ResultStore::close() noexcept {
  if (insert_ != nullptr) sqlite3_finalize(std::exchange(insert_, nullptr));
  if (insert_many_ != nullptr) sqlite3_finalize(std::exchange(insert_many_, nullptr));
  if (db_ != nullptr) sqlite3_close_v2(std::exchange(db_, nullptr));
}

// SQLite reports a failed write as "disk I/O error"; the operating system's reason (errno right
// after the failing call: EFBIG, ENOSPC, EACCES, ...) is what a user can act on.
std::string ResultStore::os_reason(int os_errno) const {
  if (db_ == nullptr || os_errno == 0) return "";
  const int primary = sqlite3_extended_errcode(db_) & 0xff;
  if (primary != SQLITE_IOERR && primary != SQLITE_FULL && primary != SQLITE_CANTOPEN) return "";
  return std::string(" (") + std::strerror(os_errno) + ")";
}

void ResultStore::fail(std::string_view what, int os_errno) const {
  throw std::runtime_error(path_ + ": " + std::string(what) + ": " +
                           (db_ != nullptr ? sqlite3_errmsg(db_) : "database is closed") + os_reason(os_errno));
}

void ResultStore::exec(const char* sql) const {
  char* message = nullptr;
  errno = 0;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    const int os_errno = errno;
    std::string text = message != nullptr ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    throw std::runtime_error(path_ + ": " + sql + ": " + text + os_reason(os_errno));
  }
}

sqlite3_stmt* ResultStore::prepare(std::string_view sql) const {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &s, nullptr) != SQLITE_OK) {
    sqlite3_finalize(s);
    fail("cannot prepare \"" + std::string(sql) + "\"");
  }
  return s;
}

void ResultStore::load_schema() {
  if (insert_ != nullptr) sqlite3_finalize(std::exchange(insert_, nullptr));
  if (insert_many_ != nullptr) sqlite3_finalize(std::exchange(insert_many_, nullptr));
  has_schema_ = false;
  axis_names_.clear();
  metric_names_.clear();

  std::vector<std::string> columns;
  {
    Stmt s(prepare("SELECT name FROM pragma_table_info('results') ORDER BY cid"));
    int rc = 0;
    while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) columns.emplace_back(column_text(s.get(), 0));
    if (rc != SQLITE_DONE) fail("cannot read the results table's columns");
  }
  if (columns.empty()) return;

  std::size_t status_at = 0;
  for (std::size_t i = 1; i < columns.size(); ++i) {
    if (columns[i] == kStatusColumn) {
      status_at = i;
      break;
    }
  }
  if (columns[0] != kPointIndexColumn || status_at == 0 || status_at + 1 >= columns.size() ||
      columns[status_at + 1] != kDetailColumn) {
    throw std::runtime_error(path_ + ": results table has unexpected columns (" + join_names(columns) +
                             "); not a dsx result store");
  }
  axis_names_.assign(columns.begin() + 1, columns.begin() + static_cast<std::ptrdiff_t>(status_at));
  metric_names_.assign(columns.begin() + static_cast<std::ptrdiff_t>(status_at) + 2, columns.end());
  has_schema_ = true;

  if (sqlite3_db_readonly(db_, "main") == 0) {
    std::string row = "(?";
    for (std::size_t i = 1; i < columns.size(); ++i) row += ",?";
    row += ")";
    std::string sql = "INSERT OR IGNORE INTO results VALUES" + row;
    insert_ = prepare(sql);
    for (std::size_t r = 1; r < kStoreRowsPerInsert; ++r) sql += "," + row;
    insert_many_ = prepare(sql);
  }
}

bool ResultStore::has_results() const { return has_schema_; }

void ResultStore::ensure_schema(const ResultTable& columns) {
  check_column_names(columns.axis_names, columns.metric_names);
  if (has_schema_ &&
      (columns.axis_names != axis_names_ || columns.metric_names != metric_names_)) {
    throw std::runtime_error(path_ + ": the stored results have axes (" + join_names(axis_names_) +
                             ") and metrics (" + join_names(metric_names_) +
                             ") but this run has axes (" + join_names(columns.axis_names) +
                             ") and metrics (" + join_names(columns.metric_names) +
                             "); use another run folder or start fresh");
  }
  exec("BEGIN IMMEDIATE");
  try {
    if (!has_schema_) {
      std::string sql = "CREATE TABLE results(point_index INTEGER PRIMARY KEY";
      for (const auto& a : columns.axis_names) sql += ", " + quote_identifier(a) + " TEXT";
      sql += ", status TEXT NOT NULL, detail TEXT";
      for (const auto& m : columns.metric_names) sql += ", " + quote_identifier(m) + " REAL";
      sql += ")";
      exec(sql.c_str());
    }
    exec("DELETE FROM reasons");
    Stmt s(prepare("INSERT INTO reasons(reason_index, text) VALUES(?, ?)"));
    for (std::size_t i = 0; i < columns.reasons.size(); ++i) {
      const std::string& r = columns.reasons[i];
      sqlite3_bind_int64(s.get(), 1, static_cast<sqlite3_int64>(i));
      sqlite3_bind_text(s.get(), 2, r.data(), static_cast<int>(r.size()), SQLITE_STATIC);
      if (sqlite3_step(s.get()) != SQLITE_DONE) fail("cannot store the reasons");
      sqlite3_reset(s.get());
    }
    s.reset();
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  load_schema();
}

void ResultStore::check_append(const ResultTable& table) const {
  if (!has_schema_) throw std::logic_error(path_ + ": append before ensure_schema");
  if (insert_ == nullptr) throw std::logic_error(path_ + ": append to a store opened read-only");
  if (table.axis_names != axis_names_ || table.metric_names != metric_names_) {
    throw std::logic_error(path_ + ": append of a table whose columns differ from the store's");
  }
  check_table_shape(table);
  for (const std::uint64_t p : table.point_index) to_rowid(p);
}

void ResultStore::bind_row(sqlite3_stmt* s, int first_param, const ResultTable& table, std::size_t row) const {
  const int axes = static_cast<int>(axis_names_.size());
  const std::size_t metrics = metric_names_.size();
  const int status_param = first_param + axes + 1;
  const int detail_param = first_param + axes + 2;
  const int first_metric_param = first_param + axes + 3;
  sqlite3_bind_int64(s, first_param, static_cast<sqlite3_int64>(table.point_index[row]));  // check_append
  for (int a = 0; a < axes; ++a) {
    const std::string& label = table.label(row, static_cast<std::size_t>(a));
    sqlite3_bind_text(s, first_param + 1 + a, label.data(), static_cast<int>(label.size()), SQLITE_STATIC);
  }
  const std::string_view status = status_name(table.status[row]);
  sqlite3_bind_text(s, status_param, status.data(), static_cast<int>(status.size()), SQLITE_STATIC);
  const std::string& detail = table.detail(row);
  if (detail.empty()) {
    sqlite3_bind_null(s, detail_param);
  } else {
    sqlite3_bind_text(s, detail_param, detail.data(), static_cast<int>(detail.size()), SQLITE_STATIC);
  }
  const double* values = table.metrics.data() + row * metrics;
  for (std::size_t m = 0; m < metrics; ++m) {
    const int param = first_metric_param + static_cast<int>(m);
    if (std::isnan(values[m])) {
      sqlite3_bind_null(s, param);
    } else {
      sqlite3_bind_double(s, param, values[m]);
    }
  }
}

std::size_t ResultStore::insert_rows(const ResultTable& table, std::size_t first, std::size_t last) {
  const int columns = static_cast<int>(axis_names_.size() + metric_names_.size()) + 3;
  std::size_t inserted = 0;
  for (std::size_t row = first; row < last;) {
    if (last - row < kStoreRowsPerInsert) {
      inserted += insert_one_by_one(table, row, last);
      break;
    }
    const std::size_t rows = kStoreRowsPerInsert;
    sqlite3_stmt* s = insert_many_;
    for (std::size_t r = 0; r < rows; ++r) bind_row(s, 1 + static_cast<int>(r) * columns, table, row + r);
    errno = 0;
    if (sqlite3_step(s) == SQLITE_DONE) {
      sqlite3_reset(s);
      inserted += static_cast<std::size_t>(sqlite3_changes(db_));
    } else {
      const int os_errno = errno;
      sqlite3_reset(s);
      // A failed statement undoes only itself while the transaction lives on: the rows again one by
      // one name the point that fails.
      if (sqlite3_get_autocommit(db_) != 0) {
        fail("cannot insert points " + std::to_string(table.point_index[row]) + " to " +
                 std::to_string(table.point_index[row + rows - 1]),
             os_errno);
      }
      inserted += insert_one_by_one(table, row, row + rows);
    }
    row += rows;
  }
  return inserted;
}

std::size_t ResultStore::insert_one_by_one(const ResultTable& table, std::size_t first, std::size_t last) {
  std::size_t inserted = 0;
  for (std::size_t row = first; row < last; ++row) {
    bind_row(insert_, 1, table, row);
    errno = 0;
    if (sqlite3_step(insert_) != SQLITE_DONE) {
      const int os_errno = errno;
      sqlite3_reset(insert_);
      fail("cannot insert point " + std::to_string(table.point_index[row]), os_errno);
    }
    sqlite3_reset(insert_);
    inserted += static_cast<std::size_t>(sqlite3_changes(db_));
  }
  return inserted;
}

std::size_t ResultStore::append(const ResultTable& table, std::size_t first, std::size_t count) {
  check_append(table);
  const std::size_t rows = table.rows();
  if (first >= rows) return 0;
  const std::size_t last = first + std::min(count, rows - first);
  std::size_t inserted = 0;
  exec("BEGIN IMMEDIATE");
  try {
    for (std::size_t row = first; row < last; row += kStoreRowsPerTransaction) {
      if (row != first) {
        exec("COMMIT");
        exec("BEGIN IMMEDIATE");
      }
      inserted += insert_rows(table, row, std::min(last, row + kStoreRowsPerTransaction));
    }
    clear_insert_bindings();
    exec("COMMIT");
  } catch (...) {
    clear_insert_bindings();
    if (sqlite3_get_autocommit(db_) == 0) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  return inserted;
}

void ResultStore::commit_block(const ResultTable& added, std::span<const std::uint64_t> removed,
                               std::span<const std::pair<std::string, std::string>> meta) {
  check_append(added);
  exec("BEGIN IMMEDIATE");
  try {
    if (!removed.empty()) {
      Stmt d(prepare("DELETE FROM results WHERE point_index = ?"));
      for (const std::uint64_t p : removed) {
        sqlite3_bind_int64(d.get(), 1, to_rowid(p));
        if (sqlite3_step(d.get()) != SQLITE_DONE) fail("cannot remove point " + std::to_string(p));
        sqlite3_reset(d.get());
      }
    }
    insert_rows(added, 0, added.rows());
    clear_insert_bindings();
    Stmt m(prepare("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)"));
    for (const auto& [key, value] : meta) {
      sqlite3_bind_text(m.get(), 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
      sqlite3_bind_text(m.get(), 2, value.data(), static_cast<int>(value.size()), SQLITE_STATIC);
      if (sqlite3_step(m.get()) != SQLITE_DONE) fail("cannot store meta '" + key + "'");
      sqlite3_reset(m.get());
    }
    m.reset();
    exec("COMMIT");
  } catch (...) {
    clear_insert_bindings();
    if (sqlite3_get_autocommit(db_) == 0) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

// The statements bind the caller's strings without copying them (SQLITE_STATIC).
void ResultStore::clear_insert_bindings() noexcept {
  sqlite3_clear_bindings(insert_);
  sqlite3_clear_bindings(insert_many_);
}

ResultTable ResultStore::read_results(std::size_t spare_metric_columns) const {
  ResultReadOptions options;
  options.spare_metric_columns = spare_metric_columns;
  return read_results(options);
}

ResultTable ResultStore::read_results(const ResultReadOptions& options) const {
  ResultTable t;
  {
    Stmt s(prepare("SELECT text FROM reasons ORDER BY reason_index"));
    int rc = 0;
    while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) t.reasons.emplace_back(column_text(s.get(), 0));
    if (rc != SQLITE_DONE) fail("cannot read the reasons");
  }
  if (!has_schema_) return t;
  t.axis_names = axis_names_;
  std::vector<std::size_t> columns;  // store metric columns read, in store order
  if (options.metrics) {
    for (std::size_t m = 0; m < metric_names_.size(); ++m) {
      if (std::find(options.metrics->begin(), options.metrics->end(), metric_names_[m]) != options.metrics->end()) {
        columns.push_back(m);
      }
    }
  } else {
    columns.resize(metric_names_.size());
    for (std::size_t m = 0; m < columns.size(); ++m) columns[m] = m;
  }
  for (const std::size_t m : columns) t.metric_names.push_back(metric_names_[m]);

  // A block of a large table is reserved whole without counting the rows (a count reads the
  // table); room the last block leaves unused is never touched.
  constexpr std::size_t kReservedWithoutCount = std::size_t{1} << 20;
  const std::uint64_t expected_rows = options.max_rows && *options.max_rows <= kReservedWithoutCount
                                          ? *options.max_rows
                                          : std::min<std::uint64_t>(row_count(), options.max_rows.value_or(std::numeric_limits<std::uint64_t>::max()));
  t.point_index.reserve(expected_rows);
  t.axis_texts.resize(axis_names_.size());
  for (std::size_t a = 0; a < axis_names_.size(); ++a) t.axis_code_column(a).reserve(expected_rows);
  t.status.reserve(expected_rows);
  t.detail_codes.reserve(expected_rows);
  t.metrics.reserve(expected_rows * (columns.size() + options.spare_metric_columns));

  std::string sql = "SELECT point_index";
  for (const auto& a : axis_names_) sql += ", " + quote_identifier(a);
  sql += ", status, detail";
  for (const std::size_t m : columns) sql += ", " + quote_identifier(metric_names_[m]);
  sql += " FROM results";
  if (options.after_point) sql += " WHERE point_index > " + std::to_string(*options.after_point);
  sql += " ORDER BY point_index";
  if (options.max_rows) sql += " LIMIT " + std::to_string(*options.max_rows);
  Stmt stmt(prepare(sql));
  sqlite3_stmt* s = stmt.get();

  const int axes = static_cast<int>(axis_names_.size());
  const int metrics = static_cast<int>(columns.size());
  // The code of the text a column held in the row before, found again without a lookup.
  std::vector<std::uint32_t> last_code(static_cast<std::size_t>(axes) + 1, std::numeric_limits<std::uint32_t>::max());
  const auto code_of = [&](TextDictionary& texts, std::uint32_t& last, std::string_view text) {
    if (last == std::numeric_limits<std::uint32_t>::max() || texts.text(last) != text) last = texts.code(text);
    return last;
  };
  int rc = 0;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    const std::int64_t index = sqlite3_column_int64(s, 0);
    t.point_index.push_back(static_cast<std::uint64_t>(index));
    for (int a = 0; a < axes; ++a) {
      const auto i = static_cast<std::size_t>(a);
      t.axis_codes[i].push_back(code_of(t.axis_texts[i], last_code[i], column_text(s, 1 + a)));
    }
    const std::string_view status = column_text(s, axes + 1);
    const std::optional<PointStatus> parsed = parse_status(status);
    if (!parsed) {
      throw std::runtime_error(path_ + ": point " + std::to_string(index) + " has unknown status '" +
                               std::string(status) + "'");
    }
    t.status.push_back(*parsed);
    t.detail_codes.push_back(code_of(t.detail_texts, last_code.back(), column_text(s, axes + 2)));
    for (int m = 0; m < metrics; ++m) {
      const int col = axes + 3 + m;
      t.metrics.push_back(sqlite3_column_type(s, col) == SQLITE_NULL
                              ? std::numeric_limits<double>::quiet_NaN()
                              : sqlite3_column_double(s, col));
    }
  }
  if (rc != SQLITE_DONE) fail("cannot read the results");
  return t;
}

ResultStore::RowCursor::RowCursor(const ResultStore& store, std::span<const std::string> order_by)
    : store_(&store), labels_(store.axis_names_.size()), metric_names_(store.metric_names_) {
  if (!store.has_schema_) return;
  std::vector<std::string> derived;  // derived(point_index, status, detail, kept, <metric>...)
  {
    Stmt s(store.prepare("SELECT name FROM pragma_table_info('derived') ORDER BY cid"));
    int rc = 0;
    for (int i = 0; (rc = sqlite3_step(s.get())) == SQLITE_ROW; ++i) {
      if (i >= 4) derived.emplace_back(column_text(s.get(), 0));
    }
    if (rc != SQLITE_DONE) store.fail("cannot read the derived table's columns");
  }
  metric_names_.insert(metric_names_.end(), derived.begin(), derived.end());
  metrics_.resize(metric_names_.size());
  std::string sql = "SELECT r.point_index";
  for (const auto& a : store.axis_names_) sql += ", r." + quote_identifier(a);
  if (derived.empty()) {
    sql += ", r.status, r.detail";
  } else {
    sql += ", CASE WHEN d.point_index IS NULL THEN r.status ELSE d.status END"
           ", CASE WHEN d.point_index IS NULL THEN r.detail ELSE d.detail END";
  }
  for (const auto& m : store.metric_names_) sql += ", r." + quote_identifier(m);
  for (const auto& m : derived) sql += ", d." + quote_identifier(m);
  sql += derived.empty() ? " FROM results r" : " FROM results r LEFT JOIN derived d USING (point_index)";
  sql += " ORDER BY ";
  for (const std::string& a : order_by) {
    if (std::find(store.axis_names_.begin(), store.axis_names_.end(), a) == store.axis_names_.end()) {
      throw std::logic_error(store.path_ + ": no axis '" + a + "' to order the results by");
    }
    sql += "r." + quote_identifier(a) + ", ";
  }
  sql += "r.point_index";
  stmt_ = store.prepare(sql);
}

ResultStore::RowCursor::~RowCursor() { sqlite3_finalize(stmt_); }

bool ResultStore::RowCursor::next() {
  if (stmt_ == nullptr) return false;
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_DONE) return false;
  if (rc != SQLITE_ROW) store_->fail("cannot read the results");
  point_index_ = static_cast<std::uint64_t>(sqlite3_column_int64(stmt_, 0));
  const int axes = static_cast<int>(labels_.size());
  for (int a = 0; a < axes; ++a) labels_[static_cast<std::size_t>(a)].assign(column_text(stmt_, 1 + a));
  status_.assign(column_text(stmt_, axes + 1));
  detail_.assign(column_text(stmt_, axes + 2));
  for (std::size_t m = 0; m < metrics_.size(); ++m) {
    const int col = axes + 3 + static_cast<int>(m);
    metrics_[m] = sqlite3_column_type(stmt_, col) == SQLITE_NULL ? std::numeric_limits<double>::quiet_NaN()
                                                                  : sqlite3_column_double(stmt_, col);
  }
  return true;
}

std::uint64_t ResultStore::row_count() const {
  if (!has_schema_) return 0;
  Stmt s(prepare("SELECT count(*) FROM results"));
  if (sqlite3_step(s.get()) != SQLITE_ROW) fail("cannot count the results");
  return static_cast<std::uint64_t>(sqlite3_column_int64(s.get(), 0));
}

std::optional<std::uint64_t> ResultStore::max_point_index() const {
  if (!has_schema_) return std::nullopt;
  Stmt s(prepare("SELECT max(point_index) FROM results"));
  if (sqlite3_step(s.get()) != SQLITE_ROW) fail("cannot read the highest point index");
  if (sqlite3_column_type(s.get(), 0) == SQLITE_NULL) return std::nullopt;
  return static_cast<std::uint64_t>(sqlite3_column_int64(s.get(), 0));
}

std::vector<std::uint64_t> ResultStore::point_indices() const {
  std::vector<std::uint64_t> out;
  if (!has_schema_) return out;
  out.reserve(row_count());
  Stmt s(prepare("SELECT point_index FROM results ORDER BY point_index"));
  int rc = 0;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    out.push_back(static_cast<std::uint64_t>(sqlite3_column_int64(s.get(), 0)));
  }
  if (rc != SQLITE_DONE) fail("cannot read the point indices");
  return out;
}

void ResultStore::set_meta(std::string_view key, std::string_view value) {
  const std::pair<std::string, std::string> entry{std::string(key), std::string(value)};
  set_meta(std::span<const std::pair<std::string, std::string>>(&entry, 1));
}

void ResultStore::set_meta(std::span<const std::pair<std::string, std::string>> entries) {
  exec("BEGIN IMMEDIATE");
  try {
    Stmt s(prepare("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)"));
    for (const auto& [key, value] : entries) {
      sqlite3_bind_text(s.get(), 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
      sqlite3_bind_text(s.get(), 2, value.data(), static_cast<int>(value.size()), SQLITE_STATIC);
      if (sqlite3_step(s.get()) != SQLITE_DONE) fail("cannot store meta '" + key + "'");
      sqlite3_reset(s.get());
    }
    s.reset();
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::optional<std::string> ResultStore::meta(std::string_view key) const {
  Stmt s(prepare("SELECT value FROM meta WHERE key = ?"));
  sqlite3_bind_text(s.get(), 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
  const int rc = sqlite3_step(s.get());
  if (rc == SQLITE_DONE) return std::nullopt;
  if (rc != SQLITE_ROW) fail("cannot read meta '" + std::string(key) + "'");
  return std::string(column_text(s.get(), 0));
}

std::vector<std::pair<std::string, std::string>> ResultStore::read_meta() const {
  std::vector<std::pair<std::string, std::string>> out;
  Stmt s(prepare("SELECT key, value FROM meta ORDER BY key"));
  int rc = 0;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    out.emplace_back(std::string(column_text(s.get(), 0)), std::string(column_text(s.get(), 1)));
  }
  if (rc != SQLITE_DONE) fail("cannot read meta");
  return out;
}

void ResultStore::write_pareto(std::span<const std::uint64_t> point_indices) {
  exec("BEGIN IMMEDIATE");
  try {
    exec("DELETE FROM pareto");
    Stmt s(prepare("INSERT OR IGNORE INTO pareto(point_index) VALUES(?)"));
    for (const std::uint64_t p : point_indices) {
      sqlite3_bind_int64(s.get(), 1, to_rowid(p));
      if (sqlite3_step(s.get()) != SQLITE_DONE) fail("cannot store the Pareto front");
      sqlite3_reset(s.get());
    }
    s.reset();
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::vector<std::uint64_t> ResultStore::read_pareto() const {
  std::vector<std::uint64_t> out;
  Stmt s(prepare("SELECT point_index FROM pareto ORDER BY point_index"));
  int rc = 0;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    out.push_back(static_cast<std::uint64_t>(sqlite3_column_int64(s.get(), 0)));
  }
  if (rc != SQLITE_DONE) fail("cannot read the Pareto front");
  return out;
}

// ---- analysis tables ----

std::size_t StoreTable::text_columns() const {
  return static_cast<std::size_t>(
      std::count_if(columns.begin(), columns.end(), [](const Column& c) { return c.type == Type::text; }));
}

std::size_t StoreTable::number_columns() const { return columns.size() - text_columns(); }

void StoreTable::add_row(std::vector<std::string> text_cells, std::vector<double> number_cells) {
  if (text_cells.size() != text_columns() || number_cells.size() != number_columns()) {
    throw std::logic_error("store table " + name + ": a row needs " + std::to_string(text_columns()) + " text and " +
                           std::to_string(number_columns()) + " number cells");
  }
  for (std::string& t : text_cells) text.push_back(std::move(t));
  numbers.insert(numbers.end(), number_cells.begin(), number_cells.end());
  ++rows;
}

namespace {

void check_table_name(std::string_view name) {
  const std::string folded = ascii_lower(name);
  if (name.empty() || folded == "results" || folded == "meta" || folded == "pareto" || folded == "reasons" ||
      folded.starts_with("sqlite_")) {
    throw std::logic_error("result store: '" + std::string(name) + "' is not a name an analysis table may take");
  }
}

}  // namespace

void ResultStore::write_table(const StoreTable& table) {
  const std::size_t T = table.text_columns();
  const std::size_t N = table.number_columns();
  if (table.text.size() != table.rows * T || table.numbers.size() != table.rows * N) {
    throw std::logic_error("result store: table " + table.name + " has cells that disagree with its rows");
  }
  write_table(table, table.rows, [&](std::size_t r, std::vector<std::string>& text, std::vector<double>& numbers) {
    text.assign(table.text.begin() + static_cast<std::ptrdiff_t>(r * T), table.text.begin() + static_cast<std::ptrdiff_t>((r + 1) * T));
    numbers.assign(table.numbers.begin() + static_cast<std::ptrdiff_t>(r * N),
                   table.numbers.begin() + static_cast<std::ptrdiff_t>((r + 1) * N));
  });
}

void ResultStore::write_table(const StoreTable& table, std::size_t rows, const RowFill& fill) {
  check_table_name(table.name);
  std::vector<std::string> names;
  for (const StoreTable::Column& c : table.columns) {
    const std::string folded = ascii_lower(c.name);
    if (c.name.empty() || std::find(names.begin(), names.end(), folded) != names.end()) {
      throw std::logic_error("result store: table " + table.name + " has an empty or repeated column '" + c.name + "'");
    }
    names.push_back(folded);
  }
  const std::size_t T = table.text_columns();
  const std::size_t N = table.number_columns();
  std::vector<std::string> text_cells;
  std::vector<double> number_cells;
  exec("BEGIN IMMEDIATE");
  try {
    exec(("DROP TABLE IF EXISTS " + quote_identifier(table.name)).c_str());
    std::string sql = "CREATE TABLE " + quote_identifier(table.name) + "(";
    std::string insert = "INSERT INTO " + quote_identifier(table.name) + " VALUES(";
    for (std::size_t i = 0; i < table.columns.size(); ++i) {
      const StoreTable::Column& c = table.columns[i];
      sql += (i > 0 ? ", " : "") + quote_identifier(c.name) +
             (c.type == StoreTable::Type::text ? " TEXT" : c.type == StoreTable::Type::real ? " REAL" : " INTEGER");
      insert += i > 0 ? ",?" : "?";
    }
    exec((sql + ")").c_str());
    Stmt s(prepare(insert + ")"));
    for (std::size_t r = 0; r < rows; ++r) {
      text_cells.clear();
      number_cells.clear();
      fill(r, text_cells, number_cells);
      if (text_cells.size() != T || number_cells.size() != N) {
        throw std::logic_error("result store: table " + table.name + " has cells that disagree with its rows");
      }
      std::size_t t = 0;
      std::size_t n = 0;
      for (std::size_t i = 0; i < table.columns.size(); ++i) {
        const int param = static_cast<int>(i) + 1;
        if (table.columns[i].type == StoreTable::Type::text) {
          const std::string& v = text_cells[t++];
          sqlite3_bind_text(s.get(), param, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
          continue;
        }
        const double v = number_cells[n++];
        if (std::isnan(v)) {
          sqlite3_bind_null(s.get(), param);
        } else if (table.columns[i].type == StoreTable::Type::integer && std::fabs(v) < 9.2e18) {
          sqlite3_bind_int64(s.get(), param, static_cast<sqlite3_int64>(v));
        } else {
          sqlite3_bind_double(s.get(), param, v);
        }
      }
      if (sqlite3_step(s.get()) != SQLITE_DONE) fail("cannot store a row of table " + table.name);
      sqlite3_reset(s.get());
    }
    s.reset();
    exec("COMMIT");
  } catch (...) {
    if (sqlite3_get_autocommit(db_) == 0) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::optional<StoreTable> ResultStore::read_table(std::string_view name) const {
  check_table_name(name);
  StoreTable t;
  t.name = std::string(name);
  {
    Stmt s(prepare("SELECT name, type FROM pragma_table_info(?) ORDER BY cid"));
    sqlite3_bind_text(s.get(), 1, name.data(), static_cast<int>(name.size()), SQLITE_STATIC);
    int rc = 0;
    while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
      const std::string type = ascii_lower(column_text(s.get(), 1));
      t.columns.push_back({std::string(column_text(s.get(), 0)), type == "text"   ? StoreTable::Type::text
                                                                 : type == "real" ? StoreTable::Type::real
                                                                                  : StoreTable::Type::integer});
    }
    if (rc != SQLITE_DONE) fail("cannot read the columns of table " + std::string(name));
  }
  if (t.columns.empty()) return std::nullopt;
  Stmt s(prepare("SELECT * FROM " + quote_identifier(name) + " ORDER BY rowid"));
  int rc = 0;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    for (std::size_t i = 0; i < t.columns.size(); ++i) {
      const int col = static_cast<int>(i);
      if (t.columns[i].type == StoreTable::Type::text) {
        t.text.emplace_back(column_text(s.get(), col));
      } else {
        t.numbers.push_back(sqlite3_column_type(s.get(), col) == SQLITE_NULL ? std::numeric_limits<double>::quiet_NaN()
                                                                             : sqlite3_column_double(s.get(), col));
      }
    }
    ++t.rows;
  }
  if (rc != SQLITE_DONE) fail("cannot read table " + std::string(name));
  return t;
}

void ResultStore::drop_table(std::string_view name) {
  check_table_name(name);
  exec(("DROP TABLE IF EXISTS " + quote_identifier(name)).c_str());
}

}  // namespace dsx
