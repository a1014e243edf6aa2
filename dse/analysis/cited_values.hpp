// The numbers a study's prose cites as {{value.NAME}} (its `values:` block, studies/README.md
// "values"), computed once per run from the rows the other analyses read: one design point's metric,
// the ratio or the difference of two points' (with `as:`, in percent of the second), or a count,
// minimum, maximum or sum over the rows an entry's `where:` selects that meet its `when:` conditions.
// The report prints these (output/cited_value.hpp) and values.csv holds them, so the prose and the
// CSV cannot disagree.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "dse/results.hpp"
#include "dse/study.hpp"

namespace dsx {

// What a value is: one point's metric, a ratio (over:), a difference (minus:), or an aggregate.
enum class CitedKind : std::uint8_t { point, ratio, minus, count, min, max, sum };
std::string_view cited_kind_name(CitedKind kind);

struct ComputedValue {
  const CitedValue* entry = nullptr;  // in the study's values
  CitedKind kind = CitedKind::point;
  // In SI units of the metric (point, minus, min, max, sum), a plain number (ratio, count), or with
  // `as: percent...` in percent; NaN when `missing` says why there is none.
  double value = 0;
  std::string unit;            // the metric's SI unit, "%", or empty for a plain ratio or a count
  std::size_t rows_read = 0;   // the rows the value was computed from
  // Empty when `value` is a number; else the status word of the infeasible point it reads
  // ("infeasible", "error"), or "n/a" (no such point, or no row an aggregate reads has the metric).
  std::string missing;
  // Why an aggregate read no row (a when: that no row meets): said on stderr and in the report.
  std::string warning;
};

// Every value of the study, in its order. `rows` holds every row with constraint statuses applied
// (as compare: entries read them), `shown` the rows the study's filters keep (`when: filters`).
std::vector<ComputedValue> compute_cited_values(const ResolvedStudy& study, const ResultTable& rows,
                                                const ResultTable& shown);

}  // namespace dsx
