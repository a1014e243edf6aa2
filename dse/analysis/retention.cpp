#include "dse/analysis/retention.hpp"

#include <fmt/format.h>
#include <tbb/enumerable_thread_specific.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <unordered_map>

#include "dse/analysis/blocks.hpp"
#include "dse/analysis/chunk_selection.hpp"
#include "dse/pareto.hpp"

namespace dsx {

namespace {

using retention::ChunkSelection;
using retention::ChunkSelector;
using retention::KeptBounds;
using retention::Ranked;
using retention::SampleKey;

// What the keeper shares with the chunks it hands to the evaluating threads; they may outlive it.
struct KeeperShared {
  KeeperShared(const ResolvedStudy& s, const Grid& g) : study(s), grid(g), rules(s) {}
  const ResolvedStudy& study;
  const Grid& grid;
  const retention::KeepRules rules;
  SweepCounts zero;  // the counts' shape
  tbb::enumerable_thread_specific<std::unique_ptr<ChunkSelector>> selectors;

  ChunkSelector& selector() {
    std::unique_ptr<ChunkSelector>& s = selectors.local();
    if (!s) s = std::make_unique<ChunkSelector>(study, grid, rules);
    return *s;
  }
};

// A block's chunks reduced by the keeper's rules, each on the thread that evaluated it.
class KeeperChunks final : public BlockPrework {
 public:
  explicit KeeperChunks(std::shared_ptr<KeeperShared> shared) : shared_(std::move(shared)) {}

  void begin(const SweepBlock& block) override {
    first_ = block.first;
    count_ = block.count;
    slots_.resize((block.count + kSweepChunkPoints - 1) / kSweepChunkPoints);
    done_.store(0, std::memory_order_relaxed);
  }
  void chunk_done(const SweepBlock& block, std::uint64_t c) override {
    reduce(block, c);
    done_.fetch_add(1, std::memory_order_release);
  }

  const KeeperShared* owner() const { return shared_.get(); }
  KeptBounds& bounds() { return bounds_; }
  bool complete_for(const SweepBlock& block) const {
    return first_ == block.first && count_ == block.count && done_.load(std::memory_order_acquire) == slots_.size();
  }
  const std::vector<ChunkSelection>& slots() const { return slots_; }

 private:
  void reduce(const SweepBlock& block, std::uint64_t c) {
    ChunkSelector& selector = shared_->selector();
    const std::uint64_t begin = c * kSweepChunkPoints;
    const std::uint64_t end = std::min(block.count, begin + kSweepChunkPoints);
    const std::size_t m = shared_->rules.solver_metrics;
    selector.begin(slots_[c], block.first + begin, shared_->zero, &bounds_);
    for (std::uint64_t i = begin; i < end; ++i) {
      if (!block.excluded.empty() && block.excluded[i] != 0) {
        selector.exclude(block.excluded[i]);
        continue;
      }
      selector.offer(block.first + i, block.results[i], std::span<const double>(block.metrics.data() + i * m, m), true);
    }
    selector.finish(block.first + end);
  }

  std::shared_ptr<KeeperShared> shared_;
  KeptBounds bounds_;
  std::vector<ChunkSelection> slots_;
  std::uint64_t first_ = 0, count_ = 0;
  std::atomic<std::uint64_t> done_{0};
};

}  // namespace

struct RowKeeper::State {
  std::shared_ptr<KeeperShared> shared;
  const retention::KeepRules* rules = nullptr;

  // Front archives, one per group.
  struct Archive {
    std::vector<double> values;  // k per point
    std::vector<std::uint64_t> points;
  };
  std::map<std::uint64_t, Archive> archives;
  std::map<std::uint64_t, Archive> candidates;

  std::vector<std::vector<Ranked>> best;             // per objective, sorted, at most top_k
  std::vector<std::vector<Ranked>> best_candidates;  // per objective, this block
  std::vector<SampleKey> sample_heap;                // max-heap

  std::unordered_map<std::uint64_t, std::uint32_t> refs;  // kept point -> sets holding it
  std::uint64_t block_first = 0;
  bool restoring = false;  // counts may pass through zero while stored rows are offered again
  std::vector<std::uint64_t> inserted;  // block points some set took (may repeat)
  std::vector<std::uint64_t> removed;   // stored points no set holds any more

  std::vector<std::uint32_t> coords;
  std::vector<double> merged_values;
  std::vector<std::uint64_t> merged_points;
  std::vector<Ranked> previous_best;
  std::shared_ptr<KeeperChunks> own_chunks;  // for a block no evaluator reduced
  std::vector<bool> had_example;

  void insert(std::uint64_t p) {
    ++refs[p];
    if (p >= block_first) inserted.push_back(p);
  }
  void evict(std::uint64_t p) {
    const auto it = refs.find(p);
    if (it == refs.end()) throw std::logic_error("row keeper: evicting a point no set holds");
    if (--it->second == 0) {
      refs.erase(it);
      if (p < block_first && !restoring) removed.push_back(p);
    }
  }
};

RowKeeper::RowKeeper(const ResolvedStudy& study, const Grid& grid)
    : study_(study), grid_(grid), state_(std::make_unique<State>()) {
  State& s = *state_;
  s.shared = std::make_shared<KeeperShared>(study, grid);
  s.rules = &s.shared->rules;
  const StudyAnalyses& a = analyses_of(study);
  counts_.excluded.assign(a.grid_constraints.size(), 0);
  counts_.infeasible_by_solver_reason.assign(study.solver->reasons().size(), 0);
  s.coords.assign(grid.axis_count(), 0);
  if (!s.rules->keep_all) {
    counts_.formulas_applied = true;
    counts_.constraint_violations.assign(a.constraints.size(), 0);
    counts_.filtered_out.assign(a.filters.size(), 0);
    counts_.assertions.assign(a.assertions.size(), AssertionCount{});
    s.best.assign(study.objectives.size(), {});
    s.best_candidates.assign(study.objectives.size(), {});
  }
  s.shared->zero = counts_;
}

RowKeeper::~RowKeeper() = default;

bool RowKeeper::keeps_all() const { return state_->rules->keep_all; }

void RowKeeper::prepare(SweepBlock& block) {
  State& s = *state_;
  if (s.rules->keep_all) {
    block.prework.reset();
    return;
  }
  auto* chunks = dynamic_cast<KeeperChunks*>(block.prework.get());
  if (chunks == nullptr || chunks->owner() != s.shared.get()) {
    auto made = std::make_shared<KeeperChunks>(s.shared);
    chunks = made.get();
    block.prework = std::move(made);
  }
  KeptBounds& bounds = chunks->bounds();
  bounds.top_k_last.assign(s.best.size(), std::nullopt);
  for (std::size_t j = 0; j < s.best.size(); ++j) {
    if (s.rules->top_k > 0 && s.best[j].size() == s.rules->top_k) bounds.top_k_last[j] = s.best[j].back();
  }
  for (const auto& [group, archive] : s.archives) bounds.fronts[group].assign(archive.values, s.rules->directions);
  bounds.sample_last.reset();
  if (s.rules->sample > 0 && s.sample_heap.size() == s.rules->sample) bounds.sample_last = s.sample_heap.front();
}

void RowKeeper::begin_block(std::uint64_t first) {
  State& s = *state_;
  s.block_first = first;
  s.inserted.clear();
  for (auto& [group, c] : s.candidates) {
    c.values.clear();
    c.points.clear();
  }
  for (auto& c : s.best_candidates) c.clear();
}

void RowKeeper::merge(const retention::ChunkSelection& chunk, bool count) {
  State& s = *state_;
  if (count) {
    const std::size_t errors_before = counts_.error_points.size();
    std::vector<bool>& had_example = s.had_example;
    had_example.resize(counts_.assertions.size());
    for (std::size_t x = 0; x < counts_.assertions.size(); ++x) had_example[x] = counts_.assertions[x].has_example;
    counts_.append(chunk.counts, chunk.first);
    for (std::size_t e = errors_before; e < counts_.error_points.size(); ++e) s.insert(counts_.error_points[e]);
    for (std::size_t x = 0; x < counts_.assertions.size(); ++x) {
      if (!had_example[x] && counts_.assertions[x].has_example) s.insert(counts_.assertions[x].example_point);
    }
  }
  const std::size_t k = study_.objectives.size();
  for (std::size_t c = 0; c < chunk.points.size(); ++c) {
    const std::uint64_t point = chunk.points[c];
    if (chunk.eligible[c] != 0) {
      const std::span<const double> values(chunk.values.data() + c * k, k);
      if (s.rules->front) {
        State::Archive& a = s.candidates[chunk.groups[c]];
        a.values.insert(a.values.end(), values.begin(), values.end());
        a.points.push_back(point);
      }
      if (s.rules->top_k > 0) {
        for (std::size_t j = 0; j < k; ++j) {
          const double v = values[j];
          if (std::isnan(v)) continue;
          const Ranked ranked{s.rules->directions[j] == Direction::maximize ? -v : v, point};
          if (s.best[j].size() == s.rules->top_k && !(ranked < s.best[j].back())) continue;
          s.best_candidates[j].push_back(ranked);
        }
      }
    }
    if (s.rules->sample > 0) {
      const SampleKey key = retention::sample_key(point, s.rules->seed);
      if (s.sample_heap.size() < s.rules->sample) {
        s.sample_heap.push_back(key);
        std::push_heap(s.sample_heap.begin(), s.sample_heap.end());
        s.insert(point);
      } else if (key < s.sample_heap.front()) {
        s.evict(s.sample_heap.front().second);
        std::pop_heap(s.sample_heap.begin(), s.sample_heap.end());
        s.sample_heap.back() = key;
        std::push_heap(s.sample_heap.begin(), s.sample_heap.end());
        s.insert(point);
      }
    }
  }
}

void RowKeeper::finish_block() {
  State& s = *state_;
  const std::size_t k = study_.objectives.size();
  // Fronts: each group's archive merged with the block's candidates.
  for (auto& [group, c] : s.candidates) {
    if (c.points.empty()) continue;
    State::Archive& arch = s.archives[group];
    s.merged_values = arch.values;
    s.merged_values.insert(s.merged_values.end(), c.values.begin(), c.values.end());
    s.merged_points = arch.points;
    s.merged_points.insert(s.merged_points.end(), c.points.begin(), c.points.end());
    const std::vector<std::size_t> front = pareto_front(s.merged_values, s.rules->directions);
    const std::size_t old = arch.points.size();
    std::size_t f = 0;
    for (std::size_t n = 0; n < old; ++n) {
      if (f < front.size() && front[f] == n) {
        ++f;
      } else {
        s.evict(arch.points[n]);
      }
    }
    for (; f < front.size(); ++f) s.insert(s.merged_points[front[f]]);
    arch.values.clear();
    arch.points.clear();
    for (const std::size_t n : front) {
      arch.values.insert(arch.values.end(), s.merged_values.begin() + static_cast<std::ptrdiff_t>(n * k),
                         s.merged_values.begin() + static_cast<std::ptrdiff_t>((n + 1) * k));
      arch.points.push_back(s.merged_points[n]);
    }
  }
  // Top-k: the best of the kept list and the block's candidates.
  for (std::size_t j = 0; j < s.best.size(); ++j) {
    std::vector<Ranked>& cand = s.best_candidates[j];
    if (cand.empty()) continue;
    std::vector<Ranked>& list = s.best[j];
    s.previous_best = list;
    list.insert(list.end(), cand.begin(), cand.end());
    std::sort(list.begin(), list.end());
    if (list.size() > s.rules->top_k) list.resize(s.rules->top_k);
    for (const Ranked& x : s.previous_best) {
      if (!std::binary_search(list.begin(), list.end(), x)) s.evict(x.second);
    }
    for (const Ranked& x : cand) {
      if (std::binary_search(list.begin(), list.end(), x)) s.insert(x.second);
    }
  }
}

namespace {

// True when `table` already has the columns and axis texts make_result_table(study) gives: its row vectors are
// then refilled in place instead of allocated again for every block.
bool same_columns(const ResultTable& table, const ResolvedStudy& study) {
  const auto metrics = study.solver->metrics();
  if (table.axis_names.size() != study.axes.size() || table.metric_names.size() != metrics.size()) return false;
  if (table.axis_texts.size() != study.axes.size()) return false;
  for (std::size_t a = 0; a < study.axes.size(); ++a) {
    if (table.axis_names[a] != study.axes[a].param) return false;
    // append_point's codes are the axis's value indices
    const TextDictionary& texts = table.axis_texts[a];
    if (texts.size() != study.axes[a].values.size()) return false;
    for (std::size_t v = 0; v < texts.size(); ++v) {
      if (texts.text(static_cast<std::uint32_t>(v)) != study.axes[a].values[v].label) return false;
    }
  }
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    if (table.metric_names[m] != metrics[m].name) return false;
  }
  const auto reasons = study.solver->reasons();
  return std::equal(table.reasons.begin(), table.reasons.end(), reasons.begin(), reasons.end());
}

}  // namespace

void RowKeeper::take(const SweepBlock& block, Change& out) {
  if (block.first != counts_.points_done) {
    throw std::logic_error(fmt::format("row keeper: block at {} after {} points", block.first, counts_.points_done));
  }
  State& s = *state_;
  if (same_columns(out.added, study_)) {
    out.added.clear_rows();
  } else {
    out.added = make_result_table(study_);
  }
  out.removed.clear();
  begin_block(block.first);
  if (s.rules->keep_all) {
    for (std::uint64_t i = 0; i < block.count; ++i) {
      if (!block.excluded.empty() && block.excluded[i] != 0) {
        ++counts_.excluded.at(block.excluded[i] - 1);
        continue;
      }
      ++counts_.evaluated;
      const PointResult r = block.results[i];
      (r.status == PointStatus::ok ? counts_.feasible : r.status == PointStatus::infeasible ? counts_.infeasible : counts_.errors) += 1;
      if (r.status == PointStatus::infeasible) ++counts_.infeasible_by_solver_reason.at(r.reason);
      append_point(grid_, block, i, s.coords, out.added);
    }
    counts_.points_done = block.first + block.count;
    return;
  }
  // The block's chunks, reduced by the threads that evaluated them, or here.
  auto* chunks = dynamic_cast<const KeeperChunks*>(block.prework.get());
  if (chunks == nullptr || chunks->owner() != s.shared.get() || !chunks->complete_for(block)) {
    if (!s.own_chunks) s.own_chunks = std::make_shared<KeeperChunks>(s.shared);
    s.own_chunks->bounds() = KeptBounds{};
    s.own_chunks->bounds().top_k_last.assign(s.best.size(), std::nullopt);
    s.own_chunks->begin(block);
    const std::uint64_t n = (block.count + kSweepChunkPoints - 1) / kSweepChunkPoints;
    for (std::uint64_t c = 0; c < n; ++c) s.own_chunks->chunk_done(block, c);
    chunks = s.own_chunks.get();
  }
  for (const ChunkSelection& chunk : chunks->slots()) merge(chunk, true);
  const auto from = std::lower_bound(s.rules->compare_points.begin(), s.rules->compare_points.end(), block.first);
  for (auto p = from; p != s.rules->compare_points.end() && *p < block.first + block.count; ++p) {
    const std::uint64_t i = *p - block.first;
    if (block.excluded.empty() || block.excluded[i] == 0) s.insert(*p);
  }
  finish_block();
  std::sort(s.inserted.begin(), s.inserted.end());
  s.inserted.erase(std::unique(s.inserted.begin(), s.inserted.end()), s.inserted.end());
  for (const std::uint64_t p : s.inserted) {
    if (s.refs.count(p) != 0) append_point(grid_, block, p - block.first, s.coords, out.added);
  }
  out.removed.swap(s.removed);
  s.removed.clear();
  std::sort(out.removed.begin(), out.removed.end());
  if (counts_.points_done != block.first + block.count) throw std::logic_error("row keeper: the block's chunks do not cover it");
}

void RowKeeper::start_at(std::uint64_t first) {
  if (counts_.points_done != 0 || counts_.evaluated != 0) throw std::logic_error("row keeper: start_at after a block");
  counts_.points_done = first;
}

const std::vector<std::uint64_t>& RowKeeper::unkept_after_restore() const { return state_->removed; }

void RowKeeper::restore(const ResultTable& stored, SweepCounts counts) {
  State& s = *state_;
  counts_ = std::move(counts);
  if (s.rules->keep_all) return;
  for (const std::uint64_t p : counts_.error_points) ++s.refs[p];
  for (const AssertionCount& ac : counts_.assertions) {
    if (ac.has_example) ++s.refs[ac.example_point];
  }
  std::vector<std::size_t> cols;
  for (const MetricSpec& m : study_.solver->metrics()) {
    const int c = stored.metric_column(m.name);
    if (c < 0) throw std::invalid_argument("row keeper: the stored rows have no metric '" + std::string(m.name) + "'");
    cols.push_back(static_cast<std::size_t>(c));
  }
  const auto reasons = study_.solver->reasons();
  // The stored rows are offered as one block that precedes the next: every point the sets take is
  // already stored, and a point they would drop (none, when the store is consistent) is removed
  // with the next block.
  begin_block(counts_.points_done);
  s.restoring = true;
  ChunkSelector& selector = s.shared->selector();
  ChunkSelection rows;
  selector.begin(rows, counts_.points_done, s.shared->zero, nullptr);
  std::vector<double> metrics(cols.size());
  for (std::size_t row = 0; row < stored.rows(); ++row) {
    PointResult r{stored.status[row], 0};
    if (r.status == PointStatus::infeasible) {
      const auto it = std::find_if(reasons.begin(), reasons.end(),
                                   [&](std::string_view reason) { return reason_matches(reason, stored.detail(row)); });
      r.reason = static_cast<std::uint8_t>(it == reasons.end() ? 0 : it - reasons.begin());
    }
    for (std::size_t m = 0; m < cols.size(); ++m) metrics[m] = stored.metric(row, cols[m]);
    selector.offer(stored.point_index[row], r, metrics, false);
    if (std::binary_search(s.rules->compare_points.begin(), s.rules->compare_points.end(), stored.point_index[row])) {
      s.insert(stored.point_index[row]);
    }
  }
  selector.finish(counts_.points_done);
  merge(rows, false);
  finish_block();
  s.restoring = false;
  s.inserted.clear();
  for (const std::uint64_t p : stored.point_index) {
    if (s.refs.count(p) == 0) s.removed.push_back(p);
  }
}

}  // namespace dsx
