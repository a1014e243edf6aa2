#include "output/figures.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "dse/analysis/blocks.hpp"
#include "dse/quantity.hpp"
#include "output/analysis_text.hpp"
#include "output/figure_parts.hpp"
#include "output/files.hpp"
#include "output/run_folder.hpp"
#include "output/text_metrics.hpp"
#include "output/format.hpp"
#include "output/readable_label.hpp"
#include "output/gnuplot_data_check.hpp"
#include "output/gnuplot_script_check.hpp"
#include "output/gnuplot_text.hpp"
#include "output/report.hpp"

extern char** environ;

namespace dsx {

namespace figure_parts {

// ---- text helpers ----

// A comment line's text (no line breaks).
std::string one_line(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

// ---- reading rows ----

const Axis* find_axis(const ResolvedStudy& study, std::string_view param) {
  for (const Axis& a : study.axes) {
    if (a.param == param) return &a;
  }
  return nullptr;
}

Column resolve_column(std::string_view name, const ResolvedStudy& study, const ResultTable& results,
                      std::string_view figure) {
  Column c;
  c.name = std::string(name);
  if (const int m = results.metric_column(name); m >= 0) {
    c.is_metric = true;
    c.metric_col = m;
    Dimension dim = Dimension::dimensionless;
    if (study.solver != nullptr) {
      for (const MetricSpec& spec : study.solver->metrics()) {
        if (spec.name == name) dim = spec.dimension;
      }
    }
    c.display = describe_quantity(name, dim);
    return c;
  }
  // A metric of the study's that the table was loaded without (dse/analysis/report_columns.hpp).
  if (study.solver != nullptr && find_study_metric(study, name)) results.require_metric_column(name);
  if (study.solver != nullptr) {
    const auto params = study.solver->params();
    for (std::size_t i = 0; i < params.size(); ++i) {
      if (params[i].name != name) continue;
      c.param_index = i;
      c.numeric = params[i].kind == ParamKind::number;
      c.display = describe_quantity(name, params[i].dimension);
      c.axis = find_axis(study, name);
      if (c.axis != nullptr) {
        c.axis_col = results.axis_column(name);
        if (c.axis_col < 0) {
          throw std::invalid_argument(fmt::format("figure '{}': the results have no column for axis '{}'", figure, name));
        }
        for (std::size_t k = 0; k < c.axis->values.size(); ++k) c.value_index.emplace(c.axis->values[k].label, k);
      }
      return c;
    }
  }
  // An axis of bundles (region: [us_average, quebec]): categorical, its ids in axis order.
  if (const Axis* axis = find_axis(study, name); axis != nullptr && axis->is_bundle()) {
    c.numeric = false;
    c.display = describe_quantity(name, Dimension::dimensionless);
    c.axis = axis;
    c.axis_col = results.axis_column(name);
    if (c.axis_col < 0) {
      throw std::invalid_argument(fmt::format("figure '{}': the results have no column for axis '{}'", figure, name));
    }
    for (std::size_t k = 0; k < axis->values.size(); ++k) c.value_index.emplace(axis->values[k].label, k);
    return c;
  }
  throw std::invalid_argument(fmt::format("figure '{}': '{}' is neither a metric nor a parameter of solver '{}'",
                                          figure, name,
                                          study.solver != nullptr ? study.solver->name() : "(none)"));
}

const std::string& row_label(const Column& c, const ResolvedStudy& study, const ResultTable& results,
                             std::size_t row) {
  if (c.axis_col >= 0) return results.label(row, static_cast<std::size_t>(c.axis_col));
  return study.fixed_labels[c.param_index];
}

// The plotted value: a metric, a numeric parameter's SI value, or a categorical parameter's
// position along its axis.
double row_value(const Column& c, const ResolvedStudy& study, const ResultTable& results, std::size_t row) {
  if (c.is_metric) return results.metric(row, static_cast<std::size_t>(c.metric_col));
  if (c.axis == nullptr) return c.numeric ? study.fixed_values[c.param_index] : 0.0;
  const auto it = c.value_index.find(results.label(row, static_cast<std::size_t>(c.axis_col)));
  if (it == c.value_index.end()) return std::nan("");
  return c.numeric ? c.axis->values[it->second].value : static_cast<double>(it->second);
}

// Position of a row's label along an axis (for ordering series the way the study lists values).
std::size_t label_position(const Axis& axis, const std::string& label) {
  for (std::size_t k = 0; k < axis.values.size(); ++k) {
    if (axis.values[k].label == label) return k;
  }
  return axis.values.size();
}

// "1e6" for a power of ten, else the exact number.
std::string factor_text(double factor) {
  const int e = static_cast<int>(std::lround(std::log10(factor)));
  if (std::pow(10.0, e) == factor) return fmt::format("1e{}", e);
  return format_exact(factor);
}

std::string scaled_expression(std::string_view expr, double factor) {
  if (factor == 1) return std::string(expr);
  for (const double unit : {60.0, 3600.0, 86400.0, 365.0 * 86400.0}) {
    if (factor == 1 / unit) return fmt::format("{}/{:.0f}", expr, unit);
  }
  return fmt::format("{}*{}", expr, factor_text(factor));
}

std::string gp_scaled(int column, double factor) {
  if (factor == 1) return fmt::format("{}", column);
  return "(" + scaled_expression(fmt::format("${}", column), factor) + ")";
}

AxisSetup axis_setup(const Column& c, const std::vector<double>& values, bool log) {
  AxisSetup a;
  a.log = log;
  double max_abs = 0;
  for (double v : values) {
    if (std::isfinite(v)) max_abs = std::max(max_abs, std::fabs(v));
  }
  a.scale = !c.numeric                                ? AxisScale{1, ""}
            : c.display.dimension == Dimension::bytes ? choose_bytes_axis_scale(values)
                                                      : choose_axis_scale(c.display, max_abs);
  a.title = axis_title(c.display, a.scale);
  return a;
}

// gnuplot settings of one axis: title, log scale and tick format.
std::string axis_commands(char axis, const AxisSetup& a, const std::vector<double>& scaled_values) {
  std::string out = fmt::format("set {}label {} noenhanced\n", axis, gp_string(a.title));
  if (a.log) {
    double lo = 0, hi = 0;
    for (double v : scaled_values) {
      if (!(v > 0) || !std::isfinite(v)) continue;
      lo = lo == 0 ? v : std::min(lo, v);
      hi = std::max(hi, v);
    }
    out += fmt::format("set logscale {} 10\n", axis);
    out += (lo > 0 && hi / lo > 1e3) ? fmt::format("set format {} \"10^{{%L}}\"\n", axis)
                                     : fmt::format("set format {} \"%g\"\n", axis);
  } else {
    out += fmt::format("set format {} \"%g\"\n", axis);
  }
  return out;
}

void apply_axis_label(AxisSetup& a, const Column& c, const std::string& label) {
  if (label.empty()) return;
  const std::string_view unit = figure_label_unit(label);
  if (unit.empty()) {
    a.title = a.scale.unit.empty() ? label : label + " (" + a.scale.unit + ")";
    return;
  }
  a.title = label;
  if (!c.numeric) return;
  const Unit* u = find_unit(unit);
  if (figure_unit_checked(c.display.dimension) && u != nullptr && u->dimension == c.display.dimension) {
    a.scale = AxisScale{1 / u->scale, std::string(unit)};
  } else {
    // No unit dsx can check (a ratio, a count, a rate): the values in their base unit.
    a.scale = AxisScale{c.display.style == NumberStyle::percent ? 100.0 : 1.0, std::string(unit)};
  }
}

std::string range_commands(char axis, const FigureRange& range, double factor, std::string_view key) {
  if (!range.set) return "";
  const auto end = [&](const FigureLimit& l) { return l.value ? format_exact(*l.value * factor) : std::string(); };
  return fmt::format("set {}range [{}:{}]  # the study's {}\n", axis, end(range.min), end(range.max), key);
}

// The printed width of `text` in 9 pt DejaVu Sans, from its advance widths (in em, rounded up):
// enough to decide whether a label fits, not to typeset it.
double text_cm(std::string_view text) {
  double em = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) == 0x80) continue;  // a UTF-8 continuation byte: one glyph
    if (std::string_view("ijl.,:;'|!").find(c) != std::string_view::npos) {
      em += 0.28;
    } else if (c == 'f' || c == 't' || c == ' ' || c == '/' || c == '(' || c == ')') {
      em += 0.4;
    } else if (c == 'r') {
      em += 0.42;
    } else if (c == 'm' || c == 'w') {
      em += 0.9;
    } else if (c == 'M' || c == 'W') {
      em += 0.95;
    } else if ((c >= 'A' && c <= 'Z') || c == '%') {
      em += 0.75;
    } else {
      em += 0.64;  // digits, '_' and the other lower-case letters
    }
  }
  return em * kEmCm;
}

double figure_width_cm(const FigureDecl& decl) {
  return decl.width == FigureWidth::single_column ? kSingleWidthCm : kDoubleWidthCm;
}

std::vector<std::string> title_lines(std::string_view title, double max_cm) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t pos = 0;
  while (pos < title.size()) {
    std::size_t end = title.find(' ', pos);
    if (end == std::string_view::npos) end = title.size();
    const std::string_view word = title.substr(pos, end - pos);
    if (!line.empty() && dejavu_sans_text_em(line + " " + std::string(word)) * kEmCm > max_cm) {
      lines.push_back(line);
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += word;
    pos = end + 1;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

std::vector<std::string> title_lines(const FigureDecl& decl, std::string_view title) {
  return title_lines(title, decl.width == FigureWidth::single_column ? kTitleSingleCm : kTitleDoubleCm);
}

// Height a wrapped title adds.
double title_extra_cm(const FigureDecl& decl, std::string_view title) {
  return kTitleLineCm * static_cast<double>(title_lines(decl, title).size() - 1);
}

// The key of a one-column figure goes below the plot: two entries a row when the longest fits
// half the width, else one; returns the commands and the height the rows add.
std::pair<std::string, double> key_below(std::size_t entries, double longest_cm, double width_cm) {
  const std::size_t most = width_cm > kSingleWidthCm ? 4 : 2;
  const auto fit = static_cast<std::size_t>(std::max(1.0, std::floor((width_cm - 0.5) / (kKeySampleCm + longest_cm))));
  const std::size_t cols = std::min(fit, most);
  const std::size_t rows = std::max<std::size_t>((entries + cols - 1) / cols, 1);
  return {fmt::format("set key outside bottom center horizontal maxcols {} maxrows {} reverse Left samplen 2.5 "
                      "spacing 1.1 width 1\nset key notitle\n",
                      cols, rows),
          kKeyRowCm * static_cast<double>(rows) + 0.4};
}

std::string key_title_commands(const FigureDecl& decl, bool below) {
  const std::string text = gp_string(decl.legend_title);
  return fmt::format("set key title {}{} noenhanced\n", below ? "\"\\n" : "\"", text.substr(1));
}

// One column leaves room for about five numbers along a linear x axis: tics every 1, 2 or 5 x 10^k.
std::string narrow_tics(char axis, double max_abs) {
  if (!(max_abs > 0) || !std::isfinite(max_abs)) return "";
  const double raw = max_abs / 4;
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  double step = decade;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * decade;
    if (step >= raw) break;
  }
  return fmt::format("set {}tics {:g}\n", axis, step);
}


std::string script_header(const FigureDecl& decl, std::string_view title, bool on_canvas, double raise_chars) {
  std::string out = fmt::format("# dsx figure '{}': {}\n", one_line(decl.name), one_line(title));
  out += fmt::format(
      "# Draws {0}.svg, {0}.pdf and {0}.png from {0}.dat.\n"
      "# The data is in SI units; the plot commands scale each axis for reading.\n"
      "# Redraw after editing, in this folder: gnuplot {0}.gp\n\n",
      one_line(decl.name));
  out += house_style();
  out += "\n# ---- this figure ----\n";
  if (on_canvas) {
    out += canvas_title_commands(title_lines(decl, title), raise_chars);
  } else {
    out += fmt::format("set title {} noenhanced\n", gp_lines(title_lines(decl, title)));
    if (raise_chars != 0) out += fmt::format("set title offset character 0, {:g}\n", raise_chars);
  }
  return out;
}

// Axes whose labels differ among `rows`, in study order, except the listed parameters.
std::vector<const Axis*> varying_axes(const ResolvedStudy& study, const ResultTable& results,
                                      const std::vector<std::size_t>& rows, std::initializer_list<std::string_view> except) {
  std::vector<const Axis*> out;
  for (const Axis& a : study.axes) {
    if (std::find(except.begin(), except.end(), a.param) != except.end()) continue;
    const int col = results.axis_column(a.param);
    if (col < 0) continue;
    std::set<std::string> seen;
    for (std::size_t r : rows) seen.insert(results.label(r, static_cast<std::size_t>(col)));
    if (seen.size() > 1) out.push_back(&a);
  }
  return out;
}

const std::string& series_label(const FigureDecl& decl, std::string_view param, const std::string& value) {
  if (param != decl.group) return value;
  for (const auto& [from, to] : decl.series_labels) {
    if (from == value) return to;
  }
  return value;
}

std::string value_words(const ResolvedStudy& study, std::string_view param, const std::string& label) {
  return figure_value(study, param, label);
}

// Rows split into series by the labels of `by` (in order), series sorted as the study lists values.
std::vector<Series> split_series(const ResolvedStudy& study, const ResultTable& results,
                                 const std::vector<std::size_t>& rows, const std::vector<const Axis*>& by,
                                 const FigureDecl* decl) {
  std::vector<std::size_t> by_columns;
  for (const Axis* a : by) by_columns.push_back(static_cast<std::size_t>(results.axis_column(a->param)));
  std::vector<std::size_t> key(by.size());
  const auto key_of = [&](std::size_t r) -> const std::vector<std::size_t>& {
    for (std::size_t i = 0; i < by.size(); ++i) key[i] = label_position(*by[i], results.label(r, by_columns[i]));
    return key;
  };
  // Each series' rows are counted first, so that its list is allocated once at its size: a keep-all
  // run's figure splits millions of rows.
  struct Counted {
    Series series;
    std::size_t rows = 0;
  };
  std::map<std::vector<std::size_t>, Counted> series;
  for (std::size_t r : rows) {
    const auto [it, inserted] = series.try_emplace(key_of(r));
    Counted& c = it->second;
    if (inserted) {
      std::vector<std::string> labels;
      for (std::size_t i = 0; i < by.size(); ++i) {
        const Axis* a = by[i];
        const std::string& label = results.label(r, by_columns[i]);
        const std::string& shown = decl != nullptr ? series_label(*decl, a->param, label) : label;
        labels.push_back(&shown == &label ? value_words(study, a->param, label) : shown);
      }
      c.series.order_key = key;
      c.series.title = labels.empty() ? "design points" : join(labels, " / ");
    }
    ++c.rows;
  }
  for (auto& entry : series) entry.second.series.rows.reserve(entry.second.rows);
  for (std::size_t r : rows) series.find(key_of(r))->second.series.rows.push_back(r);
  std::vector<Series> out;
  for (auto& entry : series) out.push_back(std::move(entry.second.series));
  return out;
}

std::string selection_text(const ResolvedStudy& study, const FigureDecl& decl) {
  return decl.where.empty() ? "" : " with " + analysis_text::group_words(study, decl.where);
}

std::string design_point_text(const ResolvedStudy& study, const ResultTable& results, std::size_t row,
                              std::string_view sep, bool names) {
  std::vector<std::string> parts;
  for (const Axis& a : study.axes) {
    const int col = results.axis_column(a.param);
    if (col < 0) continue;
    const std::string& label = results.label(row, static_cast<std::size_t>(col));
    parts.push_back(a.param + "=" + (names ? readable_value(study, a.param, label) : readable_label(label)));
  }
  return join(parts, sep);
}

std::string metric_words(const Column& c) { return c.display.label.empty() ? c.name : c.display.label; }

// A drawn point's hover text: its design point, one input per line, then the figure's x and y.
std::vector<std::string> hover_lines(const ResolvedStudy& study, const ResultTable& results, std::size_t row,
                                     const Column& x, const Column& y) {
  std::vector<std::string> lines;
  for (const Axis& a : study.axes) {
    const int col = results.axis_column(a.param);
    if (col >= 0) lines.push_back(a.param + " = " + readable_value(study, a.param, results.label(row, static_cast<std::size_t>(col))));
  }
  for (const Column* c : {&x, &y}) {
    if (!c->is_metric) continue;
    lines.push_back(metric_words(*c) + " = " + format_quantity(row_value(*c, study, results, row), c->display));
  }
  return lines;
}

// ---- shared by the roofline and the heatmap ----

// The first parameter of `kind` the solver has.
std::optional<std::size_t> param_of_kind(const ResolvedStudy& study, ParamKind kind) {
  if (study.solver == nullptr) return std::nullopt;
  const auto params = study.solver->params();
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (params[i].kind == kind) return i;
  }
  return std::nullopt;
}

// The labels a parameter takes among `rows`, in the order of its axis (or its fixed label).
std::vector<std::string> labels_among(const ResolvedStudy& study, const ResultTable& results,
                                      const std::vector<std::size_t>& rows, std::size_t param) {
  const std::string name(study.solver->params()[param].name);
  const Axis* axis = find_axis(study, name);
  if (axis == nullptr) return study.fixed_labels[param].empty() ? std::vector<std::string>{} : std::vector{study.fixed_labels[param]};
  const int col = results.axis_column(name);
  std::set<std::string> seen;
  for (std::size_t r : rows) seen.insert(results.label(r, static_cast<std::size_t>(col)));
  std::vector<std::string> out;
  for (const AxisValue& v : axis->values) {
    if (seen.count(v.label) != 0) out.push_back(v.label);
  }
  return out;
}

}  // namespace figure_parts

using namespace figure_parts;

double page_width_cm(FigureWidth width) {
  return width == FigureWidth::single_column ? kSingleWidthCm : kDoubleWidthCm;
}

std::string house_terminals(std::string_view name, double width_cm, double height_cm, std::string_view plot_command) {
  return gnuplot_terminal_block(name, width_cm, height_cm, plot_command);
}

std::string house_style() {
  std::string out = "# ---- dsx house style (the same block in every dsx figure) ----\n";
  out += "# Okabe-Ito colours; each series also has its own point shape and dash pattern, so the\n";
  out += "# figure still reads in grayscale. Series 9-64 repeat the colours with other shapes and dashes.\n";
  out += fmt::format("# Linetypes {}-{} fill stacked bars, ordered for gray contrast.\n", kBarLinetypeBase,
                     kBarLinetypeBase + static_cast<int>(kBarColours.size()) - 1);
  out += "set encoding utf8\n";
  out += fmt::format("set border 3 front lc rgb \"{}\" lw 1\n", kInk);
  out += "set tics nomirror out scale 0.6 textcolor rgb \"#000000\"\n";
  out += "set grid xtics ytics back lc rgb \"#d9d9d9\" lw 0.6 dt solid\n";
  out += "set key outside right top vertical reverse Left samplen 2.5 spacing 1.15 width 1\n";
  out += fmt::format("set style fill solid 1.0 border lc rgb \"{}\"\n", kInk);
  for (std::size_t i = 0; i < kSeriesLinetypes; ++i) {
    out += fmt::format("set linetype {} lc rgb \"{}\" lw 1.5 pt {} ps 1 dt {}\n", i + 1,
                       kSeriesColours[i % kSeriesColours.size()], kPointTypes[series_style(i)], kDashes[series_style(i)]);
  }
  out += fmt::format("set linetype cycle {}\n", kSeriesLinetypes);
  out += "# Heatmap colours: viridis, dark to light.\nset palette defined (";
  for (std::size_t i = 0; i < kViridis.size(); ++i) {
    out += fmt::format("{}{} \"{}\"", i == 0 ? "" : ", ", i, kViridis[i]);
  }
  out += ")\n";
  for (std::size_t i = 0; i < kBarColours.size(); ++i) {
    out += fmt::format("set linetype {} lc rgb \"{}\" lw 1 dt solid\n", kBarLinetypeBase + static_cast<int>(i),
                       kBarColours[i]);
  }
  return out;
}

bool row_matches(const std::vector<Selector>& where, const ResolvedStudy& study, const ResultTable& results,
                 std::size_t row) {
  for (const Selector& sel : where) {
    const int col = results.axis_column(sel.param);
    if (col >= 0) {
      if (results.label(row, static_cast<std::size_t>(col)) != sel.label) return false;
      continue;
    }
    bool known = false;
    if (study.solver != nullptr) {
      for (const ParamSpec& p : study.solver->params()) known = known || p.name == sel.param;
    }
    if (!known) throw std::invalid_argument("selector on unknown parameter '" + sel.param + "'");
  }
  return true;
}

std::string design_point_label(const ResolvedStudy& study, const ResultTable& results, std::size_t row) {
  return design_point_text(study, results, row, ", ");
}

std::vector<FigureDecl> effective_figures(const ResolvedStudy& study, const ResultTable& results) {
  if (!study.figures.empty()) return study.figures;
  std::vector<FigureDecl> out;
  std::vector<std::size_t> feasible;
  for (std::size_t r = 0; r < results.rows(); ++r) {
    if (results.status[r] == PointStatus::ok) feasible.push_back(r);
  }
  // A log axis when the feasible values are positive and span more than three decades.
  auto wants_log = [&](const std::string& metric) {
    const std::size_t col = results.require_metric_column(metric);
    double lo = 0, hi = 0;
    for (std::size_t r : feasible) {
      const double v = results.metric(r, col);
      if (!std::isfinite(v)) continue;
      if (v <= 0) return false;
      lo = lo == 0 ? v : std::min(lo, v);
      hi = std::max(hi, v);
    }
    return lo > 0 && hi / lo > 1e3;
  };
  if (study.objectives.size() >= 2) {
    FigureDecl d;
    d.name = "pareto";
    d.kind = FigureKind::scatter;
    d.x = study.objectives[0].metric;
    d.y = {study.objectives[1].metric};
    d.pareto = true;
    d.log_x = wants_log(d.x);
    d.log_y = wants_log(d.y.front());
    for (const Axis& a : study.axes) {
      if (a.values.size() >= 2 && a.values.size() <= 8) {
        d.group = a.param;
        break;
      }
    }
    d.caption = "Every feasible design point and the Pareto front of the study's first two objectives "
                "(the study declares no figures, so dsx drew this one).";
    out.push_back(std::move(d));
    return out;
  }
  if (study.axes.empty() || results.metric_names.empty()) return out;
  FigureDecl d;
  d.name = "overview";
  d.kind = FigureKind::bars;
  d.x = study.axes.front().param;
  const std::string metric = study.objectives.empty() ? results.metric_names.front() : study.objectives.front().metric;
  const bool maximize = !study.objectives.empty() && study.objectives.front().direction == Direction::maximize;
  d.y = {metric};
  // The other axes held at the best feasible design point.
  const std::size_t col = results.require_metric_column(metric);
  std::optional<std::size_t> best;
  for (std::size_t r : feasible) {
    const double v = results.metric(r, col);
    if (!std::isfinite(v)) continue;
    const double b = best ? results.metric(*best, col) : 0;
    if (!best || (maximize ? v > b : v < b)) best = r;
  }
  std::vector<std::string> held;
  if (best) {
    for (std::size_t a = 1; a < study.axes.size(); ++a) {
      const int ac = results.axis_column(study.axes[a].param);
      if (ac < 0) continue;
      d.where.push_back({study.axes[a].param, results.label(*best, static_cast<std::size_t>(ac))});
      held.push_back(d.where.back().param + " = " + d.where.back().label);
    }
  }
  d.caption = fmt::format("{} for each {}{} (the study declares no figures, so dsx drew this one).", metric, d.x,
                          held.empty() ? "" : ", the other parameters held at the best design point (" + join(held, ", ") + ")");
  out.push_back(std::move(d));
  return out;
}

namespace {

// A figure's name becomes figures/<name>.{gp,dat,svg,pdf,png}: one plain file name in that folder.
bool figure_file_name_ok(std::string_view name) {
  return !name.empty() && name.front() != '.' && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.';
  });
}

// A script that would do more than draw its figure (gnuplot_script_check.hpp) is not run.
void check_script_may_run(const FigureSource& src, std::string_view gp_path) {
  if (const auto hazard = gnuplot_script_hazard(src.script)) {
    throw FigureNotDrawn(FigureNotDrawn::Cause::script_refused,
                         fmt::format("{}:{}:{}: {}; figure '{}' is not drawn", gp_path, hazard->line, hazard->column,
                                     hazard->what, src.name));
  }
}

// A kept script written for an earlier version of the study may read columns or blocks the data
// no longer has.
void check_script_fits_data(const FigureSource& src, std::string_view gp_path) {
  if (!src.script_kept) return;
  if (const auto stale = gnuplot_data_mismatch(src.script, src.data, src.name + ".dat")) {
    throw FigureNotDrawn(FigureNotDrawn::Cause::script_stale,
                         fmt::format("{}:{}:{}: {}; figure '{}' is not drawn", gp_path, stale->line, stale->column,
                                     stale->what, src.name));
  }
}

// With keep_script, the NAME.gp already in `dir` (a hand-edited script) replaces the generated one;
// the data stays the current rows.
void keep_existing_script(FigureSource& src, const std::string& dir) {
  namespace fs = std::filesystem;
  const fs::path gp = fs::path(dir) / (src.name + ".gp");
  const fs::file_status status = fs::symlink_status(gp);
  if (status.type() == fs::file_type::not_found) return;
  if (status.type() != fs::file_type::regular) {
    throw FigureNotDrawn(FigureNotDrawn::Cause::script_not_plain,
                         fmt::format("{}: keep_script keeps this file for figure '{}', but it is not a plain file "
                                     "(a link or a folder); figure '{}' is not drawn",
                                     gp.string(), src.name, src.name));
  }
  src.script = read_file(gp.string());
  src.script_kept = true;
  src.description += fmt::format(" Drawn from the kept script {}.gp (keep_script: true), with the current data.",
                                 src.name);
}

}  // namespace

FigureSource build_figure(const FigureDecl& decl, const ResolvedStudy& study, const ResultTable& results,
                          const std::vector<std::size_t>& pareto_rows) {
  if (!figure_file_name_ok(decl.name)) {
    throw std::invalid_argument(fmt::format(
        "figure name '{}' cannot be a file name: use letters, digits, '_', '-' and '.'", decl.name));
  }
  // Counted first, then allocated once at their sizes (a keep-all run's figure reads millions of rows).
  std::size_t ok_rows = 0, other_rows = 0;
  for (std::size_t r = 0; r < results.rows(); ++r) {
    if (row_matches(decl.where, study, results, r)) ++(results.status[r] == PointStatus::ok ? ok_rows : other_rows);
  }
  std::vector<std::size_t> rows, not_ok;
  rows.reserve(ok_rows);
  not_ok.reserve(other_rows);
  for (std::size_t r = 0; r < results.rows(); ++r) {
    if (!row_matches(decl.where, study, results, r)) continue;
    (results.status[r] == PointStatus::ok ? rows : not_ok).push_back(r);
  }
  const std::size_t excluded = not_ok.size();
  switch (decl.kind) {
    case FigureKind::scatter:
    case FigureKind::line: return build_xy(decl, study, results, std::move(rows), excluded, pareto_rows);
    case FigureKind::bars: return build_bars(decl, study, results, rows, excluded);
    case FigureKind::roofline: return build_roofline(decl, study, results, rows, excluded);
    case FigureKind::heatmap: return build_heatmap(decl, study, results, rows, not_ok);
  }
  throw std::logic_error("build_figure: invalid FigureKind");
}

std::string gnuplot_program() {
  const char* env = std::getenv("DSX_GNUPLOT");
  return env != nullptr && *env != '\0' ? std::string(env) : std::string(DSX_GNUPLOT);
}

void run_gnuplot(const std::string& gp_path, const std::string& working_dir, const std::string& gnuplot) {
  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error(fmt::format("cannot run gnuplot on {}: pipe: {}", gp_path, std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  posix_spawn_file_actions_addchdir_np(&actions, working_dir.c_str());

  // The caller's environment without locale settings, plus LC_ALL=C.UTF-8: numbers print with '.',
  // text stays UTF-8.
  std::vector<std::string> env_strings;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view v(*e);
    if (v.starts_with("LC_") || v.starts_with("LANG=") || v.starts_with("LANGUAGE=")) continue;
    env_strings.emplace_back(v);
  }
  env_strings.emplace_back("LC_ALL=C.UTF-8");
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);

  std::string program = gnuplot, flag = "--default-settings", script = gp_path;
  std::array<char*, 4> argv = {program.data(), flag.data(), script.data(), nullptr};
  pid_t pid = 0;
  const int rc = gnuplot.find('/') != std::string::npos
                     ? posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data())
                     : posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(err_pipe[1]);
  if (rc != 0) {
    close(err_pipe[0]);
    throw std::runtime_error(fmt::format("cannot run gnuplot ({}) on {}: {}", gnuplot, gp_path, std::strerror(rc)));
  }
  std::string err;
  std::array<char, 4096> buf{};
  for (;;) {
    const ssize_t n = read(err_pipe[0], buf.data(), buf.size());
    if (n > 0) {
      err.append(buf.data(), static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(err_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(fmt::format("gnuplot on {}: waitpid: {}", gp_path, std::strerror(errno)));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
  const std::string how = WIFEXITED(status) ? fmt::format("exit status {}", WEXITSTATUS(status))
                                            : fmt::format("signal {}", WTERMSIG(status));
  throw std::runtime_error(fmt::format("gnuplot failed on {} ({}):\n{}", gp_path, how,
                                       err.empty() ? "(no message)" : err));
}

void normalize_pdf_dates(std::string& pdf) {
  static constexpr std::string_view kFixed = "20000101000000";
  for (std::string_view key : {std::string_view("/CreationDate"), std::string_view("/ModDate")}) {
    for (std::size_t pos = pdf.find(key); pos != std::string::npos; pos = pdf.find(key, pos + 1)) {
      std::size_t i = pos + key.size();
      while (i < pdf.size() && (pdf[i] == ' ' || pdf[i] == '\n' || pdf[i] == '\r')) ++i;
      if (i >= pdf.size() || pdf[i] != '(') continue;
      std::size_t digits = 0;
      for (++i; i < pdf.size() && pdf[i] != ')'; ++i) {
        char& c = pdf[i];
        if (c >= '0' && c <= '9') {
          c = digits < kFixed.size() ? kFixed[digits] : '0';
          ++digits;
        } else if (c == '-') {
          c = '+';
        }
      }
    }
  }
}

std::string svg_for_inlining(std::string_view svg, std::string_view id_prefix, std::string_view label) {
  const std::size_t start = svg.find("<svg");
  if (start == std::string_view::npos) throw std::invalid_argument("svg_for_inlining: no <svg> element");
  const std::string prefix(id_prefix);
  auto rewrite_tag = [&](std::string tag) {
    auto replace_all = [&](std::string_view from, std::string_view to) {
      for (std::size_t p = tag.find(from); p != std::string::npos; p = tag.find(from, p + to.size())) {
        tag.replace(p, from.size(), to);
      }
    };
    for (std::string_view q : {"'", "\""}) {
      replace_all(fmt::format(" id={}", q), fmt::format(" id={}{}", q, prefix));
      replace_all(fmt::format("href={}#", q), fmt::format("href={}#{}", q, prefix));
    }
    replace_all("url(#", "url(#" + prefix);
    return tag;
  };
  std::string out;
  out.reserve(svg.size() + 1024);
  bool first_svg = true;
  for (std::size_t i = start; i < svg.size();) {
    if (svg[i] != '<') {
      const std::size_t next = svg.find('<', i);
      const std::size_t end = next == std::string_view::npos ? svg.size() : next;
      out.append(svg.substr(i, end - i));
      i = end;
      continue;
    }
    std::size_t j = i + 1;
    char quote = 0;
    for (; j < svg.size(); ++j) {
      const char c = svg[j];
      if (quote != 0) {
        if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '>') {
        break;
      }
    }
    std::string tag = rewrite_tag(std::string(svg.substr(i, std::min(j + 1, svg.size()) - i)));
    if (first_svg && tag.starts_with("<svg")) {
      tag.insert(4, fmt::format(" role=\"img\" aria-label=\"{}\"", html_escape(label)));
      first_svg = false;
    }
    out += tag;
    i = j + 1;
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  if (const auto t = out.find("<title>Gnuplot</title>"); t != std::string::npos) {
    out.replace(t, std::string_view("<title>Gnuplot</title>").size(), "<title>" + html_escape(label) + "</title>");
  }
  return out;
}

std::string svg_hover_titles(std::string_view svg) {
  static constexpr std::string_view kOpen = "<g onmousemove=\"gnuplot_svg.showHypertext(evt,'";
  static constexpr std::string_view kClose = "')\" onmouseout=\"gnuplot_svg.hideHypertext()\"><title> </title>";
  std::string out;
  out.reserve(svg.size());
  std::size_t at = 0;
  for (std::size_t open = svg.find(kOpen); open != std::string_view::npos; open = svg.find(kOpen, at)) {
    const std::size_t text = open + kOpen.size();
    const std::size_t close = svg.find(kClose, text);
    if (close == std::string_view::npos) throw std::runtime_error("svg_hover_titles: unterminated hypertext");
    out.append(svg.substr(at, open - at));
    out += "<g><title>";
    for (std::size_t i = text; i < close; ++i) {
      if (svg[i] == '\\' && i + 1 < close && svg[i + 1] == 'n') {
        out += '\n';
        ++i;
      } else {
        out += svg[i];
      }
    }
    out += "</title>";
    at = close + kClose.size();
  }
  out.append(svg.substr(at));
  return out;
}

namespace {

// A figure's texts and the paths of its files in `dir`.
RenderedFigure figure_files(const FigureSource& src, const std::string& dir) {
  RenderedFigure fig;
  fig.name = src.name;
  fig.title = src.title;
  fig.caption = src.caption;
  fig.description = src.description;
  const std::string stem = dir + "/" + src.name;
  fig.gp_path = stem + ".gp";
  fig.dat_path = stem + ".dat";
  fig.svg_path = stem + ".svg";
  fig.pdf_path = stem + ".pdf";
  fig.png_path = stem + ".png";
  return fig;
}

}  // namespace

RenderedFigure render_figure_source(const FigureSource& src, const std::string& dir) {
  namespace fs = std::filesystem;
  if (!figure_file_name_ok(src.name)) {
    throw std::invalid_argument(fmt::format(
        "figure name '{}' cannot be a file name: use letters, digits, '_', '-' and '.'", src.name));
  }
  RenderedFigure fig = figure_files(src, dir);
  fig.points = src.points;
  write_file_atomic(fig.dat_path, src.data);
  check_script_may_run(src, fig.gp_path);
  check_script_fits_data(src, fig.gp_path);
  if (!src.script_kept) write_file_atomic(fig.gp_path, src.script);

  // gnuplot draws into a private folder; finished files then replace the old ones atomically.
  const std::string work = dir + "/." + src.name + ".drawing";
  std::error_code ec;
  fs::remove_all(work, ec);
  make_directories(work);
  write_file_atomic(work + "/" + src.name + ".dat", src.data);
  try {
    try {
      run_gnuplot(fs::absolute(fig.gp_path).string(), work);
    } catch (const std::runtime_error& e) {
      throw FigureNotDrawn(FigureNotDrawn::Cause::gnuplot_failed, e.what());
    }
    for (std::string_view ext : {"svg", "pdf", "png"}) {
      const std::string drawn = src.name + "." + std::string(ext);
      if (!fs::exists(work + "/" + drawn)) {
        throw FigureNotDrawn(FigureNotDrawn::Cause::gnuplot_failed,
                             fmt::format("gnuplot on {} wrote no {}; figure '{}' is not drawn", fig.gp_path, drawn,
                                         src.name));
      }
    }
    std::string pdf = read_file(work + "/" + src.name + ".pdf");
    normalize_pdf_dates(pdf);
    write_file_atomic(fig.pdf_path, pdf);
    write_file_atomic(fig.svg_path, svg_hover_titles(read_file(work + "/" + src.name + ".svg")));
    fs::rename(work + "/" + src.name + ".png", fig.png_path);
    record_written_file(fig.png_path);
  } catch (...) {
    fs::remove_all(work, ec);
    throw;
  }
  fs::remove_all(work, ec);
  return fig;
}

namespace {

// What a reader can do about a figure that was not drawn.
std::string not_drawn_remedy(const FigureSource& src, FigureNotDrawn::Cause cause) {
  const std::string gp = "figures/" + src.name + ".gp";
  const std::string then = " Then run dsx report on this run folder to draw it again.";
  switch (cause) {
    case FigureNotDrawn::Cause::script_refused:
      if (!src.script_kept) break;
      return fmt::format("{} is kept by hand (keep_script: true) and does more than draw: edit it so it only reads "
                         "{}.dat and writes {}.svg, {}.pdf and {}.png, or delete it so dsx writes its own.{}",
                         gp, src.name, src.name, src.name, src.name, then);
    case FigureNotDrawn::Cause::script_stale:
      return fmt::format("The study changed since {} was kept (keep_script: true): edit the script to read the "
                         "columns and blocks {}.dat now has (its header is quoted above), or delete it so dsx writes "
                         "one for the current data.{}",
                         gp, src.name, then);
    case FigureNotDrawn::Cause::script_not_plain:
      return fmt::format("Put a plain file at {}, or remove what is there so dsx writes its own script.{}", gp, then);
    case FigureNotDrawn::Cause::gnuplot_failed:
      if (!src.script_kept) break;
      return fmt::format("{} is kept by hand (keep_script: true): fix it where gnuplot points (gnuplot {}.gp inside "
                         "figures/ tries it), or delete it so dsx writes its own.{}",
                         gp, src.name, then);
  }
  return "dsx wrote this script itself: check that gnuplot 5.4 or later, with its svg, pdfcairo and pngcairo "
         "terminals, is installed (gnuplot --version; or the gnuplot that DSX_GNUPLOT names, when it is set)." + then +
         " If it fails again, please report it with this figure's .gp and .dat files.";
}

}  // namespace

RenderedFigure figure_not_drawn(const FigureSource& src, const std::string& dir, const FigureNotDrawn& e) {
  RenderedFigure fig = figure_files(src, dir);
  fig.error = e.what();
  fig.remedy = not_drawn_remedy(src, e.cause());
  std::error_code ec;
  for (const std::string& picture : {fig.svg_path, fig.pdf_path, fig.png_path}) std::filesystem::remove(picture, ec);
  return fig;
}

std::vector<RenderedFigure> render_figures(const ReportInputs& inputs) {
  const std::string dir = inputs.run_dir + "/figures";
  make_directories(dir);
  std::vector<RenderedFigure> out;
  const std::vector<FigureDecl> decls = effective_figures(inputs.study, inputs.results);
  for (std::size_t i = 0; i < decls.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (decls[i].name == decls[j].name) {
        throw std::invalid_argument(fmt::format("two figures are named '{}'", decls[i].name));
      }
    }
  }
  for (const FigureDecl& decl : decls) {
    FigureSource src = build_figure(decl, inputs.study, inputs.results, inputs.pareto_rows);
    try {
      if (decl.keep_script) keep_existing_script(src, dir);
      out.push_back(render_figure_source(src, dir));
    } catch (const FigureNotDrawn& e) {
      out.push_back(figure_not_drawn(src, dir, e));
    }
  }
  return out;
}

}  // namespace dsx
