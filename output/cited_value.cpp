#include "output/cited_value.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <stdexcept>
#include <vector>

#include "output/analysis_text.hpp"
#include "output/figures.hpp"
#include "output/format.hpp"

namespace dsx {

namespace {

using analysis_text::metric_display;

std::optional<std::size_t> one_row(const ResolvedStudy& study, const ResultTable& rows, const std::vector<Selector>& where) {
  std::optional<std::size_t> match;
  for (std::size_t r = 0; r < rows.rows(); ++r) {
    if (!row_matches(where, study, rows, r)) continue;
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

std::string aggregate(const ResolvedStudy& study, const ResultTable& rows, const ResultTable& shown, const CitedValue& v) {
  std::vector<std::uint64_t> shown_points;
  for (const CitedCondition& c : v.when) {
    if (c.kind == CitedCondition::Kind::filters && shown_points.empty()) {
      shown_points = shown.point_index;
      std::sort(shown_points.begin(), shown_points.end());
    }
  }
  const std::optional<std::size_t> col =
      v.aggregate == CitedAggregate::count ? std::nullopt : std::optional<std::size_t>(rows.require_metric_column(v.metric));
  int axis = -1;
  if (v.aggregate == CitedAggregate::count && v.count_of != "rows") {
    axis = rows.axis_column(v.count_of);
    if (axis < 0) throw std::logic_error("values: '" + v.name + "' counts '" + v.count_of + "', not an axis of the results");
  }
  std::size_t count = 0;
  std::set<std::string> distinct;
  double total = 0;
  std::optional<double> lowest, highest;
  for (std::size_t r = 0; r < rows.rows(); ++r) {
    if (!row_matches(v.where, study, rows, r)) continue;
    if (!std::all_of(v.when.begin(), v.when.end(), [&](const CitedCondition& c) { return holds(c, rows, r, shown_points); })) {
      continue;
    }
    if (!col) {
      if (axis >= 0) distinct.insert(rows.label(r, static_cast<std::size_t>(axis)));
      ++count;
      continue;
    }
    // A row without the metric (infeasible, or a metric it does not have) adds nothing.
    const double x = rows.status[r] == PointStatus::ok ? rows.metric(r, *col) : NAN;
    if (std::isnan(x)) continue;
    ++count;
    total += x;
    lowest = lowest ? std::min(*lowest, x) : x;
    highest = highest ? std::max(*highest, x) : x;
  }
  if (!col) return format_grouped(static_cast<double>(axis >= 0 ? distinct.size() : count), 15);
  if (count == 0) return "n/a";
  const double value = v.aggregate == CitedAggregate::min ? *lowest : v.aggregate == CitedAggregate::max ? *highest : total;
  return format_quantity(value, metric_display(study, v.metric));
}

}  // namespace

std::string cited_value(const ResolvedStudy& study, const ResultTable& rows, const ResultTable& shown,
                        const CitedValue& v) {
  if (v.aggregate != CitedAggregate::none) return aggregate(study, rows, shown, v);
  const std::size_t col = rows.require_metric_column(v.metric);
  const std::optional<std::size_t> match = one_row(study, rows, v.where);
  if (!match) return "n/a";
  if (rows.status[*match] != PointStatus::ok) return std::string(status_name(rows.status[*match]));
  const double value = rows.metric(*match, col);
  const std::vector<Selector>& second = v.over.empty() ? v.minus : v.over;
  if (second.empty()) return format_quantity(value, metric_display(study, v.metric));
  const std::optional<std::size_t> other = one_row(study, rows, second);
  if (!other) return "n/a";
  if (rows.status[*other] != PointStatus::ok) return std::string(status_name(rows.status[*other]));
  if (!v.over.empty()) return format_grouped(value / rows.metric(*other, col));
  return format_quantity(value - rows.metric(*other, col), metric_display(study, v.metric));
}

}  // namespace dsx
