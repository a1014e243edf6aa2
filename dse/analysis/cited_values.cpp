#include "dse/analysis/cited_values.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>

#include "dse/analysis/blocks.hpp"
#include "dse/analysis/derived.hpp"
#include "engine/units.hpp"

namespace dsx {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::optional<std::size_t> one_row(const ResultTable& rows, const std::vector<Selector>& where) {
  std::optional<std::size_t> match;
  for (std::size_t r = 0; r < rows.rows(); ++r) {
    if (!selects(rows, r, where)) continue;
    if (match) return std::nullopt;
    match = r;
  }
  return match;
}

bool holds(const CitedCondition& c, const ResultTable& rows, std::size_t r, const std::vector<std::uint64_t>& shown) {
  using Kind = CitedCondition::Kind;
  switch (c.kind) {
    case Kind::feasible: return rows.status[r] == PointStatus::ok;
    case Kind::infeasible: return rows.status[r] == PointStatus::infeasible;
    case Kind::error: return rows.status[r] == PointStatus::error;
    case Kind::filters: return std::binary_search(shown.begin(), shown.end(), rows.point_index[r]);
    case Kind::compare: break;
  }
  if (rows.status[r] != PointStatus::ok) return false;
  const double x = rows.metric(r, rows.require_metric_column(c.metric));
  switch (c.op) {
    case CitedCondition::Op::less: return x < c.threshold;
    case CitedCondition::Op::less_equal: return x <= c.threshold;
    case CitedCondition::Op::greater: return x > c.threshold;
    case CitedCondition::Op::greater_equal: return x >= c.threshold;
  }
  return false;
}

std::string metric_unit(const ResolvedStudy& study, const std::string& metric) {
  const auto m = find_study_metric(study, metric);
  if (!m) throw std::logic_error("values: '" + metric + "' is no metric of the study");
  return std::string(si_unit(m->dimension));
}

std::string conditions_text(const CitedValue& v) {
  std::string out;
  for (const CitedCondition& c : v.when) out += (out.empty() ? "'" : ", '") + c.text + "'";
  return out;
}

ComputedValue aggregate(const ResolvedStudy& study, const ResultTable& rows, const ResultTable& shown, const CitedValue& v) {
  ComputedValue out;
  out.kind = v.aggregate == CitedAggregate::count ? CitedKind::count
             : v.aggregate == CitedAggregate::min ? CitedKind::min
             : v.aggregate == CitedAggregate::max ? CitedKind::max
                                                  : CitedKind::sum;
  std::vector<std::uint64_t> shown_points;
  if (std::any_of(v.when.begin(), v.when.end(), [](const CitedCondition& c) { return c.kind == CitedCondition::Kind::filters; })) {
    shown_points = shown.point_index;
    std::sort(shown_points.begin(), shown_points.end());
  }
  const bool count = v.aggregate == CitedAggregate::count;
  const std::size_t col = count ? 0 : rows.require_metric_column(v.metric);
  int axis = -1;
  if (count && v.count_of != "rows") {
    axis = rows.axis_column(v.count_of);
    if (axis < 0) throw std::logic_error("values: '" + v.name + "' counts '" + v.count_of + "', not an axis of the results");
  }
  std::size_t selected = 0;  // rows where: selects and each when: condition holds
  std::size_t with_metric = 0;
  std::set<std::string> distinct;
  double total = 0;
  double lowest = HUGE_VAL, highest = -HUGE_VAL;
  for (std::size_t r = 0; r < rows.rows(); ++r) {
    if (!selects(rows, r, v.where)) continue;
    if (!std::all_of(v.when.begin(), v.when.end(), [&](const CitedCondition& c) { return holds(c, rows, r, shown_points); })) {
      continue;
    }
    ++selected;
    if (count) {
      if (axis >= 0) distinct.insert(rows.label(r, static_cast<std::size_t>(axis)));
      continue;
    }
    // A row without the metric (infeasible, or a metric it does not have) adds nothing.
    const double x = rows.status[r] == PointStatus::ok ? rows.metric(r, col) : kNaN;
    if (std::isnan(x)) continue;
    ++with_metric;
    total += x;
    lowest = std::min(lowest, x);
    highest = std::max(highest, x);
  }
  out.rows_read = selected;
  if (count) {
    out.value = static_cast<double>(axis >= 0 ? distinct.size() : selected);
    return out;
  }
  out.unit = metric_unit(study, v.metric);
  if (with_metric == 0) {
    out.value = kNaN;
    out.missing = "n/a";
    const std::string what = std::string(cited_kind_name(out.kind)) + " of " + v.metric;
    if (selected == 0 && !v.when.empty()) {
      out.warning = "values: '" + v.name + "' (the " + what + ") reads no row: none that its where: selects meets " +
                    conditions_text(v) + "; the report prints n/a";
    } else if (selected == 0) {
      out.warning = "values: '" + v.name + "' (the " + what + ") reads no row: its where: selects none; the report prints n/a";
    } else {
      out.warning = "values: '" + v.name + "' (the " + what + ") reads " + std::to_string(selected) +
                    (selected == 1 ? " row" : " rows") + ", none of them feasible with a value of " + v.metric +
                    "; the report prints n/a";
    }
    return out;
  }
  out.value = v.aggregate == CitedAggregate::min ? lowest : v.aggregate == CitedAggregate::max ? highest : total;
  return out;
}

// The second point's value b against the first's a, as `as:` reads it.
double relative(double a, double b, CitedAs as) {
  switch (as) {
    case CitedAs::percent: return (a - b) / std::fabs(b) * 100.0;
    case CitedAs::percent_less: return (b - a) / std::fabs(b) * 100.0;
    case CitedAs::percent_of: return a / b * 100.0;
    case CitedAs::metric: break;
  }
  throw std::logic_error("relative: a value read in the metric's own way");
}

ComputedValue two_points(const ResolvedStudy& study, const ResultTable& rows, const CitedValue& v) {
  ComputedValue out;
  out.kind = !v.over.empty() ? CitedKind::ratio : !v.minus.empty() ? CitedKind::minus : CitedKind::point;
  out.unit = v.as != CitedAs::metric ? "%" : out.kind == CitedKind::ratio ? "" : metric_unit(study, v.metric);
  out.value = kNaN;
  const std::size_t col = rows.require_metric_column(v.metric);
  // A missing point (only where keep: dropped it; the loader requires one) or an infeasible one.
  const auto read = [&](const std::vector<Selector>& where) -> std::optional<double> {
    const std::optional<std::size_t> r = one_row(rows, where);
    if (!r) {
      out.missing = "n/a";
      return std::nullopt;
    }
    ++out.rows_read;
    if (rows.status[*r] != PointStatus::ok) {
      out.missing = std::string(status_name(rows.status[*r]));
      return std::nullopt;
    }
    return rows.metric(*r, col);
  };
  const std::optional<double> a = read(v.where);
  if (!a) return out;
  if (out.kind == CitedKind::point) {
    out.value = *a;
    return out;
  }
  const std::optional<double> b = read(out.kind == CitedKind::ratio ? v.over : v.minus);
  if (!b) return out;
  out.value = v.as != CitedAs::metric ? relative(*a, *b, v.as) : out.kind == CitedKind::ratio ? *a / *b : *a - *b;
  return out;
}

}  // namespace

std::string_view cited_kind_name(CitedKind kind) {
  switch (kind) {
    case CitedKind::point: return "point";
    case CitedKind::ratio: return "ratio";
    case CitedKind::minus: return "minus";
    case CitedKind::count: return "count";
    case CitedKind::min: return "min";
    case CitedKind::max: return "max";
    case CitedKind::sum: return "sum";
  }
  return "point";
}

std::vector<ComputedValue> compute_cited_values(const ResolvedStudy& study, const ResultTable& rows,
                                                const ResultTable& shown) {
  std::vector<ComputedValue> out;
  out.reserve(study.values.size());
  for (const CitedValue& v : study.values) {
    ComputedValue c = v.aggregate != CitedAggregate::none ? aggregate(study, rows, shown, v) : two_points(study, rows, v);
    c.entry = &v;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace dsx
