// The run folder's ledger and lock (output/run_folder.hpp): what dsx records, what --fresh may
// remove, and who holds a folder.
#include "output/run_folder.hpp"

#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "output/files.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

TEST(RunFolder, AMissingOrEmptyFolderIsClaimedAndMarked) {
  TempDir tmp("run_folder");
  const std::string dir = tmp.path() + "/new/run";
  const RunFolderClaim claim = claim_run_folder(dir, "dsx run a.yaml", WhenHeld::fail);
  ASSERT_TRUE(claim.lock) << claim.error;
  EXPECT_TRUE(fs::is_regular_file(fs::path(dir) / kRunFolderLedger));
  const std::string holder = read_text(fs::path(dir) / kRunFolderLock);
  EXPECT_EQ(holder.rfind("PID " + std::to_string(::getpid()) + " (dsx run a.yaml, started ", 0), 0u) << holder;
}

TEST(RunFolder, AFolderWithOtherFilesIsRefusedAndLeftAsItWas) {
  TempDir tmp("run_folder");
  std::ofstream(tmp.path() + "/notes.txt") << "mine";
  fs::create_directories(tmp.path() + "/sub");
  std::ofstream(tmp.path() + "/sub/a.tex") << "mine";
  const RunFolderClaim claim = claim_run_folder(tmp.path(), "dsx run a.yaml", WhenHeld::fail);
  EXPECT_FALSE(claim.lock);
  EXPECT_TRUE(claim.not_a_run_folder);
  EXPECT_NE(claim.error.find("holds files dsx did not write (notes.txt, sub/)"), std::string::npos)
      << claim.error;
  EXPECT_FALSE(fs::exists(tmp.path() + "/" + std::string(kRunFolderLedger)));
  EXPECT_FALSE(fs::exists(tmp.path() + "/" + std::string(kRunFolderLock)));
}

TEST(RunFolder, AFolderOfAnEarlierDsxIsAdopted) {
  TempDir tmp("run_folder");
  std::ofstream(tmp.path() + "/results.sqlite") << "";
  std::ofstream(tmp.path() + "/study.resolved.yaml") << "";
  ASSERT_TRUE(claim_run_folder(tmp.path(), "dsx run a.yaml", WhenHeld::fail).lock);
  EXPECT_TRUE(remove_written_files(tmp.path()).empty());
  EXPECT_FALSE(fs::exists(tmp.path() + "/results.sqlite"));
}

TEST(RunFolder, ALinkedLedgerIsRefused) {
  TempDir tmp("run_folder");
  std::ofstream(tmp.path() + "/elsewhere") << "";
  fs::create_directories(tmp.path() + "/run");
  fs::create_symlink(tmp.path() + "/elsewhere", tmp.path() + "/run/" + std::string(kRunFolderLedger));
  const RunFolderClaim claim = claim_run_folder(tmp.path() + "/run", "dsx run a.yaml", WhenHeld::fail);
  EXPECT_FALSE(claim.lock);
  EXPECT_NE(claim.error.find("is not a regular file"), std::string::npos) << claim.error;
}

TEST(RunFolder, ASecondClaimSaysWhoHoldsTheFolder) {
  TempDir tmp("run_folder");
  const RunFolderClaim first = claim_run_folder(tmp.path(), "dsx run a.yaml", WhenHeld::fail);
  ASSERT_TRUE(first.lock);
  // flock locks belong to the open file description: a second open in this process conflicts as a
  // second process would.
  const RunFolderClaim second = claim_run_folder(tmp.path(), "dsx run b.yaml", WhenHeld::fail);
  EXPECT_FALSE(second.lock);
  EXPECT_FALSE(second.not_a_run_folder);
  EXPECT_NE(second.error.find("is in use by PID " + std::to_string(::getpid()) + " (dsx run a.yaml, started "),
            std::string::npos)
      << second.error;
}

TEST(RunFolder, TheLockOfAProcessThatIsGoneIsTakenOver) {
  TempDir tmp("run_folder");
  { ASSERT_TRUE(claim_run_folder(tmp.path(), "dsx run a.yaml", WhenHeld::fail).lock); }
  std::ofstream(tmp.path() + "/" + std::string(kRunFolderLock)) << "PID 999999 (dsx run old.yaml, started 2026-01-01)\n";
  const RunFolderClaim claim = claim_run_folder(tmp.path(), "dsx run b.yaml", WhenHeld::fail);
  ASSERT_TRUE(claim.lock) << claim.error;
  EXPECT_NE(read_text(tmp.path() + "/" + std::string(kRunFolderLock)).find("dsx run b.yaml"), std::string::npos);
}

TEST(RunFolder, WrittenFilesAreRecordedOnceAndFreshRemovesOnlyThem) {
  TempDir tmp("run_folder");
  ASSERT_TRUE(claim_run_folder(tmp.path(), "dsx run a.yaml", WhenHeld::fail).lock);
  make_directories(tmp.path() + "/figures");
  write_file_atomic(tmp.path() + "/report.md", "report");
  write_file_atomic(tmp.path() + "/report.md", "report again");
  write_file_atomic(tmp.path() + "/figures/f.svg", "<svg/>");
  std::ofstream(tmp.path() + "/figures/notes.tex") << "mine";
  std::ofstream(tmp.path() + "/mine.csv") << "mine";
  const std::string ledger = read_text(tmp.path() + "/" + std::string(kRunFolderLedger));
  EXPECT_NE(ledger.find("\nreport.md\nfigures/f.svg\n"), std::string::npos) << ledger;
  const std::vector<std::string> left = remove_written_files(tmp.path());
  EXPECT_EQ(left, (std::vector<std::string>{"figures/notes.tex", "mine.csv"}));
  EXPECT_FALSE(fs::exists(tmp.path() + "/report.md"));
  EXPECT_FALSE(fs::exists(tmp.path() + "/figures/f.svg"));
  EXPECT_EQ(read_text(tmp.path() + "/figures/notes.tex"), "mine");
}

TEST(RunFolder, FreshNeverRemovesOutsideTheFolderNorThroughALink) {
  TempDir tmp("run_folder");
  const std::string run = tmp.path() + "/run";
  ASSERT_TRUE(claim_run_folder(run, "dsx run a.yaml", WhenHeld::fail).lock);
  fs::create_directories(tmp.path() + "/outside");
  std::ofstream(tmp.path() + "/outside/keep") << "keep";
  std::ofstream(tmp.path() + "/sibling") << "keep";
  fs::create_directory_symlink(tmp.path() + "/outside", run + "/linked");
  std::ofstream(run + "/" + std::string(kRunFolderLedger), std::ios::app)
      << "../sibling\n" << tmp.path() << "/sibling\nlinked/keep\n" << kRunFolderLock << "\n";
  remove_written_files(run);
  EXPECT_TRUE(fs::exists(tmp.path() + "/sibling"));
  EXPECT_TRUE(fs::exists(tmp.path() + "/outside/keep"));
  EXPECT_TRUE(fs::exists(run + "/" + std::string(kRunFolderLock)));
}

// A file written in pieces appears whole, or not at all: nothing lands at its name before commit().
TEST(RunFolder, AFileWrittenInPiecesAppearsOnlyWhenCommitted) {
  TempDir tmp("run_folder");
  ASSERT_TRUE(claim_run_folder(tmp.path(), "dsx run a.yaml", WhenHeld::fail).lock);
  const std::string path = tmp.path() + "/results.csv";
  write_file_atomic(path, "old");
  {
    AtomicFileWriter file(path);
    file.append("a,b\n");
    file.append("1,2\n");
    EXPECT_EQ(read_text(path), "old");
  }  // abandoned: the temporary goes, the old file stays
  EXPECT_EQ(read_text(path), "old");
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  AtomicFileWriter file(path);
  file.append("a,b\n");
  file.append("1,2\n");
  file.commit();
  EXPECT_EQ(read_text(path), "a,b\n1,2\n");
  EXPECT_THROW(file.commit(), std::logic_error);
  EXPECT_THROW(file.append("x"), std::logic_error);
  const std::string ledger = read_text(tmp.path() + "/" + std::string(kRunFolderLedger));
  EXPECT_NE(ledger.find("\nresults.csv\n"), std::string::npos) << ledger;
}

TEST(RunFolder, AFileOutsideAnyRunFolderIsNotRecorded) {
  TempDir tmp("run_folder");
  write_file_atomic(tmp.path() + "/profile.yaml", "x");
  EXPECT_FALSE(fs::exists(tmp.path() + "/" + std::string(kRunFolderLedger)));
}

}  // namespace
}  // namespace dsx
