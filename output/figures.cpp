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
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "dse/analysis/blocks.hpp"
#include "dse/calibration/intervals.hpp"
#include "dse/pareto.hpp"
#include "engine/precision.hpp"
#include "engine/roofline.hpp"
#include "output/files.hpp"
#include "output/run_folder.hpp"
#include "output/format.hpp"
#include "output/gnuplot_text.hpp"
#include "output/report.hpp"

extern char** environ;

namespace dsx {

namespace {

// ---- house style: every constant of the look lives here ----

// Widths of a two-column page (A4 or US letter with 2 cm margins): the full text width, and one
// column. Text is 9 pt in the PDF at either width, so a figure printed at its own size has the
// page's caption size.
constexpr double kDoubleWidthCm = 17.0;
constexpr double kSingleWidthCm = 8.5;
constexpr double kPlotHeightCm = 10.0;        // scatter, line and roofline at full width
constexpr double kSinglePlotHeightCm = 7.0;   // the same at one column, plus the key below
constexpr double kKeyRowCm = 0.42;            // one row of a key set below the plot
constexpr double kTitleLineCm = 0.5;          // each line of a title beyond the first
// A title is centred over the plot (left of a key on the right), so it wraps at a space beyond:
constexpr double kTitleDoubleCm = 12.5;
constexpr double kTitleSingleCm = 7.0;
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
// Roofline roofs: black, told apart by dash pattern (the series keep the colours).
constexpr int kRoofLinetypeBase = 21;
constexpr std::array<std::string_view, 6> kRoofDashes = {"solid", "(8,4)", "(2,3)", "(10,3,2,3)", "(4,4)", "(1,2)"};
// Crossover marks on line figures.
constexpr std::string_view kMarkInk = "#4d4d4d";
// Heatmaps: viridis (van der Walt & Smith, matplotlib 2.0, 2015), sampled at nine points: perceptually
// uniform, readable with the common colour-vision deficiencies, and monotonic in lightness, so a
// grayscale print keeps the order. Dark cells get white numbers, light cells black ones.
constexpr std::array<std::string_view, 9> kViridis = {"#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c",
                                                      "#28ae80", "#5ec962", "#addc30", "#fde725"};
constexpr std::string_view kInfeasibleCell = "#bdbdbd";
constexpr double kHeatmapBaseCm = 3.2;   // margins, title, x axis
constexpr double kHeatmapRowCm = 0.9;    // per row of cells
constexpr double kHeatmapMinCm = 5.5;
constexpr double kHeatmapMaxCm = 22.0;
constexpr std::size_t kHeatmapMaxLabelledCells = 400;  // more cells than this: no numbers printed
constexpr double kHeatmapMarginsCm = 5.0;  // y tic labels, colour box and its labels
// Text on a figure is 9 pt: an em is 0.3175 cm; a line of text is about 0.45 cm high.
constexpr double kEmCm = 9.0 / 72 * 2.54;
constexpr double kLabelLineCm = 0.45;
constexpr double kKeySampleCm = 1.6;  // the line sample and gap before a key entry's text


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

// The printed width of `text` in 9 pt DejaVu Sans, from its advance widths (in em, rounded up):
// enough to decide whether a label fits, not to typeset it.
double text_cm(std::string_view text) {
  double em = 0;
  for (const char c : text) {
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

// The title broken at spaces into lines that fit the figure's width.
std::vector<std::string> title_lines(const FigureDecl& decl, std::string_view title) {
  const double max_cm = decl.width == FigureWidth::single_column ? kTitleSingleCm : kTitleDoubleCm;
  std::vector<std::string> lines;
  std::string line;
  std::size_t pos = 0;
  while (pos < title.size()) {
    std::size_t end = title.find(' ', pos);
    if (end == std::string_view::npos) end = title.size();
    const std::string_view word = title.substr(pos, end - pos);
    if (!line.empty() && text_cm(line + " " + std::string(word)) > max_cm) {
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

// Height a wrapped title adds.
double title_extra_cm(const FigureDecl& decl, std::string_view title) {
  return kTitleLineCm * static_cast<double>(title_lines(decl, title).size() - 1);
}

// The key of a one-column figure goes below the plot: two entries a row when the longest fits
// half the width, else one; returns the commands and the height the rows add.
std::pair<std::string, double> key_below(std::size_t entries, double longest_cm) {
  const bool two = (kKeySampleCm + longest_cm) * 2 < kSingleWidthCm - 0.5;
  const std::size_t rows = std::max<std::size_t>(two ? (entries + 1) / 2 : entries, 1);
  return {fmt::format("set key outside bottom center horizontal maxcols {} maxrows {} reverse Left samplen 2.5 "
                      "spacing 1.1 width 1\nset key notitle\n",
                      two ? 2 : 1, rows),
          kKeyRowCm * static_cast<double>(rows) + 0.4};
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


std::string script_header(const FigureDecl& decl, std::string_view title) {
  std::string out = fmt::format("# dsx figure '{}': {}\n", one_line(decl.name), one_line(title));
  out += fmt::format(
      "# Draws {0}.svg, {0}.pdf and {0}.png from {0}.dat.\n"
      "# The data is in SI units; the plot commands scale each axis for reading.\n"
      "# Redraw after editing, in this folder: gnuplot {0}.gp\n\n",
      one_line(decl.name));
  out += house_style();
  out += "\n# ---- this figure ----\n";
  std::string lines;
  for (const std::string& line : title_lines(decl, title)) {
    if (!lines.empty()) lines += "\\n";
    const std::string quoted = gp_string(line);
    lines += quoted.substr(1, quoted.size() - 2);
  }
  out += fmt::format("set title \"{}\" noenhanced\n", lines);
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

// A drawn point's hover text: its design point, one input per line, then the figure's x and y.
std::vector<std::string> hover_lines(const ResolvedStudy& study, const ResultTable& results, std::size_t row,
                                     const Column& x, const Column& y) {
  std::vector<std::string> lines;
  for (const Axis& a : study.axes) {
    const int col = results.axis_column(a.param);
    if (col >= 0) lines.push_back(a.param + " = " + results.label(row, static_cast<std::size_t>(col)));
  }
  for (const Column* c : {&x, &y}) {
    if (!c->is_metric) continue;
    lines.push_back(metric_words(*c) + " = " + format_quantity(row_value(*c, study, results, row), c->display));
  }
  return lines;
}

// ---- scatter and line ----

struct Crossing {
  std::size_t a = 0, b = 0;  // the two lines, a < b
  double x = 0, y = 0;       // data units
};

// Where lines cross: each line is a polyline through its points (ascending x); between two
// neighbouring x values of either line both are straight, so their difference is too and the root
// is exact. With log axes the lines are straight in log space, so the interpolation is done there.
// A crossing is a change of sign of (a - b); touching without crossing is not one.
std::vector<Crossing> find_crossings(const std::vector<std::vector<std::pair<double, double>>>& lines, bool log_x,
                                     bool log_y) {
  const auto tx = [&](double v) { return log_x ? std::log10(v) : v; };
  const auto ty = [&](double v) { return log_y ? std::log10(v) : v; };
  const auto at = [&](const std::vector<std::pair<double, double>>& pts, double t) {
    // pts in transformed space, ascending; t inside their range.
    const auto it = std::lower_bound(pts.begin(), pts.end(), t, [](const auto& p, double v) { return p.first < v; });
    if (it == pts.begin() || it->first == t) return it->second;
    const auto prev = std::prev(it);
    return prev->second + (it->second - prev->second) * (t - prev->first) / (it->first - prev->first);
  };
  std::vector<std::vector<std::pair<double, double>>> t_lines;
  for (const auto& pts : lines) {
    auto& out = t_lines.emplace_back();
    for (const auto& [x, y] : pts) {
      if (out.empty() || tx(x) > out.back().first) out.emplace_back(tx(x), ty(y));
    }
  }
  std::vector<Crossing> out;
  for (std::size_t a = 0; a < t_lines.size(); ++a) {
    for (std::size_t b = a + 1; b < t_lines.size(); ++b) {
      const auto& pa = t_lines[a];
      const auto& pb = t_lines[b];
      if (pa.size() < 2 || pb.size() < 2) continue;
      const double lo = std::max(pa.front().first, pb.front().first);
      const double hi = std::min(pa.back().first, pb.back().first);
      if (!(lo < hi)) continue;
      std::vector<double> ts;
      for (const auto* pts : {&pa, &pb}) {
        for (const auto& p : *pts) {
          if (p.first >= lo && p.first <= hi) ts.push_back(p.first);
        }
      }
      std::sort(ts.begin(), ts.end());
      ts.erase(std::unique(ts.begin(), ts.end()), ts.end());
      std::vector<double> d;
      for (double t : ts) {
        const double ya = at(pa, t), yb = at(pb, t);
        const double diff = ya - yb;
        d.push_back(std::fabs(diff) <= 1e-12 * std::max(std::fabs(ya), std::fabs(yb)) ? 0.0 : diff);
      }
      std::optional<std::size_t> last;  // last index with a non-zero difference
      for (std::size_t k = 0; k < ts.size(); ++k) {
        if (d[k] == 0) continue;
        if (last && (d[*last] > 0) != (d[k] > 0)) {
          double t = 0;
          if (*last + 1 == k) {
            t = ts[*last] + (ts[k] - ts[*last]) * d[*last] / (d[*last] - d[k]);
          } else {
            t = ts[*last + 1];  // they meet at a data point (or run together from there)
          }
          const double y = at(pa, t);
          out.push_back(Crossing{a, b, log_x ? std::pow(10.0, t) : t, log_y ? std::pow(10.0, y) : y});
        }
        last = k;
      }
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Crossing& p, const Crossing& q) { return p.x < q.x; });
  return out;
}

// "batch = 37.2", "launch overhead = 12.5 us".
std::string crossing_text(const Column& x, double value) {
  return fmt::format("{} = {}", x.display.label.empty() ? x.name : x.display.label, format_quantity(value, x.display));
}

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

  // The Pareto front among this figure's rows, joined in x order; the knee when it is drawn. A study
  // that groups its fronts (`pareto: group:`) gets one line per group, never one line through the
  // union of fronts, and no knee (each group has its own).
  std::vector<std::vector<std::size_t>> fronts;  // one per group, in group-label order
  std::vector<std::string> front_groups;         // each front's group label ("" without grouping)
  std::size_t front_points = 0;
  std::optional<std::size_t> knee;
  const std::vector<std::string>& group_axes = analyses_of(study).pareto.group;
  if (decl.pareto) {
    std::set<std::size_t> in_figure(rows.begin(), rows.end());
    std::vector<std::size_t> group_columns;
    for (const std::string& g : group_axes) {
      const auto it = std::find(results.axis_names.begin(), results.axis_names.end(), g);
      if (it != results.axis_names.end()) group_columns.push_back(static_cast<std::size_t>(it - results.axis_names.begin()));
    }
    std::map<std::string, std::vector<std::size_t>> by_group;
    for (std::size_t r : pareto_rows) {
      if (in_figure.count(r) == 0 || !drawable(r, ys.front())) continue;
      std::vector<std::string> labels;
      for (std::size_t c : group_columns) labels.push_back(results.label(r, c));
      by_group[join(labels, ", ")].push_back(r);
    }
    for (auto& [label, members] : by_group) {
      std::stable_sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
        const double xa = row_value(x, study, results, a), xb = row_value(x, study, results, b);
        if (xa != xb) return xa < xb;
        return row_value(ys.front(), study, results, a) < row_value(ys.front(), study, results, b);
      });
      front_points += members.size();
      front_groups.push_back(label);
      fronts.push_back(std::move(members));
    }
    if (group_columns.empty() && study.objectives.size() == 2 && pareto_rows.size() >= 3 && !fronts.empty()) {
      const auto k = knee_point(results, study.objectives, pareto_rows);
      const std::vector<std::size_t>& front = fronts.front();
      if (k && k->distance > 0 && std::find(front.begin(), front.end(), k->row) != front.end()) knee = k->row;
    }
  }
  const bool grouped_fronts = !front_groups.empty() && !front_groups.front().empty();
  const std::string front_key = grouped_fronts ? "Pareto front of each " + join(group_axes, " x ") : "Pareto front";

  // Crossings of every two lines, where the drawn (straight, on log axes straight in log space)
  // segments meet.
  std::vector<Crossing> crossings;
  if (is_line && decl.crossover) {
    if (!x.numeric) {
      throw std::invalid_argument(fmt::format("figure '{}': crossover needs a numeric x, '{}' is categorical",
                                              decl.name, decl.x));
    }
    std::vector<std::vector<std::pair<double, double>>> lines;
    for (const Drawn& d : drawn) {
      auto& pts = lines.emplace_back();
      for (std::size_t r : d.rows) pts.emplace_back(row_value(x, study, results, r), row_value(*d.y, study, results, r));
    }
    crossings = find_crossings(lines, decl.log_x, decl.log_y);
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
  dat += "# columns: x y point_index design_point [p10 p90] hover; one gnuplot index block per series\n";
  // The 80 % interval of a metric from the study's calibration profile (<metric>_p10 / _p90 columns):
  // error bars on a scatter, a band along a line.
  const auto interval_columns = [&](const Column& yc) -> std::optional<std::pair<std::size_t, std::size_t>> {
    if (!yc.is_metric) return std::nullopt;
    const int lo = results.metric_column(interval_low_name(yc.name));
    const int hi = results.metric_column(interval_high_name(yc.name));
    if (lo < 0 || hi < 0) return std::nullopt;
    return std::pair{static_cast<std::size_t>(lo), static_cast<std::size_t>(hi)};
  };
  std::size_t block = 0;
  auto write_block = [&](std::string_view heading, const Column& yc, const std::vector<std::size_t>& block_rows) {
    if (block > 0) dat += "\n\n";
    const auto interval = interval_columns(yc);
    dat += fmt::format("# index {}: {} (y = {}{})\n", block, one_line(heading), yc.name,
                       interval ? "; then its 80 % interval, p10 and p90" : "");
    for (std::size_t r : block_rows) {
      dat += fmt::format("{} {} {} {}", format_exact(row_value(x, study, results, r)),
                         format_exact(row_value(yc, study, results, r)), results.point_index[r],
                         dat_string(design_point_text(study, results, r, " ")));
      if (interval) {
        dat += fmt::format(" {} {}", format_exact(results.metric(r, interval->first)),
                           format_exact(results.metric(r, interval->second)));
      }
      dat += ' ';
      dat += dat_hypertext(hover_lines(study, results, r, x, yc));
      dat += '\n';
    }
    ++block;
  };
  for (const Drawn& d : drawn) write_block(d.title, *d.y, d.rows);
  const std::size_t front_block = block;
  for (std::size_t g = 0; g < fronts.size(); ++g) {
    write_block(grouped_fronts ? "Pareto front of " + front_groups[g] + ", in x order" : "Pareto front, in x order",
                ys.front(), fronts[g]);
  }
  const std::size_t knee_block = block;
  if (knee) write_block("knee of the Pareto front", ys.front(), {*knee});
  const std::size_t crossing_block = block;
  if (!crossings.empty()) {
    if (block > 0) dat += "\n\n";
    dat += fmt::format("# index {}: crossings, linear interpolation between neighbouring points{}\n", block,
                       decl.log_x || decl.log_y ? " (in log space on a log axis)" : "");
    dat += "# columns: x y series_a series_b\n";
    for (const Crossing& c : crossings) {
      dat += fmt::format("{} {} {} {}\n", format_exact(c.x), format_exact(c.y), dat_string(drawn[c.a].title),
                         dat_string(drawn[c.b].title));
    }
    ++block;
  }

  // Script.
  std::string& gp = src.script;
  gp = script_header(decl, title);
  gp += axis_commands('x', xa, xs_scaled);
  if (decl.width == FigureWidth::single_column && !decl.log_x && x.numeric && !xs_scaled.empty()) {
    double span = 0;
    for (double v : xs_scaled) span = std::max(span, std::fabs(v));
    gp += narrow_tics('x', span);
  }
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
  const bool show_key = drawn.size() > 1 || !fronts.empty() || !crossings.empty();
  const std::size_t key_entries = drawn.size() + (fronts.empty() ? 0 : 1) + (knee ? 1 : 0) + (crossings.empty() ? 0 : 1);
  double height_cm = kPlotHeightCm;
  if (decl.width == FigureWidth::single_column) {
    double longest = text_cm(front_key);
    for (const Drawn& d : drawn) longest = std::max(longest, text_cm(d.title));
    const auto [commands, rows_cm] = key_below(key_entries, longest);
    if (show_key) gp += commands;
    height_cm = kSinglePlotHeightCm + (show_key ? rows_cm : 0.0);
  }
  height_cm += title_extra_cm(decl, title);
  if (!show_key) gp += "unset key\n";
  if (!crossings.empty()) {
    // The value runs along the line, from the end of the plot farther from the crossing point.
    const auto ty = [&](double v) { return decl.log_y ? std::log10(v) : v; };
    double y_min = y_from_zero ? 0.0 : std::numeric_limits<double>::infinity(), y_max = -y_min;
    for (double v : yvals) {
      if (!std::isfinite(v) || (decl.log_y && !(v > 0))) continue;
      y_min = std::min(y_min, ty(v));
      y_max = std::max(y_max, ty(v));
    }
    gp += "# crossings: a dashed vertical line and the x value at each\n";
    for (std::size_t i = 0; i < crossings.size(); ++i) {
      const double cx = crossings[i].x * xa.scale.factor;
      const bool high = y_max > y_min && (ty(crossings[i].y) - y_min) / (y_max - y_min) > 0.5;
      gp += fmt::format("set arrow {} from {}, graph 0 to {}, graph 1 nohead back lc rgb \"{}\" lw 1 dt (5,4)\n", i + 1,
                        format_exact(cx), format_exact(cx), kMarkInk);
      gp += fmt::format("set label {} {} at {}, graph {} rotate by 90 {} offset character -0.6, 0 front "
                        "textcolor rgb \"{}\" noenhanced\n",
                        100 + i, gp_string(crossing_text(x, crossings[i].x)), format_exact(cx), high ? "0.02" : "0.98",
                        high ? "left" : "right", kMarkInk);
    }
  }

  std::vector<std::string> clauses;
  const std::string xexpr = gp_scaled(1, xa.scale.factor);
  const std::string yexpr = gp_scaled(2, ya.scale.factor);
  const std::string using_clause = fmt::format("using {}:{}", xexpr, yexpr);
  const std::string data_file = gp_string(decl.name + ".dat");
  bool drew_intervals = false;
  for (std::size_t i = 0; i < drawn.size(); ++i) {
    if (interval_columns(*drawn[i].y)) {
      const std::string lo = gp_scaled(5, ya.scale.factor), hi = gp_scaled(6, ya.scale.factor);
      clauses.push_back(
          is_line ? fmt::format("{} index {} using {}:{}:{} with filledcurves fs transparent solid 0.18 noborder lt {} "
                                "notitle",
                                clauses.empty() ? data_file : "\"\"", i, xexpr, lo, hi, i + 1)
                  : fmt::format("{} index {} using {}:{}:{}:{} with yerrorbars lt {} dt solid pt -1 lw 0.6 notitle",
                                clauses.empty() ? data_file : "\"\"", i, xexpr, yexpr, lo, hi, i + 1));
      drew_intervals = true;
    }
    clauses.push_back(fmt::format("{} index {} {} with {} lt {} title {} noenhanced", clauses.empty() ? data_file : "\"\"",
                                  i, using_clause, is_line ? "linespoints" : "points", i + 1, gp_string(drawn[i].title)));
  }
  // A transparent marker over every point carries its inputs and metrics as hover text (an SVG
  // <title> after svg_hover_titles; nothing in the PDF and PNG).
  for (std::size_t i = 0; i < drawn.size(); ++i) {
    clauses.push_back(fmt::format("\"\" index {} {}:{} with labels hypertext point pt 7 ps 1.2 lc rgb \"#ff000000\" "
                                  "noenhanced notitle",
                                  i, using_clause, interval_columns(*drawn[i].y) ? 7 : 5));
  }
  for (std::size_t g = 0; g < fronts.size(); ++g) {
    const std::string front_title = g > 0 ? "notitle" : "title " + gp_string(front_key);
    clauses.push_back(fmt::format("\"\" index {} {} with lines lc rgb \"#000000\" lw 2 dt solid {}", front_block + g,
                                  using_clause, front_title));
  }
  if (knee) {
    clauses.push_back(fmt::format(
        "\"\" index {} {} with points lc rgb \"#000000\" pt 6 ps 2.4 lw 1.5 title \"knee\"", knee_block,
        using_clause));
  }
  if (!crossings.empty()) {
    clauses.push_back(fmt::format("\"\" index {} {} with points lc rgb \"#000000\" pt 6 ps 1.8 lw 1.5 title \"crossing\"",
                                  crossing_block, using_clause));
  }
  std::string plot;
  if (clauses.empty()) {
    plot = "set label 1 \"no feasible design point to draw\" at graph 0.5, graph 0.5 center\n"
           "set xrange [0:1]\nset yrange [0:1]\nunset logscale\nplot -1 notitle\n";
  } else {
    plot = "plot " + join(clauses, ", \\\n     ") + "\n";
  }
  gp += gnuplot_terminal_block(decl.name, figure_width_cm(decl), height_cm, plot);

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
  if (drew_intervals) {
    text += is_line ? " Shaded: the 80 % interval of each point from the calibration profile (p10 to p90)."
                    : " Bars: the 80 % interval of each point from the calibration profile (p10 to p90).";
  }
  if (!fronts.empty()) {
    std::vector<std::string> obj;
    for (const Objective& o : study.objectives) {
      obj.push_back(fmt::format("{} {}", o.direction == Direction::minimize ? "minimum" : "maximum", o.metric));
    }
    if (grouped_fronts) {
      text += fmt::format(" The black lines are the Pareto fronts of each {}, one line per group ({}; {} point{} shown).",
                          join(group_axes, " x "), join(obj, ", "), front_points, front_points == 1 ? "" : "s");
    } else {
      text += fmt::format(" The black line is the Pareto front ({}; {} point{} shown).", join(obj, ", "), front_points,
                          front_points == 1 ? "" : "s");
    }
  }
  if (knee) {
    text += fmt::format(" Circled: the knee, {} ({} = {}, {} = {}).", design_point_text(study, results, *knee, ", "),
                        x.name, x.numeric ? format_quantity(row_value(x, study, results, *knee), x.display) : row_label(x, study, results, *knee),
                        ys.front().name, format_quantity(row_value(ys.front(), study, results, *knee), ys.front().display));
  }
  if (is_line && decl.crossover) {
    if (crossings.empty()) {
      text += " No two lines cross within the range drawn.";
    } else {
      std::vector<std::string> parts;
      for (const Crossing& c : crossings) {
        parts.push_back(fmt::format("{} and {} at {}", drawn[c.a].title, drawn[c.b].title, crossing_text(x, c.x)));
      }
      text += fmt::format(" Dashed vertical line{}: where two lines cross (linear interpolation between neighbouring "
                          "points{}): {}.",
                          crossings.size() == 1 ? "" : "s", decl.log_x || decl.log_y ? ", in log space on a log axis" : "",
                          join(parts, "; "));
    }
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
  if (decl.width == FigureWidth::single_column && !totals.empty()) {
    gp += narrow_tics('x', *std::max_element(totals.begin(), totals.end()) * va.scale.factor);
  }
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
                        gp_string(ys.front().display.dimension == Dimension::bytes
                                      ? format_in_scale(totals[i], va.scale)
                                      : format_quantity(totals[i], ys.front().display)),
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
            gp_string(colour_axis->param + " = " + colour_axis->values[colours[block]].label)));
      }
    }
    plot = "plot " + join(clauses, ", \\\n     ") + "\n";
  }
  gp += gnuplot_terminal_block(decl.name, figure_width_cm(decl), height_cm + title_extra_cm(decl, title), plot);

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

// ---- roofline ----

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

// "ridge 156 FLOP/B".
std::string ridge_label(double ridge) { return fmt::format("ridge {} FLOP/B", format_grouped(ridge, 3)); }

struct Roof {
  std::string hardware;
  std::string precision;
  double peak = 0;       // eta x datasheet peak, FLOP/s
  double bandwidth = 0;  // B/s
  double ridge = 0;      // FLOP/byte
};

std::string roof_title(const Roof& r) { return "roof " + r.hardware + " " + r.precision; }

FigureSource build_roofline(const FigureDecl& decl, const ResolvedStudy& study, const ResultTable& results,
                            const std::vector<std::size_t>& rows, std::size_t excluded) {
  const Column x = resolve_column(decl.x, study, results, decl.name);
  if (decl.y.size() != 1) {
    throw std::invalid_argument(fmt::format("figure '{}': a roofline takes one FLOP/s metric on y", decl.name));
  }
  const Column y = resolve_column(decl.y.front(), study, results, decl.name);
  if (!x.is_metric || x.display.unit != "FLOP/B") {
    throw std::invalid_argument(fmt::format("figure '{}': a roofline puts an intensity metric (FLOP/byte) on x, not '{}'",
                                            decl.name, decl.x));
  }
  if (!y.is_metric || y.display.dimension != Dimension::flop_rate) {
    throw std::invalid_argument(fmt::format("figure '{}': a roofline puts a FLOP/s metric on y, not '{}'", decl.name,
                                            decl.y.front()));
  }
  if (!(decl.eta > 0 && decl.eta <= 1)) {
    throw std::invalid_argument(fmt::format("figure '{}': eta must be in (0, 1]", decl.name));
  }

  // Roofs: the listed hardware and precisions, or those the rows use.
  std::vector<std::string> hardware_ids = decl.roofs, precisions = decl.precisions;
  if (hardware_ids.empty()) {
    if (const auto p = param_of_kind(study, ParamKind::hardware)) hardware_ids = labels_among(study, results, rows, *p);
  }
  if (precisions.empty()) {
    if (const auto p = param_of_kind(study, ParamKind::precision)) precisions = labels_among(study, results, rows, *p);
  }
  std::vector<Roof> roofs;
  std::vector<std::string> missing;  // "mobile_npu fp8"
  for (const std::string& id : hardware_ids) {
    const HardwareSpec* h = study.catalog.find_hardware(id);
    if (h == nullptr) {
      throw std::invalid_argument(fmt::format("figure '{}': hardware '{}' is not in the study's catalog", decl.name, id));
    }
    for (const std::string& name : precisions) {
      const auto p = parse_precision(name);
      if (!p) throw std::invalid_argument(fmt::format("figure '{}': unknown precision '{}'", decl.name, name));
      if (!h->supports(*p) || !(h->memory_bandwidth_bytes_per_s > 0)) {
        missing.push_back(id + " " + name);
        continue;
      }
      const double peak = h->peak(*p) * decl.eta;
      roofs.push_back(Roof{id, name, peak, h->memory_bandwidth_bytes_per_s,
                           ridge_point_flop_per_byte(peak, h->memory_bandwidth_bytes_per_s)});
    }
  }

  // Points: one series per group value, drawable where both coordinates are positive.
  std::vector<const Axis*> by;
  if (!decl.group.empty()) {
    if (const Axis* g = find_axis(study, decl.group)) by.push_back(g);
  }
  std::vector<Series> series = split_series(results, rows, by);
  std::size_t not_drawable = 0, points = 0;
  for (Series& s : series) {
    std::vector<std::size_t> kept;
    for (std::size_t r : s.rows) {
      const double xv = row_value(x, study, results, r), yv = row_value(y, study, results, r);
      if (std::isfinite(xv) && std::isfinite(yv) && xv > 0 && yv > 0) {
        kept.push_back(r);
      } else {
        ++not_drawable;
      }
    }
    s.rows = std::move(kept);
    points += s.rows.size();
  }
  std::erase_if(series, [](const Series& s) { return s.rows.empty(); });

  // The x range, in whole decades: every point with a little room, every ridge with enough of both
  // roofs beside it to see the bend.
  double lo = 0, hi = 0;
  std::vector<double> yvals;
  const auto widen = [&](double v, double room) {
    lo = lo == 0 ? v / room : std::min(lo, v / room);
    hi = std::max(hi, v * room);
  };
  for (const Series& s : series) {
    for (std::size_t r : s.rows) {
      widen(row_value(x, study, results, r), 1.5);
      yvals.push_back(row_value(y, study, results, r));
    }
  }
  for (const Roof& r : roofs) {
    widen(r.ridge, 3);
    yvals.push_back(r.peak);
  }
  if (lo == 0) {
    lo = 0.1;
    hi = 1000;
  }
  const double x_lo = std::pow(10.0, std::floor(std::log10(lo))), x_hi = std::pow(10.0, std::ceil(std::log10(hi)));
  for (const Roof& r : roofs) yvals.push_back(x_lo * r.bandwidth);

  AxisSetup xa = axis_setup(x, {x_lo, x_hi}, true);
  xa.scale = AxisScale{1, x.display.unit};
  xa.title = axis_title(x.display, xa.scale);
  const AxisSetup ya = axis_setup(y, yvals, true);
  const std::string title = !decl.title.empty() ? decl.title : ya.title + " vs " + xa.title;

  FigureSource src;
  src.name = decl.name;
  src.title = title;
  src.caption = decl.caption;
  src.points = points;

  std::string& dat = src.data;
  dat += fmt::format("# dsx figure data '{}' (roofline, study '{}')\n", one_line(decl.name), one_line(study.name));
  dat += fmt::format("# x = {} (FLOP/byte); y = {} (FLOP/s); SI units\n", x.name, y.name);
  dat += "# design points: x y point_index design_point; one gnuplot index block per series\n";
  dat += fmt::format("# roofs: min(eta x peak, intensity x bandwidth) with eta = {}, through the ridge\n",
                     format_exact(decl.eta));
  std::size_t block = 0;
  const auto next_block = [&](const std::string& heading) {
    if (block > 0) dat += "\n\n";
    dat += fmt::format("# index {}: {}\n", block, one_line(heading));
    return block++;
  };
  for (const Series& s : series) {
    next_block(s.title);
    for (std::size_t r : s.rows) {
      dat += fmt::format("{} {} {} {}\n", format_exact(row_value(x, study, results, r)),
                         format_exact(row_value(y, study, results, r)), results.point_index[r],
                         dat_string(design_point_text(study, results, r, " ")));
    }
  }
  std::vector<std::size_t> roof_blocks;
  for (const Roof& r : roofs) {
    roof_blocks.push_back(next_block(fmt::format("roof {} {}: peak {} FLOP/s, bandwidth {} B/s", r.hardware, r.precision,
                                                 format_exact(r.peak), format_exact(r.bandwidth))));
    dat += "# columns: intensity attainable\n";
    for (double xv : {x_lo, r.ridge, x_hi}) {
      dat += fmt::format("{} {}\n", format_exact(xv),
                         format_exact(attainable_flops_per_s(xv, r.peak, 1.0, r.bandwidth)));
    }
  }
  std::size_t ridge_block = 0;
  if (!roofs.empty()) {
    ridge_block = next_block("ridge points: peak / bandwidth");
    dat += "# columns: ridge_flop_per_byte peak_flops_per_s hardware precision label\n";
    for (const Roof& r : roofs) {
      dat += fmt::format("{} {} {} {} {}\n", format_exact(r.ridge), format_exact(r.peak), dat_string(r.hardware),
                         dat_string(r.precision), dat_string(ridge_label(r.ridge)));
    }
  }

  // The y range: every point and roof, with room above the highest roof for its label.
  double y_min = 0, y_max = 0;
  for (double v : yvals) {
    if (!(v > 0) || !std::isfinite(v)) continue;
    y_min = y_min == 0 ? v : std::min(y_min, v);
    y_max = std::max(y_max, v);
  }
  if (y_min == 0) {
    y_min = 1;
    y_max = 10;
  }
  const double y_lo = std::pow(10.0, std::floor(std::log10(y_min))), y_hi = y_max * 3;

  std::string& gp = src.script;
  gp = script_header(decl, title);
  gp += axis_commands('x', xa, {x_lo, x_hi});
  std::vector<double> ys_scaled;
  for (double v : yvals) ys_scaled.push_back(v * ya.scale.factor);
  gp += axis_commands('y', ya, ys_scaled);
  gp += fmt::format("set xrange [{}:{}]\nset yrange [{}:{}]\n", format_exact(x_lo), format_exact(x_hi),
                    format_exact(y_lo * ya.scale.factor), format_exact(y_hi * ya.scale.factor));
  const bool single = decl.width == FigureWidth::single_column;
  const std::size_t key_entries = series.size() + roofs.size();
  double height_cm = kPlotHeightCm, key_rows_cm = 0;
  if (single) {
    double longest = 0;
    for (const Series& se : series) longest = std::max(longest, text_cm(se.title));
    for (const Roof& r : roofs) longest = std::max(longest, text_cm(roof_title(r)));
    const auto [commands, rows_cm] = key_below(key_entries, longest);
    gp += commands;
    key_rows_cm = rows_cm;
    height_cm = kSinglePlotHeightCm + rows_cm;
  } else if (!by.empty() && series.size() > 1) {
    gp += fmt::format("set key title {} noenhanced\n", gp_string(decl.group));
  }
  height_cm += title_extra_cm(decl, title);

  // A roof takes the colour of the series of its hardware (or precision) when the points are grouped
  // by that parameter, black otherwise; roofs are told apart by dash pattern as well.
  const auto group_param = decl.group.empty() ? std::nullopt : std::optional<std::string>(decl.group);
  const auto param_name = [&](ParamKind kind) {
    const auto p = param_of_kind(study, kind);
    return p ? std::string(study.solver->params()[*p].name) : std::string();
  };
  const std::string hardware_param = param_name(ParamKind::hardware), precision_param = param_name(ParamKind::precision);
  for (std::size_t i = 0; i < roofs.size(); ++i) {
    std::string colour = "#000000";
    if (group_param && (*group_param == hardware_param || *group_param == precision_param)) {
      const std::string& value = *group_param == hardware_param ? roofs[i].hardware : roofs[i].precision;
      for (std::size_t k = 0; k < series.size(); ++k) {
        if (series[k].title == value) colour = std::string(kSeriesColours[k % kSeriesColours.size()]);
      }
    }
    gp += fmt::format("set linetype {} lc rgb \"{}\" lw 2 dt {}  # roof {} {}\n", kRoofLinetypeBase + i, colour,
                      kRoofDashes[i % kRoofDashes.size()], roofs[i].hardware, roofs[i].precision);
  }

  // Ridge labels: above the ridge to its left (over the sloped roof, where no point can be), or
  // along the label's own flat roof, above or below it, wherever it runs least into labels already
  // placed, other roofs and the plot's edge. Positions are estimated on the printed page.
  const double plot_w = figure_width_cm(decl) - (single ? 2.5 : 8.2);
  const double plot_h = height_cm - key_rows_cm - title_extra_cm(decl, title) - 2.4;
  const double decades_x = std::log10(x_hi) - std::log10(x_lo), decades_y = std::log10(y_hi) - std::log10(y_lo);
  const auto screen = [&](double xv, double yv) {
    return std::pair{(std::log10(xv) - std::log10(x_lo)) / decades_x * plot_w,
                     (std::log10(yv) - std::log10(y_lo)) / decades_y * plot_h};
  };
  struct Box {
    double x0, x1, y0, y1;
  };
  const auto overlap = [](const Box& a, const Box& b) {
    return std::max(0.0, std::min(a.x1, b.x1) - std::max(a.x0, b.x0)) *
           std::max(0.0, std::min(a.y1, b.y1) - std::max(a.y0, b.y0));
  };
  std::vector<Box> placed, roof_lines, marks;
  std::vector<std::size_t> roof_of;  // the roof each box of roof_lines belongs to
  for (const Roof& r : roofs) {
    const auto [rx, ry] = screen(r.ridge, r.peak);
    roof_lines.push_back(Box{rx, plot_w, ry - 0.05, ry + 0.05});
    // The sloped part, as small boxes 0.2 cm apart.
    const auto [lx, ly] = screen(x_lo, x_lo * r.bandwidth);
    const int steps = std::max(1, static_cast<int>(std::hypot(rx - lx, ry - ly) / 0.2));
    for (int k = 0; k < steps; ++k) {
      const double t = (k + 0.5) / steps;
      const double cx = lx + (rx - lx) * t, cy = ly + (ry - ly) * t;
      roof_lines.push_back(Box{cx - 0.1, cx + 0.1, cy - 0.1, cy + 0.1});
    }
    roof_of.resize(roof_lines.size(), static_cast<std::size_t>(&r - roofs.data()));
  }
  for (const Series& se : series) {
    for (std::size_t r : se.rows) {
      const auto [px, py] = screen(row_value(x, study, results, r), row_value(y, study, results, r));
      marks.push_back(Box{px - 0.12, px + 0.12, py - 0.12, py + 0.12});
    }
  }
  // The highest roof first: it has the least room above it.
  std::vector<std::size_t> label_order(roofs.size());
  for (std::size_t i = 0; i < roofs.size(); ++i) label_order[i] = i;
  std::stable_sort(label_order.begin(), label_order.end(),
                   [&](std::size_t a, std::size_t b) { return roofs[a].peak > roofs[b].peak; });
  for (const std::size_t i : label_order) {
    const std::string label = ridge_label(roofs[i].ridge);
    const auto [sx, sy] = screen(roofs[i].ridge, roofs[i].peak);
    const double w = text_cm(label), h = kLabelLineCm;
    struct Candidate {
      Box box;
      double anchor_cm;  // where the label is set, on the page, from the plot's left edge
      bool right_aligned, above;
    };
    // Above the ridge to its left; along the flat roof from the ridge; along it from the right edge.
    std::vector<Candidate> candidates = {{Box{sx - w - 0.1, sx - 0.1, sy + 0.1, sy + 0.1 + h}, sx, true, true}};
    for (bool above : {true, false}) {
      const double y0 = above ? sy + 0.08 : sy - 0.08 - h;
      for (int k = 0; k <= 8; ++k) {
        const double x0 = sx + 0.15 + 0.6 * k;
        candidates.push_back({Box{x0, x0 + w, y0, y0 + h}, x0, false, above});
      }
      for (int k = 0; k <= 4; ++k) {
        const double x1 = plot_w - 0.1 - 0.6 * k;
        if (x1 - w > sx + 0.15) candidates.push_back({Box{x1 - w, x1, y0, y0 + h}, x1, true, above});
      }
    }
    const Candidate* best = &candidates.front();
    double least = std::numeric_limits<double>::infinity();
    for (const Candidate& c : candidates) {
      // Cut off at the edge is worst, over another label next, over a line or a point least.
      double cost = 20 * ((c.box.x1 - c.box.x0) * (c.box.y1 - c.box.y0) - overlap(c.box, Box{0, plot_w, 0, plot_h}));
      for (const Box& o : placed) cost += 10 * overlap(c.box, o);
      for (std::size_t k = 0; k < roof_lines.size(); ++k) {
        if (roof_of[k] != i) cost += 3 * overlap(c.box, roof_lines[k]);
      }
      for (const Box& m : marks) cost += 3 * overlap(c.box, m);
      cost += 0.01 * std::fabs(0.5 * (c.box.x0 + c.box.x1) - sx) + (c.above ? 0 : 0.02);
      if (cost < least - 1e-12) {
        least = cost;
        best = &c;
      }
    }
    placed.push_back(best->box);
    const bool at_ridge = best == &candidates.front();
    const double at_x = at_ridge ? roofs[i].ridge : x_lo * std::pow(10.0, best->anchor_cm / plot_w * decades_x);
    gp += fmt::format("set label {} {} at first {}, first {} {} offset character {}, {} front textcolor rgb \"#000000\" "
                      "noenhanced\n",
                      i + 1, gp_string(label), format_exact(at_x), format_exact(roofs[i].peak * ya.scale.factor),
                      best->right_aligned ? "right" : "left", at_ridge ? "-0.4" : "0", best->above ? "0.7" : "-0.7");
  }

  const std::string data_file = gp_string(decl.name + ".dat");
  const std::string yexpr = gp_scaled(2, ya.scale.factor);
  // Roofs first, so the points lie on top of them; the key lists the points, then the roofs.
  std::vector<std::string> clauses;
  for (std::size_t i = 0; i < roofs.size(); ++i) {
    clauses.push_back(fmt::format("{} index {} using 1:{} with lines lt {} notitle",
                                  clauses.empty() ? data_file : "\"\"", roof_blocks[i], yexpr, kRoofLinetypeBase + i));
  }
  if (!roofs.empty()) {
    clauses.push_back(fmt::format("\"\" index {} using 1:{} with points pt 7 ps 0.8 lc rgb \"#000000\" notitle",
                                  ridge_block, yexpr));
  }
  for (std::size_t i = 0; i < series.size(); ++i) {
    clauses.push_back(fmt::format("{} index {} using 1:{} with points lt {} title {} noenhanced",
                                  clauses.empty() ? data_file : "\"\"", i, yexpr, i + 1, gp_string(series[i].title)));
  }
  for (std::size_t i = 0; i < roofs.size(); ++i) {
    clauses.push_back(fmt::format("keyentry with lines lt {} title {} noenhanced", kRoofLinetypeBase + i,
                                  gp_string(roof_title(roofs[i]))));
  }
  std::string plot;
  if (clauses.empty()) {
    plot = "set label 1 \"no roof and no feasible design point to draw\" at graph 0.5, graph 0.5 center\n"
           "unset logscale\nset xrange [0:1]\nset yrange [0:1]\nplot -1 notitle\n";
  } else {
    plot = "plot " + join(clauses, ", \\\n     ") + "\n";
  }
  gp += gnuplot_terminal_block(decl.name, figure_width_cm(decl), height_cm, plot);

  std::string& text = src.description;
  text = fmt::format("Roofline: {} design point{} of {} against {}", points, points == 1 ? "" : "s", ya.title, xa.title);
  if (!decl.where.empty()) {
    std::vector<std::string> sel;
    for (const Selector& s : decl.where) sel.push_back(s.param + " = " + s.label);
    text += " with " + join(sel, ", ");
  }
  if (series.size() > 1) text += fmt::format(", one series per {}", decl.group);
  text += ". ";
  if (roofs.empty()) {
    text += "No roof to draw.";
  } else {
    std::vector<std::string> parts;
    for (const Roof& r : roofs) {
      parts.push_back(fmt::format("{} {} ({}, {}, ridge {})", r.hardware, r.precision, format_si(r.peak, "FLOP/s"),
                                  format_si(r.bandwidth, "B/s"), ridge_label(r.ridge).substr(6)));
    }
    text += fmt::format("Roof{}: attainable = min({}peak, intensity x bandwidth) for {}; the dot on each roof is its "
                        "ridge point, peak / bandwidth.",
                        roofs.size() == 1 ? "" : "s", decl.eta == 1 ? "" : format_exact(decl.eta) + " x ",
                        join(parts, "; "));
  }
  if (!missing.empty()) text += fmt::format(" No roof for {}: no peak listed at that precision.", join(missing, ", "));
  text += " Logarithmic x and y axes.";
  if (excluded > 0 || not_drawable > 0) {
    std::vector<std::string> parts;
    if (excluded > 0) parts.push_back(fmt::format("{} infeasible or failed", excluded));
    if (not_drawable > 0) parts.push_back(fmt::format("{} without a positive value", not_drawable));
    text += " Not drawn: " + join(parts, ", ") + ".";
  }
  return src;
}

// ---- heatmap ----

struct Rgb {
  double r = 0, g = 0, b = 0;  // 0..1, sRGB
};

Rgb parse_rgb(std::string_view hex) {
  const auto channel = [&](std::size_t at) { return std::stoi(std::string(hex.substr(at, 2)), nullptr, 16) / 255.0; };
  return {channel(1), channel(3), channel(5)};
}

// The palette's colour at t in [0, 1], interpolated in sRGB between its stops as gnuplot does.
Rgb palette_at(double t) {
  t = std::clamp(t, 0.0, 1.0) * static_cast<double>(kViridis.size() - 1);
  const auto i = std::min(static_cast<std::size_t>(t), kViridis.size() - 2);
  const double f = t - static_cast<double>(i);
  const Rgb a = parse_rgb(kViridis[i]), b = parse_rgb(kViridis[i + 1]);
  return {a.r + (b.r - a.r) * f, a.g + (b.g - a.g) * f, a.b + (b.b - a.b) * f};
}

// WCAG 2 relative luminance.
double luminance(const Rgb& c) {
  const auto lin = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

// Black or white, whichever contrasts more with the cell (WCAG 2 contrast ratio).
bool white_text_on(const Rgb& cell) {
  const double l = luminance(cell);
  return (1.05 / (l + 0.05)) > ((l + 0.05) / 0.05);
}

FigureSource build_heatmap(const FigureDecl& decl, const ResolvedStudy& study, const ResultTable& results,
                           const std::vector<std::size_t>& rows, const std::vector<std::size_t>& infeasible_rows) {
  if (decl.y.size() != 1) {
    throw std::invalid_argument(fmt::format("figure '{}': a heatmap takes one swept parameter on y", decl.name));
  }
  const Column x = resolve_column(decl.x, study, results, decl.name);
  const Column y = resolve_column(decl.y.front(), study, results, decl.name);
  if (decl.z.empty()) throw std::invalid_argument(fmt::format("figure '{}': a heatmap needs z", decl.name));
  const Column z = resolve_column(decl.z, study, results, decl.name);
  for (const Column* c : {&x, &y}) {
    if (c->is_metric || c->axis == nullptr) {
      throw std::invalid_argument(
          fmt::format("figure '{}': a heatmap puts swept parameters on x and y, not '{}'", decl.name, c->name));
    }
  }
  if (!z.is_metric) throw std::invalid_argument(fmt::format("figure '{}': z '{}' is not a metric", decl.name, decl.z));

  // Columns and rows: the axis values the kept rows take, in axis order.
  std::vector<std::size_t> all = rows;
  all.insert(all.end(), infeasible_rows.begin(), infeasible_rows.end());
  // By the axis itself: a bundle or layout axis (region, layout) is named by its ids, not by a parameter.
  const auto axis_labels_among = [&](const Column& c) {
    std::set<std::string> seen;
    for (std::size_t r : all) seen.insert(results.label(r, static_cast<std::size_t>(c.axis_col)));
    std::vector<std::string> out;
    for (const AxisValue& v : c.axis->values) {
      if (seen.count(v.label) != 0) out.push_back(v.label);
    }
    return out;
  };
  const std::vector<std::string> x_labels = axis_labels_among(x);
  const std::vector<std::string> y_labels = axis_labels_among(y);
  const auto position = [](const std::vector<std::string>& labels, const std::string& label) {
    return static_cast<std::size_t>(std::find(labels.begin(), labels.end(), label) - labels.begin());
  };
  struct Cell {
    std::size_t row = 0;
    bool feasible = true;
  };
  std::map<std::pair<std::size_t, std::size_t>, Cell> cells;
  const auto place = [&](std::size_t r, bool feasible) {
    const std::pair key{position(x_labels, row_label(x, study, results, r)), position(y_labels, row_label(y, study, results, r))};
    if (cells.count(key) != 0) {
      throw std::invalid_argument(fmt::format(
          "figure '{}': the cell {} = {}, {} = {} holds more than one design point; hold the other axes with where",
          decl.name, x.name, x_labels[key.first], y.name, y_labels[key.second]));
    }
    cells[key] = Cell{r, feasible};
  };
  for (std::size_t r : rows) place(r, true);
  for (std::size_t r : infeasible_rows) place(r, false);

  std::vector<double> zs;
  std::size_t not_drawable = 0;
  for (auto& [key, cell] : cells) {
    if (!cell.feasible) continue;
    const double v = row_value(z, study, results, cell.row);
    if (!std::isfinite(v) || (decl.log_z && !(v > 0))) {
      cell.feasible = false;
      ++not_drawable;
      continue;
    }
    zs.push_back(v);
  }
  AxisSetup za = axis_setup(z, zs, decl.log_z);
  double z_lo = 0, z_hi = 0;
  if (!zs.empty()) {
    z_lo = *std::min_element(zs.begin(), zs.end()) * za.scale.factor;
    z_hi = *std::max_element(zs.begin(), zs.end()) * za.scale.factor;
  }
  if (z_lo == z_hi) {  // one colour for every cell: any range around it
    z_lo = decl.log_z ? z_lo / 2 : z_lo - 1;
    z_hi = decl.log_z ? z_hi * 2 : z_hi + 1;
  }
  const auto shade = [&](double scaled) {
    return decl.log_z ? (std::log10(scaled) - std::log10(z_lo)) / (std::log10(z_hi) - std::log10(z_lo))
                      : (scaled - z_lo) / (z_hi - z_lo);
  };
  // A cell's number is in the colour scale's unit, or, when the values span three decades or more,
  // with its own prefix and unit ("193 us", "1.26 ms"). Numbers go in the cells when the widest fits.
  // Counts and flags (every value a whole number) print exactly; the rest to three significant figures.
  const bool own_units = !zs.empty() && z.numeric && z_lo > 0 && z_hi / z_lo >= 1e3;
  const bool whole = za.scale.factor == 1 && std::all_of(zs.begin(), zs.end(), [](double v) { return v == std::trunc(v); });
  const auto cell_text = [&](double v) {
    if (own_units) return format_quantity(v, z.display);
    return whole ? format_grouped(v) : format_in_scale(v, AxisScale{za.scale.factor, ""});
  };
  double widest = 0;
  for (double v : zs) widest = std::max(widest, text_cm(cell_text(v)));
  const double cell_cm = (figure_width_cm(decl) - kHeatmapMarginsCm) / static_cast<double>(std::max<std::size_t>(x_labels.size(), 1));
  const bool labelled = cells.size() <= kHeatmapMaxLabelledCells && widest < 0.9 * cell_cm;

  const std::string title = !decl.title.empty() ? decl.title : za.title + " over " + x.name + " and " + y.name;
  FigureSource src;
  src.name = decl.name;
  src.title = title;
  src.caption = decl.caption;

  std::string& dat = src.data;
  dat += fmt::format("# dsx figure data '{}' (heatmap, study '{}')\n", one_line(decl.name), one_line(study.name));
  dat += fmt::format("# cells: column = position of {} along its axis, row = position of {}; z = {} (SI units)\n",
                     x.name, y.name, z.name);
  dat += "# columns: column row z label text_rgb point_index design_point\n";
  dat += "# index 0: cells with a value\n";
  std::size_t drawn = 0;
  for (const auto& [key, cell] : cells) {
    if (!cell.feasible) continue;
    const double v = row_value(z, study, results, cell.row);
    const bool white = white_text_on(palette_at(shade(v * za.scale.factor)));
    dat += fmt::format("{} {} {} {} {} {} {}\n", key.first, key.second, format_exact(v),
                       dat_string(cell_text(v)), white ? "16777215" : "0",
                       results.point_index[cell.row], dat_string(design_point_text(study, results, cell.row, " ")));
    ++drawn;
  }
  src.points = drawn;
  dat += "\n\n# index 1: infeasible or failed cells, and cells without a drawable value\n";
  dat += "# columns: column row status label point_index design_point (label: the status where it fits)\n";
  std::size_t blank = 0;
  for (const auto& [key, cell] : cells) {
    if (cell.feasible) continue;
    const PointStatus st = results.status[cell.row];
    const std::string_view status = st == PointStatus::ok ? "n/a" : st == PointStatus::infeasible ? "infeasible" : "failed";
    const bool fits = labelled && text_cm(status) < 0.85 * cell_cm;
    dat += fmt::format("{} {} {} {} {} {}\n", key.first, key.second, dat_string(status), dat_string(fits ? status : ""),
                       results.point_index[cell.row], dat_string(design_point_text(study, results, cell.row, " ")));
    ++blank;
  }
  if (blank == 0) dat += "-1 -1 \"none\" \"\" -1 \"\"\n";  // gnuplot needs a row to read the block

  const double height_cm =
      std::clamp(kHeatmapBaseCm + kHeatmapRowCm * static_cast<double>(std::max<std::size_t>(y_labels.size(), 1)),
                 kHeatmapMinCm, kHeatmapMaxCm) +
      title_extra_cm(decl, title);
  std::string& gp = src.script;
  gp = script_header(decl, title);
  const auto tics = [&](const std::vector<std::string>& labels) {
    std::vector<std::string> out;
    for (std::size_t k = 0; k < labels.size(); ++k) out.push_back(fmt::format("{} {}", gp_string(labels[k]), k));
    return join(out, ", ");
  };
  std::size_t y_chars = 0;
  double x_cm = 0;
  for (const std::string& l : x_labels) x_cm = std::max(x_cm, text_cm(l));
  for (const std::string& l : y_labels) y_chars = std::max(y_chars, l.size());
  gp += "unset key\nunset grid\nset border 15 front lc rgb \"#262626\" lw 1\nset tics scale 0\n";
  // The y parameter's name heads the row labels (a rotated axis label would need gnuplot to
  // measure them, which it does differently per terminal); the left margin fits the longest.
  gp += fmt::format("set xlabel {} noenhanced\nunset ylabel\n", gp_string(metric_words(x)));
  gp += fmt::format("set label 1 {} at graph 0, graph 1 right offset character -0.8, 0.8 noenhanced\n",
                    gp_string(metric_words(y)));
  gp += fmt::format("set lmargin {}\nset tmargin {}\n", std::max<std::size_t>(y_chars, metric_words(y).size()) + 2,
                    fmt::format("{:g}", 3 + static_cast<double>(title_lines(decl, title).size())));
  gp += "set title offset character 0, 0.9  # above the headers of the rows and the colour box\n";
  const bool rotate_x = x_cm > 0.9 * cell_cm;
  gp += fmt::format("set xtics ({}) noenhanced{}\nset ytics ({}) noenhanced\n", tics(x_labels),
                    rotate_x ? " rotate by 45 right" : "", tics(y_labels));
  gp += fmt::format("set xrange [-0.5:{}]\nset yrange [{}:-0.5]  # first row on top\n",
                    format_exact(static_cast<double>(std::max<std::size_t>(x_labels.size(), 1)) - 0.5),
                    format_exact(static_cast<double>(std::max<std::size_t>(y_labels.size(), 1)) - 0.5));
  // The colour scale's quantity heads the colour box, as the y parameter heads the rows.
  gp += fmt::format("unset cblabel\nset label 2 {} at screen 1, graph 1 right offset character -0.6, 0.8 noenhanced\n",
                    gp_string(za.title));
  gp += fmt::format("set cbrange [{}:{}]\n", format_exact(z_lo), format_exact(z_hi));
  gp += decl.log_z ? "set logscale cb 10\nset format cb \"%g\"\n" : "set format cb \"%g\"\n";
  gp += "set colorbox vertical default front border\n";
  // Room on the right for the colour box and its numbers.
  const double cb_a = decl.log_z ? std::pow(10.0, std::ceil(std::log10(z_lo))) : z_lo;
  const double cb_b = decl.log_z ? std::pow(10.0, std::floor(std::log10(z_hi))) : z_hi;
  const std::size_t cb_chars = std::max(fmt::format("{:.3g}", cb_a).size(), fmt::format("{:.3g}", cb_b).size());
  gp += fmt::format("set rmargin {}\n", cb_chars + 4);
  const std::string data_file = gp_string(decl.name + ".dat");
  std::vector<std::string> clauses;
  clauses.push_back(fmt::format("{} index 0 using 1:2:(0.5):(0.5):{} with boxxyerror fc palette "
                                "fs solid 1.0 border lc rgb \"#ffffff\" notitle",
                                data_file, gp_scaled(3, za.scale.factor)));
  clauses.push_back(fmt::format("\"\" index 1 using 1:2:(0.5):(0.5) with boxxyerror fc rgb \"{}\" "
                                "fs pattern 4 border lc rgb \"#ffffff\" notitle",
                                kInfeasibleCell));
  if (labelled) {
    clauses.push_back("\"\" index 0 using 1:2:4:5 with labels center textcolor rgb variable notitle noenhanced");
  }
  if (labelled) {
    clauses.push_back("\"\" index 1 using 1:2:4 with labels center textcolor rgb \"#000000\" notitle noenhanced");
  }
  std::string plot = "plot " + join(clauses, ", \\\n     ") + "\n";
  if (cells.empty()) {
    plot = "set label 1 \"no design point to draw\" at graph 0.5, graph 0.5 center\n"
           "unset colorbox\nplot -1 notitle\n";
  }
  gp += gnuplot_terminal_block(decl.name, figure_width_cm(decl), height_cm, plot);

  std::string& text = src.description;
  text = fmt::format("Heatmap of {} over {} (columns) and {} (rows): {} cell{} with a value", za.title, x.name, y.name,
                     drawn, drawn == 1 ? "" : "s");
  if (!decl.where.empty()) {
    std::vector<std::string> sel;
    for (const Selector& s : decl.where) sel.push_back(s.param + " = " + s.label);
    text += " with " + join(sel, ", ");
  }
  text += labelled ? fmt::format("; the number in each cell is its value{}.",
                                 own_units || za.scale.unit.empty() ? "" : " in " + za.scale.unit)
                   : fmt::format("; too many cells to print their values ({} of {} drawn), they are in {}.dat.",
                                 drawn, cells.size(), decl.name);
  text += fmt::format(" Colour: viridis, dark = low, light = high{}.", decl.log_z ? ", on a logarithmic scale" : "");
  if (blank > 0) {
    text += fmt::format(" Hatched gray: {} cell{} with no value (infeasible, failed or not drawable).", blank,
                        blank == 1 ? "" : "s");
  }
  return src;
}

}  // namespace

double page_width_cm(FigureWidth width) {
  return width == FigureWidth::single_column ? kSingleWidthCm : kDoubleWidthCm;
}

std::string house_terminals(std::string_view name, double width_cm, double height_cm, std::string_view plot_command) {
  return gnuplot_terminal_block(name, width_cm, height_cm, plot_command);
}

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

namespace {

// A figure's name becomes figures/<name>.{gp,dat,svg,pdf,png}: one plain file name in that folder.
bool figure_file_name_ok(std::string_view name) {
  return !name.empty() && name.front() != '.' && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.';
  });
}

// gnuplot hands text between backquotes to the shell wherever it appears outside a comment, quoted
// strings included; study text reaches scripts only through gp_string, which escapes backquotes.
void check_no_shell_substitution(const FigureSource& src) {
  std::size_t start = 0;
  for (int line = 1; start < src.script.size(); ++line) {
    const std::size_t end = std::min(src.script.find('\n', start), src.script.size());
    const std::string_view text = std::string_view(src.script).substr(start, end - start);
    const std::size_t first = text.find_first_not_of(" \t");
    if (first != std::string_view::npos && text[first] != '#' && text.find('`') != std::string_view::npos) {
      throw std::runtime_error(fmt::format(
          "figure '{}': line {} of its gnuplot script holds a backquote, which gnuplot would run as a shell "
          "command; not drawing it",
          src.name, line));
    }
    start = end + 1;
  }
}

}  // namespace

FigureSource build_figure(const FigureDecl& decl, const ResolvedStudy& study, const ResultTable& results,
                          const std::vector<std::size_t>& pareto_rows) {
  if (!figure_file_name_ok(decl.name)) {
    throw std::invalid_argument(fmt::format(
        "figure name '{}' cannot be a file name: use letters, digits, '_', '-' and '.'", decl.name));
  }
  std::vector<std::size_t> rows, not_ok;
  for (std::size_t r = 0; r < results.rows(); ++r) {
    if (!row_matches(decl.where, study, results, r)) continue;
    (results.status[r] == PointStatus::ok ? rows : not_ok).push_back(r);
  }
  const std::size_t excluded = not_ok.size();
  switch (decl.kind) {
    case FigureKind::scatter:
    case FigureKind::line: return build_xy(decl, study, results, rows, excluded, pareto_rows);
    case FigureKind::bars: return build_bars(decl, study, results, rows, excluded);
    case FigureKind::roofline: return build_roofline(decl, study, results, rows, excluded);
    case FigureKind::heatmap: return build_heatmap(decl, study, results, rows, not_ok);
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

RenderedFigure render_figure_source(const FigureSource& src, const std::string& dir) {
  namespace fs = std::filesystem;
  if (!figure_file_name_ok(src.name)) {
    throw std::invalid_argument(fmt::format(
        "figure name '{}' cannot be a file name: use letters, digits, '_', '-' and '.'", src.name));
  }
  check_no_shell_substitution(src);
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
    out.push_back(render_figure_source(build_figure(decl, inputs.study, inputs.results, inputs.pareto_rows), dir));
  }
  return out;
}

}  // namespace dsx
