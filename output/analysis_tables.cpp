// The analyses' machine-readable outputs: CSV files and store tables (output/analysis_report.hpp).
#include "output/analysis_report.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "dse/analysis/blocks.hpp"
#include "output/analysis_text.hpp"
#include "output/cited_value.hpp"
#include "output/files.hpp"

namespace dsx {

using namespace analysis_text;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

// ---- CSV ----

std::string breakeven_csv(const ResolvedStudy& study, const BreakevenAnalysis& a) {
  std::vector<std::string> header;
  if (!a.groups.empty()) {
    for (const Selector& s : a.groups.front().labels) header.push_back(s.param);
  }
  for (const char* h : {"kind", "first", "second", "better_below", "better_above", "along", "along_value", "bracket_lo",
                        "bracket_hi", "tolerance", "metric_first", "metric_second", "evaluations", "statement",
                        "interval_low", "interval_high", "interval_share_in_range"}) {
    header.emplace_back(h);
  }
  Csv csv(header);
  const std::string along(along_spec(study, a).name);
  for (const BreakevenGroup& g : a.groups) {
    const auto labels = [&] {
      for (const Selector& s : g.labels) csv.text(s.label);
    };
    if (g.outcome.crossings.empty()) {
      labels();
      const std::size_t best = g.outcome.segments.size() == 1 ? g.outcome.segments.front().best : kNoAlternative;
      csv.text("none").empty(2).text(best == kNoAlternative ? "" : alt_name(a, best)).text(best == kNoAlternative ? "" : alt_name(a, best));
      csv.text(along).empty(7).text(no_crossing_sentence(study, a, g)).empty(3);
      csv.end();
      continue;
    }
    for (const Crossing& c : g.outcome.crossings) {
      labels();
      csv.text(crossing_kind_name(c.kind)).text(a.alternatives[c.first]).text(a.alternatives[c.second]);
      csv.text(alt_name(a, c.better_below)).text(alt_name(a, c.better_above)).text(along);
      csv.number(c.along_value).number(c.bracket_lo).number(c.bracket_hi).number(c.tolerance);
      csv.number(c.metric_first).number(c.metric_second).number(c.evaluations);
      csv.text(crossing_sentence(study, a, g, c));
      csv.number(c.interval_low).number(c.interval_high).number(c.interval_share_in_range);
      csv.end();
    }
  }
  return csv.str();
}

std::string breakeven_curves_csv(const ResolvedStudy& study, const BreakevenAnalysis& a) {
  std::vector<std::string> header;
  if (!a.groups.empty()) {
    for (const Selector& s : a.groups.front().labels) header.push_back(s.param);
  }
  const std::string along(along_spec(study, a).name);
  header.push_back(along);
  header.push_back(along + "_value");
  for (const std::string& alt : a.alternatives) header.push_back(alt);
  Csv csv(header);
  for (const BreakevenGroup& g : a.groups) {
    const BreakevenOutcome& o = g.outcome;
    for (std::size_t k = 0; k < o.along_values.size(); ++k) {
      for (const Selector& s : g.labels) csv.text(s.label);
      csv.text(o.along_labels[k]).number(o.along_values[k]);
      for (std::size_t i = 0; i < a.alternatives.size(); ++i) csv.number(o.curve(i, k));
      csv.end();
    }
  }
  return csv.str();
}

std::string sensitivity_csv(const ResolvedStudy& study, const SensitivityAnalysis& s) {
  (void)study;
  Csv csv({"analysis", "input", "nominal", "input_low", "input_high", "metric_low", "metric_high", "swing", "elasticity",
           "mu", "mu_star", "sigma", "effects", "first", "first_low", "first_high", "total", "total_low", "total_high",
           "first_half", "total_half", "flip_up", "flip_up_new_best", "flip_down", "flip_down_new_best", "flip_limit_up",
           "flip_limit_down"});
  // Columns after `input`: 7 local, 4 Morris, 8 Sobol, 6 flip.
  if (s.local) {
    for (const TornadoBar& b : s.local->bars) {
      csv.text("local").text(s.inputs[b.input].name).number(b.nominal).number(b.input_low).number(b.input_high);
      csv.number(b.metric_low).number(b.metric_high).number(b.swing).number(b.elasticity).empty(18);
      csv.end();
    }
  }
  if (s.morris) {
    for (std::size_t i = 0; i < s.morris->effects.size(); ++i) {
      const MorrisEffect& e = s.morris->effects[i];
      csv.text("morris").text(s.inputs[i].name).empty(7).number(e.mu).number(e.mu_star).number(e.sigma);
      csv.number(static_cast<double>(e.effects)).empty(14);
      csv.end();
    }
  }
  if (s.sobol) {
    for (std::size_t i = 0; i < s.sobol->indices.size(); ++i) {
      const SobolIndex& x = s.sobol->indices[i];
      csv.text("sobol").text(s.inputs[i].name).empty(11);
      csv.number(x.first).number(x.first_low).number(x.first_high).number(x.total).number(x.total_low).number(x.total_high);
      csv.number(x.first_half).number(x.total_half).empty(6);
      csv.end();
    }
  }
  if (s.decision) {
    for (const DecisionFlip& f : s.decision->flips) {
      const auto best = [&](const FlipSearch& x) {
        return x.found && x.new_best != kNoAlternative ? s.alternatives[x.new_best] : std::string();
      };
      csv.text("flip").text(s.inputs[f.input].name).number(f.nominal).empty(18);
      csv.number(f.up.found ? f.up.relative_change : kNaN).text(best(f.up));
      csv.number(f.down.found ? f.down.relative_change : kNaN).text(best(f.down));
      csv.number(f.up.limit).number(f.down.limit);
      csv.end();
    }
    // Each alternative's metric at the base point, in `nominal`: the row of the choice reads
    // "choice", the others "alternative"; the report's Decision and Answer print these values.
    for (std::size_t i = 0; i < s.alternatives.size() && i < s.decision->base_metrics.size(); ++i) {
      csv.text(i == s.decision->best ? "choice" : "alternative").text(s.alternatives[i]);
      csv.number(s.decision->base_metrics[i]).empty(24);
      csv.end();
    }
  }
  return csv.str();
}

std::string assertions_csv(const ResolvedStudy& study, const AnalysedRun& run) {
  const StudyAnalyses& a = analyses_of(study);
  Csv csv({"name", "expr", "where", "require", "verdict", "rows_checked", "rows_holding", "example"});
  for (const AssertionOutcome& o : run.assertions) {
    const Assertion& x = a.assertions[o.assertion];
    csv.text(x.name).text(x.expr).text(group_text(x.where, "=")).text(x.require == Quantifier::all ? "all" : "any");
    csv.text(o.held ? "held" : "failed").number(static_cast<double>(o.rows_checked)).number(static_cast<double>(o.rows_holding));
    csv.text(o.example_row ? row_text(run.shown(), *o.example_row) : "");
    csv.end();
  }
  return csv.str();
}

std::string top_k_csv(const ResolvedStudy& study, const AnalysedRun& run) {
  (void)study;
  std::vector<std::string> header = {"objective", "direction", "rank", "point_index"};
  for (const std::string& a : run.shown().axis_names) header.push_back(a);
  header.emplace_back("value");
  Csv csv(header);
  for (const TopKList& list : run.top_k) {
    const std::size_t col = run.shown().require_metric_column(list.objective.metric);
    for (std::size_t i = 0; i < list.rows.size(); ++i) {
      const std::size_t r = list.rows[i];
      csv.text(list.objective.key()).text(list.objective.direction == Direction::minimize ? "min" : "max");
      csv.number(static_cast<double>(i + 1)).number(static_cast<double>(run.shown().point_index[r]));
      for (std::size_t a = 0; a < run.shown().axis_names.size(); ++a) csv.text(run.shown().label(r, a));
      csv.number(run.shown().metric(r, col));
      csv.end();
    }
  }
  return csv.str();
}

// ---- store tables ----

namespace {

using Type = StoreTable::Type;

// The derived and intervals tables have a row per row of the run: they go to the store a row at a
// time instead of being built whole beside the table they are read from.
void write_derived_table(ResultStore& store, const ResolvedStudy& study, const AnalysedRun& run) {
  const StudyAnalyses& a = analyses_of(study);
  StoreTable t;
  t.name = "derived";
  t.columns = {{"point_index", Type::integer}, {"status", Type::text}, {"detail", Type::text}, {"kept", Type::integer}};
  std::vector<std::size_t> cols;
  for (const DerivedMetric& d : a.derived) {
    t.columns.push_back({d.name, Type::real});
    cols.push_back(run.table.require_metric_column(d.name));
  }
  std::vector<std::uint8_t> kept(run.table.rows(), run.formulas.every_row_kept ? 1 : 0);
  for (std::size_t r : run.formulas.kept) kept[r] = 1;
  store.write_table(t, run.table.rows(), [&](std::size_t r, std::vector<std::string>& text, std::vector<double>& numbers) {
    text.emplace_back(status_name(run.table.status[r]));
    text.push_back(run.table.detail(r));
    numbers.push_back(static_cast<double>(run.table.point_index[r]));
    numbers.push_back(static_cast<double>(kept[r]));
    for (std::size_t c : cols) numbers.push_back(run.table.metric(r, c));
  });
}

void write_intervals_table(ResultStore& store, const AnalysedRun& run) {
  StoreTable t;
  t.name = "intervals";
  t.columns = {{"point_index", Type::integer}};
  std::vector<std::size_t> cols;
  for (const std::string& name : run.interval_columns) {
    t.columns.push_back({name, Type::real});
    cols.push_back(run.table.require_metric_column(name));
  }
  store.write_table(t, run.table.rows(), [&](std::size_t r, std::vector<std::string>&, std::vector<double>& numbers) {
    numbers.push_back(static_cast<double>(run.table.point_index[r]));
    for (std::size_t c : cols) numbers.push_back(run.table.metric(r, c));
  });
}

StoreTable breakeven_table(const ResolvedStudy& study, const AnalysedRun& run) {
  StoreTable t;
  t.name = "breakeven";
  t.columns = {{"analysis", Type::text},     {"grp", Type::text},          {"kind", Type::text},
               {"first", Type::text},        {"second", Type::text},       {"better_below", Type::text},
               {"better_above", Type::text}, {"statement", Type::text},    {"along_value", Type::real},
               {"bracket_lo", Type::real},   {"bracket_hi", Type::real},   {"tolerance", Type::real},
               {"metric_first", Type::real}, {"metric_second", Type::real}, {"evaluations", Type::integer}};
  for (const BreakevenRun& b : run.breakevens) {
    if (!b.analysis) continue;
    const BreakevenAnalysis& a = *b.analysis;
    for (const BreakevenGroup& g : a.groups) {
      const std::string grp = group_text(g.labels, "=");
      if (g.outcome.crossings.empty()) {
        t.add_row({a.request.name, grp, "none", "", "", "", "", no_crossing_sentence(study, a, g)},
                  {kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, 0});
      }
      for (const Crossing& c : g.outcome.crossings) {
        t.add_row({a.request.name, grp, std::string(crossing_kind_name(c.kind)), a.alternatives[c.first],
                   a.alternatives[c.second], alt_name(a, c.better_below), alt_name(a, c.better_above),
                   crossing_sentence(study, a, g, c)},
                  {c.along_value, c.bracket_lo, c.bracket_hi, c.tolerance, c.metric_first, c.metric_second,
                   static_cast<double>(c.evaluations)});
      }
    }
  }
  return t;
}

StoreTable sensitivity_table(const AnalysedRun& run) {
  StoreTable t;
  t.name = "sensitivity";
  t.columns = {{"analysis", Type::text}, {"kind", Type::text}, {"input", Type::text}, {"statistic", Type::text},
               {"value", Type::real}};
  for (const SensitivityRun& r : run.sensitivities) {
    if (!r.analysis) continue;
    const SensitivityAnalysis& s = *r.analysis;
    const std::string& n = s.request.name;
    const auto add = [&](const char* kind, const std::string& input, const char* stat, double v) {
      t.add_row({n, kind, input, stat}, {v});
    };
    add("base", "", "point_index", static_cast<double>(s.base_point));
    if (s.local) {
      add("local", "", "base_metric", s.local->base_metric);
      add("local", "", "relative_change", s.local->relative_change);
      for (const TornadoBar& b : s.local->bars) {
        const std::string& in = s.inputs[b.input].name;
        add("local", in, "nominal", b.nominal);
        add("local", in, "input_low", b.input_low);
        add("local", in, "input_high", b.input_high);
        add("local", in, "metric_low", b.metric_low);
        add("local", in, "metric_high", b.metric_high);
        add("local", in, "swing", b.swing);
        add("local", in, "elasticity", b.elasticity);
      }
    }
    if (s.morris) {
      add("morris", "", "trajectories", static_cast<double>(s.morris->trajectories));
      add("morris", "", "levels", static_cast<double>(s.morris->levels));
      add("morris", "", "evaluations", static_cast<double>(s.morris->evaluations));
      for (std::size_t i = 0; i < s.morris->effects.size(); ++i) {
        const MorrisEffect& e = s.morris->effects[i];
        add("morris", s.inputs[i].name, "mu", e.mu);
        add("morris", s.inputs[i].name, "mu_star", e.mu_star);
        add("morris", s.inputs[i].name, "sigma", e.sigma);
      }
    }
    if (s.sobol) {
      const SobolResult& x = *s.sobol;
      add("sobol", "", "samples", static_cast<double>(x.samples));
      add("sobol", "", "rows_used", static_cast<double>(x.rows_used));
      add("sobol", "", "evaluations", static_cast<double>(x.evaluations));
      add("sobol", "", "variance", x.variance);
      add("sobol", "", "max_change", x.max_change);
      add("sobol", "", "max_half_width", x.max_half_width);
      for (std::size_t i = 0; i < x.indices.size(); ++i) {
        const SobolIndex& v = x.indices[i];
        const std::string& in = s.inputs[i].name;
        add("sobol", in, "first", v.first);
        add("sobol", in, "first_low", v.first_low);
        add("sobol", in, "first_high", v.first_high);
        add("sobol", in, "total", v.total);
        add("sobol", in, "total_low", v.total_low);
        add("sobol", in, "total_high", v.total_high);
      }
    }
    if (s.decision) {
      add("flip", "", "best", static_cast<double>(s.decision->best));
      for (const DecisionFlip& f : s.decision->flips) {
        add("flip", s.inputs[f.input].name, "up", f.up.found ? f.up.relative_change : kNaN);
        add("flip", s.inputs[f.input].name, "down", f.down.found ? f.down.relative_change : kNaN);
      }
    }
  }
  return t;
}

StoreTable assertions_table(const ResolvedStudy& study, const AnalysedRun& run) {
  const StudyAnalyses& a = analyses_of(study);
  StoreTable t;
  t.name = "assertions";
  t.columns = {{"name", Type::text},    {"expr", Type::text},           {"require", Type::text},
               {"verdict", Type::text}, {"example", Type::text},        {"rows_checked", Type::integer},
               {"rows_holding", Type::integer}};
  for (const AssertionOutcome& o : run.assertions) {
    const Assertion& x = a.assertions[o.assertion];
    t.add_row({x.name, x.expr, x.require == Quantifier::all ? "all" : "any", o.held ? "held" : "failed",
               o.example_row ? row_text(run.shown(), *o.example_row) : ""},
              {static_cast<double>(o.rows_checked), static_cast<double>(o.rows_holding)});
  }
  return t;
}

StoreTable top_k_table(const AnalysedRun& run) {
  StoreTable t;
  t.name = "top_k";
  t.columns = {{"objective", Type::text}, {"direction", Type::text}, {"point", Type::text},
               {"rank", Type::integer},   {"point_index", Type::integer}, {"value", Type::real}};
  for (const TopKList& list : run.top_k) {
    const std::size_t col = run.shown().require_metric_column(list.objective.metric);
    for (std::size_t i = 0; i < list.rows.size(); ++i) {
      const std::size_t r = list.rows[i];
      t.add_row({list.objective.key(), list.objective.direction == Direction::minimize ? "min" : "max", row_text(run.shown(), r)},
                {static_cast<double>(i + 1), static_cast<double>(run.shown().point_index[r]),
                 run.shown().metric(r, col)});
    }
  }
  return t;
}

StoreTable pareto_groups_table(const AnalysedRun& run) {
  StoreTable t;
  t.name = "pareto_groups";
  t.columns = {{"grp", Type::text}, {"point_index", Type::integer}, {"knee", Type::integer}};
  for (const ParetoGroup& g : run.fronts.groups) {
    for (std::size_t r : g.front) {
      const bool knee = g.knee && g.knee->row == r && g.knee->distance > 0;
      t.add_row({group_text(g.labels, "=")}, {static_cast<double>(run.shown().point_index[r]), knee ? 1.0 : 0.0});
    }
  }
  return t;
}

}  // namespace

void write_derived_store_table(const ResolvedStudy& study, const AnalysedRun& run, ResultStore& store) {
  const StudyAnalyses& a = analyses_of(study);
  if (!a.derived.empty() || !a.constraints.empty() || !a.filters.empty()) {
    write_derived_table(store, study, run);
  } else {
    store.drop_table("derived");
  }
}

void write_analysis_outputs(const ResolvedStudy& study, const AnalysedRun& run, ResultStore& store,
                            const std::string& run_dir) {
  const StudyAnalyses& a = analyses_of(study);
  for (const BreakevenRun& b : run.breakevens) {
    if (!b.analysis) continue;
    write_file_atomic(run_dir + "/breakeven_" + b.request->name + ".csv", breakeven_csv(study, *b.analysis));
    write_file_atomic(run_dir + "/breakeven_" + b.request->name + "_curves.csv", breakeven_curves_csv(study, *b.analysis));
  }
  for (const SensitivityRun& s : run.sensitivities) {
    if (s.analysis) write_file_atomic(run_dir + "/sensitivity_" + s.request->name + ".csv", sensitivity_csv(study, *s.analysis));
  }
  if (!a.assertions.empty()) write_file_atomic(run_dir + "/assertions.csv", assertions_csv(study, run));
  if (a.top_k > 0) write_file_atomic(run_dir + "/top_k.csv", top_k_csv(study, run));
  if (!study.values.empty()) write_file_atomic(run_dir + "/values.csv", values_csv(run.values));

  const auto put = [&](bool declared, const std::string& name, auto&& make) {
    if (declared) {
      store.write_table(make());
    } else {
      store.drop_table(name);
    }
  };
  // A table loaded with only the columns the study reads has not every interval column: its caller
  // writes the derived table, then the intervals table from the store's blocks (dse/cli/run.cpp).
  if (!run.columns_selected) {
    write_derived_store_table(study, run, store);
    if (!run.interval_columns.empty()) {
      write_intervals_table(store, run);
    } else {
      store.drop_table("intervals");
    }
  }
  put(!a.breakevens.empty(), "breakeven", [&] { return breakeven_table(study, run); });
  put(!a.sensitivities.empty(), "sensitivity", [&] { return sensitivity_table(run); });
  put(!a.assertions.empty(), "assertions", [&] { return assertions_table(study, run); });
  put(a.top_k > 0, "top_k", [&] { return top_k_table(run); });
  put(run.fronts.grouped || run.fronts.thinned, "pareto_groups", [&] { return pareto_groups_table(run); });
}

}  // namespace dsx
