// A figure with `keep_script: true` is drawn from the NAME.gp already in the run folder, so hand
// edits survive `dsx report` and `dsx run` (the file is not even rewritten); its NAME.dat still holds the current rows, and the report
// says the figure came from a kept script. Without the key the script is written anew. Toggling the
// key changes no result identity (no sweep), and a kept script that would run a command is refused.
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

TEST_F(KeptScript, AKeptScriptThatWouldRunACommandIsRefused) {
  const std::string marker = tmp_.path() + "/ran";
  const std::string script = read_text(figure("waterfall.gp"));
  write_text(figure("waterfall.gp"), script + "x = system(\"touch '" + marker + "'\")\n");
  const CommandResult report = run_dsx("report '" + out_ + "'");
  EXPECT_NE(report.exit_code, 0) << report.out;
  const std::string at = figure("waterfall.gp") + ":" + std::to_string(std::count(script.begin(), script.end(), '\n') + 1) + ":5: ";
  EXPECT_NE(report.out.find(at + "'system' runs a shell command; figure 'waterfall' is not drawn"), std::string::npos)
      << report.out;
  EXPECT_FALSE(fs::exists(marker));

  // A link in place of the script is not followed.
  fs::remove(figure("waterfall.gp"));
  fs::create_symlink(tmp_.path() + "/quickstart.yaml", figure("waterfall.gp"));
  const CommandResult linked = run_dsx("report '" + out_ + "'");
  EXPECT_NE(linked.exit_code, 0) << linked.out;
  EXPECT_NE(linked.out.find("is not a plain file"), std::string::npos) << linked.out;
  EXPECT_TRUE(fs::is_symlink(figure("waterfall.gp")));
}

}  // namespace
}  // namespace dsx
