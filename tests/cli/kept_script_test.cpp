// A figure with `keep_script: true` is drawn from the NAME.gp already in the run folder, so hand
// edits survive `dsx report` and `dsx run` (the file is not even rewritten); its NAME.dat still holds the current rows, and the report
// says the figure came from a kept script. Without the key the script is written anew. Toggling the
// key changes no result identity (no sweep). A kept script that would run a command, that reads a
// column or block its data no longer has, or that gnuplot rejects is not drawn, but the report still
// is: a note in the figure's place says why and what to do, the error goes to stderr with the file,
// the other figures are drawn, and dsx exits 5.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/cli/shell.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

// The script with its `set title ...` line replaced by one of `title`.
std::string retitled(const std::string& script, const std::string& title) {
  const std::size_t at = script.find("\nset title ");
  if (at == std::string::npos) throw std::runtime_error("no title line in\n" + script);
  const std::size_t end = script.find('\n', at + 1);
  return script.substr(0, at) + "\nset title \"" + title + "\" noenhanced" + script.substr(end);
}

const std::string kQuickstart = read_text(fs::path(DSX_SOURCE_DIR) / "studies/quickstart.yaml");
const std::string kWaterfall = "  - name: waterfall\n    kind: bars\n";
const std::string kKeptWaterfall = kWaterfall + "    keep_script: true\n";

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

class KeptScript : public ::testing::Test {
 protected:
  void SetUp() override {
    write_text(study_, replaced(kQuickstart, kWaterfall, kKeptWaterfall));
    const CommandResult run = run_dsx("run '" + study_ + "' --quiet --out '" + out_ + "'");
    ASSERT_EQ(run.exit_code, 0) << run.out;
  }
  std::string figure(const std::string& file) const { return out_ + "/figures/" + file; }

  TempDir tmp_{"kept_script"};
  const std::string study_ = tmp_.path() + "/quickstart.yaml";
  const std::string out_ = tmp_.path() + "/run";
};

TEST_F(KeptScript, HandEditsSurviveAReportAndOnlyWhereAsked) {
  const std::string dat = read_text(figure("waterfall.dat"));
  ASSERT_FALSE(dat.empty());
  EXPECT_EQ(read_text(out_ + "/report.md").find("kept script"), std::string::npos);
  const std::string other_script = read_text(figure("utilization_vs_launch.gp"));
  write_text(figure("waterfall.gp"), retitled(read_text(figure("waterfall.gp")), "Edited by hand"));
  write_text(figure("utilization_vs_launch.gp"), retitled(other_script, "Also edited by hand"));
  write_text(figure("waterfall.dat"), "# stale\n");
  // A kept script is left as it is, not written again.
  const auto edited_at = fs::last_write_time(figure("waterfall.gp")) - std::chrono::hours(24);
  fs::last_write_time(figure("waterfall.gp"), edited_at);

  const CommandResult report = run_dsx("report '" + out_ + "'");
  ASSERT_EQ(report.exit_code, 0) << report.out;
  EXPECT_NE(read_text(figure("waterfall.gp")).find("set title \"Edited by hand\""), std::string::npos);
  EXPECT_EQ(fs::last_write_time(figure("waterfall.gp")), edited_at);
  EXPECT_NE(read_text(figure("waterfall.svg")).find("Edited by hand"), std::string::npos);
  EXPECT_EQ(read_text(figure("waterfall.dat")), dat);
  EXPECT_NE(read_text(out_ + "/report.md").find("Drawn from the kept script waterfall.gp"), std::string::npos);
  // The figure without the key is drawn from a script written anew.
  EXPECT_EQ(read_text(figure("utilization_vs_launch.gp")), other_script);
  EXPECT_EQ(read_text(figure("utilization_vs_launch.svg")).find("Also edited by hand"), std::string::npos);
}

TEST_F(KeptScript, TheKeyIsNoPartOfTheResultIdentity) {
  write_text(figure("waterfall.gp"), retitled(read_text(figure("waterfall.gp")), "Edited by hand"));
  write_text(study_, kQuickstart);
  CommandResult again = run_dsx("run '" + study_ + "' --out '" + out_ + "'");
  ASSERT_EQ(again.exit_code, 0) << again.out;
  EXPECT_NE(again.out.find("swept 0 in"), std::string::npos) << again.out;
  EXPECT_EQ(read_text(figure("waterfall.gp")).find("Edited by hand"), std::string::npos);
  EXPECT_EQ(read_text(figure("waterfall.svg")).find("Edited by hand"), std::string::npos);

  // Back on: the folder's script (generated again above) is kept from the next render on.
  write_text(figure("waterfall.gp"), retitled(read_text(figure("waterfall.gp")), "Edited again"));
  write_text(study_, replaced(kQuickstart, kWaterfall, kKeptWaterfall));
  again = run_dsx("run '" + study_ + "' --out '" + out_ + "'");
  ASSERT_EQ(again.exit_code, 0) << again.out;
  EXPECT_NE(again.out.find("swept 0 in"), std::string::npos) << again.out;
  EXPECT_NE(read_text(figure("waterfall.svg")).find("Edited again"), std::string::npos);
}

// The report of a run whose figure `name` was not drawn: written, with the note in its place
// (saying `why`), the other figures drawn, the figure's old pictures gone.
void expect_report_without(const std::string& run, const std::string& name, const std::string& why) {
  const std::string md = read_text(run + "/report.md");
  EXPECT_NE(md.find("\n> **This report is incomplete.** Figure "), std::string::npos) << md;
  EXPECT_LT(md.find("This report is incomplete."), md.find("\n## ")) << "said before the first section";
  const std::size_t note = md.find("was not drawn.** Why:");
  ASSERT_NE(note, std::string::npos) << md;
  const std::size_t next = md.find("\n### ", note);
  const std::string text = md.substr(note, next - note);
  EXPECT_NE(text.find(why), std::string::npos) << text;
  EXPECT_NE(text.find("What to do: "), std::string::npos) << text;
  EXPECT_NE(text.find("(figures/" + name + ".gp)"), std::string::npos) << text;
  EXPECT_EQ(text.find(run), std::string::npos) << "the note names files as the reader sees them: " << text;
  EXPECT_EQ(md.find("](figures/" + name + ".svg)"), std::string::npos);
  const std::string html = read_text(run + "/report.html");
  EXPECT_NE(html.find("<blockquote class=\"figure-not-drawn\" role=\"note\">"), std::string::npos);
  EXPECT_NE(html.find("blockquote.figure-not-drawn {"), std::string::npos) << "the note's style is missing";
  for (const char* ext : {".svg", ".pdf", ".png"}) EXPECT_FALSE(fs::exists(run + "/figures/" + name + ext)) << ext;
  std::size_t drawn = 0;
  for (const auto& e : fs::directory_iterator(run + "/figures")) drawn += e.path().extension() == ".svg" ? 1 : 0;
  EXPECT_GE(drawn, 3u) << "the other figures are drawn";
  EXPECT_EQ(count_of(html, "<svg"), drawn) << "every drawn figure is in report.html";
}

TEST_F(KeptScript, AKeptScriptThatWouldRunACommandIsRefusedAndTheReportWrittenWithoutIt) {
  const std::string marker = tmp_.path() + "/ran";
  const std::string script = read_text(figure("waterfall.gp"));
  write_text(figure("waterfall.gp"), script + "x = system(\"touch '" + marker + "'\")\n");
  fs::remove(out_ + "/report.md");
  const CommandResult report = run_dsx("report '" + out_ + "'");
  EXPECT_EQ(report.exit_code, 5) << report.out;
  std::string where = ":";
  where += std::to_string(std::count(script.begin(), script.end(), '\n') + 1);
  where += ":5: ";
  const std::string why = "'system' runs a shell command; figure 'waterfall' is not drawn";
  EXPECT_NE(report.out.find("dsx: error: " + figure("waterfall.gp") + where + why), std::string::npos) << report.out;
  EXPECT_NE(report.out.find("the report is written without 1 figure"), std::string::npos) << report.out;
  EXPECT_FALSE(fs::exists(marker));
  expect_report_without(out_, "waterfall", "figures/waterfall.gp" + where + why);
  EXPECT_NE(read_text(out_ + "/report.md").find("does more than draw"), std::string::npos);

  // A link in place of the script is not followed.
  fs::remove(figure("waterfall.gp"));
  fs::create_symlink(tmp_.path() + "/quickstart.yaml", figure("waterfall.gp"));
  const CommandResult linked = run_dsx("report '" + out_ + "'");
  EXPECT_EQ(linked.exit_code, 5) << linked.out;
  EXPECT_NE(linked.out.find("is not a plain file"), std::string::npos) << linked.out;
  EXPECT_TRUE(fs::is_symlink(figure("waterfall.gp")));
  expect_report_without(out_, "waterfall", "is not a plain file");

  // Put right, the figure is back and the run is clean.
  fs::remove(figure("waterfall.gp"));
  const CommandResult fixed = run_dsx("report '" + out_ + "'");
  EXPECT_EQ(fixed.exit_code, 0) << fixed.out;
  EXPECT_TRUE(fs::exists(figure("waterfall.svg")));
  EXPECT_EQ(read_text(out_ + "/report.md").find("was not drawn"), std::string::npos);
  EXPECT_EQ(read_text(out_ + "/report.md").find("This report is incomplete"), std::string::npos);
}

TEST_F(KeptScript, GnuplotFailingOnAKeptScriptLeavesANoteWithItsMessage) {
  write_text(figure("waterfall.gp"), read_text(figure("waterfall.gp")) + "plot \"waterfall.dat\" using 1:2 with nonsense\n");
  const CommandResult report = run_dsx("report '" + out_ + "'");
  EXPECT_EQ(report.exit_code, 5) << report.out;
  EXPECT_NE(report.out.find("dsx: error: gnuplot failed on "), std::string::npos) << report.out;
  EXPECT_NE(report.out.find("waterfall.gp"), std::string::npos) << report.out;
  expect_report_without(out_, "waterfall", "gnuplot failed on figures/waterfall.gp (exit status 1)");
  const std::string md = read_text(out_ + "/report.md");
  EXPECT_NE(md.find(">     \"figures/waterfall.gp\" line "), std::string::npos) << md;
  EXPECT_NE(md.find("fix it where gnuplot points"), std::string::npos) << md;
}

TEST_F(KeptScript, AKeptScriptReadingAColumnTheDataLacksIsRefusedBeforeGnuplot) {
  const std::string script = read_text(figure("waterfall.gp"));
  write_text(figure("waterfall.gp"), replaced(script, "plot \"waterfall.dat\" using (($2)*1e2):1:",
                                              "plot \"waterfall.dat\" using (($9)*1e2):1:"));
  const CommandResult report = run_dsx("report '" + out_ + "'");
  EXPECT_EQ(report.exit_code, 5) << report.out;
  const std::string why = "the script reads column 9 of waterfall.dat, which now has 7 columns (its header: # columns: "
                          "position gpu_utilization memory_share dispatch_share point_index category design_point; "
                          "SI units); figure 'waterfall' is not drawn";
  EXPECT_NE(report.out.find(figure("waterfall.gp") + ":"), std::string::npos) << report.out;
  EXPECT_NE(report.out.find(why), std::string::npos) << report.out;
  expect_report_without(out_, "waterfall", why);
  EXPECT_NE(read_text(out_ + "/report.md").find("The study changed since figures/waterfall.gp was kept"),
            std::string::npos);
}

// The study changes what a kept figure draws: fewer series, so fewer index blocks in its data.
TEST(KeptScriptData, AStudyThatNowDrawsFewerSeriesRefusesTheKeptScript) {
  TempDir tmp{"kept_script_blocks"};
  const std::string study = tmp.path() + "/quickstart.yaml", out = tmp.path() + "/run";
  const std::string line = "    where: {hardware: a100_80gb_sxm, execution: eager}\n";
  const std::string kept = replaced(kQuickstart, line, line + "    keep_script: true\n");
  write_text(study, kept);
  CommandResult run = run_dsx("run '" + study + "' --quiet --out '" + out + "'");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  ASSERT_NE(read_text(out + "/figures/utilization_vs_launch.gp").find("index 5 using"), std::string::npos);

  write_text(study, replaced(kept, line, "    where: {hardware: a100_80gb_sxm, execution: eager, model: resnet50}\n"));
  run = run_dsx("run '" + study + "' --out '" + out + "'");
  EXPECT_EQ(run.exit_code, 5) << run.out;
  EXPECT_NE(run.out.find("swept 0 in"), std::string::npos) << run.out;
  const std::string why = "the script reads index 1 (block 2) of utilization_vs_launch.dat, which now has 1 block "
                          "(index 0 to 0; its header: # columns: x y point_index design_point";
  EXPECT_NE(run.out.find("dsx: error: " + out + "/figures/utilization_vs_launch.gp:"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(why), std::string::npos) << run.out;
  expect_report_without(out, "utilization_vs_launch", why);
}

}  // namespace
}  // namespace dsx
