// Crash safety: a run killed with SIGKILL at arbitrary moments and resumed each time ends with
// exactly the rows of an uninterrupted run (none lost, none duplicated); SIGTERM stops cleanly and
// says how to continue.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;

// Starts dsx in the source folder with stdout/stderr sent to `log`; returns its pid.
pid_t start_dsx(const std::vector<std::string>& args, const fs::path& log) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (chdir(DSX_SOURCE_DIR) != 0) _exit(127);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    std::vector<char*> argv;
    std::string binary = DSX_BINARY;
    argv.push_back(binary.data());
    std::vector<std::string> copy = args;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> run_args(const fs::path& out) {
  return {"run", "tests/cli/kill_resume.yaml", "--quiet", "--out", out.string()};
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
  ASSERT_EQ(wait_exit(start_dsx(run_args(dir_ / "baseline"), dir_ / "baseline.log")), 0) << slurp(dir_ / "baseline.log");
  const std::string expected = slurp(dir_ / "baseline" / "results.csv");
  ASSERT_FALSE(expected.empty());

  // Kill moments spread over the sweep and the writing of outputs, from a fixed seed.
  std::mt19937 random(20261121);
  std::uniform_int_distribution<int> delay_ms(20, 700);
  const fs::path victim = dir_ / "victim";
  int killed_mid_run = 0;
  for (int attempt = 0; attempt < 5; ++attempt) {
    const pid_t pid = start_dsx(run_args(victim), dir_ / "victim.log");
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(random)));
    kill(pid, SIGKILL);
    if (wait_exit(pid) == 128 + SIGKILL) ++killed_mid_run;
  }
  // A resumed run has less left to do and may finish before its kill; most must die part-way.
  EXPECT_GE(killed_mid_run, 3);
  ASSERT_EQ(wait_exit(start_dsx(run_args(victim), dir_ / "victim.log")), 0) << slurp(dir_ / "victim.log");
  EXPECT_EQ(slurp(victim / "results.csv"), expected);
}

// The longer test (ctest label `long`; `ctest -LE long` skips it): 25 SIGKILLs over a 360,000-point
// grid, landing in the sweep, in the writing of the outputs and in resumed runs alike.
TEST(ResumeLong, TwentyFiveKillsOverALargerGridLoseAndDuplicateNothing) {
  const fs::path dir = fs::temp_directory_path() / ("dsx_resume_long_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string study = slurp(fs::path(DSX_SOURCE_DIR) / "tests" / "cli" / "kill_resume.yaml");
  const std::string base_axis = "launch_overhead: {from: 1 us, to: 25 us, count: 250}";
  const std::size_t at = study.find(base_axis);
  ASSERT_NE(at, std::string::npos);
  study.replace(at, base_axis.size(), "launch_overhead: {from: 1 us, to: 25 us, count: 500}");
  std::ofstream(dir / "kill_resume_long.yaml") << study;
  const auto args = [&](const fs::path& out) {
    return std::vector<std::string>{"run", (dir / "kill_resume_long.yaml").string(), "--quiet", "--out", out.string()};
  };

  ASSERT_EQ(wait_exit(start_dsx(args(dir / "baseline"), dir / "baseline.log")), 0) << slurp(dir / "baseline.log");
  const std::string expected = slurp(dir / "baseline" / "results.csv");
  ASSERT_EQ(std::count(expected.begin(), expected.end(), '\n'), 360001);

  std::mt19937 random(20261122);
  std::uniform_int_distribution<int> delay_ms(30, 1200);
  const fs::path victim = dir / "victim";
  int killed_mid_run = 0;
  for (int attempt = 0; attempt < 25; ++attempt) {
    const pid_t pid = start_dsx(args(victim), dir / "victim.log");
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(random)));
    kill(pid, SIGKILL);
    if (wait_exit(pid) == 128 + SIGKILL) ++killed_mid_run;
  }
  EXPECT_GE(killed_mid_run, 15);
  ASSERT_EQ(wait_exit(start_dsx(args(victim), dir / "victim.log")), 0) << slurp(dir / "victim.log");
  EXPECT_EQ(slurp(victim / "results.csv"), expected);
  fs::remove_all(dir);
}

TEST_F(Resume, SigtermStopsCleanlyAndSaysHowToContinue) {
  const fs::path out = dir_ / "term";
  const pid_t pid = start_dsx({"run", "tests/cli/kill_resume.yaml", "--out", out.string()}, dir_ / "term.log");
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  kill(pid, SIGTERM);
  const int code = wait_exit(pid);
  const std::string log = slurp(dir_ / "term.log");
  if (code == 0) GTEST_SKIP() << "the run finished before the signal arrived";
  EXPECT_EQ(code, 1) << log;
  EXPECT_NE(log.find("to continue where it stopped: dsx run tests/cli/kill_resume.yaml"), std::string::npos) << log;
  ASSERT_EQ(wait_exit(start_dsx(run_args(out), dir_ / "term2.log")), 0) << slurp(dir_ / "term2.log");
  ASSERT_EQ(wait_exit(start_dsx(run_args(dir_ / "baseline"), dir_ / "baseline.log")), 0);
  EXPECT_EQ(slurp(out / "results.csv"), slurp(dir_ / "baseline" / "results.csv"));
}

}  // namespace
