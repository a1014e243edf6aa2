// cmake --install as a user runs it: the installed dsx finds its own catalog, templates and studies
// (not the source tree it was built from), runs a shipped study to a report, and comes with its man
// page (which names every command) and bash completion; and the README's first-study tutorial runs
// and finds what the README says it finds.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
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
      run_shell(std::string("'") + DSX_CMAKE + "' --install '" + DSX_BUILD_DIR + "' --prefix '" + prefix + "'");
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

  // The man page documents every command `dsx --help` lists; completion offers commands and ids.
  const std::string man = read_text(prefix + "/share/man/man1/dsx.1");
  const CommandResult commands = run_shell(env + "--help");
  std::istringstream lines(commands.out);
  int listed = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  ", 0) != 0 || line.size() < 3 || line[2] == ' ') continue;
    const std::string command = line.substr(2, line.find(' ', 2) - 2);
    ++listed;
    EXPECT_NE(man.find(".B " + command), std::string::npos) << "dsx.1 does not document '" << command << "'";
  }
  EXPECT_EQ(listed, 9) << commands.out;
  const std::string complete = "bash -c 'source \"" + prefix + "/share/bash-completion/completions/dsx\"; ";
  const CommandResult words = run_shell(complete + "COMP_WORDS=(\"" + dsx +
                                        "\" eval gemm hardware=h10); COMP_CWORD=3; _dsx; echo ${COMPREPLY[@]}'");
  EXPECT_EQ(words.out, "hardware=h100_sxm hardware=h100_pcie hardware=h100_nvl\n");
  const CommandResult diff_word =
      run_shell(complete + "COMP_WORDS=(\"" + dsx + "\" di); COMP_CWORD=1; _dsx; echo ${COMPREPLY[@]}'");
  EXPECT_EQ(diff_word.out, "diff\n");

  // The installed Python module reads the installed data too.
  if (std::string(DSX_PYTHON).empty()) {
    std::cout << "the Python module is not built: its installation is not checked\n";
  } else {
    const CommandResult python = run_shell(
        "cd '" + dir.path() + "' && env -u DSX_DATA_DIR PYTHONPATH='" + prefix + "/lib/python3/dist-packages' '" +
        DSX_PYTHON + "' -c 'import dsx; print(dsx.data_dir()); print(len(dsx.catalog(\"hardware\")[\"hardware\"]) > 0)'");
    EXPECT_EQ(python.out, prefix + "/share/dsx\nTrue\n");
  }

  // DSX_DATA_DIR points it elsewhere, and a folder without a catalog is an error, not a silent default.
  const CommandResult elsewhere = run_shell("cd '" + dir.path() + "' && DSX_DATA_DIR='" + dir.path() +
                                            "/nowhere' '" + dsx + "' catalog hardware");
  EXPECT_NE(elsewhere.exit_code, 0);
  EXPECT_NE(elsewhere.out.find(dir.path() + "/nowhere/studies/catalog"), std::string::npos) << elsewhere.out;
}

// The README's tutorial study, as a reader copies it, validates and runs to the front it describes.
TEST(Readme, TheFirstStudyTutorialRunsAsDescribed) {
  const std::string readme = read_text(std::string(DSX_SOURCE_DIR) + "/README.md");
  const std::size_t intro = readme.find("Save this as `first.yaml`:");
  ASSERT_NE(intro, std::string::npos);
  const std::size_t begin = readme.find("```yaml\n", intro) + 8;
  const std::size_t end = readme.find("```", begin);
  TempDir dir("tutorial");
  std::ofstream(dir.path() + "/first.yaml") << readme.substr(begin, end - begin);
  const CommandResult run = run_dsx("run '" + dir.path() + "/first.yaml' --out '" + dir.path() + "/run' --quiet");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const std::string report = read_text(dir.path() + "/run/report.md");
  EXPECT_NE(report.find("10 design points are Pareto-optimal"), std::string::npos) << report;
  EXPECT_NE(report.find("is hardware=NVIDIA H100 SXM 80GB, batch=64, execution=compiled"), std::string::npos) << report;
  EXPECT_NE(readme.find("sweeps the 24 points"), std::string::npos);
}

}  // namespace
}  // namespace dsx
