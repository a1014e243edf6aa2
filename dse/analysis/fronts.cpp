#include "dse/analysis/fronts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <span>
#include <stdexcept>

#include "dse/analysis/derived.hpp"

namespace dsx {

namespace {

// The objective value on a log scale where smaller is better; NaN when it cannot be boxed.
double oriented_log(double v, Direction d) {
  if (!(v > 0) || !std::isfinite(v)) return std::numeric_limits<double>::quiet_NaN();
  return d == Direction::minimize ? std::log(v) : -std::log(v);
}

}  // namespace

std::vector<std::size_t> epsilon_thin(std::span<const double> values, std::span<const Direction> directions,
                                      std::span<const std::size_t> front_rows, std::span<const double> epsilon) {
  const std::size_t k = directions.size();
  if (k == 0 || epsilon.size() != k) throw std::invalid_argument("epsilon_thin: one epsilon per objective");
  for (double e : epsilon) {
    if (!(e > 0) || !std::isfinite(e)) throw std::invalid_argument("epsilon_thin: each epsilon must be > 0");
  }
  struct Boxed {
    std::size_t row;
    std::vector<std::int64_t> box;
    double distance;
  };
  std::vector<Boxed> boxed;
  std::vector<std::size_t> kept;
  for (const std::size_t r : front_rows) {
    if ((r + 1) * k > values.size()) throw std::invalid_argument("epsilon_thin: row out of range");
    Boxed b{r, std::vector<std::int64_t>(k), 0};
    bool boxable = true;
    for (std::size_t i = 0; i < k; ++i) {
      const double w = std::log1p(epsilon[i]);
      const double x = oriented_log(values[r * k + i], directions[i]) / w;
      if (std::isnan(x)) {
        boxable = false;
        break;
      }
      const double f = std::floor(x);
      b.box[i] = static_cast<std::int64_t>(f);
      b.distance += x - f;
    }
    if (boxable) {
      boxed.push_back(std::move(b));
    } else {
      kept.push_back(r);
    }
  }
  // Boxes dominated by another front row's box go.
  const auto dominates = [&](const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
    bool strictly = false;
    for (std::size_t i = 0; i < k; ++i) {
      if (a[i] > b[i]) return false;
      strictly = strictly || a[i] < b[i];
    }
    return strictly;
  };
  std::map<std::vector<std::int64_t>, std::size_t> best_in_box;  // box -> index into boxed
  for (std::size_t i = 0; i < boxed.size(); ++i) {
    auto [it, inserted] = best_in_box.emplace(boxed[i].box, i);
    if (!inserted) {
      const Boxed& held = boxed[it->second];
      const Boxed& b = boxed[i];
      if (b.distance < held.distance || (b.distance == held.distance && b.row < held.row)) it->second = i;
    }
  }
  std::vector<const std::vector<std::int64_t>*> boxes;
  for (const auto& [box, index] : best_in_box) boxes.push_back(&box);
  for (const auto& entry : best_in_box) {
    const std::vector<std::int64_t>& box = entry.first;
    const bool dominated = std::any_of(boxes.begin(), boxes.end(), [&](const auto* other) { return dominates(*other, box); });
    if (!dominated) kept.push_back(boxed[entry.second].row);
  }
  std::sort(kept.begin(), kept.end());
  return kept;
}

ParetoFronts study_fronts(const ResolvedStudy& study, const ResultTable& table) {
  ParetoFronts out;
  const ParetoOptions& opt = analyses_of(study).pareto;
  out.grouped = !opt.group.empty();
  out.thinned = !opt.epsilon.empty();
  const std::size_t k = study.objectives.size();
  if (k < 2) return out;
  std::vector<std::size_t> cols;
  std::vector<Direction> dirs;
  for (const Objective& o : study.objectives) {
    const int c = table.metric_column(o.metric);
    if (c < 0) throw std::invalid_argument("Pareto front: the results have no metric '" + o.metric + "'");
    cols.push_back(static_cast<std::size_t>(c));
    dirs.push_back(o.direction);
  }
  // Group of each row: positions of its labels along the group axes (study order of values), as
  // one mixed-radix number (a label not among the axis's values takes the last digit, after them).
  std::vector<std::size_t> group_cols;
  std::vector<const Axis*> group_axes;
  std::vector<std::vector<std::uint64_t>> position_of_code;  // per group axis: label code -> position
  for (const std::string& g : opt.group) {
    const int c = table.axis_column(g);
    const auto axis = std::find_if(study.axes.begin(), study.axes.end(), [&](const Axis& a) { return a.param == g; });
    if (c < 0 || axis == study.axes.end()) throw std::invalid_argument("Pareto front: '" + g + "' is not an axis of the results");
    group_cols.push_back(static_cast<std::size_t>(c));
    group_axes.push_back(&*axis);
    const TextDictionary& texts = table.axis_texts[static_cast<std::size_t>(c)];
    const auto& vals = axis->values;
    std::vector<std::uint64_t>& positions = position_of_code.emplace_back(texts.size());
    for (std::uint32_t code = 0; code < texts.size(); ++code) {
      const auto it = std::find_if(vals.begin(), vals.end(), [&](const AxisValue& v) { return v.label == texts.text(code); });
      positions[code] = static_cast<std::uint64_t>(it - vals.begin());
    }
  }
  std::uint64_t combinations = 1;
  for (const Axis* a : group_axes) {
    if (combinations > std::numeric_limits<std::uint64_t>::max() / (a->values.size() + 1)) {
      throw std::length_error("Pareto front: more label combinations than a 64-bit group key holds");
    }
    combinations *= a->values.size() + 1;
  }
  const std::size_t rows = table.rows();
  if (rows > std::numeric_limits<std::uint32_t>::max()) throw std::length_error("Pareto front: more rows than 32-bit row numbers hold");
  const auto group_key = [&](std::size_t r) {
    std::uint64_t key = 0;
    for (std::size_t g = 0; g < group_cols.size(); ++g) {
      key = key * (group_axes[g]->values.size() + 1) + position_of_code[g][table.axis_code(r, group_cols[g])];
    }
    return key;
  };
  // The groups in key order with their feasible rows' count, then the feasible rows of every group
  // one after the other (4 bytes a row): a group holds only its own rows' objective values at a time.
  std::map<std::uint64_t, std::size_t> group_of_key;
  for (std::size_t r = 0; r < rows; ++r) {
    const auto it = group_of_key.emplace(group_key(r), 0).first;
    if (table.status[r] == PointStatus::ok) ++it->second;
  }
  std::vector<std::size_t> group_begin;
  std::size_t feasible = 0;
  for (auto& [key, count] : group_of_key) {
    group_begin.push_back(feasible);
    feasible += count;
    count = group_begin.size() - 1;  // from here on: the group's ordinal
  }
  group_begin.push_back(feasible);
  std::vector<std::uint32_t> grouped_rows(feasible);
  {
    std::vector<std::size_t> next(group_begin.begin(), group_begin.end() - 1);
    for (std::size_t r = 0; r < rows; ++r) {
      if (table.status[r] == PointStatus::ok) grouped_rows[next[group_of_key.at(group_key(r))]++] = static_cast<std::uint32_t>(r);
    }
  }
  std::vector<double> sub;
  for (const auto& [key, ordinal] : group_of_key) {
    const std::span<const std::uint32_t> list(grouped_rows.data() + group_begin[ordinal],
                                              group_begin[ordinal + 1] - group_begin[ordinal]);
    ParetoGroup group;
    std::uint64_t rest = key;
    for (std::size_t g = group_axes.size(); g-- > 0;) {
      const auto& vals = group_axes[g]->values;
      const std::uint64_t position = rest % (vals.size() + 1);
      rest /= vals.size() + 1;
      group.labels.insert(group.labels.begin(), {group_axes[g]->param, position < vals.size() ? vals[position].label : ""});
    }
    group.feasible_rows = list.size();
    sub.resize(list.size() * k);
    for (std::size_t n = 0; n < list.size(); ++n) {
      for (std::size_t i = 0; i < k; ++i) {
        // A row an objective's `where` leaves out has no value of it, so the front leaves it out.
        sub[n * k + i] = selects(table, list[n], study.objectives[i].where) ? table.metric(list[n], cols[i])
                                                                            : std::numeric_limits<double>::quiet_NaN();
      }
    }
    std::vector<std::size_t> front = pareto_front(sub, dirs);
    group.exact_size = front.size();
    if (out.thinned) {
      std::vector<double> eps = opt.epsilon;
      if (eps.size() == 1) eps.assign(k, eps.front());
      front = epsilon_thin(sub, dirs, front, eps);
    }
    if (k == 2 && front.size() >= 3) {
      group.knee = knee_point(sub, dirs, front);
      if (group.knee) group.knee->row = list[group.knee->row];
    }
    for (std::size_t& f : front) f = list[f];
    group.front = std::move(front);
    out.rows.insert(out.rows.end(), group.front.begin(), group.front.end());
    out.groups.push_back(std::move(group));
  }
  std::sort(out.rows.begin(), out.rows.end());
  return out;
}

}  // namespace dsx
