#include "output/analysis_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "dse/analysis/blocks.hpp"
#include "dse/calibration/intervals.hpp"
#include "dse/grid.hpp"
#include "output/analysis_text.hpp"
#include "output/figure_notes.hpp"
#include "output/files.hpp"
#include "output/format.hpp"
#include "output/readable_label.hpp"

namespace dsx {

using namespace analysis_text;

namespace {

using json = nlohmann::ordered_json;
// Sobol indices that moved by more than this between N/2 and N samples are called unconverged.
constexpr double kConvergedChange = 0.05;

}  // namespace

// ---- sentences ----

std::string crossing_sentence(const ResolvedStudy& study, const BreakevenAnalysis& a, const BreakevenGroup& g,
                              const Crossing& c) {
  const BreakevenOutcome& o = g.outcome;
  const ParamSpec& along = along_spec(study, a);
  const bool numeric = along.kind == ParamKind::number;
  const bool by_metrics = !a.request.metrics.empty();
  const std::string metric = metric_of_analysis(a);
  const QuantityDisplay md = metric_display(study, metric);
  // With `metrics` the alternatives are metrics: "compiled time is lower than eager time".
  const auto name_of = [&](std::size_t i) {
    return by_metrics && i != kNoAlternative ? metric_words(study, a.alternatives[i]) : alt_words(study, a, i);
  };
  const std::string above = name_of(c.better_above);
  const std::string below = name_of(c.better_below);
  const std::string better = a.request.direction == Direction::minimize ? "lower" : "higher";
  const std::string beats = by_metrics ? above + " is " + better + " than " + below
                                       : above + " beats " + below + " on " + metric_words(study, metric);
  const std::string name(along.name);
  std::string s;
  switch (c.kind) {
    case CrossingKind::root:
    case CrossingKind::jump: {
      // On an integer axis the first whole value past the crossing is the answer; the crossing
      // itself is given to six figures.
      const bool whole = along.integer && c.along_value != std::floor(c.along_value);
      s = beats + (whole ? " from " + name + " = " + along_value_text(study, a, std::ceil(c.along_value)) + " on"
                         : " above " + name + " = " + along_value_text(study, a, c.along_value));
      std::vector<std::string> notes;
      if (whole) notes.push_back("break-even at " + format_grouped(c.along_value, 6));
      notes.push_back(c.kind == CrossingKind::jump ? std::string("a step of the metric there, not an equality")
                                                   : format_quantity(c.metric_first, md) +
                                                         (by_metrics ? " each" : " for both") + " there");
      s += " (" + join(notes, "; ") + ")";
      break;
    }
    case CrossingKind::at_point:
      s = beats + " above " + name + " = " + o.along_labels[c.scan_lo] + ", where the two are equal";
      break;
    case CrossingKind::tie:
      s = beats + " above " + name + " = " + o.along_labels[c.scan_hi] + " after a tie from " + o.along_labels[c.scan_lo];
      break;
    case CrossingKind::bracket:
      s = beats + " from " + name + " = " + o.along_labels[c.scan_hi] + " on (" + below + " is better at " +
          o.along_labels[c.scan_lo] + ")";
      break;
    case CrossingKind::unrefined:
      s = beats + " somewhere between " + name + " = " +
          (numeric ? along_value_text(study, a, c.bracket_lo) : o.along_labels[c.scan_lo]) + " and " +
          (numeric ? along_value_text(study, a, c.bracket_hi) : o.along_labels[c.scan_hi]) +
          (c.evaluations >= a.request.tolerance.max_evaluations ? " (not refined: the evaluation limit was reached)"
                                                               : " (not refined: an alternative has no value inside)");
      break;
  }
  return s + ".";
}

std::string no_crossing_sentence(const ResolvedStudy& study, const BreakevenAnalysis& a, const BreakevenGroup& g) {
  const BreakevenOutcome& o = g.outcome;
  const std::string metric = a.request.metrics.empty() ? metric_words(study, a.request.metric) : "the compared metrics";
  const std::string name(along_spec(study, a).name);
  const std::string range = o.along_labels.front() + " to " + o.along_labels.back();
  if (o.segments.size() == 1) {
    if (o.segments.front().best == kNoAlternative) return "No alternative has a value of " + metric + " for " + name + " " + range + ".";
    return "No crossing of " + metric + " for " + name + " " + range + ": " + alt_words(study, a, o.segments.front().best) +
           " is better throughout.";
  }
  std::vector<std::string> parts;
  for (const BestSegment& s : o.segments) {
    parts.push_back(alt_words(study, a, s.best) + " from " + o.along_labels[s.scan_from] + " to " + o.along_labels[s.scan_to]);
  }
  return "No crossing of " + metric + " for " + name + " " + range + "; the best is " + join(parts, ", then ") + ".";
}

std::vector<std::string> flip_sentences(const ResolvedStudy& study, const SensitivityAnalysis& s) {
  std::vector<std::string> out;
  if (!s.decision) return out;
  const DecisionResult& d = *s.decision;
  const std::string best = alternative_words(study, s, d.best);
  const std::string extreme = s.request.direction == Direction::minimize ? "lowest" : "highest";
  const std::string metric = metric_words(study, s.request.metric);
  for (const DecisionFlip& f : d.flips) {
    const std::string input = input_phrase(study, s.inputs[f.input]);
    std::vector<std::string> ways;
    for (const FlipSearch* search : {&f.up, &f.down}) {
      if (!search->found) continue;
      const std::string verb = search->relative_change > 0 ? "rises" : "falls";
      const std::string next = search->new_best == kNoAlternative ? "no alternative keeps a value"
                                                                  : alternative_words(study, s, search->new_best) + " takes over";
      ways.push_back(fmt::format("if {} {} {} ({})", input, verb, format_percent(std::fabs(search->relative_change)), next));
    }
    if (ways.empty()) {
      const auto reach = [](const FlipSearch& x) { return format_percent(std::fabs(x.limit)); };
      const std::string range = f.up.limit == -f.down.limit ? "within +-" + reach(f.up)
                                                            : "between -" + reach(f.down) + " and +" + reach(f.up);
      out.push_back(fmt::format("{} stays the choice for any change of {} {}.", best, input, range));
    } else {
      out.push_back(best + " stops having the " + extreme + " " + metric + " " + join(ways, ", or ") + ".");
    }
  }
  return out;
}


std::vector<RenderedFigure> report_figures(const ReportInputs& in, const std::vector<RenderedFigure>& figures) {
  std::vector<RenderedFigure> all = figures;
  if (in.analysis_figures != nullptr) {
    for (const AnalysisFigure& f : *in.analysis_figures) all.push_back(f.figure);
  }
  return all;
}

std::vector<std::string> failed_assertion_lines(const ResolvedStudy& study, const AnalysedRun& run) {
  std::vector<std::string> out;
  const StudyAnalyses& a = analyses_of(study);
  for (const AssertionOutcome& o : run.assertions) {
    if (o.held) continue;
    const Assertion& x = a.assertions[o.assertion];
    std::string why;
    if (o.rows_checked == 0) {
      why = "no feasible design point matches";
    } else if (x.require == Quantifier::all) {
      why = fmt::format("fails on {} of {} design points, first at {}", o.rows_checked - o.rows_holding, o.rows_checked,
                        o.example_row ? row_words(study, run.shown(), *o.example_row) : "?");
    } else {
      why = fmt::format("holds on none of {} design points", o.rows_checked);
    }
    out.push_back(fmt::format("assertion '{}' failed: {} ({})", x.name, x.expr, why));
  }
  return out;
}

std::vector<std::string> failed_analysis_lines(const AnalysedRun& run) {
  std::vector<std::string> out;
  for (const BreakevenRun& b : run.breakevens) {
    if (!b.analysis) out.push_back("break-even '" + b.request->name + "' could not run: " + b.error);
  }
  for (const SensitivityRun& s : run.sensitivities) {
    if (!s.analysis) out.push_back("sensitivity analysis '" + s.request->name + "' could not run: " + s.error);
  }
  return out;
}

// ---- the report's context ----

namespace {

json figure_list(const ReportInputs& in, const std::string& tag, std::size_t first_number) {
  json list = json::array();
  if (in.analysis_figures == nullptr) return list;
  for (std::size_t i = 0; i < in.analysis_figures->size(); ++i) {
    const AnalysisFigure& f = (*in.analysis_figures)[i];
    if (f.analysis != tag) continue;
    list.push_back({{"number", std::to_string(first_number + i)},
                    {"name", f.figure.name},
                    {"title", f.figure.title},
                    {"caption", f.figure.caption},
                    {"description", f.figure.description},
                    {"not_drawn", !f.figure.error.empty()},
                    {"error_block", f.figure.error.empty() ? std::string() : figure_error_quote(f.figure.error, in.run_dir)},
                    {"remedy", f.figure.remedy}});
  }
  return list;
}

json assertions_context(const ResolvedStudy& study, const AnalysedRun* run) {
  json out;
  json list = json::array();
  std::size_t failed = 0;
  if (run != nullptr) {
    const StudyAnalyses& a = analyses_of(study);
    for (const AssertionOutcome& o : run->assertions) {
      const Assertion& x = a.assertions[o.assertion];
      std::string detail;
      if (o.rows_checked == 0) {
        detail = "no feasible design point matches, so there is nothing to hold";
      } else if (x.require == Quantifier::all) {
        detail = o.held ? fmt::format("holds on all {} design points checked", format_grouped(static_cast<double>(o.rows_checked)))
                        : fmt::format("fails on {} of {} design points, first at {}",
                                      format_grouped(static_cast<double>(o.rows_checked - o.rows_holding)),
                                      format_grouped(static_cast<double>(o.rows_checked)),
                                      o.example_row ? row_words(study, run->shown(), *o.example_row) : "?");
      } else {
        detail = o.held ? fmt::format("holds on {} of {} design points, for example at {}",
                                      format_grouped(static_cast<double>(o.rows_holding)),
                                      format_grouped(static_cast<double>(o.rows_checked)),
                                      o.example_row ? row_words(study, run->shown(), *o.example_row) : "?")
                        : fmt::format("holds on none of the {} design points checked",
                                      format_grouped(static_cast<double>(o.rows_checked)));
      }
      if (!o.held) ++failed;
      list.push_back({{"name", x.name},
                      {"expr", x.expr},
                      {"scope", (x.require == Quantifier::all ? "every" : "some") + std::string(" feasible design point") +
                                    (x.where.empty() ? "" : " with " + group_words(study, x.where))},
                      {"held", o.held},
                      {"verdict", o.held ? "holds" : "FAILED"},
                      {"detail", detail}});
    }
  }
  out["has_assertions"] = !list.empty();
  out["all_hold"] = failed == 0;
  out["summary"] = list.empty() ? ""
                   : failed == 0 ? (list.size() == 1 ? std::string("The assertion holds.")
                                                     : fmt::format("All {} assertions hold.", list.size()))
                                 : fmt::format("{} of {} assertions FAILED; dsx run exits with status 3.", failed, list.size());
  out["list"] = list;
  return out;
}

json derived_context(const ResolvedStudy& study, const AnalysedRun* run) {
  const StudyAnalyses& a = analyses_of(study);
  json out;
  json derived = json::array();
  for (const DerivedMetric& d : a.derived) {
    derived.push_back({{"name", d.name},
                       {"expr", d.expr},
                       {"unit", d.unit.empty() ? "none" : d.unit},
                       {"description", d.description}});
  }
  json constraints = json::array();
  for (std::size_t i = 0; i < a.constraints.size(); ++i) {
    const std::size_t n = run != nullptr ? run->formulas.constraint_violations.at(i) : 0;
    constraints.push_back({{"name", a.constraints[i].name},
                           {"expr", a.constraints[i].expr},
                           {"rows", format_grouped(static_cast<double>(n))}});
  }
  json filters = json::array();
  for (std::size_t i = 0; i < a.filters.size(); ++i) {
    const std::size_t n = run != nullptr ? run->formulas.filtered_out.at(i) : 0;
    filters.push_back({{"name", a.filters[i].name},
                       {"expr", a.filters[i].expr},
                       {"rows", format_grouped(static_cast<double>(n))}});
  }
  out["has_derived"] = !derived.empty();
  out["derived"] = derived;
  out["has_constraints"] = !constraints.empty();
  out["constraints"] = constraints;
  out["has_filters"] = !filters.empty();
  out["filters"] = filters;
  out["any"] = !derived.empty() || !constraints.empty() || !filters.empty();
  out["kept"] = run != nullptr ? fmt::format("The filters keep {} of {} design points; the Pareto front, top-k, assertions "
                                             "and figures use those, results.csv holds them all.",
                                             format_grouped(static_cast<double>(run->formulas.kept_rows(run->table.rows()))),
                                             format_grouped(static_cast<double>(run->table.rows())))
                               : "";
  return out;
}

json top_k_context(const ResolvedStudy& study, const AnalysedRun* run) {
  json out;
  json lists = json::array();
  if (run != nullptr) {
    for (const TopKList& list : run->top_k) {
      const QuantityDisplay d = metric_display(study, list.objective.metric);
      const std::size_t col = run->shown().require_metric_column(list.objective.metric);
      json rows = json::array();
      for (std::size_t i = 0; i < list.rows.size(); ++i) {
        const std::size_t r = list.rows[i];
        rows.push_back({{"rank", std::to_string(i + 1)},
                        {"point", row_words(study, run->shown(), r)},
                        {"value", format_quantity(run->shown().metric(r, col), d)}});
      }
      lists.push_back({{"title", objective_words(study, list.objective)},
                       {"column", metric_words(study, list.objective.metric)},
                       {"rows", rows}});
    }
  }
  out["has_top_k"] = !lists.empty();
  out["count"] = std::to_string(analyses_of(study).top_k);
  out["lists"] = lists;
  return out;
}

json fronts_context(const ReportInputs& in, std::size_t first_figure) {
  const ResolvedStudy& study = in.study;
  const AnalysedRun* run = in.analysed;
  const ParetoOptions& p = analyses_of(study).pareto;
  json out;
  json groups = json::array();
  const bool used = run != nullptr && (run->fronts.grouped || run->fronts.thinned) && study.objectives.size() >= 2;
  if (used) {
    for (const ParetoGroup& g : run->fronts.groups) {
      std::string knee = "none";
      if (g.knee && g.knee->distance > 0) {
        std::vector<std::string> values;
        for (const Objective& o : study.objectives) {
          const std::size_t col = run->shown().require_metric_column(o.metric);
          values.push_back(format_quantity(run->shown().metric(g.knee->row, col),
                                           metric_display(study, o.metric)));
        }
        knee = row_words(study, run->shown(), g.knee->row) + " (" + join(values, ", ") + ")";
      }
      groups.push_back({{"group", g.labels.empty() ? "all design points" : group_words(study, g.labels)},
                        {"feasible", format_grouped(static_cast<double>(g.feasible_rows))},
                        {"exact", format_grouped(static_cast<double>(g.exact_size))},
                        {"kept", format_grouped(static_cast<double>(g.front.size()))},
                        {"knee", knee}});
    }
  }
  std::vector<std::string> eps;
  for (double e : p.epsilon) eps.push_back(format_percent(e, 2));
  std::string how;
  if (!p.group.empty()) how = "one Pareto front per value of " + join(p.group, " and ");
  if (!p.epsilon.empty()) {
    how += (how.empty() ? "" : ", ") + std::string("thinned by epsilon-dominance: boxes of ") + join(eps, ", ") +
           " per objective keep one design point each (every dropped front point is within that factor of a kept one)";
  }
  out["has_fronts"] = used;
  out["how"] = how;
  out["groups"] = groups;
  out["figures"] = figure_list(in, "pareto", first_figure);
  return out;
}

// A heading from generated words: "Cost per million tokens of each hardware along batch".
std::string heading_case(std::string words) {
  if (!words.empty() && words.front() >= 'a' && words.front() <= 'z') words.front() = static_cast<char>(words.front() - 'a' + 'A');
  return words;
}

json breakeven_context(const ReportInputs& in, std::size_t first_figure) {
  const ResolvedStudy& study = in.study;
  json list = json::array();
  if (in.analysed != nullptr) {
    for (const BreakevenRun& b : in.analysed->breakevens) {
      const BreakevenRequest& r = *b.request;
      json item;
      item["name"] = r.name;
      const std::string metric = r.metrics.empty() ? r.metric : join(r.metrics, " vs ");
      item["title"] = r.description.empty() ? heading_case(analysis_words(study, r)) : r.description;
      item["has_error"] = !b.analysis;
      item["error"] = b.error;
      json groups = json::array();
      std::string method;
      if (b.analysis) {
        const BreakevenAnalysis& a = *b.analysis;
        for (const BreakevenGroup& g : a.groups) {
          std::vector<std::string> sentences;
          for (const Crossing& c : g.outcome.crossings) sentences.push_back(crossing_sentence(study, a, g, c));
          if (sentences.empty()) sentences.push_back(no_crossing_sentence(study, a, g));
          groups.push_back({{"has_label", !g.labels.empty()},
                            {"label", group_words(study, g.labels)},
                            {"sentence", join(sentences, " ")}});
        }
        const ParamSpec& along = along_spec(study, a);
        method = r.metrics.empty()
                     ? fmt::format("{} compared across {} ({}), {} better, along the {} values of {}", metric,
                                   r.alternatives, join(a.alternatives, ", "),
                                   r.direction == Direction::minimize ? "lower" : "higher",
                                   a.groups.empty() ? 0 : a.groups.front().outcome.along_values.size(), along.name)
                     : fmt::format("{} compared with each other ({} better) along the {} values of {}", metric,
                                   r.direction == Direction::minimize ? "lower" : "higher",
                                   a.groups.empty() ? 0 : a.groups.front().outcome.along_values.size(), along.name);
        method += a.refined ? fmt::format("; each crossing refined by Brent's method re-evaluating the solver, to a relative "
                                          "tolerance of {:g}",
                                          r.tolerance.relative)
                            : "; on this axis a crossing is the pair of neighbouring values where the order flips";
        if (a.groups.size() > 1) method += fmt::format("; {} groups, one per combination of the other swept axes", a.groups.size());
        if (a.groups.size() > kMaxBreakevenFigures) {
          method += fmt::format(" (the first {} are drawn)", kMaxBreakevenFigures);
        }
        method += ".";
      }
      item["method"] = method;
      item["groups"] = groups;
      item["figures"] = figure_list(in, "breakeven:" + r.name, first_figure);
      list.push_back(item);
    }
  }
  json out;
  out["has_breakevens"] = !list.empty();
  out["list"] = list;
  return out;
}

// The alternative with the best value after the choice; kNoAlternative when no other has a value.
std::size_t runner_up(const DecisionResult& d, bool minimize) {
  std::size_t next = kNoAlternative;
  for (std::size_t i = 0; i < d.base_metrics.size(); ++i) {
    if (i == d.best || !std::isfinite(d.base_metrics[i])) continue;
    if (next == kNoAlternative || (minimize ? d.base_metrics[i] < d.base_metrics[next] : d.base_metrics[i] > d.base_metrics[next])) {
      next = i;
    }
  }
  return next;
}

// Whether a decision is safe: the 80 % intervals (the table's <metric>_p10 / _p90 columns) of the
// choice and the next alternative at the base point, and whether they overlap. Empty when the study
// has no interval for the metric or a row is not in the table.
std::string decision_interval_sentence(const ReportInputs& in, const SensitivityAnalysis& s, std::size_t best,
                                       std::size_t next) {
  if (in.analysed == nullptr || next >= s.alternative_points.size() || best >= s.alternative_points.size()) return "";
  const ResultTable& t = in.analysed->shown();
  const std::string& metric = s.request.metric;
  const int low = t.metric_column(interval_low_name(metric));
  const int high = t.metric_column(interval_high_name(metric));
  if (low < 0 || high < 0) return "";
  const auto row_of = [&](std::uint64_t point) {
    const auto it = std::find(t.point_index.begin(), t.point_index.end(), point);
    return it == t.point_index.end() ? t.rows() : static_cast<std::size_t>(it - t.point_index.begin());
  };
  const std::size_t best_row = row_of(s.alternative_points[best]);
  const std::size_t next_row = row_of(s.alternative_points[next]);
  if (best_row == t.rows() || next_row == t.rows()) return "";
  const double b_lo = t.metric(best_row, static_cast<std::size_t>(low)), b_hi = t.metric(best_row, static_cast<std::size_t>(high));
  const double n_lo = t.metric(next_row, static_cast<std::size_t>(low)), n_hi = t.metric(next_row, static_cast<std::size_t>(high));
  if (!std::isfinite(b_lo) || !std::isfinite(b_hi) || !std::isfinite(n_lo) || !std::isfinite(n_hi)) return "";
  const bool minimize = s.request.direction == Direction::minimize;
  const bool apart = minimize ? b_hi < n_lo : b_lo > n_hi;
  const QuantityDisplay md = metric_display(in.study, metric);
  return fmt::format("80 % intervals: {} {} to {}, {} {} to {}; {}", alternative_words(in.study, s, best), format_quantity(b_lo, md),
                     format_quantity(b_hi, md), alternative_words(in.study, s, next), format_quantity(n_lo, md), format_quantity(n_hi, md),
                     apart ? "they do not overlap, so the choice stands within the model's measured error"
                           : "they overlap, so the margin is inside the model's error: not a safe choice");
}

json sensitivity_context(const ReportInputs& in, std::size_t first_figure) {
  const ResolvedStudy& study = in.study;
  json list = json::array();
  if (in.analysed != nullptr) {
    for (const SensitivityRun& run : in.analysed->sensitivities) {
      const SensitivityRequest& r = *run.request;
      const QuantityDisplay md = metric_display(study, r.metric);
      json item;
      item["name"] = r.name;
      item["title"] = r.description.empty() ? heading_case(analysis_words(study, r)) : r.description;
      item["has_error"] = !run.analysis;
      item["error"] = run.error;
      json local = {{"intro", ""}, {"rows", json::array()}};
      json morris = {{"intro", ""}, {"rows", json::array()}};
      json sobol = {{"intro", ""}, {"convergence", ""}, {"rows", json::array()}};
      json decision = {{"intro", ""}, {"sentences", json::array()}, {"rows", json::array()}};
      std::string base;
      if (run.analysis) {
        const SensitivityAnalysis& s = *run.analysis;
        base = point_text(study, s.base_point);
        const auto input_value = [&](std::size_t i, double v) { return sensitivity_input_value(study, s, i, v); };
        if (s.local) {
          const LocalSensitivity& l = *s.local;
          local["intro"] = fmt::format("At the base point ({}), {} is {}. Each input moved by -{:g}% and +{:g}% in turn, "
                                       "the others held; the elasticity is d ln {} / d ln input (a central difference of "
                                       "+-{:g}%).",
                                       base, metric_words(study, r.metric), format_quantity(l.base_metric, md),
                                       100 * l.relative_change, 100 * l.relative_change, r.metric, 100 * l.elasticity_step);
          for (const TornadoBar& b : l.bars) {
            const UncertainInput& u = s.inputs[b.input];
            local["rows"].push_back({{"input", readable_input(study, u.name)},
                                     {"nominal", input_value(b.input, b.nominal)},
                                     {"low", format_quantity(b.metric_low, md)},
                                     {"high", format_quantity(b.metric_high, md)},
                                     {"swing", format_quantity(b.swing, md)},
                                     {"elasticity", std::isnan(b.elasticity) ? "n/a" : fmt::format("{:.3f}", b.elasticity)}});
          }
        }
        if (s.morris) {
          const MorrisResult& m = *s.morris;
          std::vector<std::string> ranked;
          for (std::size_t i : m.ranking) ranked.push_back(readable_input(study, s.inputs[i].name));
          morris["intro"] = fmt::format(
              "Morris screening: {} trajectories on a {}-level grid over each input's range, {} solver evaluations{}. "
              "Ranked by mu* (the mean size of an input's effect over its whole range): {}. Effects are in {} per input "
              "range.",
              m.trajectories, m.levels, format_grouped(static_cast<double>(m.evaluations)),
              m.missing > 0 ? fmt::format(" ({} without a value)", m.missing) : "", join(ranked, ", "),
              md.unit.empty() ? "metric units" : md.unit);
          for (std::size_t i : m.ranking) {
            const MorrisEffect& e = m.effects[i];
            morris["rows"].push_back({{"input", readable_input(study, s.inputs[i].name)},
                                      {"range", input_value(i, s.inputs[i].lo) + " to " + input_value(i, s.inputs[i].hi)},
                                      {"mu_star", format_quantity(e.mu_star, md)},
                                      {"mu", format_quantity(e.mu, md)},
                                      {"sigma", format_quantity(e.sigma, md)}});
          }
        }
        if (s.sobol) {
          const SobolResult& x = *s.sobol;
          sobol["intro"] = fmt::format(
              "Sobol indices from N = {} Saltelli samples (a Sobol' sequence; {} solver evaluations, N x (inputs + 2)), "
              "inputs uniform over their ranges{}. The first-order index is the share of the variance of {} an input "
              "explains alone; the total index adds its interactions.",
              format_grouped(static_cast<double>(x.samples)), format_grouped(static_cast<double>(x.evaluations)),
              x.rows_used < x.samples
                  ? fmt::format("; {} of the N rows had a point without a value and were dropped, so the indices are "
                                "those of the metric where it has one",
                                format_grouped(static_cast<double>(x.samples - x.rows_used)))
                  : "",
              r.metric);
          sobol["convergence"] =
              !(x.variance > 0)
                  ? "The metric does not vary over these ranges, so no index is defined."
                  : fmt::format("Convergence: between N/2 and N samples the indices moved by at most {:.3f}{}; the {:g}% "
                                "bootstrap intervals ({} resamples) are at most +-{:.3f} wide, an overstatement for "
                                "quasi-random samples.",
                                x.max_change,
                                x.max_change <= kConvergedChange ? ", so they are settled to about that"
                                                                 : ", more than 0.05: raise sobol.samples for settled indices",
                                100 * x.confidence, x.bootstrap, x.max_half_width);
          for (std::size_t i = 0; i < x.indices.size(); ++i) {
            const SobolIndex& v = x.indices[i];
            const auto interval = [&](double lo, double hi) {
              return std::isfinite(lo) ? fmt::format("[{:.3f}, {:.3f}]", lo, hi) : std::string("n/a");
            };
            sobol["rows"].push_back({{"input", readable_input(study, s.inputs[i].name)},
                                     {"range", input_value(i, s.inputs[i].lo) + " to " + input_value(i, s.inputs[i].hi)},
                                     {"first", fmt::format("{:.3f}", v.first)},
                                     {"first_interval", interval(v.first_low, v.first_high)},
                                     {"total", fmt::format("{:.3f}", v.total)},
                                     {"total_interval", interval(v.total_low, v.total_high)}});
          }
        }
        if (s.decision) {
          const DecisionResult& d = *s.decision;
          std::vector<std::string> values;
          for (std::size_t i = 0; i < s.alternatives.size(); ++i) {
            values.push_back(alternative_words(study, s, i) + " " + format_quantity(d.base_metrics[i], md));
          }
          decision["intro"] = fmt::format(
              "Decision: among {} by {} ({} is better), {} is the choice: {}. For each input, dsx scans changes up to "
              "{} in {} steps each way and bisects the first step that changes the choice to {}.",
              r.decide, metric_words(study, r.metric), r.direction == Direction::minimize ? "lower" : "higher",
              alternative_words(study, s, d.best), join(values, ", "), format_percent(r.flip.max_relative_change, 2), r.flip.scan_steps,
              format_percent(r.flip.tolerance, 2));
          const std::string interval = decision_interval_sentence(in, s, d.best, runner_up(d, r.direction == Direction::minimize));
          if (!interval.empty()) decision["intro"] = decision["intro"].get<std::string>() + " " + interval + ".";
          for (const std::string& sentence : flip_sentences(study, s)) decision["sentences"].push_back({{"text", sentence}});
          const auto cell = [](const FlipSearch& x) {
            if (x.found) return (x.relative_change > 0 ? "+" : "-") + format_percent(std::fabs(x.relative_change));
            if (x.limit == 0) return std::string("cannot change this way");
            return std::string("none up to ") + (x.limit > 0 ? "+" : "-") + format_percent(std::fabs(x.limit));
          };
          for (const DecisionFlip& f : d.flips) {
            decision["rows"].push_back({{"input", readable_input(study, s.inputs[f.input].name)},
                                        {"nominal", input_value(f.input, f.nominal)},
                                        {"up", cell(f.up)},
                                        {"down", cell(f.down)}});
          }
        }
      }
      item["base"] = base;
      item["has_local"] = !local["rows"].empty();
      item["local"] = local;
      item["has_morris"] = !morris["rows"].empty();
      item["morris"] = morris;
      item["has_sobol"] = !sobol["rows"].empty();
      item["sobol"] = sobol;
      item["has_decision"] = !decision["rows"].empty();
      item["decision"] = decision;
      item["figures"] = figure_list(in, "sensitivity:" + r.name, first_figure);
      list.push_back(item);
    }
  }
  json out;
  out["has_sensitivities"] = !list.empty();
  out["list"] = list;
  return out;
}

}  // namespace

namespace {

// Whether axis `a` leaves metric column `col` where it is: every two feasible rows of `t` that differ
// only in `a` hold the same value (same_objective_value). Owning cost does not depend on the price
// of renting, so two rows that differ only in it are not a tie between choices.
bool axis_moves_nothing(const ResultTable& t, std::size_t a, std::size_t col) {
  std::map<std::string, double> seen;  // the other axes' labels -> the metric there
  for (std::size_t r = 0; r < t.rows(); ++r) {
    if (t.status[r] != PointStatus::ok) continue;
    std::string key;
    for (std::size_t b = 0; b < t.axis_names.size(); ++b) {
      if (b != a) key += t.label(r, b) + '\x1f';
    }
    const auto [it, first] = seen.emplace(key, t.metric(r, col));
    if (!first && !same_objective_value(it->second, t.metric(r, col))) return false;
  }
  return true;
}

}  // namespace

// The rows that tie with the best one on metric column `col`, each by the axis values it differs in,
// and what the tied rows differ in: "tied with preemption = swap (equal within a relative 1e-09; the
// tied rows differ only in preemption)". At most three are named. An axis the metric does not depend
// on at all (axis_moves_nothing) is no tie: "cloud_gpu_hour_price does not move it".
std::string tie_text(const ResolvedStudy& study, const ResultTable& t, std::size_t best, std::size_t col,
                     const std::vector<std::size_t>& tied) {
  constexpr std::size_t kNamed = 3;
  std::vector<bool> differs(t.axis_names.size(), false);
  for (std::size_t r : tied) {
    for (std::size_t a = 0; a < t.axis_names.size(); ++a) differs[a] = differs[a] || t.label(r, a) != t.label(best, a);
  }
  std::vector<bool> inert(t.axis_names.size(), false);
  std::vector<std::string> inert_axes;
  for (std::size_t a = 0; a < differs.size(); ++a) {
    if (differs[a] && axis_moves_nothing(t, a, col)) {
      inert[a] = true;
      inert_axes.push_back(t.axis_names[a]);
    }
  }
  std::vector<std::string> named;
  std::vector<std::string> axes;
  std::vector<bool> counted(t.axis_names.size(), false);
  std::size_t ties = 0;
  for (std::size_t r : tied) {
    std::vector<std::string> parts;
    for (std::size_t a = 0; a < t.axis_names.size(); ++a) {
      if (inert[a] || t.label(r, a) == t.label(best, a)) continue;
      parts.push_back(t.axis_names[a] + " = " + readable_value(study, t.axis_names[a], t.label(r, a)));
      if (!counted[a]) axes.push_back(t.axis_names[a]);
      counted[a] = true;
    }
    if (parts.empty()) continue;  // differs from the best only in what the metric does not depend on
    if (ties++ < kNamed) named.push_back(join(parts, ", "));
  }
  const std::string inert_text =
      inert_axes.empty() ? ""
                         : fmt::format("{} {} not move it: every value gives the same", join(inert_axes, ", "),
                                       inert_axes.size() == 1 ? "does" : "do");
  if (ties == 0) return inert_text;
  std::string text = "tied with " + join(named, "; ");
  if (ties > kNamed) text += fmt::format(" and {} more", ties - kNamed);
  text += fmt::format(" (equal within a relative 1e{}: they differ {}in {}, and only the grid's order puts this one first)",
                      std::lround(std::log10(kTieRelativeTolerance)), axes.size() == 1 ? "only " : "", join(axes, ", "));
  return inert_text.empty() ? text : text + "; " + inert_text;
}

// The generated answer: per decision the choice, its margin over the next alternative and the
// smallest change of one input that flips it; the break-evens' statements; the best design point per
// objective. Every value comes from the same analysis objects as the sections below and the CSVs.
json answer_context(const ReportInputs& in) {
  const ResolvedStudy& study = in.study;
  json lines = json::array();
  if (in.analysed == nullptr) return json{{"has_answer", false}, {"lines", lines}};
  for (const SensitivityRun& run : in.analysed->sensitivities) {
    if (!run.analysis || !run.analysis->decision || run.analysis->decision->best == kNoAlternative) continue;
    const SensitivityAnalysis& s = *run.analysis;
    const DecisionResult& d = *s.decision;
    const SensitivityRequest& r = *run.request;
    const QuantityDisplay md = metric_display(study, r.metric);
    const bool minimize = r.direction == Direction::minimize;
    const std::size_t next = runner_up(d, minimize);
    const double best_value = d.base_metrics[d.best];
    std::string text = fmt::format("{} is the choice for the {} {} at {}, {}", alternative_words(study, s, d.best),
                                   minimize ? "lowest" : "highest", metric_words(study, r.metric),
                                   point_text(study, s.base_point, r.decide), format_quantity(best_value, md));
    if (next != kNoAlternative) {
      const double margin = std::fabs(d.base_metrics[next] - best_value) / std::fabs(best_value);
      text += fmt::format("; next is {} at {} ({} {})", alternative_words(study, s, next), format_quantity(d.base_metrics[next], md),
                          format_percent(margin), minimize ? "higher" : "lower");
      const std::string interval = decision_interval_sentence(in, s, d.best, next);
      if (!interval.empty()) text += ". " + interval;
    }
    const DecisionFlip* nearest = nullptr;
    const FlipSearch* nearest_way = nullptr;
    for (const DecisionFlip& f : d.flips) {
      for (const FlipSearch* w : {&f.up, &f.down}) {
        if (w->found && (nearest_way == nullptr || std::fabs(w->relative_change) < std::fabs(nearest_way->relative_change))) {
          nearest = &f;
          nearest_way = w;
        }
      }
    }
    if (nearest != nullptr) {
      text += fmt::format(". The nearest flip: if {} {} {}, {}.", input_phrase(study, s.inputs[nearest->input]),
                          nearest_way->relative_change > 0 ? "rises" : "falls",
                          format_percent(std::fabs(nearest_way->relative_change)),
                          nearest_way->new_best == kNoAlternative ? "no alternative keeps a value"
                                                                  : alternative_words(study, s, nearest_way->new_best) + " takes over");
    } else if (!d.flips.empty()) {
      text += fmt::format(". No single input scanned changes it (up to {} either way).",
                          format_percent(r.flip.max_relative_change));
    } else {
      text += ".";
    }
    lines.push_back({{"label", analysis_words(study, r)}, {"text", text}});
  }
  for (const BreakevenRun& b : in.analysed->breakevens) {
    if (!b.analysis || b.analysis->groups.empty()) continue;
    const BreakevenAnalysis& a = *b.analysis;
    const BreakevenGroup& g = a.groups.front();
    std::vector<std::string> sentences;
    for (const Crossing& c : g.outcome.crossings) sentences.push_back(crossing_sentence(study, a, g, c));
    if (sentences.empty()) sentences.push_back(no_crossing_sentence(study, a, g));
    std::string text = g.labels.empty() ? join(sentences, " ") : group_words(study, g.labels) + ": " + join(sentences, " ");
    if (a.groups.size() > 1) text += fmt::format(" ({} more groups under Break-even points.)", a.groups.size() - 1);
    lines.push_back({{"label", analysis_words(study, *b.request)}, {"text", text}});
  }
  for (const TopKList& list : in.analysed->best) {
    if (list.rows.empty()) continue;
    const ResultTable& shown = in.analysed->shown();
    const std::size_t col = shown.require_metric_column(list.objective.metric);
    const std::size_t r = list.rows.front();
    std::string text = fmt::format("{} ({})", row_words(study, shown, r),
                                   format_quantity(shown.metric(r, col),
                                                   metric_display(study, list.objective.metric)));
    if (!list.tied.empty()) text += ", " + tie_text(study, shown, r, static_cast<std::size_t>(col), list.tied);
    lines.push_back({{"label", objective_words(study, list.objective)}, {"text", text}});
  }
  return json{{"has_answer", !lines.empty()}, {"lines", lines}};
}

std::map<std::string, std::string> cited_values(const ReportInputs& in) {
  const ResolvedStudy& study = in.study;
  std::map<std::string, std::string> values;
  if (in.analysed == nullptr) return values;
  for (const SensitivityRun& run : in.analysed->sensitivities) {
    if (!run.analysis || !run.analysis->decision || run.analysis->decision->best == kNoAlternative) continue;
    const DecisionResult& d = *run.analysis->decision;
    const SensitivityRequest& r = *run.request;
    const QuantityDisplay md = metric_display(study, r.metric);
    const std::string key = "decision." + r.name + ".";
    values[key + "choice"] = alternative_words(study, *run.analysis, d.best);
    values[key + "value"] = format_quantity(d.base_metrics[d.best], md);
    const std::size_t next = runner_up(d, r.direction == Direction::minimize);
    if (next == kNoAlternative) continue;
    values[key + "next"] = alternative_words(study, *run.analysis, next);
    values[key + "next_value"] = format_quantity(d.base_metrics[next], md);
    values[key + "margin"] =
        format_percent(std::fabs(d.base_metrics[next] - d.base_metrics[d.best]) / std::fabs(d.base_metrics[d.best]));
  }
  for (const BreakevenRun& b : in.analysed->breakevens) {
    if (!b.analysis || b.analysis->groups.empty()) continue;
    const BreakevenGroup& g = b.analysis->groups.front();
    std::vector<std::string> sentences;
    for (const Crossing& c : g.outcome.crossings) sentences.push_back(crossing_sentence(study, *b.analysis, g, c));
    if (sentences.empty()) sentences.push_back(no_crossing_sentence(study, *b.analysis, g));
    values["breakeven." + b.request->name] = join(sentences, " ");
  }
  for (const TopKList& list : in.analysed->best) {
    if (list.rows.empty()) continue;
    const std::size_t col = in.analysed->shown().require_metric_column(list.objective.metric);
    const std::size_t r = list.rows.front();
    values["best." + list.objective.key()] = row_words(study, in.analysed->shown(), r);
    values["best." + list.objective.key() + ".value"] = format_quantity(
        in.analysed->shown().metric(r, col), metric_display(study, list.objective.metric));
  }
  return values;
}

json analysis_report_context(const ReportInputs& in) {
  // Analysis figures are numbered after the study's own.
  const std::size_t first_figure = effective_figures(in.study, in.results).size() + 1;
  json ctx;
  ctx["assertions"] = assertions_context(in.study, in.analysed);
  ctx["derived"] = derived_context(in.study, in.analysed);
  ctx["top_k"] = top_k_context(in.study, in.analysed);
  ctx["fronts"] = fronts_context(in, first_figure);
  ctx["breakeven"] = breakeven_context(in, first_figure);
  ctx["sensitivity"] = sensitivity_context(in, first_figure);
  ctx["answer"] = answer_context(in);
  return ctx;
}

}  // namespace dsx
