// The rows a sweep produced, in point-index order, as the store and the outputs see them.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/solver.hpp"

namespace dsx {

struct ResultTable {
  std::vector<std::string> axis_names;    // columns identifying a point
  std::vector<std::string> metric_names;  // metric columns
  std::vector<std::string> reasons;       // infeasibility reason texts (solver->reasons())

  std::vector<std::uint64_t> point_index;    // row -> grid point index
  std::vector<std::string> axis_labels;      // row-major: rows x axis_names.size()
  std::vector<PointStatus> status;
  std::vector<std::string> status_detail;    // reason text or error message; "" when ok
  std::vector<double> metrics;               // row-major: rows x metric_names.size()

  std::size_t rows() const { return point_index.size(); }
  // Drops every row and keeps the columns and the vectors' capacity, so a table refilled block
  // after block stops allocating once it has held its largest block.
  void clear_rows() {
    point_index.clear();
    axis_labels.clear();
    status.clear();
    status_detail.clear();
    metrics.clear();
  }
  double metric(std::size_t row, std::size_t m) const { return metrics[row * metric_names.size() + m]; }
  const std::string& label(std::size_t row, std::size_t a) const {
    return axis_labels[row * axis_names.size() + a];
  }
  // Adds metric columns after the existing ones, NaN in every row. The rows are widened in place,
  // last row first, so a table whose `metrics` vector already has the capacity (see
  // ResultStore::read_results) is never held twice.
  void append_metric_columns(std::span<const std::string> names);
  // Keeps only the metric columns `keep` (ascending column indices), in place, first row first.
  void keep_metric_columns(std::span<const std::size_t> keep);
  int axis_column(std::string_view name) const;    // -1 when absent
  int metric_column(std::string_view name) const;  // -1 when absent
};

std::string_view status_name(PointStatus s);

// A solver parameter a study does not sweep, with its value as written (or the default or calibrated
// value it took): the same for every row (dse/study.hpp fixed_inputs).
struct FixedInput {
  std::string name;
  std::string label;
};

}  // namespace dsx
