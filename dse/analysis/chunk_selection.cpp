#include "dse/analysis/chunk_selection.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "dse/analysis/blocks.hpp"
#include "dse/analysis/derived.hpp"
#include "dse/pareto.hpp"

namespace dsx::retention {

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27U)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31U);
}

// The first two points each comparison and each cited value (values:) selects, in point order (last
// axis fastest): the axes its selectors name are fixed, the others vary.
std::vector<std::uint64_t> compared_points(const ResolvedStudy& study) {
  std::vector<std::uint64_t> points;
  std::vector<const std::vector<Selector>*> selections;
  for (const Comparison& c : study.comparisons) selections.push_back(&c.where);
  for (const CitedValue& v : study.values) {
    if (v.aggregate != CitedAggregate::none) continue;  // reads every row: keep: all
    selections.push_back(&v.where);
    if (!v.over.empty()) selections.push_back(&v.over);
    if (!v.minus.empty()) selections.push_back(&v.minus);
  }
  for (const std::vector<Selector>* where : selections) {
    const std::vector<Selector>& selectors = *where;
    std::vector<std::vector<std::uint32_t>> allowed(study.axes.size());
    bool none = false;
    for (std::size_t x = 0; x < study.axes.size(); ++x) {
      const Axis& axis = study.axes[x];
      const auto sel = std::find_if(selectors.begin(), selectors.end(), [&](const Selector& v) { return v.param == axis.param; });
      for (std::uint32_t v = 0; v < axis.values.size(); ++v) {
        if (sel == selectors.end() || axis.values[v].label == sel->label) allowed[x].push_back(v);
      }
      none = none || allowed[x].empty();
    }
    if (none) continue;
    std::vector<std::size_t> at(study.axes.size(), 0);
    for (int n = 0; n < 2; ++n) {
      std::uint64_t index = 0;
      for (std::size_t x = 0; x < study.axes.size(); ++x) {
        index = index * study.axes[x].values.size() + allowed[x][at[x]];
      }
      points.push_back(index);
      std::size_t x = study.axes.size();
      while (x > 0 && ++at[x - 1] == allowed[x - 1].size()) at[--x] = 0;
      if (x == 0) break;
    }
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  return points;
}

}  // namespace

SampleKey sample_key(std::uint64_t point, std::uint64_t seed) { return {splitmix64(point ^ seed), point}; }

KeepRules::KeepRules(const ResolvedStudy& study) {
  const StudyAnalyses& a = analyses_of(study);
  keep_all = a.keep.all;
  solver_metrics = study.solver->metrics().size();
  if (keep_all) return;
  has_formulas = !a.derived.empty() || !a.constraints.empty() || !a.filters.empty() || !a.assertions.empty();
  for (const Objective& o : study.objectives) {
    const auto m = find_study_metric(study, o.metric);
    if (!m) throw std::invalid_argument("keep: unknown objective metric '" + o.metric + "'");
    if (m->derived && !has_formulas) throw std::logic_error("keep: a derived objective without formulas");
    objective_index.push_back(m->derived ? solver_metrics + m->index : m->index);
    directions.push_back(o.direction);
    std::vector<std::pair<std::size_t, std::vector<std::uint32_t>>> where;
    for (std::size_t ax = 0; ax < study.axes.size(); ++ax) {
      std::vector<std::uint32_t> allowed;
      bool named = false;
      for (const Selector& sel : o.where) {
        if (study.axes[ax].param != sel.param) continue;
        named = true;
        const auto& vals = study.axes[ax].values;
        const auto v = std::find_if(vals.begin(), vals.end(), [&](const AxisValue& av) { return av.label == sel.label; });
        allowed.push_back(static_cast<std::uint32_t>(v - vals.begin()));
      }
      if (named) where.emplace_back(ax, std::move(allowed));
    }
    objective_where.push_back(std::move(where));
  }
  front = a.keep.front && study.objectives.size() >= 2;
  for (const std::string& g : a.pareto.group) {
    const auto it = std::find_if(study.axes.begin(), study.axes.end(), [&](const Axis& x) { return x.param == g; });
    if (it == study.axes.end()) throw std::invalid_argument("keep: Pareto group '" + g + "' is not an axis");
    group_axes.push_back(static_cast<std::size_t>(it - study.axes.begin()));
  }
  top_k = study.objectives.empty() ? 0 : std::max(a.keep.top_k, a.top_k);
  sample = a.keep.sample;
  seed = a.keep.seed;
  compare_points = compared_points(study);
  for (const Assertion& x : a.assertions) {
    AssertionMatch m;
    for (const Selector& sel : x.where) {
      for (std::size_t ax = 0; ax < study.axes.size(); ++ax) {
        if (study.axes[ax].param != sel.param) continue;
        const auto& vals = study.axes[ax].values;
        const auto v = std::find_if(vals.begin(), vals.end(), [&](const AxisValue& av) { return av.label == sel.label; });
        m.axis_value.emplace_back(ax, static_cast<std::uint32_t>(v - vals.begin()));
      }
    }
    assertion_where.push_back(std::move(m));
  }
}

ChunkSelector::ChunkSelector(const ResolvedStudy& study, const Grid& grid, const KeepRules& rules)
    : study_(study), grid_(grid), rules_(rules) {
  if (rules.has_formulas) formulas_ = std::make_unique<PointFormulas>(study);
  coords_.assign(grid.axis_count(), 0);
  objective_values_.assign(rules.objective_index.size(), 0);
  best_.assign(rules.objective_index.size(), {});
}

ChunkSelector::~ChunkSelector() = default;

void ChunkSelector::begin(ChunkSelection& out, std::uint64_t first, const SweepCounts& zero, const KeptBounds* bounds) {
  out_ = &out;
  bounds_ = bounds;
  out.first = first;
  out.counts = zero;
  out.points.clear();
  out.eligible.clear();
  out.groups.clear();
  out.values.clear();
  cand_points_.clear();
  cand_groups_.clear();
  cand_eligible_.clear();
  cand_values_.clear();
  for (auto& [group, members] : group_members_) members.clear();
  for (auto& b : best_) b.clear();
  sampled_.clear();
}

void ChunkSelector::exclude(std::uint32_t grid_constraint_plus_one) {
  ++out_->counts.excluded.at(grid_constraint_plus_one - 1);
}

std::uint32_t ChunkSelector::add_candidate(std::uint64_t point, std::uint64_t group, bool eligible) {
  const auto index = static_cast<std::uint32_t>(cand_points_.size());
  cand_points_.push_back(point);
  cand_groups_.push_back(group);
  cand_eligible_.push_back(eligible ? 1 : 0);
  if (eligible) {
    cand_values_.insert(cand_values_.end(), objective_values_.begin(), objective_values_.end());
  } else {
    cand_values_.insert(cand_values_.end(), objective_values_.size(), std::numeric_limits<double>::quiet_NaN());
  }
  return index;
}

void ChunkSelector::offer(std::uint64_t point, PointResult r, std::span<const double> metrics, bool count) {
  SweepCounts& counts = out_->counts;
  const StudyAnalyses& a = analyses_of(study_);
  bool ok = r.status == PointStatus::ok;
  bool shown = true;
  grid_.coordinates(point, coords_);
  if (formulas_) {
    grid_.inputs(point, inputs_);
    formulas_->load(inputs_, metrics, ok);
    if (ok) {
      if (const auto c = formulas_->broken_constraint()) {
        ok = false;
        if (count) ++counts.constraint_violations[*c];
      }
    }
    if (const auto f = formulas_->failed_filter()) {
      if (count) ++counts.filtered_out[*f];
      shown = false;
    }
  }
  if (count) {
    ++counts.evaluated;
    if (r.status == PointStatus::ok) {
      (ok ? counts.feasible : counts.infeasible) += 1;
    } else if (r.status == PointStatus::infeasible) {
      ++counts.infeasible;
      ++counts.infeasible_by_solver_reason.at(r.reason);
    } else {
      ++counts.errors;
      if (counts.error_points.size() < kMaxKeptErrorRows) counts.error_points.push_back(point);
    }
  }
  const bool eligible = ok && shown;
  if (eligible) {
    for (std::size_t x = 0; count && x < a.assertions.size(); ++x) {
      const auto& where = rules_.assertion_where[x].axis_value;
      if (!std::all_of(where.begin(), where.end(), [&](const auto& av) { return coords_[av.first] == av.second; })) continue;
      AssertionCount& ac = counts.assertions[x];
      ++ac.checked;
      const bool holds = formulas_->assertion_holds(x);
      if (holds) ++ac.holding;
      const bool example = a.assertions[x].require == Quantifier::all ? !holds : holds;
      if (example && !ac.has_example) {
        ac.has_example = true;
        ac.example_point = point;
      }
    }
    for (std::size_t j = 0; j < objective_values_.size(); ++j) {
      const std::size_t m = rules_.objective_index[j];
      const auto& where = rules_.objective_where[j];
      const bool selected = std::all_of(where.begin(), where.end(), [&](const auto& axis_values) {
        const auto& [ax, allowed] = axis_values;
        return std::find(allowed.begin(), allowed.end(), coords_[ax]) != allowed.end();
      });
      // A point the objective's `where` leaves out has no value of it (as in top_k_rows and the fronts).
      objective_values_[j] = !selected ? std::numeric_limits<double>::quiet_NaN()
                             : formulas_ ? formulas_->metric(m)
                                         : metrics[m];
    }
  }
  // Whether the point may enter the sample: below the keeper's bound and this chunk's own.
  std::optional<SampleKey> key;
  if (rules_.sample > 0) {
    const SampleKey k = sample_key(point, rules_.seed);
    const bool beats_kept = bounds_ == nullptr || !bounds_->sample_last || k < *bounds_->sample_last;
    if (beats_kept && (sampled_.size() < rules_.sample || k < sampled_.front().key)) key = k;
  }
  // Whether it may enter some objective's top k.
  bool ranks = false;
  if (eligible && rules_.top_k > 0) {
    for (std::size_t j = 0; j < objective_values_.size() && !ranks; ++j) {
      const double v = objective_values_[j];
      if (std::isnan(v)) continue;
      const Ranked ranked{rules_.directions[j] == Direction::maximize ? -v : v, point};
      const bool beats_kept = bounds_ == nullptr || !bounds_->top_k_last[j] || ranked < *bounds_->top_k_last[j];
      const Local local{ranked.first, point, 0};
      ranks = beats_kept && (best_[j].size() < rules_.top_k || local < best_[j].front());
    }
  }
  std::uint64_t group = 0;
  for (const std::size_t ax : rules_.group_axes) group = group * study_.axes[ax].values.size() + coords_[ax];
  const bool fronts = eligible && rules_.front && !dominated_by_kept_front(group);
  if (!key && !ranks && !fronts) return;

  const std::uint32_t index = add_candidate(point, group, eligible);
  if (fronts) group_members_[group].push_back(index);
  if (ranks) {
    for (std::size_t j = 0; j < objective_values_.size(); ++j) {
      const double v = objective_values_[j];
      if (std::isnan(v)) continue;
      const Local local{rules_.directions[j] == Direction::maximize ? -v : v, point, index};
      if (bounds_ != nullptr && bounds_->top_k_last[j] && !(Ranked{local.value, point} < *bounds_->top_k_last[j])) continue;
      std::vector<Local>& heap = best_[j];
      if (heap.size() < rules_.top_k) {
        heap.push_back(local);
        std::push_heap(heap.begin(), heap.end());
      } else if (local < heap.front()) {
        std::pop_heap(heap.begin(), heap.end());
        heap.back() = local;
        std::push_heap(heap.begin(), heap.end());
      }
    }
  }
  if (key) {
    const Sampled s{*key, index};
    if (sampled_.size() < rules_.sample) {
      sampled_.push_back(s);
      std::push_heap(sampled_.begin(), sampled_.end());
    } else {
      std::pop_heap(sampled_.begin(), sampled_.end());
      sampled_.back() = s;
      std::push_heap(sampled_.begin(), sampled_.end());
    }
  }
}

bool ChunkSelector::dominated_by_kept_front(std::uint64_t group) const {
  if (bounds_ == nullptr) return false;
  const auto it = bounds_->fronts.find(group);
  return it != bounds_->fronts.end() && it->second.dominates(objective_values_);
}

namespace {

double oriented(double v, Direction d) { return d == Direction::maximize ? -v : v; }

}  // namespace

void KeptFront::assign(std::span<const double> values, std::span<const Direction> directions) {
  directions_.assign(directions.begin(), directions.end());
  first_.clear();
  best_second_.clear();
  probes_.clear();
  const std::size_t k = directions.size();
  if (k == 0 || values.empty()) return;
  const std::size_t points = values.size() / k;
  if (k == 2) {
    std::vector<std::pair<double, double>> xy;
    xy.reserve(points);
    for (std::size_t p = 0; p < points; ++p) {
      xy.emplace_back(oriented(values[2 * p], directions[0]), oriented(values[2 * p + 1], directions[1]));
    }
    std::sort(xy.begin(), xy.end());
    for (const auto& [x, y] : xy) {
      first_.push_back(x);
      best_second_.push_back(best_second_.empty() ? y : std::min(best_second_.back(), y));
    }
    return;
  }
  const std::size_t probes = std::min(points, kFrontProbes);
  for (std::size_t i = 0; i < probes; ++i) {
    const std::size_t p = i * points / probes;
    for (std::size_t j = 0; j < k; ++j) probes_.push_back(oriented(values[p * k + j], directions[j]));
  }
}

bool KeptFront::dominates(std::span<const double> values) const {
  const std::size_t k = directions_.size();
  if (k == 0 || values.size() != k) return false;
  for (const double v : values) {
    if (std::isnan(v)) return false;  // the front leaves it out in any case
  }
  if (k == 2) {
    if (first_.empty()) return false;
    const double x = oriented(values[0], directions_[0]), y = oriented(values[1], directions_[1]);
    // A point no worse in x and better in y, or better in x and no worse in y.
    const auto no_worse = static_cast<std::size_t>(std::upper_bound(first_.begin(), first_.end(), x) - first_.begin());
    if (no_worse > 0 && best_second_[no_worse - 1] < y) return true;
    const auto better = static_cast<std::size_t>(std::lower_bound(first_.begin(), first_.end(), x) - first_.begin());
    return better > 0 && best_second_[better - 1] <= y;
  }
  for (std::size_t at = 0; at + k <= probes_.size(); at += k) {
    bool no_worse = true, better = false;
    for (std::size_t j = 0; j < k && no_worse; ++j) {
      const double a = probes_[at + j], b = oriented(values[j], directions_[j]);
      no_worse = a <= b;
      better = better || a < b;
    }
    if (no_worse && better) return true;
  }
  return false;
}

void ChunkSelector::finish(std::uint64_t end) {
  ChunkSelection& out = *out_;
  out.counts.points_done = end;
  chosen_.assign(cand_points_.size(), 0);
  const std::size_t k = objective_values_.size();
  for (auto& [group, members] : group_members_) {
    if (members.empty()) continue;
    group_values_.clear();
    for (const std::uint32_t c : members) {
      group_values_.insert(group_values_.end(), cand_values_.begin() + static_cast<std::ptrdiff_t>(c * k),
                           cand_values_.begin() + static_cast<std::ptrdiff_t>((c + 1) * k));
    }
    for (const std::size_t n : pareto_front(group_values_, rules_.directions)) chosen_[members[n]] = 1;
  }
  for (const auto& heap : best_) {
    for (const Local& l : heap) chosen_[l.candidate] = 1;
  }
  for (const Sampled& s : sampled_) chosen_[s.candidate] = 1;
  for (std::size_t c = 0; c < cand_points_.size(); ++c) {
    if (chosen_[c] == 0) continue;
    out.points.push_back(cand_points_[c]);
    out.eligible.push_back(cand_eligible_[c]);
    out.groups.push_back(cand_groups_[c]);
    out.values.insert(out.values.end(), cand_values_.begin() + static_cast<std::ptrdiff_t>(c * k),
                      cand_values_.begin() + static_cast<std::ptrdiff_t>((c + 1) * k));
  }
}

}  // namespace dsx::retention
