// A run folder has one owner and holds only what dsx put there.
//
// - The ledger `.dsx-run` marks a folder as a dsx run folder and names, one relative path per line,
//   every file dsx wrote below it (write_file_atomic records them). dsx writes only into a folder
//   that is missing, empty, or a run folder; `--fresh` removes only what the ledger names and says
//   which other files it left alone.
// - The lock `.dsx-run.lock` is held with flock(2) for the whole life of the command that writes the
//   folder; its text names the holder (PID, start time, command) so that a second command can say
//   who holds it. The kernel drops a flock when its process dies, so the lock file a killed run
//   leaves behind is taken over by the next command with no clean-up and no race.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dsx {

inline constexpr std::string_view kRunFolderLedger = ".dsx-run";
inline constexpr std::string_view kRunFolderLock = ".dsx-run.lock";

// Holds a run folder's lock until destroyed.
class RunFolderLock {
 public:
  explicit RunFolderLock(int fd) : fd_(fd) {}
  RunFolderLock(RunFolderLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  RunFolderLock& operator=(RunFolderLock&&) = delete;
  RunFolderLock(const RunFolderLock&) = delete;
  ~RunFolderLock();

 private:
  int fd_;
};

enum class WhenHeld {
  fail,  // another command holds the folder: give up at once
  wait,  // wait until it lets go (dsx report on a folder being swept)
};

struct RunFolderClaim {
  std::optional<RunFolderLock> lock;  // set when the folder is ours
  bool not_a_run_folder = false;      // refused as a folder dsx may not write (exit 2); else exit 1
  std::string error;                  // why it was refused: held by another command, not a run folder, I/O
};

// Claims `dir` for `command` (e.g. "dsx run studies/x.yaml"): creates it when missing, refuses a
// folder that holds files but no ledger (a folder of dsx's from before the ledger, holding
// results.sqlite and study.resolved.yaml, is adopted), writes the ledger, and takes the lock.
// `on_wait` is told who holds the folder before a WhenHeld::wait claim blocks.
RunFolderClaim claim_run_folder(const std::string& dir, std::string_view command, WhenHeld when_held,
                                const std::function<void(std::string_view holder)>& on_wait = {});

// Adds `path` (a file just written) to the ledger of the run folder it lies in, if it lies in one
// (the folder itself or up to two levels above it). Does nothing when no ledger is found.
void record_written_file(const std::string& path);

// Removes every file the ledger of `dir` names (never a path that leaves the folder or passes
// through a symbolic link), then the folders that became empty, and empties the ledger. Returns the
// files left in the folder that dsx did not write, relative to `dir`, sorted.
std::vector<std::string> remove_written_files(const std::string& dir);

}  // namespace dsx
