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

std::uint32_t TextDictionary::code(std::string_view text) {
  const auto it = codes_.find(text);
  if (it != codes_.end()) return it->second;
  return push(text);
}

std::uint32_t TextDictionary::push(std::string_view text) {
  if (texts_.size() >= std::numeric_limits<std::uint32_t>::max()) throw std::length_error("TextDictionary: too many texts");
  const auto c = static_cast<std::uint32_t>(texts_.size());
  texts_.emplace_back(text);
  codes_.try_emplace(std::string(text), c);
  return c;
}

void TextDictionary::clear() {
  texts_.clear();
  codes_.clear();
}

std::size_t TextDictionary::heap_bytes() const {
  const auto string_heap = [](const std::string& s) { return s.capacity() > 15 ? s.capacity() + 1 : 0; };
  std::size_t bytes = texts_.capacity() * sizeof(std::string) + codes_.bucket_count() * sizeof(void*);
  for (const std::string& t : texts_) bytes += string_heap(t);
  for (const auto& [t, c] : codes_) bytes += sizeof(std::pair<const std::string, std::uint32_t>) + 2 * sizeof(void*) + string_heap(t);
  return bytes;
}

bool ResultTable::columns_agree() const {
  const std::size_t n = rows();
  const std::size_t A = axis_names.size();
  for (std::size_t a = 0; a < A; ++a) {
    if ((a < axis_codes.size() ? axis_codes[a].size() : 0) != n) return false;
  }
  return axis_codes.size() <= A && status.size() == n && detail_codes.size() == n &&
         metrics.size() == n * metric_names.size() && (n == 0 || axis_texts.size() >= A);
}

void ResultTable::clear_rows() {
  point_index.clear();
  for (CodeColumn& c : axis_codes) c.clear();
  status.clear();
  detail_codes.clear();
  metrics.clear();
  if (detail_texts.size() > kKeptDetailTexts) detail_texts.clear();
}

TextDictionary& ResultTable::axis_dictionary(std::size_t a) {
  if (axis_texts.size() <= a) axis_texts.resize(std::max(a + 1, axis_names.size()));
  return axis_texts[a];
}

CodeColumn& ResultTable::axis_code_column(std::size_t a) {
  if (axis_codes.size() <= a) axis_codes.resize(std::max(a + 1, axis_names.size()));
  return axis_codes[a];
}

std::size_t ResultTable::next_label_axis() const {
  if (axis_names.empty()) throw std::logic_error("ResultTable: a label for a table without axes");
  const auto length = [this](std::size_t a) { return a < axis_codes.size() ? axis_codes[a].size() : 0; };
  for (std::size_t a = 1; a < axis_names.size(); ++a) {
    if (length(a) < length(0)) return a;
  }
  return 0;
}

void ResultTable::push_label(std::string_view text) {
  const std::size_t a = next_label_axis();
  axis_code_column(a).push_back(axis_dictionary(a).code(text));
}

void ResultTable::push_label_codes(std::span<const std::uint32_t> codes) {
  if (codes.size() != axis_names.size()) throw std::logic_error("ResultTable: a row's codes for other axes");
  if (axis_codes.size() < codes.size()) axis_codes.resize(codes.size());
  for (std::size_t a = 0; a < codes.size(); ++a) axis_codes[a].push_back(codes[a]);
}

void ResultTable::push_labels(std::initializer_list<std::string_view> texts) {
  for (const std::string_view t : texts) push_label(t);
}

std::uint32_t ResultTable::detail_code(std::string_view text) { return detail_texts.code(text); }

void ResultTable::push_detail(std::string_view text) { detail_codes.push_back(detail_code(text)); }

void ResultTable::append_row(const ResultTable& from, std::size_t row) {
  const std::size_t A = axis_names.size(), M = metric_names.size();
  if (from.axis_names.size() != A || from.metric_names.size() != M) {
    throw std::logic_error("ResultTable: a row of a table with other columns");
  }
  point_index.push_back(from.point_index[row]);
  for (std::size_t a = 0; a < A; ++a) axis_code_column(a).push_back(axis_dictionary(a).code(from.label(row, a)));
  status.push_back(from.status[row]);
  push_detail(from.detail(row));
  metrics.insert(metrics.end(), from.metrics.begin() + static_cast<std::ptrdiff_t>(row * M),
                 from.metrics.begin() + static_cast<std::ptrdiff_t>((row + 1) * M));
}

void ResultTable::append_rows(const ResultTable& from) {
  point_index.reserve(rows() + from.rows());
  for (std::size_t a = 0; a < axis_names.size(); ++a) axis_code_column(a).reserve(rows() + from.rows());
  status.reserve(status.size() + from.status.size());
  detail_codes.reserve(rows() + from.rows());
  metrics.reserve(metrics.size() + from.metrics.size());
  for (std::size_t r = 0; r < from.rows(); ++r) append_row(from, r);
}

std::size_t ResultTable::heap_bytes() const {
  std::size_t bytes = point_index.capacity() * sizeof(std::uint64_t) + axis_codes.capacity() * sizeof(CodeColumn) +
                      status.capacity() * sizeof(PointStatus) + detail_codes.heap_bytes() +
                      metrics.capacity() * sizeof(double) + detail_texts.heap_bytes() +
                      axis_texts.capacity() * sizeof(TextDictionary);
  for (const TextDictionary& d : axis_texts) bytes += d.heap_bytes();
  for (const CodeColumn& c : axis_codes) bytes += c.heap_bytes();
  return bytes;
}

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

std::size_t ResultTable::require_metric_column(std::string_view name) const {
  const int c = metric_column(name);
  if (c >= 0) return static_cast<std::size_t>(c);
  std::string held;
  for (const std::string& n : metric_names) held += (held.empty() ? "" : ", ") + n;
  throw std::logic_error("the results table was loaded without the metric '" + std::string(name) +
                         "' (it holds " + (held.empty() ? std::string("none") : held) + ")");
}

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
