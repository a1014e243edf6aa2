#include "output/accuracy_report.hpp"

#include "output/bibliography.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "dse/quantity.hpp"
#include "output/calibration_report.hpp"
#include "output/csv.hpp"
#include "output/figures.hpp"
#include "output/files.hpp"
#include "output/format.hpp"
#include "output/gnuplot_text.hpp"
#include "output/report.hpp"

namespace dsx {

namespace {

constexpr double kParityWidthCm = 17;
constexpr double kParityHeightCm = 12;

std::string percent(double fraction) { return format_percent(fraction, 2); }

std::string metric_value(const Measurement& m, double value) {
  const MetricSpec& spec = m.point->solver->metrics()[m.metric];
  return format_quantity(value, describe_quantity(spec.name, spec.dimension));
}

// "hardware=h100_sxm, model=llama3_70b, batch=64": the inputs the row sets.
std::string inputs_text(const Measurement& m) {
  std::string out;
  const auto params = m.point->solver->params();
  for (std::size_t p = 0; p < params.size(); ++p) {
    if (std::find(m.written.begin(), m.written.end(), params[p].name) == m.written.end()) continue;
    if (m.point->bundle_setting(p) != nullptr) continue;
    out += fmt::format("{}{}={}", out.empty() ? "" : ", ", params[p].name, m.point->fixed_labels[p]);
  }
  for (const BundleUse& u : m.point->bundles) out += fmt::format("{}{}={}", out.empty() ? "" : ", ", u.kind, u.id);
  return out;
}

const RowFit* fit_of(const Calibration& c, std::size_t row) {
  for (const RowFit& f : c.rows) {
    if (f.row == row) return &f;
  }
  return nullptr;
}

std::string regime_of_row(const MeasurementSet& set, const RowFit& f) { return set.rows[f.row].regime; }

std::string parity_script(const std::vector<std::string>& regimes) {
  std::string out = "# dsx accuracy: predicted (source held out) against measured, one marker per regime.\n";
  out += "# Redraw after editing, in this folder: gnuplot parity.gp\n\n";
  out += house_style();
  out += "\n# ---- this figure ----\n";
  out += "set title \"Held-out prediction vs published measurement\" noenhanced\n";
  out += "set logscale xy\n";
  out += "set format x \"10^{%L}\"\nset format y \"10^{%L}\"\n";
  out += "set xlabel \"measured (each row in its metric's SI unit)\" noenhanced\n";
  out += "set ylabel \"predicted by dsx, its source left out of the fit\" noenhanced\n";
  out += "set key outside right top vertical Left reverse noenhanced\n";
  std::string plot = "plot x with lines lc rgb \"#000000\" lw 1 dt solid title \"y = x\", \\\n";
  plot += "     1.1*x with lines lc rgb \"#808080\" lw 1 dt 2 title \"+-10 %\", \\\n";
  plot += "     0.9*x with lines lc rgb \"#808080\" lw 1 dt 2 notitle";
  for (std::size_t i = 0; i < regimes.size(); ++i) {
    plot += fmt::format(", \\\n     \"parity.dat\" index {} using 1:2 with points lt {} title {}", i, i + 1,
                        gp_string(regimes[i]));
  }
  plot += "\n";
  out += gnuplot_terminal_block("parity", kParityWidthCm, kParityHeightCm, plot);
  return out;
}

}  // namespace

std::string regime_table_text(const Calibration& c) {
  std::string out = fmt::format("{:<20} {:>5} {:>7}  {:>8} {:>8}  {:>8} {:>8}  {:>15}  {:>8} {:>9}\n", "regime", "rows",
                                "sources", "MAPE", "median", "MAPE cv", "med cv", "80 % interval", "coverage", "cov in");
  for (const RegimeAccuracy& a : c.profile.regimes) {
    out += fmt::format("{:<20} {:>5} {:>7}  {:>8} {:>8}  {:>8} {:>8}  {:>15}  {:>8} {:>9}{}\n", a.name, a.rows, a.sources,
                       percent(a.mape), percent(a.median_ape), percent(a.mape_cv), percent(a.median_ape_cv),
                       interval_text(a), percent(a.coverage_cv), percent(a.coverage),
                       a.pooled ? "  (interval pooled)" : "");
  }
  return out;
}

std::string parameter_table_text(const MeasurementSet& set, const Calibration& c) {
  std::string out;
  for (std::size_t j = 0; j < c.profile.parameters.size(); ++j) {
    const FittedParameter& p = c.profile.parameters[j];
    out += fmt::format("{}.{}: {} (prior {}), spread {}, {}; {} measurements constrain it\n", p.solver, p.name,
                       number_text(p.value, 4), number_text(p.prior, 4), number_text(p.spread, 2),
                       p.identified ? "fitted" : (p.fixed ? "fixed at the prior" : "not identified, kept at the prior"), p.rows);
    std::vector<std::string> ids;
    for (const RowFit& f : c.rows) {
      if (f.fitted && j < f.elasticity.size() && std::fabs(f.elasticity[j]) >= kConstrainingElasticity) {
        ids.push_back(set.rows[f.row].id);
      }
    }
    if (!ids.empty()) out += fmt::format("    constrained by: {}\n", fmt::join(ids, ", "));
  }
  for (const HardwareFactor& h : c.profile.hardware_factors) {
    out += fmt::format("{} factor of {}: {}, spread {}; {} measurements constrain it\n", h.family, h.hardware,
                       number_text(h.factor, 4), number_text(h.spread, 2), h.rows);
  }
  return out;
}

std::string residual_table_text(const MeasurementSet& set, const Calibration& c) {
  std::string out = fmt::format("{:<44} {:<20} {:>14} {:>14} {:>9} {:>9}\n", "measurement", "regime", "measured",
                                "predicted", "error", "error cv");
  for (const RowFit& f : c.rows) {
    const Measurement& m = set.rows[f.row];
    if (!f.fitted) {
      out += fmt::format("{:<44} {:<20} {:>14} {}\n", m.id, m.regime, m.measured_label, f.problem);
      continue;
    }
    out += fmt::format("{:<44} {:<20} {:>14} {:>14} {:>+8.1f}% {:>+8.1f}%\n", m.id, m.regime, metric_value(m, m.measured),
                       metric_value(m, f.predicted), (f.predicted / m.measured - 1) * 100,
                       (f.predicted_cv / m.measured - 1) * 100);
  }
  return out;
}

std::string accuracy_csv(const MeasurementSet& set, const Calibration& c) {
  std::string out =
      "id,regime,status,solver,metric,inputs,measured,predicted,predicted_cv,error,error_cv,interval_low_cv,"
      "interval_high_cv,covered_cv,cannot_predict,citation,url,read,campaign\n";
  for (std::size_t i = 0; i < set.rows.size(); ++i) {
    const Measurement& m = set.rows[i];
    const RowFit* f = m.predictable() ? fit_of(c, i) : nullptr;
    const bool ok = f != nullptr && f->fitted;
    append_csv_field(out, m.id);
    out += ',';
    append_csv_field(out, m.regime);
    out += ',';
    append_csv_field(out, ok ? "predicted" : (m.predictable() ? "infeasible" : "cannot_predict"));
    out += ',';
    append_csv_field(out, m.predictable() ? std::string(m.point->solver->name()) : "");
    out += ',';
    append_csv_field(out, m.predictable() ? std::string(m.point->solver->metrics()[m.metric].name) : "");
    out += ',';
    append_csv_field(out, m.predictable() ? inputs_text(m) : m.workload);
    out += ',';
    const double nan = std::numeric_limits<double>::quiet_NaN();
    append_csv_number(out, m.predictable() ? m.measured : nan);
    for (double v : {ok ? f->predicted : nan, ok ? f->predicted_cv : nan, ok ? f->predicted / m.measured - 1 : nan,
                     ok ? f->predicted_cv / m.measured - 1 : nan, ok ? f->interval_low_cv : nan,
                     ok ? f->interval_high_cv : nan}) {
      out += ',';
      append_csv_number(out, v);
    }
    out += ',';
    out += ok ? (f->covered_cv ? "1" : "0") : "";
    out += ',';
    append_csv_field(out, m.predictable() ? (f != nullptr && !f->fitted ? f->problem : "") : m.cannot_predict);
    out += ',';
    append_csv_field(out, m.source.citation);
    out += ',';
    append_csv_field(out, m.source.url);
    out += ',';
    append_csv_field(out, m.source.read);
    out += ',';
    append_csv_field(out, m.source.campaign.empty() ? m.source.key() : m.source.campaign);
    out += '\n';
  }
  return out;
}

std::string regimes_csv(const Calibration& c) {
  std::string out =
      "regime,rows,sources,mape,median_ape,mape_cv,median_ape_cv,log_error_p10,log_error_p90,interval_pooled,"
      "coverage_cv,coverage\n";
  for (const RegimeAccuracy& a : c.profile.regimes) {
    append_csv_field(out, a.name);
    for (double v : {static_cast<double>(a.rows), static_cast<double>(a.sources), a.mape, a.median_ape, a.mape_cv,
                     a.median_ape_cv, a.log_error_p10, a.log_error_p90}) {
      out += ',';
      append_csv_number(out, v);
    }
    out += a.pooled ? ",1," : ",0,";
    append_csv_number(out, a.coverage_cv);
    out += ',';
    append_csv_number(out, a.coverage);
    out += '\n';
  }
  return out;
}

std::string accuracy_markdown(const AccuracyReportInputs& in, bool with_parity_figure) {
  const MeasurementSet& set = *in.set;
  const Calibration& c = *in.calibration;
  std::set<std::string> sources;
  std::size_t predicted = 0, cannot = 0;
  for (const Measurement& m : set.rows) {
    sources.insert(m.source.key());
    cannot += m.predictable() ? 0 : 1;
  }
  for (const RowFit& f : c.rows) predicted += f.fitted ? 1 : 0;
  std::string md = "# How accurate dsx is\n\n";
  md += fmt::format(
      "dsx predicted {} of the {} published measurements of its validation set ({} sources); {} it cannot express "
      "yet, and {} it can express but finds infeasible, are listed at the end. Each measurement was predicted twice: "
      "with the efficiency parameters fitted to every measurement (in-sample), and with them fitted to every "
      "measurement except those of the same source (held out: a paper's rows never help predict themselves). "
      "The held-out errors are the ones to trust for measurements dsx has not seen.\n\n",
      predicted, set.rows.size(), sources.size(), cannot, c.rows.size() - predicted);
  md += fmt::format("Reproduce with `{}`.\n\n", markdown_escape(in.command));
  md += "## Accuracy per regime\n\n";
  md += "MAPE: mean absolute percentage error; median: median absolute percentage error; held out: leave one source "
        "out. The 80 % interval is the range of measured / predicted (for a speed; a time's is inverted) that "
        "held-out errors of the regime span (10th to 90th percentile); coverage held out is the share of held-out "
        "measurements inside the interval computed without their own source (the target is 75-85 %), coverage "
        "in-sample the share of in-sample predictions inside the interval a study that uses the fitted profile "
        "prints around them.\n\n";
  md += "| regime | rows | sources | MAPE | median | MAPE held out | median held out | 80 % interval | coverage held out "
        "| coverage in-sample |\n";
  md += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const RegimeAccuracy& a : c.profile.regimes) {
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {}{} | {} | {} |\n", markdown_escape(a.name), a.rows,
                      a.sources, percent(a.mape), percent(a.median_ape), percent(a.mape_cv), percent(a.median_ape_cv),
                      interval_text(a), a.pooled ? " (pooled)" : "", percent(a.coverage_cv), percent(a.coverage));
  }
  md += "\n(pooled): the regime has fewer than 5 held-out errors of its own, so its interval is taken from every "
        "regime's held-out errors.\n\n";
  if (with_parity_figure) {
    md += "![Held-out prediction vs published measurement](figures/parity.svg)\n\n";
    md += "*Figure 1. Each measurement's held-out prediction against its published value, log-log, one marker per "
          "regime; the solid line is y = x, the dashed lines +-10 %. Each row is plotted in its own metric's SI "
          "unit (tokens/s, FLOP/s, s, B/s), so only the distance from the line compares across rows.*\n\n";
  }
  md += "## Fitted parameters\n\n";
  md += "| parameter | prior | fitted | spread (1 sd) | measurements constraining it | |\n|---|---:|---:|---:|---:|---|\n";
  for (const FittedParameter& p : c.profile.parameters) {
    md += fmt::format("| `{}.{}` | {} | {} | {} | {} | {} |\n", p.solver, p.name, number_text(p.prior, 4),
                      number_text(p.value, 4), p.identified ? number_text(p.spread, 2) : "", p.rows,
                      std::string(p.identified ? "fitted" : (p.fixed ? "fixed at the prior" : "not identified: kept at the prior")) +
                          (p.per_hardware.empty() ? "" : "; x the chip's " + p.per_hardware + " factor"));
  }
  if (!c.profile.hardware_factors.empty()) {
    md += "\nA parameter with a factor family (`per_hardware` in the regimes) takes, on a chip the measurements "
          "use, its fitted value times that chip's factor, capped at the parameter's bound; every other chip "
          "uses the fitted value.\n\n";
    md += "| family | hardware | factor | spread (1 sd) | measurements constraining it |\n|---|---|---:|---:|---:|\n";
    for (const HardwareFactor& h : c.profile.hardware_factors) {
      md += fmt::format("| {} | `{}` | {} | {} | {} |\n", h.family, h.hardware, number_text(h.factor, 4),
                        number_text(h.spread, 2), h.rows);
    }
  }
  md += "\n## Every measurement\n\n";
  std::map<std::string, std::vector<const RowFit*>> by_regime;
  for (const RowFit& f : c.rows) by_regime[regime_of_row(set, f)].push_back(&f);
  for (const auto& [regime, fits] : by_regime) {
    md += fmt::format("### {}\n\n", markdown_escape(regime));
    md += "| measurement | inputs | metric | measured | predicted (held out) | error | 80 % interval | source |\n";
    md += "|---|---|---|---:|---:|---:|---|---|\n";
    for (const RowFit* f : fits) {
      const Measurement& m = set.rows[f->row];
      const std::string metric(m.point->solver->metrics()[m.metric].name);
      const std::string source = m.source.url.empty()
                                     ? markdown_escape(m.source.citation)
                                     : fmt::format("[{}]({})", markdown_escape(m.source.citation), m.source.url);
      if (!f->fitted) {
        md += fmt::format("| {} | {}: {} | {} | {} | {} | | | {} |\n", markdown_escape(m.id), m.point->solver->name(),
                          markdown_escape(inputs_text(m)), metric, metric_value(m, m.measured),
                          markdown_escape(f->problem), source);
        continue;
      }
      md += fmt::format("| {} | {}: {} | {} | {} | {} | {:+.1f} % | {} to {}{} | {} |\n", markdown_escape(m.id),
                        m.point->solver->name(), markdown_escape(inputs_text(m)), metric, metric_value(m, m.measured),
                        metric_value(m, f->predicted_cv), (f->predicted_cv / m.measured - 1) * 100,
                        metric_value(m, f->interval_low_cv), metric_value(m, f->interval_high_cv),
                        f->covered_cv ? "" : " (outside)", source);
    }
    md += "\n";
  }
  if (cannot > 0) {
    md += "## What dsx cannot predict yet\n\n";
    md += "| measurement | regime | workload | measured | what is missing | source |\n|---|---|---|---:|---|---|\n";
    for (const Measurement& m : set.rows) {
      if (m.predictable()) continue;
      const std::string source = m.source.url.empty()
                                     ? markdown_escape(m.source.citation)
                                     : fmt::format("[{}]({})", markdown_escape(m.source.citation), m.source.url);
      md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", markdown_escape(m.id), markdown_escape(m.regime),
                        markdown_escape(m.workload), markdown_escape(m.measured_label),
                        markdown_escape(m.cannot_predict), source);
    }
    md += "\n";
  }
  if (!c.notes.empty()) {
    md += "## Notes from the fit\n\n";
    for (const std::string& n : c.notes) md += "- " + markdown_escape(n) + "\n";
    md += "\n";
  }
  return md;
}

void write_accuracy_report(const AccuracyReportInputs& in, const std::string& dir) {
  const MeasurementSet& set = *in.set;
  const Calibration& c = *in.calibration;
  make_directories(dir + "/figures");
  write_file_atomic(dir + "/accuracy.csv", accuracy_csv(set, c));
  write_file_atomic(dir + "/regimes.csv", regimes_csv(c));

  std::vector<std::string> regimes;
  std::string dat;
  std::size_t points = 0;
  for (const RegimeAccuracy& a : c.profile.regimes) {
    std::string block;
    for (const RowFit& f : c.rows) {
      if (!f.fitted || !std::isfinite(f.predicted_cv) || set.rows[f.row].regime != a.name) continue;
      block += fmt::format("{:.17g} {:.17g} {}\n", set.rows[f.row].measured, f.predicted_cv, dat_string(set.rows[f.row].id));
      ++points;
    }
    if (block.empty()) continue;
    regimes.push_back(a.name);
    dat += fmt::format("# regime {}\n{}\n\n", a.name, block);
  }
  const bool figure = points > 0;
  std::vector<RenderedFigure> rendered;
  if (figure) {
    FigureSource src;
    src.name = "parity";
    src.title = "Held-out prediction vs published measurement";
    src.script = parity_script(regimes);
    src.data = dat;
    src.points = points;
    rendered.push_back(render_figure_source(src, dir + "/figures"));
  }
  const std::string md = cite_references(accuracy_markdown(in, figure));
  write_file_atomic(dir + "/report.md", md);

  write_file_atomic(dir + "/report.html", markdown_page_html(in.template_dir, "How accurate dsx is", md, rendered,
                                                            "accuracy", set.content_hash, in.dsx_version,
                                                            in.git_revision));
}

}  // namespace dsx
