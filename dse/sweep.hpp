// The parallel sweep: evaluates grid points in blocks with TBB, each point written to its own
// slot, so the rows are identical whatever the thread count. One point that throws becomes an
// error row; it never stops the sweep.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "dse/grid.hpp"
#include "dse/results.hpp"

namespace dsx {

struct SweepBlock;

// Points per chunk: the unit of work of the evaluating threads, and of BlockPrework.
inline constexpr std::uint64_t kSweepChunkPoints = 1024;

// Work the consumer of a block has done on the evaluating threads, chunk by chunk, right after
// each chunk is evaluated (RowKeeper::prepare in dse/analysis/retention.hpp), so that the
// consumer's own thread does not visit every point. Chunk c is block points
// [c * kSweepChunkPoints, min(count, (c + 1) * kSweepChunkPoints)).
class BlockPrework {
 public:
  virtual ~BlockPrework() = default;
  // On the thread that starts the block, after it is sized and before any chunk is evaluated.
  virtual void begin(const SweepBlock& block) = 0;
  // On any thread, once per chunk; touches only chunk c's own state.
  virtual void chunk_done(const SweepBlock& block, std::uint64_t c) = 0;
};

// Raw results of points [first, first + count).
struct SweepBlock {
  std::uint64_t first = 0;
  std::uint64_t count = 0;
  std::vector<double> metrics;           // count x metric count
  std::vector<PointResult> results;      // count
  std::vector<std::string> errors;       // message of each point whose status is error
  // 0 for a point the solver evaluated; 1 + the index of the first grid constraint the point breaks
  // for one it skipped (its result and metrics are then meaningless).
  std::vector<std::uint32_t> excluded;
  std::shared_ptr<BlockPrework> prework;  // kept across blocks; null for none
};

// The study's grid constraints (StudyAnalyses::grid_constraints), checked per point before the
// solver. Each worker thread gets its own compiled expressions on first use: no lock per point.
class GridGate {
 public:
  explicit GridGate(const ResolvedStudy& study);
  ~GridGate();
  GridGate(const GridGate&) = delete;
  GridGate& operator=(const GridGate&) = delete;

  bool active() const { return active_; }
  // 0 when the point is to be evaluated, else 1 + the index of the first constraint it breaks.
  std::uint32_t check(const PointInputs& in) const;

 private:
  struct PerThread;
  const ResolvedStudy& study_;
  bool active_ = false;
  std::unique_ptr<PerThread> per_thread_;
};

// Live counters a progress display reads while a block is evaluated: workers add with one relaxed
// fetch_add per chunk of points, never per point and never under a lock.
struct SweepProgress {
  std::atomic<std::uint64_t> points_done{0};
};

// Evaluates a block on up to `threads` threads (0 = all cores). Reuses the block's buffers. With a
// gate, points that break a grid constraint are skipped (SweepBlock::excluded).
void evaluate_block(const Grid& grid, const Solver& solver, std::uint64_t first, std::uint64_t count,
                    unsigned threads, SweepBlock& block, SweepProgress* progress = nullptr,
                    const GridGate* gate = nullptr);

// Evaluates blocks in the background while the caller consumes the previous one (keeps rows,
// commits them): start() hands a block to the worker threads and returns at once; wait() joins them,
// the calling thread helping with what is left, and returns when the block is complete. With one
// thread there are no workers and wait() evaluates the whole block. Results are those of
// evaluate_block: each point is written to its own slot.
class BackgroundEvaluator {
 public:
  // The grid, solver, progress and gate must outlive the evaluator.
  BackgroundEvaluator(const Grid& grid, const Solver& solver, unsigned threads, SweepProgress* progress,
                      const GridGate* gate);
  ~BackgroundEvaluator();  // waits for a block still running
  BackgroundEvaluator(const BackgroundEvaluator&) = delete;
  BackgroundEvaluator& operator=(const BackgroundEvaluator&) = delete;

  // Starts points [first, first + count) into `block`, which must not be touched until wait().
  void start(std::uint64_t first, std::uint64_t count, SweepBlock& block);
  // Rethrows what the evaluation threw beyond a point's own error.
  void wait();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// An empty table with the study's columns; axis a's texts are the axis's value labels in order, so
// that a row's label codes are its grid coordinates.
ResultTable make_result_table(const ResolvedStudy& study);

// Appends the rows of the block's evaluated points (labels, statuses, metrics) to `table`, which
// must have make_result_table's axis texts.
void append_block(const Grid& grid, const SweepBlock& block, ResultTable& table);
// Appends the row of block point `i` (0-based within the block) to a table of make_result_table's axis texts.
void append_point(const Grid& grid, const SweepBlock& block, std::uint64_t i,
                  std::span<std::uint32_t> coords, ResultTable& table);

}  // namespace dsx
