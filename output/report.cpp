#include "output/calibration_report.hpp"
#include "output/report.hpp"

#include "output/bibliography.hpp"
#include "output/comparisons.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "dse/analysis/blocks.hpp"
#include "dse/diagnostics.hpp"
#include "dse/layouts.hpp"
#include "dse/pareto.hpp"
#include "dse/study_references.hpp"
#include "engine/precision.hpp"
#include "output/analysis_report.hpp"
#include "output/analysis_text.hpp"
#include "output/cited_value.hpp"
#include "output/figure_notes.hpp"
#include "output/files.hpp"
#include "output/format.hpp"
#include "output/readable_label.hpp"
#include "output/report_templates.hpp"
#include "output/sortable_tables.hpp"
#include "output/table_cells.hpp"

namespace dsx {

namespace {

using json = nlohmann::ordered_json;

constexpr std::size_t kMaxParetoRows = 50;   // longer fronts: the rest is in pareto.csv
constexpr std::size_t kMaxListedValues = 12;  // axis values listed in full up to this many
constexpr std::size_t kMaxErrorMessages = 5;

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

bool is_alnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (static_cast<unsigned char>(c) >= 0x80);
}

// ---- the report's context ----

QuantityDisplay metric_display(const ResolvedStudy& study, std::string_view name) {
  const auto m = find_study_metric(study, name);  // a solver or a derived metric
  return describe_quantity(name, m ? m->dimension : Dimension::dimensionless);
}

std::string direction_word(Direction d) { return d == Direction::minimize ? "minimize" : "maximize"; }

std::string fixed_label(const ResolvedStudy& study, std::size_t param) {
  const ParamSpec& spec = study.solver->params()[param];
  if (!study.fixed_labels[param].empty()) return readable_value(study, spec.name, study.fixed_labels[param]);
  if (spec.kind == ParamKind::number) {
    return format_quantity(study.fixed_values[param], describe_quantity(spec.name, spec.dimension));
  }
  return format_exact(study.fixed_values[param]);
}

// The id a bundle takes at a row: its fixed id, or the row's label on the bundle axis.
std::string bundle_id_at(const BundleUse& use, const ResultTable& results, std::size_t row) {
  if (use.axis < 0) return use.id;
  const int col = results.axis_column(use.kind);
  return col >= 0 ? results.label(row, static_cast<std::size_t>(col)) : "";
}

// "carbon_intensity_g_per_kwh = 20 g/kWh, pue = 1.06": what bundle `id` of `use` sets, as the
// catalog wrote it.
std::string bundle_settings_text(const ResolvedStudy& study, const BundleUse& use, const std::string& id) {
  std::vector<std::string> parts;
  const auto params = study.solver->params();
  if (use.axis < 0) {
    for (std::size_t p : use.params) parts.push_back(std::string(params[p].name) + " = " + fixed_label(study, p));
    return join(parts, ", ");
  }
  const Axis& axis = study.axes[static_cast<std::size_t>(use.axis)];
  const std::size_t n = axis.sets.size();
  for (std::size_t v = 0; v < axis.values.size(); ++v) {
    if (axis.values[v].label != id) continue;
    for (std::size_t i = 0; i < n; ++i) {
      parts.push_back(std::string(params[axis.sets[i]].name) + " = " + readable_label(axis.set_labels[v * n + i]));
    }
  }
  return join(parts, ", ");
}

// "region (studies/catalog/regions.yaml): each value sets carbon_intensity_g_per_kwh, pue".
std::string bundle_axis_description(const ResolvedStudy& study, const Axis& axis) {
  std::vector<std::string> names;
  for (std::size_t p : axis.sets) names.emplace_back(study.solver->params()[p].name);
  if (axis.param == kLayoutAxis) {
    return "layouts of the GPUs (gpus = tp x pp x cp x dp, ep within dp): each value sets " + join(names, ", ") +
           " together";
  }
  const BundleKind* kind = find_bundle_kind(axis.param);
  const std::string file = kind != nullptr ? " (catalog " + std::string(kind->file) + ")" : "";
  return axis.param + file + ": each value sets " + join(names, ", ") + " together";
}

// Every parameter of a row as the report prints it (readable_value: a chip or a model by its catalog
// name), axis labels from the row, the others from the study. The parameters a bundle sets are
// shown as the bundle: "region = quebec (carbon_intensity_g_per_kwh = 20 g/kWh, ...)".
std::string full_point(const ResolvedStudy& study, const ResultTable& results, std::size_t row) {
  std::vector<std::string> parts;
  if (study.solver == nullptr) return design_point_label(study, results, row);
  const auto params = study.solver->params();
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string name(params[i].name);
    if (const BundleUse* use = study.bundle_setting(i)) {
      if (use->params.empty() || use->params.front() != i) continue;
      const std::string id = bundle_id_at(*use, results, row);
      parts.push_back(use->kind + " = " + id + " (" + bundle_settings_text(study, *use, id) + ")");
      continue;
    }
    const int col = results.axis_column(name);
    if (col >= 0) {
      parts.push_back(name + " = " + readable_value(study, name, results.label(row, static_cast<std::size_t>(col))));
    } else {
      parts.push_back(name + " = " + fixed_label(study, i));
    }
  }
  return join(parts, ", ");
}

// Catalog ids a parameter of `kind` takes in the grid (axis values or the fixed value), in order.
std::vector<std::string> used_ids(const ResolvedStudy& study, ParamKind kind) {
  std::vector<std::string> ids;
  if (study.solver == nullptr) return ids;
  const auto params = study.solver->params();
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (params[i].kind != kind) continue;
    bool on_axis = false;
    for (const Axis& a : study.axes) {
      if (a.is_bundle()) {
        for (std::size_t k = 0; k < a.set_labels.size(); ++k) {
          if (a.sets[k % a.sets.size()] != i) continue;
          on_axis = true;
          ids.push_back(a.set_labels[k]);
        }
        continue;
      }
      if (a.param != params[i].name) continue;
      on_axis = true;
      for (const AxisValue& v : a.values) ids.push_back(v.label);
    }
    if (!on_axis && !study.fixed_labels[i].empty()) ids.push_back(study.fixed_labels[i]);
  }
  std::vector<std::string> unique;
  for (const std::string& id : ids) {
    if (std::find(unique.begin(), unique.end(), id) == unique.end()) unique.push_back(id);
  }
  return unique;
}

// The catalog entries (hardware and model ids) a row uses; their sources are in the appendix.
std::string row_sources(const ResolvedStudy& study, const ResultTable& results, std::size_t row) {
  std::vector<std::string> parts;
  if (study.solver == nullptr) return "";
  const auto params = study.solver->params();
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (params[i].kind != ParamKind::hardware && params[i].kind != ParamKind::model) continue;
    const int col = results.axis_column(params[i].name);
    std::string id = col >= 0 ? results.label(row, static_cast<std::size_t>(col)) : study.fixed_labels[i];
    if (const BundleUse* use = study.bundle_setting(i); use != nullptr && use->axis >= 0) {
      const Axis& axis = study.axes[static_cast<std::size_t>(use->axis)];
      const std::string bundle = bundle_id_at(*use, results, row);
      const std::size_t n = axis.sets.size();
      for (std::size_t v = 0; v < axis.values.size(); ++v) {
        for (std::size_t k = 0; k < n; ++k) {
          if (axis.values[v].label == bundle && axis.sets[k] == i) id = axis.set_labels[v * n + k];
        }
      }
    }
    if (params[i].kind == ParamKind::hardware ? study.catalog.find_hardware(id) != nullptr
                                              : study.catalog.find_model(id) != nullptr) {
      // The point names a chip by its catalog name; the appendix lists entries by id.
      const std::string name = readable_value(study, params[i].name, id);
      parts.push_back(std::string(params[i].name) + " " + (name == id ? id : name + " (" + id + ")"));
    }
  }
  for (const BundleUse& use : study.bundles) {
    const std::string id = bundle_id_at(use, results, row);
    if (study.catalog.find_bundle(use.kind, id) != nullptr) parts.push_back(use.kind + " " + id);
  }
  return join(parts, ", ");
}

}  // namespace

void count_rows(const ResultTable& rows, RunInfo& info) {
  info.points = rows.rows();
  info.feasible = info.infeasible = info.errors = 0;
  info.infeasible_by_reason.clear();
  for (std::size_t r = 0; r < rows.rows(); ++r) {
    const PointStatus s = rows.status[r];
    (s == PointStatus::ok ? info.feasible : s == PointStatus::infeasible ? info.infeasible : info.errors) += 1;
    if (s == PointStatus::infeasible) ++info.infeasible_by_reason[rows.detail(r)];
  }
}

std::string keep_description(const ResolvedStudy& study) {
  const StudyAnalyses& a = analyses_of(study);
  if (a.keep.all) return "every row";
  std::vector<std::string> parts;
  if (a.keep.front) parts.emplace_back(a.pareto.group.empty() ? "the Pareto front" : "the Pareto fronts");
  const std::size_t top = std::max(a.keep.top_k, a.top_k);
  if (top > 0) parts.push_back("the " + format_grouped(static_cast<double>(top)) + " best per objective");
  if (a.keep.sample > 0) parts.push_back("a sample of " + format_grouped(static_cast<double>(a.keep.sample)));
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  }
  return out;
}

namespace {

json run_context(const ReportInputs& in) {
  const RunInfo& info = in.info;
  const ResultTable& results = in.results;
  json run;
  run["points"] = format_grouped(static_cast<double>(info.points));
  run["feasible"] = format_grouped(static_cast<double>(info.feasible));
  run["infeasible"] = format_grouped(static_cast<double>(info.infeasible));
  run["errors"] = format_grouped(static_cast<double>(info.errors));
  const double points = static_cast<double>(info.points);
  run["feasible_share"] = points > 0 ? format_percent(static_cast<double>(info.feasible) / points) : "n/a";

  // Infeasible rows by reason (in the solver's order of reasons), errors by message.
  const std::map<std::string, std::uint64_t>& by_reason = info.infeasible_by_reason;
  std::map<std::string, std::uint64_t> by_error;
  for (std::size_t r = 0; r < results.rows(); ++r) {
    if (results.status[r] == PointStatus::error) ++by_error[results.detail(r)];
  }
  json excluded = json::array();
  for (const auto& [name, n] : info.excluded) {
    excluded.push_back({{"constraint", name}, {"count", format_grouped(static_cast<double>(n))}});
  }
  run["excluded"] = excluded;
  run["partial"] = info.points_swept < info.grid_points;
  run["grid_points"] = format_grouped(static_cast<double>(info.grid_points));
  run["points_swept"] = format_grouped(static_cast<double>(info.points_swept));
  run["keeps_some"] = !info.keep.empty();
  run["keep"] = info.keep;
  run["kept_rows"] = format_grouped(static_cast<double>(info.kept_rows));
  json reasons = json::array();
  std::set<std::string> listed;
  for (const std::string& reason : results.reasons) {
    const auto it = by_reason.find(reason);
    if (it == by_reason.end()) continue;
    reasons.push_back({{"reason", reason}, {"count", format_grouped(static_cast<double>(it->second))}});
    listed.insert(reason);
  }
  for (const auto& [reason, count] : by_reason) {
    if (listed.count(reason) != 0) continue;
    reasons.push_back({{"reason", reason.empty() ? "no reason recorded" : reason},
                       {"count", format_grouped(static_cast<double>(count))}});
  }
  run["has_infeasible_reasons"] = !reasons.empty();
  run["infeasible_reasons"] = reasons;
  std::vector<std::pair<std::string, std::uint64_t>> errors(by_error.begin(), by_error.end());
  std::stable_sort(errors.begin(), errors.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  json error_list = json::array();
  for (std::size_t i = 0; i < errors.size() && i < kMaxErrorMessages; ++i) {
    error_list.push_back({{"message", errors[i].first.empty() ? "no message recorded" : errors[i].first},
                          {"count", format_grouped(static_cast<double>(errors[i].second))}});
  }
  run["has_error_messages"] = !error_list.empty();
  run["error_messages"] = error_list;
  run["more_error_messages"] = errors.size() > kMaxErrorMessages
                                   ? fmt::format("{} more distinct messages", errors.size() - kMaxErrorMessages)
                                   : "";
  run["has_more_error_messages"] = errors.size() > kMaxErrorMessages;
  run["dsx_version"] = info.dsx_version.empty() ? "unknown" : info.dsx_version;
  run["git_revision"] = info.git_revision.empty() ? "unknown" : info.git_revision;
  run["study_hash"] = info.study_hash.empty() ? "unknown" : info.study_hash;
  run["catalog_hash"] = info.catalog_hash.empty() ? "unknown" : info.catalog_hash;
  return run;
}

json grid_context(const ResolvedStudy& study) {
  json grid;
  json axes = json::array();
  std::uint64_t total = 1;
  std::vector<std::string> product;
  for (const Axis& a : study.axes) {
    std::vector<std::string> labels;
    const std::size_t n = a.values.size();
    for (std::size_t k = 0; k < n; ++k) {
      if (n > kMaxListedValues && k == kMaxListedValues - 2) {
        labels.push_back(fmt::format("... ({} more)", n - kMaxListedValues + 1));
        k = n - 2;
        continue;
      }
      labels.push_back(readable_value(study, a.param, a.values[k].label));
    }
    std::string description;
    if (study.solver != nullptr && a.is_bundle()) {
      description = bundle_axis_description(study, a);
    } else if (study.solver != nullptr && a.param_index < study.solver->params().size()) {
      description = std::string(study.solver->params()[a.param_index].description);
    }
    axes.push_back({{"name", a.param}, {"values", join(labels, ", ")}, {"size", format_grouped(static_cast<double>(n))},
                    {"description", description}});
    total *= n;
    product.push_back(fmt::format("{} {}", n, a.param));
  }
  grid["axes"] = axes;
  grid["has_axes"] = !axes.empty();
  grid["total"] = format_grouped(static_cast<double>(total));
  grid["product"] = product.empty() ? "a single design point" : join(product, " x ");
  json fixed = json::array();
  if (study.solver != nullptr) {
    const auto params = study.solver->params();
    for (std::size_t i = 0; i < params.size(); ++i) {
      if (study.is_axis[i]) continue;
      const BundleUse* use = study.bundle_setting(i);
      if (use != nullptr && use->axis >= 0) continue;  // the bundle axis row and the list below show it
      std::string description(params[i].description);
      if (use != nullptr) description += " (set by " + use->kind + " " + use->id + ")";
      if (study.calibrated[i]) description += " (calibrated: profile " + study.calibration_name + ")";
      fixed.push_back({{"name", std::string(params[i].name)},
                       {"value", fixed_label(study, i)},
                       {"description", description}});
    }
  }
  grid["has_fixed"] = !fixed.empty();
  grid["fixed"] = fixed;
  json bundles = json::array();
  if (study.solver != nullptr) {
    for (const BundleUse& use : study.bundles) {
      if (use.kind == kLayoutAxis) continue;  // not a catalog entry: its label says what it sets
      std::vector<std::string> ids;
      if (use.axis < 0) {
        ids.push_back(use.id);
      } else {
        for (const AxisValue& v : study.axes[static_cast<std::size_t>(use.axis)].values) ids.push_back(v.label);
      }
      for (const std::string& id : ids) {
        const CatalogBundle* b = study.catalog.find_bundle(use.kind, id);
        bundles.push_back({{"kind", use.kind},
                           {"id", id},
                           {"name", b != nullptr ? b->name : id},
                           {"settings", bundle_settings_text(study, use, id)}});
      }
    }
  }
  grid["has_bundles"] = !bundles.empty();
  grid["bundles"] = bundles;
  json objectives = json::array();
  for (const Objective& o : study.objectives) {
    const auto m = find_study_metric(study, o.metric);  // a solver or a derived metric
    objectives.push_back({{"metric", o.metric},
                          {"where", o.where.empty() ? std::string() : " where " + analysis_text::where_text(study, o.where)},
                          {"direction", direction_word(o.direction)},
                          {"description", m ? m->description : ""}});
  }
  grid["has_objectives"] = !objectives.empty();
  grid["objectives"] = objectives;
  return grid;
}

// The cells of one comparison's row: dsx's value, its difference from the source, and why it is
// missing or what the study says when it differs (the explanation before its references are expanded).
struct ComparisonCells {
  std::string dsx = "n/a";
  std::string difference;
  std::string note;
  std::string point;
  std::string sources;
};

ComparisonCells comparison_cells(const ResolvedStudy& study, const ResultTable& results, const ComparisonOutcome& o) {
  const Comparison& c = *o.comparison;
  ComparisonCells cells;
  if (o.matches.size() != 1) {
    cells.note = o.matches.empty() ? "no design point matches the selectors"
                                   : fmt::format("{} design points match the selectors; a comparison needs exactly one",
                                                 o.matches.size());
    return cells;
  }
  results.require_metric_column(c.metric);
  const std::size_t r = o.matches.front();
  cells.point = full_point(study, results, r);
  cells.sources = row_sources(study, results, r);
  if (results.status[r] != PointStatus::ok) {
    cells.dsx = std::string(status_name(results.status[r]));
    cells.note = fmt::format("dsx finds this design point {}: {}", status_name(results.status[r]), results.detail(r));
    return cells;
  }
  const QuantityDisplay display = metric_display(study, c.metric);
  const double v = o.value;
  cells.dsx = format_quantity_like(v, c.expected, display);
  if (display.style == NumberStyle::percent) {
    cells.difference = format_signed((v - c.expected) * 100.0, "pp");
  } else if (c.expected != 0) {
    cells.difference = format_signed((v - c.expected) / std::fabs(c.expected) * 100.0, "%");
  } else {
    cells.difference = fmt::format("{}{}", v - c.expected >= 0 ? "+" : "", format_quantity(v - c.expected, display));
  }
  if (o.verdict != Verdict::agrees) cells.note = c.explanation.empty() ? "the study gives no explanation" : c.explanation;
  return cells;
}

// A comparison checks dsx's number for one configuration against its source: it reads every row
// (constraints applied), not only the rows the study's filters show, as comparisons.csv does.
const ResultTable& comparison_rows(const ReportInputs& in) {
  return in.analysed != nullptr ? in.analysed->table : in.results;
}

// The values study prose cites ({{decision...}}, {{compare...}}, {{value...}}: dse/study_references.hpp),
// with the other form of those that read differently where they open a sentence (a count in words).
struct CitedTexts {
  std::map<std::string, std::string> text;
  std::map<std::string, std::string> opening;
};

// The run's values: entries: the analysed run's, or computed here from the rows the report shows
// when it has none (a report rendered without the analyses).
std::vector<ComputedValue> run_values(const ReportInputs& in) {
  if (in.analysed != nullptr) return in.analysed->values;
  return compute_cited_values(in.study, in.results, in.results);
}

CitedTexts all_cited_values(const ReportInputs& in) {
  CitedTexts cited;
  cited.text = cited_values(in);
  for (const ComparisonOutcome& o : evaluate_comparisons(in.study, comparison_rows(in))) {
    const ComparisonCells cells = comparison_cells(in.study, comparison_rows(in), o);
    const std::string key = "compare." + o.comparison->name + ".";
    cited.text[key + "dsx"] = cells.dsx;
    cited.text[key + "difference"] = cells.difference.empty() ? "n/a" : cells.difference;
  }
  for (const ComputedValue& v : run_values(in)) {
    const std::string key = "value." + v.entry->name;
    cited.text[key] = cited_value_text(in.study, v);
    if (std::string opening = cited_value_opening_text(in.study, v); opening != cited.text[key]) {
      cited.opening[key] = std::move(opening);
    }
  }
  return cited;
}

// `text` with each reference replaced by its value, Markdown-escaped; "n/a" for one the run lacks.
std::string expand_cited(std::string_view text, const CitedTexts& cited) {
  std::string out;
  std::size_t at = 0;
  for (const TextReference& r : find_text_references(text)) {
    out.append(text.substr(at, r.offset - at));
    const auto opening = cited.opening.find(r.key);
    const auto it = cited.text.find(r.key);
    if (opening != cited.opening.end() && opens_sentence(text.substr(0, r.offset))) {
      out += markdown_escape(opening->second);
    } else {
      out += it == cited.text.end() ? std::string("n/a") : markdown_escape(it->second);
    }
    at = r.offset + r.length;
  }
  out.append(text.substr(at));
  return out;
}

// What the run should say it could not compute as asked: a values: entry that read no row.
json warnings_context(const ReportInputs& in) {
  json list = json::array();
  for (const ComputedValue& v : run_values(in)) {
    if (!v.warning.empty()) list.push_back({{"text", markdown_escape(v.warning)}});
  }
  json out;
  out["has_any"] = !list.empty();
  out["list"] = list;
  return out;
}

json comparisons_context(const ReportInputs& in, const CitedTexts& cited) {
  const ResolvedStudy& study = in.study;
  const ResultTable& results = comparison_rows(in);
  json rows = json::array();
  std::size_t agree = 0;
  for (const ComparisonOutcome& o : evaluate_comparisons(study, results)) {
    const Comparison& c = *o.comparison;
    const QuantityDisplay display = metric_display(study, c.metric);
    const auto spec = find_study_metric(study, c.metric);  // a solver or a derived metric
    std::vector<std::string> where;
    for (const Selector& s : c.where) where.push_back(s.param + " = " + readable_value(study, s.param, s.label));
    json row = {{"name", c.name},
                {"source", c.source},
                {"metric", c.metric},
                {"metric_words", display.label.empty() ? c.metric : display.label},
                {"metric_description", spec ? spec->description : std::string()},
                {"has_metric_description", spec && !spec->description.empty()},
                {"expected", format_quantity(c.expected, display)},
                {"tolerance", format_percent(c.tolerance, 2)},
                {"where", where.empty() ? "every design point" : join(where, ", ")}};
    const ComparisonCells cells = comparison_cells(study, results, o);
    const std::string note = expand_cited(cells.note, cited);
    const bool agrees = o.verdict == Verdict::agrees;
    const std::string verdict = o.verdict == Verdict::unmatched ? "n/a" : std::string(verdict_name(o.verdict));
    if (agrees) ++agree;
    row["dsx"] = cells.dsx;
    row["difference"] = cells.difference.empty() ? "n/a" : cells.difference;
    row["verdict"] = verdict;
    row["agrees"] = agrees;
    row["differs"] = verdict == "differs";
    row["explanation"] = note;
    row["has_explanation"] = !note.empty();
    row["point"] = cells.point.empty() ? "no single design point" : cells.point;
    row["catalog_sources"] = cells.sources;
    row["has_catalog_sources"] = !cells.sources.empty();
    rows.push_back(row);
  }
  json out;
  out["has_rows"] = !rows.empty();
  out["rows"] = rows;
  out["total"] = format_grouped(static_cast<double>(study.comparisons.size()));
  out["agree_count"] = format_grouped(static_cast<double>(agree));
  const std::size_t shown = in.analysed != nullptr ? in.analysed->shown().rows() : results.rows();
  out["rows_read"] = shown == results.rows()
                         ? fmt::format("all {} design points", format_grouped(static_cast<double>(results.rows())))
                         : fmt::format("all {} design points, not only the {} the study's filters keep",
                                       format_grouped(static_cast<double>(results.rows())),
                                       format_grouped(static_cast<double>(shown)));
  out["all_agree"] = !rows.empty() && agree == study.comparisons.size();
  return out;
}

// A catalog source as the provenance sentence "Source: ...." ends it: without its own final period.
std::string sentence_body(const std::string& source) {
  if (source.empty()) return "not given";
  std::string out = source;
  while (!out.empty() && (out.back() == '.' || out.back() == ' ')) out.pop_back();
  return out;
}

json pareto_context(const ReportInputs& in) {
  const ResolvedStudy& study = in.study;
  const ResultTable& results = in.results;
  json out;
  std::vector<std::string> objective_words;
  for (const Objective& o : study.objectives) {
    std::string words = analysis_text::metric_words(study, o.metric) + " (" + (o.direction == Direction::minimize ? "lowest" : "highest");
    if (!o.where.empty()) words += " where " + analysis_text::where_text(study, o.where);
    objective_words.push_back(words + ")");
  }
  out["objectives"] = join(objective_words, ", ");
  std::vector<std::size_t> front = in.pareto_rows;
  std::vector<std::size_t> cols;
  for (const Objective& o : study.objectives) cols.push_back(results.require_metric_column(o.metric));
  const bool usable = study.objectives.size() >= 2 && !front.empty();
  out["has_front"] = usable;
  out["none_reason"] = study.objectives.size() < 2
                           ? "The study names fewer than two objectives, so there is no trade-off to show."
                           : "No feasible design point, so there is no Pareto front.";
  json header = json::array(), rows = json::array();
  out["count"] = format_grouped(static_cast<double>(front.size()));
  out["count_words"] = front.size() == 1 ? std::string("1 design point is")
                                         : format_grouped(static_cast<double>(front.size())) + " design points are";
  out["has_knee"] = false;
  out["knee"] = "";
  out["grouped"] = !analyses_of(study).pareto.group.empty();
  out["truncated"] = false;
  out["shown"] = "";
  if (usable) {
    const Objective& first = study.objectives.front();
    const auto c0 = static_cast<std::size_t>(cols.front());
    std::stable_sort(front.begin(), front.end(), [&](std::size_t a, std::size_t b) {
      const double va = results.metric(a, c0), vb = results.metric(b, c0);
      return first.direction == Direction::minimize ? va < vb : va > vb;
    });
    for (const std::string& name : results.axis_names) header.push_back({{"name", name}, {"align", "---"}});
    for (const Objective& o : study.objectives) {
      header.push_back({{"name", metric_display(study, o.metric).label}, {"align", "---:"}});
    }
    for (std::size_t i = 0; i < front.size() && i < kMaxParetoRows; ++i) {
      const std::size_t r = front[i];
      json cells = json::array();
      for (std::size_t a = 0; a < results.axis_names.size(); ++a) {
        cells.push_back({{"value", readable_value(study, results.axis_names[a], results.label(r, a))}});
      }
      for (std::size_t k = 0; k < study.objectives.size(); ++k) {
        cells.push_back({{"value", format_quantity(results.metric(r, cols[k]),
                                                    metric_display(study, study.objectives[k].metric))}});
      }
      rows.push_back({{"cells", cells}});
    }
    if (front.size() > kMaxParetoRows) {
      out["truncated"] = true;
      out["shown"] = format_grouped(static_cast<double>(kMaxParetoRows));
    }
    // With grouped fronts the union is not one front, so it has no single knee: each group's knee is
    // in the per-group table.
    const bool grouped = !analyses_of(study).pareto.group.empty();
    if (study.objectives.size() == 2 && front.size() >= 3 && !grouped) {
      const auto knee = knee_point(results, study.objectives, in.pareto_rows);
      if (knee && knee->distance > 0) {
        std::vector<std::string> values;
        for (std::size_t k = 0; k < 2; ++k) {
          values.push_back(analysis_text::metric_words(study, study.objectives[k].metric) + " " +
                           format_quantity(results.metric(knee->row, cols[k]),
                                           metric_display(study, study.objectives[k].metric)));
        }
        out["has_knee"] = true;
        out["knee"] = design_point_label(study, results, knee->row) + " (" + join(values, ", ") + ")";
      }
    }
  }
  out["header"] = header;
  out["rows"] = rows;
  return out;
}

json figures_context(const std::vector<RenderedFigure>& figures, const std::string& run_dir,
                     const CitedTexts& cited) {
  json list = json::array();
  for (std::size_t i = 0; i < figures.size(); ++i) {
    const RenderedFigure& f = figures[i];
    list.push_back({{"number", std::to_string(i + 1)},
                    {"name", f.name},
                    {"title", f.title},
                    {"caption", expand_cited(f.caption, cited)},
                    {"has_caption", !f.caption.empty()},
                    {"description", f.description},
                    {"not_drawn", !f.error.empty()},
                    {"error_block", f.error.empty() ? std::string() : figure_error_quote(f.error, run_dir)},
                    {"remedy", f.remedy}});
  }
  json out;
  out["has_figures"] = !list.empty();
  out["list"] = list;
  return out;
}

// "host link 32.0 GB/s and accelerator link 300 GB/s, one way each".
std::string links_text(const HardwareSpec& h) {
  std::vector<std::string> links;
  if (h.host_link_bandwidth_bytes_per_s > 0) {
    links.push_back("host link " + format_si(h.host_link_bandwidth_bytes_per_s, "B/s"));
  }
  if (h.accelerator_link_bandwidth_bytes_per_s > 0) {
    links.push_back("accelerator link " + format_si(h.accelerator_link_bandwidth_bytes_per_s, "B/s"));
  }
  if (links.empty()) return "no host or accelerator link listed";
  std::string out = join(links, " and ") + (links.size() == 2 ? ", one way each" : " one way");
  if (h.accelerator_link_bandwidth_bytes_per_s <= 0) out += ", no accelerator link";
  return out;
}

json provenance_context(const ResolvedStudy& study) {
  json hardware = json::array();
  for (const std::string& id : used_ids(study, ParamKind::hardware)) {
    const HardwareSpec* h = study.catalog.find_hardware(id);
    if (h == nullptr) continue;
    std::vector<std::string> peaks;
    for (Precision p : kAllPrecisions) {
      if (h->supports(p)) peaks.push_back(fmt::format("{} {}", precision_name(p), format_si(h->peak(p), "FLOP/s")));
    }
    hardware.push_back({{"id", h->id},
                        {"name", h->name},
                        {"peaks", peaks.empty() ? "none listed" : join(peaks, ", ")},
                        {"memory", format_bytes(h->memory_bytes)},
                        {"bandwidth", format_si(h->memory_bandwidth_bytes_per_s, "B/s")},
                        {"links", links_text(*h)},
                        {"tdp", h->tdp_known() ? format_si(h->tdp_w, "W") : std::string("unknown")},
                        {"idle", format_percent(h->idle_power_fraction)},
                        {"price", h->price_usd > 0 ? format_grouped(h->price_usd) + " USD" : "unknown"},
                        {"source", sentence_body(h->source)}});
  }
  json models = json::array();
  for (const std::string& id : used_ids(study, ParamKind::model)) {
    const CatalogModel* m = study.catalog.find_model(id);
    if (m == nullptr) continue;
    std::vector<std::string> params;
    for (const auto& [k, v] : m->params) params.push_back(k + " = " + v);
    const ModelGraph& g = m->prepared.eager;
    models.push_back({{"id", m->id},
                      {"name", m->name},
                      {"architecture", m->architecture},
                      {"params", params.empty() ? "defaults" : join(params, ", ")},
                      {"parameter_count", format_grouped(g.parameter_count)},
                      {"flops", format_si(g.total_flops_per_sample(), "FLOP")},
                      {"sample_unit", g.sample_unit},
                      {"kernels_eager", format_grouped(g.total_kernels())},
                      {"kernels_compiled", format_grouped(m->prepared.compiled.total_kernels())},
                      {"source", sentence_body(m->source)}});
  }
  json bundles = json::array();
  for (const CatalogBundle& b : study.catalog.bundles) {
    std::vector<std::string> values;
    for (const auto& [name, label] : b.values) values.push_back(name + " = " + label);
    bundles.push_back({{"kind", b.kind},
                       {"id", b.id},
                       {"name", b.name},
                       {"values", join(values, ", ")},
                       {"source", sentence_body(b.source)}});
  }
  json metrics = json::array();
  if (study.solver != nullptr) {
    for (const MetricSpec& m : study.solver->metrics()) {
      const QuantityDisplay d = describe_quantity(m.name, m.dimension);
      metrics.push_back({{"name", std::string(m.name)},
                         {"unit", d.unit.empty() ? "count" : d.unit},
                         {"description", std::string(m.description)}});
    }
  }
  json out;
  out["has_hardware"] = !hardware.empty();
  out["hardware"] = hardware;
  out["has_models"] = !models.empty();
  out["models"] = models;
  out["has_bundles"] = !bundles.empty();
  out["bundles"] = bundles;
  out["has_metrics"] = !metrics.empty();
  out["metrics"] = metrics;
  return out;
}

json report_context(const ReportInputs& in, const std::vector<RenderedFigure>& figures) {
  const ResolvedStudy& study = in.study;
  json ctx;
  ctx["title"] = study.title.empty() ? study.name : study.title;
  ctx["question"] = study.question;
  ctx["has_question"] = !study.question.empty();
  json sections = json::array();
  const CitedTexts cited = all_cited_values(in);
  for (const Section& sec : study.sections) {
    sections.push_back({{"title", sec.title}, {"text", expand_cited(sec.text, cited)}});
  }
  ctx["sections"] = sections;
  ctx["study"] = {{"name", study.name},
                  {"file", study.file},
                  {"solver", study.solver != nullptr ? std::string(study.solver->name()) : "none"},
                  {"solver_description", study.solver != nullptr ? std::string(study.solver->description()) : ""}};
  ctx["run"] = run_context(in);
  ctx["grid"] = grid_context(study);
  ctx["calibration"] = calibration_context(study);
  ctx["comparisons"] = comparisons_context(in, cited);
  ctx["pareto"] = pareto_context(in);
  ctx["figures"] = figures_context(figures, in.run_dir, cited);
  ctx["provenance"] = provenance_context(study);
  ctx["analyses"] = analysis_report_context(in);
  std::vector<std::string> failed;
  if (in.analysed != nullptr) {
    for (const BreakevenRun& b : in.analysed->breakevens) {
      if (!b.analysis) failed.push_back("the break-even analysis '" + b.request->name + "'");
    }
    for (const SensitivityRun& s : in.analysed->sensitivities) {
      if (!s.analysis) failed.push_back("the sensitivity analysis '" + s.request->name + "'");
    }
  }
  ctx["incomplete"] = incomplete_context(ctx, failed);
  ctx["warnings"] = warnings_context(in);
  return ctx;
}

bool is_list_item(std::string_view line) {
  const std::size_t indent = line.find_first_not_of(' ');
  return indent != std::string_view::npos && line.substr(indent).starts_with("- ");
}

// Sections that render nothing leave blank lines behind: at most one blank line in a row outside
// fenced code, none between two items of a list, none at the start, one line end at the end.
std::string tidy_markdown(const std::string& text) {
  std::string out;
  bool in_fence = false;
  bool after_item = false;  // the last line written that is not blank is a list item
  int blank_run = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    const bool blank = line.find_first_not_of(" \t\r") == std::string_view::npos;
    if (line.starts_with("```") || line.starts_with("~~~")) in_fence = !in_fence;
    if (blank && !in_fence) {
      if (out.empty() || blank_run > 0) continue;
      ++blank_run;
      out += '\n';
      continue;
    }
    const bool item = !in_fence && is_list_item(line);
    if (blank_run > 0 && after_item && item) out.pop_back();
    after_item = item;
    blank_run = 0;
    out.append(line);
    out += '\n';
  }
  while (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') out.pop_back();
  return out;
}

}  // namespace

std::string markdown_escape(std::string_view text) {
  std::string s(text);
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  std::string out;
  out.reserve(s.size() + 8);
  // A value that would start a block when it begins a line: heading, list, quote, rule.
  std::size_t start = 0;
  if (!s.empty()) {
    const char c0 = s[0];
    const bool next_is_space = s.size() == 1 || s[1] == ' ';
    const bool only_rule_chars = s.find_first_not_of("-=_* ") == std::string::npos;
    if (((c0 == '#' || c0 == '+' || c0 == '-') && next_is_space) || c0 == '>' || ((c0 == '-' || c0 == '=') && only_rule_chars)) {
      out += '\\';
      out += c0;
      start = 1;
    } else {
      std::size_t d = 0;
      while (d < s.size() && d < 9 && s[d] >= '0' && s[d] <= '9') ++d;
      if (d > 0 && d < s.size() && (s[d] == '.' || s[d] == ')') && (d + 1 == s.size() || s[d + 1] == ' ')) {
        out.append(s, 0, d);
        out += '\\';
        out += s[d];
        start = d + 1;
      }
    }
  }
  for (std::size_t i = start; i < s.size(); ++i) {
    const char c = s[i];
    const char prev = i > 0 ? s[i - 1] : ' ';
    const char next = i + 1 < s.size() ? s[i + 1] : ' ';
    bool escape = false;
    switch (c) {
      case '\\': case '`': case '*': case '[': case ']': case '<': case '|': case '~': escape = true; break;
      case '_': escape = !(is_alnum(prev) && is_alnum(next)); break;
      case '&': escape = is_alnum(next) || next == '#'; break;
      default: break;
    }
    if (escape) out += '\\';
    out += c;
  }
  return out;
}

std::string number_figures_in_reading_order(const std::string& markdown) {
  // A figure is defined where its heading ("### Figure N:"), caption ("*Figure N.*") or the note that
  // stands for it ("**Figure N was not drawn.**") stands.
  const auto number_at = [&](std::size_t digits) {
    std::size_t end = digits;
    while (end < markdown.size() && std::isdigit(static_cast<unsigned char>(markdown[end])) != 0) ++end;
    return std::pair{markdown.substr(digits, end - digits), end};
  };
  std::map<std::string, std::string> renumbered;
  constexpr std::string_view kFigure = "Figure ";
  for (std::size_t p = markdown.find(kFigure); p != std::string::npos; p = markdown.find(kFigure, p + 1)) {
    const auto [number, end] = number_at(p + kFigure.size());
    if (number.empty() || end >= markdown.size()) continue;
    const bool heading = p >= 4 && markdown.compare(p - 4, 4, "### ") == 0 && markdown[end] == ':';
    const bool caption = p >= 1 && markdown[p - 1] == '*' && markdown.compare(end, 2, ".*") == 0;
    const bool note = p >= 2 && markdown.compare(p - 2, 2, "**") == 0 && markdown.compare(end, 17, " was not drawn.**") == 0;
    if ((heading || caption || note) && renumbered.count(number) == 0) {
      renumbered.emplace(number, std::to_string(renumbered.size() + 1));
    }
  }
  std::string out;
  out.reserve(markdown.size());
  std::size_t copied = 0;
  for (std::size_t p = markdown.find(kFigure); p != std::string::npos; p = markdown.find(kFigure, p + 1)) {
    const auto [number, end] = number_at(p + kFigure.size());
    const auto it = renumbered.find(number);
    if (it == renumbered.end()) continue;
    out.append(markdown, copied, p + kFigure.size() - copied);
    out += it->second;
    copied = end;
  }
  out.append(markdown, copied, std::string::npos);
  return out;
}

std::string render_report_markdown(const ReportInputs& inputs, const std::vector<RenderedFigure>& figures) {
  return keep_table_values_whole(cite_references(number_figures_in_reading_order(tidy_markdown(
      render_templates(inputs.template_dir, "report.md.mustache", report_context(inputs, figures), TemplateEscape::markdown)))));
}

std::string render_report_html(const ReportInputs& inputs, const std::vector<RenderedFigure>& figures,
                               std::string_view markdown) {
  return markdown_page_html(inputs.template_dir, inputs.study.title.empty() ? inputs.study.name : inputs.study.title,
                            markdown, report_figures(inputs, figures), inputs.study.name, inputs.info.study_hash,
                            inputs.info.dsx_version, inputs.info.git_revision, inputs.trust_study_html);
}

void render_report(const ReportInputs& inputs, const std::vector<RenderedFigure>& figures) {
  const std::string markdown = render_report_markdown(inputs, figures);
  const std::string html = render_report_html(inputs, figures, markdown);
  write_file_atomic(inputs.run_dir + "/report.md", markdown);
  write_file_atomic(inputs.run_dir + "/report.html", html);
}

}  // namespace dsx
