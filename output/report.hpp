// The report of a run: report.md from Mustache templates, and report.html, the same Markdown
// rendered by md4c (GitHub dialect) inside an HTML shell, one self-contained file with every figure
// inlined as SVG and no external reference, so it opens offline.
//
// Templates (template_dir): report.md.mustache, report.html.mustache and partials/NAME.mustache
// (summary, grid, comparisons, pareto, figures, provenance; a user folder may add more). Mustache is
// logic-less, so every number is formatted here with output/format.hpp before it reaches a template.
// Values are escaped for Markdown in report.md ('|' and the characters that start emphasis, code,
// links or HTML; never HTML entities) and for HTML in the shell. Templates are checked strictly: a
// tag naming a value the context lacks, a malformed tag or a missing partial is an error naming the
// template file with line:col, the names valid there and the closest match.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "dse/results.hpp"
#include "dse/study.hpp"
#include "output/figures.hpp"

namespace dsx {

// What the report says about the run. Thread count and timings are deliberately absent: they go to
// manifest.json, so the report is byte-identical on 1 or N threads.
struct RunInfo {
  std::string dsx_version, git_revision, study_hash, catalog_hash;
  std::uint64_t points = 0, feasible = 0, infeasible = 0, errors = 0;  // evaluated points
  std::map<std::string, std::uint64_t> infeasible_by_reason;  // over every evaluated point
  std::vector<std::pair<std::string, std::uint64_t>> excluded;  // per grid constraint: points skipped
  std::uint64_t kept_rows = 0;
  std::uint64_t grid_points = 0, points_swept = 0;  // a run stopped part-way has points_swept < grid_points
  std::string keep;  // what the study keeps when not every row ("" = every row)
};

// Fills points, feasible, infeasible, errors and infeasible_by_reason from `rows`, for a run that
// stored every evaluated row.
void count_rows(const ResultTable& rows, RunInfo& info);

// What a study keeps when not every row, e.g. "the Pareto fronts, the 10 best per objective and a
// sample of 1,000" (StudyAnalyses::keep); "every row" by default.
std::string keep_description(const ResolvedStudy& study);

struct AnalysedRun;
struct AnalysisFigure;

struct ReportInputs {
  const ResolvedStudy& study;
  const ResultTable& results;
  const std::vector<std::size_t>& pareto_rows;  // row indices of the Pareto front (may be empty)
  RunInfo info;
  std::string run_dir;
  std::string template_dir;
  // The declared analyses and their figures (output/analysis_report.hpp); null when not run.
  const AnalysedRun* analysed = nullptr;
  const std::vector<AnalysisFigure>* analysis_figures = nullptr;
  bool trust_study_html = false;  // see markdown_page_html
};

// Renders every figure of the study into run_dir/figures/: NAME.gp (editable gnuplot script), NAME.dat
// (the data), NAME.svg, NAME.pdf, NAME.png. Runs gnuplot with posix_spawn (never a shell), stderr captured.
// A figure that is not drawn (FigureNotDrawn: gnuplot failed, its script refused or stale) comes back
// with `error` (naming the .gp file, gnuplot's message) and `remedy` set, the other figures drawn as
// usual; the caller prints the errors and exits not clean. A figure the results cannot draw (unknown
// metric, bars over a metric, duplicate name) throws std::invalid_argument.
std::vector<RenderedFigure> render_figures(const ReportInputs& inputs);

// Writes run_dir/report.md and run_dir/report.html from template_dir (report.md.mustache + partials).
// Throws std::runtime_error for a missing or broken template (file:line:col: error: ...).
void render_report(const ReportInputs& inputs, const std::vector<RenderedFigure>& figures);

// Reads template_dir's report.md.mustache, report.html.mustache and partials and checks their
// Mustache syntax, so a missing or broken template is found before a sweep rather than after it.
// Throws std::runtime_error with every problem (file:line:col: error: ...). Names a template uses
// are checked against the report's data only when it renders.
void check_report_templates(const std::string& template_dir);

// The pieces render_report is made of, for tests and for other front ends.

// `markdown` with its figures numbered 1, 2, 3 in the order they appear (each section numbers its
// own figures; the report orders the sections): every "Figure N" of a figure defined by a heading
// "### Figure N:", a caption "*Figure N.*" or a note "**Figure N was not drawn.**" becomes its place in
// reading order.
std::string number_figures_in_reading_order(const std::string& markdown);

// Escapes text for Markdown (table cells included), with backslashes and never HTML entities:
// \ ` * [ ] < | ~ always; _ at a word's edge (inside a word it starts no emphasis); & before a
// letter or # (an entity); a leading #, +, - or "1." followed by a space, a leading >, or a value
// made only of - = _ * (a rule), since those start a block at the beginning of a line. Line breaks
// become spaces so a value never splits a table row.
std::string markdown_escape(std::string_view text);
// Escapes & < > " ' for HTML text and attributes.
std::string html_escape(std::string_view text);

// report.md as text (no files written).
std::string render_report_markdown(const ReportInputs& inputs, const std::vector<RenderedFigure>& figures);
// report.html from report.md's text: md4c, figures inlined, wrapped in report.html.mustache.
std::string render_report_html(const ReportInputs& inputs, const std::vector<RenderedFigure>& figures,
                               std::string_view markdown);

// A self-contained HTML page from Markdown (a study's report, the accuracy report of `dsx accuracy`):
// md4c, `figures/NAME.svg` images inlined, wrapped in template_dir's report.html.mustache with
// `title`, and `name` and `hash` in its footer.
//
// Trust model: a study's text is data. By default raw HTML in it shows as text, link and image
// destinations other than relative paths and http, https and mailto URLs are neutralised, and the
// page carries report_content_security_policy(), which forbids every script but dsx's own sortable
// tables (a study's own template's included) and every request for anything outside the page. `trust_study_html` (dsx run and dsx
// report --trust-study-html) renders the study's raw HTML as HTML and leaves the policy out.
std::string markdown_page_html(const std::string& template_dir, std::string_view title, std::string_view markdown,
                               const std::vector<RenderedFigure>& figures, std::string_view name, std::string_view hash,
                               std::string_view dsx_version, std::string_view git_revision,
                               bool trust_study_html = false);

// The policy: no request outside the page, inline styles, and one script, the sortable tables'
// (output/sortable_tables.hpp), allowed by its hash.
std::string report_content_security_policy();

// `html` with a <meta http-equiv="Content-Security-Policy"> of report_content_security_policy() as the
// first element of its <head> (before the document when it has none).
std::string with_content_security_policy(std::string html);

}  // namespace dsx
