// The note a report shows in place of a figure that was not drawn (RenderedFigure::error): a block
// quote that says so, quotes the error's first lines as code and says what to do
// (templates/partials/figures.mustache), marked in report.html so that a style can set it apart.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace dsx {

// `error` as the lines of an indented code block inside a Markdown block quote (each line
// ">     ...", no line break after the last), at most its first 12 lines, the run folder's path (as given and absolute) written as
// a reader beside report.md sees the files: "figures/NAME.gp".
std::string figure_error_quote(std::string_view error, const std::string& run_dir);

// md4c's HTML with each block quote that opens "Figure N was not drawn." or "This report is
// incomplete." (in bold) given class="figure-not-drawn" and role="note".
std::string mark_figures_not_drawn(std::string html);

// The report context's `incomplete` entry, for the line at the top of a report that lacks something:
// `has_missing`, and `text`, e.g. "Figure 2 and Figure 5 were not drawn and the sensitivity analysis
// 'drivers' could not run; their places below say why and what to do.", from every figure entry of `report` (study and analyses) whose
// `not_drawn` is true and from `failed_analyses` ("the sensitivity analysis 'drivers'").
nlohmann::ordered_json incomplete_context(const nlohmann::ordered_json& report,
                                          const std::vector<std::string>& failed_analyses);

// The note's style, which report.html carries whatever its template (with_sortable_tables): a red
// rule and tint, the error wrapped rather than cut at the page's edge.
std::string_view figure_note_style();

}  // namespace dsx
