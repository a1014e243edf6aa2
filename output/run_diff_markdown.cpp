#include "output/run_diff_markdown.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include "output/report.hpp"

namespace dsx {

std::string run_diff_markdown(const RunDiff& d) {
  std::string out = fmt::format("## Changes from {} to {}\n\n", markdown_escape(d.a.dir), markdown_escape(d.b.dir));
  out += d.differs() ? "The runs differ" : "The runs agree";
  out += fmt::format(" (relative tolerance {}).\n\n| | A | B |\n|---|---|---|\n", d.tolerance);
  for (const Change& c : identity_rows(d)) {
    out += fmt::format("| {} | {} | {} |\n", markdown_escape(c.what), markdown_escape(c.a), markdown_escape(c.b));
  }
  out += "\n### Resolved study\n\n";
  if (d.study_changes.empty()) {
    out += "No differences.\n";
  } else {
    out += "| path | A | B |\n|---|---|---|\n";
    for (const Change& c : d.study_changes) {
      out += fmt::format("| {} | {} | {} |\n", markdown_escape(c.what), markdown_escape(shorten_diff_value(c.a)),
                         markdown_escape(shorten_diff_value(c.b)));
    }
  }
  out += fmt::format(
      "\n### Rows\n\nMatched by {}: {} in A, {} in B; {} in both, {} only in A, {} only in B; {} "
      "changed status.\n",
      markdown_escape(fmt::format("{}", fmt::join(d.key_axes, ", "))), d.rows_a, d.rows_b, d.matched, d.only_a,
      d.only_b, d.status_changed);
  if (!d.status_transitions.empty()) {
    out += "\n| status change | rows |\n|---|---:|\n";
    for (const auto& [what, n] : d.status_transitions) out += fmt::format("| {} | {} |\n", markdown_escape(what), n);
  }
  out += "\n### Metrics\n\nRows ok in both runs; relative change (B - A) / |A|.\n";
  bool any = false;
  for (const MetricDiff& m : d.metrics) {
    if (m.changed == 0) continue;
    if (!any) out += "\n| metric | rows changed | design point | A | B | change |\n|---|---:|---|---:|---:|---:|\n";
    any = true;
    for (std::size_t i = 0; i < m.largest.size(); ++i) {
      const MetricChange& c = m.largest[i];
      out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", i == 0 ? markdown_escape(m.name) : "",
                         i == 0 ? fmt::format("{} of {}", m.changed, m.compared) : "",
                         markdown_escape(describe_point(d.key_axes, c.point)), format_diff_number(c.a),
                         format_diff_number(c.b), format_relative_change(c.relative));
    }
  }
  if (!any) out += "\nNo metric changed beyond the tolerance.\n";
  out += "\n### Decisions\n\n";
  bool decisions = false;
  for (const DecisionSection& s : decision_sections(d)) {
    if (s.changes->empty()) continue;
    decisions = true;
    out += fmt::format("{}:\n\n| | A | B |\n|---|---|---|\n", markdown_escape(s.title));
    for (const Change& c : *s.changes)
      out += fmt::format("| {} | {} | {} |\n", markdown_escape(c.what), markdown_escape(c.a), markdown_escape(c.b));
    out += "\n";
  }
  if (!decisions) {
    out += d.decisions_compared.empty()
               ? "No analysis file in both runs.\n"
               : fmt::format("No changes in {}.\n",
                             markdown_escape(fmt::format("{}", fmt::join(d.decisions_compared, ", "))));
  }
  return out;
}

}  // namespace dsx
