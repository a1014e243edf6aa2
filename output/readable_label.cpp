#include "output/readable_label.hpp"

#include <algorithm>
#include <array>
#include <optional>

#include <cmath>

#include <fmt/format.h>

#include "dse/quantity.hpp"
#include "dse/study.hpp"
#include "engine/efficiency.hpp"
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

// A volume per period as a reader says it: the count in the period the study chose, with a word for
// its size ("1 trillion per day" for "1000000 M/day"), what it counts kept ("requests per hour").
// Empty when `unit` is not one of the per-period spellings of dse/quantity.cpp.
std::string per_period_text(double number, std::string_view unit) {
  struct Period {
    std::string_view unit;
    double count_scale;
    std::string_view words;
  };
  static constexpr std::array<Period, 9> kPeriods = {{{"/min", 1, "per minute"},
                                                      {"/h", 1, "per hour"},
                                                      {"/day", 1, "per day"},
                                                      {"/week", 1, "per week"},
                                                      {"/year", 1, "per year"},
                                                      {"k/day", 1e3, "per day"},
                                                      {"M/day", 1e6, "per day"},
                                                      {"requests/h", 1, "requests per hour"},
                                                      {"requests/day", 1, "requests per day"}}};
  const auto p = std::find_if(kPeriods.begin(), kPeriods.end(), [&](const Period& x) { return x.unit == unit; });
  if (p == kPeriods.end()) return "";
  const double count = number * p->count_scale;
  static constexpr std::array<std::pair<double, std::string_view>, 3> kWords = {
      {{1e12, "trillion"}, {1e9, "billion"}, {1e6, "million"}}};
  for (const auto& [size, word] : kWords) {
    if (std::fabs(count) >= size) {
      return without_trailing_zeros(format_grouped(count / size, 6)) + " " + std::string(word) + " " + std::string(p->words);
    }
  }
  return without_trailing_zeros(format_grouped(count, 6)) + " " + std::string(p->words);
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
  if (std::string per_period = per_period_text(*number, unit); !per_period.empty()) return per_period;
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

namespace {

// A catalog entry's name, or in a figure its short name where it has one.
template <class Entry>
const std::string& entry_words(const Entry& e, bool short_name) {
  return short_name && !e.short_name.empty() ? e.short_name : e.name;
}

std::string value_text(const ResolvedStudy& study, std::string_view param, std::string_view label, bool short_name) {
  if (study.solver != nullptr) {
    for (const ParamSpec& p : study.solver->params()) {
      if (p.name != param) continue;
      if (p.kind == ParamKind::hardware) {
        if (const HardwareSpec* h = study.catalog.find_hardware(label); h != nullptr && !h->name.empty()) {
          return entry_words(*h, short_name);
        }
      } else if (p.kind == ParamKind::model) {
        if (const CatalogModel* m = study.catalog.find_model(label); m != nullptr && !m->name.empty()) {
          return entry_words(*m, short_name);
        }
      } else if (p.kind == ParamKind::choice && p.choices.data() == kEfficiencyRegimeNames.data()) {
        if (const auto regime = parse_efficiency_regime(label)) return std::string(regime_efficiency(*regime).label);
      }
      break;
    }
  }
  return readable_label(label);
}

std::string input_text(const ResolvedStudy& study, std::string_view input, bool short_name) {
  const std::size_t dot = input.find('.');
  if (dot == std::string_view::npos) {
    if (study.solver != nullptr) {
      for (const ParamSpec& p : study.solver->params()) {
        if (p.name == input) return parameter_words(p);
      }
    }
    return hardware_field_words(input) + " of every accelerator";
  }
  const HardwareSpec* h = study.catalog.find_hardware(input.substr(0, dot));
  if (h == nullptr || h->name.empty()) return std::string(input);
  return hardware_field_words(input.substr(dot + 1)) + " of " + entry_words(*h, short_name);
}

}  // namespace

std::string readable_value(const ResolvedStudy& study, std::string_view param, std::string_view label) {
  return value_text(study, param, label, false);
}

std::string figure_value(const ResolvedStudy& study, std::string_view param, std::string_view label) {
  return value_text(study, param, label, true);
}

std::string hardware_field_words(std::string_view field) {
  if (field == "peak_flops") return "peak FLOP/s";
  if (field == "tdp") return "TDP";
  std::string words(field);
  std::replace(words.begin(), words.end(), '_', ' ');
  return words;
}

std::string parameter_words(const ParamSpec& p, bool with_unit) {
  const QuantityDisplay d = describe_quantity(p.name, p.dimension);
  const std::string words = d.label.empty() ? std::string(p.name) : d.label;
  return d.unit.empty() || !with_unit ? words : words + " (" + d.unit + ")";
}

std::string readable_input(const ResolvedStudy& study, std::string_view input) { return input_text(study, input, false); }

std::string figure_input(const ResolvedStudy& study, std::string_view input) { return input_text(study, input, true); }

}  // namespace dsx
