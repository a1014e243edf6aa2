#include "output/csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace dsx {

namespace {

void append_header(std::string& out, const ResultTable& t, std::span<const FixedInput> fixed) {
  out += "point_index";
  for (const auto& a : t.axis_names) {
    out += ',';
    append_csv_field(out, a);
  }
  for (const FixedInput& f : fixed) {
    out += ',';
    append_csv_field(out, f.name);
  }
  out += ",status,detail";
  for (const auto& m : t.metric_names) {
    out += ',';
    append_csv_field(out, m);
  }
  out += '\n';
}

// The fixed inputs' fields with their leading commas: the same text in every row.
std::string fixed_fields(std::span<const FixedInput> fixed) {
  std::string out;
  for (const FixedInput& f : fixed) {
    out += ',';
    append_csv_field(out, f.label);
  }
  return out;
}

void append_row(std::string& out, const ResultTable& t, std::size_t row, std::string_view fixed) {
  char buf[32];
  const auto end = fmt::format_to(buf, "{}", t.point_index[row]);
  out.append(buf, end);
  for (std::size_t a = 0; a < t.axis_names.size(); ++a) {
    out += ',';
    append_csv_field(out, t.label(row, a));
  }
  out += fixed;
  out += ',';
  out += status_name(t.status[row]);
  out += ',';
  append_csv_field(out, t.detail(row));
  for (std::size_t m = 0; m < t.metric_names.size(); ++m) {
    out += ',';
    append_csv_number(out, t.metric(row, m));
  }
  out += '\n';
}

void check_shape(const ResultTable& t) {
  if (!t.columns_agree()) {
    throw std::logic_error("csv: ResultTable vectors disagree in length");
  }
}

// A rough size guess that avoids most reallocations of a large export.
void reserve_for(std::string& out, const ResultTable& t, std::size_t rows, std::size_t fixed_bytes) {
  out.reserve(64 + rows * (16 + fixed_bytes + 12 * (t.axis_names.size() + t.metric_names.size())));
}

}  // namespace

void append_csv_field(std::string& out, std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    out += field;
    return;
  }
  out += '"';
  for (const char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

void append_csv_number(std::string& out, double value) {
  if (std::isnan(value)) return;
  if (value == 0) value = 0.0;  // drops the sign of -0.0
  char buf[64];
  const auto end = fmt::format_to(buf, "{}", value);
  out.append(buf, end);
}

std::string results_csv(const ResultTable& table, std::span<const std::size_t> rows,
                        std::span<const FixedInput> fixed) {
  check_shape(table);
  for (const std::size_t r : rows) {
    if (r >= table.rows()) throw std::invalid_argument("csv: row " + std::to_string(r) + " is not in the table");
  }
  const std::string fixed_text = fixed_fields(fixed);
  std::string out;
  reserve_for(out, table, rows.size(), fixed_text.size());
  append_header(out, table, fixed);
  for (const std::size_t r : rows) append_row(out, table, r, fixed_text);
  return out;
}

void results_csv_pieces(const ResultTable& table, std::span<const FixedInput> fixed,
                        const std::function<void(std::string_view)>& sink, std::size_t piece_bytes, bool header) {
  check_shape(table);
  const std::string fixed_text = fixed_fields(fixed);
  std::string piece;
  piece.reserve(piece_bytes + 4096);
  if (header) append_header(piece, table, fixed);
  for (std::size_t r = 0; r < table.rows(); ++r) {
    append_row(piece, table, r, fixed_text);
    if (piece.size() >= piece_bytes) {
      sink(piece);
      piece.clear();
    }
  }
  if (!piece.empty()) sink(piece);
}

std::string results_csv(const ResultTable& table, std::span<const FixedInput> fixed) {
  std::string out;
  reserve_for(out, table, table.rows(), fixed_fields(fixed).size());
  results_csv_pieces(table, fixed, [&out](std::string_view piece) { out += piece; }, 1 << 16);
  return out;
}

std::string pareto_csv(const ResultTable& table, std::span<const std::size_t> front_rows) {
  std::vector<std::size_t> rows(front_rows.begin(), front_rows.end());
  std::sort(rows.begin(), rows.end());
  return results_csv(table, rows);
}

}  // namespace dsx
