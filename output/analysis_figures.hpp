// Figures of the declared analyses (dse/analysis/analysed_run.hpp), drawn by gnuplot in the house
// style of output/figures.hpp (house_style(), the same three terminals, byte-identical files):
//   breakeven_<name>[_<group>]  each alternative's metric along the axis, every crossing marked by a
//                               dashed vertical line, a circle and its value ("batch = 37.2");
//   tornado_<name>              one bar per uncertain input from the metric at -x% to +x%, around
//                               the base value, largest swing on top, elasticities at the bar ends;
//   sobol_<name>                first-order and total Sobol indices per input, with the bootstrap
//                               interval as whiskers;
//   morris_<name>               Morris mu* against sigma, one point per input named as the tornado
//                               and Sobol axes name it (figure_input), each name beside its point
//                               where it overlaps no other name or point, with the line sigma =
//                               mu* (above it, effects vary with the other inputs);
//   pareto_fronts               with `pareto: {group: ...}`: the feasible rows of each group and its
//                               front joined in x order, knees circled.
// Each figure leaves NAME.gp and NAME.dat beside NAME.svg, NAME.pdf and NAME.png in figures/.
#pragma once

#include <string>
#include <vector>

#include "dse/analysis/analysed_run.hpp"
#include "dse/study.hpp"
#include "output/figures.hpp"

namespace dsx {

struct AnalysisFigureSource {
  std::string analysis;  // "breakeven:<name>", "sensitivity:<name>" or "pareto"
  FigureSource source;
};

struct AnalysisFigure {
  std::string analysis;
  RenderedFigure figure;
};

// An uncertain input's value as a reader sees it: a parameter in its unit ("10.0 us"), a hardware
// field as the catalog value times the factor ("15,000 USD" for price at x1).
std::string sensitivity_input_value(const ResolvedStudy& study, const SensitivityAnalysis& analysis, std::size_t input,
                                    double value);

// Break-even analyses draw at most this many groups (one figure each); the CSV holds them all.
inline constexpr std::size_t kMaxBreakevenFigures = 6;

// Scripts and data of every analysis figure (nothing written). `shown` is the table the fronts
// refer to (AnalysedRun::shown).
std::vector<AnalysisFigureSource> build_analysis_figures(const ResolvedStudy& study, const AnalysedRun& run);

// Writes and draws them into run_dir/figures/. A figure gnuplot fails on comes back not drawn
// (figure_not_drawn: `error` and `remedy` set), the others drawn as usual.
std::vector<AnalysisFigure> render_analysis_figures(const ResolvedStudy& study, const AnalysedRun& run,
                                                    const std::string& run_dir);

}  // namespace dsx
