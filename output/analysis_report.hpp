// What a run folder and its report say about the declared analyses (dse/analysis/analysed_run.hpp).
//
// Files (RFC 4180 CSV written like output/csv.hpp: exact numbers, NaN as an empty field):
//   breakeven_<name>.csv         one row per crossing of each group, or one row of kind "none" for a
//                                group without one: the free axes' labels, kind, first, second,
//                                better_below, better_above, along, along_value, bracket_lo,
//                                bracket_hi, tolerance, metric_first, metric_second, evaluations,
//                                statement (SI units)
//   breakeven_<name>_curves.csv  the scanned curves: free axes, the along value's label and SI value,
//                                one column per alternative
//   sensitivity_<name>.csv       one row per input and analysis: analysis (local, morris, sobol,
//                                flip), input, then that analysis's columns (the others empty)
//   assertions.csv, top_k.csv    when the study declares them
//   values.csv                   the values the prose cites, when the study has a values: block
//                                (output/cited_value.hpp values_csv)
// Tables in results.sqlite (ResultStore::write_table), each replaced when the analyses run:
//   derived(point_index, status, detail, kept, <derived metric>...)   status after the constraints,
//       kept = 1 when every filter keeps the row (SELECT * FROM results JOIN derived USING
//       (point_index) gives the full rows)
//   breakeven(analysis, grp, kind, first, second, better_below, better_above, statement,
//             along_value, bracket_lo, bracket_hi, tolerance, metric_first, metric_second, evaluations)
//   sensitivity(analysis, kind, input, statistic, value)     long format: every number reported
//   assertions(name, expr, require, verdict, example, rows_checked, rows_holding)
//   top_k(objective, direction, point, rank, point_index, value)
//   pareto_groups(grp, point_index, knee)
// Report: the context under "analyses" that templates/partials/{assertions, derived,
// pareto_groups, top_k, breakeven, sensitivity}.mustache render, with every number formatted and
// every finding written as a sentence.
#pragma once

#include <nlohmann/json.hpp>
#include <map>
#include <string>
#include <vector>

#include "dse/analysis/analysed_run.hpp"
#include "dse/store.hpp"
#include "dse/study.hpp"
#include "output/analysis_figures.hpp"
#include "output/report.hpp"

namespace dsx {

std::string breakeven_csv(const ResolvedStudy& study, const BreakevenAnalysis& analysis);
std::string breakeven_curves_csv(const ResolvedStudy& study, const BreakevenAnalysis& analysis);
std::string sensitivity_csv(const ResolvedStudy& study, const SensitivityAnalysis& analysis);
std::string assertions_csv(const ResolvedStudy& study, const AnalysedRun& run);
std::string top_k_csv(const ResolvedStudy& study, const AnalysedRun& run);

// The CSV files above into run_dir and the tables into the store; tables of analyses the study
// does not declare are dropped. When the run's table holds only the columns the study reads
// (AnalysedRun::columns_selected), the caller writes the derived table (write_derived_store_table)
// and then the intervals table, so the store's tables come in the order of a whole table's run.
void write_analysis_outputs(const ResolvedStudy& study, const AnalysedRun& run, ResultStore& store,
                            const std::string& run_dir);
// The store's derived table (status, kept, derived metrics a row) of a study with derived metrics,
// constraints or filters; dropped for any other study.
void write_derived_store_table(const ResolvedStudy& study, const AnalysedRun& run, ResultStore& store);

// The report's "analyses" context (every key present, flags false when the study declares nothing).
nlohmann::ordered_json analysis_report_context(const ReportInputs& inputs);

// The values a study's prose may cite (dse/study_references.hpp), by key, formatted as the report
// formats them; a key whose analysis found nothing to say (no runner-up, no top_k row) is absent.
std::map<std::string, std::string> cited_values(const ReportInputs& inputs);

// The study's figures followed by the analysis figures: every picture the HTML report inlines.
std::vector<RenderedFigure> report_figures(const ReportInputs& inputs, const std::vector<RenderedFigure>& figures);

// One line per failed assertion and per analysis that could not run ("assertion 'x' failed: ..."),
// for the command line.
std::vector<std::string> failed_assertion_lines(const ResolvedStudy& study, const AnalysedRun& run);
std::vector<std::string> failed_analysis_lines(const AnalysedRun& run);

// A plain sentence for one crossing (or for a group without one), in the report's number style:
// "b200 beats h100_sxm on cost per million inferences from batch = 49 on (break-even at 48.8478;
// 0.0198 USD for both there)."; with `metrics`: "compiled time is lower than eager time from
// run_inferences = 133,608 on (break-even at 133,607; 92.1 s each there)."
std::string crossing_sentence(const ResolvedStudy& study, const BreakevenAnalysis& analysis, const BreakevenGroup& group,
                              const Crossing& crossing);
std::string no_crossing_sentence(const ResolvedStudy& study, const BreakevenAnalysis& analysis,
                                 const BreakevenGroup& group);
// "h200 stops having the lowest cost per million inferences if the price of h200 rises 18.3 %
// (mi300x takes over)."
std::vector<std::string> flip_sentences(const ResolvedStudy& study, const SensitivityAnalysis& analysis);

}  // namespace dsx
