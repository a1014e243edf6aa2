// An analysis figure (a break-even or sensitivity figure, output/analysis_figures.hpp) that gnuplot
// fails on is left out of the report as a study figure is: the report is written with a note in
// the figure's place (gnuplot's message, what to do, the script and data), a line under the
// question says the report is incomplete, stderr names the script, the other figures are drawn,
// and dsx exits 5. gnuplot is made to fail by a wrapper named in DSX_GNUPLOT that rejects the
// analysis figures' scripts and runs the real gnuplot on every other.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "tests/cli/shell.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST(AnalysisFigureFailure, TheReportIsWrittenWithANoteInTheFiguresPlace) {
  const CommandResult which = run_shell("command -v gnuplot");
  ASSERT_EQ(which.exit_code, 0) << "gnuplot is not installed";
  const std::string real_gnuplot = which.out.substr(0, which.out.find('\n'));

  TempDir tmp("analysis_figure_failure");
  const std::string bin = tmp.path() + "/bin", out = tmp.path() + "/run";
  fs::create_directories(bin);
  write_text(bin + "/gnuplot",
             "#!/bin/sh\n"
             "case \"$2\" in\n"
             "  */tornado_*|*/breakeven_*) echo \"\\\"$2\\\" line 4: simulated failure\" >&2; exit 1;;\n"
             "esac\n"
             "exec '" + real_gnuplot + "' \"$@\"\n");
  ASSERT_EQ(chmod((bin + "/gnuplot").c_str(), 0755), 0);

  const CommandResult run =
      run_shell("DSX_GNUPLOT='" + bin + "/gnuplot' '" + std::string(DSX_BINARY) +
                "' run studies/purchase_sensitivity.yaml --quiet --out '" + out + "'");
  EXPECT_EQ(run.exit_code, 5) << run.out;
  EXPECT_NE(run.out.find("gnuplot failed on "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("tornado_purchase.gp"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("breakeven_dearer_parts_pay_off"), std::string::npos) << run.out;

  const std::string md = read_text(out + "/report.md");
  EXPECT_NE(md.find("\n> **This report is incomplete.** "), std::string::npos) << md;
  EXPECT_LT(md.find("This report is incomplete."), md.find("\n## ")) << "said before the first section";
  const std::size_t note = md.find("(figures/tornado_purchase.gp)");
  ASSERT_NE(note, std::string::npos) << md;
  EXPECT_NE(md.find("simulated failure"), std::string::npos) << md;
  EXPECT_NE(md.find("What to do: "), std::string::npos) << md;
  EXPECT_EQ(md.find("](figures/tornado_purchase.svg)"), std::string::npos);
  EXPECT_EQ(md.find(tmp.path()), std::string::npos) << "the note names files as the reader sees them";
  for (const char* ext : {".svg", ".pdf", ".png"}) {
    EXPECT_FALSE(fs::exists(out + "/figures/tornado_purchase" + ext)) << ext;
  }
  EXPECT_TRUE(fs::exists(out + "/figures/tornado_purchase.gp")) << "the script stays for the reader to fix";
  EXPECT_TRUE(fs::exists(out + "/figures/tornado_purchase.dat"));

  // Every figure gnuplot drew is in the report; the study's own figures are among them.
  std::size_t drawn = 0;
  for (const auto& e : fs::directory_iterator(out + "/figures")) drawn += e.path().extension() == ".svg" ? 1 : 0;
  EXPECT_GE(drawn, 2u);
  EXPECT_TRUE(fs::exists(out + "/figures/throughput_vs_batch.svg"));
  const std::string html = read_text(out + "/report.html");
  EXPECT_EQ(count_of(html, "<svg"), drawn);
  EXPECT_NE(html.find("<blockquote class=\"figure-not-drawn\" role=\"note\">"), std::string::npos);

  // With gnuplot working again, `dsx report` draws them and the note goes.
  const CommandResult report = run_dsx("report '" + out + "'");
  EXPECT_EQ(report.exit_code, 0) << report.out;
  EXPECT_TRUE(fs::exists(out + "/figures/tornado_purchase.svg"));
  EXPECT_EQ(read_text(out + "/report.md").find("This report is incomplete."), std::string::npos);
}

}  // namespace
}  // namespace dsx
