// Crash safety: a run killed with SIGKILL at arbitrary moments and resumed each time ends with
// exactly the results of an uninterrupted run (no row lost, none duplicated, the kept rows and
// counts of a study that keeps only its front and a sample the same); SIGTERM stops cleanly and
// says how to continue. The 25-kill test carries the ctest label `long` (`ctest -LE long` skips it).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli/child_process.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

const fs::path kKillResume = fs::path(DSX_SOURCE_DIR) / "tests" / "cli" / "kill_resume.yaml";

std::vector<std::string> run_args(const fs::path& study, const fs::path& out) {
  return {"run", study.string(), "--quiet", "--out", out.string()};
}

int run_to_end(const fs::path& study, const fs::path& out, const fs::path& log) {
  return wait_child(start_dsx(run_args(study, out), log)).exit_code;
}

// kill_resume.yaml with `replace` swapped for `with` and `append` added at the end.
fs::path variant(const fs::path& dir, const std::string& name, const std::string& replace, const std::string& with,
                 const std::string& append = "") {
  std::string study = read_text(kKillResume);
  if (!replace.empty()) {
    const std::size_t at = study.find(replace);
    if (at == std::string::npos) throw std::runtime_error("kill_resume.yaml has no '" + replace + "'");
    study.replace(at, replace.size(), with);
  }
  const fs::path path = dir / (name + ".yaml");
  std::ofstream(path) << study << append;
  return path;
}

struct KillOutcome {
  int killed_mid_run = 0;
  int final_exit_code = -1;
};

// Kills a run of `study` into `out` `kills` times after random delays (seeded), then lets it finish.
KillOutcome kill_and_resume(const fs::path& study, const fs::path& out, const fs::path& log, int kills,
                            unsigned seed, int min_delay_ms, int max_delay_ms) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> delay_ms(min_delay_ms, max_delay_ms);
  KillOutcome outcome;
  for (int attempt = 0; attempt < kills; ++attempt) {
    const ChildProcess child = start_dsx(run_args(study, out), log);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(random)));
    kill(child.pid, SIGKILL);
    if (wait_child(child).exit_code == 128 + SIGKILL) ++outcome.killed_mid_run;
  }
  outcome.final_exit_code = run_to_end(study, out, log);
  return outcome;
}

class Resume : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("dsx_resume_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(Resume, KilledAtRandomMomentsAndResumedGivesTheUninterruptedRows) {
  ASSERT_EQ(run_to_end(kKillResume, dir_ / "baseline", dir_ / "baseline.log"), 0) << read_text(dir_ / "baseline.log");
  const std::string expected = read_text(dir_ / "baseline" / "results.csv");
  ASSERT_FALSE(expected.empty());
  // Kill moments spread over the sweep and the writing of outputs, from a fixed seed.
  const KillOutcome k = kill_and_resume(kKillResume, dir_ / "victim", dir_ / "victim.log", 5, 20261121, 20, 700);
  // A resumed run has less left to do and may finish before its kill; most must die part-way.
  EXPECT_GE(k.killed_mid_run, 3);
  ASSERT_EQ(k.final_exit_code, 0) << read_text(dir_ / "victim.log");
  EXPECT_EQ(read_text(dir_ / "victim" / "results.csv"), expected);
}

TEST_F(Resume, AStudyKeepingItsFrontAndASampleResumesToTheSameRowsAndCounts) {
  // Twelve times the grid: keeping few rows sweeps fast, and the kills must land part-way.
  const fs::path study = variant(dir_, "kill_resume_keep", "launch_overhead: {from: 1 us, to: 25 us, count: 250}",
                                 "launch_overhead: {from: 1 us, to: 25 us, count: 3000}",
                                 "objectives:\n  - {metric: latency_s, direction: min}\n"
                                 "  - {metric: energy_per_sample_j, direction: min}\n"
                                 "pareto: {group: hardware}\n"
                                 "keep: {front: true, top_k: 5, sample: 300}\n");
  ASSERT_EQ(run_to_end(study, dir_ / "baseline", dir_ / "baseline.log"), 0) << read_text(dir_ / "baseline.log");
  const KillOutcome k = kill_and_resume(study, dir_ / "victim", dir_ / "victim.log", 5, 20261123, 20, 200);
  EXPECT_GE(k.killed_mid_run, 3);
  ASSERT_EQ(k.final_exit_code, 0) << read_text(dir_ / "victim.log");
  for (const char* file : {"results.csv", "pareto.csv", "top_k.csv", "report.md"}) {
    EXPECT_EQ(read_text(dir_ / "victim" / file), read_text(dir_ / "baseline" / file)) << file;
  }
  const std::string report = read_text(dir_ / "baseline" / "report.md");
  EXPECT_NE(report.find("The study keeps the Pareto fronts, the 5 best per objective and a sample of 300"),
            std::string::npos);
  EXPECT_NE(report.find("**2,160,000** design points evaluated"), std::string::npos);
}

// The longer test: 25 SIGKILLs over a 360,000-point grid, landing in the sweep, in the writing of
// the outputs and in resumed runs alike.
TEST(ResumeLong, TwentyFiveKillsOverALargerGridLoseAndDuplicateNothing) {
  const fs::path dir = fs::temp_directory_path() / ("dsx_resume_long_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path study = variant(dir, "kill_resume_long", "launch_overhead: {from: 1 us, to: 25 us, count: 250}",
                                 "launch_overhead: {from: 1 us, to: 25 us, count: 500}");
  ASSERT_EQ(run_to_end(study, dir / "baseline", dir / "baseline.log"), 0) << read_text(dir / "baseline.log");
  const std::string expected = read_text(dir / "baseline" / "results.csv");
  ASSERT_EQ(std::count(expected.begin(), expected.end(), '\n'), 360001);
  const KillOutcome k = kill_and_resume(study, dir / "victim", dir / "victim.log", 25, 20261122, 30, 1200);
  EXPECT_GE(k.killed_mid_run, 15);
  ASSERT_EQ(k.final_exit_code, 0) << read_text(dir / "victim.log");
  EXPECT_EQ(read_text(dir / "victim" / "results.csv"), expected);
  fs::remove_all(dir);
}

TEST_F(Resume, SigtermStopsCleanlyAndSaysHowToContinue) {
  const fs::path out = dir_ / "term";
  const ChildProcess child = start_dsx({"run", "tests/cli/kill_resume.yaml", "--out", out.string()}, dir_ / "term.log");
  // The signal lands once the run has started (it says how many points it sweeps): before that the
  // process may still be starting up (a sanitizer runtime, the dynamic loader), which no program can
  // handle a signal in.
  for (int waited_ms = 0; waited_ms < 60000; waited_ms += 5) {
    if (read_text(dir_ / "term.log").find("design points") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(child.pid, SIGTERM);
  const int code = wait_child(child).exit_code;
  const std::string log = read_text(dir_ / "term.log");
  // Whatever the phase the signal lands in (the sweep, the last block, the report), the run stops
  // with exit code 1 and says how to go on.
  EXPECT_EQ(code, 1) << log;
  const bool in_sweep = log.find("to continue where it stopped: dsx run tests/cli/kill_resume.yaml") != std::string::npos;
  const bool after_sweep = log.find("to write the report: dsx report " + out.string()) != std::string::npos;
  EXPECT_TRUE(in_sweep || after_sweep) << log;
  ASSERT_EQ(run_to_end(kKillResume, out, dir_ / "term2.log"), 0) << read_text(dir_ / "term2.log");
  ASSERT_EQ(run_to_end(kKillResume, dir_ / "baseline", dir_ / "baseline.log"), 0);
  EXPECT_EQ(read_text(out / "results.csv"), read_text(dir_ / "baseline" / "results.csv"));
}

}  // namespace
}  // namespace dsx
