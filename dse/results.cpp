#include "dse/results.hpp"

#include <algorithm>
#include <stdexcept>

namespace dsx {

namespace {

int find_column(const std::vector<std::string>& names, std::string_view name) {
  const auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}

}  // namespace

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
