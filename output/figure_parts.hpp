// Internal to the figure writers: what output/figures.cpp (rows, axes, script header, rendering)
// shares with the builders of each kind, output/figure_xy.cpp (scatter and line),
// output/figure_bars.cpp, output/figure_roofline.cpp and output/figure_heatmap.cpp. Not a public
// interface: output/figures.hpp is.
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dse/results.hpp"
#include "dse/study.hpp"
#include "output/figures.hpp"
#include "output/format.hpp"

namespace dsx::figure_parts {

// ---- house style: every constant of the look lives here ----

// Widths of a two-column page (A4 or US letter with 2 cm margins): the full text width, and one
// column. Text is 9 pt in the PDF at either width, so a figure printed at its own size has the
// page's caption size.
inline constexpr double kDoubleWidthCm = 17.0;
inline constexpr double kSingleWidthCm = 8.5;
inline constexpr double kPlotHeightCm = 10.0;        // scatter, line and roofline at full width
inline constexpr double kSinglePlotHeightCm = 7.0;   // the same at one column, plus the key below
inline constexpr double kKeyRowCm = 0.42;            // one row of a key set below the plot
inline constexpr double kTitleLineCm = 0.5;          // each line of a title beyond the first
// A title is centred over the plot (left of a key on the right), so it wraps at a space beyond:
inline constexpr double kTitleDoubleCm = 12.5;
inline constexpr double kTitleSingleCm = 7.0;
inline constexpr double kBarBaseCm = 2.6;      // bars: margins, title and axis
inline constexpr double kBarKeyCm = 1.0;       // bars: the key below the axis
inline constexpr double kBarStepCm = 0.75;     // bars: per category
inline constexpr std::size_t kBarMinSteps = 5;  // bars: room for this many, so a few bars stay bars
inline constexpr double kBarMinCm = 6.0;
inline constexpr double kBarMaxCm = 24.0;
inline constexpr double kBarHalfHeight = 0.35;  // in category units
inline constexpr double kBarClusterGapSteps = 0.5;  // bars grouped by colour: the gap between x values, in bars

// Okabe-Ito (Okabe & Ito, "Color Universal Design", 2008), in the order series take them, with its
// black replaced by the "wine" (#882255) of Paul Tol's colour-blind-safe "muted" scheme (Colour Schemes,
// SRON/EPS/TN/09-002, https://personal.sron.nl/~pault/#sec:qualitative): black is the
// ink of Pareto fronts, crossings and the fronts' key sample, so no series may wear it. Shapes and
// dashes differ per series too.
inline constexpr std::string_view kFrontInk = "#000000";
inline constexpr std::array<std::string_view, 8> kSeriesColours = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                                            "#56B4E9", "#CC79A7", "#F0E442", "#882255"};
// gnuplot point types: filled circle, filled square, filled triangle, filled diamond, filled
// inverted triangle, open circle, open square, open triangle.
inline constexpr std::array<int, 8> kPointTypes = {7, 5, 9, 13, 11, 6, 4, 8};
inline constexpr std::array<std::string_view, 8> kDashes = {"solid",     "(6,3)",  "(2,2)",     "(8,3,2,3)",
                                                     "(3,3)",     "(10,4)", "(2,2,6,2)", "(1,3)"};
// Stacked-bar fills: the same palette ordered so neighbouring segments differ in gray (dark blue,
// mid orange, light yellow, ...).
inline constexpr std::array<std::string_view, 8> kBarColours = {"#0072B2", "#E69F00", "#F0E442", "#009E73",
                                                         "#D55E00", "#56B4E9", "#CC79A7", "#882255"};
// Series linetypes 1 to kSeriesLinetypes: the first eight take the eight colours, each with its own
// shape and dash; each later round of eight keeps the colours and shifts the shapes and dashes one
// step further (series_style), so no two of the 64 series look alike. Beyond 64 they repeat.
inline constexpr std::size_t kSeriesLinetypes = kSeriesColours.size() * kPointTypes.size();
// The shape and dash (index into kPointTypes and kDashes) of series linetype `index` (0-based).
constexpr std::size_t series_style(std::size_t index) {
  return (index + index / kSeriesColours.size()) % kPointTypes.size();
}
inline constexpr int kBarLinetypeBase = 71;
inline constexpr std::string_view kInk = "#262626";
// Roofline roofs: black, told apart by dash pattern (the series keep the colours).
inline constexpr int kRoofLinetypeBase = 81;
inline constexpr std::array<std::string_view, 6> kRoofDashes = {"solid", "(8,4)", "(2,3)", "(10,3,2,3)", "(4,4)", "(1,2)"};
// Crossover marks on line figures.
inline constexpr std::string_view kMarkInk = "#4d4d4d";
// Heatmaps: viridis (van der Walt & Smith, matplotlib 2.0, 2015), sampled at nine points: perceptually
// uniform, readable with the common colour-vision deficiencies, and monotonic in lightness, so a
// grayscale print keeps the order. Dark cells get white numbers, light cells black ones.
inline constexpr std::array<std::string_view, 9> kViridis = {"#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c",
                                                      "#28ae80", "#5ec962", "#addc30", "#fde725"};
inline constexpr std::string_view kInfeasibleCell = "#bdbdbd";
inline constexpr double kHeatmapBaseCm = 3.2;   // margins, title, x axis
inline constexpr double kHeatmapRowCm = 0.9;    // per row of cells
inline constexpr double kHeatmapMinCm = 5.5;
inline constexpr double kHeatmapMaxCm = 22.0;
inline constexpr std::size_t kHeatmapMaxLabelledCells = 400;  // more cells than this: no numbers printed
inline constexpr double kHeatmapMarginsCm = 5.0;  // y tic labels, colour box and its labels
// Text on a figure is 9 pt: an em is 0.3175 cm; a line of text is about 0.45 cm high.
inline constexpr double kEmCm = 9.0 / 72 * 2.54;
inline constexpr double kLabelLineCm = 0.45;
inline constexpr double kKeySampleCm = 1.6;  // the line sample and gap before a key entry's text
inline constexpr double kLongKeyEntryCm = 3.2;  // a full-width figure's key entry longer than this goes below
inline constexpr double kMaxBarLabelCm = 6.0;  // a longer bar or tornado label is set on several lines
inline constexpr double kBarLineStepCm = 0.4;  // bars: what each line of a category label beyond the first adds

// ---- text helpers ----

// A comment line's text (no line breaks).
std::string one_line(std::string_view s);
std::string join(const std::vector<std::string>& parts, std::string_view sep);

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

const Axis* find_axis(const ResolvedStudy& study, std::string_view param);
// Throws std::invalid_argument naming `figure` when `name` is neither a metric nor a parameter.
Column resolve_column(std::string_view name, const ResolvedStudy& study, const ResultTable& results,
                      std::string_view figure);
const std::string& row_label(const Column& c, const ResolvedStudy& study, const ResultTable& results,
                             std::size_t row);
// The plotted value: a metric, a numeric parameter's SI value, or a categorical parameter's
// position along its axis.
double row_value(const Column& c, const ResolvedStudy& study, const ResultTable& results, std::size_t row);
// Position of a row's label along an axis (for ordering series the way the study lists values).
std::size_t label_position(const Axis& axis, const std::string& label);

// ---- axes ----

// "1e6" for a power of ten, else the exact number.
std::string factor_text(double factor);
// `expr` times `factor` in gnuplot: "$2*1e-3", or "$1/86400" when the axis reads in a calendar
// unit (min, h, days, years: format.hpp choose_axis_scale); `expr` itself when the factor is 1.
std::string scaled_expression(std::string_view expr, double factor);
// Data column `column` times `factor`, as a gnuplot using expression: "2", "($2*1e-3)".
std::string gp_scaled(int column, double factor);

struct AxisSetup {
  std::string title;
  AxisScale scale;
  bool log = false;
};
AxisSetup axis_setup(const Column& c, const std::vector<double>& values, bool log);
// gnuplot settings of one axis: title, log scale and tick format.
std::string axis_commands(char axis, const AxisSetup& a, const std::vector<double>& scaled_values);
// The study's own axis title (x_label, y_label; nothing when empty) in place of the generated one:
// its words, then the axis's unit in parentheses, unless the label ends with one ("(days)"), which
// then sets the axis's unit (dse/study.hpp figure_label_unit; the loader checked it).
void apply_axis_label(AxisSetup& a, const Column& c, const std::string& label);
// "set xrange [0:50]" for the study's `key` (x_range, y_range) in the axis's scale; an `auto` end
// stays as dsx set it (gnuplot keeps an end left empty). Empty when no range was written.
std::string range_commands(char axis, const FigureRange& range, double factor, std::string_view key);

// ---- page layout ----

// The printed width of `text` in 9 pt DejaVu Sans, from its advance widths (in em, rounded up):
// enough to decide whether a label fits, not to typeset it.
double text_cm(std::string_view text);
double figure_width_cm(const FigureDecl& decl);
// `title` broken at spaces into lines no wider than `max_cm` in 9 pt DejaVu Sans, measured as the
// figure tests measure it (output/text_metrics.hpp); a word wider than that has a line of its own.
std::vector<std::string> title_lines(std::string_view title, double max_cm);
// The title broken into lines that fit the figure's width (kTitleDoubleCm, kTitleSingleCm).
std::vector<std::string> title_lines(const FigureDecl& decl, std::string_view title);
// Height a wrapped title adds.
double title_extra_cm(const FigureDecl& decl, std::string_view title);
// The key of a one-column figure goes below the plot: two entries a row when the longest fits
// half the width, else one; returns the commands and the height the rows add.
std::pair<std::string, double> key_below(std::size_t entries, double longest_cm, double width_cm = kSingleWidthCm);
// The study's legend_title as the key's title; in a key set below the plot (`below`: bars, and
// key_below) it starts with an empty line, which keeps it clear of the x axis title.
std::string key_title_commands(const FigureDecl& decl, bool below);
// One column leaves room for about five numbers along a linear x axis: tics every 1, 2 or 5 x 10^k.
std::string narrow_tics(char axis, double max_abs);
// The script's comment header, the house style and the figure's title.
// `on_canvas`: the title centred on the whole canvas (canvas_title_commands, output/gnuplot_text.hpp),
// for figures whose long tic labels push the plot right; `raise_chars` lifts it as `set title offset` does.
std::string script_header(const FigureDecl& decl, std::string_view title, bool on_canvas = false,
                          double raise_chars = 0);

// ---- series and design points ----

// Axes whose labels differ among `rows`, in study order, except the listed parameters.
std::vector<const Axis*> varying_axes(const ResolvedStudy& study, const ResultTable& results,
                                      const std::vector<std::size_t>& rows, std::initializer_list<std::string_view> except);

struct Series {
  std::vector<std::size_t> order_key;
  std::string title;
  std::vector<std::size_t> rows;
};
// Rows split into series by the labels of `by` (in order), series sorted as the study lists values.
// With `decl`, a value of its group is titled as its series_labels say.
std::vector<Series> split_series(const ResolvedStudy& study, const ResultTable& results,
                                 const std::vector<std::size_t>& rows, const std::vector<const Axis*>& by,
                                 const FigureDecl* decl = nullptr);
// A value as a figure's key and categories show it: a hardware or model id by its catalog
// `short_name`, else its `name` ("NVIDIA H100 SXM 80GB"), any other label through readable_label (output/readable_label.hpp
// figure_value). Data files and CSVs keep the id.
std::string value_words(const ResolvedStudy& study, std::string_view param, const std::string& label);
// The text that stands for `value` of `param`: the figure's series_labels entry when `param` is its
// group and one is written, else the value itself.
const std::string& series_label(const FigureDecl& decl, std::string_view param, const std::string& value);

// A figure's `where` for its description, as the report prints values (readable_value):
// " with hardware = NVIDIA H100 SXM 80GB, batch = 8"; empty without one.
std::string selection_text(const ResolvedStudy& study, const FigureDecl& decl);
// A design point as "hardware=NVIDIA H100 SXM 80GB, batch=8" for captions (`names`), or with the
// ids the CSV files use ("hardware=h100_sxm") for the design-point column of a data file.
std::string design_point_text(const ResolvedStudy& study, const ResultTable& results, std::size_t row,
                              std::string_view sep, bool names = true);
std::string metric_words(const Column& c);
// A drawn point's hover text: its design point, one input per line, then the figure's x and y.
std::vector<std::string> hover_lines(const ResolvedStudy& study, const ResultTable& results, std::size_t row,
                                     const Column& x, const Column& y);

// The first parameter of `kind` the solver has.
std::optional<std::size_t> param_of_kind(const ResolvedStudy& study, ParamKind kind);
// The labels a parameter takes among `rows`, in the order of its axis (or its fixed label).
std::vector<std::string> labels_among(const ResolvedStudy& study, const ResultTable& results,
                                      const std::vector<std::size_t>& rows, std::size_t param);

// ---- the builders of each kind (build_figure picks one) ----

// figure_xy.cpp
// `rows` is taken, and let go once split into series (a keep-all run's are millions).
FigureSource build_xy(const FigureDecl& decl, const ResolvedStudy& study, const ResultTable& results,
                      std::vector<std::size_t> rows, std::size_t excluded,
                      const std::vector<std::size_t>& pareto_rows);
// figure_bars.cpp
FigureSource build_bars(const FigureDecl& decl, const ResolvedStudy& study, const ResultTable& results,
                        const std::vector<std::size_t>& rows, std::size_t excluded);
// figure_roofline.cpp
FigureSource build_roofline(const FigureDecl& decl, const ResolvedStudy& study, const ResultTable& results,
                            const std::vector<std::size_t>& rows, std::size_t excluded);
// figure_heatmap.cpp
FigureSource build_heatmap(const FigureDecl& decl, const ResolvedStudy& study, const ResultTable& results,
                           const std::vector<std::size_t>& rows, const std::vector<std::size_t>& infeasible_rows);

}  // namespace dsx::figure_parts
