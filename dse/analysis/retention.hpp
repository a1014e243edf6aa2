// What a sweep keeps of its rows, decided while it runs (the study's `keep:`, KeepOptions in
// dse/analysis/blocks.hpp), so that a grid of 1e9 points runs in bounded memory and the store
// grows only by what is kept.
//
// The sweep hands over its blocks in point order. For each evaluated point the keeper counts its
// status and, unless every row is kept, applies the study's formulas as the analyse step would
// (dse/analysis/derived.hpp: derived metrics, constraints, filters, assertions), then offers the
// point to each chosen set. That per-point work runs on the threads that evaluate the block, one
// chunk at a time, each chunk reduced to the few points that may enter a set
// (dse/analysis/chunk_selection.hpp); the keeper's thread merges the chunks in order. The sets:
//   - front: the exact Pareto front of each group (ParetoOptions::group) over the feasible rows the
//     filters keep. The archive of a group is merged with the block's candidates by pareto_front
//     (dse/pareto.hpp): front(A u B) = front(front(A) u B), since every dominated point is dominated
//     by a point of the front. Duplicates stay (they do not dominate each other). Epsilon thinning
//     and knees are computed from the kept rows afterwards, with the same result as from all rows.
//   - top_k: per objective the k rows with the best value, ties to the lower point index (the order
//     top_k_rows uses); the study's own top_k is always covered.
//   - sample: the `sample` points with the smallest hash of their point index (SplitMix64 of index
//     xor seed), ties to the lower index: a uniform sample without replacement (bottom-k sampling;
//     E. Cohen and H. Kaplan, "Summarizing data using bottom-k sketches", PODC 2007).
//   - pinned: the points `compare:` selects (at most two each: more is "unmatched" anyway), each
//     assertion's example point (its first failing, for `any` its first holding, point) and the
//     first kMaxKeptErrorRows points that failed with an error, so their messages reach the report.
// Each set is a function of the whole grid, not of the order points arrive in, so the kept rows
// are identical on 1 or N threads and after any number of interrupted and resumed runs.
//
// A kept row is stored as the sweep produced it (solver metrics, solver status); the analyse step
// re-applies the formulas to it. What is not kept survives only as counts (SweepCounts), which
// the store holds next to the rows and the report shows.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "dse/grid.hpp"
#include "dse/results.hpp"
#include "dse/study.hpp"
#include "dse/sweep.hpp"

namespace dsx {

namespace retention {
struct ChunkSelection;
}

// Error rows always kept when a study keeps only some rows, in point order.
inline constexpr std::size_t kMaxKeptErrorRows = 10;

struct AssertionCount {
  std::uint64_t checked = 0;
  std::uint64_t holding = 0;
  bool has_example = false;
  std::uint64_t example_point = 0;
};

// Counts over every point of the grid swept so far, kept or not.
struct SweepCounts {
  std::uint64_t points_done = 0;  // grid points [0, points_done) are processed
  std::uint64_t evaluated = 0;    // of those, evaluated by the solver
  std::uint64_t feasible = 0, infeasible = 0, errors = 0;
  std::vector<std::uint64_t> excluded;                    // per grid constraint: points never evaluated
  std::vector<std::uint64_t> infeasible_by_solver_reason;  // per Solver::reasons()
  // With formulas applied (every study that does not keep all rows): feasible and infeasible
  // above are after the constraints.
  bool formulas_applied = false;
  std::vector<std::uint64_t> constraint_violations;  // per constraint
  std::vector<std::uint64_t> filtered_out;           // per filter (first failing)
  std::vector<AssertionCount> assertions;
  std::vector<std::uint64_t> error_points;  // the first kMaxKeptErrorRows points that failed, kept

  std::uint64_t excluded_total() const;
  // Adds the counts of the points after these ([points_done, later.points_done)), as a run split
  // into consecutive ranges (shards) would have counted them in one: sums, the earlier assertion
  // example, the first kMaxKeptErrorRows error points. Throws std::invalid_argument when `later`
  // does not continue where these stop or has another shape.
  void append(const SweepCounts& later, std::uint64_t later_first);
  // Reason text -> points, over solver reasons and (with formulas applied) constraints.
  std::map<std::string, std::uint64_t> infeasible_by_reason(const ResolvedStudy& study) const;

  std::string to_json() const;
  // Throws std::runtime_error for text that is not a SweepCounts of this study's shape.
  static SweepCounts from_json(const std::string& text, const ResolvedStudy& study);
};

class RowKeeper {
 public:
  // The grid and the study must outlive the keeper.
  RowKeeper(const ResolvedStudy& study, const Grid& grid);
  ~RowKeeper();
  RowKeeper(const RowKeeper&) = delete;
  RowKeeper& operator=(const RowKeeper&) = delete;

  // Continues an interrupted sweep: `stored` are the rows the store holds (solver columns),
  // `counts` what it recorded with them.
  void restore(const ResultTable& stored, SweepCounts counts);
  // A sweep of a part of the grid (a shard) starts at `first`: points before it are not its own.
  // Only before the first block.
  void start_at(std::uint64_t first);
  // The stored points restore() found no set holding (removed with the next block, or by a merge).
  const std::vector<std::uint64_t>& unkept_after_restore() const;

  // What one block changed: rows to store, and stored points that are no longer kept.
  struct Change {
    ResultTable added;
    std::vector<std::uint64_t> removed;  // ascending
  };
  // Gives a block about to be evaluated the work the keeper wants done on the evaluating threads
  // (SweepBlock::prework): each chunk reduced to the points that may enter a set
  // (dse/analysis/chunk_selection.hpp), so take() merges those instead of visiting every point.
  // Optional: take() reduces a block that was not prepared itself, with the same result.
  void prepare(SweepBlock& block);
  // Takes the next block (block.first == counts().points_done); `out` is overwritten.
  void take(const SweepBlock& block, Change& out);

  const SweepCounts& counts() const { return counts_; }
  bool keeps_all() const;

 private:
  struct State;
  void begin_block(std::uint64_t first);
  // Adds a chunk's counts (when `count`) and offers its candidates to the chosen sets.
  void merge(const retention::ChunkSelection& chunk, bool count);
  void finish_block();

  const ResolvedStudy& study_;
  const Grid& grid_;
  SweepCounts counts_;
  std::unique_ptr<State> state_;
};

}  // namespace dsx
