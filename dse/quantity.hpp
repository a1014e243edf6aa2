// Quantities written in study and catalog files: "15 us", "3.35 TB/s", "80 GiB", "312 TFLOP/s",
// "624 TOP/s", "700 W", "15000 USD", "0.5". Parsed into the SI value of an expected Dimension
// (engine/units.hpp); printed back as labels that parse to the same double.
//
// Spelling rules (documented for users in studies/README.md):
//  - a number is decimal: [+-]digits[.digits][e[+-]digits] (".5" and "5." are accepted); no hex, no
//    digit separators, no inf/nan, nothing beyond the range of a double (1e400) and no subnormal
//    value (below 2.2e-308 after the unit's scale: "1e-310 ps");
//  - the unit follows the number, with or without a space; unit symbols are case-sensitive;
//  - decimal prefixes are powers of 1000 (kB = 1e3 B, GB = 1e9 B), binary ones powers of 1024
//    (KiB, MiB, GiB, TiB, PiB); "KB" is rejected as ambiguous;
//  - bit rates ("400 Gb/s", "10 Gbps", "100 Gbit/s") are 1/8 of the byte rate one letter's case away
//    ("GB/s"); a spelling that could be read as either ("gb/s", "GBps", "gbps") is an error naming both;
//  - dimensionless values and counts take no unit ("%" is accepted for dimensionless: 50% = 0.5);
//    every other dimension requires one: a bare number there is an error;
//  - integer operations (TOP/s, TOPS) have the dimension of FLOP/s;
//  - long times and volumes: "day" = 86,400 s, "week" = 7 days, "year" = 365 days (no leap day);
//    rates per "/min", "/h", "/day", "/week", "/year" ("100 /h", "10 k/day", "100 M/day").
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/units.hpp"

namespace dsx {

struct Unit {
  std::string_view symbol;
  Dimension dimension;
  double scale;     // SI value of 1 <symbol>
  bool canonical;   // used when dsx writes a label (not for aliases such as "µs", "TOPS", "Gbit/s")
};

std::span<const Unit> all_units();
const Unit* find_unit(std::string_view symbol);  // nullptr when unknown
// The symbols a dimension accepts, in table order (empty for dimensionless and count).
std::vector<std::string> unit_symbols(Dimension d);
// A typical value, used in messages: "10 us" for time, "2 TB/s" for bandwidth, "0.5" dimensionless.
std::string_view unit_example(Dimension d);
// "a time", "a bandwidth", "a dimensionless number", ...
std::string dimension_phrase(Dimension d);

struct Quantity {
  double value = 0;          // SI
  double number = 0;         // as written, before the unit's scale
  std::string unit;          // as written ("" when none)
  double unit_scale = 1;     // SI value of 1 unit
};

// Why a text is not a quantity. `offset`/`length` locate the culprit inside the text (in characters).
// When `unknown_unit` is set, `got` is the unit written and `choices` the valid symbols; the caller
// reports it as an unknown choice with the closest match.
struct QuantityError {
  std::string message;
  std::size_t offset = 0;
  std::size_t length = 1;
  bool unknown_unit = false;
  std::string got;
  std::vector<std::string> choices;
};

struct QuantityParse {
  std::optional<Quantity> quantity;
  QuantityError error;  // meaningful when !quantity
};

// Parses `text` as a quantity of dimension `expected`; `name` (e.g. "launch_overhead") appears in
// messages: "missing unit: launch_overhead is a time, e.g. '10 us'".
QuantityParse parse_quantity(std::string_view text, Dimension expected, std::string_view name);

// Strict decimal number (the spelling above, whole text); nullopt otherwise or when not finite.
std::optional<double> parse_number(std::string_view text);

// Bounds a value must respect (engine ParamSpec semantics: [min, max] or (min, max]); max may be
// +infinity for "at least min" / "greater than min".
struct QuantityBounds {
  bool bounded = false;
  double min_value = 0;
  double max_value = 0;
  bool min_exclusive = false;
  bool integer = false;
};

// "" when `value` is within `bounds`; otherwise why not, naming `name` and the value's `label`.
std::string check_bounds(double value, const QuantityBounds& bounds, Dimension dimension, std::string_view name,
                         std::string_view label);

// Shortest decimal text (at most `max_significant` digits) of `value`, without trailing zeros:
// 0.30000000000000004 -> "0.3" at 10 digits; 17 digits always round-trip exactly.
std::string number_text(double value, int max_significant = 17);

// A label for `value_si` in `unit` (scale = SI value of one unit): "5 us", "0.5", "12%".
std::string label_in_unit(double value_si, std::string_view unit, double unit_scale, int max_significant);

// The shortest label of `value_si` among the units of `dimension` that parse back to exactly the
// same double ("80 GiB", "2.039 TB/s", "312 TFLOP/s"); used to write resolved study files.
std::string exact_quantity_label(double value_si, Dimension dimension);

}  // namespace dsx
