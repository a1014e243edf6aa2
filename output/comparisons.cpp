#include "output/comparisons.hpp"

#include <cmath>
#include <limits>

#include "output/csv.hpp"
#include "output/figures.hpp"

namespace dsx {

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::agrees: return "agrees";
    case Verdict::differs: return "differs";
    case Verdict::unmatched: return "unmatched";
  }
  return "";
}

std::vector<ComparisonOutcome> evaluate_comparisons(const ResolvedStudy& study, const ResultTable& results) {
  std::vector<ComparisonOutcome> outcomes;
  for (const Comparison& c : study.comparisons) {
    ComparisonOutcome o;
    o.comparison = &c;
    o.value = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t r = 0; r < results.rows(); ++r) {
      if (row_matches(c.where, study, results, r)) o.matches.push_back(r);
    }
    const std::size_t col = results.require_metric_column(c.metric);
    if (o.matches.size() == 1) {
      const std::size_t r = o.matches.front();
      if (results.status[r] == PointStatus::ok) {
        o.value = results.metric(r, col);
        o.verdict = std::fabs(o.value - c.expected) <= c.tolerance * std::fabs(c.expected) ? Verdict::agrees
                                                                                              : Verdict::differs;
      } else {
        o.verdict = Verdict::differs;
      }
    }
    outcomes.push_back(std::move(o));
  }
  return outcomes;
}

std::string comparisons_csv(const std::vector<ComparisonOutcome>& outcomes) {
  std::string out = "name,source,metric,expected,dsx,relative_difference,tolerance,verdict,explanation\n";
  for (const ComparisonOutcome& o : outcomes) {
    const Comparison& c = *o.comparison;
    append_csv_field(out, c.name);
    out += ',';
    append_csv_field(out, c.source);
    out += ',';
    append_csv_field(out, c.metric);
    out += ',';
    append_csv_number(out, c.expected);
    out += ',';
    append_csv_number(out, o.value);
    out += ',';
    append_csv_number(out, c.expected != 0 ? (o.value - c.expected) / std::fabs(c.expected)
                                           : std::numeric_limits<double>::quiet_NaN());
    out += ',';
    append_csv_number(out, c.tolerance);
    out += ',';
    append_csv_field(out, verdict_name(o.verdict));
    out += ',';
    append_csv_field(out, c.explanation);
    out += '\n';
  }
  return out;
}

}  // namespace dsx
