// The dsx binary against failing disks and hostile input:
//  - a run folder that cannot be created or written, and a full disk (RLIMIT_FSIZE, with SIGXFSZ at
//    its default so dsx itself must turn it into an error), end in one clear line naming the file,
//    exit code 1, committed rows intact, nothing half-written, and a resume byte-identical to an
//    uninterrupted run;
//  - no study value reaches a shell (gnuplot runs `text` in backquotes, so figure titles must not
//    carry them into its scripts) and nothing is written outside the run folder (figure names,
//    links planted at a temporary file's name);
//  - the malformed catalog corpus (tests/malformed/catalog/<case>/) and the malformed studies are
//    file:line:col errors with exit code 2 at the command line, never a result.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dse/catalog.hpp"
#include "dse/diagnostics.hpp"
#include "dse/store.hpp"
#include "output/figures.hpp"
#include "output/files.hpp"
#include "tests/cli/child_process.hpp"

namespace {

namespace fs = std::filesystem;

using dsx::ChildOptions;
using dsx::read_text;

const fs::path kSourceDir = DSX_SOURCE_DIR;
// tests/cli/kill_resume.yaml: 6 x 6 x 2 x 250 x 10 points.
constexpr std::uint64_t kKillResumePoints = 180000;

struct Outcome {
  int exit_code = -1;  // 128 + signal when killed
  std::string output;  // stdout and stderr together
};

// Runs dsx from the source folder with `args` passed as they are (no shell); SIGXFSZ is at its
// default in the child, so only dsx itself can turn a file-size limit into an error.
Outcome run_dsx(const std::vector<std::string>& args, const fs::path& log, const ChildOptions& options = {}) {
  fs::remove(log);
  const dsx::ChildExit done = dsx::wait_child(dsx::start_dsx(args, log, options));
  return Outcome{done.exit_code, read_text(log)};
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Files a failed run must not leave behind: temporaries of atomic writes, gnuplot's drawing folders.
std::vector<std::string> leftovers(const fs::path& dir) {
  std::vector<std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.ends_with(".tmp") || name.ends_with(".drawing")) out.push_back(e.path().string());
  }
  return out;
}

std::vector<std::string> kill_resume_args(const fs::path& out) {
  return {"run", "tests/cli/kill_resume.yaml", "--quiet", "--out", out.string()};
}

class Disk : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("dsx_disk_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    fs::permissions(dir_, fs::perms::all);
    baseline_ = run_dsx(kill_resume_args(dir_ / "baseline"), dir_ / "baseline.log");
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  void SetUp() override { ASSERT_EQ(baseline_.exit_code, 0) << baseline_.output; }

  static std::string baseline_csv() { return read_text(dir_ / "baseline" / "results.csv"); }

  static inline fs::path dir_;
  static inline Outcome baseline_;
};

TEST_F(Disk, ARunFolderBelowAFileIsOneLineNamingThePath) {
  std::ofstream(dir_ / "plain_file") << "not a folder\n";
  const fs::path out = dir_ / "plain_file" / "run";
  const Outcome r = run_dsx({"run", "studies/quickstart.yaml", "--quiet", "--out", out.string()}, dir_ / "file.log");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(r.output, "dsx run: error: cannot create folder " + out.string() + ": Not a directory\n");
}

TEST_F(Disk, AFolderTheUserCannotWriteIsOneLineNamingThePath) {
  const fs::path locked = dir_ / "locked";
  fs::create_directories(locked);
  fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                              fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  const fs::path out = locked / "run";
  if (geteuid() == 0) {
    if (const std::string why = dsx::why_nobody_cannot_run_dsx(); !why.empty()) GTEST_SKIP() << why;
  }
  const Outcome r = run_dsx({"run", "studies/quickstart.yaml", "--quiet", "--out", out.string()}, dir_ / "locked.log",
                            {.as_nobody = geteuid() == 0});
  ASSERT_NE(r.exit_code, 126) << "could not drop privileges for the child";
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(r.output, "dsx run: error: cannot create folder " + out.string() + ": Permission denied\n");
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(Disk, AReadOnlyRunFolderLeavesItsStoreAsItWas) {
  const fs::path out = dir_ / "read_only";
  const std::vector<std::string> args = {"run", "studies/quickstart.yaml", "--quiet", "--out", out.string()};
  ASSERT_EQ(run_dsx(args, dir_ / "ro_first.log").exit_code, 0) << read_text(dir_ / "ro_first.log");
  const std::string store_before = read_text(out / "results.sqlite");
  fs::permissions(out, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                           fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  for (const auto& e : fs::recursive_directory_iterator(out)) {
    if (e.is_regular_file()) fs::permissions(e.path(), fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  }
  if (geteuid() == 0) {
    if (const std::string why = dsx::why_nobody_cannot_run_dsx(); !why.empty()) GTEST_SKIP() << why;
  }
  const Outcome r = run_dsx(args, dir_ / "ro_second.log", {.as_nobody = geteuid() == 0});
  fs::permissions(out, fs::perms::owner_all, fs::perm_options::add);
  ASSERT_NE(r.exit_code, 126) << "could not drop privileges for the child";
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const std::vector<std::string> lines = lines_of(r.output);
  ASSERT_EQ(lines.size(), 1U) << r.output;
  EXPECT_EQ(lines[0].rfind("dsx run: error: " + (out / "results.sqlite").string() + ": ", 0), 0U) << r.output;
  EXPECT_NE(lines[0].find("readonly"), std::string::npos) << r.output;
  EXPECT_EQ(read_text(out / "results.sqlite"), store_before);
}

TEST_F(Disk, ADiskFullDuringTheSweepKeepsCommittedRowsAndResumesToTheSameResults) {
  // A quarter of the finished store: a few blocks commit, then a write fails.
  const rlim_t limit = fs::file_size(dir_ / "baseline" / "results.sqlite") / 4;
  const fs::path out = dir_ / "full_store";
  const Outcome r = run_dsx(kill_resume_args(out), dir_ / "full_store.log", {.file_size_limit = limit});
  EXPECT_NE(r.exit_code, 128 + SIGXFSZ) << "dsx was killed by SIGXFSZ instead of reporting the failed write";
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const std::vector<std::string> lines = lines_of(r.output);
  ASSERT_EQ(lines.size(), 1U) << r.output;
  const std::string store_path = (out / "results.sqlite").string();
  EXPECT_EQ(lines[0].rfind("dsx run: error: " + store_path + ": ", 0), 0U) << r.output;
  EXPECT_NE(lines[0].find("disk I/O error (File too large)"), std::string::npos) << r.output;
  EXPECT_TRUE(leftovers(out).empty()) << leftovers(out).front();
  EXPECT_FALSE(fs::exists(out / "results.csv"));
  {
    const dsx::ResultStore committed(store_path, dsx::StoreMode::read_only);
    const std::uint64_t rows = committed.row_count();
    EXPECT_GT(rows, 0U);
    EXPECT_LT(rows, kKillResumePoints);
    EXPECT_EQ(committed.read_results().rows(), rows);
  }
  const Outcome resumed = run_dsx(kill_resume_args(out), dir_ / "full_store_resume.log");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_EQ(read_text(out / "results.csv"), baseline_csv());
}

TEST_F(Disk, ADiskFullWhileWritingOutputsNamesTheFileAndResumesToTheSameResults) {
  // Room for the whole store but not for results.csv, which is larger.
  const auto store_bytes = fs::file_size(dir_ / "baseline" / "results.sqlite");
  const rlim_t limit = store_bytes + (8 << 20);
  ASSERT_GT(fs::file_size(dir_ / "baseline" / "results.csv"), limit);
  const fs::path out = dir_ / "full_outputs";
  const Outcome r = run_dsx(kill_resume_args(out), dir_ / "full_outputs.log", {.file_size_limit = limit});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(r.output, "dsx run: error: cannot write " + (out / "results.csv").string() + ": File too large\n");
  EXPECT_FALSE(fs::exists(out / "results.csv"));
  EXPECT_TRUE(leftovers(out).empty()) << leftovers(out).front();
  {
    const dsx::ResultStore committed((out / "results.sqlite").string(), dsx::StoreMode::read_only);
    EXPECT_EQ(committed.row_count(), kKillResumePoints);
  }
  const Outcome resumed = run_dsx(kill_resume_args(out), dir_ / "full_outputs_resume.log");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_EQ(read_text(out / "results.csv"), baseline_csv());
}

// ---- no study value reaches a shell -----------------------------------------------------------

class NoShell : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("dsx_no_shell_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(NoShell, BackquotesInAFigureTitleAreDrawnNotRun) {
  const fs::path marker = dir_ / "backquote_ran";
  const std::string command = "`touch " + marker.string() + "`";
  std::ofstream(dir_ / "study.yaml") << "study: backquotes\n"
                                        "title: \"Study " << command << "\"\n"
                                        "question: \"Does gnuplot run " << command << "?\"\n"
                                        "solver: inference\n"
                                        "axes:\n"
                                        "  hardware: [a100_80gb_sxm, h100_sxm]\n"
                                        "  batch: [1, 8]\n"
                                        "fixed:\n"
                                        "  model: lab07_kws\n"
                                        "  precision: fp16\n"
                                        "  eta: 0.5\n"
                                        "  launch_overhead: 10 us\n"
                                        "figures:\n"
                                        "  - name: titled\n"
                                        "    kind: scatter\n"
                                        "    title: \"Latency " << command << "\"\n"
                                        "    caption: \"Caption " << command << "\"\n"
                                        "    x: batch\n"
                                        "    y: latency_s\n"
                                        "    group: hardware\n";
  const Outcome r = run_dsx({"run", (dir_ / "study.yaml").string(), "--quiet", "--out", (dir_ / "run").string(),
                             "--catalog", (kSourceDir / "tests/malformed/catalog").string()},
                            dir_ / "run.log");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::exists(marker)) << "gnuplot ran a command from a figure title";
  EXPECT_NE(read_text(dir_ / "run" / "figures" / "titled.svg").find("Latency " + command), std::string::npos);
}

TEST_F(NoShell, AFigureScriptWithABackquoteIsNotDrawn) {
  const fs::path marker = dir_ / "script_ran";
  dsx::FigureSource src;
  src.name = "guarded";
  src.title = "guarded";
  src.script = "# `a comment is never run`\nset print \"" + (dir_ / "printed").string() + "\"\nprint \"`touch " +
               marker.string() + "`\"\n";
  src.data = "0 0\n";
  EXPECT_THROW(dsx::render_figure_source(src, (dir_ / "figures").string()), std::runtime_error);
  EXPECT_FALSE(fs::exists(marker));
  EXPECT_FALSE(fs::exists(dir_ / "printed"));
}

TEST_F(NoShell, AFigureNameThatIsNotAPlainFileNameWritesNothing) {
  fs::create_directories(dir_ / "run" / "figures");
  const std::vector<std::string> names = {"../escaped", "/tmp/escaped", "..", ".hidden", "a/b", std::string("nul\0x", 5)};
  for (const std::string& name : names) {
    dsx::FigureSource src;
    src.name = name;
    src.title = "escape";
    src.script = "print 1\n";
    src.data = "0 0\n";
    EXPECT_THROW(dsx::render_figure_source(src, (dir_ / "run" / "figures").string()), std::invalid_argument) << name;
  }
  EXPECT_FALSE(fs::exists(dir_ / "run" / "escaped.gp"));
  EXPECT_TRUE(fs::is_empty(dir_ / "run" / "figures"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "run"), fs::directory_iterator()), 1);
}

TEST_F(NoShell, ALinkPlantedAtATemporaryNameIsReplacedNotFollowed) {
  const fs::path victim = dir_ / "outside.txt";
  std::ofstream(victim) << "precious\n";
  fs::create_directories(dir_ / "run");
  fs::create_symlink(victim, dir_ / "run" / "results.csv.tmp");
  dsx::write_file_atomic((dir_ / "run" / "results.csv").string(), "rows\n");
  EXPECT_EQ(read_text(victim), "precious\n");
  EXPECT_FALSE(fs::is_symlink(dir_ / "run" / "results.csv"));
  EXPECT_EQ(read_text(dir_ / "run" / "results.csv"), "rows\n");
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir_ / "run" / "results.csv.tmp")));
}

// ---- hostile input at the command line ----------------------------------------------------------

// A case is a folder of tests/malformed/catalog holding hardware.yaml, models.yaml and `expected`.
std::vector<fs::path> catalog_cases() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(kSourceDir / "tests/malformed/catalog")) {
    if (e.is_directory() && fs::exists(e.path() / "expected")) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(HostileCatalog, EachCaseReportsExactlyItsExpectedDiagnosticsAndAddsNoEntry) {
  const std::vector<fs::path> cases = catalog_cases();
  ASSERT_GE(cases.size(), 4U);
  for (const fs::path& dir : cases) {
    const std::string shown = "tests/malformed/catalog/" + dir.filename().string();
    dsx::Diagnostics d;
    dsx::Catalog catalog;
    dsx::load_hardware_text(shown + "/hardware.yaml", read_text(dir / "hardware.yaml"), catalog, d);
    dsx::load_models_text(shown + "/models.yaml", read_text(dir / "models.yaml"), catalog, d);
    EXPECT_EQ(d.format(), read_text(dir / "expected")) << shown;
    EXPECT_TRUE(catalog.hardware.empty()) << shown << " added " << catalog.hardware.front().id;
    EXPECT_TRUE(catalog.models.empty()) << shown << " added " << catalog.models.front().id;
  }
}

TEST(HostileCatalog, TheCommandLineRefusesEachCaseWithExitCodeTwo) {
  const fs::path log = fs::temp_directory_path() / ("dsx_hostile_catalog_" + std::to_string(::getpid()) + ".log");
  for (const fs::path& dir : catalog_cases()) {
    const std::string shown = "tests/malformed/catalog/" + dir.filename().string();
    const Outcome listed = run_dsx({"catalog", "--catalog", shown}, log);
    EXPECT_EQ(listed.exit_code, 2) << shown << "\n" << listed.output;
    EXPECT_NE(listed.output.find(read_text(dir / "expected")), std::string::npos) << shown << "\n" << listed.output;
    const Outcome validated = run_dsx({"validate", "studies/quickstart.yaml", "--catalog", shown}, log);
    EXPECT_EQ(validated.exit_code, 2) << shown << "\n" << validated.output;
    EXPECT_NE(validated.output.find(shown + "/hardware.yaml:"), std::string::npos) << validated.output;
  }
  fs::remove(log);
}

TEST(HostileStudy, ValidateRefusesEveryMalformedStudyWithExitCodeTwoAndItsDiagnostics) {
  const fs::path log = fs::temp_directory_path() / ("dsx_hostile_study_" + std::to_string(::getpid()) + ".log");
  int checked = 0;
  for (const auto& e : fs::directory_iterator(kSourceDir / "tests/malformed")) {
    if (e.path().extension() != ".yaml") continue;
    const std::string shown = "tests/malformed/" + e.path().filename().string();
    const Outcome r = run_dsx({"validate", shown, "--catalog", "tests/malformed/catalog"}, log);
    fs::path expected = e.path();
    expected.replace_extension(".expected");
    EXPECT_EQ(r.exit_code, 2) << shown << "\n" << r.output;
    EXPECT_EQ(r.output, read_text(expected)) << shown;
    ++checked;
  }
  EXPECT_GE(checked, 10);
  fs::remove(log);
}

TEST(HostileStudy, AGridBeyond64BitsIsRefusedByValidateAndRunBeforeAnythingIsWritten) {
  const fs::path dir = fs::temp_directory_path() / ("dsx_grid_overflow_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string study = "tests/malformed/grid_overflow.yaml";
  const std::string expected_head =
      study + ":6:3: error: axes: the grid has more than 2^64 design points; sweep fewer values\n";
  const Outcome validated = run_dsx({"validate", study, "--catalog", "tests/malformed/catalog"}, dir / "v.log");
  EXPECT_EQ(validated.exit_code, 2) << validated.output;
  EXPECT_EQ(validated.output.rfind(expected_head, 0), 0U) << validated.output;
  const Outcome run = run_dsx({"run", study, "--quiet", "--catalog", "tests/malformed/catalog", "--out",
                               (dir / "run").string()},
                              dir / "r.log");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_EQ(run.output.rfind(expected_head, 0), 0U) << run.output;
  EXPECT_FALSE(fs::exists(dir / "run"));
  fs::remove_all(dir);
}

}  // namespace
