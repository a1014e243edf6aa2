#include "output/cited_value.hpp"

#include <array>
#include <cmath>

#include "output/analysis_text.hpp"
#include "output/csv.hpp"
#include "output/format.hpp"

namespace dsx {

std::string cited_value_text(const ResolvedStudy& study, const ComputedValue& v) {
  if (!v.missing.empty()) return v.missing;
  if (v.kind == CitedKind::count) return format_grouped(v.value, 15);
  if (v.unit == "%") return format_percent(v.value / 100.0);
  if (v.kind == CitedKind::ratio) return format_grouped(v.value);
  return format_quantity(v.value, analysis_text::metric_display(study, v.entry->metric));
}

std::string count_in_words(std::uint64_t n) {
  static constexpr std::array<const char*, 20> kOnes = {
      "zero",    "one",     "two",       "three",    "four",     "five",    "six",
      "seven",   "eight",   "nine",      "ten",      "eleven",   "twelve",  "thirteen",
      "fourteen", "fifteen", "sixteen",  "seventeen", "eighteen", "nineteen"};
  static constexpr std::array<const char*, 10> kTens = {"",      "",      "twenty",  "thirty", "forty",
                                                        "fifty", "sixty", "seventy", "eighty", "ninety"};
  if (n < 20) return kOnes[n];
  if (n >= 100) return {};
  std::string out = kTens[n / 10];
  if (n % 10 != 0) out += std::string("-") + kOnes[n % 10];
  return out;
}

std::string cited_value_opening_text(const ResolvedStudy& study, const ComputedValue& v) {
  if (v.kind != CitedKind::count || !v.missing.empty() || v.value < 0 || v.value >= 100) return cited_value_text(study, v);
  std::string words = count_in_words(static_cast<std::uint64_t>(v.value));
  words.front() = static_cast<char>(words.front() - 'a' + 'A');
  return words;
}

bool opens_sentence(std::string_view before) {
  std::size_t end = before.size();
  bool blank_line = false;
  int line_ends = 0;
  while (end > 0) {
    const char c = before[end - 1];
    if (c == '\n') {
      if (++line_ends == 2) blank_line = true;
    } else if (c != ' ' && c != '\t' && c != '\r' && c != '*' && c != '_') {
      break;
    }
    --end;
  }
  if (end == 0 || blank_line) return true;
  const char last = before[end - 1];
  return last == '.' || last == '?' || last == '!';
}

std::string values_csv(const std::vector<ComputedValue>& values) {
  std::string out = "name,kind,value,unit,rows,status\n";
  for (const ComputedValue& v : values) {
    append_csv_field(out, v.entry->name);
    out += ',';
    append_csv_field(out, cited_kind_name(v.kind));
    out += ',';
    append_csv_number(out, v.value);
    out += ',';
    append_csv_field(out, v.unit);
    out += ',';
    out += std::to_string(v.rows_read);
    out += ',';
    append_csv_field(out, v.missing.empty() ? "ok" : v.missing);
    out += '\n';
  }
  return out;
}

}  // namespace dsx
