// How the values a study's prose cites (dse/analysis/cited_values.hpp) print as {{value.NAME}}
// (studies/README.md "values"), and values.csv, which holds them: one design point's metric as the
// report's tables print it, a ratio of two points' (three significant figures), a difference in the
// metric's unit, a percentage, or a count (as digits, or in words where it opens a sentence).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dse/analysis/cited_values.hpp"
#include "dse/study.hpp"

namespace dsx {

// The text of {{value.NAME}}: "n/a" or an infeasible point's status word where there is no number.
std::string cited_value_text(const ResolvedStudy& study, const ComputedValue& v);

// The text where the reference opens a sentence: a count from zero to ninety-nine in words with a
// capital ("Seven parts ..."; a larger count stays in digits), any other value as cited_value_text.
std::string cited_value_opening_text(const ResolvedStudy& study, const ComputedValue& v);

// "zero" .. "ninety-nine"; empty from 100 on.
std::string count_in_words(std::uint64_t n);

// Whether a reference placed after `before` (the text up to it) opens a sentence: nothing but
// spaces, line ends and Markdown emphasis before it, or after the last of them a full stop, a
// question or exclamation mark, or a blank line.
bool opens_sentence(std::string_view before);

// values.csv: name, kind (point, ratio, minus, count, min, max, sum), value (SI, a plain number, or
// percent with `as:`), unit, rows (how many it read), status ("ok", an infeasible point's status
// word, or "n/a").
std::string values_csv(const std::vector<ComputedValue>& values);

}  // namespace dsx
