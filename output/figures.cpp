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
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "dse/pareto.hpp"
#include "output/files.hpp"
#include "output/format.hpp"
#include "output/report.hpp"

extern char** environ;

namespace dsx {

namespace {

// ---- house style: every constant of the look lives here ----

constexpr double kWidthCm = 17.0;
constexpr double kPlotHeightCm = 10.0;  // scatter and line
constexpr double kBarBaseCm = 2.6;      // bars: margins, title and axis
constexpr double kBarKeyCm = 1.0;       // bars: the key below the axis
constexpr double kBarStepCm = 0.75;     // bars: per category
constexpr double kBarMinCm = 6.0;
constexpr double kBarMaxCm = 24.0;
constexpr double kBarHalfHeight = 0.35;  // in category units

// Okabe-Ito, in the order series take them; shapes and dashes differ per series too.
constexpr std::array<std::string_view, 8> kSeriesColours = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                                            "#56B4E9", "#CC79A7", "#F0E442", "#000000"};
// gnuplot point types: filled circle, filled square, filled triangle, filled diamond, filled
// inverted triangle, open circle, open square, open triangle.
constexpr std::array<int, 8> kPointTypes = {7, 5, 9, 13, 11, 6, 4, 8};
constexpr std::array<std::string_view, 8> kDashes = {"solid",     "(6,3)",  "(2,2)",     "(8,3,2,3)",
                                                     "(3,3)",     "(10,4)", "(2,2,6,2)", "(1,3)"};
// Stacked-bar fills: the same palette ordered so neighbouring segments differ in gray (dark blue,
// mid orange, light yellow, ...).
constexpr std::array<std::string_view, 8> kBarColours = {"#0072B2", "#E69F00", "#F0E442", "#009E73",
                                                         "#D55E00", "#56B4E9", "#CC79A7", "#000000"};
constexpr int kBarLinetypeBase = 11;
constexpr std::string_view kInk = "#262626";
constexpr std::size_t kMaxDrawnPoints = 20000;  // scatter and line, all series together

struct TerminalPreset {
  std::string_view extension;
  std::string_view terminal;
  double units_per_cm;   // svg/png pixels per cm; 0 = size in cm (pdf)
  std::string_view font;
  double linewidth;
  double pointscale;     // 0 = the terminal has no pointscale option (svg: 1)
};
// SVG at 96 px/in with 12 px text (9 pt at 96 px/in), PDF at 9 pt, PNG at 192 px/in with 18 pt
// (24 px): the same figure at three resolutions. Line widths and point sizes differ per terminal
// because cairo's pdf and png drivers scale them differently from text.
constexpr std::array<TerminalPreset, 3> kPresets = {{
    {"svg", "svg", 96 / 2.54, "DejaVu Sans,12", 1.0, 0.0},
    {"pdf", "pdfcairo", 0.0, "DejaVu Sans,9", 1.2, 0.6},
    {"png", "pngcairo", 192 / 2.54, "DejaVu Sans,18", 2.0, 2.0},
}};

// ---- text helpers ----

// A gnuplot double-quoted string (used with `noenhanced`, so only \ and " need escaping).
std::string gp_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    out += c;
  }
  out += '"';
  return out;
}

// A quoted string in a gnuplot data file, which has no escape for a double quote.
std::string dat_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') c = '\'';
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    out += c;
  }
  out += '"';
  return out;
}

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

// A figure coordinate: a metric column or a solver parameter (axis or fixed).
struct Column {
  std::string name;
  bool is_metric = false;
  int metric_col = -1;
  int axis_col = -1;             // results.axis_names column when the parameter is an axis
  const Axis* axis = nullptr;
  std::size_t param_index = 0;
  bool numeric = true;           // false: hardware, model, precision, choice
  QuantityDisplay display;
  std::map<std::string, std::size_t> value_index;  // axis label -> position in the axis
};

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

std::string ordinal(std::size_t n) {
  const std::size_t mod100 = n % 100;
  const std::string_view suffix = (mod100 >= 11 && mod100 <= 13) ? "th"
                                  : n % 10 == 1                  ? "st"
                                  : n % 10 == 2                  ? "nd"
                                  : n % 10 == 3                  ? "rd"
                                                                 : "th";
  return fmt::format("{}{}", n, suffix);
}

// "1e6" for a power of ten, else the exact number.
std::string factor_text(double factor) {
  const int e = static_cast<int>(std::lround(std::log10(factor)));
  if (std::pow(10.0, e) == factor) return fmt::format("1e{}", e);
  return format_exact(factor);
}

std::string gp_scaled(int column, double factor) {
  if (factor == 1) return fmt::format("{}", column);
  return fmt::format("(${}*{})", column, factor_text(factor));
}

struct AxisSetup {
  std::string title;
  AxisScale scale;
  bool log = false;
};

AxisSetup axis_setup(const Column& c, const std::vector<double>& values, bool log) {
  AxisSetup a;
  a.log = log;
  double max_abs = 0;
  for (double v : values) {
    if (std::isfinite(v)) max_abs = std::max(max_abs, std::fabs(v));
  }
  a.scale = c.numeric ? choose_axis_scale(c.display, max_abs) : AxisScale{1, ""};
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

std::string terminal_block(std::string_view name, double height_cm, std::string_view plot_command) {
  std::string out =
      "\n# ---- output: one preset per terminal, 17 cm wide (svg and png in pixels) ----\n";
  bool first = true;
  for (const TerminalPreset& p : kPresets) {
    std::string size = p.units_per_cm > 0
                           ? fmt::format("{},{}", std::lround(kWidthCm * p.units_per_cm),
                                         std::lround(height_cm * p.units_per_cm))
                           : fmt::format("{:g}cm,{:g}cm", kWidthCm, height_cm);
    out += fmt::format("set terminal {} size {} {}enhanced font \"{}\" linewidth {}{} background rgb \"#ffffff\"\n",
                       p.terminal, size, p.extension == "svg" ? "fixed " : "", p.font, fmt::format("{:g}", p.linewidth),
                       p.pointscale > 0 ? fmt::format(" pointscale {:g}", p.pointscale) : "");
    out += fmt::format("set output {}\n", gp_string(std::string(name) + "." + std::string(p.extension)));
    out += first ? std::string(plot_command) : "replot\n";
    first = false;
  }
  out += "unset output\n";
  return out;
}

std::string script_header(const FigureDecl& decl, std::string_view title) {
  std::string out = fmt::format("# dsx figure '{}': {}\n", one_line(decl.name), one_line(title));
  out += fmt::format(
      "# Draws {0}.svg, {0}.pdf and {0}.png from {0}.dat.\n"
      "# The data is in SI units; the plot commands scale each axis for reading.\n"
      "# Redraw after editing, in this folder: gnuplot {0}.gp\n\n",
      one_line(decl.name));
  out += house_style();
  out += "\n# ---- this figure ----\n";
  out += fmt::format("set title {} noenhanced\n", gp_string(title));
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

struct Series {
  std::vector<std::size_t> order_key;
  std::string title;
  std::vector<std::size_t> rows;
};

// Rows split into series by the labels of `by` (in order), series sorted as the study lists values.
std::vector<Series> split_series(const ResultTable& results,
                                 const std::vector<std::size_t>& rows, const std::vector<const Axis*>& by) {
  std::map<std::vector<std::size_t>, Series> series;
  for (std::size_t r : rows) {
    std::vector<std::size_t> key;
    std::vector<std::string> labels;
    for (const Axis* a : by) {
      const std::string& label = results.label(r, static_cast<std::size_t>(results.axis_column(a->param)));
      key.push_back(label_position(*a, label));
      labels.push_back(label);
    }
    Series& s = series[key];
    if (s.rows.empty()) {
      s.order_key = key;
      s.title = labels.empty() ? "design points" : join(labels, " / ");
    }
    s.rows.push_back(r);
  }
  std::vector<Series> out;
  for (auto& [key, s] : series) out.push_back(std::move(s));
  return out;
}

std::string design_point_text(const ResolvedStudy& study, const ResultTable& results, std::size_t row,
                              std::string_view sep) {
  std::vector<std::string> parts;
  for (const Axis& a : study.axes) {
    const int col = results.axis_column(a.param);
    if (col < 0) continue;
    parts.push_back(a.param + "=" + results.label(row, static_cast<std::size_t>(col)));
  }
  return join(parts, sep);
}

std::string metric_words(const Column& c) { return c.display.label.empty() ? c.name : c.display.label; }

// ---- scatter and line ----

FigureSource build_xy(const FigureDecl& decl, const ResolvedStudy& study, const ResultTable& results,
                      const std::vector<std::size_t>& rows, std::size_t excluded,
                      const std::vector<std::size_t>& pareto_rows) {
  const bool is_line = decl.kind == FigureKind::line;
  const Column x = resolve_column(decl.x, study, results, decl.name);
  if (decl.y.empty()) throw std::invalid_argument(fmt::format("figure '{}': no y metric", decl.name));
  std::vector<Column> ys;
  for (const std::string& y : decl.y) {
    ys.push_back(resolve_column(y, study, results, decl.name));
    if (!ys.back().numeric) {
      throw std::invalid_argument(fmt::format("figure '{}': y '{}' is not numeric", decl.name, y));
    }
    if (ys.back().display.unit != ys.front().display.unit || ys.back().display.style != ys.front().display.style) {
      throw std::invalid_argument(fmt::format("figure '{}': y metrics '{}' and '{}' have different units",
                                              decl.name, ys.front().name, y));
    }
  }
  if (decl.log_x && !x.numeric) {
    throw std::invalid_argument(fmt::format("figure '{}': log_x on categorical parameter '{}'", decl.name, decl.x));
  }

  // Rows with a drawable value (finite, positive on a log axis).
  auto drawable = [&](std::size_t r, const Column& yc) {
    const double xv = row_value(x, study, results, r);
    const double yv = row_value(yc, study, results, r);
    if (!std::isfinite(xv) || !std::isfinite(yv)) return false;
    if (decl.log_x && !(xv > 0)) return false;
    if (decl.log_y && !(yv > 0)) return false;
    return true;
  };

  // Series: by group for a scatter; for a line also by every other axis that varies, so each
  // line joins points that differ only in x.
  std::vector<const Axis*> by;
  if (!decl.group.empty()) {
    if (const Axis* g = find_axis(study, decl.group)) by.push_back(g);
  }
  if (is_line) {
    for (const Axis* a : varying_axes(study, results, rows, {decl.x, decl.group})) by.push_back(a);
  }
  const std::vector<Series> groups = split_series(results, rows, by);

  struct Drawn {
    std::string title;
    const Column* y;
    std::vector<std::size_t> rows;
  };
  std::vector<Drawn> drawn;
  std::size_t not_drawable = 0;
  std::set<std::size_t> plotted_rows;
  for (const Column& yc : ys) {
    for (const Series& s : groups) {
      Drawn d{ys.size() > 1 ? (s.order_key.empty() ? metric_words(yc) : metric_words(yc) + " / " + s.title)
                            : s.title,
              &yc, {}};
      for (std::size_t r : s.rows) {
        if (drawable(r, yc)) {
          d.rows.push_back(r);
          plotted_rows.insert(r);
        } else {
          ++not_drawable;
        }
      }
      if (is_line) {
        std::stable_sort(d.rows.begin(), d.rows.end(), [&](std::size_t a, std::size_t b) {
          return row_value(x, study, results, a) < row_value(x, study, results, b);
        });
      }
      if (!d.rows.empty()) drawn.push_back(std::move(d));
    }
  }
  // A picture of more points than a page can show is thinned evenly (every k-th point of each
  // series); the data file keeps what is drawn, the front and knee are always drawn.
  std::size_t total_points = 0;
  for (const Drawn& d : drawn) total_points += d.rows.size();
  std::size_t stride = 1;
  if (total_points > kMaxDrawnPoints) {
    stride = (total_points + kMaxDrawnPoints - 1) / kMaxDrawnPoints;
    plotted_rows.clear();
    for (Drawn& d : drawn) {
      std::vector<std::size_t> kept;
      for (std::size_t i = 0; i < d.rows.size(); i += stride) kept.push_back(d.rows[i]);
      d.rows = std::move(kept);
      plotted_rows.insert(d.rows.begin(), d.rows.end());
    }
  }

  // The Pareto front among this figure's rows, joined in x order; the knee when it is drawn.
  std::vector<std::size_t> front;
  std::optional<std::size_t> knee;
  if (decl.pareto) {
    std::set<std::size_t> in_figure(rows.begin(), rows.end());
    for (std::size_t r : pareto_rows) {
      if (in_figure.count(r) != 0 && drawable(r, ys.front())) front.push_back(r);
    }
    std::stable_sort(front.begin(), front.end(), [&](std::size_t a, std::size_t b) {
      const double xa = row_value(x, study, results, a), xb = row_value(x, study, results, b);
      if (xa != xb) return xa < xb;
      return row_value(ys.front(), study, results, a) < row_value(ys.front(), study, results, b);
    });
    if (study.objectives.size() == 2 && pareto_rows.size() >= 3) {
      const auto k = knee_point(results, study.objectives, pareto_rows);
      if (k && k->distance > 0 && std::find(front.begin(), front.end(), k->row) != front.end()) knee = k->row;
    }
  }

  std::vector<double> xs, yvals;
  for (const Drawn& d : drawn) {
    for (std::size_t r : d.rows) {
      xs.push_back(row_value(x, study, results, r));
      yvals.push_back(row_value(*d.y, study, results, r));
    }
  }
  const AxisSetup xa = axis_setup(x, xs, decl.log_x);
  AxisSetup ya = axis_setup(ys.front(), yvals, decl.log_y);
  if (ys.size() > 1) {
    std::vector<std::string> words;
    for (const Column& c : ys) words.push_back(metric_words(c));
    ya.title = ya.scale.unit.empty() ? join(words, ", ") : join(words, ", ") + " (" + ya.scale.unit + ")";
  }
  std::vector<double> xs_scaled, ys_scaled;
  for (double v : xs) xs_scaled.push_back(v * xa.scale.factor);
  for (double v : yvals) ys_scaled.push_back(v * ya.scale.factor);

  const std::string title = !decl.title.empty() ? decl.title : ya.title + " vs " + xa.title;
  FigureSource src;
  src.name = decl.name;
  src.title = title;
  src.caption = decl.caption;
  src.points = plotted_rows.size();

  // Data: one block per series, then the front, then the knee.
  std::string& dat = src.data;
  dat += fmt::format("# dsx figure data '{}' ({} study '{}')\n", one_line(decl.name),
                     is_line ? "line plot," : "scatter plot,", one_line(study.name));
  dat += fmt::format("# x = {}{}; y = {}; SI units\n", x.name,
                     x.numeric ? "" : " (position along the axis)", ys.size() == 1 ? ys.front().name : "per block");
  dat += "# columns: x y point_index design_point; one gnuplot index block per series\n";
  std::size_t block = 0;
  auto write_block = [&](std::string_view heading, const Column& yc, const std::vector<std::size_t>& block_rows) {
    if (block > 0) dat += "\n\n";
    dat += fmt::format("# index {}: {} (y = {})\n", block, one_line(heading), yc.name);
    for (std::size_t r : block_rows) {
      dat += fmt::format("{} {} {} {}\n", format_exact(row_value(x, study, results, r)),
                         format_exact(row_value(yc, study, results, r)), results.point_index[r],
                         dat_string(design_point_text(study, results, r, " ")));
    }
    ++block;
  };
  for (const Drawn& d : drawn) write_block(d.title, *d.y, d.rows);
  const std::size_t front_block = block;
  if (!front.empty()) write_block("Pareto front, in x order", ys.front(), front);
  const std::size_t knee_block = block;
  if (knee) write_block("knee of the Pareto front", ys.front(), {*knee});

  // Script.
  std::string& gp = src.script;
  gp = script_header(decl, title);
  gp += axis_commands('x', xa, xs_scaled);
  gp += axis_commands('y', ya, ys_scaled);
  // Room around the data on linear axes (log axes already end on a decade); a y axis of
  // non-negative values starts at zero.
  const bool y_from_zero = !decl.log_y && !ys_scaled.empty() &&
                           std::all_of(ys_scaled.begin(), ys_scaled.end(), [](double v) { return v >= 0; });
  // A percentage that reaches past half reads against the full 0-100 scale.
  const bool y_full_percent = y_from_zero && ya.scale.unit == "%" &&
                              *std::max_element(ys_scaled.begin(), ys_scaled.end()) > 50 &&
                              *std::max_element(ys_scaled.begin(), ys_scaled.end()) <= 100;
  if (y_from_zero) gp += y_full_percent ? "set yrange [0:100]\n" : "set yrange [0:*]\n";
  const std::string_view x_pad = decl.log_x || !x.numeric ? "0" : "graph 0.03";
  const std::string_view y_pad = decl.log_y ? "0" : "graph 0.05";
  gp += fmt::format("set offsets {0}, {0}, {1}, {2}\n", x_pad, y_full_percent ? "0" : y_pad, y_from_zero ? "0" : y_pad);
  if (!x.numeric) {
    std::vector<std::string> tics;
    for (std::size_t k = 0; k < x.axis->values.size(); ++k) {
      tics.push_back(fmt::format("{} {}", gp_string(x.axis->values[k].label), k));
    }
    gp += fmt::format("set xtics ({}) noenhanced\n", join(tics, ", "));
    gp += fmt::format("set xrange [-0.5:{}]\n", format_exact(static_cast<double>(x.axis->values.size()) - 0.5));
  }
  std::vector<std::string> key_names;
  if (ys.size() > 1) key_names.push_back("metric");
  for (const Axis* a : by) key_names.push_back(a->param);
  if (drawn.size() > 1 && !key_names.empty()) {
    gp += fmt::format("set key title {} noenhanced\n", gp_string(join(key_names, " / ")));
  }
  const bool show_key = drawn.size() > 1 || !front.empty();
  if (!show_key) gp += "unset key\n";

  std::vector<std::string> clauses;
  const std::string xexpr = gp_scaled(1, xa.scale.factor);
  const std::string yexpr = gp_scaled(2, ya.scale.factor);
  const std::string using_clause = fmt::format("using {}:{}", xexpr, yexpr);
  const std::string data_file = gp_string(decl.name + ".dat");
  for (std::size_t i = 0; i < drawn.size(); ++i) {
    clauses.push_back(fmt::format("{} index {} {} with {} lt {} title {} noenhanced", i == 0 ? data_file : "\"\"", i,
                                  using_clause, is_line ? "linespoints" : "points", i + 1,
                                  gp_string(drawn[i].title)));
  }
  if (!front.empty()) {
    clauses.push_back(fmt::format("\"\" index {} {} with lines lc rgb \"#000000\" lw 2 dt solid title \"Pareto front\"",
                                  front_block, using_clause));
  }
  if (knee) {
    clauses.push_back(fmt::format(
        "\"\" index {} {} with points lc rgb \"#000000\" pt 6 ps 2.4 lw 1.5 title \"knee\"", knee_block,
        using_clause));
  }
  std::string plot;
  if (clauses.empty()) {
    plot = "set label 1 \"no feasible design point to draw\" at graph 0.5, graph 0.5 center\n"
           "set xrange [0:1]\nset yrange [0:1]\nunset logscale\nplot -1 notitle\n";
  } else {
    plot = "plot " + join(clauses, ", \\\n     ") + "\n";
  }
  gp += terminal_block(decl.name, kPlotHeightCm, plot);

  // Description, for the caption.
  std::string& text = src.description;
  text = fmt::format("{} of {} against {}: {} design point{}", is_line ? "Lines" : "Points",
                     ys.size() == 1 ? ya.title : join(decl.y, ", "), xa.title, src.points, src.points == 1 ? "" : "s");
  if (!decl.where.empty()) {
    std::vector<std::string> sel;
    for (const Selector& s : decl.where) sel.push_back(s.param + " = " + s.label);
    text += " with " + join(sel, ", ");
  }
  if (!key_names.empty() && drawn.size() > 1) text += fmt::format(", one series per {}", join(key_names, " / "));
  if (is_line) text += fmt::format(", joined in order of {}", x.name);
  text += ".";
  if (stride > 1) {
    text += fmt::format(" Thinned for drawing: every {} point of each series ({} of {}).", ordinal(stride),
                        format_grouped(static_cast<double>(src.points)),
                        format_grouped(static_cast<double>(total_points)));
  }
  if (decl.log_x || decl.log_y) {
    text += fmt::format(" Logarithmic {} axis.", decl.log_x && decl.log_y ? "x and y" : decl.log_x ? "x" : "y");
  }
  if (!front.empty()) {
    std::vector<std::string> obj;
    for (const Objective& o : study.objectives) {
      obj.push_back(fmt::format("{} {}", o.direction == Direction::minimize ? "minimum" : "maximum", o.metric));
    }
    text += fmt::format(" The black line is the Pareto front ({}; {} point{} shown).", join(obj, ", "), front.size(),
                        front.size() == 1 ? "" : "s");
  }
  if (knee) {
    text += fmt::format(" Circled: the knee, {} ({} = {}, {} = {}).", design_point_text(study, results, *knee, ", "),
                        x.name, x.numeric ? format_quantity(row_value(x, study, results, *knee), x.display) : row_label(x, study, results, *knee),
                        ys.front().name, format_quantity(row_value(ys.front(), study, results, *knee), ys.front().display));
  }
  if (excluded > 0 || not_drawable > 0) {
    text += fmt::format(" Not drawn: {}{}{}.", excluded > 0 ? fmt::format("{} infeasible or failed", excluded) : "",
                        excluded > 0 && not_drawable > 0 ? ", " : "",
                        not_drawable > 0 ? fmt::format("{} without a drawable value{}", not_drawable,
                                                       decl.log_x || decl.log_y ? " (zero or negative on a log axis)" : "")
                                         : "");
  }
  return src;
}

// ---- horizontal stacked bars ----

FigureSource build_bars(const FigureDecl& decl, const ResolvedStudy& study, const ResultTable& results,
                        const std::vector<std::size_t>& rows, std::size_t excluded) {
  if (decl.log_x || decl.log_y) {
    throw std::invalid_argument(fmt::format(
        "figure '{}': stacked bars need a linear value axis; remove log_x/log_y", decl.name));
  }
  const Column x = resolve_column(decl.x, study, results, decl.name);
  if (x.is_metric) {
    throw std::invalid_argument(
        fmt::format("figure '{}': bars take a parameter as x (the categories), not metric '{}'", decl.name, decl.x));
  }
  if (decl.y.empty()) throw std::invalid_argument(fmt::format("figure '{}': no y metric", decl.name));
  std::vector<Column> ys;
  for (const std::string& y : decl.y) {
    ys.push_back(resolve_column(y, study, results, decl.name));
    if (ys.back().display.unit != ys.front().display.unit || ys.back().display.style != ys.front().display.style) {
      throw std::invalid_argument(fmt::format("figure '{}': stacked metrics '{}' and '{}' have different units",
                                              decl.name, ys.front().name, y));
    }
  }

  // Category = x label, then the group label, then the label of every other axis that varies.
  std::vector<const Axis*> by;
  if (x.axis != nullptr) by.push_back(x.axis);
  if (!decl.group.empty()) {
    if (const Axis* g = find_axis(study, decl.group)) by.push_back(g);
  }
  for (const Axis* a : varying_axes(study, results, rows, {decl.x, decl.group})) by.push_back(a);
  // One metric and a group: bars take the group's colour (a key per group value) instead of one
  // colour for all.
  const Axis* colour_axis = ys.size() == 1 && !decl.group.empty() && decl.group != decl.x ? find_axis(study, decl.group) : nullptr;

  struct Bar {
    std::vector<std::size_t> key;
    std::string label;
    std::size_t row;
    std::size_t colour = 0;  // position of the bar's group value along colour_axis
  };
  std::vector<Bar> bars;
  std::size_t not_drawable = 0;
  for (std::size_t r : rows) {
    bool finite = true;
    for (const Column& c : ys) {
      const double v = row_value(c, study, results, r);
      finite = finite && std::isfinite(v) && v >= 0;
    }
    if (!finite) {
      ++not_drawable;
      continue;
    }
    Bar b{{}, {}, r};
    std::vector<std::string> labels;
    for (const Axis* a : by) {
      const std::string& label = results.label(r, static_cast<std::size_t>(results.axis_column(a->param)));
      b.key.push_back(label_position(*a, label));
      labels.push_back(label);
    }
    b.label = labels.empty() ? row_label(x, study, results, r) : join(labels, " / ");
    if (colour_axis != nullptr) {
      b.colour = label_position(*colour_axis, results.label(r, static_cast<std::size_t>(results.axis_column(colour_axis->param))));
    }
    bars.push_back(std::move(b));
  }
  std::stable_sort(bars.begin(), bars.end(), [](const Bar& a, const Bar& b) { return a.key < b.key; });

  std::vector<double> totals;
  for (const Bar& b : bars) {
    double t = 0;
    for (const Column& c : ys) t += row_value(c, study, results, b.row);
    totals.push_back(t);
  }
  AxisSetup va = axis_setup(ys.front(), totals, false);
  if (ys.size() > 1) {
    std::vector<std::string> words;
    for (const Column& c : ys) words.push_back(metric_words(c));
    va.title = va.scale.unit.empty() ? join(words, " + ") : join(words, " + ") + " (" + va.scale.unit + ")";
  }
  std::vector<std::string> cat_names;
  for (const Axis* a : by) cat_names.push_back(a->param);

  const std::string title = !decl.title.empty() ? decl.title : va.title + " by " + join(cat_names, " / ");
  FigureSource src;
  src.name = decl.name;
  src.title = title;
  src.caption = decl.caption;
  src.points = bars.size();

  std::string& dat = src.data;
  dat += fmt::format("# dsx figure data '{}' (stacked bars, study '{}')\n", one_line(decl.name), one_line(study.name));
  std::vector<std::string> ycols;
  for (const Column& c : ys) ycols.push_back(c.name);
  dat += fmt::format("# columns: position {} point_index category design_point; SI units\n", join(ycols, " "));
  // Blocks: one per colour (group value) when bars are coloured by group, else one.
  std::vector<std::size_t> colours;
  for (const Bar& b : bars) {
    if (std::find(colours.begin(), colours.end(), b.colour) == colours.end()) colours.push_back(b.colour);
  }
  std::sort(colours.begin(), colours.end());
  for (std::size_t block = 0; block < colours.size(); ++block) {
    if (block > 0) dat += "\n\n";
    if (colour_axis != nullptr) {
      dat += fmt::format("# index {}: {} = {}\n", block, colour_axis->param,
                         one_line(colour_axis->values[colours[block]].label));
    }
    for (std::size_t i = 0; i < bars.size(); ++i) {
      if (bars[i].colour != colours[block]) continue;
      dat += std::to_string(i);
      for (const Column& c : ys) dat += fmt::format(" {}", format_exact(row_value(c, study, results, bars[i].row)));
      dat += fmt::format(" {} {} {}\n", results.point_index[bars[i].row], dat_string(bars[i].label),
                         dat_string(design_point_text(study, results, bars[i].row, " ")));
    }
  }

  const bool bar_key = ys.size() > 1 || colours.size() > 1;
  const double height_cm = std::clamp(
      kBarBaseCm + (bar_key ? kBarKeyCm : 0.0) + kBarStepCm * static_cast<double>(std::max<std::size_t>(bars.size(), 1)),
      kBarMinCm, kBarMaxCm);
  std::string& gp = src.script;
  gp = script_header(decl, title);
  gp += fmt::format("set xlabel {} noenhanced\nset format x \"%g\"\n", gp_string(va.title));
  // Totals at the bar ends, unless every bar has the same total (shares that add up to 100 %).
  const bool label_totals =
      !totals.empty() && std::any_of(totals.begin(), totals.end(), [&](double t) {
        return std::fabs(t - totals.front()) > 1e-9 * std::max(std::fabs(t), std::fabs(totals.front()));
      });
  gp += "unset ylabel\nset grid noytics\nset ytics scale 0\nset xrange [0:*]\n";
  if (label_totals) gp += "set offsets 0, graph 0.14, 0, 0\n";
  if (bar_key) {
    gp += "set key outside bottom center horizontal reverse Left height 1.5\n";
  } else {
    gp += "unset key\n";
  }
  std::string plot;
  if (bars.empty()) {
    plot = "set label 1 \"no feasible design point to draw\" at graph 0.5, graph 0.5 center\n"
           "set yrange [0:1]\nset xrange [0:1]\nunset ytics\nplot -1 notitle\n";
  } else {
    std::vector<std::string> tics;
    for (std::size_t i = 0; i < bars.size(); ++i) tics.push_back(fmt::format("{} {}", gp_string(bars[i].label), i));
    gp += fmt::format("set ytics ({}) noenhanced\n", join(tics, ", "));
    gp += fmt::format("set yrange [{}:-0.6]  # first category on top\n",
                      fmt::format("{:g}", static_cast<double>(bars.size()) - 0.4));
    if (label_totals) gp += "# totals at the end of each bar\n";
    for (std::size_t i = 0; label_totals && i < bars.size(); ++i) {
      gp += fmt::format("set label {} {} at first {}, first {} left offset character 0.5, 0 noenhanced\n", i + 1,
                        gp_string(format_quantity(totals[i], ys.front().display)),
                        fmt::format("{:.9g}", totals[i] * va.scale.factor), i);
    }
    gp += fmt::format("h = {:g}  # half the bar height\n", kBarHalfHeight);
    std::vector<std::string> clauses;
    std::string lo = "0";
    for (std::size_t k = 0; k < ys.size(); ++k) {
      std::vector<std::string> cols;
      for (std::size_t j = 0; j <= k; ++j) cols.push_back(fmt::format("${}", j + 2));
      const std::string sum = "(" + join(cols, "+") + ")";
      const std::string hi = va.scale.factor == 1 ? sum : fmt::format("{}*{}", sum, factor_text(va.scale.factor));
      clauses.push_back(fmt::format("{} using ({}):1:({}):({}):($1-h):($1+h) with boxxyerror lt {} title {} noenhanced",
                                    k == 0 ? gp_string(decl.name + ".dat") : "\"\"", hi, lo, hi,
                                    kBarLinetypeBase + static_cast<int>(k % kBarColours.size()),
                                    gp_string(metric_words(ys[k]))));
      lo = hi;
    }
    if (colour_axis != nullptr) {
      clauses.clear();
      const std::string hi = va.scale.factor == 1 ? "$2" : fmt::format("$2*{}", factor_text(va.scale.factor));
      for (std::size_t block = 0; block < colours.size(); ++block) {
        clauses.push_back(fmt::format(
            "{} index {} using ({}):1:(0):({}):($1-h):($1+h) with boxxyerror lt {} title {} noenhanced",
            block == 0 ? gp_string(decl.name + ".dat") : "\"\"", block, hi, hi,
            kBarLinetypeBase + static_cast<int>(colours[block] % kBarColours.size()),
            gp_string(colour_axis->values[colours[block]].label)));
      }
    }
    plot = "plot " + join(clauses, ", \\\n     ") + "\n";
  }
  gp += terminal_block(decl.name, height_cm, plot);

  std::string& text = src.description;
  text = fmt::format("{} bar{} of {}", bars.size(), bars.size() == 1 ? "" : "s", va.title);
  if (ys.size() > 1) text += fmt::format(", stacked from {}", join(ycols, ", "));
  text += fmt::format(", one per {}", join(cat_names, " / "));
  if (!decl.where.empty()) {
    std::vector<std::string> sel;
    for (const Selector& s : decl.where) sel.push_back(s.param + " = " + s.label);
    text += " with " + join(sel, ", ");
  }
  text += label_totals ? "; the number at the end of a bar is its total." : ".";
  if (excluded > 0 || not_drawable > 0) {
    std::vector<std::string> parts;
    if (excluded > 0) parts.push_back(fmt::format("{} infeasible or failed", excluded));
    if (not_drawable > 0) parts.push_back(fmt::format("{} without a drawable value", not_drawable));
    text += " Not drawn: " + join(parts, ", ") + ".";
  }
  return src;
}

}  // namespace

std::string house_style() {
  std::string out = "# ---- dsx house style (the same block in every dsx figure) ----\n";
  out += "# Okabe-Ito colours; each series also has its own point shape and dash pattern, so the\n";
  out += "# figure still reads in grayscale. Linetypes 11-18 fill stacked bars, ordered for gray contrast.\n";
  out += "set encoding utf8\n";
  out += fmt::format("set border 3 front lc rgb \"{}\" lw 1\n", kInk);
  out += "set tics nomirror out scale 0.6 textcolor rgb \"#000000\"\n";
  out += "set grid xtics ytics back lc rgb \"#d9d9d9\" lw 0.6 dt solid\n";
  out += "set key outside right top vertical reverse Left samplen 2.5 spacing 1.15 width 1\n";
  out += fmt::format("set style fill solid 1.0 border lc rgb \"{}\"\n", kInk);
  for (std::size_t i = 0; i < kSeriesColours.size(); ++i) {
    out += fmt::format("set linetype {} lc rgb \"{}\" lw 1.5 pt {} ps 1 dt {}\n", i + 1, kSeriesColours[i],
                       kPointTypes[i], kDashes[i]);
  }
  out += fmt::format("set linetype cycle {}\n", kSeriesColours.size());
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
    const int col = results.metric_column(metric);
    if (col < 0) return false;
    double lo = 0, hi = 0;
    for (std::size_t r : feasible) {
      const double v = results.metric(r, static_cast<std::size_t>(col));
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
  const int col = results.metric_column(metric);
  std::optional<std::size_t> best;
  for (std::size_t r : feasible) {
    if (col < 0) break;
    const double v = results.metric(r, static_cast<std::size_t>(col));
    if (!std::isfinite(v)) continue;
    const double b = best ? results.metric(*best, static_cast<std::size_t>(col)) : 0;
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

FigureSource build_figure(const FigureDecl& decl, const ResolvedStudy& study, const ResultTable& results,
                          const std::vector<std::size_t>& pareto_rows) {
  const bool name_ok = !decl.name.empty() && decl.name.front() != '.' &&
                       std::all_of(decl.name.begin(), decl.name.end(), [](char c) {
                         return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                                c == '_' || c == '-' || c == '.';
                       });
  if (!name_ok) {
    throw std::invalid_argument(fmt::format(
        "figure name '{}' cannot be a file name: use letters, digits, '_', '-' and '.'", decl.name));
  }
  std::vector<std::size_t> rows;
  std::size_t excluded = 0;
  for (std::size_t r = 0; r < results.rows(); ++r) {
    if (!row_matches(decl.where, study, results, r)) continue;
    if (results.status[r] != PointStatus::ok) {
      ++excluded;
      continue;
    }
    rows.push_back(r);
  }
  switch (decl.kind) {
    case FigureKind::scatter:
    case FigureKind::line: return build_xy(decl, study, results, rows, excluded, pareto_rows);
    case FigureKind::bars: return build_bars(decl, study, results, rows, excluded);
  }
  throw std::logic_error("build_figure: invalid FigureKind");
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

std::vector<RenderedFigure> render_figures(const ReportInputs& inputs) {
  namespace fs = std::filesystem;
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
    const FigureSource src = build_figure(decl, inputs.study, inputs.results, inputs.pareto_rows);
    RenderedFigure fig;
    fig.name = src.name;
    fig.title = src.title;
    fig.caption = src.caption;
    fig.description = src.description;
    fig.points = src.points;
    const std::string stem = dir + "/" + src.name;
    fig.gp_path = stem + ".gp";
    fig.dat_path = stem + ".dat";
    fig.svg_path = stem + ".svg";
    fig.pdf_path = stem + ".pdf";
    fig.png_path = stem + ".png";
    write_file_atomic(fig.gp_path, src.script);
    write_file_atomic(fig.dat_path, src.data);

    // gnuplot draws into a private folder; finished files then replace the old ones atomically.
    const std::string work = dir + "/." + src.name + ".drawing";
    std::error_code ec;
    fs::remove_all(work, ec);
    make_directories(work);
    write_file_atomic(work + "/" + src.name + ".dat", src.data);
    try {
      run_gnuplot(fs::absolute(fig.gp_path).string(), work);
      for (std::string_view ext : {"svg", "pdf", "png"}) {
        const std::string drawn = work + "/" + src.name + "." + std::string(ext);
        if (!fs::exists(drawn)) {
          throw std::runtime_error(fmt::format("gnuplot on {} wrote no {}", fig.gp_path, drawn));
        }
      }
      std::string pdf = read_file(work + "/" + src.name + ".pdf");
      normalize_pdf_dates(pdf);
      write_file_atomic(fig.pdf_path, pdf);
      fs::rename(work + "/" + src.name + ".svg", fig.svg_path);
      fs::rename(work + "/" + src.name + ".png", fig.png_path);
    } catch (...) {
      fs::remove_all(work, ec);
      throw;
    }
    fs::remove_all(work, ec);
    out.push_back(std::move(fig));
  }
  return out;
}

}  // namespace dsx
