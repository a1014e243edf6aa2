#include "dse/quantity.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <tuple>

namespace dsx {

namespace {

using D = Dimension;

// Decimal prefixes are powers of 1000, binary ones powers of 1024 (IEC 80000-13).
constexpr double kKiB = 1024.0;
constexpr double kMiB = kKiB * 1024.0;
constexpr double kGiB = kMiB * 1024.0;
constexpr double kTiB = kGiB * 1024.0;
constexpr double kPiB = kTiB * 1024.0;
constexpr double kBitsPerByte = 8.0;
constexpr double kSecondsPerHour = 3600.0;
constexpr double kSecondsPerDay = 24.0 * kSecondsPerHour;
constexpr double kSecondsPerWeek = 7.0 * kSecondsPerDay;
constexpr double kSecondsPerYear = 365.0 * kSecondsPerDay;  // a calendar year of 365 days, no leap day
constexpr double kGramsPerPound = 453.59237;  // international avoirdupois pound (1959)

constexpr Unit kUnits[] = {
    {"s", D::time, 1.0, true},
    {"ms", D::time, 1e-3, true},
    {"us", D::time, 1e-6, true},
    {"\xC2\xB5s", D::time, 1e-6, false},  // µs (micro sign)
    {"\xCE\xBCs", D::time, 1e-6, false},  // μs (Greek mu)
    {"ns", D::time, 1e-9, true},
    {"ps", D::time, 1e-12, true},
    {"min", D::time, 60.0, false},
    {"h", D::time, kSecondsPerHour, true},
    {"day", D::time, kSecondsPerDay, false},
    {"days", D::time, kSecondsPerDay, false},
    {"week", D::time, kSecondsPerWeek, false},
    {"weeks", D::time, kSecondsPerWeek, false},
    {"year", D::time, kSecondsPerYear, false},
    {"years", D::time, kSecondsPerYear, false},

    {"B", D::bytes, 1.0, true},
    {"kB", D::bytes, 1e3, true},
    {"MB", D::bytes, 1e6, true},
    {"GB", D::bytes, 1e9, true},
    {"TB", D::bytes, 1e12, true},
    {"PB", D::bytes, 1e15, true},
    {"KiB", D::bytes, kKiB, true},
    {"MiB", D::bytes, kMiB, true},
    {"GiB", D::bytes, kGiB, true},
    {"TiB", D::bytes, kTiB, true},
    {"PiB", D::bytes, kPiB, true},

    {"B/s", D::bandwidth, 1.0, true},
    {"kB/s", D::bandwidth, 1e3, true},
    {"MB/s", D::bandwidth, 1e6, true},
    {"GB/s", D::bandwidth, 1e9, true},
    {"TB/s", D::bandwidth, 1e12, true},
    {"PB/s", D::bandwidth, 1e15, true},
    {"KiB/s", D::bandwidth, kKiB, true},
    {"MiB/s", D::bandwidth, kMiB, true},
    {"GiB/s", D::bandwidth, kGiB, true},
    {"TiB/s", D::bandwidth, kTiB, true},
    {"PiB/s", D::bandwidth, kPiB, true},
    {"bit/s", D::bandwidth, 1.0 / kBitsPerByte, false},
    {"kbit/s", D::bandwidth, 1e3 / kBitsPerByte, false},
    {"Mbit/s", D::bandwidth, 1e6 / kBitsPerByte, false},
    {"Gbit/s", D::bandwidth, 1e9 / kBitsPerByte, false},
    {"Tbit/s", D::bandwidth, 1e12 / kBitsPerByte, false},
    // Network spellings of the same bit rates ("10 Gbps", "400 Gb/s").
    {"Mbps", D::bandwidth, 1e6 / kBitsPerByte, false},
    {"Gbps", D::bandwidth, 1e9 / kBitsPerByte, false},
    {"Tbps", D::bandwidth, 1e12 / kBitsPerByte, false},
    {"Mb/s", D::bandwidth, 1e6 / kBitsPerByte, false},
    {"Gb/s", D::bandwidth, 1e9 / kBitsPerByte, false},
    {"Tb/s", D::bandwidth, 1e12 / kBitsPerByte, false},

    {"FLOP", D::flops, 1.0, true},
    {"kFLOP", D::flops, 1e3, true},
    {"MFLOP", D::flops, 1e6, true},
    {"GFLOP", D::flops, 1e9, true},
    {"TFLOP", D::flops, 1e12, true},
    {"PFLOP", D::flops, 1e15, true},
    {"EFLOP", D::flops, 1e18, true},
    {"OP", D::flops, 1.0, false},
    {"GOP", D::flops, 1e9, false},
    {"TOP", D::flops, 1e12, false},

    {"FLOP/s", D::flop_rate, 1.0, true},
    {"kFLOP/s", D::flop_rate, 1e3, true},
    {"MFLOP/s", D::flop_rate, 1e6, true},
    {"GFLOP/s", D::flop_rate, 1e9, true},
    {"TFLOP/s", D::flop_rate, 1e12, true},
    {"PFLOP/s", D::flop_rate, 1e15, true},
    {"EFLOP/s", D::flop_rate, 1e18, true},
    {"GFLOPS", D::flop_rate, 1e9, false},
    {"TFLOPS", D::flop_rate, 1e12, false},
    {"PFLOPS", D::flop_rate, 1e15, false},
    {"OP/s", D::flop_rate, 1.0, false},
    {"kOP/s", D::flop_rate, 1e3, false},
    {"MOP/s", D::flop_rate, 1e6, false},
    {"GOP/s", D::flop_rate, 1e9, false},
    {"TOP/s", D::flop_rate, 1e12, false},
    {"POP/s", D::flop_rate, 1e15, false},
    {"EOP/s", D::flop_rate, 1e18, false},
    {"GOPS", D::flop_rate, 1e9, false},
    {"TOPS", D::flop_rate, 1e12, false},
    {"POPS", D::flop_rate, 1e15, false},

    {"W", D::power, 1.0, true},
    {"mW", D::power, 1e-3, true},
    {"kW", D::power, 1e3, true},
    {"MW", D::power, 1e6, true},

    {"J", D::energy, 1.0, true},
    {"mJ", D::energy, 1e-3, true},
    {"kJ", D::energy, 1e3, true},
    {"MJ", D::energy, 1e6, true},
    {"GJ", D::energy, 1e9, true},
    {"Wh", D::energy, kSecondsPerHour, false},
    {"kWh", D::energy, kSecondsPerHour * 1e3, true},
    {"MWh", D::energy, kSecondsPerHour * 1e6, true},
    {"GWh", D::energy, kSecondsPerHour * 1e9, false},

    {"USD", D::money, 1.0, true},

    {"/s", D::rate, 1.0, true},
    {"1/s", D::rate, 1.0, false},
    {"Hz", D::rate, 1.0, false},
    {"k/s", D::rate, 1e3, true},
    {"M/s", D::rate, 1e6, true},
    {"kHz", D::rate, 1e3, false},
    {"MHz", D::rate, 1e6, false},
    {"GHz", D::rate, 1e9, false},
    {"samples/s", D::rate, 1.0, false},
    {"images/s", D::rate, 1.0, false},
    {"tokens/s", D::rate, 1.0, false},
    {"requests/s", D::rate, 1.0, false},
    // Volumes per longer periods (deployment traffic): "100 /h", "10 k/day", "100 M/day".
    {"/min", D::rate, 1.0 / 60.0, false},
    {"/h", D::rate, 1.0 / kSecondsPerHour, false},
    {"/day", D::rate, 1.0 / kSecondsPerDay, false},
    {"/week", D::rate, 1.0 / kSecondsPerWeek, false},
    {"/year", D::rate, 1.0 / kSecondsPerYear, false},
    {"k/day", D::rate, 1e3 / kSecondsPerDay, false},
    {"M/day", D::rate, 1e6 / kSecondsPerDay, false},
    {"requests/h", D::rate, 1.0 / kSecondsPerHour, false},
    {"requests/day", D::rate, 1.0 / kSecondsPerDay, false},

    // Grid carbon intensity, held in g CO2e/kWh (engine/units.hpp); eGRID publishes lb/MWh. Not
    // canonical: labels dsx writes use the held unit (si_unit), "429 g/kWh", "0.12 USD/kWh".
    {"g/kWh", D::carbon_intensity, 1.0, false},
    {"kg/kWh", D::carbon_intensity, 1e3, false},
    {"kg/MWh", D::carbon_intensity, 1.0, false},
    {"t/MWh", D::carbon_intensity, 1e3, false},
    {"lb/MWh", D::carbon_intensity, kGramsPerPound / 1e3, false},
    // Electricity price, held in USD/kWh.
    {"USD/kWh", D::energy_price, 1.0, false},
    {"USD/MWh", D::energy_price, 1e-3, false},

    {"%", D::dimensionless, 0.01, false},
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::size_t char_count(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0U) == 0x80U ? 0 : 1;
  return n;
}

// Length of the longest number prefix of `s` in the accepted spelling; 0 when there is none.
std::size_t number_prefix(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  std::size_t digits = 0;
  while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    if (j < s.size() && is_digit(s[j])) {
      while (j < s.size() && is_digit(s[j])) ++j;
      i = j;
    }
  }
  return i;
}

double to_double(std::string_view digits) {
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  double value = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec == std::errc::result_out_of_range) return digits.find('-') == 0 ? -HUGE_VAL : HUGE_VAL;
  if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nan("");
  return value;
}

bool needs_unit(Dimension d) { return d != D::dimensionless && d != D::count; }

// A bandwidth spelling with its case and its "/s" or "ps" ignored: "GB/s", "Gb/s", "Gbit/s", "Gbps"
// and "gbps" are all "gb/s".
std::string rate_key(std::string_view unit) {
  std::string key;
  for (char c : unit) key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (key.ends_with("ps") && !key.ends_with("/ps")) key.replace(key.size() - 2, 2, "/s");
  if (key.ends_with("bit/s")) key.replace(key.size() - 5, 5, "b/s");
  return key;
}

// The eightfold trap: `GB/s` is bytes and `Gb/s` bits, one letter's case apart. An unknown spelling
// that could be read either way (`gb/s`, `GBps`, `gbit/s`) is refused with both readings, never
// taken for the closest match. "" when the unit is not such a spelling.
std::string bit_byte_trap(std::string_view unit) {
  const std::string key = rate_key(unit);
  std::string bytes, bits;
  for (const Unit& u : kUnits) {
    if (u.dimension != D::bandwidth || rate_key(u.symbol) != key) continue;
    std::string& list = u.symbol.find('B') != std::string_view::npos ? bytes : bits;
    list += (list.empty() ? "'" : ", '") + std::string(u.symbol) + "'";
  }
  if (bytes.empty() || bits.empty()) return "";
  return "unit '" + std::string(unit) + "' could mean bytes or bits per second, eight times apart: write " + bytes +
         " for bytes per second or " + bits + " for bits per second (unit symbols are case-sensitive)";
}

// Subnormal doubles (below 2.2e-308) lose precision and describe no physical quantity in SI units.
constexpr const char* kSubnormal =
    "too small for a double (below 2.2e-308 in SI units); write 0 or a realistic value";

}  // namespace

std::span<const Unit> all_units() { return kUnits; }

const Unit* find_unit(std::string_view symbol) {
  for (const Unit& u : kUnits) {
    if (u.symbol == symbol) return &u;
  }
  return nullptr;
}

std::vector<std::string> unit_symbols(Dimension d) {
  std::vector<std::string> out;
  if (!needs_unit(d)) return out;
  for (const Unit& u : kUnits) {
    if (u.dimension == d) out.emplace_back(u.symbol);
  }
  return out;
}

std::string_view unit_example(Dimension d) {
  switch (d) {
    case D::dimensionless: return "0.5";
    case D::count: return "8";
    case D::time: return "10 us";
    case D::bytes: return "80 GiB";
    case D::bandwidth: return "2 TB/s";
    case D::flops: return "8.2 GFLOP";
    case D::flop_rate: return "312 TFLOP/s";
    case D::power: return "700 W";
    case D::energy: return "1.5 kJ";
    case D::money: return "15000 USD";
    case D::rate: return "1000 /s";
    case D::carbon_intensity: return "429 g/kWh";
    case D::energy_price: return "0.12 USD/kWh";
  }
  return "";
}

std::string dimension_phrase(Dimension d) {
  switch (d) {
    case D::dimensionless: return "a dimensionless number";
    case D::count: return "a count";
    case D::time: return "a time";
    case D::bytes: return "a size in bytes";
    case D::bandwidth: return "a bandwidth";
    case D::flops: return "a FLOP count";
    case D::flop_rate: return "a FLOP rate";
    case D::power: return "a power";
    case D::energy: return "an energy";
    case D::money: return "an amount of money";
    case D::rate: return "a rate";
    case D::carbon_intensity: return "a carbon intensity";
    case D::energy_price: return "an energy price";
  }
  return "a value";
}

std::optional<double> parse_number(std::string_view text) {
  const std::size_t n = number_prefix(text);
  if (n == 0 || n != text.size()) return std::nullopt;
  const double v = to_double(text);
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

QuantityParse parse_quantity(std::string_view raw, Dimension expected, std::string_view name) {
  QuantityParse out;
  QuantityError& err = out.error;
  const std::string_view text = trim(raw);
  const std::size_t lead = char_count(raw.substr(0, std::min(raw.find_first_not_of(" \t"), raw.size())));
  const std::string example(unit_example(expected));
  const std::string expectation = dimension_phrase(expected) + " such as '" + example + "'";
  err.offset = lead;
  err.length = std::max<std::size_t>(char_count(text), 1);
  if (text.empty()) {
    err.message = std::string(name) + ": expected " + expectation + ", got nothing";
    return out;
  }
  const std::size_t n = number_prefix(text);
  if (n == 0) {
    std::string lowered(text);
    for (char& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::string_view l = trim(std::string_view(lowered));
    const bool non_finite = l == "inf" || l == "+inf" || l == "-inf" || l == ".inf" || l == "-.inf" ||
                            l == "+.inf" || l == "infinity" || l == "+infinity" || l == "-infinity" ||
                            l == "nan" || l == ".nan" || l == "-nan" || l == "+nan";
    err.message = std::string(name) + ": expected " + expectation + ", got '" + std::string(text) + "'" +
                  (non_finite ? " (only finite numbers are accepted)" : "");
    return out;
  }
  const std::string_view digits = text.substr(0, n);
  std::string_view rest = text.substr(n);
  if (digits == "0" || digits == "+0" || digits == "-0") {
    if (!rest.empty() && (rest[0] == 'x' || rest[0] == 'X' || rest[0] == 'o' || rest[0] == 'b')) {
      err.message = std::string(name) + ": '" + std::string(text) +
                    "' is not accepted: write numbers in decimal (" + expectation + ")";
      return out;
    }
  }
  if (!rest.empty() && (rest[0] == '_' || rest[0] == ',') && rest.size() > 1 && is_digit(rest[1])) {
    err.message = std::string(name) + ": '" + std::string(text) +
                  "' is not accepted: write numbers without digit separators";
    return out;
  }
  const double number = to_double(digits);
  const std::string_view unit = trim(rest);
  const std::size_t unit_offset = lead + char_count(text.substr(0, text.size() - unit.size()));
  if (!std::isfinite(number)) {
    err.message = std::string(name) + ": " + std::string(digits) + " is out of the range of a double";
    err.length = char_count(digits);
    return out;
  }
  if (std::fpclassify(number) == FP_SUBNORMAL) {
    err.message = std::string(name) + ": " + std::string(digits) + " is " + kSubnormal;
    err.length = char_count(digits);
    return out;
  }
  Quantity q;
  q.number = number;
  q.unit = std::string(unit);
  if (unit.empty()) {
    if (needs_unit(expected)) {
      err.message = "missing unit: " + std::string(name) + " is " + dimension_phrase(expected) + ", e.g. '" +
                    example + "'";
      err.length = char_count(digits);
      return out;
    }
    q.value = number;
    out.quantity = q;
    return out;
  }
  err.offset = unit_offset;
  err.length = char_count(unit);
  const Unit* u = find_unit(unit);
  if (u != nullptr && u->dimension == expected) {
    q.unit_scale = u->scale;
    q.value = number * u->scale;
    if (!std::isfinite(q.value) || std::fpclassify(q.value) == FP_SUBNORMAL) {
      err.message = std::string(name) + ": '" + std::string(text) + "' is " +
                    (std::isfinite(q.value) ? kSubnormal : "out of the range of a double");
      err.offset = lead;
      err.length = char_count(text);
      return out;
    }
    out.quantity = q;
    return out;
  }
  if (!needs_unit(expected)) {
    err.message = std::string(name) + " is " + dimension_phrase(expected) + " and takes no unit, got '" +
                  std::string(unit) + "'";
    if (u != nullptr) err.message += " (a unit of " + std::string(dimension_name(u->dimension)) + ")";
    return out;
  }
  if (u != nullptr) {
    err.message = std::string(name) + " is " + dimension_phrase(expected) + " (e.g. '" + example + "'), but '" +
                  std::string(unit) + "' is a unit of " + std::string(dimension_name(u->dimension));
    return out;
  }
  const std::string_view per_second = unit.ends_with("/s") ? "/s" : "";
  if (unit == "KB" || unit == "KB/s" || unit == "Kb" || unit == "Kb/s") {
    err.message = "ambiguous unit '" + std::string(unit) + "': write kB" + std::string(per_second) +
                  " (1000 bytes) or KiB" + std::string(per_second) + " (1024 bytes)";
    return out;
  }
  if (expected == D::bandwidth) {
    if (std::string trap = bit_byte_trap(unit); !trap.empty()) {
      err.message = std::move(trap);
      return out;
    }
  }
  err.unknown_unit = true;
  err.got = std::string(unit);
  err.choices = unit_symbols(expected);
  err.message = std::string(dimension_name(expected)) + " unit";
  return out;
}

std::string check_bounds(double value, const QuantityBounds& bounds, Dimension dimension, std::string_view name,
                         std::string_view label) {
  if (!std::isfinite(value)) return std::string(name) + " must be a finite number, got '" + std::string(label) + "'";
  if (bounds.integer && value != std::floor(value)) {
    return std::string(name) + " must be an integer, got '" + std::string(label) + "'";
  }
  if (!bounds.bounded) return "";
  const bool below = bounds.min_exclusive ? value <= bounds.min_value : value < bounds.min_value;
  if (!below && value <= bounds.max_value) return "";
  std::string range;
  if (std::isinf(bounds.max_value)) {
    range = (bounds.min_exclusive ? "greater than " : "at least ") + exact_quantity_label(bounds.min_value, dimension);
  } else {
    range = std::string("in ") + (bounds.min_exclusive ? "(" : "[") +
            exact_quantity_label(bounds.min_value, dimension) + ", " +
            exact_quantity_label(bounds.max_value, dimension) + "]";
  }
  return std::string(name) + " = " + std::string(label) + " is out of range: it must be " + range;
}

std::string number_text(double value, int max_significant) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == 0) return "0";
  max_significant = std::clamp(max_significant, 1, 17);
  char buf[64];
  int digits = max_significant;
  for (int p = 1; p <= max_significant; ++p) {
    std::snprintf(buf, sizeof buf, "%.*e", p - 1, value);
    if (p == max_significant || std::strtod(buf, nullptr) == value) {
      digits = p;
      break;
    }
  }
  std::snprintf(buf, sizeof buf, "%.*e", digits - 1, value);
  const double rounded = std::strtod(buf, nullptr);
  const int exponent = std::atoi(std::strchr(buf, 'e') + 1);
  std::string out;
  if (exponent >= -5 && exponent < 16) {
    std::snprintf(buf, sizeof buf, "%.*f", std::max(0, digits - 1 - exponent), rounded);
    out = buf;
    if (out.find('.') != std::string::npos) {
      while (out.back() == '0') out.pop_back();
      if (out.back() == '.') out.pop_back();
    }
  } else {
    // mantissa without trailing zeros, exponent without '+' and leading zeros: 1.5e-7, 2e18.
    std::string s = buf;
    const std::size_t e = s.find('e');
    std::string mantissa = s.substr(0, e);
    if (mantissa.find('.') != std::string::npos) {
      while (mantissa.back() == '0') mantissa.pop_back();
      if (mantissa.back() == '.') mantissa.pop_back();
    }
    out = mantissa + "e" + std::to_string(exponent);
  }
  return out;
}

std::string label_in_unit(double value_si, std::string_view unit, double unit_scale, int max_significant) {
  const std::string number = number_text(value_si / unit_scale, max_significant);
  if (unit.empty()) return number;
  if (unit == "%") return number + "%";
  return number + " " + std::string(unit);
}

std::string exact_quantity_label(double value_si, Dimension dimension) {
  if (!needs_unit(dimension) || !std::isfinite(value_si)) return number_text(value_si);
  // Prefer the fewest significant digits ("0.6 us" over "599.9999999999999 ns"), then a number in
  // [1, 1000) ("2.039 TB/s" over "0.002039 PB/s"), then the shortest label.
  auto digits = [](const std::string& number) {
    std::size_t n = 0;
    for (char c : number) n += (c >= '1' && c <= '9') ? 1 : 0;
    return n;
  };
  std::string best;
  std::tuple<std::size_t, bool, std::size_t> best_score{};
  for (const Unit& u : kUnits) {
    if (u.dimension != dimension || !u.canonical) continue;
    const double n = value_si / u.scale;
    const std::string number = number_text(n);
    const std::optional<double> back = parse_number(number);
    if (!back || *back * u.scale != value_si) continue;
    const std::string label = number + " " + std::string(u.symbol);
    const bool engineering = std::fabs(n) >= 1 && std::fabs(n) < 1000;
    const std::tuple<std::size_t, bool, std::size_t> score{digits(number), !engineering, label.size()};
    if (best.empty() || score < best_score) {
      best = label;
      best_score = score;
    }
  }
  if (best.empty()) best = number_text(value_si) + " " + std::string(si_unit(dimension));
  return best;
}

}  // namespace dsx
