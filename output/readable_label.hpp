// A value as the study wrote it ("5 us", "36000 s", "25000 USD", "80 GiB"), printed as the report
// and the figures print numbers (output/format.hpp): "5 µs", "10.0 h" -> "10 h", "25 k USD",
// "80 GiB", without the trailing zeros a computed value keeps, so "0.01 ms" reads "10 µs". A label
// that is not a number with a unit of time, size, bandwidth, work, FLOP rate, power, energy or
// money (an id, a word, a plain number, a calendar unit the study chose) is returned as written. A
// volume per period ("1000000 M/day", "250 k/day", "30 /h") reads as its count per that period in
// words: "1 trillion per day", "250,000 per day", "30 per hour".
// Only what a reader sees goes through it: results.csv and the other CSV files keep the study's labels.
#pragma once

#include <string>
#include <string_view>

namespace dsx {

struct ResolvedStudy;
struct ParamSpec;

std::string readable_label(std::string_view label);

// A value of parameter `param` as the report's tables, sentences and figures print it: a hardware
// or model id by its catalog `name` ("NVIDIA H100 SXM 80GB", "Mixtral 8x7B (sequence 2048)"), an
// efficiency regime by its label ("Decode, batch 1", engine/efficiency.hpp), anything else through
// readable_label. The
// one function every reader-facing place uses, and the one the tests map the CSVs' ids through.
std::string readable_value(const ResolvedStudy& study, std::string_view param, std::string_view label);

// A sensitivity input as the report's tables, sentences and figures name it: a field of one chip
// ("b200.price") by the field's words and the chip's catalog name ("price of NVIDIA B200 180GB"), a
// parameter by parameter_words ("launch overhead (s)", "efficiency η (%)"), a field of every chip by its
// words ("memory bandwidth of every accelerator").
std::string readable_input(const ResolvedStudy& study, std::string_view input);
// readable_input as a figure's axis prints it: the chip's short name where it has one ("price of NVIDIA
// GB200").
std::string figure_input(const ResolvedStudy& study, std::string_view input);
// A parameter as a reader names it: the words and SI unit describe_quantity gives its name and
// dimension (output/format.hpp), as a metric's: "launch overhead (s)", "efficiency η (%)", "batch";
// in a sentence, where its values carry their units, the words alone ("launch overhead").
std::string parameter_words(const ParamSpec& p, bool with_unit = true);
// readable_value as a figure prints it (keys, bar categories, tick labels, titles): a hardware or
// model id by its catalog `short_name` where the entry gives one ("NVIDIA GB200", "Mixtral 8x7B"),
// so a long name does not make a bar chart as tall as a page; tables and sentences keep the full name.
std::string figure_value(const ResolvedStudy& study, std::string_view param, std::string_view label);
// A hardware field's words: "peak FLOP/s", "TDP", "memory bandwidth".
std::string hardware_field_words(std::string_view field);

}  // namespace dsx
