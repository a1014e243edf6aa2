#include "dse/sweep_store.hpp"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "dse/result_identity.hpp"
#include "dse/study_loader.hpp"
#include <stdexcept>

namespace dsx {

std::string resolved_study_hash(std::string_view resolved_yaml) { return study_loading::hex64(study_loading::fnv1a(resolved_yaml)); }

std::string store_mismatch(ResultStore& store, const ResolvedStudy& study, std::string_view resolved_yaml) {
  if (!store.has_results()) return store.path() + " holds no results table: it was emptied or never written by a sweep";
  const std::optional<std::string> hash = store.meta(kResolvedStudyHashKey);
  // The file may have been rewritten since the sweep with other prose (a later `dsx run` of the
  // study with a new caption, or an edit by hand): the rows still belong to it when what they
  // depend on is the same (dse/result_identity.hpp).
  const std::optional<std::string> identity = store.meta(kResultIdentityKey);
  const std::optional<std::string> catalog = store.meta("catalog_hash");
  const bool same_results = identity && catalog && *identity == result_identity(study) && *catalog == catalog_hash(study.catalog);
  if (hash && *hash != resolved_study_hash(resolved_yaml) && !same_results) {
    return store.path() + " was written for another study.resolved.yaml than the one beside it (" +
           kResolvedStudyHashKey + " " + *hash + ", the file's " + resolved_study_hash(resolved_yaml) +
           "): the folder mixes two runs or was edited by hand";
  }
  try {
    store.ensure_schema(make_result_table(study));
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

std::optional<SweepCounts> stored_sweep_counts(const ResultStore& store, const ResolvedStudy& study) {
  const std::optional<std::string> text = store.meta(kSweepCountsKey);
  if (!text) return std::nullopt;
  return SweepCounts::from_json(*text, study);
}

void resume_keeper(RowKeeper& keeper, const ResultStore& store, const ResolvedStudy& study, const SweepOptions& options) {
  if (std::optional<SweepCounts> counts = stored_sweep_counts(store, study)) {
    if (keeper.keeps_all()) {
      keeper.restore(ResultTable{}, std::move(*counts));
    } else {
      keeper.restore(store.read_results(), std::move(*counts));
    }
  } else if (store.row_count() > 0) {
    throw std::runtime_error(store.path() + " holds rows but no sweep counts; run with --fresh");
  } else {
    keeper.start_at(options.first);
  }
}

void take_and_commit(RowKeeper& keeper, const SweepBlock& block, ResultStore& store, RowKeeper::Change& change) {
  keeper.take(block, change);
  const std::pair<std::string, std::string> meta[] = {{kSweepCountsKey, keeper.counts().to_json()}};
  store.commit_block(change.added, change.removed, meta);
}

namespace {

// Commits taken blocks on a thread of its own, in the order they were handed over, so that the
// sweep evaluates and keeps block n + 1 (and n + 2) while block n is written. The blocks wait in a
// ring of kSlots changes: the sweep waits only when all of them are still to be written. A commit
// that fails stops the writer; the sweep gets its exception at its next hand-over or at finish().
// The store is the writer's alone from construction to finish().
class StoreWriter {
 public:
  static constexpr std::size_t kSlots = 3;

  explicit StoreWriter(ResultStore& store) : store_(store), thread_([this] { run(); }) {}
  ~StoreWriter() {
    {
      const std::lock_guard lock(mutex_);
      quit_ = true;
    }
    work_.notify_one();
    thread_.join();
  }
  StoreWriter(const StoreWriter&) = delete;
  StoreWriter& operator=(const StoreWriter&) = delete;

  // The change to fill next; waits while every slot is still to be written.
  RowKeeper::Change& next_free() {
    std::unique_lock lock(mutex_);
    freed_.wait(lock, [&] { return error_ != nullptr || submitted_ - committed_ < kSlots; });
    if (error_) std::rethrow_exception(error_);
    return slots_[submitted_ % kSlots].change;
  }
  // Hands over the change next_free() returned, with the counts to store beside its rows.
  void submit(std::string counts_json) {
    {
      const std::lock_guard lock(mutex_);
      slots_[submitted_ % kSlots].counts_json = std::move(counts_json);
      ++submitted_;
    }
    work_.notify_one();
  }
  // Returns once every change handed over is committed.
  void finish() {
    std::unique_lock lock(mutex_);
    freed_.wait(lock, [&] { return error_ != nullptr || committed_ == submitted_; });
    if (error_) std::rethrow_exception(error_);
  }

 private:
  struct Slot {
    RowKeeper::Change change;
    std::string counts_json;
  };

  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      work_.wait(lock, [&] { return quit_ || committed_ < submitted_; });
      if (committed_ == submitted_) return;  // quit_ with nothing left to write
      Slot& slot = slots_[committed_ % kSlots];
      lock.unlock();
      try {
        const std::pair<std::string, std::string> meta[] = {{kSweepCountsKey, slot.counts_json}};
        store_.commit_block(slot.change.added, slot.change.removed, meta);
      } catch (...) {
        lock.lock();
        error_ = std::current_exception();
        freed_.notify_all();
        return;
      }
      lock.lock();
      ++committed_;
      freed_.notify_all();
    }
  }

  ResultStore& store_;
  Slot slots_[kSlots];
  std::mutex mutex_;
  std::condition_variable work_;   // a change was handed over, or quit_
  std::condition_variable freed_;  // a change was committed, or the writer failed
  std::uint64_t submitted_ = 0;
  std::uint64_t committed_ = 0;
  bool quit_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: started once the members above exist
};

}  // namespace

SweepCounts sweep_into_store(const ResolvedStudy& study, const Grid& grid, ResultStore& store,
                             const SweepOptions& options) {
  RowKeeper keeper(study, grid);
  resume_keeper(keeper, store, study, options);
  const GridGate gate(study);
  // Block n + 1 is evaluated while block n's rows are kept, and (with more than one thread) while
  // the writer commits the blocks before it.
  SweepBlock blocks[2];  // before the evaluator: it may still write into one while unwinding
  BackgroundEvaluator evaluator(grid, *study.solver, options.threads, options.progress, &gate);
  // After the blocks and the evaluator: joined first when unwinding.
  std::optional<ResultStore::BackgroundCheckpoints> checkpoints;
  std::optional<StoreWriter> writer;
  if (options.threads != 1) {
    checkpoints.emplace(store);
    writer.emplace(store);
  }
  RowKeeper::Change change;
  const std::uint64_t total = std::min(grid.size(), options.end);
  const std::uint64_t block_points = std::max<std::uint64_t>(options.block_points, 1);
  std::uint64_t next_first = keeper.counts().points_done;
  auto start_next = [&](std::uint64_t blocks_started, SweepBlock& block) {
    if (next_first >= total || (options.stop != nullptr && *options.stop != 0) ||
        (options.max_blocks != 0 && blocks_started >= options.max_blocks)) {
      return false;
    }
    const std::uint64_t count = std::min(block_points, total - next_first);
    keeper.prepare(block);
    evaluator.start(next_first, count, block);
    next_first += count;
    return true;
  };
  std::size_t current = 0;
  bool running = start_next(0, blocks[current]);
  for (std::uint64_t blocks_started = 1; running; ++blocks_started) {
    evaluator.wait();
    running = start_next(blocks_started, blocks[1 - current]);
    if (writer) {
      keeper.take(blocks[current], writer->next_free());
      writer->submit(keeper.counts().to_json());
    } else {
      take_and_commit(keeper, blocks[current], store, change);
    }
    current = 1 - current;
  }
  if (writer) writer->finish();
  return keeper.counts();
}

}  // namespace dsx
