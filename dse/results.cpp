#include "dse/results.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace dsx {

namespace {

int find_column(const std::vector<std::string>& names, std::string_view name) {
  const auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}

}  // namespace

void ResultTable::append_metric_columns(std::span<const std::string> names) {
  const std::size_t from = metric_names.size(), to = from + names.size(), n = rows();
  if (metrics.size() != n * from) throw std::logic_error("ResultTable: metrics disagree with rows x columns");
  metrics.resize(n * to, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t r = n; r-- > 0;) {
    const auto source = metrics.begin() + static_cast<std::ptrdiff_t>(r * from);
    const auto target_end = metrics.begin() + static_cast<std::ptrdiff_t>(r * to + from);
    std::copy_backward(source, source + static_cast<std::ptrdiff_t>(from), target_end);
    std::fill(target_end, target_end + static_cast<std::ptrdiff_t>(to - from), std::numeric_limits<double>::quiet_NaN());
  }
  metric_names.insert(metric_names.end(), names.begin(), names.end());
}

void ResultTable::keep_metric_columns(std::span<const std::size_t> keep) {
  const std::size_t from = metric_names.size(), to = keep.size(), n = rows();
  if (metrics.size() != n * from) throw std::logic_error("ResultTable: metrics disagree with rows x columns");
  for (std::size_t i = 0; i < to; ++i) {
    if (keep[i] >= from || (i > 0 && keep[i] <= keep[i - 1])) {
      throw std::logic_error("ResultTable: columns to keep must be ascending column indices");
    }
  }
  // Row r's kept values land at or before where they were read: a forward pass never overwrites
  // a value it has still to read.
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t i = 0; i < to; ++i) metrics[r * to + i] = metrics[r * from + keep[i]];
  }
  metrics.resize(n * to);
  std::vector<std::string> names;
  names.reserve(to);
  for (const std::size_t c : keep) names.push_back(std::move(metric_names[c]));
  metric_names = std::move(names);
}

int ResultTable::axis_column(std::string_view name) const { return find_column(axis_names, name); }

int ResultTable::metric_column(std::string_view name) const { return find_column(metric_names, name); }

std::string_view status_name(PointStatus s) {
  switch (s) {
    case PointStatus::ok: return "ok";
    case PointStatus::infeasible: return "infeasible";
    case PointStatus::error: return "error";
  }
  throw std::logic_error("status_name: invalid PointStatus value " +
                         std::to_string(static_cast<int>(s)));
}

}  // namespace dsx
