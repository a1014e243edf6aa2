#include "output/format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

namespace dsx {

namespace {

// A finite non-zero value rounded to `digits` significant figures: digits d1 d2 ... dn and the
// decimal exponent of d1, i.e. value = d1.d2...dn x 10^exponent.
struct Decimal {
  bool negative = false;
  std::string digits;
  int exponent = 0;
};

Decimal decompose(double value, int digits) {
  digits = std::clamp(digits, 1, 17);
  const std::string s = fmt::format("{:.{}e}", std::fabs(value), digits - 1);
  const auto e = s.find('e');
  Decimal d;
  d.negative = value < 0;
  for (std::size_t i = 0; i < e; ++i) {
    if (s[i] != '.') d.digits += s[i];
  }
  d.exponent = std::stoi(s.substr(e + 1));
  return d;
}

std::string group_thousands(const std::string& integer) {
  std::string out;
  const std::size_t n = integer.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) out += ',';
    out += integer[i];
  }
  return out;
}

// The digits with `int_digits` of them before the decimal point (zeros added on either side as
// needed); the integer part gets thousands separators.
std::string place(const std::string& digits, int int_digits) {
  const int n = static_cast<int>(digits.size());
  if (int_digits <= 0) return "0." + std::string(static_cast<std::size_t>(-int_digits), '0') + digits;
  if (int_digits >= n) return group_thousands(digits + std::string(static_cast<std::size_t>(int_digits - n), '0'));
  return group_thousands(digits.substr(0, static_cast<std::size_t>(int_digits))) + "." +
         digits.substr(static_cast<std::size_t>(int_digits));
}

std::string scientific(const Decimal& d) {
  std::string mantissa = d.digits.substr(0, 1);
  if (d.digits.size() > 1) mantissa += fmt::format(".{}", d.digits.substr(1));
  return fmt::format("{}{}e{}", d.negative ? "-" : "", mantissa, d.exponent);
}

std::string non_finite(double value) {
  if (std::isnan(value)) return "n/a";
  return value < 0 ? "-inf" : "inf";
}

struct Prefix {
  int exponent;
  std::string_view symbol;
};
constexpr std::array<Prefix, 11> kPrefixes = {{{-12, "p"},
                                               {-9, "n"},
                                               {-6, "\u00b5"},
                                               {-3, "m"},
                                               {0, ""},
                                               {3, "k"},
                                               {6, "M"},
                                               {9, "G"},
                                               {12, "T"},
                                               {15, "P"},
                                               {18, "E"}}};

// Binary prefixes on bytes (IEC 80000-13): kBinary[k] is 2^(10 (k + 1)) B.
constexpr std::array<std::string_view, 6> kBinary = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

std::string_view prefix_symbol(int exponent) {
  for (const Prefix& p : kPrefixes) {
    if (p.exponent == exponent) return p.symbol;
  }
  return "";
}

// The prefixes a unit takes: seconds above 1 stay seconds (1,230 s, not 1.23 ks); rates and
// amounts of data or work are never sub-unit.
std::pair<int, int> prefix_range(std::string_view unit) {
  if (unit == "s") return {-12, 0};
  if (unit == "B" || unit == "B/s" || unit == "FLOP" || unit == "FLOP/s") return {0, 18};
  return {-12, 18};
}

int floor_to_multiple_of_3(int e) { return e >= 0 ? (e / 3) * 3 : -(((-e) + 2) / 3) * 3; }

bool is_percent_word(std::string_view w) {
  return w == "utilization" || w == "share" || w == "fraction" || w == "efficiency" || w == "eta" ||
         w == "mfu";
}

// Serving's abbreviations, read as the words they stand for.
constexpr std::array<std::pair<std::string_view, std::array<std::string_view, 4>>, 3> kSpeltOut = {{
    {"itl", {"inter-token", "latency"}},
    {"ttft", {"time", "to", "first", "token"}},
    {"e2e", {"end-to-end"}},
}};

std::vector<std::string> split_words(std::string_view name) {
  std::vector<std::string> words;
  std::string current;
  const auto push = [&] {
    if (current.empty()) return;
    const auto spelt = std::find_if(kSpeltOut.begin(), kSpeltOut.end(), [&](const auto& a) { return a.first == current; });
    if (spelt == kSpeltOut.end()) {
      words.push_back(current);
    } else {
      for (const std::string_view w : spelt->second) {
        if (!w.empty()) words.emplace_back(w);
      }
    }
    current.clear();
  };
  for (char c : name) {
    if (c == '_') {
      push();
    } else {
      current += c;
    }
  }
  push();
  return words;
}

std::string pretty_words(const std::vector<std::string>& words) {
  // Parallelism degrees read as Megatron-LM's papers write them (TP, PP, DP; CP and EP likewise).
  static constexpr std::array<std::string_view, 19> kAcronyms = {
      "gpu", "cpu", "tpu", "npu", "hbm", "dram", "sram", "tco", "pue", "io", "kv", "llm", "mfu", "hfu",
      "tp",  "cp",  "pp",  "dp",  "ep"};
  std::string out;
  for (const std::string& w : words) {
    if (!out.empty()) out += ' ';
    if (std::find(kAcronyms.begin(), kAcronyms.end(), w) != kAcronyms.end()) {
      std::string upper = w;
      std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) {
        return static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
      });
      out += upper;
    } else if (w == "flops" || w == "flop") {
      out += "FLOPs";
    } else if (w == "eta") {
      // The solvers' achieved fraction of peak FLOP/s, named by its symbol.
      out += "efficiency \u03b7";
    } else {
      out += w;
    }
  }
  return out;
}

// Removes the first of `suffixes` (word sequences) that ends `words` and leaves something before it.
bool strip_suffix(std::vector<std::string>& words, std::initializer_list<std::initializer_list<std::string_view>> suffixes) {
  for (const auto& suffix : suffixes) {
    if (words.size() <= suffix.size()) continue;
    if (std::equal(suffix.begin(), suffix.end(), words.end() - static_cast<std::ptrdiff_t>(suffix.size()))) {
      words.resize(words.size() - suffix.size());
      return true;
    }
  }
  return false;
}

// Times from ten minutes on read in the units of a calendar: min, from three hours h, from three
// days days, from three years years (of 365 days); 17.5e6 s reads "203 days".
constexpr double kLongTime_s = 600;
constexpr std::array<std::pair<double, std::string_view>, 4> kLong = {
    {{60.0, "min"}, {3600.0, "h"}, {86400.0, "days"}, {365.0 * 86400.0, "years"}}};

// A grouped axis from ten thousand on: kWords[i] is 10^(3 (i + 1)), the symbol before a unit ("k USD"),
// the word without one ("thousands").
constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kWords = {
    {{"k", "thousands"}, {"M", "millions"}, {"G", "billions"}, {"T", "trillions"}}};

AxisScale long_time_scale(double max_abs_s) {
  std::size_t k = 0;
  while (k + 1 < kLong.size() && max_abs_s >= 3 * kLong[k + 1].first) ++k;
  return AxisScale{1 / kLong[k].first, std::string(kLong[k].second)};
}

// What follows a number: " s", " %", nothing, or "/s" with no space, so a rate reads "3.20/s".
std::string unit_suffix(std::string_view unit) {
  std::string out = unit.empty() || unit.front() == '/' ? "" : " ";
  out += unit;
  return out;
}

// The unit of a rate from its name, taking out of `words` what the unit says: the counted thing
// before "per s" ("tokens_per_s_per_gpu" -> "tokens/s", words "throughput per gpu"), or "/s" after a
// quantity that is not a plural noun ("capacity_per_s", "arrival_rate" -> "/s").
std::string rate_unit(std::vector<std::string>& words) {
  std::size_t per = words.size();
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] == "per" && words[i + 1] == "s") per = i;
  }
  if (per == words.size()) return "/s";
  const auto first = words.begin() + static_cast<std::ptrdiff_t>(per);
  const bool counted = per >= 1 && words[per - 1].size() > 1 && words[per - 1].back() == 's';
  const std::string unit = counted ? words[per - 1] + "/s" : "/s";
  words.erase(counted ? first - 1 : first, first + 2);
  if (words.empty() || words.front() == "per") words.insert(words.begin(), "throughput");
  return unit;
}

// A rate counted in prefixed FLOP per second and stored as a plain number, its prefix in its name
// ("tflops_per_gpu": 295 means 295 TFLOP/s): "TFLOP/s", the word in `words` read "FLOP rate" ("FLOP
// rate per gpu", not "throughput", which a tokens/s metric beside it is called); "" for any other name.
std::string prefixed_flop_rate_unit(std::vector<std::string>& words) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kPrefixed = {
      {{"gflops", "G"}, {"tflops", "T"}, {"pflops", "P"}, {"eflops", "E"}}};
  for (auto w = words.begin(); w != words.end(); ++w) {
    for (const auto& [word, prefix] : kPrefixed) {
      if (*w != word) continue;
      const std::string unit = std::string(prefix) + "FLOP/s";
      *w = "FLOP rate";
      return unit;
    }
  }
  return "";
}

}  // namespace

QuantityDisplay describe_quantity(std::string_view name, Dimension dimension) {
  std::vector<std::string> words = split_words(name);
  QuantityDisplay d;
  d.dimension = dimension;
  d.style = NumberStyle::si;
  d.unit = std::string(si_unit(dimension));
  switch (dimension) {
    case Dimension::time: strip_suffix(words, {{"s"}, {"seconds"}}); break;
    case Dimension::bytes: strip_suffix(words, {{"bytes"}, {"b"}}); break;
    case Dimension::bandwidth: strip_suffix(words, {{"bytes", "per", "s"}, {"b", "per", "s"}}); break;
    case Dimension::flops: strip_suffix(words, {{"flops"}, {"flop"}}); break;
    case Dimension::flop_rate: strip_suffix(words, {{"flops", "per", "s"}, {"flop", "per", "s"}}); break;
    case Dimension::power: strip_suffix(words, {{"w"}, {"watts"}}); break;
    case Dimension::energy: strip_suffix(words, {{"j"}, {"joules"}}); break;
    case Dimension::money:
      strip_suffix(words, {{"usd"}});
      d.style = NumberStyle::grouped;
      break;
    case Dimension::carbon_intensity:
      strip_suffix(words, {{"g", "per", "kwh"}});
      d.style = NumberStyle::grouped;
      break;
    case Dimension::energy_price:
      strip_suffix(words, {{"usd", "per", "kwh"}});
      d.style = NumberStyle::grouped;
      break;
    case Dimension::dimensionless:
    case Dimension::count:
    case Dimension::rate: {
      d.style = NumberStyle::grouped;
      d.unit.clear();
      if (dimension == Dimension::dimensionless &&
          std::any_of(words.begin(), words.end(), [](const std::string& w) { return is_percent_word(w); })) {
        d.style = NumberStyle::percent;
        d.unit = "%";
        break;
      }
      const std::size_t n = words.size();
      if (const std::string unit = prefixed_flop_rate_unit(words); !unit.empty()) {
        d.unit = unit;
      } else if (n >= 3 && words[n - 3] == "flop" && words[n - 2] == "per" && words[n - 1] == "byte") {
        d.unit = "FLOP/B";
        words.resize(n - 3);
      } else if (n >= 3 && words[n - 2] == "per" && (words[n - 1] == "joule" || words[n - 1] == "j")) {
        d.unit = words[n - 3] + "/J";  // tokens_per_joule: "1.11 tokens/J", its words kept
      } else if (dimension == Dimension::rate) {
        d.unit = rate_unit(words);
      } else if (n >= 3 && words[n - 2] == "per" && (words[n - 1] == "s" || words[n - 1] == "byte")) {
        d.unit = words[n - 3] + (words[n - 1] == "s" ? "/s" : "/B");
        words.resize(n - 3);
        if (words.empty()) words.push_back("rate");
      }
      break;
    }
  }
  d.label = pretty_words(words);
  return d;
}

std::string format_si(double value, std::string_view unit, int digits) {
  const std::string space_unit = unit.empty() ? std::string() : fmt::format(" {}", unit);
  if (!std::isfinite(value)) return non_finite(value) + space_unit;
  if (value == 0) return "0" + space_unit;
  const Decimal d = decompose(value, digits);
  const auto [lo, hi] = prefix_range(unit);
  const int p = std::clamp(floor_to_multiple_of_3(d.exponent), lo, hi);
  const std::string number = place(d.digits, d.exponent - p + 1);
  return fmt::format("{}{} {}{}", d.negative ? "-" : "", number, prefix_symbol(p), unit);
}

std::string format_duration(double seconds, int digits) {
  if (!std::isfinite(seconds) || std::fabs(seconds) < kLongTime_s) return format_si(seconds, "s", digits);
  return format_in_scale(seconds, long_time_scale(std::fabs(seconds)), digits);
}

std::string format_bytes(double bytes, int digits) {
  if (!std::isfinite(bytes) || bytes == 0 || std::fabs(bytes) < 1024) return format_si(bytes, "B", digits);
  const bool binary = std::fmod(bytes, 1024.0) == 0 && std::fmod(bytes, 1000.0) != 0;
  if (!binary) return format_si(bytes, "B", digits);
  double scaled = std::fabs(bytes) / 1024.0;
  std::size_t k = 0;
  while (scaled >= 1024.0 && k + 1 < kBinary.size()) {
    scaled /= 1024.0;
    ++k;
  }
  const Decimal d = decompose(scaled, digits);
  return fmt::format("{}{} {}", bytes < 0 ? "-" : "", place(d.digits, d.exponent + 1), kBinary[k]);
}

std::string format_grouped(double value, int digits) {
  if (!std::isfinite(value)) return non_finite(value);
  if (value == 0) return "0";
  if (value == std::trunc(value) && std::fabs(value) < 1e15) {
    const std::string integer = fmt::format("{:.0f}", std::fabs(value));
    return fmt::format("{}{}", value < 0 ? "-" : "", group_thousands(integer));
  }
  const Decimal d = decompose(value, digits);
  if (d.exponent >= 15 || d.exponent < -4) return scientific(d);
  return fmt::format("{}{}", d.negative ? "-" : "", place(d.digits, d.exponent + 1));
}

std::string format_percent(double fraction, int digits) {
  if (!std::isfinite(fraction)) return non_finite(fraction) + " %";
  if (fraction == 0) return "0 %";
  const Decimal d = decompose(fraction * 100.0, digits);
  if (d.exponent >= 15 || d.exponent < -4) return scientific(d) + " %";
  return fmt::format("{}{} %", d.negative ? "-" : "", place(d.digits, d.exponent + 1));
}

std::string format_quantity(double value, const QuantityDisplay& display, int digits) {
  switch (display.style) {
    case NumberStyle::percent: return format_percent(value, digits);
    case NumberStyle::si:
      if (display.dimension == Dimension::bytes) return format_bytes(value, digits);
      if (display.dimension == Dimension::time) return format_duration(value, digits);
      return format_si(value, display.unit, digits);
    case NumberStyle::grouped:
      // Money reads as its axis does from ten thousand on: "25.0 k USD", "1.16 M USD".
      if (display.dimension == Dimension::money && std::isfinite(value) && std::fabs(value) >= 1e4) {
        return format_in_scale(value, choose_axis_scale(display, std::fabs(value)), digits);
      }
      return format_grouped(value, digits) + unit_suffix(display.unit);
  }
  return format_grouped(value, digits);
}

std::optional<double> printed_unit_factor(std::string_view printed_unit, const QuantityDisplay& display) {
  if (display.style == NumberStyle::percent) return printed_unit == "%" ? std::optional(0.01) : std::nullopt;
  if (display.dimension == Dimension::time) {
    for (const auto& [seconds, name] : kLong) {
      if (printed_unit == name) return seconds;
    }
  }
  if (display.dimension == Dimension::bytes) {
    for (std::size_t k = 0; k < kBinary.size(); ++k) {
      if (printed_unit == kBinary[k]) return std::ldexp(1.0, 10 * static_cast<int>(k + 1));
    }
  }
  if (display.style == NumberStyle::si) {
    const auto [lo, hi] = prefix_range(display.unit);
    for (const Prefix& p : kPrefixes) {
      if (p.exponent >= lo && p.exponent <= hi && printed_unit == std::string(p.symbol) + display.unit) {
        return std::pow(10.0, p.exponent);
      }
    }
    return std::nullopt;
  }
  if (printed_unit == display.unit) return 1.0;
  if (display.dimension == Dimension::money) {
    for (std::size_t i = 0; i < kWords.size(); ++i) {
      if (printed_unit == std::string(kWords[i].first) + " " + display.unit) return std::pow(10.0, 3 * static_cast<int>(i + 1));
    }
  }
  return std::nullopt;
}

double printed_unit_factor(std::string_view printed_unit) {
  if (printed_unit == "%") return 0.01;
  static constexpr std::array<Dimension, 8> kPrefixed = {Dimension::time,      Dimension::bytes, Dimension::bandwidth,
                                                         Dimension::flops,     Dimension::flop_rate, Dimension::power,
                                                         Dimension::energy,    Dimension::money};
  for (Dimension d : kPrefixed) {
    if (const std::optional<double> factor = printed_unit_factor(printed_unit, describe_quantity("", d))) return *factor;
  }
  return 1;
}

std::string format_quantity_like(double value, double reference, const QuantityDisplay& display, int digits) {
  if (display.style != NumberStyle::si || display.dimension != Dimension::bytes || !std::isfinite(value) ||
      !std::isfinite(reference) || reference == 0) {
    return format_quantity(value, display, digits);
  }
  const std::array<double, 1> references = {reference};
  return format_in_scale(value, choose_bytes_axis_scale(references), digits);
}

std::string format_signed(double value, std::string_view unit) {
  if (!std::isfinite(value)) return non_finite(value) + " " + std::string(unit);
  std::string s = fmt::format("{:+.1f}", value);
  if (s == "-0.0") s = "+0.0";
  return s + " " + std::string(unit);
}

std::string format_exact(double value) { return fmt::format("{:.17g}", value); }

AxisScale choose_axis_scale(const QuantityDisplay& display, double max_abs) {
  AxisScale scale;
  scale.unit = display.unit;
  if (display.style == NumberStyle::percent) {
    scale.factor = 100;
    return scale;
  }
  if (!std::isfinite(max_abs) || max_abs <= 0) return scale;
  if (display.unit == "s" && max_abs >= kLongTime_s) return long_time_scale(max_abs);
  const int e = static_cast<int>(std::floor(std::log10(max_abs)));
  if (display.style == NumberStyle::si) {
    const auto [lo, hi] = prefix_range(display.unit);
    const int p = std::clamp(floor_to_multiple_of_3(e), lo, hi);
    scale.factor = std::pow(10.0, -p);
    scale.unit = std::string(prefix_symbol(p)) + display.unit;
    return scale;
  }
  if (e < 4) return scale;
  const int p = std::min(floor_to_multiple_of_3(e), 12);
  const auto& [symbol, word] = kWords[static_cast<std::size_t>(p / 3 - 1)];
  scale.factor = std::pow(10.0, -p);
  scale.unit = display.unit.empty()        ? std::string(word)
               : display.unit.front() == '/' ? std::string(symbol) + display.unit
                                             : std::string(symbol) + " " + display.unit;
  return scale;
}

AxisScale choose_bytes_axis_scale(std::span<const double> values) {
  double max_abs = 0;
  bool binary = false, decimal = false;
  for (double v : values) {
    if (!std::isfinite(v) || v == 0) continue;
    max_abs = std::max(max_abs, std::fabs(v));
    if (std::fabs(v) >= 1024 && std::fmod(v, 1024.0) == 0 && std::fmod(v, 1000.0) != 0) {
      binary = true;
    } else {
      decimal = true;
    }
  }
  if (!binary || decimal) return choose_axis_scale(describe_quantity("bytes", Dimension::bytes), max_abs);
  AxisScale scale{1, "B"};
  for (std::size_t k = 0; k < kBinary.size() && max_abs >= std::ldexp(1.0, 10 * static_cast<int>(k + 1)); ++k) {
    scale.factor = std::ldexp(1.0, -10 * static_cast<int>(k + 1));
    scale.unit = std::string(kBinary[k]);
  }
  return scale;
}

std::string format_in_scale(double value, const AxisScale& scale, int digits) {
  const std::string unit = unit_suffix(scale.unit);
  const double v = value * scale.factor;
  if (!std::isfinite(v)) return non_finite(v) + unit;
  if (v == 0) return "0" + unit;
  const Decimal d = decompose(v, digits);
  if (d.exponent >= 15 || d.exponent < -4) return scientific(d) + unit;
  return fmt::format("{}{}{}", d.negative ? "-" : "", place(d.digits, d.exponent + 1), unit);
}

std::string axis_title(const QuantityDisplay& display, const AxisScale& scale) {
  return scale.unit.empty() ? display.label : display.label + " (" + scale.unit + ")";
}

}  // namespace dsx
