// Study comparisons (`compare:`) checked against the stored results: which design point each selects,
// the value dsx computed, and whether it agrees with the source within the stated tolerance.
// The report's headline table and comparisons.csv are both rendered from these outcomes.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "dse/results.hpp"
#include "dse/study.hpp"

namespace dsx {

enum class Verdict : std::uint8_t {
  agrees,     // |dsx - expected| <= tolerance x |expected|
  differs,    // outside the tolerance, or the point is infeasible / an error
  unmatched,  // the selectors match no design point, or more than one
};
std::string_view verdict_name(Verdict v);

struct ComparisonOutcome {
  const Comparison* comparison = nullptr;
  std::vector<std::size_t> matches;  // rows the selectors match (one when matched)
  double value = 0;                  // dsx's value when the point is feasible, else NaN
  Verdict verdict = Verdict::unmatched;
};

std::vector<ComparisonOutcome> evaluate_comparisons(const ResolvedStudy& study, const ResultTable& results);

// name, source, metric, expected, dsx, relative_difference, tolerance, verdict, explanation (CSV, exact numbers).
std::string comparisons_csv(const std::vector<ComparisonOutcome>& outcomes);

}  // namespace dsx
