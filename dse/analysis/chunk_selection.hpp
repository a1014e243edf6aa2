// The row keeper's rules applied to one chunk of a block on the thread that evaluated it
// (dse/analysis/retention.hpp), so that the keeper's own thread merges a few candidates per chunk
// instead of visiting every point.
//
// Every set a study keeps is decomposable, so what a chunk drops could not have been kept:
//   - front: front(A u B) = front(front(A) u B); each group's chunk-local front is a superset of
//     what the chunk contributes to the group's front;
//   - top_k: the k best of A u B are among the k best of A and the k best of B (ties to the lower
//     point index, a total order);
//   - sample: the bottom-k of A u B by hash are among the bottom-k of A and of B.
// A bound taken from the keeper's sets at any earlier time (KeptBounds) only tightens this: the
// k-th best kept value and the largest kept sample key never get worse as points arrive.
// Counts, the first error points and each assertion's first example are per chunk and added in
// chunk order (SweepCounts::append), as one pass in point order would have counted them.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "dse/analysis/retention.hpp"
#include "dse/grid.hpp"
#include "dse/study.hpp"

namespace dsx {

class PointFormulas;

namespace retention {

// An (oriented value, point) pair: smaller is better, ties to the lower point.
using Ranked = std::pair<double, std::uint64_t>;
// A sample key: (hash of the point index, point); the `sample` smallest are kept.
using SampleKey = std::pair<std::uint64_t, std::uint64_t>;

SampleKey sample_key(std::uint64_t point, std::uint64_t seed);

// The study's `keep:` and what it pins, resolved to indices once per sweep.
struct KeepRules {
  explicit KeepRules(const ResolvedStudy& study);

  bool keep_all = true;
  bool has_formulas = false;
  std::size_t solver_metrics = 0;
  std::vector<std::size_t> objective_index;  // solver metric, or solver_metrics + derived metric
  std::vector<Direction> directions;
  bool front = false;
  std::vector<std::size_t> group_axes;
  std::size_t top_k = 0;
  std::size_t sample = 0;
  std::uint64_t seed = 0;
  std::vector<std::uint64_t> compare_points;  // ascending
  struct AssertionMatch {
    std::vector<std::pair<std::size_t, std::uint32_t>> axis_value;  // (axis, value index) to match
  };
  std::vector<AssertionMatch> assertion_where;
  // Per objective, per axis its `where` names: the value indices it ranks (any of them).
  std::vector<std::vector<std::pair<std::size_t, std::vector<std::uint32_t>>>> objective_where;
};

// A front the keeper holds, arranged to tell quickly whether one of its points strictly dominates a
// candidate: with two objectives, the points sorted by the first (oriented so smaller is better) with
// the running minimum of the second, two binary searches per query; with more, up to kFrontProbes of
// its points spread along it, each checked (any subset of a front is an exact filter, only a weaker one).
class KeptFront {
 public:
  static constexpr std::size_t kFrontProbes = 32;
  void assign(std::span<const double> values, std::span<const Direction> directions);
  bool dominates(std::span<const double> values) const;

 private:
  std::vector<Direction> directions_;
  std::vector<double> first_;        // two objectives: oriented first objective, ascending
  std::vector<double> best_second_;  // the least oriented second objective over first_[0..i]
  std::vector<double> probes_;       // more objectives: k values per probe point
};

// Bounds read from the keeper's sets: a point that does not beat them cannot enter.
struct KeptBounds {
  std::vector<std::optional<Ranked>> top_k_last;  // per objective: the k-th best kept, once k are kept
  std::optional<SampleKey> sample_last;           // the largest kept key, once `sample` are kept
  std::map<std::uint64_t, KeptFront> fronts;  // per Pareto group
};

// What a chunk (or the rows of a store being resumed) hands the keeper: its counts and the points
// that may enter a set, ascending.
struct ChunkSelection {
  std::uint64_t first = 0;  // the chunk's first point
  SweepCounts counts;       // of the chunk's points alone; points_done is the chunk's end
  std::vector<std::uint64_t> points;
  std::vector<std::uint8_t> eligible;  // solver-feasible, every constraint kept, every filter passed
  std::vector<std::uint64_t> groups;   // Pareto group (mixed radix over the group axes' value indices)
  std::vector<double> values;          // objective values, one per objective per point; NaN unless eligible
};

// A thread's working memory for reducing chunks. Points are offered in ascending order.
class ChunkSelector {
 public:
  ChunkSelector(const ResolvedStudy& study, const Grid& grid, const KeepRules& rules);
  ~ChunkSelector();
  ChunkSelector(const ChunkSelector&) = delete;
  ChunkSelector& operator=(const ChunkSelector&) = delete;

  // Starts filling `out` (its counts take the shape of `zero`); `bounds` may be null.
  void begin(ChunkSelection& out, std::uint64_t first, const SweepCounts& zero, const KeptBounds* bounds);
  // A point the grid gate skipped (1 + the grid constraint it breaks).
  void exclude(std::uint32_t grid_constraint_plus_one);
  // An evaluated point; `count` adds it to the counts (false for rows offered again on resume).
  void offer(std::uint64_t point, PointResult r, std::span<const double> metrics, bool count);
  // Writes the candidates into `out`; `points_done` becomes the chunk's end.
  void finish(std::uint64_t end);

 private:
  struct Local {
    double value;
    std::uint64_t point;
    std::uint32_t candidate;
    bool operator<(const Local& o) const { return value != o.value ? value < o.value : point < o.point; }
  };
  struct Sampled {
    SampleKey key;
    std::uint32_t candidate;
    bool operator<(const Sampled& o) const { return key < o.key; }
  };
  std::uint32_t add_candidate(std::uint64_t point, std::uint64_t group, bool eligible);
  // Whether a point of the group's kept front strictly dominates the objective values.
  bool dominated_by_kept_front(std::uint64_t group) const;

  const ResolvedStudy& study_;
  const Grid& grid_;
  const KeepRules& rules_;
  std::unique_ptr<PointFormulas> formulas_;
  PointInputs inputs_;
  std::vector<std::uint32_t> coords_;
  std::vector<double> objective_values_;

  ChunkSelection* out_ = nullptr;
  const KeptBounds* bounds_ = nullptr;
  std::vector<std::uint64_t> cand_points_, cand_groups_;
  std::vector<std::uint8_t> cand_eligible_, chosen_;
  std::vector<double> cand_values_;
  std::map<std::uint64_t, std::vector<std::uint32_t>> group_members_;
  std::vector<double> group_values_;
  std::vector<std::vector<Local>> best_;  // per objective, max-heaps of at most top_k
  std::vector<Sampled> sampled_;          // max-heap of at most `sample`
};

}  // namespace retention
}  // namespace dsx
