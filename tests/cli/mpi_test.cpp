// `mpirun -np N dsx run`: the run folder of 1, 2 or 3 ranks is the single process's, byte for
// byte; a rank killed mid-run leaves committed blocks that a rerun completes to the same rows; a
// bad study stops every rank. Skipped (with the reason) when dsx was built without MPI or mpirun
// is not installed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "dse/store.hpp"
#include "tests/cli/shell.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

std::string dsx_binary() { return std::string("'") + DSX_BINARY + "'"; }

// mpirun for the tests: as root too, more ranks than cores, one thread per rank, and a bound on
// the time so a hang fails the test instead of the suite. Under AddressSanitizer the leak check is
// off in the ranks: Open MPI keeps allocations until exit that LeakSanitizer reports as leaks.
std::string mpirun(int ranks) {
  return "env ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 timeout 120 mpirun -x ASAN_OPTIONS --oversubscribe "
         "--allow-run-as-root -np " +
         std::to_string(ranks) + " " + dsx_binary();
}

class Mpi : public ::testing::Test {
 protected:
  void SetUp() override {
    if (run_shell("command -v mpirun").exit_code != 0) GTEST_SKIP() << "mpirun is not installed";
    if (run_shell(dsx_binary() + " --version").out.find("with MPI") == std::string::npos) {
      GTEST_SKIP() << "dsx was built without MPI";
    }
  }
  static void expect_same(const fs::path& a, const fs::path& b) {
    for (const char* f : {"results.csv", "pareto.csv", "comparisons.csv", "report.md", "report.html"}) {
      EXPECT_EQ(read_text(a / f), read_text(b / f)) << f;
      EXPECT_FALSE(read_text(a / f).empty()) << f;
    }
  }
  TempDir dir_{"mpi"};
};

TEST_F(Mpi, OneTwoAndThreeRanksGiveTheSingleProcessRun) {
  const std::string base = dir_.path();
  std::string study = read_text(fs::path(DSX_SOURCE_DIR) / "studies/quickstart.yaml");
  study += "\nkeep: {front: true, top_k: 2, sample: 7}\nassertions:\n"
           "  - {name: all_quick, expr: \"latency_s < 0.004\", require: all}\n";
  std::ofstream(base + "/keep.yaml") << study;
  const CommandResult one = run_shell(dsx_binary() + " run '" + base + "/keep.yaml' --quiet --out '" + base + "/one'");
  ASSERT_EQ(one.exit_code, 3) << one.out;
  for (int ranks = 1; ranks <= 3; ++ranks) {
    const std::string out = base + "/np" + std::to_string(ranks);
    // Blocks of 10 points: the 144 points are shared among the workers in 15 blocks.
    const CommandResult r = run_shell(mpirun(ranks) + " run '" + base + "/keep.yaml' --quiet --threads 1 --block-points 10 --out '" +
                           out + "'");
    EXPECT_EQ(r.exit_code, 3) << r.out;  // the assertion fails, as in one process
    expect_same(base + "/one", out);
    EXPECT_EQ(read_text(base + "/one/assertions.csv"), read_text(out + "/assertions.csv"));
  }
}

TEST_F(Mpi, AKilledRankLeavesCommittedBlocksThatARerunCompletes) {
  const std::string base = dir_.path();
  ASSERT_EQ(run_shell(dsx_binary() + " run tests/cli/kill_resume.yaml --quiet --out '" + base + "/one'").exit_code, 0);
  const std::string out = base + "/killed";
  const std::string command = mpirun(3) + " run tests/cli/kill_resume.yaml --quiet --threads 1 --block-points 500 --out '" +
                              out + "' > '" + base + "/log' 2>&1";
  const pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", ("cd '" + std::string(DSX_SOURCE_DIR) + "' && exec " + command).c_str(), nullptr);
    _exit(127);
  }
  // Wait until rank 0 has committed some blocks, then kill one worker rank.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::uint64_t rows = 0;
  while (rows == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    try {
      if (fs::exists(result_store_path(out))) rows = ResultStore(result_store_path(out), StoreMode::read_only).row_count();
    } catch (const std::exception&) {
      // not created yet
    }
  }
  ASSERT_GT(rows, 0u) << read_text(base + "/log");
  run_shell("pkill -KILL -n -f 'dsx run tests/cli/kill_resume.yaml --quiet --threads 1 --block-points 500 --out " + out + "'");
  int status = 0;
  waitpid(pid, &status, 0);
  const CommandResult again = run_shell(mpirun(3) + " run tests/cli/kill_resume.yaml --quiet --threads 1 --block-points 500 --out '" +
                             out + "'");
  ASSERT_EQ(again.exit_code, 0) << again.out;
  EXPECT_EQ(read_text(base + "/one/results.csv"), read_text(out + "/results.csv"));
}

TEST_F(Mpi, ABadStudyStopsEveryRank) {
  const std::string base = dir_.path();
  std::ofstream(base + "/bad.yaml") << "study: bad\ntitle: T\nquestion: Q?\nsolver: inferense\naxes:\n  batch: [1]\n";
  const CommandResult r = run_shell(mpirun(3) + " run '" + base + "/bad.yaml' --quiet --out '" + base + "/o'");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.exit_code, 124) << "a rank hung";  // timeout's code
  EXPECT_NE(r.out.find("unknown solver 'inferense'; did you mean 'inference'?"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace dsx
