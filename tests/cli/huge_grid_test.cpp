// A 1e9-point study that keeps its front and a sample (tests/cli/huge_grid.yaml) runs in bounded
// memory: stopped after a few seconds, the process never held more than 512 MB, the store holds
// only the kept rows, the report of the stopped run says it is partial, and a resumed run
// continues after the committed points.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "tests/cli/child_process.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

TEST(HugeGrid, ABillionPointGridKeepingTheFrontRunsInBoundedMemory) {
  const fs::path dir = fs::temp_directory_path() / ("dsx_huge_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::vector<std::string> args = {"run", "tests/cli/huge_grid.yaml", "--out", (dir / "run").string()};
  const ChildProcess child = start_dsx(args, dir / "run.log");
  std::this_thread::sleep_for(std::chrono::seconds(6));
  kill(child.pid, SIGTERM);
  const ChildExit stopped = wait_child(child);
  const std::string log = read_text(dir / "run.log");
  EXPECT_EQ(stopped.exit_code, 1) << log;
  EXPECT_NE(log.find("1,000,800,000 design points"), std::string::npos) << log;
  EXPECT_NE(log.find("to continue where it stopped"), std::string::npos) << log;
  EXPECT_LT(stopped.max_resident_bytes, 512LL << 20);
  // Kept: the front and a sample of 1,000; the store must be far smaller than the rows swept.
  EXPECT_LT(fs::file_size(dir / "run" / "results.sqlite"), 8U << 20);

  // The report of the stopped run says it is partial and how to finish it.
  ASSERT_EQ(wait_child(start_dsx({"report", (dir / "run").string()}, dir / "report.log")).exit_code, 0)
      << read_text(dir / "report.log");
  const std::string report = read_text(dir / "run" / "report.md");
  EXPECT_NE(report.find("This run stopped part-way"), std::string::npos);
  EXPECT_NE(report.find("of 1,000,800,000 grid points are swept"), std::string::npos);
  EXPECT_NE(report.find("The study keeps the Pareto front and a sample of 1,000"), std::string::npos);

  const ChildProcess again = start_dsx(args, dir / "again.log");
  std::this_thread::sleep_for(std::chrono::seconds(2));
  kill(again.pid, SIGTERM);
  const ChildExit resumed = wait_child(again);
  EXPECT_EQ(resumed.exit_code, 1);
  EXPECT_NE(read_text(dir / "again.log").find("resuming after"), std::string::npos) << read_text(dir / "again.log");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dsx
