#include "output/analysis_figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "dse/analysis/blocks.hpp"
#include "dse/grid.hpp"
#include "output/figure_parts.hpp"
#include "output/files.hpp"
#include "output/format.hpp"
#include "output/gnuplot_text.hpp"
#include "output/analysis_text.hpp"
#include "output/readable_label.hpp"
#include "output/scatter_thinning.hpp"

namespace dsx {

namespace {

constexpr double kWidthCm = 17.0;
constexpr double kPlotHeightCm = 10.0;
constexpr double kBarBaseCm = 3.0;  // horizontal bars: margins, title, axis and key
constexpr double kBarStepCm = 0.75;
constexpr double kBarMinCm = 6.0;
constexpr double kBarMaxCm = 24.0;
constexpr double kBarHalfHeight = 0.35;
constexpr std::size_t kSobolMaxLabelLines = 3;  // more lines under a Sobol bar pair: the inputs go down the side
constexpr double kSobolAcrossStepCm = 1.1;      // Sobol bars across: per input (two bars)
using figure_parts::kBarLinetypeBase;  // house style: stacked-bar fills
using figure_parts::kSeriesLinetypes;  // house style: series linetypes
constexpr std::string_view kMarkInk = "#4d4d4d";
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A tic label: gnuplot reads explicit tic labels as formats for the tic's value, so '%' is doubled.
std::string percent_doubled(std::string_view s) {
  std::string t;
  for (char c : s) {
    if (c == '%') t += '%';
    t += c;
  }
  return t;
}
std::string tic_string(std::string_view s) { return gp_string(percent_doubled(s)); }

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i > 0 ? std::string(sep) : "") + parts[i];
  return out;
}

std::string num(double v) { return format_exact(v); }

// gnuplot's expression for a data column times the axis factor.
std::string scaled(int column, double factor) {
  if (factor == 1) return fmt::format("${}", column);
  return fmt::format("${}*{}", column, format_exact(factor));
}

// A title in lines that fit above the plot, as a full-width study figure's do.
std::vector<std::string> title_lines(std::string_view title) {
  return figure_parts::title_lines(title, figure_parts::kTitleDoubleCm);
}

// The height a wrapped title adds.
double title_extra_cm(std::string_view title) {
  return figure_parts::kTitleLineCm * static_cast<double>(title_lines(title).size() - 1);
}

// `on_canvas`: the title centred on the whole canvas (canvas_title_commands), for figures whose long
// tic labels push the plot to the right.
std::string header(std::string_view name, std::string_view title, bool on_canvas = false) {
  std::string out = fmt::format("# dsx analysis figure '{}': {}\n", name, title);
  out += fmt::format(
      "# Draws {0}.svg, {0}.pdf and {0}.png from {0}.dat.\n"
      "# The data is in SI units; the plot commands scale each axis for reading.\n"
      "# Redraw after editing, in this folder: gnuplot {0}.gp\n\n",
      name);
  out += house_style();
  out += "\n# ---- this figure ----\n";
  out += on_canvas ? canvas_title_commands(title_lines(title))
                   : fmt::format("set title {} noenhanced\n", gp_lines(title_lines(title)));
  return out;
}

struct Axis {
  QuantityDisplay display;
  AxisScale scale;
  bool log = false;
};

// An axis for values of `display`: a readable prefix, logarithmic when the values are positive and
// span a factor of 30 or more.
constexpr double kLogSpan = 30;  // positive values spanning this factor get a log axis

// The extent of an axis's values, gathered one value at a time.
struct AxisExtent {
  double lo = std::numeric_limits<double>::infinity();
  double hi = 0;
  bool positive = true;
  void include(double v) {
    if (!std::isfinite(v)) return;
    positive = positive && v > 0;
    lo = std::min(lo, std::fabs(v));
    hi = std::max(hi, std::fabs(v));
  }
};

Axis make_axis(const QuantityDisplay& display, const AxisExtent& e, bool allow_log = true) {
  Axis a;
  a.display = display;
  a.scale = choose_axis_scale(display, e.hi);
  a.log = allow_log && e.positive && e.hi > 0 && e.lo > 0 && e.hi / e.lo >= kLogSpan;
  return a;
}

Axis make_axis(const QuantityDisplay& display, const std::vector<double>& values, bool allow_log = true) {
  AxisExtent e;
  for (const double v : values) e.include(v);
  return make_axis(display, e, allow_log);
}

std::string axis_commands(char axis, const Axis& a) {
  std::string out = fmt::format("set {}label {} noenhanced\n", axis, gp_string(axis_title(a.display, a.scale)));
  if (a.log) out += fmt::format("set logscale {} 10\n", axis);
  out += fmt::format("set format {} \"%g\"\n", axis);
  return out;
}

QuantityDisplay metric_display(const ResolvedStudy& study, const std::string& metric) {
  const auto m = find_study_metric(study, metric);
  return describe_quantity(metric, m ? m->dimension : Dimension::dimensionless);
}

std::string words(const QuantityDisplay& d, const std::string& name) { return d.label.empty() ? name : d.label; }

// ---- break-even ----

FigureSource breakeven_figure(const ResolvedStudy& study, const BreakevenAnalysis& a, std::size_t g,
                              const std::string& name) {
  const BreakevenGroup& group = a.groups[g];
  const BreakevenOutcome& o = group.outcome;
  const ParamSpec& along = study.solver->params()[a.along_param];
  const bool numeric = along.kind == ParamKind::number;
  const std::string metric = a.request.metrics.empty() ? a.request.metric : a.request.metrics.front();
  const QuantityDisplay y_display = metric_display(study, metric);
  const QuantityDisplay x_display = describe_quantity(along.name, along.dimension);
  const std::size_t A = a.alternatives.size();
  const std::size_t K = o.along_values.size();

  FigureSource src;
  src.name = name;
  src.title = a.request.metrics.empty() ? fmt::format("{} along {}", words(y_display, metric), along.name)
                                       : fmt::format("{} along {}", join(a.alternatives, " vs "), along.name);
  if (!group.labels.empty()) src.title += " (" + analysis_text::group_words(study, group.labels, true) + ")";
  std::vector<double> ys(o.curves.begin(), o.curves.end());
  std::vector<double> xs;
  for (std::size_t k = 0; k < K; ++k) xs.push_back(numeric ? o.along_values[k] : static_cast<double>(k));
  for (const Crossing& c : o.crossings) {
    if (std::isfinite(c.along_value)) xs.push_back(c.along_value);
    if (std::isfinite(c.metric_first)) ys.push_back(c.metric_first);
  }
  const Axis xa = numeric ? make_axis(x_display, xs) : Axis{x_display, AxisScale{1, ""}, false};
  const Axis ya = make_axis(y_display, ys);

  std::string& dat = src.data;
  dat = fmt::format("# break-even '{}': {} of each alternative along {} (SI units)\n", a.request.name, metric, along.name);
  for (std::size_t i = 0; i < A; ++i) {
    if (i > 0) dat += "\n\n";
    dat += fmt::format("# index {}: {}\n# {} {} label\n", i, a.alternatives[i], along.name, metric);
    for (std::size_t k = 0; k < K; ++k) {
      const double v = o.curve(i, k);
      if (std::isnan(v)) {
        dat += "\n";  // a gap: the line breaks where the alternative has no value
        continue;
      }
      dat += fmt::format("{} {} {}\n", num(xs[k]), num(v), dat_string(o.along_labels[k]));
      ++src.points;
    }
  }
  dat += fmt::format("\n\n# index {}: crossings (along value, metric there)\n", A);
  std::vector<std::string> marks;
  // Labels are staggered down from the top so that neighbouring crossings stay readable.
  constexpr std::size_t kLabelRows = 6;
  std::size_t mark = 0;
  for (const Crossing& c : o.crossings) {
    double x = c.along_value;
    if (!numeric || !std::isfinite(x)) {
      // A bracket or a tie: mark the middle of the bracketing scan points.
      x = numeric ? 0.5 * (c.bracket_lo + c.bracket_hi) : 0.5 * static_cast<double>(c.scan_lo + c.scan_hi);
      if (numeric && xa.log) x = std::sqrt(c.bracket_lo * c.bracket_hi);
    }
    const double y = std::isfinite(c.metric_first) ? c.metric_first : kNaN;
    if (std::isfinite(y)) dat += fmt::format("{} {}\n", num(x), num(y));
    const std::string text = std::isfinite(c.along_value) && numeric
                                 ? fmt::format("{} = {}", along.name, format_quantity(c.along_value, x_display))
                                 : fmt::format("{} {}-{}", along.name, o.along_labels[c.scan_lo], o.along_labels[c.scan_hi]);
    const double label_y = 0.97 - 0.07 * static_cast<double>(mark++ % kLabelRows);
    marks.push_back(fmt::format(
        "set arrow from first {0}, graph 0 to first {0}, graph 1 nohead dt (6,4) lw 1 lc rgb \"{1}\" back\n"
        "set label {2} at first {0}, graph {3} left offset character 0.4, 0 textcolor rgb \"{1}\" noenhanced\n",
        num(x * xa.scale.factor), kMarkInk, gp_string(text), num(label_y)));
  }
  if (o.crossings.empty()) dat += "\n";

  std::string& gp = src.script;
  gp = header(name, src.title);
  gp += axis_commands('x', xa);
  gp += axis_commands('y', ya);
  if (!numeric) {
    std::vector<std::string> tics;
    for (std::size_t k = 0; k < K; ++k) tics.push_back(fmt::format("{} {}", tic_string(o.along_labels[k]), k));
    gp += fmt::format("set xtics ({}) noenhanced\nset xrange [-0.5:{}]\n", join(tics, ", "), num(static_cast<double>(K) - 0.5));
  } else if (K > 1) {
    // The scanned range with a small margin, so the axis ends where the data does.
    const double lo = o.along_values.front() * xa.scale.factor;
    const double hi = o.along_values.back() * xa.scale.factor;
    gp += xa.log ? fmt::format("set xrange [{}:{}]\n", num(lo / 1.15), num(hi * 1.15))
                 : fmt::format("set xrange [{}:{}]\n", num(lo - 0.03 * (hi - lo)), num(hi + 0.03 * (hi - lo)));
  }
  gp += fmt::format("set key title {} noenhanced\n", gp_string(a.request.metrics.empty() ? a.request.alternatives : "metric"));
  gp += "# break-even marks\n";
  for (const std::string& m : marks) gp += m;
  std::vector<std::string> clauses;
  const std::string file = gp_string(name + ".dat");
  for (std::size_t i = 0; i < A; ++i) {
    clauses.push_back(fmt::format("{} index {} using ({}):({}) with linespoints lt {} title {} noenhanced",
                                  i == 0 ? file : "\"\"", i, scaled(1, xa.scale.factor), scaled(2, ya.scale.factor),
                                  i % kSeriesLinetypes + 1,
                                  gp_string(a.request.metrics.empty()
                                                ? figure_parts::value_words(study, a.request.alternatives, a.alternatives[i])
                                                : a.alternatives[i])));
  }
  if (std::any_of(o.crossings.begin(), o.crossings.end(), [](const Crossing& c) { return std::isfinite(c.metric_first); })) {
    clauses.push_back(fmt::format("\"\" index {} using ({}):({}) with points pt 6 ps 2.2 lw 1.5 lc rgb \"{}\" title \"break-even\"",
                                  A, scaled(1, xa.scale.factor), scaled(2, ya.scale.factor), kMarkInk));
  }
  const std::string plot = src.points == 0 ? "set label 100 \"no alternative has a value to draw\" at graph 0.5, graph 0.5 center\n"
                                             "unset logscale\nset xrange [0:1]\nset yrange [0:1]\nplot -1 notitle\n"
                                           : "plot " + join(clauses, ", \\\n     ") + "\n";
  gp += gnuplot_terminal_block(name, kWidthCm, kPlotHeightCm + title_extra_cm(src.title), plot);

  std::vector<std::string> found;
  for (const Crossing& c : o.crossings) {
    if (std::isfinite(c.along_value) && numeric) {
      found.push_back(fmt::format("{} = {}", along.name, format_quantity(c.along_value, x_display)));
    } else {
      found.push_back(fmt::format("between {} {} and {}", along.name, o.along_labels[c.scan_lo], o.along_labels[c.scan_hi]));
    }
  }
  src.caption = "Each line is one alternative along " + std::string(along.name) +
                "; a dashed line and a circle mark each break-even, where the better alternative changes.";
  src.description = found.empty() ? "No crossing in the scanned range." : "Crossings: " + join(found, "; ") + ".";
  return src;
}

// ---- tornado ----

// Tick marks along a linear axis from `lo` to `hi` drawn `width_cm` wide: the finest step of 1, 2 or 5
// x 10^k whose labels, all with the step's decimals ("1.02", "1.04"), leave two ems of white between
// neighbours, so narrow bars (long input names) do not crowd their numbers.
struct Ticks {
  double step = 1;
  int decimals = 0;
};

std::string tick_text(double v, int decimals) {
  std::string text = fmt::format("{:.{}f}", v, decimals);
  if (text.find_first_not_of("-0.") == std::string::npos && text.front() == '-') text.erase(0, 1);
  return text;
}

Ticks readable_ticks(double lo, double hi, double width_cm) {
  Ticks t;
  const double span = hi - lo;
  if (!(span > 0) || !(width_cm > 0)) return t;
  double decade = std::pow(10.0, std::floor(std::log10(span / 100)));
  for (int round = 0; round < 12; ++round, decade *= 10) {
    for (const double m : {1.0, 2.0, 5.0}) {
      t.step = m * decade;
      t.decimals = std::max(0, static_cast<int>(-std::floor(std::log10(t.step) + 1e-9)));
      double widest_cm = 0;
      for (double k = std::ceil(lo / t.step - 1e-9); k * t.step <= hi + 1e-9 * span; k += 1) {
        widest_cm = std::max(widest_cm, figure_parts::text_cm(tick_text(k * t.step, t.decimals)));
      }
      if (t.step / span * width_cm >= widest_cm + 2 * figure_parts::kEmCm) return t;
    }
  }
  return t;
}

// A tornado bar's label: the input as the report names it ("price of NVIDIA B200 180GB"; a parameter
// by its words alone, "launch overhead", since the value beside it carries the unit) and its base
// value; the value goes on a second line when the whole would be longer than kMaxBarLabelCm.
std::vector<std::string> input_label(const SensitivityAnalysis& s, const TornadoBar& bar, const ResolvedStudy& study) {
  const UncertainInput& in = s.inputs[bar.input];
  const std::string name = in.target == InputTarget::parameter ? analysis_text::input_phrase(study, in)
                                                               : figure_input(study, in.name);
  const std::string value = "(" + sensitivity_input_value(study, s, bar.input, bar.nominal) + ")";
  if (figure_parts::text_cm(name + " " + value) <= figure_parts::kMaxBarLabelCm) return {name + " " + value};
  return {name, value};
}

FigureSource tornado_figure(const ResolvedStudy& study, const SensitivityAnalysis& s) {
  const LocalSensitivity& local = *s.local;
  const QuantityDisplay display = metric_display(study, s.request.metric);
  FigureSource src;
  src.name = "tornado_" + s.request.name;
  src.title = fmt::format("Tornado: {} with each input at -{:g}% and +{:g}%", words(display, s.request.metric),
                          100 * local.relative_change, 100 * local.relative_change);
  std::vector<const TornadoBar*> bars;
  std::vector<double> values{local.base_metric};
  for (const TornadoBar& b : local.bars) {
    if (std::isnan(b.swing)) continue;
    bars.push_back(&b);
    values.push_back(b.metric_low);
    values.push_back(b.metric_high);
  }
  const Axis xa = make_axis(display, values, false);
  const double f = xa.scale.factor;
  std::string& dat = src.data;
  dat = fmt::format("# tornado '{}': {} at the base point and with each input at its low and high value (SI)\n",
                    s.request.name, s.request.metric);
  dat += "# position metric_low metric_high base input_low input_high elasticity input\n";
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const TornadoBar& b = *bars[i];
    dat += fmt::format("{} {} {} {} {} {} {} {}\n", i, num(b.metric_low), num(b.metric_high), num(local.base_metric),
                       num(b.input_low), num(b.input_high), num(b.elasticity), dat_string(s.inputs[b.input].name));
    ++src.points;
  }
  std::vector<std::vector<std::string>> labels;
  std::size_t label_lines = 1;
  double longest_line_cm = 0;
  for (const TornadoBar* b : bars) {
    labels.push_back(input_label(s, *b, study));
    label_lines = std::max(label_lines, labels.back().size());
    for (const std::string& line : labels.back()) longest_line_cm = std::max(longest_line_cm, figure_parts::text_cm(line));
  }
  const double step_cm = kBarStepCm + figure_parts::kBarLineStepCm * static_cast<double>(label_lines - 1);
  const double height = std::clamp(kBarBaseCm + step_cm * static_cast<double>(std::max<std::size_t>(bars.size(), 1)),
                                   kBarMinCm,
                                   kBarMaxCm + figure_parts::kBarLineStepCm * static_cast<double>((label_lines - 1) * bars.size()));
  std::string& gp = src.script;
  // The labels push the plot to the right: the title is centred on the canvas.
  gp = header(src.name, src.title, true);
  gp += axis_commands('x', xa);
  gp += "unset ylabel\nset grid noytics\nset ytics scale 0\n";
  gp += "set key outside bottom center horizontal reverse Left height 1.5\n";
  // The value axis: room left of the bars, and right of them for the elasticities ("e = -1.00", some
  // 2 cm), as shares of the plot's width; ticks as many as their labels leave room for.
  const double left_margin_cm = longest_line_cm + 0.7;
  const double right_margin_cm = 0.8;
  const double plot_width_cm = kWidthCm - left_margin_cm - right_margin_cm;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const double v : values) {
    if (!std::isfinite(v)) continue;
    lo = std::min(lo, v * f);
    hi = std::max(hi, v * f);
  }
  if (!(hi >= lo)) lo = hi = 0;
  const double span = hi > lo ? hi - lo : (hi != 0 ? 0.1 * std::fabs(hi) : 1.0);
  const double x_min = lo - 0.12 * span;
  const double x_max = hi + std::max(0.12, 2.2 / std::max(plot_width_cm - 0.5, 4.0)) * span;
  const Ticks ticks = readable_ticks(x_min, x_max, plot_width_cm);
  gp += fmt::format("set xrange [{}:{}]\n", num(x_min), num(x_max));
  gp += fmt::format("set xtics {}  # labels {} cm apart on a plot {:.2f} cm wide\n", num(ticks.step),
                    fmt::format("{:.2f}", ticks.step / (x_max - x_min) * plot_width_cm), plot_width_cm);
  gp += fmt::format("set format x \"%.{}f\"\n", ticks.decimals);
  gp += fmt::format("set rmargin at screen {:.4f}\n", 1 - right_margin_cm / kWidthCm);
  std::vector<std::string> tics;
  for (std::size_t i = 0; i < bars.size(); ++i) {
    std::vector<std::string> lines;
    for (const std::string& line : labels[i]) lines.push_back(percent_doubled(line));
    tics.push_back(fmt::format("{} {}", gp_lines(lines), i));
  }
  std::string plot;
  if (bars.empty()) {
    plot = "set label 100 \"no input changes the metric\" at graph 0.5, graph 0.5 center\nset yrange [0:1]\nplot -1 notitle\n";
  } else {
    gp += fmt::format("set ytics ({}) noenhanced\n", join(tics, ", "));
    gp += fmt::format("set lmargin at screen {:.4f}  # room for the longest label line\n", left_margin_cm / kWidthCm);
    gp += fmt::format("set yrange [{}:-0.6]  # largest swing on top\n", num(static_cast<double>(bars.size()) - 0.4));
    gp += fmt::format("set arrow from first {0}, graph 0 to first {0}, graph 1 nohead dt (6,4) lc rgb \"{1}\" front\n",
                      num(local.base_metric * f), kMarkInk);
    gp += "# elasticity (d ln metric / d ln input) at the end of each bar\n";
    for (std::size_t i = 0; i < bars.size(); ++i) {
      const TornadoBar& b = *bars[i];
      if (std::isnan(b.elasticity)) continue;
      const double end = std::max({b.metric_low, b.metric_high, local.base_metric});
      gp += fmt::format("set label {} {} at first {}, first {} left offset character 0.5, 0 noenhanced\n", i + 1,
                        gp_string(fmt::format("e = {:.2f}", b.elasticity)), num(end * f), i);
    }
    gp += fmt::format("h = {:g}  # half the bar height\n", kBarHalfHeight);
    const std::string base = num(local.base_metric * f);
    const auto bar = [&](int col, int lt, const std::string& title, bool first) {
      return fmt::format("{} using (({}+{})/2):1:({}<{}?{}:{}):({}<{}?{}:{}):($1-h):($1+h) with boxxyerror lt {} title {}",
                         first ? gp_string(src.name + ".dat") : "\"\"", scaled(col, f), base, scaled(col, f), base,
                         scaled(col, f), base, scaled(col, f), base, base, scaled(col, f), lt, gp_string(title));
    };
    plot = "plot " + bar(2, kBarLinetypeBase, fmt::format("input -{:g}%", 100 * local.relative_change), true) +
           ", \\\n     " + bar(3, kBarLinetypeBase + 1, fmt::format("input +{:g}%", 100 * local.relative_change), false) +
           "\n";
  }
  gp += gnuplot_terminal_block(src.name, kWidthCm, height + title_extra_cm(src.title), plot);
  src.caption = "Each bar spans the metric with one input moved down and up, the others at the base point; the "
                "dashed line is the base value, e is the elasticity.";
  src.description = bars.empty() ? "No input changes the metric."
                                 : fmt::format("Base value {}; largest swing: {}.", format_quantity(local.base_metric, display),
                                               readable_input(study, s.inputs[bars.front()->input].name));
  return src;
}

// ---- Sobol ----

FigureSource sobol_figure(const ResolvedStudy& study, const SensitivityAnalysis& s) {
  const SobolResult& r = *s.sobol;
  const QuantityDisplay display = metric_display(study, s.request.metric);
  FigureSource src;
  src.name = "sobol_" + s.request.name;
  src.title = fmt::format("Sobol indices of {} (N = {} samples, {} evaluations)", words(display, s.request.metric),
                          format_grouped(static_cast<double>(r.samples)), format_grouped(static_cast<double>(r.evaluations)));
  const std::size_t k = r.indices.size();
  double lo = 0, hi = 1;
  std::string& dat = src.data;
  dat = fmt::format("# Sobol indices '{}' of {}: first order and total, with {:g}% bootstrap intervals\n",
                    s.request.name, s.request.metric, 100 * r.confidence);
  dat += "# position first first_low first_high total total_low total_high first_half total_half input\n";
  for (std::size_t i = 0; i < k; ++i) {
    const SobolIndex& x = r.indices[i];
    dat += fmt::format("{} {} {} {} {} {} {} {} {} {}\n", i, num(x.first), num(x.first_low), num(x.first_high), num(x.total),
                       num(x.total_low), num(x.total_high), num(x.first_half), num(x.total_half),
                       dat_string(s.inputs[i].name));
    for (double v : {x.first, x.first_low, x.total, x.total_low}) {
      if (std::isfinite(v)) lo = std::min(lo, v);
    }
    for (double v : {x.first, x.first_high, x.total, x.total_high}) {
      if (std::isfinite(v)) hi = std::max(hi, v);
    }
    ++src.points;
  }
  // Each input as the report names it ("price of NVIDIA B200 180GB"), broken at spaces into lines
  // no wider than `line_cm`; whether one word is wider than that.
  const auto wrap = [&](const std::string& name, double line_cm, bool& too_wide) {
    std::vector<std::string> lines;
    std::size_t pos = 0;
    while (pos <= name.size()) {
      std::size_t end = name.find(' ', pos);
      if (end == std::string::npos) end = name.size();
      const std::string word = name.substr(pos, end - pos);
      too_wide = too_wide || figure_parts::text_cm(word) > line_cm;
      if (!lines.empty() && figure_parts::text_cm(lines.back() + " " + word) <= line_cm) {
        lines.back() += " " + word;
      } else {
        lines.push_back(word);
      }
      pos = end + 1;
    }
    return lines;
  };
  // Under the bars, as wide as each input's share of the axis on at most three lines; where one word
  // is wider than its share or a name needs more lines, the inputs go down the side instead, as a
  // tornado's do, and the bars lie across: every label horizontal, none slanted.
  const double slot_cm = 0.8 * kWidthCm / static_cast<double>(std::max<std::size_t>(k, 1));
  std::vector<std::vector<std::string>> labels;
  std::size_t label_lines = 1;
  bool too_wide = false;
  for (const UncertainInput& in : s.inputs) {
    labels.push_back(wrap(figure_input(study, in.name), slot_cm, too_wide));
    label_lines = std::max(label_lines, labels.back().size());
  }
  const bool across = too_wide || label_lines > kSobolMaxLabelLines;
  double longest_line_cm = 0;
  if (across) {
    label_lines = 1;
    for (std::size_t i = 0; i < k; ++i) {
      bool unused = false;
      labels[i] = wrap(figure_input(study, s.inputs[i].name), figure_parts::kMaxBarLabelCm, unused);
      label_lines = std::max(label_lines, labels[i].size());
    }
  }
  for (const std::vector<std::string>& lines : labels) {
    for (const std::string& line : lines) longest_line_cm = std::max(longest_line_cm, figure_parts::text_cm(line));
  }
  std::vector<std::string> tics;
  for (std::size_t i = 0; i < k; ++i) {
    std::vector<std::string> lines;
    for (const std::string& line : labels[i]) lines.push_back(percent_doubled(line));
    tics.push_back(fmt::format("{} {}", gp_lines(lines), i));
  }
  const std::string index_range = fmt::format("[{}:{}]", num(std::floor(lo * 10) / 10), num(std::ceil(hi * 10 + 0.5) / 10));
  const char value_axis = across ? 'x' : 'y';
  const char input_axis = across ? 'y' : 'x';
  std::string& gp = src.script;
  gp = header(src.name, src.title, across);
  gp += fmt::format("set {}label \"Sobol index (share of the variance)\" noenhanced\nset format {} \"%g\"\n", value_axis,
                    value_axis);
  if (!across && label_lines > 2) {
    // gnuplot leaves room below the axis for two lines of tic labels before the key: more lines
    // take a margin of their own (in characters: the lines, the key's two rows and the gaps).
    gp += fmt::format("set bmargin {}\n", label_lines + 5);
  }
  gp += fmt::format("set grid no{0}tics\nset {0}tics scale 0\n", input_axis);
  gp += fmt::format("set {}range {}\n", value_axis, index_range);
  if (across) {
    gp += "unset ylabel\n";
    gp += fmt::format("set yrange [{}:-0.6]  # first input on top\n", num(static_cast<double>(k) - 0.4));
    gp += fmt::format("set lmargin at screen {:.4f}  # room for the longest label line\n",
                      (longest_line_cm + 0.7) / kWidthCm);
  } else {
    gp += fmt::format("set xrange [-0.6:{}]\n", num(static_cast<double>(k) - 0.4));
  }
  gp += "set key outside bottom center horizontal reverse Left height 1.5\n";
  gp += fmt::format("set {}tics ({}) noenhanced\n", input_axis, join(tics, ", "));
  gp += "w = 0.17  # half a bar's width\n";
  const std::string file = gp_string(src.name + ".dat");
  std::string plot;
  if (k == 0 || !(r.variance > 0)) {
    plot = "set label 100 \"the metric does not vary over the input ranges\" at graph 0.5, graph 0.5 center\nplot -1 notitle\n";
  } else {
    // A bar's columns in the axes' order: the value along x when the bars lie `across` (first order
    // above each input's line, total below it, the input axis running down the page), else along y.
    const auto columns = [&](const std::string& value, const std::string& position) {
      return across ? value + ":" + position : position + ":" + value;
    };
    const auto box = [&](const std::string& value, const std::string& centre, const std::string& lo, const std::string& hi) {
      return columns(value, centre) + ":" + columns("(0):" + value, lo + ":" + hi);
    };
    plot = fmt::format(
        "plot {} using {} with boxxyerror lt {} title \"first order S_i\", \\\n"
        "     \"\" using {} with boxxyerror lt {} title \"total S_{{Ti}}\"",
        file, box("2", "($1-w)", "($1-2*w)", "($1)"), kBarLinetypeBase, box("5", "($1+w)", "($1)", "($1+2*w)"),
        kBarLinetypeBase + 1);
    if (r.bootstrap > 0) {
      plot += fmt::format(
          ", \\\n     \"\" using {0}:3:4 with {2}errorbars lc rgb \"{3}\" dt solid lw 1.2 pt 7 ps 0.45 title \"{4:g}% "
          "bootstrap interval\" noenhanced, \\\n"
          "     \"\" using {1}:6:7 with {2}errorbars lc rgb \"{3}\" dt solid lw 1.2 pt 7 ps 0.45 notitle",
          columns("2", "($1-w)"), columns("5", "($1+w)"), value_axis, kMarkInk, 100 * r.confidence);
    }
    plot += "\n";
  }
  const double height_cm =
      across ? std::clamp(kBarBaseCm + (kSobolAcrossStepCm + figure_parts::kBarLineStepCm * static_cast<double>(label_lines - 1)) *
                                           static_cast<double>(std::max<std::size_t>(k, 1)),
                          kBarMinCm, kBarMaxCm + figure_parts::kBarLineStepCm * static_cast<double>((label_lines - 1) * k))
             : kPlotHeightCm + figure_parts::kLabelLineCm * static_cast<double>(label_lines - 1);
  gp += gnuplot_terminal_block(src.name, kWidthCm, height_cm + title_extra_cm(src.title), plot);
  src.caption = "First-order index: the share of the metric's variance an input explains alone; total: with every "
                "interaction. Whiskers: bootstrap intervals, which overstate the error of quasi-random samples.";
  src.description = fmt::format("Indices from {} of {} sample rows; largest change between N/2 and N: {:.3f}.",
                                format_grouped(static_cast<double>(r.rows_used)), format_grouped(static_cast<double>(r.samples)),
                                r.max_change);
  return src;
}

// ---- Morris ----

// Where the Morris figure's plot area lies on its canvas: fixed margins, so label boxes can be
// placed in centimetres. The height is a lower bound (title, tic labels, axis title and key take the
// rest): a label kept inside it and clear of the others stays so on the drawn plot.
constexpr double kMorrisLeftCm = 2.3;
constexpr double kMorrisRightCm = 0.6;
constexpr double kMorrisPlotHeightCm = 6.2;
constexpr double kMorrisGapCm = 0.25;   // between a point and its label
constexpr double kMorrisPointCm = 0.2;  // half a point marker

struct LabelBox {
  double x0, x1, y0, y1;
  bool overlaps(const LabelBox& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

// One label per point, most important input first: beside its point (right, left), then centred
// above or below it, then further up or down, where it stays inside the plot and clear of every
// label placed before it and of every point. Each label is its anchor (cm from the plot's lower
// left) and its alignment at that anchor.
struct PlacedLabel {
  double x_cm, y_cm;
  std::string_view align;
};
std::vector<PlacedLabel> place_morris_labels(const std::vector<std::pair<double, double>>& points_cm,
                                             const std::vector<std::string>& texts, double width_cm, double height_cm) {
  std::vector<LabelBox> taken;
  for (const auto& [x, y] : points_cm) {
    taken.push_back({x - kMorrisPointCm, x + kMorrisPointCm, y - kMorrisPointCm, y + kMorrisPointCm});
  }
  std::vector<PlacedLabel> placed;
  const double h = figure_parts::kLabelLineCm;
  for (std::size_t i = 0; i < points_cm.size(); ++i) {
    const auto [px, py] = points_cm[i];
    const double w = figure_parts::text_cm(texts[i]);
    std::vector<PlacedLabel> candidates;
    for (double dy : {0.0, 0.5 * h, -0.5 * h, 1.1 * h, -1.1 * h, 2.2 * h, -2.2 * h, 3.3 * h, -3.3 * h}) {
      if (std::fabs(dy) >= h) candidates.push_back({px, py + dy, "center"});
      candidates.push_back({px + kMorrisGapCm, py + dy, "left"});
      candidates.push_back({px - kMorrisGapCm, py + dy, "right"});
    }
    const auto box = [&](const PlacedLabel& c) {
      const double x0 = c.align == "left" ? c.x_cm : c.align == "right" ? c.x_cm - w : c.x_cm - w / 2;
      return LabelBox{x0, x0 + w, c.y_cm - h / 2, c.y_cm + h / 2};
    };
    const PlacedLabel* chosen = nullptr;
    for (const PlacedLabel& c : candidates) {
      const LabelBox b = box(c);
      if (b.x0 < 0 || b.x1 > width_cm || b.y0 < 0 || b.y1 > height_cm) continue;
      if (std::any_of(taken.begin(), taken.end(), [&](const LabelBox& t) { return t.overlaps(b); })) continue;
      chosen = &c;
      break;
    }
    if (chosen == nullptr) {
      // No free place: the one inside the plot that overlaps least.
      double best = std::numeric_limits<double>::infinity();
      for (const PlacedLabel& c : candidates) {
        const LabelBox b = box(c);
        double overlap = std::max(0.0, -b.x0) + std::max(0.0, b.x1 - width_cm) + std::max(0.0, -b.y0) +
                         std::max(0.0, b.y1 - height_cm);
        for (const LabelBox& t : taken) {
          overlap += std::max(0.0, std::min(b.x1, t.x1) - std::max(b.x0, t.x0)) *
                     std::max(0.0, std::min(b.y1, t.y1) - std::max(b.y0, t.y0));
        }
        if (overlap < best) {
          best = overlap;
          chosen = &c;
        }
      }
    }
    placed.push_back(*chosen);
    taken.push_back(box(*chosen));
  }
  return placed;
}

FigureSource morris_figure(const ResolvedStudy& study, const SensitivityAnalysis& s) {
  const MorrisResult& r = *s.morris;
  const QuantityDisplay display = metric_display(study, s.request.metric);
  FigureSource src;
  src.name = "morris_" + s.request.name;
  src.title = fmt::format("Morris screening of {} ({} trajectories, {} levels)", words(display, s.request.metric),
                          r.trajectories, r.levels);
  std::vector<double> values;
  for (const MorrisEffect& e : r.effects) {
    values.push_back(e.mu_star);
    values.push_back(e.sigma);
  }
  Axis a = make_axis(display, values, false);
  const double f = a.scale.factor;
  double right = 0, top = 0;
  for (const MorrisEffect& e : r.effects) {
    if (std::isfinite(e.mu_star)) right = std::max(right, e.mu_star * f);
    if (std::isfinite(e.sigma)) top = std::max(top, e.sigma * f);
  }
  const double x_max = right > 0 ? right * 1.3 : 1;
  const double y_top = right > 0 || top > 0 ? std::max(top, 0.05 * right) * 1.4 : 1;
  const double plot_width_cm = kWidthCm - kMorrisLeftCm - kMorrisRightCm;
  std::string& dat = src.data;
  dat = fmt::format("# Morris elementary effects '{}' of {} (SI units per input range), by mu*\n"
                    "# mu_star sigma mu effects input\n",
                    s.request.name, s.request.metric);
  std::vector<std::pair<double, double>> points_cm;
  std::vector<std::string> texts;
  for (std::size_t n = 0; n < r.ranking.size(); ++n) {
    const std::size_t i = r.ranking[n];
    const MorrisEffect& e = r.effects[i];
    if (std::isnan(e.mu_star) || std::isnan(e.sigma)) continue;
    dat += fmt::format("{} {} {} {} {}\n", num(e.mu_star), num(e.sigma), num(e.mu), e.effects,
                       dat_string(s.inputs[i].name));
    points_cm.emplace_back(e.mu_star * f / x_max * plot_width_cm, e.sigma * f / y_top * kMorrisPlotHeightCm);
    texts.push_back(figure_input(study, s.inputs[i].name));
    ++src.points;
  }
  std::string& gp = src.script;
  gp = header(src.name, src.title);
  const std::string unit = a.scale.unit.empty() ? "" : " (" + a.scale.unit + ")";
  gp += fmt::format("set xlabel {} noenhanced\nset ylabel {} noenhanced\n",
                    gp_string("mu*: mean |elementary effect|" + unit), gp_string("sigma: spread of the effects" + unit));
  gp += "set format x \"%g\"\nset format y \"%g\"\n";
  gp += fmt::format("set xrange [0:{}]\nset yrange [0:{}]\n", num(x_max), num(y_top));
  gp += fmt::format("set lmargin at screen {:.4f}\nset rmargin at screen {:.4f}\n", kMorrisLeftCm / kWidthCm,
                    1 - kMorrisRightCm / kWidthCm);
  gp += "set key outside bottom center horizontal reverse Left height 1.5\n";
  gp += "# each input named beside its point, where it overlaps no other label or point\n";
  const std::vector<PlacedLabel> placed = place_morris_labels(points_cm, texts, plot_width_cm, kMorrisPlotHeightCm);
  for (std::size_t n = 0; n < placed.size(); ++n) {
    gp += fmt::format("set label {} {} at first {}, first {} {} noenhanced front\n", n + 1, gp_string(texts[n]),
                      num(placed[n].x_cm / plot_width_cm * x_max), num(placed[n].y_cm / kMorrisPlotHeightCm * y_top),
                      placed[n].align);
  }
  const std::string file = gp_string(src.name + ".dat");
  const std::string plot =
      src.points == 0
          ? "set label 100 \"no elementary effect has a value\" at graph 0.5, graph 0.5 center\nplot -1 notitle\n"
          : fmt::format("plot x with lines dt (6,4) lc rgb \"{}\" title \"sigma = mu*\", \\\n"
                        "     {} using ({}):({}) with points lt 1 ps 1.4 title \"input\"\n",
                        kMarkInk, file, scaled(1, f), scaled(2, f));
  gp += gnuplot_terminal_block(src.name, kWidthCm, kPlotHeightCm + title_extra_cm(src.title), plot);
  src.caption = "Inputs far to the right matter most (mu*); those above the dashed line act non-linearly or through "
                "other inputs (sigma).";
  std::vector<std::string> ranked;
  for (std::size_t i : r.ranking) ranked.push_back(readable_input(study, s.inputs[i].name));
  src.description = "Ranking by mu*: " + join(ranked, ", ") + ".";
  return src;
}

// ---- grouped Pareto fronts ----

FigureSource fronts_figure(const ResolvedStudy& study, const AnalysedRun& run) {
  const ResultTable& t = run.shown();
  const Objective& ox = study.objectives[0];
  const Objective& oy = study.objectives[1];
  const std::size_t cx = t.require_metric_column(ox.metric);
  const std::size_t cy = t.require_metric_column(oy.metric);
  const QuantityDisplay dx = metric_display(study, ox.metric);
  const QuantityDisplay dy = metric_display(study, oy.metric);
  FigureSource src;
  src.name = "pareto_fronts";
  src.title = fmt::format("Pareto fronts of {} and {}, one per {}", words(dx, ox.metric), words(dy, oy.metric),
                          join(analyses_of(study).pareto.group, " / "));
  AxisExtent xs, ys;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    if (t.status[r] != PointStatus::ok) continue;
    xs.include(t.metric(r, cx));
    ys.include(t.metric(r, cy));
  }
  const Axis xa = make_axis(dx, xs);
  const Axis ya = make_axis(dy, ys);
  std::string& dat = src.data;
  dat = fmt::format("# Pareto fronts per group: feasible rows, then each group's front in {} order (SI units)\n",
                    ox.metric);
  // Each feasible row's group, found once by the group's labels joined as a key.
  std::vector<int> group_columns;
  if (!run.fronts.groups.empty()) {
    for (const Selector& s : run.fronts.groups.front().labels) group_columns.push_back(t.axis_column(s.param));
  }
  std::unordered_map<std::string, std::size_t> group_of_key;
  for (std::size_t g = 0; g < run.fronts.groups.size(); ++g) {
    std::string key;
    for (const Selector& s : run.fronts.groups[g].labels) key += s.label + '\x1f';
    group_of_key.emplace(std::move(key), g);
  }
  // Rows as 32-bit positions, as the fronts hold them (dse/analysis/fronts.cpp).
  std::vector<std::vector<std::uint32_t>> rows_of_group(run.fronts.groups.size());
  std::size_t feasible = 0;
  std::string key;
  const auto group_of_row = [&](std::size_t r) -> std::optional<std::size_t> {
    key.clear();
    for (int c : group_columns) (key += t.label(r, static_cast<std::size_t>(c))) += '\x1f';
    const auto it = group_of_key.find(key);
    return it == group_of_key.end() ? std::nullopt : std::optional<std::size_t>(it->second);
  };
  // The groups' sizes are counted first, so each list is allocated once (a keep-all run's are millions).
  std::vector<std::size_t> group_rows(run.fronts.groups.size(), 0);
  for (std::size_t r = 0; r < t.rows(); ++r) {
    if (t.status[r] != PointStatus::ok) continue;
    if (const auto g = group_of_row(r)) ++group_rows[*g];
    ++feasible;
  }
  for (std::size_t g = 0; g < rows_of_group.size(); ++g) rows_of_group[g].reserve(group_rows[g]);
  for (std::size_t r = 0; r < t.rows(); ++r) {
    if (t.status[r] != PointStatus::ok) continue;
    if (const auto g = group_of_row(r)) rows_of_group[*g].push_back(static_cast<std::uint32_t>(r));
  }
  // More feasible rows than a page can show: one of each group per spot (output/scatter_thinning.hpp),
  // then, if still too many, every stride-th; the fronts are whole.
  std::size_t feasible_after_spots = feasible;
  if (feasible > kMaxDrawnPoints) {
    const auto position = [&](std::size_t r) {
      const double vx = t.metric(r, cx), vy = t.metric(r, cy);
      return std::pair<double, double>{xa.log ? std::log10(vx) : vx, ya.log ? std::log10(vy) : vy};
    };
    ScatterSpots spots;
    for (const std::vector<std::uint32_t>& rows : rows_of_group) {
      for (const std::uint32_t r : rows) {
        const auto [px, py] = position(r);
        spots.include(px, py);
      }
    }
    feasible_after_spots = 0;
    for (std::vector<std::uint32_t>& rows : rows_of_group) {
      rows = spots.first_per_spot(rows, position);
      feasible_after_spots += rows.size();
    }
  }
  const std::size_t stride = feasible_after_spots > kMaxDrawnPoints
                                 ? (feasible_after_spots + kMaxDrawnPoints - 1) / kMaxDrawnPoints
                                 : 1;
  std::vector<std::string> clauses;
  const std::string file = gp_string(src.name + ".dat");
  std::size_t block = 0;
  std::vector<std::string> knees;
  double longest_key_cm = 0;
  for (std::size_t g = 0; g < run.fronts.groups.size(); ++g) {
    const ParetoGroup& group = run.fronts.groups[g];
    std::vector<std::string> values, words;
    for (const Selector& s : group.labels) {
      values.push_back(s.label);
      words.push_back(figure_value(study, s.param, s.label));
    }
    const std::string label = join(values, " / ");  // the data file keeps the ids the CSVs use
    longest_key_cm = std::max(longest_key_cm, figure_parts::text_cm(join(words, " / ")));
    if (block > 0) dat += "\n\n";
    dat += fmt::format("# index {}: {}, feasible rows{}\n", block, label,
                       feasible_after_spots < feasible
                           ? fmt::format(" (one per spot{})", stride > 1 ? fmt::format(", then every {}", ordinal(stride)) : "")
                           : "");
    for (std::size_t i = 0; i < rows_of_group[g].size(); i += stride) {
      const std::size_t r = rows_of_group[g][i];
      dat += fmt::format("{} {} {}\n", num(t.metric(r, cx)), num(t.metric(r, cy)),
                         t.point_index[r]);
      ++src.points;
    }
    const int lt = static_cast<int>(g % kSeriesLinetypes) + 1;
    clauses.push_back(fmt::format("{} index {} using ({}):({}) with points lt {} ps 0.6 notitle", block == 0 ? file : "\"\"",
                                  block, scaled(1, xa.scale.factor), scaled(2, ya.scale.factor), lt));
    ++block;
    std::vector<std::size_t> front = group.front;
    std::stable_sort(front.begin(), front.end(), [&](std::size_t a, std::size_t b) {
      return t.metric(a, cx) < t.metric(b, cx);
    });
    dat += fmt::format("\n\n# index {}: {}, front\n", block, label);
    for (std::size_t r : front) {
      dat += fmt::format("{} {} {}\n", num(t.metric(r, cx)), num(t.metric(r, cy)),
                         t.point_index[r]);
    }
    clauses.push_back(fmt::format("\"\" index {} using ({}):({}) with linespoints lt {} title {} noenhanced", block,
                                  scaled(1, xa.scale.factor), scaled(2, ya.scale.factor), lt, gp_string(join(words, " / "))));
    ++block;
    if (group.knee && group.knee->distance > 0) {
      const std::size_t r = group.knee->row;
      knees.push_back(fmt::format("{} {}", num(t.metric(r, cx)), num(t.metric(r, cy))));
    }
  }
  if (!knees.empty()) {
    dat += fmt::format("\n\n# index {}: knees\n", block);
    for (const std::string& k : knees) dat += k + "\n";
    clauses.push_back(fmt::format("\"\" index {} using ({}):({}) with points pt 6 ps 2.2 lw 1.5 lc rgb \"{}\" title \"knee\"",
                                  block, scaled(1, xa.scale.factor), scaled(2, ya.scale.factor), kMarkInk));
  }
  std::string& gp = src.script;
  gp = header(src.name, src.title);
  gp += axis_commands('x', xa);
  gp += axis_commands('y', ya);
  gp += fmt::format("set key title {} noenhanced\n", gp_string(join(analyses_of(study).pareto.group, " / ")));
  // Catalog names ("NVIDIA H100 SXM 80GB") beside the plot would squeeze it: such a key goes below.
  double key_height_cm = 0;
  if (longest_key_cm > figure_parts::kLongKeyEntryCm) {
    const auto [commands, rows_cm] =
        figure_parts::key_below(run.fronts.groups.size() + (knees.empty() ? 0 : 1), longest_key_cm, kWidthCm);
    gp += commands;
    // Below the plot the title starts with an empty line, clear of the x axis title.
    gp += fmt::format("set key title \"\\n{} noenhanced\n", gp_string(join(analyses_of(study).pareto.group, " / ")).substr(1));
    key_height_cm = rows_cm + 2 * figure_parts::kKeyRowCm;
  }
  const std::string plot = src.points == 0 ? "set label 100 \"no feasible design point to draw\" at graph 0.5, graph 0.5 center\n"
                                             "unset logscale\nset xrange [0:1]\nset yrange [0:1]\nplot -1 notitle\n"
                                           : "plot " + join(clauses, ", \\\n     ") + "\n";
  gp += gnuplot_terminal_block(src.name, kWidthCm, kPlotHeightCm + key_height_cm + title_extra_cm(src.title), plot);
  src.caption = "Small points are the feasible design points of each group; the line joins the group's Pareto front, "
                "circles mark the knees.";
  if (feasible_after_spots < feasible) {
    src.caption += fmt::format(" Thinned for drawing: one feasible point of each group where several would print as one "
                               "mark{} ({} of {}); the fronts are drawn whole.",
                               stride > 1 ? fmt::format(", then every {}", ordinal(stride)) : "",
                               format_grouped(static_cast<double>(src.points)),
                               format_grouped(static_cast<double>(feasible)));
  }
  std::vector<std::string> sizes;
  for (const ParetoGroup& g : run.fronts.groups) {
    sizes.push_back(fmt::format("{}: {} of {}", analysis_text::group_words(study, g.labels), g.front.size(), g.feasible_rows));
  }
  src.description = "Front rows per group: " + join(sizes, "; ") + ".";
  return src;
}

}  // namespace

std::string sensitivity_input_value(const ResolvedStudy& study, const SensitivityAnalysis& s, std::size_t input,
                                    double value) {
  const UncertainInput& in = s.inputs.at(input);
  if (in.target == InputTarget::parameter) {
    const ParamSpec& p = study.solver->params()[in.param];
    return format_quantity(value, describe_quantity(p.name, p.dimension));
  }
  const HardwareSpec* hw = nullptr;
  if (!in.hardware_id.empty()) {
    hw = study.catalog.find_hardware(in.hardware_id);
  } else {
    PointInputs point;
    Grid(study).inputs(s.base_point, point);
    hw = point.hardware;
  }
  if (hw == nullptr) return fmt::format("x{:.3g}", value);
  const std::string field(hardware_field_name(in.field));
  return format_quantity(value * hardware_field_value(*hw, in.field),
                         describe_quantity(field, hardware_field_dimension(in.field)));
}

std::vector<AnalysisFigureSource> build_analysis_figures(const ResolvedStudy& study, const AnalysedRun& run) {
  std::vector<AnalysisFigureSource> out;
  // In the order the report shows them: the fronts (with the Pareto section), break-evens, sensitivities.
  if (!analyses_of(study).pareto.group.empty() && study.objectives.size() >= 2) {
    out.push_back({"pareto", fronts_figure(study, run)});
  }
  for (const BreakevenRun& b : run.breakevens) {
    if (!b.analysis) continue;
    const BreakevenAnalysis& a = *b.analysis;
    const std::size_t n = std::min(a.groups.size(), kMaxBreakevenFigures);
    for (std::size_t g = 0; g < n; ++g) {
      const std::string name = "breakeven_" + a.request.name + (a.groups.size() > 1 ? fmt::format("_{}", g + 1) : "");
      out.push_back({"breakeven:" + a.request.name, breakeven_figure(study, a, g, name)});
    }
  }
  for (const SensitivityRun& s : run.sensitivities) {
    if (!s.analysis) continue;
    const SensitivityAnalysis& a = *s.analysis;
    const std::string tag = "sensitivity:" + a.request.name;
    if (a.local) out.push_back({tag, tornado_figure(study, a)});
    if (a.morris) out.push_back({tag, morris_figure(study, a)});
    if (a.sobol) out.push_back({tag, sobol_figure(study, a)});
  }
  return out;
}

std::vector<AnalysisFigure> render_analysis_figures(const ResolvedStudy& study, const AnalysedRun& run,
                                                    const std::string& run_dir) {
  const std::string dir = run_dir + "/figures";
  make_directories(dir);
  std::vector<AnalysisFigure> out;
  for (const AnalysisFigureSource& a : build_analysis_figures(study, run)) {
    try {
      out.push_back({a.analysis, render_figure_source(a.source, dir)});
    } catch (const FigureNotDrawn& e) {
      out.push_back({a.analysis, figure_not_drawn(a.source, dir, e)});
    }
  }
  return out;
}

}  // namespace dsx
