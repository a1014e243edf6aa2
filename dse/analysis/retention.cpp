#include "dse/analysis/retention.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

#include "dse/analysis/blocks.hpp"
#include "dse/analysis/derived.hpp"
#include "dse/pareto.hpp"

namespace dsx {

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27U)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31U);
}

// An (oriented value, point) pair: smaller is better, ties to the lower point.
using Ranked = std::pair<double, std::uint64_t>;

}  // namespace

std::uint64_t SweepCounts::excluded_total() const {
  return std::accumulate(excluded.begin(), excluded.end(), std::uint64_t{0});
}

void SweepCounts::append(const SweepCounts& later, std::uint64_t later_first) {
  if (later_first != points_done) {
    throw std::invalid_argument(fmt::format("counts up to point {} cannot take counts from point {}", points_done, later_first));
  }
  const auto add = [](std::vector<std::uint64_t>& to, const std::vector<std::uint64_t>& from) {
    if (to.size() != from.size()) throw std::invalid_argument("the sweep counts to add have another shape");
    for (std::size_t i = 0; i < to.size(); ++i) to[i] += from[i];
  };
  if (formulas_applied != later.formulas_applied || assertions.size() != later.assertions.size()) {
    throw std::invalid_argument("the sweep counts to add have another shape");
  }
  points_done = later.points_done;
  evaluated += later.evaluated;
  feasible += later.feasible;
  infeasible += later.infeasible;
  errors += later.errors;
  add(excluded, later.excluded);
  add(infeasible_by_solver_reason, later.infeasible_by_solver_reason);
  add(constraint_violations, later.constraint_violations);
  add(filtered_out, later.filtered_out);
  for (std::size_t i = 0; i < assertions.size(); ++i) {
    AssertionCount& a = assertions[i];
    const AssertionCount& b = later.assertions[i];
    a.checked += b.checked;
    a.holding += b.holding;
    if (!a.has_example && b.has_example) {
      a.has_example = true;
      a.example_point = b.example_point;
    }
  }
  for (const std::uint64_t p : later.error_points) {
    if (error_points.size() < kMaxKeptErrorRows) error_points.push_back(p);
  }
}

std::map<std::string, std::uint64_t> SweepCounts::infeasible_by_reason(const ResolvedStudy& study) const {
  std::map<std::string, std::uint64_t> out;
  const auto reasons = study.solver->reasons();
  for (std::size_t r = 0; r < infeasible_by_solver_reason.size() && r < reasons.size(); ++r) {
    if (infeasible_by_solver_reason[r] > 0) out[std::string(reasons[r])] += infeasible_by_solver_reason[r];
  }
  const StudyAnalyses& a = analyses_of(study);
  for (std::size_t c = 0; c < constraint_violations.size() && c < a.constraints.size(); ++c) {
    if (constraint_violations[c] > 0) out[constraint_reason(a.constraints[c])] += constraint_violations[c];
  }
  return out;
}

std::string SweepCounts::to_json() const {
  nlohmann::ordered_json j;
  j["points_done"] = points_done;
  j["evaluated"] = evaluated;
  j["feasible"] = feasible;
  j["infeasible"] = infeasible;
  j["errors"] = errors;
  j["excluded"] = excluded;
  j["infeasible_by_solver_reason"] = infeasible_by_solver_reason;
  j["formulas_applied"] = formulas_applied;
  j["constraint_violations"] = constraint_violations;
  j["filtered_out"] = filtered_out;
  j["error_points"] = error_points;
  j["assertions"] = nlohmann::ordered_json::array();
  for (const AssertionCount& a : assertions) {
    nlohmann::ordered_json x = {{"checked", a.checked}, {"holding", a.holding}};
    x["example_point"] = a.has_example ? nlohmann::ordered_json(a.example_point) : nlohmann::ordered_json();
    j["assertions"].push_back(x);
  }
  return j.dump();
}

SweepCounts SweepCounts::from_json(const std::string& text, const ResolvedStudy& study) {
  SweepCounts c;
  try {
    const auto j = nlohmann::json::parse(text);
    c.points_done = j.at("points_done").get<std::uint64_t>();
    c.evaluated = j.at("evaluated").get<std::uint64_t>();
    c.feasible = j.at("feasible").get<std::uint64_t>();
    c.infeasible = j.at("infeasible").get<std::uint64_t>();
    c.errors = j.at("errors").get<std::uint64_t>();
    c.excluded = j.at("excluded").get<std::vector<std::uint64_t>>();
    c.infeasible_by_solver_reason = j.at("infeasible_by_solver_reason").get<std::vector<std::uint64_t>>();
    c.formulas_applied = j.at("formulas_applied").get<bool>();
    c.constraint_violations = j.at("constraint_violations").get<std::vector<std::uint64_t>>();
    c.filtered_out = j.at("filtered_out").get<std::vector<std::uint64_t>>();
    c.error_points = j.at("error_points").get<std::vector<std::uint64_t>>();
    for (const auto& a : j.at("assertions")) {
      AssertionCount x;
      x.checked = a.at("checked").get<std::uint64_t>();
      x.holding = a.at("holding").get<std::uint64_t>();
      if (!a.at("example_point").is_null()) {
        x.has_example = true;
        x.example_point = a.at("example_point").get<std::uint64_t>();
      }
      c.assertions.push_back(x);
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("the stored sweep counts cannot be read: ") + e.what());
  }
  const StudyAnalyses& a = analyses_of(study);
  const bool fits = c.excluded.size() == a.grid_constraints.size() &&
                    c.infeasible_by_solver_reason.size() == study.solver->reasons().size() &&
                    (!c.formulas_applied || (c.constraint_violations.size() == a.constraints.size() &&
                                             c.filtered_out.size() == a.filters.size() &&
                                             c.assertions.size() == a.assertions.size()));
  if (!fits) throw std::runtime_error("the stored sweep counts were made for another study");
  return c;
}

struct RowKeeper::State {
  bool keep_all = true;
  std::unique_ptr<PointFormulas> formulas;  // when the study has formulas and rows are chosen
  std::size_t solver_metrics = 0;
  std::vector<std::size_t> objective_index;  // into the solver metrics, or PointFormulas::metric with formulas
  std::vector<Direction> directions;
  std::vector<double> objective_values;  // scratch, one per objective

  // Front archives, one per group (group id: mixed radix over the group axes' value indices).
  bool front = false;
  std::vector<std::size_t> group_axes;
  struct Archive {
    std::vector<double> values;  // k per point
    std::vector<std::uint64_t> points;
  };
  std::map<std::uint64_t, Archive> archives;
  std::map<std::uint64_t, Archive> candidates;

  std::size_t top_k = 0;
  std::vector<std::vector<Ranked>> best;             // per objective, sorted, at most top_k
  std::vector<std::vector<Ranked>> best_candidates;  // per objective, this block

  std::size_t sample = 0;
  std::uint64_t seed = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> sample_heap;  // (hash, point), max-heap

  std::vector<std::uint64_t> compare_points;  // ascending
  struct AssertionMatch {
    std::vector<std::pair<std::size_t, std::uint32_t>> axis_value;  // (axis, value index) to match
  };
  std::vector<AssertionMatch> assertion_where;

  std::unordered_map<std::uint64_t, std::uint32_t> refs;  // kept point -> sets holding it
  std::uint64_t block_first = 0;
  bool restoring = false;  // counts may pass through zero while stored rows are offered again
  std::vector<std::uint64_t> inserted;  // block points some set took (may repeat)
  std::vector<std::uint64_t> removed;   // stored points no set holds any more

  std::vector<std::uint32_t> coords;
  PointInputs inputs;
  std::vector<double> merged_values;
  std::vector<std::uint64_t> merged_points;
  std::vector<Ranked> previous_best;

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
  const StudyAnalyses& a = analyses_of(study);
  const Solver& solver = *study.solver;
  s.keep_all = a.keep.all;
  s.solver_metrics = solver.metrics().size();
  counts_.excluded.assign(a.grid_constraints.size(), 0);
  counts_.infeasible_by_solver_reason.assign(solver.reasons().size(), 0);
  s.coords.assign(grid.axis_count(), 0);
  if (s.keep_all) return;

  const bool has_formulas =
      !a.derived.empty() || !a.constraints.empty() || !a.filters.empty() || !a.assertions.empty();
  if (has_formulas) s.formulas = std::make_unique<PointFormulas>(study);
  counts_.formulas_applied = true;
  counts_.constraint_violations.assign(a.constraints.size(), 0);
  counts_.filtered_out.assign(a.filters.size(), 0);
  counts_.assertions.assign(a.assertions.size(), AssertionCount{});

  for (const Objective& o : study.objectives) {
    const auto m = find_study_metric(study, o.metric);
    if (!m) throw std::invalid_argument("keep: unknown objective metric '" + o.metric + "'");
    if (m->derived && !s.formulas) throw std::logic_error("keep: a derived objective without formulas");
    s.objective_index.push_back(m->derived ? s.solver_metrics + m->index : m->index);
    s.directions.push_back(o.direction);
  }
  s.objective_values.assign(study.objectives.size(), 0);
  s.front = a.keep.front && study.objectives.size() >= 2;
  for (const std::string& g : a.pareto.group) {
    const auto it = std::find_if(study.axes.begin(), study.axes.end(), [&](const Axis& x) { return x.param == g; });
    if (it == study.axes.end()) throw std::invalid_argument("keep: Pareto group '" + g + "' is not an axis");
    s.group_axes.push_back(static_cast<std::size_t>(it - study.axes.begin()));
  }
  s.top_k = study.objectives.empty() ? 0 : std::max(a.keep.top_k, a.top_k);
  s.best.assign(study.objectives.size(), {});
  s.best_candidates.assign(study.objectives.size(), {});
  s.sample = a.keep.sample;
  s.seed = a.keep.seed;

  // Points each comparison selects: the axes its selectors name are fixed, the others vary.
  for (const Comparison& c : study.comparisons) {
    std::vector<std::vector<std::uint32_t>> allowed(study.axes.size());
    bool none = false;
    for (std::size_t x = 0; x < study.axes.size(); ++x) {
      const Axis& axis = study.axes[x];
      const auto sel = std::find_if(c.where.begin(), c.where.end(), [&](const Selector& v) { return v.param == axis.param; });
      for (std::uint32_t v = 0; v < axis.values.size(); ++v) {
        if (sel == c.where.end() || axis.values[v].label == sel->label) allowed[x].push_back(v);
      }
      none = none || allowed[x].empty();
    }
    if (none) continue;
    // The first two matching points in point order (last axis fastest).
    std::vector<std::size_t> at(study.axes.size(), 0);
    for (int n = 0; n < 2; ++n) {
      std::uint64_t index = 0;
      for (std::size_t x = 0; x < study.axes.size(); ++x) {
        index = index * study.axes[x].values.size() + allowed[x][at[x]];
      }
      s.compare_points.push_back(index);
      std::size_t x = study.axes.size();
      while (x > 0 && ++at[x - 1] == allowed[x - 1].size()) at[--x] = 0;
      if (x == 0) break;
    }
  }
  std::sort(s.compare_points.begin(), s.compare_points.end());
  s.compare_points.erase(std::unique(s.compare_points.begin(), s.compare_points.end()), s.compare_points.end());

  for (const Assertion& x : a.assertions) {
    State::AssertionMatch m;
    for (const Selector& sel : x.where) {
      for (std::size_t ax = 0; ax < study.axes.size(); ++ax) {
        if (study.axes[ax].param != sel.param) continue;
        const auto& vals = study.axes[ax].values;
        const auto v = std::find_if(vals.begin(), vals.end(), [&](const AxisValue& av) { return av.label == sel.label; });
        m.axis_value.emplace_back(ax, static_cast<std::uint32_t>(v - vals.begin()));
      }
    }
    s.assertion_where.push_back(std::move(m));
  }
}

RowKeeper::~RowKeeper() = default;

bool RowKeeper::keeps_all() const { return state_->keep_all; }

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

void RowKeeper::offer(std::uint64_t point, PointResult r, std::span<const double> metrics, bool count) {
  State& s = *state_;
  const StudyAnalyses& a = analyses_of(study_);
  const std::size_t k = study_.objectives.size();
  bool ok = r.status == PointStatus::ok;
  bool shown = true;
  grid_.coordinates(point, s.coords);
  if (s.formulas) {
    grid_.inputs(point, s.inputs);
    s.formulas->load(s.inputs, metrics, ok);
    if (ok) {
      if (const auto c = s.formulas->broken_constraint()) {
        ok = false;
        if (count) ++counts_.constraint_violations[*c];
      }
    }
    if (const auto f = s.formulas->failed_filter()) {
      if (count) ++counts_.filtered_out[*f];
      shown = false;
    }
  }
  if (count) {
    if (r.status == PointStatus::ok) {
      (ok ? counts_.feasible : counts_.infeasible) += 1;
    } else if (r.status == PointStatus::infeasible) {
      ++counts_.infeasible;
      ++counts_.infeasible_by_solver_reason.at(r.reason);
    } else {
      ++counts_.errors;
      if (counts_.error_points.size() < kMaxKeptErrorRows) {
        counts_.error_points.push_back(point);
        s.insert(point);
      }
    }
  }
  if (ok && shown) {
    for (std::size_t x = 0; count && x < a.assertions.size(); ++x) {
      const auto& where = s.assertion_where[x].axis_value;
      if (!std::all_of(where.begin(), where.end(), [&](const auto& av) { return s.coords[av.first] == av.second; })) continue;
      AssertionCount& ac = counts_.assertions[x];
      ++ac.checked;
      const bool holds = s.formulas->assertion_holds(x);
      if (holds) ++ac.holding;
      const bool example = a.assertions[x].require == Quantifier::all ? !holds : holds;
      if (example && !ac.has_example) {
        ac.has_example = true;
        ac.example_point = point;
        s.insert(point);
      }
    }
    for (std::size_t j = 0; j < k; ++j) {
      s.objective_values[j] = s.formulas ? s.formulas->metric(s.objective_index[j]) : metrics[s.objective_index[j]];
    }
    if (s.front) {
      std::uint64_t group = 0;
      for (const std::size_t ax : s.group_axes) group = group * study_.axes[ax].values.size() + s.coords[ax];
      State::Archive& c = s.candidates[group];
      c.values.insert(c.values.end(), s.objective_values.begin(), s.objective_values.end());
      c.points.push_back(point);
    }
    if (s.top_k > 0) {
      for (std::size_t j = 0; j < k; ++j) {
        const double v = s.objective_values[j];
        if (std::isnan(v)) continue;
        const Ranked ranked{s.directions[j] == Direction::maximize ? -v : v, point};
        if (s.best[j].size() == s.top_k && !(ranked < s.best[j].back())) continue;
        s.best_candidates[j].push_back(ranked);
      }
    }
  }
  if (s.sample > 0) {
    const std::pair<std::uint64_t, std::uint64_t> key{splitmix64(point ^ s.seed), point};
    if (s.sample_heap.size() < s.sample) {
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
  if (std::binary_search(s.compare_points.begin(), s.compare_points.end(), point)) s.insert(point);
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
    const std::vector<std::size_t> front = pareto_front(s.merged_values, s.directions);
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
    if (list.size() > s.top_k) list.resize(s.top_k);
    for (const Ranked& x : s.previous_best) {
      if (!std::binary_search(list.begin(), list.end(), x)) s.evict(x.second);
    }
    for (const Ranked& x : cand) {
      if (std::binary_search(list.begin(), list.end(), x)) s.insert(x.second);
    }
  }
}

namespace {

// True when `table` already has the columns make_result_table(study) gives: its row vectors are
// then refilled in place instead of allocated again for every block.
bool same_columns(const ResultTable& table, const ResolvedStudy& study) {
  const auto metrics = study.solver->metrics();
  if (table.axis_names.size() != study.axes.size() || table.metric_names.size() != metrics.size()) return false;
  for (std::size_t a = 0; a < study.axes.size(); ++a) {
    if (table.axis_names[a] != study.axes[a].param) return false;
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
  const std::size_t M = s.solver_metrics;
  for (std::uint64_t i = 0; i < block.count; ++i) {
    if (!block.excluded.empty() && block.excluded[i] != 0) {
      ++counts_.excluded.at(block.excluded[i] - 1);
      continue;
    }
    ++counts_.evaluated;
    const PointResult r = block.results[i];
    if (s.keep_all) {
      (r.status == PointStatus::ok ? counts_.feasible : r.status == PointStatus::infeasible ? counts_.infeasible : counts_.errors) += 1;
      if (r.status == PointStatus::infeasible) ++counts_.infeasible_by_solver_reason.at(r.reason);
      append_point(study_, grid_, block, i, s.coords, out.added);
      continue;
    }
    offer(block.first + i, r, std::span<const double>(block.metrics.data() + i * M, M), true);
  }
  if (!s.keep_all) {
    finish_block();
    std::sort(s.inserted.begin(), s.inserted.end());
    s.inserted.erase(std::unique(s.inserted.begin(), s.inserted.end()), s.inserted.end());
    for (const std::uint64_t p : s.inserted) {
      if (s.refs.count(p) != 0) append_point(study_, grid_, block, p - block.first, s.coords, out.added);
    }
    out.removed.swap(s.removed);
    s.removed.clear();
    std::sort(out.removed.begin(), out.removed.end());
  }
  counts_.points_done = block.first + block.count;
}

void RowKeeper::start_at(std::uint64_t first) {
  if (counts_.points_done != 0 || counts_.evaluated != 0) throw std::logic_error("row keeper: start_at after a block");
  counts_.points_done = first;
}

const std::vector<std::uint64_t>& RowKeeper::unkept_after_restore() const { return state_->removed; }

void RowKeeper::restore(const ResultTable& stored, SweepCounts counts) {
  State& s = *state_;
  counts_ = std::move(counts);
  if (s.keep_all) return;
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
  std::vector<double> metrics(cols.size());
  for (std::size_t row = 0; row < stored.rows(); ++row) {
    PointResult r{stored.status[row], 0};
    if (r.status == PointStatus::infeasible) {
      const auto it = std::find(reasons.begin(), reasons.end(), stored.status_detail[row]);
      r.reason = static_cast<std::uint8_t>(it == reasons.end() ? 0 : it - reasons.begin());
    }
    for (std::size_t m = 0; m < cols.size(); ++m) metrics[m] = stored.metric(row, cols[m]);
    offer(stored.point_index[row], r, metrics, false);
  }
  finish_block();
  s.restoring = false;
  s.inserted.clear();
  for (const std::uint64_t p : stored.point_index) {
    if (s.refs.count(p) == 0) s.removed.push_back(p);
  }
}

}  // namespace dsx
