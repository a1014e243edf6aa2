// A value as the study wrote it ("5 us", "36000 s", "25000 USD", "80 GiB"), printed as the report
// and the figures print numbers (output/format.hpp): "5 µs", "10.0 h" -> "10 h", "25 k USD",
// "80 GiB", without the trailing zeros a computed value keeps, so "0.01 ms" reads "10 µs". A label
// that is not a number with a unit of time, size, bandwidth, work, FLOP rate, power, energy or
// money (an id, a word, a plain number, a calendar unit the study chose) is returned as written.
// Only what a reader sees goes through it: results.csv and the other CSV files keep the study's labels.
#pragma once

#include <string>
#include <string_view>

namespace dsx {

std::string readable_label(std::string_view label);

}  // namespace dsx
