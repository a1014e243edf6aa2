// Figures for print: a study's FigureDecls drawn by gnuplot into SVG, PDF and PNG.
//
// Every figure leaves its editable source beside the pictures: NAME.gp (the gnuplot script, house
// style included, runnable as `gnuplot NAME.gp` inside figures/) and NAME.dat (the plotted rows in SI
// units, one gnuplot `index` block per series, each row naming its design point). The script scales
// SI values to a readable prefix per axis (format.hpp choose_axis_scale), so axis titles carry units:
// "latency (us)", "energy (mJ)", "GPU utilization (%)".
//
// Kinds (FigureDecl.kind); only feasible rows that match `where` are drawn:
//  - scatter: x and y are metrics or numeric swept parameters (a categorical x is placed by its
//    position along the axis); one series per value of `group`; with `pareto`, the study's front
//    rows joined in x order in black, and the knee (dse/pareto.hpp knee_point) circled.
//  - line: as scatter, with each series joined in x order; series also split by every other axis
//    that varies among the rows, so a line never zig-zags between design points. With `crossover`,
//    every x where two lines cross (found on the drawn segments: linear interpolation between
//    neighbouring points, in log space on a log axis) gets a dashed vertical line, its value, a
//    circle, a row in the .dat and a sentence in the description.
//  - bars: horizontal, one bar per row, labelled "x / group / other varying axes"; several y
//    metrics stack (compute_s + memory_s + dispatch_s: the lab_07 waterfall) on a linear axis; one
//    metric with a group is coloured by group value. Totals are printed at the bar ends in the
//    axis's unit unless all bars share one total; byte axes are binary (GiB) only when every total
//    is an exact multiple of 1024 (format.hpp choose_bytes_axis_scale).
//  - roofline: log-log, x an intensity metric (FLOP/byte), y a FLOP/s metric, one series per
//    `group`; one roof per hardware in `roofs` and precision in `precisions` (or those of the rows),
//    min(eta x peak, intensity x bandwidth) from the study's catalog entry (engine/roofline.hpp,
//    Williams, Waterman & Patterson 2009), with its ridge point marked and labelled.
//  - heatmap: z over two swept parameters, one cell per design point, the value printed in each
//    cell that fits it, viridis colours; infeasible cells hatched.
// More than 20,000 points in one scatter or line figure are thinned and the caption says how: a scatter to
// one point of each series per spot where several would print as one mark, a line evenly.
// A figure with nothing to draw still renders, saying so.
// With `keep_script`, a NAME.gp already in figures/ (the reader's hand edits) is drawn instead of the
// generated script, NAME.dat still rewritten with the current rows, and the description says so.
// A figure that cannot be drawn (its script refused, a kept script that no longer fits NAME.dat,
// gnuplot failing) does not stop the others: render_figures returns it with `error` and `remedy`
// set and its old pictures removed, so the report says so in its place.
//
// House style (one place: the constants in figure_parts.hpp, house_style() in figures.cpp):
// Okabe-Ito colours (Okabe & Ito, "Color Universal Design", 2008; Wong, "Points of view: Color
// blindness", Nature Methods 8:441, 2011), and since colour alone does not survive a grayscale print,
// each series also has its own point shape and dash pattern; heatmaps in viridis (monotonic in
// lightness); DejaVu Sans at 9 pt; figures 17 cm wide (the text width of a two-column page) or, with
// `width: single`, 8.5 cm (one column); the SVG at 96 px per inch, the PNG at 192 px per inch; fonts
// embedded (subsetted) in the PDF.
//
// Determinism: identical inputs give byte-identical files. Numbers are written with "{:.17g}" (C
// locale); gnuplot's SVG and PNG carry no timestamps; cairo stamps /CreationDate into the PDF and
// ignores SOURCE_DATE_EPOCH, so it is rewritten to a fixed date of the same length (xref offsets stay
// valid).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "dse/results.hpp"
#include "dse/study.hpp"

namespace dsx {

struct RenderedFigure {
  std::string name;
  std::string title;
  std::string caption;      // the study's caption (or the default figure's)
  std::string description;  // what is drawn, computed: series, rows shown, front and knee
  std::string gp_path;      // run_dir/figures/NAME.gp, and likewise below
  std::string dat_path;
  std::string svg_path;
  std::string pdf_path;
  std::string png_path;
  std::size_t points = 0;  // design points drawn
  // Set when the figure was not drawn (render_figures): why, as printed on stderr (the check's
  // message or gnuplot's, naming the .gp file), and what the reader can do. Its svg, pdf and png are
  // then absent, and the report shows a note in the figure's place.
  std::string error;
  std::string remedy;
};

// Why render_figure_source drew nothing: a script the checks refuse, one that no longer fits its
// data, a link or folder in place of a kept script, or gnuplot failing.
class FigureNotDrawn : public std::runtime_error {
 public:
  enum class Cause { script_refused, script_stale, script_not_plain, gnuplot_failed };
  FigureNotDrawn(Cause cause, const std::string& what) : std::runtime_error(what), cause_(cause) {}
  Cause cause() const { return cause_; }

 private:
  Cause cause_;
};

// A figure as text, before anything touches the file system.
struct FigureSource {
  std::string name;
  std::string title;
  std::string caption;
  std::string description;
  std::string script;  // NAME.gp
  std::string data;    // NAME.dat
  std::size_t points = 0;
  bool script_kept = false;  // `script` is the NAME.gp already in the folder (keep_script): left as it is
};

// Writes NAME.gp and NAME.dat into `dir` and runs gnuplot on them, leaving NAME.svg, NAME.pdf
// (creation date normalised) and NAME.png; a gnuplot failure, a script that would do more than
// draw (gnuplot_script_check.hpp) or a kept script that reads columns or blocks NAME.dat no longer
// has (gnuplot_data_check.hpp) throws FigureNotDrawn naming the .gp file, NAME.dat written first.
// Files appear whole: gnuplot draws into a private folder first.
RenderedFigure render_figure_source(const FigureSource& src, const std::string& dir);

// The figure `src` as not drawn in `dir`, for the reason `e`: `error` and `remedy` set (what to do
// depends on the cause and on whether the script was kept), its svg, pdf and png from an earlier
// render removed so that none stands for the current data.
RenderedFigure figure_not_drawn(const FigureSource& src, const std::string& dir, const FigureNotDrawn& e);

// The figures a study draws: its own, or when it declares none a scatter of the first two
// objectives with the Pareto front (two or more objectives), else bars of the first objective
// (best value per value of the first axis; with no objective, the first metric).
std::vector<FigureDecl> effective_figures(const ResolvedStudy& study, const ResultTable& results);

// Builds the script and data of one figure. Only feasible rows matching decl.where are drawn.
// decl.name must be a plain file stem (letters, digits, '_', '-', '.'; not starting with '.').
// `pareto_rows` are the rows of the study's Pareto front (drawn when decl.pareto).
// Throws std::invalid_argument for a declaration the results cannot satisfy (unknown metric or
// parameter, bars over a metric, log scale on stacked bars, a heatmap cell holding several design
// points); the study loader rejects all of these before a sweep starts.
FigureSource build_figure(const FigureDecl& decl, const ResolvedStudy& study, const ResultTable& results,
                          const std::vector<std::size_t>& pareto_rows);

// Whether `row` passes the selectors: each compares the row's label on that parameter's axis; a
// selector on a parameter that is not an axis (fixed) always matches. Throws std::invalid_argument
// for a parameter the solver does not have.
bool row_matches(const std::vector<Selector>& where, const ResolvedStudy& study, const ResultTable& results,
                 std::size_t row);

// "hardware=a100, batch=8": the row's labels on every axis.
std::string design_point_label(const ResolvedStudy& study, const ResultTable& results, std::size_t row);

// The style block written into every script.
std::string house_style();
// The printed width of a figure, in cm: 17 (the text width of a two-column page) or 8.5 (a column).
double page_width_cm(FigureWidth width);
// The output part of every figure script: the house style's SVG, PDF (9 pt text) and PNG terminals
// at width_cm x height_cm, writing NAME.svg, NAME.pdf and NAME.png; `plot_command` draws the first,
// `replot` the others. Other figure writers use it so the three presets live in one place.
std::string house_terminals(std::string_view name, double width_cm, double height_cm, std::string_view plot_command);

// The gnuplot dsx runs: the environment's DSX_GNUPLOT when set and not empty (a path, or a name
// looked up on PATH), else the one found when dsx was built.
std::string gnuplot_program();

// Runs `gnuplot --default-settings gp_path` (posix_spawn, no shell, locale C.UTF-8) in `working_dir`,
// where the script finds its data and writes its pictures; stderr is captured. Throws
// std::runtime_error naming gp_path and gnuplot's message when gnuplot cannot run or fails.
void run_gnuplot(const std::string& gp_path, const std::string& working_dir,
                 const std::string& gnuplot = gnuplot_program());

// Rewrites every /CreationDate and /ModDate value of a PDF to 2000-01-01 00:00:00 UTC, keeping
// each value's length (digits become the fixed date's digits, zone digits become 0).
void normalize_pdf_dates(std::string& pdf);

// gnuplot's hypertext labels (SVG terminal) with their JavaScript handlers replaced by plain <title>
// elements, which a browser shows on hover without any script; the \n escapes become line breaks.
std::string svg_hover_titles(std::string_view svg);

// An SVG file made fit to sit inside an HTML page next to other figures: the XML declaration and
// DOCTYPE go, every id (and every reference to one) gets `id_prefix`, the root <svg> gets role="img"
// and an aria-label, and gnuplot's <title> becomes `label`.
std::string svg_for_inlining(std::string_view svg, std::string_view id_prefix, std::string_view label);

}  // namespace dsx
