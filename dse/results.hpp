// The rows a sweep produced, in point-index order, as the store and the outputs see them.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "dse/code_column.hpp"
#include "engine/solver.hpp"

namespace dsx {

// Texts that repeat from row to row (an axis's labels, infeasibility reasons), each held once: a row
// holds a code. A sweep's axis has few values and its reasons few texts, so a row costs a few bytes
// where a std::string would cost 32 and its heap block.
class TextDictionary {
 public:
  // The code of `text`, added when it is new. No allocation when it is already held.
  std::uint32_t code(std::string_view text);
  // Adds `text` as the next code even when it is already held (code() then finds the first):
  // codes that follow an order of the caller's, such as an axis's values.
  std::uint32_t push(std::string_view text);
  const std::string& text(std::uint32_t code) const { return texts_[code]; }
  std::size_t size() const { return texts_.size(); }
  void clear();
  // Bytes held (texts, their heap blocks, the index), for tests of a table's memory.
  std::size_t heap_bytes() const;

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> texts_;
  std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> codes_;
};

struct ResultTable {
  std::vector<std::string> axis_names;    // columns identifying a point
  std::vector<std::string> metric_names;  // metric columns
  std::vector<std::string> reasons;       // infeasibility reason texts (solver->reasons())

  std::vector<std::uint64_t> point_index;    // row -> grid point index
  std::vector<TextDictionary> axis_texts;    // per axis: the texts of its codes
  std::vector<CodeColumn> axis_codes;        // per axis: a code a row into axis_texts (axis_code_column)
  std::vector<PointStatus> status;
  TextDictionary detail_texts;
  CodeColumn detail_codes;                   // per row: reason text or error message; "" when ok
  std::vector<double> metrics;               // row-major: rows x metric_names.size()

  std::size_t rows() const { return point_index.size(); }
  // Whether every column holds rows() entries (axis_texts a dictionary per axis once there are rows).
  bool columns_agree() const;
  // Drops every row and keeps the columns, the axes' texts and the vectors' capacity, so a table
  // refilled block after block stops allocating once it has held its largest block. The detail
  // texts are kept too unless they have grown past kKeptDetailTexts (error messages that name
  // their point).
  static constexpr std::size_t kKeptDetailTexts = 4096;
  void clear_rows();
  double metric(std::size_t row, std::size_t m) const { return metrics[row * metric_names.size() + m]; }
  std::uint32_t axis_code(std::size_t row, std::size_t a) const { return axis_codes[a][row]; }
  const std::string& label(std::size_t row, std::size_t a) const { return axis_texts[a].text(axis_codes[a][row]); }
  const std::string& detail(std::size_t row) const { return detail_texts.text(detail_codes[row]); }
  // The next row's label of the next axis (a row's axes in order).
  void push_label(std::string_view text);
  void push_labels(std::initializer_list<std::string_view> texts);
  // A row's labels, every axis's, as codes of the axes' texts (the sweep's own axes).
  void push_label_codes(std::span<const std::uint32_t> codes);
  void push_detail(std::string_view text);
  void set_detail(std::size_t row, std::string_view text) { detail_codes.set(row, detail_code(text)); }
  std::uint32_t detail_code(std::string_view text);
  TextDictionary& axis_dictionary(std::size_t a);
  // Axis a's codes, the columns made when the table has none yet.
  CodeColumn& axis_code_column(std::size_t a);
  // The axis the next pushed label belongs to: the first whose column is shorter than the first
  // axis's, else the first.
  std::size_t next_label_axis() const;
  // Appends row `row` of `from`, whose axes and metric columns are this table's.
  void append_row(const ResultTable& from, std::size_t row);
  // Appends every row of `from` (same columns).
  void append_rows(const ResultTable& from);
  // Bytes the table's row vectors and dictionaries hold (capacities, not sizes).
  std::size_t heap_bytes() const;
  // Adds metric columns after the existing ones, NaN in every row. The rows are widened in place,
  // last row first, so a table whose `metrics` vector already has the capacity (see
  // ResultStore::read_results) is never held twice.
  void append_metric_columns(std::span<const std::string> names);
  // Keeps only the metric columns `keep` (ascending column indices), in place, first row first.
  void keep_metric_columns(std::span<const std::size_t> keep);
  int axis_column(std::string_view name) const;    // -1 when absent
  int metric_column(std::string_view name) const;  // -1 when absent
  // The column of a metric the caller must find: one the study reads, which the table was loaded with
  // (dse/analysis/report_columns.hpp). Throws std::logic_error naming it and the columns held.
  std::size_t require_metric_column(std::string_view name) const;
};

std::string_view status_name(PointStatus s);

// A solver parameter a study does not sweep, with its value as written (or the default or calibrated
// value it took): the same for every row (dse/study.hpp fixed_inputs).
struct FixedInput {
  std::string name;
  std::string label;
};

}  // namespace dsx
