// Figures print what a reader knows a thing by: catalog names ("NVIDIA H100 SXM 80GB") on bar
// categories, on tornado and Sobol axes, beside Morris points and in captions, never the ids the CSV files keep
// (`h100_sxm`, `h100_sxm.price`); and the longer labels that brings leave the title, the axis
// titles and the totals on the canvas, as gnuplot draws them.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "output/figure_parts.hpp"
#include "output/figures.hpp"
#include "output/files.hpp"
#include "output/gnuplot_text.hpp"
#include "tests/output/figure_fixture.hpp"
#include "tests/svg_text_bounds.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

// The figure drawn by gnuplot in `dir`: its SVG text.
std::string rendered_svg(const FigureSource& src, const TempDir& dir) {
  write_file_atomic(dir.path() + "/" + src.name + ".dat", src.data);
  write_file_atomic(dir.path() + "/" + src.name + ".gp", src.script);
  run_gnuplot(dir.path() + "/" + src.name + ".gp", dir.path());
  return read_file(dir.path() + "/" + src.name + ".svg");
}

// Hardware, precision and N all vary: every category reads "<catalog name> / <precision> / <N>",
// longer than one line on the category axis of a full-width figure, with a title of the width a
// title may take.
FigureDecl long_bars_decl() {
  FigureDecl d;
  d.name = "latency_bars";
  d.kind = FigureKind::bars;
  d.title = "Latency of one square matrix multiply on each accelerator, precision and size";
  d.x = "hardware";
  d.y = {"compute_s", "memory_s"};
  d.where = {{"n", "4096"}};
  return d;
}

// On one column the labels are set on several lines.
class FigureNamesWidth : public ::testing::TestWithParam<FigureWidth> {};

TEST_P(FigureNamesWidth, BarsOfSeveralParametersPrintCatalogNames) {
  const figure_fixture::Fixture f = figure_fixture::matmul_study(DSX_SOURCE_DIR);
  FigureDecl d = long_bars_decl();
  d.width = GetParam();
  const FigureSource src = build_figure(d, f.study, f.results, {});
  const std::string one_line = f.study.catalog.find_hardware("a100_80gb_sxm")->name + " / fp16\" ";
  const std::string ytics = src.script.substr(src.script.find("set ytics ("));
  EXPECT_EQ(ytics.find(one_line) != std::string::npos, GetParam() == FigureWidth::double_column) << src.script;
  EXPECT_EQ(ytics.substr(0, ytics.find('\n')).find("\\n") != std::string::npos,
            GetParam() == FigureWidth::single_column)
      << src.script;
  TempDir dir("bar_names");
  const std::string svg = rendered_svg(src, dir);
  for (const char* id : {"a100_80gb_sxm", "h100_sxm"}) {
    const std::string name = f.study.catalog.find_hardware(id)->name;
    ASSERT_FALSE(name.empty());
    // The category labels, their lines read one after the other, carry the name and not the id.
    const std::size_t at = src.script.find("set ytics (");
    ASSERT_NE(at, std::string::npos);
    const std::string_view line(src.script.data() + at, src.script.find('\n', at) - at);
    std::string tics;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const bool break_mark = line[i] == '\\' && i + 1 < line.size() && line[i + 1] == 'n';
      tics += break_mark ? ' ' : line[i];
      if (break_mark) ++i;
    }
    EXPECT_NE(tics.find(name), std::string::npos) << name << "\n" << src.script;
    EXPECT_EQ(tics.find(id), std::string::npos) << id;
    EXPECT_NE(svg.find(name.substr(0, name.find(' ', 7))), std::string::npos) << name;
    EXPECT_EQ(svg.find(id), std::string::npos) << id;
  }
  // Every text inside the canvas, none on another: title, category header, labels, totals, key.
  EXPECT_TRUE(clipped_svg_texts(svg).empty()) << ::testing::PrintToString(clipped_svg_texts(svg));
  EXPECT_TRUE(overlapping_svg_texts(svg).empty()) << ::testing::PrintToString(overlapping_svg_texts(svg));
}

INSTANTIATE_TEST_SUITE_P(Widths, FigureNamesWidth,
                         ::testing::Values(FigureWidth::double_column, FigureWidth::single_column));

// The title is centred on the canvas, not over a plot that long labels push to the right.
TEST(FigureNames, BarTitlesAreCentredOnTheCanvas) {
  const figure_fixture::Fixture f = figure_fixture::matmul_study(DSX_SOURCE_DIR);
  FigureDecl d = long_bars_decl();
  d.title = "Latency of one square matrix multiply";
  const FigureSource src = build_figure(d, f.study, f.results, {});
  TempDir dir("bar_title");
  const std::string svg = rendered_svg(src, dir);
  const std::size_t width_at = svg.find("width=\"") + 7;
  const double width = std::stod(svg.substr(width_at));
  bool found = false;
  for (const SvgTextBox& b : svg_text_boxes(svg)) {
    if (b.text != d.title) continue;
    found = true;
    EXPECT_NEAR((b.x0 + b.x1) / 2, width / 2, 2.0) << b.x0 << ".." << b.x1 << " of " << width;
  }
  EXPECT_TRUE(found) << svg;
}

// A caption's design point and the knee name the hardware by its catalog name.
TEST(FigureNames, DesignPointsInCaptionsReadByName) {
  const figure_fixture::Fixture f = figure_fixture::matmul_study(DSX_SOURCE_DIR);
  const std::string name = f.study.catalog.find_hardware("a100_80gb_sxm")->name;
  const std::string text = design_point_label(f.study, f.results, 0);
  EXPECT_NE(text.find("hardware=" + name), std::string::npos) << text;
  EXPECT_EQ(text.find("a100_80gb_sxm"), std::string::npos) << text;
}

std::string run_dsx(const std::string& args) {
  const std::string command = std::string("cd '") + DSX_SOURCE_DIR + "' && '" + DSX_BINARY + "' " + args + " 2>&1";
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "popen failed";
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) out += buffer;
  const int status = pclose(pipe);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  return out;
}

// Tornado and Sobol figures name a chip's field as the report's tables do ("price of NVIDIA H100
// SXM 80GB") and a parameter by its words and unit ("launch overhead (s)"), with their titles and
// labels on the canvas.
TEST(FigureNames, SensitivityAxesNameTheInputsAsTheReportDoes) {
  TempDir dir("sensitivity_names");
  const std::string study = dir.path() + "/names.yaml";
  std::ofstream(study) << R"(study: sensitivity_names
title: "Sensitivity names"
question: "Which input moves the cost of a sample most?"
solver: inference
axes:
  hardware: [a100_80gb_sxm, h100_sxm]
  batch: [1, 16]
fixed:
  model: resnet50
  precision: fp16
  execution: compiled
  eta: 0.4
  launch_overhead: 10 us
derived:
  - {name: usd_per_sample_usd, expr: "hardware_price_usd / throughput_samples_per_s", unit: USD}
objectives:
  - {metric: usd_per_sample_usd, direction: min}
  - {metric: latency_s, direction: min}
sensitivity:
  - name: drivers
    metric: usd_per_sample_usd
    base: {hardware: h100_sxm, batch: 16}
    inputs: [eta, launch_overhead, h100_sxm.price, h100_sxm.memory_bandwidth]
    morris: {trajectories: 8}
    sobol: {samples: 32, bootstrap: 10}
)";
  run_dsx("run '" + study + "' --quiet --threads 1 --out '" + dir.path() + "/run'");
  const std::string figures = dir.path() + "/run/figures/";
  for (const char* fig : {"tornado_drivers", "sobol_drivers", "morris_drivers"}) {
    const std::string gp = read_file(figures + fig + ".gp");
    const std::string svg = read_file(figures + fig + ".svg");
    EXPECT_NE(gp.find("price of NVIDIA"), std::string::npos) << fig << "\n" << gp;
    EXPECT_EQ(gp.find("\"h100_sxm.price"), std::string::npos) << fig;
    // Parameters by their words (and unit, where no value beside them carries it), never as the
    // study wrote them.
    const std::string unit = std::string(fig) == "tornado_drivers" ? " (10.0 \u00b5s)" : " (s)";
    EXPECT_NE(gp.find("launch overhead" + unit), std::string::npos) << fig << "\n" << gp;
    EXPECT_NE(gp.find("efficiency \u03b7"), std::string::npos) << fig << "\n" << gp;
    EXPECT_EQ(gp.find("launch_overhead"), std::string::npos) << fig;
    EXPECT_EQ(gp.find("\"eta"), std::string::npos) << fig;
    EXPECT_EQ(svg.find("h100_sxm"), std::string::npos) << fig;
    EXPECT_TRUE(clipped_svg_texts(svg).empty()) << fig << ::testing::PrintToString(clipped_svg_texts(svg));
    EXPECT_TRUE(overlapping_svg_texts(svg).empty()) << fig << ::testing::PrintToString(overlapping_svg_texts(svg));
  }
}

}  // namespace
}  // namespace dsx
