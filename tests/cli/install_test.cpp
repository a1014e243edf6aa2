// cmake --install as a user runs it: the installed dsx finds its own catalog, templates and studies
// (not the source tree it was built from), runs a shipped study to a report, and comes with its man
// page and bash completion.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/cli/shell.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

TEST(Install, TheInstalledTreeRunsAShippedStudyWithItsOwnData) {
  TempDir dir("install");
  const std::string prefix = dir.path() + "/prefix";
  const CommandResult install =
      run_shell("'" + std::string(DSX_CMAKE) + "' --install '" + DSX_BUILD_DIR + "' --prefix '" + prefix + "'");
  ASSERT_EQ(install.exit_code, 0) << install.out;
  const std::string dsx = prefix + "/bin/dsx";
  ASSERT_TRUE(fs::exists(dsx));
  EXPECT_TRUE(fs::exists(prefix + "/share/dsx/studies/catalog/hardware.yaml"));
  EXPECT_TRUE(fs::exists(prefix + "/share/dsx/studies/catalog/calibration/default.yaml"));
  EXPECT_TRUE(fs::exists(prefix + "/share/dsx/templates/report.md.mustache"));
  EXPECT_TRUE(fs::exists(prefix + "/share/man/man1/dsx.1"));
  EXPECT_TRUE(fs::exists(prefix + "/share/bash-completion/completions/dsx"));
  EXPECT_TRUE(fs::exists(prefix + "/share/dsx/slurm/array.sbatch"));

  // From another folder and without DSX_DATA_DIR, the defaults point into the installed tree.
  const std::string env = "cd '" + dir.path() + "' && env -u DSX_DATA_DIR '" + dsx + "' ";
  const CommandResult help = run_shell(env + "validate --help");
  EXPECT_NE(help.out.find(prefix + "/share/dsx/studies/catalog"), std::string::npos) << help.out;
  const CommandResult run =
      run_shell(env + "run '" + prefix + "/share/dsx/studies/quickstart.yaml' --out '" + dir.path() + "/run' --quiet");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_TRUE(fs::exists(dir.path() + "/run/report.html"));

  // DSX_DATA_DIR points it elsewhere, and a folder without a catalog is an error, not a silent default.
  const CommandResult elsewhere = run_shell("cd '" + dir.path() + "' && DSX_DATA_DIR='" + dir.path() +
                                            "/nowhere' '" + dsx + "' catalog hardware");
  EXPECT_NE(elsewhere.exit_code, 0);
  EXPECT_NE(elsewhere.out.find(dir.path() + "/nowhere/studies/catalog"), std::string::npos) << elsewhere.out;
}

}  // namespace
}  // namespace dsx
