#include "output/readable_label.hpp"

#include <algorithm>
#include <array>
#include <optional>

#include "dse/quantity.hpp"
#include "dse/study.hpp"
#include "output/format.hpp"

namespace dsx {

namespace {

// Units a reader already says as they are: a study that writes "3 days" or "1 h" keeps them.
bool calendar_unit(std::string_view unit) {
  static constexpr std::array<std::string_view, 8> kCalendar = {"min", "h", "day", "days", "week", "weeks", "year", "years"};
  return std::find(kCalendar.begin(), kCalendar.end(), unit) != kCalendar.end();
}

// "5.00000 µs" -> "5 µs", "3.35000 TB/s" -> "3.35 TB/s"; "1,024 B" unchanged.
std::string without_trailing_zeros(std::string text) {
  const std::size_t end = text.find(' ');
  const std::size_t number_end = end == std::string::npos ? text.size() : end;
  const std::size_t point = text.find('.');
  if (point == std::string::npos || point > number_end || text.find('e') < number_end) return text;
  std::size_t last = number_end;
  while (last > point + 1 && text[last - 1] == '0') --last;
  if (last == point + 1) last = point;
  return text.substr(0, last) + text.substr(number_end);
}

}  // namespace

std::string readable_label(std::string_view label) {
  std::size_t split = 0;
  while (split < label.size() && std::string_view("0123456789+-.eE").find(label[split]) != std::string_view::npos) {
    ++split;
  }
  // "5e" of "5eV" is not a number: back off an exponent letter with nothing after it.
  while (split > 0 && (label[split - 1] == 'e' || label[split - 1] == 'E')) --split;
  const std::optional<double> number = parse_number(label.substr(0, split));
  std::string_view unit = label.substr(split);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  if (!number || unit.empty() || calendar_unit(unit)) return std::string(label);
  const Unit* u = find_unit(unit);
  if (u == nullptr || !figure_unit_checked(u->dimension)) return std::string(label);
  const QuantityDisplay display = describe_quantity("", u->dimension);
  // The fewest significant figures that give the value exactly ("10 µs" for 0.01 ms), at most six.
  const double si = *number * u->scale;
  const std::string exact = without_trailing_zeros(format_quantity(si, display, 12));
  for (int digits = 1; digits < 6; ++digits) {
    std::string text = without_trailing_zeros(format_quantity(si, display, digits));
    if (text == exact) return text;
  }
  return without_trailing_zeros(format_quantity(si, display, 6));
}

}  // namespace dsx
