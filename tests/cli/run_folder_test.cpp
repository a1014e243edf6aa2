// One run folder, one owner, as a user meets it: a second dsx run on a folder being swept says who
// holds it and exits 1, dsx report waits for the sweep, dsx writes only into empty folders or its
// own, and --fresh removes only what dsx wrote.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "tests/cli/child_process.hpp"
#include "tests/cli/shell.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

bool wait_for_text(const fs::path& log, const std::string& text, int timeout_ms = 60000) {
  for (int waited_ms = 0; waited_ms < timeout_ms; waited_ms += 5) {
    if (read_text(log).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

TEST(RunFolderCli, ASecondRunOnAFolderBeingSweptSaysWhoHoldsItAndExits1) {
  TempDir tmp("run_folder_cli");
  const std::string out = tmp.path() + "/run";
  const ChildProcess first = start_dsx({"run", "tests/cli/huge_grid.yaml", "--out", out}, tmp.path() + "/first.log");
  ASSERT_TRUE(wait_for_text(tmp.path() + "/first.log", "design points")) << read_text(tmp.path() + "/first.log");
  const CommandResult second = run_dsx("run tests/cli/kill_resume.yaml --quiet --out '" + out + "'");
  const ChildProcess report = start_dsx({"report", out}, tmp.path() + "/report.log");
  const bool report_waits = wait_for_text(tmp.path() + "/report.log", "waiting for it to finish");
  kill(report.pid, SIGTERM);
  wait_child(report);
  kill(first.pid, SIGTERM);
  EXPECT_EQ(wait_child(first).exit_code, 1);
  EXPECT_EQ(second.exit_code, 1) << second.out;
  EXPECT_NE(second.out.find("dsx run: error: " + out + " is in use by PID " + std::to_string(first.pid) +
                            " (dsx run tests/cli/huge_grid.yaml, started "),
            std::string::npos)
      << second.out;
  EXPECT_TRUE(report_waits);
  EXPECT_NE(read_text(tmp.path() + "/report.log").find("dsx report: " + out + " is in use by PID " + std::to_string(first.pid)),
            std::string::npos)
      << read_text(tmp.path() + "/report.log");
}

TEST(RunFolderCli, ReportWaitsForTheHolderAndThenRendersWhatItLeft) {
  TempDir tmp("run_folder_cli");
  const std::string out = tmp.path() + "/run";
  ASSERT_EQ(run_dsx("run tests/cli/kill_resume.yaml --quiet --out '" + out + "'").exit_code, 0);
  const std::string expected = read_text(out + "/report.md");
  // The test holds the folder as a running sweep would.
  const int fd = ::open((out + "/.dsx-run.lock").c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  ASSERT_EQ(::ftruncate(fd, 0), 0);
  const std::string holder = "PID 4242 (dsx run tests/cli/kill_resume.yaml, started 2026-11-24 07:00:00 UTC)\n";
  ASSERT_EQ(::write(fd, holder.data(), holder.size()), static_cast<ssize_t>(holder.size()));
  const ChildProcess report = start_dsx({"report", out}, tmp.path() + "/report.log");
  ASSERT_TRUE(wait_for_text(tmp.path() + "/report.log", "waiting for it to finish"));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(read_text(tmp.path() + "/report.log").find("report.html"), std::string::npos) << "rendered while held";
  ::close(fd);
  EXPECT_EQ(wait_child(report).exit_code, 0) << read_text(tmp.path() + "/report.log");
  EXPECT_NE(read_text(tmp.path() + "/report.log").find("is in use by PID 4242 (dsx run tests/cli/kill_resume.yaml"),
            std::string::npos);
  EXPECT_EQ(read_text(out + "/report.md"), expected);
}

TEST(RunFolderCli, AFolderDsxDidNotMakeIsRefusedUntouched) {
  TempDir tmp("run_folder_cli");
  std::ofstream(tmp.path() + "/report.md") << "my own report";
  const CommandResult r = run_dsx("run tests/cli/kill_resume.yaml --quiet --out '" + tmp.path() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("dsx run: error: " + tmp.path() +
                       " holds files dsx did not write (report.md); dsx writes only into an empty folder or a run "
                       "folder of its own: choose another folder"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(read_text(tmp.path() + "/report.md"), "my own report");
  EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path()), fs::directory_iterator()), 1);

  const CommandResult root = run_dsx("run tests/cli/kill_resume.yaml --quiet --out /");
  EXPECT_EQ(root.exit_code, 2) << root.out;
  EXPECT_NE(root.out.find("dsx run: error: / holds files dsx did not write"), std::string::npos) << root.out;
  EXPECT_FALSE(fs::exists("/.dsx-run"));
  EXPECT_FALSE(fs::exists("/results.sqlite"));
}

TEST(RunFolderCli, FreshRemovesOnlyWhatDsxWroteAndNamesTheRest) {
  TempDir tmp("run_folder_cli");
  const std::string out = tmp.path() + "/run";
  ASSERT_EQ(run_dsx("run studies/quickstart.yaml --quiet --out '" + out + "'").exit_code, 0);
  std::ofstream(out + "/figures/caption.tex") << "\\caption{mine}";
  std::ofstream(out + "/notes.md") << "mine";
  const CommandResult fresh = run_dsx("run tests/cli/kill_resume.yaml --quiet --fresh --out '" + out + "'");
  EXPECT_EQ(fresh.exit_code, 0) << fresh.out;
  EXPECT_NE(fresh.out.find("dsx run: --fresh left 2 files in " + out + " that dsx did not write: figures/caption.tex, ..."),
            std::string::npos)
      << fresh.out;
  EXPECT_EQ(read_text(out + "/figures/caption.tex"), "\\caption{mine}");
  EXPECT_EQ(read_text(out + "/notes.md"), "mine");
  // The quickstart's figures went with its results; the new study's report stands alone.
  EXPECT_NE(read_text(out + "/report.md").find("Resume after a crash"), std::string::npos);
  for (const auto& entry : fs::directory_iterator(out + "/figures")) {
    const std::string name = entry.path().filename().string();
    EXPECT_TRUE(name == "caption.tex" || read_text(out + "/.dsx-run").find("figures/" + name) != std::string::npos)
        << name << " survived --fresh";
  }
}

TEST(RunFolderCli, ReportRefusesAStoreThatIsNotTheFoldersOwn) {
  TempDir tmp("run_folder_cli");
  const std::string a = tmp.path() + "/a", b = tmp.path() + "/b";
  ASSERT_EQ(run_dsx("run tests/cli/kill_resume.yaml --quiet --out '" + a + "'").exit_code, 0);
  ASSERT_EQ(run_dsx("run studies/quickstart.yaml --quiet --out '" + b + "'").exit_code, 0);

  fs::copy_file(b + "/results.sqlite", a + "/results.sqlite", fs::copy_options::overwrite_existing);
  CommandResult r = run_dsx("report '" + a + "'");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("dsx report: error: " + a + "/results.sqlite was written for another study.resolved.yaml "
                       "than the one beside it"),
            std::string::npos)
      << r.out;

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((b + "/results.sqlite").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "DROP TABLE results", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  r = run_dsx("report '" + b + "'");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find(b + "/results.sqlite holds no results table"), std::string::npos) << r.out;

  std::ofstream(b + "/results.sqlite", std::ios::trunc) << std::string(4096, 'x');
  r = run_dsx("report '" + b + "'");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("results.sqlite"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace dsx
