// The text a values: entry cites as {{value.NAME}} (studies/README.md "values"): one design point's
// metric as the report's tables print it, a ratio of two points' (three significant figures), a
// difference of two points' (in the metric's unit), or a count, minimum, maximum or sum over the rows
// its `where:` selects that meet its `when:` conditions.
#pragma once

#include <string>

#include "dse/results.hpp"
#include "dse/study.hpp"

namespace dsx {

// `rows` holds every row (constraint statuses applied); `shown` the rows the study's filters keep
// (`when: filters`). "n/a" where the rows hold no such point, or no row an aggregate reads has the
// metric; a single point the solver finds infeasible cites its status word.
std::string cited_value(const ResolvedStudy& study, const ResultTable& rows, const ResultTable& shown,
                        const CitedValue& v);

}  // namespace dsx
