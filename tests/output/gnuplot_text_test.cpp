// Text quoted into gnuplot scripts (output/gnuplot_text.hpp): one rule for the study's figures and
// the analysis figures, under which a backquote is drawn, never handed to a shell.
#include "output/gnuplot_text.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "dse/analysis/analysed_run.hpp"
#include "dse/grid.hpp"
#include "dse/study.hpp"
#include "dse/sweep.hpp"
#include "output/analysis_figures.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

TEST(GnuplotText, BackquotesBecomeOctalEscapesAndLinesStayWhole) {
  EXPECT_EQ(gp_string("a`id`b"), "\"a\\140id\\140b\"");
  EXPECT_EQ(gp_string("say \"hi\" \\ there"), "\"say \\\"hi\\\" \\\\ there\"");
  EXPECT_EQ(gp_string("two\nlines\tand\x1b[31m\x7f"), "\"two lines and [31m \"");
  EXPECT_EQ(gp_string(""), "\"\"");
}

const char* kStudy = R"(study: quoting
title: t
question: q
solver: inference
axes:
  hardware: [a100_80gb_sxm, h100_sxm]
  batch: [1, 4, 16, 64]
fixed:
  model: resnet50
  precision: fp16
  execution: compiled
  eta: 0.4
  launch_overhead: 10 us
breakeven:
  - {name: speed, metric: latency_s, along: batch, alternatives: hardware}
sensitivity:
  - name: drivers
    metric: latency_s
    base: {hardware: h100_sxm, batch: 16}
    inputs: [eta, launch_overhead]
)";

// Study text reaches an analysis figure's key titles (the alternatives) and tic labels (the input
// names). With backquotes in both, every figure still draws (render_figure_source refuses a script
// holding a raw backquote), no command runs, and the SVG shows the backquotes as text.
TEST(GnuplotText, AnAnalysisFigureDrawsBackquotesLiterally) {
  const fs::path dir = fs::temp_directory_path() / ("dsx_gnuplot_text_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  Diagnostics d;
  const auto study = load_study_text("t.yaml", kStudy, DSX_SOURCE_DIR "/studies/catalog", d);
  ASSERT_TRUE(study) << d.format();
  const Grid grid(*study);
  SweepBlock block;
  evaluate_block(grid, *study->solver, 0, grid.size(), 1, block);
  ResultTable table = make_result_table(*study);
  append_block(grid, block, table);
  AnalysedRun run = analyse_run(*study, table);
  ASSERT_TRUE(run.breakevens.at(0).analysis);
  ASSERT_TRUE(run.sensitivities.at(0).analysis);
  const fs::path marker = dir / "ran";
  const std::string command = "`touch " + marker.string() + "`";
  run.breakevens[0].analysis->alternatives[0] += " " + command;
  run.sensitivities[0].analysis->inputs[0].name += " " + command;

  std::vector<AnalysisFigure> figures;
  ASSERT_NO_THROW(figures = render_analysis_figures(*study, run, dir.string()));
  EXPECT_FALSE(fs::exists(marker)) << "gnuplot ran a command from an analysis figure";
  std::size_t drawn = 0;
  for (const AnalysisFigure& f : figures) {
    const std::string gp = read_text(f.figure.gp_path);
    EXPECT_NE(gp.find("\\140touch "), std::string::npos) << f.figure.gp_path;
    const std::string svg = read_text(f.figure.svg_path);
    if (f.figure.name.starts_with("breakeven_speed")) {
      EXPECT_NE(svg.find("a100_80gb_sxm " + command), std::string::npos) << f.figure.svg_path;
      ++drawn;
    }
    if (f.figure.name == "tornado_drivers") {
      EXPECT_NE(svg.find("eta " + command), std::string::npos) << f.figure.svg_path;
      ++drawn;
    }
  }
  EXPECT_EQ(drawn, 2u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dsx
