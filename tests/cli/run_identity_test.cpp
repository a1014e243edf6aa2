// A run folder belongs to what its rows depend on (dse/result_identity.hpp), not to the study's
// every word: `dsx run` of a study with a new title, section or caption re-renders the stored rows
// with the new text, `dsx report` accepts a study.resolved.yaml rewritten with other prose, and an
// edit of what was swept is refused with the --fresh hint. Shards with other prose merge.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "dse/result_identity.hpp"
#include "dse/store.hpp"
#include "tests/cli/shell.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

const std::string kQuickstart = read_text(fs::path(DSX_SOURCE_DIR) / "studies/quickstart.yaml");
const std::string kOldTitle = "The dispatch tax: eager vs compiled on server and edge accelerators";
const std::string kOldCaption =
    "Utilization falls as each launch gets more expensive; models with many short kernels fall fastest.";

std::string with_new_prose(const std::string& study) {
  std::string s = replaced(study, kOldTitle, "Launch overhead, measured twice");
  s = replaced(s, "title: \"Predict first\"", "title: \"Guess before you read on\"");
  return replaced(s, kOldCaption, "Each launch costs more: the short-kernel models lose the most.");
}

TEST(RunIdentityCli, NewProseResumesWithoutASweepAndRendersTheNewText) {
  TempDir tmp("run_identity");
  const std::string study = tmp.path() + "/quickstart.yaml", out = tmp.path() + "/run";
  write_text(study, kQuickstart);
  ASSERT_EQ(run_dsx("run '" + study + "' --quiet --out '" + out + "'").exit_code, 0);
  const std::string rows = read_text(out + "/results.csv");
  ASSERT_FALSE(rows.empty());

  write_text(study, with_new_prose(kQuickstart));
  const CommandResult again = run_dsx("run '" + study + "' --out '" + out + "'");
  ASSERT_EQ(again.exit_code, 0) << again.out;
  EXPECT_NE(again.out.find("144 design points, resuming after 144 done"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("swept 0 in"), std::string::npos) << again.out;
  EXPECT_EQ(read_text(out + "/results.csv"), rows);
  for (const char* file : {"/study.resolved.yaml", "/report.md", "/report.html"}) {
    const std::string text = read_text(out + file);
    EXPECT_NE(text.find("Launch overhead, measured twice"), std::string::npos) << file;
    EXPECT_NE(text.find("Guess before you read on"), std::string::npos) << file;
    EXPECT_EQ(text.find(kOldTitle), std::string::npos) << file;
  }
  EXPECT_NE(read_text(out + "/report.md").find("the short-kernel models lose the most"), std::string::npos);

  // `dsx report` renders from the folder's study.resolved.yaml, also after it was rewritten.
  CommandResult report = run_dsx("report '" + out + "'");
  ASSERT_EQ(report.exit_code, 0) << report.out;
  EXPECT_NE(read_text(out + "/report.md").find("Launch overhead, measured twice"), std::string::npos);
  const std::string resolved = read_text(out + "/study.resolved.yaml");
  write_text(out + "/study.resolved.yaml", replaced(resolved, "Launch overhead, measured twice", "Edited in the folder"));
  report = run_dsx("report '" + out + "'");
  ASSERT_EQ(report.exit_code, 0) << report.out;
  EXPECT_NE(read_text(out + "/report.md").find("Edited in the folder"), std::string::npos);
  EXPECT_EQ(read_text(out + "/results.csv"), rows);
  // ... but not one whose swept values were edited: the rows are not its own.
  write_text(out + "/study.resolved.yaml", replaced(resolved, "  eta: 0.5\n", "  eta: 0.6\n"));
  report = run_dsx("report '" + out + "'");
  EXPECT_EQ(report.exit_code, 1) << report.out;
  EXPECT_NE(report.out.find("was written for another study.resolved.yaml than the one beside it"), std::string::npos)
      << report.out;
}

TEST(RunIdentityCli, AnEditOfWhatWasSweptIsRefusedWithTheFreshHint) {
  TempDir tmp("run_identity");
  const std::string study = tmp.path() + "/quickstart.yaml", out = tmp.path() + "/run";
  write_text(study, kQuickstart);
  ASSERT_EQ(run_dsx("run '" + study + "' --quiet --out '" + out + "'").exit_code, 0);
  const std::string rows = read_text(out + "/results.csv");
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"[5 us, 10 us, 20 us]", "[5 us, 10 us, 40 us]"},
                                 {"  eta: 0.5\n", "  eta: 0.6\n"}}) {
    write_text(study, replaced(kQuickstart, from, to));
    const CommandResult r = run_dsx("run '" + study + "' --quiet --out '" + out + "'");
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.out.find("dsx run: error: " + out + " holds a run of a different study: result_identity is "),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("to start over in this folder: dsx run " + study + " --fresh"), std::string::npos) << r.out;
    EXPECT_EQ(read_text(out + "/results.csv"), rows);
  }
}

// A folder of a dsx that stored only the hash of the whole study text resumes the same text and
// refuses any other, prose included, with the message it gave before.
TEST(RunIdentityCli, AFolderWithoutAResultIdentityResumesOnlyTheSameText) {
  TempDir tmp("run_identity");
  const std::string study = tmp.path() + "/quickstart.yaml", out = tmp.path() + "/run";
  write_text(study, kQuickstart);
  ASSERT_EQ(run_dsx("run '" + study + "' --quiet --out '" + out + "'").exit_code, 0);
  const auto forget_identity = [&] {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((out + "/results.sqlite").c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "DELETE FROM meta WHERE key = 'result_identity'", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  };
  forget_identity();
  CommandResult r = run_dsx("run '" + study + "' --quiet --out '" + out + "'");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(ResultStore(result_store_path(out)).meta(kResultIdentityKey).has_value());

  forget_identity();
  write_text(study, with_new_prose(kQuickstart));
  r = run_dsx("run '" + study + "' --quiet --out '" + out + "'");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("holds a run of a different study: study_hash is "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" --fresh"), std::string::npos) << r.out;
}

TEST(RunIdentityCli, ShardsWhoseProseDiffersMergeWithTheFirstShardsText) {
  TempDir tmp("run_identity");
  const std::string base = tmp.path();
  write_text(base + "/old.yaml", kQuickstart);
  write_text(base + "/new.yaml", with_new_prose(kQuickstart));
  ASSERT_EQ(run_dsx("run '" + base + "/old.yaml' --quiet --out '" + base + "/one'").exit_code, 0);
  ASSERT_EQ(run_dsx("run '" + base + "/new.yaml' --quiet --out '" + base + "/s0' --shard 0/2").exit_code, 0);
  ASSERT_EQ(run_dsx("run '" + base + "/old.yaml' --quiet --out '" + base + "/s1' --shard 1/2").exit_code, 0);
  const CommandResult m = run_dsx("merge '" + base + "/merged' '" + base + "/s1' '" + base + "/s0'");
  ASSERT_EQ(m.exit_code, 0) << m.out;
  EXPECT_NE(m.out.find("dsx merge: note: the shards' study.resolved.yaml differ in text their results do not depend "
                       "on (titles, prose, figures): the report takes " + base + "/s0's"),
            std::string::npos)
      << m.out;
  EXPECT_EQ(read_text(base + "/merged/results.csv"), read_text(base + "/one/results.csv"));
  EXPECT_NE(read_text(base + "/merged/report.md").find("Launch overhead, measured twice"), std::string::npos);
  EXPECT_EQ(run_dsx("report '" + base + "/merged'").exit_code, 0);
}

}  // namespace
}  // namespace dsx
