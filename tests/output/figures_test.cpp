#include "output/figures.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <regex>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dse/analysis/blocks.hpp"
#include "engine/registry.hpp"
#include "engine/solvers/inference.hpp"
#include "output/figure_parts.hpp"
#include "output/files.hpp"
#include "output/format.hpp"
#include "output/gnuplot_text.hpp"
#include "output/readable_label.hpp"
#include "output/report.hpp"
#include "tests/output/figure_fixture.hpp"
#include "tests/svg_text_bounds.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

// A temporary folder removed at the end of the test.
// A grid of 2 execution modes x 3 batch sizes on the inference solver, with a hand-written result
// table: the metric values are inputs here (the figures only move them), chosen so that every row is
// distinct. Row 5 (compiled, batch 64) is infeasible.
struct Small {
  ResolvedStudy study;
  ResultTable results;
  std::vector<std::size_t> pareto;
};

Small small_study() {
  Small s;
  ResolvedStudy& st = s.study;
  st.name = "figures_fixture";
  st.title = "figure fixture";
  st.solver = find_solver("inference");
  st.axes = {Axis{"execution", InferenceSolver::execution, {{"eager", 0}, {"compiled", 1}}},
             Axis{"batch", InferenceSolver::batch, {{"1", 1}, {"8", 8}, {"64", 64}}}};
  st.is_axis[InferenceSolver::execution] = true;
  st.is_axis[InferenceSolver::batch] = true;
  st.fixed_labels[InferenceSolver::hardware] = "gpu_a";
  st.fixed_labels[InferenceSolver::launch_overhead] = "5 us";
  st.fixed_values[InferenceSolver::launch_overhead] = 5e-6;
  st.objectives = {Objective{"latency_s", InferenceSolver::latency_s, Direction::minimize, {}, {}},
                   Objective{"energy_per_sample_j", InferenceSolver::energy_per_sample_j, Direction::minimize, {}, {}}};

  ResultTable& t = s.results;
  t.axis_names = {"execution", "batch"};
  for (const MetricSpec& m : st.solver->metrics()) t.metric_names.emplace_back(m.name);
  for (std::string_view r : st.solver->reasons()) t.reasons.emplace_back(r);
  const std::size_t nm = t.metric_names.size();
  const std::vector<std::string> exec = {"eager", "compiled"};
  const std::vector<std::string> batch = {"1", "8", "64"};
  for (std::size_t e = 0; e < 2; ++e) {
    for (std::size_t b = 0; b < 3; ++b) {
      const std::size_t row = e * 3 + b;
      t.point_index.push_back(row);
      t.push_label(exec[e]);
      t.push_label(batch[b]);
      const bool feasible = row != 5;
      t.status.push_back(feasible ? PointStatus::ok : PointStatus::infeasible);
      t.push_detail(feasible ? "" : std::string(st.solver->reasons()[1]));
      std::vector<double> m(nm, 0.0);
      // Distinct, positive inputs: latency grows with batch, energy per sample falls.
      m[InferenceSolver::latency_s] = (10.0 + 7.0 * static_cast<double>(row)) * 1e-6;
      m[InferenceSolver::energy_per_sample_j] = (9.0 - static_cast<double>(row)) * 1e-4;
      m[InferenceSolver::compute_s] = (1.0 + static_cast<double>(row)) * 1e-6;
      m[InferenceSolver::memory_s] = 2e-6;
      m[InferenceSolver::dispatch_s] = (e == 0 ? 20e-6 : 10e-6);
      m[InferenceSolver::throughput_samples_per_s] = 1000.0 * static_cast<double>(row + 1);
      m[InferenceSolver::gpu_utilization] = 0.1 * static_cast<double>(row + 1);
      t.metrics.insert(t.metrics.end(), m.begin(), m.end());
    }
  }
  s.pareto = {0, 1, 2, 3, 4};  // every feasible row trades latency for energy in this table
  return s;
}

FigureDecl scatter_decl() {
  FigureDecl d;
  d.name = "latency_energy";
  d.kind = FigureKind::scatter;
  d.title = "Latency against energy";
  d.caption = "Each point is a design point.";
  d.x = "latency_s";
  d.y = {"energy_per_sample_j"};
  d.group = "execution";
  d.pareto = true;
  return d;
}

FigureDecl bars_decl() {
  FigureDecl d;
  d.name = "waterfall";
  d.kind = FigureKind::bars;
  d.title = "Where the time goes";
  d.x = "batch";
  d.y = {"compute_s", "memory_s", "dispatch_s"};
  d.group = "execution";
  return d;
}

FigureDecl line_decl() {
  FigureDecl d;
  d.name = "throughput";
  d.kind = FigureKind::line;
  d.x = "batch";
  d.y = {"throughput_samples_per_s"};
  d.group = "execution";
  d.log_x = true;
  return d;
}

// The data rows of a .dat file: whitespace-separated fields, quoted fields kept whole.
std::vector<std::vector<std::string>> data_rows(const std::string& dat) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(dat);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    for (std::size_t i = 0; i < line.size();) {
      if (line[i] == ' ') {
        ++i;
      } else if (line[i] == '"') {
        const std::size_t end = line.find('"', i + 1);
        fields.push_back(line.substr(i + 1, end - i - 1));
        i = end + 1;
      } else {
        const std::size_t end = std::min(line.find(' ', i), line.size());
        fields.push_back(line.substr(i, end - i));
        i = end;
      }
    }
    rows.push_back(fields);
  }
  return rows;
}

TEST(Figures, ScatterDataHoldsExactlyTheFeasibleRowsAndTheFront) {
  Small s = small_study();
  s.study.figures = {scatter_decl()};
  const FigureSource src = build_figure(s.study.figures[0], s.study, s.results, s.pareto);
  const auto rows = data_rows(src.data);
  // 5 feasible points in two series, then the front (5 rows), then the knee (at most 1).
  ASSERT_GE(rows.size(), 10u);
  std::map<std::string, int> seen;
  for (std::size_t i = 0; i < 5; ++i) {
    const std::size_t point = std::stoul(rows[i][2]);
    const double latency = s.results.metric(point, InferenceSolver::latency_s);
    const double energy = s.results.metric(point, InferenceSolver::energy_per_sample_j);
    EXPECT_EQ(std::strtod(rows[i][0].c_str(), nullptr), latency);
    EXPECT_EQ(std::strtod(rows[i][1].c_str(), nullptr), energy);
    ++seen[rows[i][2]];
  }
  EXPECT_EQ(seen.size(), 5u);
  EXPECT_EQ(seen.count("5"), 0u) << "the infeasible row must not be drawn";
  EXPECT_EQ(src.points, 5u);
  // The front is joined in x order.
  for (std::size_t i = 6; i < 10; ++i) {
    EXPECT_LT(std::strtod(rows[i - 1][0].c_str(), nullptr), std::strtod(rows[i][0].c_str(), nullptr));
  }
  EXPECT_NE(src.script.find("set xlabel \"latency (\u00b5s)\" noenhanced"), std::string::npos) << src.script;
  EXPECT_NE(src.script.find("set ylabel \"energy per sample (\u00b5J)\" noenhanced"), std::string::npos);
  EXPECT_NE(src.script.find("using ($1*1e6):($2*1e6)"), std::string::npos);
  EXPECT_NE(src.script.find("title \"Pareto front\""), std::string::npos);
  EXPECT_NE(src.script.find(house_style()), std::string::npos);
  EXPECT_NE(src.description.find("1 infeasible or failed"), std::string::npos) << src.description;
}

// Every series linetype of the house style looks unlike every other: two that share a colour
// differ in point shape and in dash pattern, so series 9 is not series 1 again. The bar and roof
// linetypes lie beyond them.
TEST(Figures, EverySeriesLinetypeIsDistinguishable) {
  const std::string style = house_style();
  static const std::regex linetype(R"re(set linetype (\d+) lc rgb "(#[0-9A-Fa-f]{6})" lw 1\.5 pt (\d+) ps 1 dt (\S+))re");
  std::map<int, std::array<std::string, 3>> series;  // linetype -> colour, point type, dash
  for (auto it = std::sregex_iterator(style.begin(), style.end(), linetype); it != std::sregex_iterator(); ++it) {
    series[std::stoi((*it)[1])] = {(*it)[2], (*it)[3], (*it)[4]};
  }
  ASSERT_EQ(series.size(), figure_parts::kSeriesLinetypes) << style;
  EXPECT_EQ(series.begin()->first, 1);
  EXPECT_EQ(series.rbegin()->first, static_cast<int>(figure_parts::kSeriesLinetypes));
  for (const auto& [a, sa] : series) {
    for (const auto& [b, sb] : series) {
      if (a >= b) continue;
      if (sa[0] == sb[0]) {
        EXPECT_NE(sa[1], sb[1]) << "linetypes " << a << " and " << b << " share colour and point type";
        EXPECT_NE(sa[2], sb[2]) << "linetypes " << a << " and " << b << " share colour and dash";
      }
    }
  }
  EXPECT_NE(style.find(fmt::format("set linetype cycle {}\n", figure_parts::kSeriesLinetypes)), std::string::npos);
  EXPECT_GT(figure_parts::kBarLinetypeBase, static_cast<int>(figure_parts::kSeriesLinetypes));
  EXPECT_GT(figure_parts::kRoofLinetypeBase,
            figure_parts::kBarLinetypeBase + static_cast<int>(figure_parts::kBarColours.size()) - 1);
}

// No series and no bar is drawn in the Pareto front's black: with eight groups (accelerator_purchase's
// nine accelerators) the eighth group's front would read as "the Pareto front" of the key.
TEST(Figures, NoSeriesWearsTheFrontsBlack) {
  const std::string style = house_style();
  static const std::regex linetype(R"re(set linetype (\d+) lc rgb "(#[0-9A-Fa-f]{6})")re");
  std::size_t seen = 0;
  for (auto it = std::sregex_iterator(style.begin(), style.end(), linetype); it != std::sregex_iterator(); ++it) {
    ++seen;
    EXPECT_NE((*it)[2].str(), "#000000") << "linetype " << (*it)[1];
  }
  EXPECT_GT(seen, figure_parts::kSeriesLinetypes);
  EXPECT_EQ(figure_parts::kFrontInk, "#000000");
}

// A hardware group reads by its catalog name in the key ("NVIDIA H100 SXM 80GB"), while the data
// file keeps the id the CSVs use.
TEST(Figures, HardwareGroupsReadByTheirCatalogNames) {
  const figure_fixture::Fixture f = figure_fixture::matmul_study(DSX_SOURCE_DIR);
  FigureDecl d = figure_fixture::crossover_decl();
  d.y = {"latency_s"};
  d.crossover = false;
  d.group = "hardware";
  d.where = {{"precision", "fp16"}};
  const FigureSource src = build_figure(d, f.study, f.results, f.pareto);
  for (const char* id : {"a100_80gb_sxm", "h100_sxm"}) {
    const HardwareSpec* h = f.study.catalog.find_hardware(id);
    ASSERT_NE(h, nullptr);
    ASSERT_FALSE(h->name.empty());
    EXPECT_NE(src.script.find("title " + gp_string(h->name)), std::string::npos) << h->name << "\n" << src.script;
    EXPECT_EQ(src.script.find("title \"" + std::string(id) + "\""), std::string::npos) << id;
  }
  EXPECT_NE(src.data.find("a100_80gb_sxm"), std::string::npos);
}

// `pareto: group: [execution]`: one front per execution mode, each its own line; never one line
// zig-zagging through the union of the fronts, and no single knee.
TEST(Figures, GroupedFrontsAreOneLinePerGroup) {
  Small s = small_study();
  auto analyses = std::make_shared<StudyAnalyses>();
  analyses->pareto.group = {"execution"};
  s.study.analyses = analyses;
  s.study.figures = {scatter_decl()};
  const FigureSource src = build_figure(s.study.figures[0], s.study, s.results, s.pareto);
  // Blocks: the two series (3 eager, 2 compiled points), then the compiled front, then the eager one.
  EXPECT_NE(src.data.find("# index 2: Pareto front of compiled, in x order"), std::string::npos) << src.data;
  EXPECT_NE(src.data.find("# index 3: Pareto front of eager, in x order"), std::string::npos) << src.data;
  EXPECT_EQ(src.data.find("knee"), std::string::npos);
  // The series are the groups (eager: linetype 1, compiled: 2), so each front takes its group's colour
  // and one black key entry names them.
  EXPECT_NE(src.script.find("index 2 using ($1*1e6):($2*1e6) with lines lt 2 lw 2 dt solid notitle"), std::string::npos)
      << src.script;
  EXPECT_NE(src.script.find("index 3 using ($1*1e6):($2*1e6) with lines lt 1 lw 2 dt solid notitle"), std::string::npos)
      << src.script;
  EXPECT_NE(src.script.find("NaN with lines lc rgb \"#000000\" lw 2 dt solid title \"Pareto front of each execution\""),
            std::string::npos)
      << src.script;
  EXPECT_NE(src.description.find("The thick lines, each in its group's colour, are the Pareto fronts of each execution, "
                                 "one line per group"),
            std::string::npos)
      << src.description;
  // Series that are not the groups (here: by batch) leave the fronts black.
  FigureDecl by_batch = scatter_decl();
  by_batch.group = "batch";
  const FigureSource black = build_figure(by_batch, s.study, s.results, s.pareto);
  EXPECT_NE(black.script.find("with lines lc rgb \"#000000\" lw 2 dt solid title \"Pareto front of each execution\""),
            std::string::npos)
      << black.script;
}

TEST(Figures, WhereSelectorsFilterRows) {
  Small s = small_study();
  FigureDecl d = scatter_decl();
  d.where = {{"execution", "compiled"}};
  d.pareto = false;
  const FigureSource src = build_figure(d, s.study, s.results, s.pareto);
  const auto rows = data_rows(src.data);
  ASSERT_EQ(rows.size(), 2u);  // compiled batch 1 and 8; batch 64 is infeasible
  EXPECT_EQ(rows[0][2], "3");
  EXPECT_EQ(rows[1][2], "4");
}

TEST(Figures, SelectorsMatchAxisLabelsAndAnyFixedParameter) {
  const Small s = small_study();
  EXPECT_TRUE(row_matches({{"execution", "eager"}, {"batch", "8"}}, s.study, s.results, 1));
  EXPECT_FALSE(row_matches({{"execution", "eager"}, {"batch", "8"}}, s.study, s.results, 2));
  EXPECT_TRUE(row_matches({{"hardware", "anything"}}, s.study, s.results, 0));
  EXPECT_THROW(row_matches({{"hardwar", "gpu_a"}}, s.study, s.results, 0), std::invalid_argument);
}

TEST(Figures, StackedBarsCarryEverySegmentAndTotal) {
  const Small s = small_study();
  const FigureSource src = build_figure(bars_decl(), s.study, s.results, s.pareto);
  const auto rows = data_rows(src.data);
  ASSERT_EQ(rows.size(), 5u);
  for (const auto& r : rows) {
    const std::size_t point = std::stoul(r[4]);
    EXPECT_EQ(std::strtod(r[1].c_str(), nullptr), s.results.metric(point, InferenceSolver::compute_s));
    EXPECT_EQ(std::strtod(r[2].c_str(), nullptr), s.results.metric(point, InferenceSolver::memory_s));
    EXPECT_EQ(std::strtod(r[3].c_str(), nullptr), s.results.metric(point, InferenceSolver::dispatch_s));
  }
  // Categories are "batch / execution", ordered as the study lists the values.
  EXPECT_EQ(rows[0][5], "1 / eager");
  EXPECT_EQ(rows[1][5], "1 / compiled");
  EXPECT_EQ(rows[4][5], "64 / eager");
  // Row 0: 1 µs compute + 2 µs memory + 20 µs dispatch = 23 µs, labelled at the bar's end.
  EXPECT_NE(src.script.find("set label 1 \"23.0 \u00b5s\" at first 23, first 0"), std::string::npos) << src.script;
  EXPECT_NE(src.script.find(fmt::format("with boxxyerror lt {} title \"dispatch\"", figure_parts::kBarLinetypeBase + 2)),
            std::string::npos);
}

// A metric with <metric>_p10 / _p90 columns (the calibration profile's 80 % intervals) gets error bars
// on a scatter and a band along a line; the data file carries the bounds.
TEST(Figures, IntervalsAreDrawnAsErrorBarsAndBands) {
  Small s = small_study();
  ResultTable& t = s.results;
  const std::size_t nm = t.metric_names.size();
  std::vector<double> widened;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    widened.insert(widened.end(), t.metrics.begin() + static_cast<std::ptrdiff_t>(r * nm),
                   t.metrics.begin() + static_cast<std::ptrdiff_t>((r + 1) * nm));
    const double energy = t.metric(r, InferenceSolver::energy_per_sample_j);
    const double throughput = t.metric(r, InferenceSolver::throughput_samples_per_s);
    widened.insert(widened.end(), {0.8 * energy, 1.3 * energy, 0.7 * throughput, 1.2 * throughput});
  }
  t.metrics = widened;
  for (const char* c : {"energy_per_sample_j_p10", "energy_per_sample_j_p90", "throughput_samples_per_s_p10",
                        "throughput_samples_per_s_p90"}) {
    t.metric_names.emplace_back(c);
  }
  s.study.figures = {scatter_decl(), line_decl()};
  const FigureSource scatter = build_figure(s.study.figures[0], s.study, s.results, s.pareto);
  EXPECT_NE(scatter.script.find("with yerrorbars"), std::string::npos) << scatter.script;
  EXPECT_NE(scatter.description.find("Bars: the 80 % interval"), std::string::npos) << scatter.description;
  const auto rows = data_rows(scatter.data);
  ASSERT_GE(rows.size(), 1u);
  ASSERT_EQ(rows[0].size(), 7u);
  const std::size_t point = std::stoul(rows[0][2]);
  EXPECT_EQ(std::strtod(rows[0][4].c_str(), nullptr), 0.8 * t.metric(point, InferenceSolver::energy_per_sample_j));
  const FigureSource line = build_figure(s.study.figures[1], s.study, s.results, s.pareto);
  EXPECT_NE(line.script.find("with filledcurves fs transparent solid"), std::string::npos) << line.script;
  EXPECT_NE(line.description.find("Shaded: the 80 % interval"), std::string::npos) << line.description;
  // Without the columns, neither.
  const Small plain = small_study();
  const FigureSource none = build_figure(scatter_decl(), plain.study, plain.results, plain.pareto);
  EXPECT_EQ(none.script.find("yerrorbars"), std::string::npos);
}

// Bars coloured by an axis name it in the key: "execution = eager", not a bare "eager".
TEST(Figures, BarColoursAreNamedWithTheirAxis) {
  Small s = small_study();
  FigureDecl d = bars_decl();
  d.y = {"latency_s"};
  s.study.figures = {d};
  const FigureSource src = build_figure(s.study.figures[0], s.study, s.results, s.pareto);
  EXPECT_NE(src.script.find("title \"execution = eager\""), std::string::npos) << src.script;
  EXPECT_NE(src.script.find("title \"execution = compiled\""), std::string::npos) << src.script;
}

// The category axis of bars is titled like a numeric axis: the parameters' words with the unit their
// values are written in, which the bar labels then read as plain numbers.
TEST(Figures, BarCategoriesAreTitledWithTheirParametersAndUnits) {
  Small s = small_study();
  // batch -> launch_overhead, written as a study might: "5 us", "0.01 ms", "20 us".
  s.study.axes[1] = Axis{"launch_overhead", InferenceSolver::launch_overhead, {{"5 us", 5e-6}, {"0.01 ms", 1e-5}, {"20 us", 2e-5}}};
  s.study.is_axis[InferenceSolver::batch] = false;
  s.study.is_axis[InferenceSolver::launch_overhead] = true;
  s.study.fixed_labels[InferenceSolver::launch_overhead].clear();
  s.study.fixed_labels[InferenceSolver::batch] = "1";
  s.study.fixed_values[InferenceSolver::batch] = 1;
  s.results.axis_names[1] = "launch_overhead";
  const std::vector<std::string> written = {"5 us", "0.01 ms", "20 us"};
  for (std::size_t r = 0; r < s.results.rows(); ++r) s.results.axis_codes[1].set(r, s.results.axis_dictionary(1).code(written[r % 3]));
  FigureDecl d = bars_decl();
  d.x = "launch_overhead";
  const FigureSource src = build_figure(d, s.study, s.results, s.pareto);
  const std::string header = "\"launch overhead (\u00b5s) / execution\" at screen 0, graph 1 left";
  EXPECT_NE(src.script.find(header), std::string::npos) << src.script;
  const auto rows = data_rows(src.data);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0][5], "5 / eager");
  EXPECT_EQ(rows[2][5], "10 / eager");  // 0.01 ms on a µs axis
  EXPECT_EQ(rows[4][5], "20 / eager");
  // With the study's own words for it.
  d.x_label = "Kernel launch cost";
  const FigureSource labelled = build_figure(d, s.study, s.results, s.pareto);
  EXPECT_NE(labelled.script.find("\"Kernel launch cost (\u00b5s) / execution\""), std::string::npos) << labelled.script;
  // A parameter without a unit is titled with its words: "batch / execution" for the shipped fixture.
  const Small plain = small_study();
  const FigureSource batch = build_figure(bars_decl(), plain.study, plain.results, plain.pareto);
  EXPECT_NE(batch.script.find("\"batch / execution\" at screen 0, graph 1 left"), std::string::npos) << batch.script;
}

TEST(Figures, BarsRejectAMetricAsCategoryAndLogScales) {
  const Small s = small_study();
  FigureDecl d = bars_decl();
  d.x = "latency_s";
  EXPECT_THROW(build_figure(d, s.study, s.results, s.pareto), std::invalid_argument);
  d = bars_decl();
  d.log_x = true;
  EXPECT_THROW(build_figure(d, s.study, s.results, s.pareto), std::invalid_argument);
  d = bars_decl();
  d.y = {"no_such_metric"};
  EXPECT_THROW(build_figure(d, s.study, s.results, s.pareto), std::invalid_argument);
}

TEST(Figures, LinesJoinPointsInXOrderPerSeries) {
  const Small s = small_study();
  const FigureSource src = build_figure(line_decl(), s.study, s.results, s.pareto);
  const auto rows = data_rows(src.data);
  ASSERT_EQ(rows.size(), 5u);
  // eager: batch 1, 8, 64; compiled: 1, 8.
  const std::vector<std::string> expected_x = {"1", "8", "64", "1", "8"};
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i][0], expected_x[i]);
  EXPECT_NE(src.script.find("set logscale x 10"), std::string::npos);
  EXPECT_NE(src.script.find("with linespoints lt 2 title \"compiled\""), std::string::npos);
}

TEST(Figures, DefaultIsTheFrontOfTheFirstTwoObjectives) {
  const Small s = small_study();
  const auto figures = effective_figures(s.study, s.results);
  ASSERT_EQ(figures.size(), 1u);
  EXPECT_EQ(figures[0].kind, FigureKind::scatter);
  EXPECT_EQ(figures[0].x, "latency_s");
  EXPECT_EQ(figures[0].y, std::vector<std::string>{"energy_per_sample_j"});
  EXPECT_TRUE(figures[0].pareto);

  Small one = small_study();
  one.study.objectives.resize(1);
  const auto bars = effective_figures(one.study, one.results);
  ASSERT_EQ(bars.size(), 1u);
  EXPECT_EQ(bars[0].kind, FigureKind::bars);
  EXPECT_EQ(bars[0].x, "execution");
  // The other axis is held at the lowest-latency feasible row (row 0, batch 1).
  ASSERT_EQ(bars[0].where.size(), 1u);
  EXPECT_EQ(bars[0].where[0].param, "batch");
  EXPECT_EQ(bars[0].where[0].label, "1");
}

TEST(Figures, RenderingTwiceGivesIdenticalBytes) {
  Small s = small_study();
  s.study.figures = {scatter_decl(), bars_decl(), line_decl()};
  TempDir a("det_a"), b("det_b");
  const ReportInputs ia{s.study, s.results, s.pareto, RunInfo{}, a.path(), ""};
  const ReportInputs ib{s.study, s.results, s.pareto, RunInfo{}, b.path(), ""};
  const auto fa = render_figures(ia);
  const auto fb = render_figures(ib);
  ASSERT_EQ(fa.size(), 3u);
  ASSERT_EQ(fb.size(), 3u);
  for (std::size_t i = 0; i < fa.size(); ++i) {
    for (const auto& [pa, pb] : {std::pair{fa[i].svg_path, fb[i].svg_path}, {fa[i].pdf_path, fb[i].pdf_path},
                                 {fa[i].png_path, fb[i].png_path}, {fa[i].gp_path, fb[i].gp_path},
                                 {fa[i].dat_path, fb[i].dat_path}}) {
      const std::string x = read_file(pa), y = read_file(pb);
      EXPECT_GT(x.size(), 100u) << pa;
      EXPECT_TRUE(x == y) << pa << " and " << pb << " differ";
    }
    const std::string pdf = read_file(fa[i].pdf_path);
    EXPECT_NE(pdf.find("/CreationDate (D:20000101000000"), std::string::npos);
    EXPECT_EQ(read_file(fa[i].png_path).substr(1, 3), "PNG");
    EXPECT_EQ(pdf.substr(0, 5), "%PDF-");
  }
  // Nothing but the figures' files is left behind.
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(a.path() + "/figures")) {
    EXPECT_TRUE(e.is_regular_file()) << e.path();
    ++files;
  }
  EXPECT_EQ(files, 15u);
}

// Each drawn point carries its design point and the figure's metrics as an SVG <title>, shown on
// hover without a script; quotes in labels cannot break out of gnuplot's attribute.
TEST(Figures, PointsShowTheirInputsAndMetricsOnHover) {
  Small s = small_study();
  s.study.figures = {scatter_decl()};
  const FigureSource src = build_figure(s.study.figures[0], s.study, s.results, s.pareto);
  const auto rows = data_rows(src.data);
  ASSERT_GE(rows.size(), 1u);
  ASSERT_EQ(rows[0].size(), 5u);
  const std::size_t point = std::stoul(rows[0][2]);
  EXPECT_EQ(rows[0][4].find("execution = " + s.results.label(point, 0) + "\\\\n"), 0u) << rows[0][4];
  EXPECT_NE(rows[0][4].find("latency = "), std::string::npos) << rows[0][4];
  EXPECT_NE(src.script.find(":5 with labels hypertext point"), std::string::npos) << src.script;

  TempDir dir("hover");
  const ReportInputs inputs{s.study, s.results, s.pareto, RunInfo{}, dir.path(), ""};
  const auto figures = render_figures(inputs);
  ASSERT_EQ(figures.size(), 1u);
  const std::string svg = read_file(figures[0].svg_path);
  EXPECT_EQ(svg.find("onmousemove"), std::string::npos);
  EXPECT_EQ(svg.find("gnuplot_svg"), std::string::npos);
  const std::size_t title = svg.find("<g><title>execution = ");
  ASSERT_NE(title, std::string::npos);
  const std::string text = svg.substr(title, svg.find("</title>", title) - title);
  EXPECT_NE(text.find("\nbatch = "), std::string::npos) << text;
  EXPECT_NE(text.find("\nlatency = "), std::string::npos) << text;
}

TEST(Figures, HoverTextIsSafeInsideGnuplotsAttribute) {
  EXPECT_EQ(dat_hypertext({"model = it's \"x\"", "path = a\\b\tc"}),
            "\"model = it\u2019s \u201dx\u201d\\\\npath = a\u2216b c\"");
  EXPECT_EQ(svg_hover_titles("<g onmousemove=\"gnuplot_svg.showHypertext(evt,'a = 1\\nb &lt; 2')\" "
                             "onmouseout=\"gnuplot_svg.hideHypertext()\"><title> </title><use/></g>"),
            "<g><title>a = 1\nb &lt; 2</title><use/></g>");
  EXPECT_EQ(svg_hover_titles("<svg></svg>"), "<svg></svg>");
  EXPECT_THROW(svg_hover_titles("<g onmousemove=\"gnuplot_svg.showHypertext(evt,'a"), std::runtime_error);
}

TEST(Figures, TextPastTheCanvasIsFound) {
  const std::string svg =
      "<svg width=\"200\" height=\"100\">\n"
      "<g transform=\"translate(150,50)\" stroke=\"none\" font-size=\"12.00\"  text-anchor=\"start\">\n"
      "\t<text>a legend entry</text>\n</g>\n"
      "<g transform=\"translate(100,20)\" stroke=\"none\" font-size=\"12.00\"  text-anchor=\"middle\">\n"
      "\t<text><tspan>fits</tspan></text>\n</g>\n"
      "<g transform=\"translate(10,50) rotate(-90)\" stroke=\"none\" font-size=\"12.00\"  text-anchor=\"middle\">\n"
      "\t<text>a rotated axis title that is far too long</text>\n</g>\n</svg>\n";
  const std::vector<std::string> clipped = clipped_svg_texts(svg);
  ASSERT_EQ(clipped.size(), 2u);
  EXPECT_EQ(clipped[0].rfind("'a legend entry' spans 150..", 0), 0u) << clipped[0];
  EXPECT_EQ(clipped[1].rfind("'a rotated axis title that is far too long' spans ", 0), 0u) << clipped[1];
}

TEST(Figures, AnEmptyFigureStillRenders) {
  Small s = small_study();
  FigureDecl d = scatter_decl();
  d.where = {{"execution", "nonexistent"}};
  s.study.figures = {d};
  TempDir dir("empty");
  const ReportInputs in{s.study, s.results, s.pareto, RunInfo{}, dir.path(), ""};
  const auto figs = render_figures(in);
  ASSERT_EQ(figs.size(), 1u);
  EXPECT_EQ(figs[0].points, 0u);
  EXPECT_TRUE(fs::exists(figs[0].svg_path));
}

// n points of batch 1..n on one axis, latency_s from `latency` (of the point's 0-based index).
template <typename Latency>
std::pair<ResolvedStudy, ResultTable> batch_sweep(std::size_t n, Latency latency) {
  ResolvedStudy st;
  st.name = "large";
  st.solver = find_solver("inference");
  Axis batch{"batch", InferenceSolver::batch, {}};
  ResultTable t;
  t.axis_names = {"batch"};
  for (const MetricSpec& m : st.solver->metrics()) t.metric_names.emplace_back(m.name);
  for (std::size_t i = 0; i < n; ++i) {
    batch.values.push_back({std::to_string(i + 1), static_cast<double>(i + 1)});
    t.point_index.push_back(i);
    t.push_label(std::to_string(i + 1));
    t.status.push_back(PointStatus::ok);
    t.push_detail("");
    std::vector<double> m(t.metric_names.size(), 1.0);
    m[InferenceSolver::latency_s] = latency(i);
    t.metrics.insert(t.metrics.end(), m.begin(), m.end());
  }
  st.axes = {batch};
  st.is_axis[InferenceSolver::batch] = true;
  return {std::move(st), std::move(t)};
}

FigureDecl batch_latency_figure(FigureKind kind) {
  FigureDecl d;
  d.name = "large";
  d.kind = kind;
  d.x = "batch";
  d.y = {"latency_s"};
  return d;
}

// A scatter of more points than a figure draws keeps the first point of each spot of a 400 x 300
// grid over the drawn range (points that would print as one mark), so the whole cloud stays drawn.
TEST(Figures, LargeScattersKeepOnePointPerSpot) {
  const std::size_t n = 25002;  // n - 1 = 23 x 1087: no point sits on a cell's edge
  const auto [st, t] = batch_sweep(n, [](std::size_t i) { return 1e-6 * static_cast<double>(i + 1); });
  const FigureSource src = build_figure(batch_latency_figure(FigureKind::scatter), st, t, {});
  // On the diagonal, point i lies in cell (floor(400 i / (n - 1)), floor(300 i / (n - 1))).
  std::set<std::pair<std::size_t, std::size_t>> cells;
  std::vector<std::string> first_of_cell;
  for (std::size_t i = 0; i < n; ++i) {
    const double f = static_cast<double>(i) / static_cast<double>(n - 1);
    const std::pair<std::size_t, std::size_t> c{std::min<std::size_t>(399, static_cast<std::size_t>(400 * f)),
                                                std::min<std::size_t>(299, static_cast<std::size_t>(300 * f))};
    if (cells.insert(c).second) first_of_cell.push_back(std::to_string(i));
  }
  const auto rows = data_rows(src.data);
  ASSERT_EQ(rows.size(), cells.size());
  EXPECT_GT(rows.size(), 400u);  // every step across x, and the steps up y between them
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i][2], first_of_cell[i]) << i;
  EXPECT_NE(src.description.find(fmt::format("Thinned for drawing: {} of 25,002 points, one of each series where "
                                             "several would print as one mark.",
                                             format_grouped(static_cast<double>(cells.size())))),
            std::string::npos)
      << src.description;
}

// A cloud that covers more spots than a figure draws is then thinned evenly as well.
TEST(Figures, LargeScattersOfManySpotsAreThenThinnedEvenly) {
  const std::size_t n = 120000;
  std::uint64_t state = 12345;
  std::vector<double> latency(n);
  for (double& v : latency) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    v = 1.0 + static_cast<double>(state >> 11) / 9007199254740992.0;  // uniform in [1, 2)
  }
  const auto [st, t] = batch_sweep(n, [&latency](std::size_t i) { return latency[i]; });
  const FigureSource src = build_figure(batch_latency_figure(FigureKind::scatter), st, t, {});
  const double y_lo = *std::min_element(latency.begin(), latency.end());
  const double y_hi = *std::max_element(latency.begin(), latency.end());
  std::set<std::pair<std::size_t, std::size_t>> cells;
  for (std::size_t i = 0; i < n; ++i) {
    const double fx = static_cast<double>(i) / static_cast<double>(n - 1), fy = (latency[i] - y_lo) / (y_hi - y_lo);
    cells.insert({std::min<std::size_t>(399, static_cast<std::size_t>(400 * fx)),
                  std::min<std::size_t>(299, static_cast<std::size_t>(300 * fy))});
  }
  ASSERT_GT(cells.size(), 20000u);
  const std::size_t stride = (cells.size() + 19999) / 20000;
  const auto rows = data_rows(src.data);
  EXPECT_EQ(rows.size(), (cells.size() + stride - 1) / stride);
  EXPECT_NE(src.description.find(fmt::format("then every {} point ({} of 120,000)", ordinal(stride),
                                             format_grouped(static_cast<double>(rows.size())))),
            std::string::npos)
      << src.description;
}

TEST(Figures, LargeLinesAreThinnedEvenly) {
  // 25,000 batch sizes on one axis: more than the 20,000 points a figure draws, so every 2nd.
  const std::size_t n = 25000;
  const auto [st, t] = batch_sweep(n, [](std::size_t i) { return 1e-6 * static_cast<double>(i + 1); });
  const FigureSource src = build_figure(batch_latency_figure(FigureKind::line), st, t, {});
  const auto rows = data_rows(src.data);
  ASSERT_EQ(rows.size(), n / 2);
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i][2], std::to_string(2 * i));
  EXPECT_NE(src.description.find("every 2nd point of each series (12,500 of 25,000)"), std::string::npos)
      << src.description;
}

TEST(Figures, NamesMustBeFileNamesAndUnique) {
  Small s = small_study();
  FigureDecl d = scatter_decl();
  d.name = "../escape";
  EXPECT_THROW(build_figure(d, s.study, s.results, s.pareto), std::invalid_argument);
  s.study.figures = {scatter_decl(), scatter_decl()};
  TempDir dir("dupes");
  const ReportInputs in{s.study, s.results, s.pareto, RunInfo{}, dir.path(), ""};
  EXPECT_THROW(render_figures(in), std::invalid_argument);
}

TEST(Figures, GnuplotErrorNamesTheScript) {
  TempDir dir("error");
  const std::string gp = dir.path() + "/broken.gp";
  write_file_atomic(gp, "set terminal svg\nset output \"broken.svg\"\nplot undefined_function(x)\n");
  try {
    run_gnuplot(gp, dir.path());
    FAIL() << "gnuplot accepted a broken script";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(gp), std::string::npos) << what;
    EXPECT_NE(what.find("line 3"), std::string::npos) << what;
    EXPECT_NE(what.find("undefined"), std::string::npos) << what;
  }
}

TEST(Figures, MissingGnuplotIsAnError) {
  TempDir dir("nognuplot");
  const std::string gp = dir.path() + "/x.gp";
  write_file_atomic(gp, "print 1\n");
  EXPECT_THROW(run_gnuplot(gp, dir.path(), dir.path() + "/no-such-gnuplot"), std::runtime_error);
}

TEST(Figures, PdfDatesBecomeFixedAndKeepTheirLength) {
  std::string pdf = "<< /Producer (cairo 1.16.0) /CreationDate (D:20261121053429Z) /ModDate (D:20240301101010+01'00) >>";
  const std::size_t size = pdf.size();
  normalize_pdf_dates(pdf);
  EXPECT_EQ(pdf.size(), size);
  EXPECT_NE(pdf.find("/CreationDate (D:20000101000000Z)"), std::string::npos) << pdf;
  EXPECT_NE(pdf.find("/ModDate (D:20000101000000+00'00)"), std::string::npos) << pdf;
  EXPECT_NE(pdf.find("/Producer (cairo 1.16.0)"), std::string::npos);
}

TEST(Figures, SvgForInliningPrefixesIdsAndDropsTheProlog) {
  const std::string svg =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
      "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n"
      "<svg width=\"10\" xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"
      "<defs><path id='gpPt0' d='M0,0'/><clipPath id=\"c1\"/></defs>\n"
      "<use xlink:href='#gpPt0'/><g clip-path=\"url(#c1)\"><text>id='x' & url(#y)</text></g>\n</svg>\n";
  const std::string out = svg_for_inlining(svg, "f1-", "A <title>");
  EXPECT_EQ(out.find("<?xml"), std::string::npos);
  EXPECT_EQ(out.find("DOCTYPE"), std::string::npos);
  EXPECT_EQ(out.rfind("<svg role=\"img\" aria-label=\"A &lt;title&gt;\"", 0), 0u) << out;
  EXPECT_NE(out.find("id='f1-gpPt0'"), std::string::npos);
  EXPECT_NE(out.find("id=\"f1-c1\""), std::string::npos);
  EXPECT_NE(out.find("xlink:href='#f1-gpPt0'"), std::string::npos);
  EXPECT_NE(out.find("url(#f1-c1)"), std::string::npos);
  EXPECT_NE(out.find("<text>id='x' & url(#y)</text>"), std::string::npos) << "text content is not markup";
}

}  // namespace
}  // namespace dsx

// ---- roofline, heatmap, crossovers, widths, print checks ----------------------------------------

namespace dsx {
namespace {

// The blocks of a .dat file: each starts at a "# index N: heading" comment; rows as data_rows reads them.
struct DatBlock {
  std::string heading;
  std::vector<std::vector<std::string>> rows;
};

std::vector<DatBlock> dat_blocks(const std::string& dat) {
  std::vector<DatBlock> blocks;
  std::istringstream in(dat);
  std::string line, body;
  const auto flush = [&] {
    if (!blocks.empty()) blocks.back().rows = data_rows(body);
    body.clear();
  };
  while (std::getline(in, line)) {
    if (line.rfind("# index ", 0) == 0) {
      flush();
      blocks.push_back({line.substr(line.find(": ") + 2), {}});
    } else {
      body += line + "\n";
    }
  }
  flush();
  return blocks;
}

DatBlock block_starting(const std::vector<DatBlock>& blocks, std::string_view heading) {
  for (const DatBlock& b : blocks) {
    if (b.heading.rfind(heading, 0) == 0) return b;
  }
  throw std::runtime_error("no block '" + std::string(heading) + "'");
}

double num(const std::string& s) { return std::strtod(s.c_str(), nullptr); }

const std::string kSourceDir = DSX_SOURCE_DIR;

TEST(FigureRoofline, RidgeIsPeakOverBandwidthOfTheCatalogEntry) {
  const figure_fixture::Fixture f = figure_fixture::matmul_study(kSourceDir);
  const FigureSource src = build_figure(figure_fixture::roofline_decl(), f.study, f.results, f.pareto);
  const auto blocks = dat_blocks(src.data);
  const DatBlock ridges = block_starting(blocks, "ridge points");
  ASSERT_EQ(ridges.rows.size(), 2u);  // A100 and H100, fp16 (the rows kept)
  for (const auto& row : ridges.rows) {
    const HardwareSpec* h = f.study.catalog.find_hardware(row[2]);
    ASSERT_NE(h, nullptr) << row[2];
    EXPECT_EQ(row[3], "fp16");
    const double peak = h->peak(Precision::fp16), bandwidth = h->memory_bandwidth_bytes_per_s;
    EXPECT_DOUBLE_EQ(num(row[0]), peak / bandwidth) << row[2];
    EXPECT_DOUBLE_EQ(num(row[1]), peak);
    // The label on the figure: 312 TFLOP/s / 2.039 TB/s = 153 FLOP/B; 989 / 3.35 = 295 FLOP/B.
    const std::string label = row[2] == "a100_80gb_sxm" ? "ridge 153 FLOP/B" : "ridge 295 FLOP/B";
    EXPECT_EQ(row[4], label);
    EXPECT_NE(src.script.find("\"" + label + "\" at first "), std::string::npos) << src.script;
    // The roof: intensity x bandwidth below the ridge, the peak from it on.
    const DatBlock roof = block_starting(blocks, "roof " + row[2] + " fp16");
    ASSERT_EQ(roof.rows.size(), 3u);
    EXPECT_DOUBLE_EQ(num(roof.rows[0][1]), num(roof.rows[0][0]) * bandwidth);
    EXPECT_DOUBLE_EQ(num(roof.rows[1][0]), peak / bandwidth);
    EXPECT_DOUBLE_EQ(num(roof.rows[1][1]), peak);
    EXPECT_DOUBLE_EQ(num(roof.rows[2][1]), peak);
  }
  // The points: every feasible fp16 row, at its metrics, one block per hardware (headed by its
  // catalog name, as the key shows it).
  std::size_t points = 0;
  for (const DatBlock& b : blocks) {
    if (b.heading != f.study.catalog.find_hardware("a100_80gb_sxm")->name &&
        b.heading != f.study.catalog.find_hardware("h100_sxm")->name) {
      continue;
    }
    for (const auto& row : b.rows) {
      const std::size_t r = std::stoul(row[2]);
      EXPECT_EQ(f.results.label(r, 1), "fp16");
      EXPECT_EQ(num(row[0]), f.results.metric(r, figure_fixture::SquareMatmulSolver::intensity_flop_per_byte));
      EXPECT_EQ(num(row[1]), f.results.metric(r, figure_fixture::SquareMatmulSolver::achieved_flops_per_s));
      ++points;
    }
  }
  EXPECT_EQ(points, 12u);
  EXPECT_EQ(src.points, 12u);
  EXPECT_NE(src.script.find("set logscale x 10"), std::string::npos);
  EXPECT_NE(src.script.find("set logscale y 10"), std::string::npos);
  EXPECT_NE(src.description.find("a100_80gb_sxm fp16 (312 TFLOP/s, 2.04 TB/s, ridge 153 FLOP/B)"), std::string::npos)
      << src.description;
}

TEST(FigureRoofline, EtaScalesTheComputeRoofAndMissingPeaksAreNamed) {
  const figure_fixture::Fixture f = figure_fixture::matmul_study(kSourceDir);
  FigureDecl d = figure_fixture::roofline_decl();
  d.eta = 0.5;
  d.roofs = {"a100_80gb_sxm", "h100_sxm"};
  d.precisions = {"fp8"};
  const FigureSource src = build_figure(d, f.study, f.results, f.pareto);
  const DatBlock ridges = block_starting(dat_blocks(src.data), "ridge points");
  ASSERT_EQ(ridges.rows.size(), 1u);  // the A100 has no fp8 peak
  const HardwareSpec* h100 = f.study.catalog.find_hardware("h100_sxm");
  EXPECT_DOUBLE_EQ(num(ridges.rows[0][0]), 0.5 * h100->peak(Precision::fp8) / h100->memory_bandwidth_bytes_per_s);
  EXPECT_DOUBLE_EQ(num(ridges.rows[0][1]), 0.5 * h100->peak(Precision::fp8));
  EXPECT_NE(src.description.find("No roof for a100_80gb_sxm fp8"), std::string::npos) << src.description;
  EXPECT_NE(src.description.find("min(0.5 x peak, intensity x bandwidth)"), std::string::npos) << src.description;
}

TEST(FigureHeatmap, OneCellPerDesignPointWithReadableNumbers) {
  const figure_fixture::Fixture f = figure_fixture::matmul_study(kSourceDir);
  const FigureSource src = build_figure(figure_fixture::heatmap_decl(), f.study, f.results, f.pareto);
  const auto blocks = dat_blocks(src.data);
  ASSERT_EQ(blocks.size(), 2u);
  // 6 sizes x fp16, fp32 with values; fp8 has no peak on the A100: 6 hatched cells.
  ASSERT_EQ(blocks[0].rows.size(), 12u);
  ASSERT_EQ(blocks[1].rows.size(), 6u);
  std::set<std::pair<std::string, std::string>> cells;
  for (const auto& row : blocks[0].rows) {
    const std::size_t r = std::stoul(row[5]);
    EXPECT_EQ(f.results.label(r, 0), "a100_80gb_sxm");
    EXPECT_EQ(num(row[2]), f.results.metric(r, figure_fixture::SquareMatmulSolver::latency_s));
    // Columns follow the n axis, rows the precision axis.
    EXPECT_EQ(f.study.axes[2].values[std::stoul(row[0])].label, f.results.label(r, 2));
    EXPECT_EQ(f.study.axes[1].values[std::stoul(row[1])].label, f.results.label(r, 1));
    cells.insert({row[0], row[1]});
  }
  EXPECT_EQ(cells.size(), 12u) << "one design point per cell";
  for (const auto& row : blocks[1].rows) EXPECT_EQ(row[2], "infeasible");
  // Latencies span more than three decades, so each cell carries its own unit; the darkest cell
  // (the shortest latency) has white text, the lightest (the longest) black.
  const auto& shortest = blocks[0].rows.front();  // n = 256, fp16
  EXPECT_EQ(shortest[3], "193 ns");
  EXPECT_EQ(shortest[4], "16777215");
  const auto longest = std::max_element(blocks[0].rows.begin(), blocks[0].rows.end(),
                                        [](const auto& a, const auto& b) { return num(a[2]) < num(b[2]); });
  EXPECT_EQ((*longest)[4], "0");
  EXPECT_NE(src.script.find("set logscale cb 10"), std::string::npos);
  EXPECT_NE(src.script.find("set yrange [2.5:-0.5]"), std::string::npos) << "first row on top";
  EXPECT_NE(src.script.find("set palette defined (0 \"#440154\""), std::string::npos);
  EXPECT_NE(src.description.find("Hatched gray: 6 cells"), std::string::npos) << src.description;
}

TEST(FigureHeatmap, CellsWithSeveralDesignPointsAreRefused) {
  const figure_fixture::Fixture f = figure_fixture::matmul_study(kSourceDir);
  FigureDecl d = figure_fixture::heatmap_decl();
  d.where.clear();  // both hardware in one cell
  EXPECT_THROW(build_figure(d, f.study, f.results, f.pareto), std::invalid_argument);
}

// A heatmap names its columns and rows as the other figures name values: chips by their catalog
// short names, never by their ids.
TEST(FigureHeatmap, ColumnsAndRowsNameChipsByTheirNames) {
  const figure_fixture::Fixture f = figure_fixture::matmul_study(kSourceDir);
  FigureDecl d = figure_fixture::heatmap_decl();
  d.x = "hardware";
  d.where = {{"n", "4096"}};
  const FigureSource src = build_figure(d, f.study, f.results, f.pareto);
  const std::size_t xtics = src.script.find("set xtics (");
  ASSERT_NE(xtics, std::string::npos) << src.script;
  const std::string tics = src.script.substr(xtics, src.script.find('\n', xtics) - xtics);
  for (const char* id : {"a100_80gb_sxm", "h100_sxm"}) {
    const std::string name = figure_value(f.study, "hardware", id);
    EXPECT_NE(name, id);
    EXPECT_NE(tics.find("\"" + name + "\" "), std::string::npos) << tics;
    EXPECT_EQ(tics.find(id), std::string::npos) << tics;
  }
  EXPECT_NE(src.script.find("set ytics (\"fp16\" 0, \"fp32\" 1, \"fp8\" 2)"), std::string::npos) << src.script;
}

TEST(FigureCrossover, MarksWhereComputeTimeOvertakesMemoryTime) {
  const figure_fixture::Fixture f = figure_fixture::matmul_study(kSourceDir);
  const FigureSource src = build_figure(figure_fixture::crossover_decl(), f.study, f.results, f.pareto);
  const DatBlock crossings = block_starting(dat_blocks(src.data), "crossings");
  ASSERT_EQ(crossings.rows.size(), 1u);
  // 2 N^3 / (eta x peak) = 3 N^2 x 2 B / bandwidth at N = 3 x eta x peak / bandwidth; both times are
  // power laws of N, straight on log-log axes, so interpolating in log space finds it exactly.
  const HardwareSpec* a100 = f.study.catalog.find_hardware("a100_80gb_sxm");
  const double n = 3 * 0.7 * a100->peak(Precision::fp16) / a100->memory_bandwidth_bytes_per_s;
  EXPECT_NEAR(num(crossings.rows[0][0]), n, 1e-9 * n);
  EXPECT_NEAR(num(crossings.rows[0][1]), 6 * n * n / a100->memory_bandwidth_bytes_per_s, 1e-9 * n * n * 3e-12);
  EXPECT_EQ(crossings.rows[0][2], "compute");
  EXPECT_EQ(crossings.rows[0][3], "memory");
  EXPECT_NE(src.script.find("set arrow 1 from 321.3"), std::string::npos) << src.script;
  EXPECT_NE(src.script.find("\"n = 321\""), std::string::npos);
  EXPECT_NE(src.description.find("compute and memory at n = 321."), std::string::npos) << src.description;
}

TEST(FigureCrossover, LinearInterpolationBetweenNeighbouringPoints) {
  Small s = small_study();
  // throughput: eager 1,000 / 2,000 / 3,000 at batch 1 / 8 / 64; compiled 1,500 at batch 1 and 8.
  s.results.metrics[3 * s.results.metric_names.size() + InferenceSolver::throughput_samples_per_s] = 1500;
  s.results.metrics[4 * s.results.metric_names.size() + InferenceSolver::throughput_samples_per_s] = 1500;
  FigureDecl d = line_decl();
  d.crossover = true;
  d.log_x = false;
  auto crossing = [&](const FigureDecl& decl) {
    const DatBlock c = block_starting(dat_blocks(build_figure(decl, s.study, s.results, s.pareto).data), "crossings");
    EXPECT_EQ(c.rows.size(), 1u);
    return num(c.rows.at(0)[0]);
  };
  // eager - compiled: -500 at batch 1, +500 at batch 8: halfway.
  EXPECT_DOUBLE_EQ(crossing(d), 4.5);
  d.log_x = true;  // halfway along the drawn segment: sqrt(1 x 8)
  EXPECT_DOUBLE_EQ(crossing(d), std::sqrt(8.0));
  const FigureSource none = build_figure(line_decl(), small_study().study, small_study().results, s.pareto);
  FigureDecl untouched = line_decl();
  untouched.crossover = true;
  const Small plain = small_study();
  EXPECT_NE(build_figure(untouched, plain.study, plain.results, plain.pareto)
                .description.find("No two lines cross within the range drawn."),
            std::string::npos);
  EXPECT_EQ(none.data.find("crossings"), std::string::npos);
}

TEST(FigureBars, ByteStacksUseTheAxisUnitForTotals) {
  const figure_fixture::Fixture f = figure_fixture::matmul_study(kSourceDir);
  const FigureSource src = build_figure(figure_fixture::memory_bars_decl(), f.study, f.results, f.pareto);
  // 3 x 8192^2 x 2 B = 384 MiB exactly: a binary axis, and totals in it.
  EXPECT_NE(src.script.find("set xlabel \"operand + result (MiB)\""), std::string::npos) << src.script;
  EXPECT_NE(src.script.find("\"384 MiB\""), std::string::npos);
  EXPECT_NE(src.script.find("\"0.375 MiB\""), std::string::npos);
  EXPECT_NE(src.script.find("using (($2+$3)*9.5367431640625e-07)"), std::string::npos) << src.script;
}

// The PDF's page size: /MediaBox [ 0 0 W H ] in points, which cairo rounds down.
std::pair<double, double> media_box(const std::string& pdf) {
  const auto at = pdf.find("/MediaBox [");
  if (at == std::string::npos) throw std::runtime_error("no /MediaBox");
  std::istringstream in(pdf.substr(at + 11, 80));
  double x0 = 0, y0 = 0, w = 0, h = 0;
  in >> x0 >> y0 >> w >> h;
  return {w, h};
}

// Every font the PDF uses is embedded: each FontDescriptor object names a FontFile, FontFile2 or
// FontFile3 stream.
void expect_fonts_embedded(const std::string& pdf, const std::string& what) {
  std::size_t descriptors = 0;
  for (std::size_t p = pdf.find("/Type /FontDescriptor"); p != std::string::npos;
       p = pdf.find("/Type /FontDescriptor", p + 1)) {
    ++descriptors;
    const std::string object = pdf.substr(p, pdf.find(">>", p) - p);
    EXPECT_NE(object.find("/FontFile"), std::string::npos) << what << ": a font is not embedded:\n" << object;
  }
  EXPECT_GE(descriptors, 1u) << what;
}

TEST(FigurePrint, EveryKindIsByteIdenticalSizedForThePageAndEmbedsItsFonts) {
  figure_fixture::Fixture f = figure_fixture::matmul_study(kSourceDir);
  FigureDecl single_roof = figure_fixture::roofline_decl();
  single_roof.name = "roofline_single";
  single_roof.width = FigureWidth::single_column;
  f.study.figures = {figure_fixture::roofline_decl(), figure_fixture::heatmap_decl(), figure_fixture::crossover_decl(),
                     figure_fixture::memory_bars_decl(), single_roof};
  TempDir a("print_a"), b("print_b");
  const auto fa = render_figures(ReportInputs{f.study, f.results, f.pareto, RunInfo{}, a.path(), ""});
  const auto fb = render_figures(ReportInputs{f.study, f.results, f.pareto, RunInfo{}, b.path(), ""});
  ASSERT_EQ(fa.size(), 5u);
  for (std::size_t i = 0; i < fa.size(); ++i) {
    for (const auto& [pa, pb] : {std::pair{fa[i].svg_path, fb[i].svg_path}, {fa[i].pdf_path, fb[i].pdf_path},
                                 {fa[i].png_path, fb[i].png_path}, {fa[i].gp_path, fb[i].gp_path},
                                 {fa[i].dat_path, fb[i].dat_path}}) {
      EXPECT_TRUE(read_file(pa) == read_file(pb)) << pa << " and " << pb << " differ";
    }
    const std::string pdf = read_file(fa[i].pdf_path);
    expect_fonts_embedded(pdf, fa[i].pdf_path);
    // 17 cm = 481.9 pt for the full text width, 8.5 cm = 240.9 pt for one column.
    const bool single = f.study.figures[i].width == FigureWidth::single_column;
    EXPECT_EQ(media_box(pdf).first, single ? 240 : 481) << fa[i].name;
    // Text is 9 pt in the PDF: cairo's 96 dpi text times fontscale 0.75.
    EXPECT_NE(read_file(fa[i].gp_path).find("font \"DejaVu Sans,9\" fontscale 0.75"), std::string::npos);
  }
  // pdffonts (poppler-utils), where installed, agrees: every font row says "yes" under emb.
  if (std::system("command -v pdffonts > /dev/null 2>&1") == 0) {
    for (const RenderedFigure& fig : fa) {
      const std::string out_file = a.path() + "/pdffonts.txt";
      ASSERT_EQ(std::system(("pdffonts '" + fig.pdf_path + "' > '" + out_file + "'").c_str()), 0);
      std::istringstream lines(read_file(out_file));
      std::string line;
      std::size_t fonts = 0;
      for (int n = 0; std::getline(lines, line); ++n) {
        if (n < 2 || line.empty()) continue;  // header and rule
        ++fonts;
        EXPECT_NE(line.find(" yes yes "), std::string::npos) << fig.pdf_path << ": " << line;
      }
      EXPECT_GE(fonts, 1u) << fig.pdf_path;
    }
  }
}


// ---- figure text and ranges: x_label, y_label, legend_title, series_labels, x_range, y_range ----

FigureRange range_of(std::optional<double> lo, std::optional<double> hi) {
  FigureRange r;
  r.set = true;
  r.min.value = lo;
  r.max.value = hi;
  return r;
}

bool has(const std::string& script, const std::string& text) { return script.find(text) != std::string::npos; }

TEST(FigureText, AxisLabelsReplaceTheWordsAndKeepTheAxisUnit) {
  const Small s = small_study();
  FigureDecl d = scatter_decl();
  d.x_label = "Time per batch";
  d.y_label = "Energy per sample";
  const FigureSource src = build_figure(d, s.study, s.results, s.pareto);
  EXPECT_TRUE(has(src.script, "set xlabel \"Time per batch (\u00b5s)\" noenhanced\n")) << src.script;
  EXPECT_TRUE(has(src.script, "set ylabel \"Energy per sample (\u00b5J)\" noenhanced\n")) << src.script;
}

TEST(FigureText, ALabelEndingInAUnitSetsTheAxisUnit) {
  const Small s = small_study();
  FigureDecl d = scatter_decl();
  d.x_label = "Latency (ms)";
  FigureSource src = build_figure(d, s.study, s.results, s.pareto);
  EXPECT_TRUE(has(src.script, "set xlabel \"Latency (ms)\" noenhanced\n")) << src.script;
  EXPECT_TRUE(has(src.script, "using ($1*1e3):($2*1e6)")) << src.script;
  // A count has no unit to check: the text is shown as written, the values unscaled.
  d = line_decl();
  d.x_label = "Batch (sequences)";
  d.y_label = "Throughput (samples/s)";
  src = build_figure(d, s.study, s.results, s.pareto);
  EXPECT_TRUE(has(src.script, "set xlabel \"Batch (sequences)\" noenhanced\n")) << src.script;
  EXPECT_TRUE(has(src.script, "set ylabel \"Throughput (samples/s)\" noenhanced\n")) << src.script;
  EXPECT_TRUE(has(src.script, "using 1:2 with linespoints")) << src.script;
}

TEST(FigureText, LegendTitleReplacesTheGeneratedOne) {
  const Small s = small_study();
  FigureDecl d = scatter_decl();
  EXPECT_TRUE(has(build_figure(d, s.study, s.results, s.pareto).script, "set key title \"execution\" noenhanced\n"));
  d.legend_title = "Compiler";
  FigureSource src = build_figure(d, s.study, s.results, s.pareto);
  EXPECT_TRUE(has(src.script, "set key title \"Compiler\" noenhanced\n")) << src.script;
  EXPECT_FALSE(has(src.script, "set key title \"execution\"")) << src.script;
  // A one-column figure sets its key below the plot without a title, unless the study gives one;
  // there the title starts with an empty line, clear of the x axis title.
  d.width = FigureWidth::single_column;
  src = build_figure(d, s.study, s.results, s.pareto);
  const std::size_t notitle = src.script.find("set key notitle\n");
  ASSERT_NE(notitle, std::string::npos) << src.script;
  EXPECT_NE(src.script.find("set key title \"\\nCompiler\" noenhanced\n", notitle), std::string::npos) << src.script;
  // Bars: the key of the group's colours, always below the plot.
  FigureDecl b = bars_decl();
  b.y = {"latency_s"};
  b.legend_title = "Compiler";
  EXPECT_TRUE(has(build_figure(b, s.study, s.results, s.pareto).script, "set key title \"\\nCompiler\" noenhanced\n"));
}

TEST(FigureText, SeriesLabelsNameTheValuesOfTheGroup) {
  const Small s = small_study();
  FigureDecl d = scatter_decl();
  d.series_labels = {{"eager", "Eager PyTorch"}};
  FigureSource src = build_figure(d, s.study, s.results, s.pareto);
  EXPECT_TRUE(has(src.script, "with points lt 1 title \"Eager PyTorch\" noenhanced")) << src.script;
  EXPECT_TRUE(has(src.script, "with points lt 2 title \"compiled\" noenhanced")) << src.script;  // not listed
  EXPECT_TRUE(has(src.data, "# index 0: Eager PyTorch (y = energy_per_sample_j)")) << src.data;
  // Bars coloured by group: the key says the text instead of "execution = eager".
  FigureDecl b = bars_decl();
  b.y = {"latency_s"};
  b.series_labels = {{"eager", "Eager PyTorch"}};
  src = build_figure(b, s.study, s.results, s.pareto);
  EXPECT_TRUE(has(src.script, "title \"Eager PyTorch\" noenhanced")) << src.script;
  EXPECT_TRUE(has(src.script, "title \"execution = compiled\" noenhanced")) << src.script;
  // The bars of one batch stand together, labelled once by the batch: the key tells the group.
  EXPECT_TRUE(has(src.script, "set ytics (\"1\" 0.5, \"8\" 3, \"64\" 5) noenhanced")) << src.script;
  // Roofline: the series and its roof keep one colour (the H100 is the second series: #E69F00).
  const figure_fixture::Fixture f = figure_fixture::matmul_study(kSourceDir);
  FigureDecl r = figure_fixture::roofline_decl();
  r.series_labels = {{"h100_sxm", "H100 SXM"}};
  src = build_figure(r, f.study, f.results, f.pareto);
  EXPECT_TRUE(has(src.script, "with points lt 2 title \"H100 SXM\" noenhanced")) << src.script;
  EXPECT_TRUE(has(src.script, fmt::format("set linetype {} lc rgb \"#E69F00\" lw 2", figure_parts::kRoofLinetypeBase + 1)))
      << src.script;
}

TEST(FigureText, RangesAreInTheAxisUnitAndAnAutoEndStaysAsDrawn) {
  const Small s = small_study();
  FigureDecl d = scatter_decl();
  d.x_range = range_of(std::nullopt, 40e-6);
  d.y_range = range_of(0, 1e-3);
  FigureSource src = build_figure(d, s.study, s.results, s.pareto);
  EXPECT_TRUE(has(src.script, "set xrange [:" + format_exact(40e-6 * 1e6) + "]  # the study's x_range\n"))
      << src.script;
  EXPECT_TRUE(has(src.script, "set yrange [0:1000]  # the study's y_range\n")) << src.script;
  // The study's range comes after dsx's own, so it wins.
  EXPECT_GT(src.script.find("# the study's y_range"), src.script.find("set yrange [0:*]")) << src.script;
  // Bars: y_range is the value axis, drawn horizontally.
  FigureDecl b = bars_decl();
  b.y_range = range_of(0, 1e-4);
  src = build_figure(b, s.study, s.results, s.pareto);
  EXPECT_TRUE(has(src.script, "set xrange [0:" + format_exact(1e-4 * 1e6) + "]  # the study's y_range\n"))
      << src.script;
  // Roofline: the roofs are drawn across the range.
  const figure_fixture::Fixture f = figure_fixture::matmul_study(kSourceDir);
  FigureDecl r = figure_fixture::roofline_decl();
  r.x_range = range_of(1, 1e5);
  src = build_figure(r, f.study, f.results, f.pareto);
  EXPECT_TRUE(has(src.script, "set xrange [1:100000]\n")) << src.script;
  const DatBlock roof = block_starting(dat_blocks(src.data), "roof h100_sxm fp16");
  EXPECT_EQ(num(roof.rows.front()[0]), 1.0);
  EXPECT_EQ(num(roof.rows.back()[0]), 1e5);
}

TEST(FigureText, LongTimesReadInDaysOnTheAxisAndTheBarTotals) {
  Small s = small_study();
  const std::size_t nm = s.results.metric_names.size();
  for (std::size_t r = 0; r < s.results.rows(); ++r) {
    s.results.metrics[r * nm + InferenceSolver::latency_s] = 1e6 * static_cast<double>(r + 1);  // up to 69 days
  }
  FigureDecl d = line_decl();
  d.y = {"latency_s"};
  d.log_x = false;
  FigureSource src = build_figure(d, s.study, s.results, s.pareto);
  EXPECT_TRUE(has(src.script, "set ylabel \"latency (days)\" noenhanced\n")) << src.script;
  EXPECT_TRUE(has(src.script, "using 1:($2/86400)")) << src.script;
  FigureDecl b = bars_decl();
  b.y = {"latency_s"};
  src = build_figure(b, s.study, s.results, s.pareto);
  EXPECT_TRUE(has(src.script, "set xlabel \"latency (days)\" noenhanced\n")) << src.script;
  EXPECT_TRUE(has(src.script, "\"57.9 days\" at first")) << src.script;  // 5e6 s
  // The study can ask for hours instead.
  b.y_label = "Latency (h)";
  src = build_figure(b, s.study, s.results, s.pareto);
  EXPECT_TRUE(has(src.script, "set xlabel \"Latency (h)\" noenhanced\n")) << src.script;
  EXPECT_TRUE(has(src.script, "\"1,390 h\" at first")) << src.script;
}

TEST(FigureText, HeatmapLabelsReplaceTheParameterNames) {
  const figure_fixture::Fixture f = figure_fixture::matmul_study(kSourceDir);
  FigureDecl d = figure_fixture::heatmap_decl();
  d.x_label = "Matrix size N";
  d.y_label = "Element type";
  const FigureSource src = build_figure(d, f.study, f.results, f.pareto);
  EXPECT_TRUE(has(src.script, "set xlabel \"Matrix size N\" noenhanced\n")) << src.script;
  EXPECT_TRUE(has(src.script, "set label 1 \"Element type\" at graph 0, graph 1")) << src.script;
}

}  // namespace
}  // namespace dsx
