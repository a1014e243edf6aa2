// The physics fingerprint (dse/physics_fingerprint.hpp) follows what the solver computes at the
// study's probe points, not the study's text, and a run folder whose stored fingerprint differs is
// refused on resume and on merge, with the --fresh hint.
#include "dse/physics_fingerprint.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "dse/store.hpp"
#include "tests/cli/shell.hpp"
#include "tests/dse/study_text.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

const std::string kCatalog = std::string(DSX_SOURCE_DIR) + "/studies/catalog";
const std::string kQuickstart = read_text(fs::path(DSX_SOURCE_DIR) / "studies/quickstart.yaml");

std::string fingerprint_of(const std::string& text) {
  const Loaded loaded = load_study_for_test(text, kCatalog);
  if (!loaded.study) {
    ADD_FAILURE() << loaded.diagnostics;
    return "";
  }
  return physics_fingerprint(*loaded.study);
}

TEST(PhysicsFingerprint, FollowsTheSolversResultsNotTheStudysWords) {
  const std::string base = fingerprint_of(kQuickstart);
  ASSERT_EQ(base.size(), 16U);
  EXPECT_EQ(fingerprint_of(kQuickstart), base);
  EXPECT_EQ(fingerprint_of(replaced(kQuickstart, "title: \"Predict first\"", "title: \"Guess first\"")), base);
  // An input the physics reads moves every probe's metrics...
  EXPECT_NE(fingerprint_of(replaced(kQuickstart, "  eta: 0.5\n", "  eta: 0.51\n")), base);
  // ... but a last-bit difference (another build's rounding) does not.
  EXPECT_EQ(fingerprint_of(replaced(kQuickstart, "  eta: 0.5\n", "  eta: 0.5000000000000001\n")), base);
}

void set_stored_fingerprint(const std::string& run_dir, const std::string& value) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((run_dir + "/results.sqlite").c_str(), &db), SQLITE_OK);
  const std::string sql = "UPDATE meta SET value = '" + value + "' WHERE key = 'physics_fingerprint'";
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  EXPECT_EQ(sqlite3_changes(db), 1);
  sqlite3_close(db);
}

TEST(PhysicsFingerprintCli, AFolderComputedByOtherPhysicsIsNotResumed) {
  TempDir tmp("physics_fingerprint");
  const std::string study = tmp.path() + "/quickstart.yaml", out = tmp.path() + "/run";
  write_text(study, kQuickstart);
  ASSERT_EQ(run_dsx("run '" + study + "' --quiet --out '" + out + "'").exit_code, 0);
  const std::string computed = fingerprint_of(kQuickstart);
  EXPECT_EQ(ResultStore(result_store_path(out)).meta(kPhysicsFingerprintKey), computed);
  const std::string rows = read_text(out + "/results.csv");

  set_stored_fingerprint(out, "00000000000000ff");
  CommandResult r = run_dsx("run '" + study + "' --quiet --out '" + out + "'");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("dsx run: error: " + out + " holds rows that another version of the inference solver "
                       "computed: its results at the study's probe points differ (physics_fingerprint "
                       "00000000000000ff there, " + computed + " now)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("to start over in this folder: dsx run " + study + " --fresh"), std::string::npos) << r.out;
  EXPECT_EQ(read_text(out + "/results.csv"), rows);

  r = run_dsx("run '" + study + "' --quiet --fresh --out '" + out + "'");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(ResultStore(result_store_path(out)).meta(kPhysicsFingerprintKey), computed);
  EXPECT_EQ(read_text(out + "/results.csv"), rows);
}

TEST(PhysicsFingerprintCli, ShardsComputedByOtherPhysicsDoNotMerge) {
  TempDir tmp("physics_fingerprint");
  const std::string base = tmp.path();
  write_text(base + "/q.yaml", kQuickstart);
  ASSERT_EQ(run_dsx("run '" + base + "/q.yaml' --quiet --out '" + base + "/s0' --shard 0/2").exit_code, 0);
  ASSERT_EQ(run_dsx("run '" + base + "/q.yaml' --quiet --out '" + base + "/s1' --shard 1/2").exit_code, 0);
  // Every shard probes the whole grid, so both store the same fingerprint.
  EXPECT_EQ(ResultStore(result_store_path(base + "/s0")).meta(kPhysicsFingerprintKey),
            ResultStore(result_store_path(base + "/s1")).meta(kPhysicsFingerprintKey));
  set_stored_fingerprint(base + "/s1", "00000000000000ff");
  const CommandResult m = run_dsx("merge '" + base + "/merged' '" + base + "/s0' '" + base + "/s1'");
  EXPECT_NE(m.exit_code, 0) << m.out;
  EXPECT_NE(m.out.find(base + "/s1 was made with physics_fingerprint 00000000000000ff, " + base + "/s0 with "),
            std::string::npos)
      << m.out;
}

}  // namespace
}  // namespace dsx
