#include "output/run_folder.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/core.h>

namespace dsx {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kLedgerHeader =
    "# Files dsx wrote in this run folder, one per line; dsx run --fresh removes only these.\n";

bool is_regular_file_not_link(const fs::path& p) {
  std::error_code ec;
  return fs::symlink_status(p, ec).type() == fs::file_type::regular;
}

std::vector<std::string> ledger_entries(const fs::path& ledger) {
  std::vector<std::string> out;
  std::ifstream in(ledger);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') out.push_back(line);
  }
  return out;
}

bool dsx_own_name(const fs::path& relative) {
  return relative == fs::path(kRunFolderLedger) || relative == fs::path(kRunFolderLock);
}

// Every file or link below `dir` (not the folders themselves), relative to it, sorted.
std::vector<std::string> files_below(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) continue;
    const fs::path relative = it->path().lexically_relative(dir);
    if (!dsx_own_name(relative)) out.push_back(relative.generic_string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The entries of `dir` itself (a folder with a trailing "/"), sorted: never a walk below it, so that
// `--out /` is refused at once.
std::vector<std::string> top_entries(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!dsx_own_name(name)) names.push_back(name + (it->is_directory(ec) && !it->is_symlink(ec) ? "/" : ""));
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string listing(const std::vector<std::string>& names, std::size_t shown) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < shown; ++i) out += (i == 0 ? "" : ", ") + names[i];
  if (names.size() > shown) out += fmt::format(" and {} more", names.size() - shown);
  return out;
}

// A ledger entry dsx may remove: relative, inside the folder, every folder on the way a real one.
bool removable(const fs::path& dir, const std::string& entry) {
  const fs::path relative(entry);
  if (entry.empty() || relative.is_absolute() || dsx_own_name(relative)) return false;
  fs::path at = dir;
  for (const fs::path& part : relative.parent_path()) {
    if (part == ".." || part == ".") return false;
    at /= part;
    std::error_code ec;
    if (fs::symlink_status(at, ec).type() != fs::file_type::directory) return false;
  }
  return relative.filename() != ".." && relative.filename() != ".";
}

std::string holder_text(std::string_view command) {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char started[32];
  std::strftime(started, sizeof started, "%Y-%m-%d %H:%M:%S UTC", &utc);
  return fmt::format("PID {} ({}, started {})", static_cast<long>(::getpid()), command, started);
}

std::string read_holder(int fd) {
  std::string text(512, '\0');
  const ssize_t n = ::pread(fd, text.data(), text.size(), 0);
  text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
  return text.empty() ? "another dsx command" : text;
}

}  // namespace

RunFolderLock::~RunFolderLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

RunFolderClaim claim_run_folder(const std::string& dir, std::string_view command, WhenHeld when_held,
                                const std::function<void(std::string_view holder)>& on_wait) {
  RunFolderClaim claim;
  const fs::path folder(dir.empty() ? "." : dir);
  std::error_code ec;
  const fs::file_status status = fs::status(folder, ec);
  if (fs::exists(status) && !fs::is_directory(status)) {
    claim.not_a_run_folder = true;
    claim.error = fmt::format("{} is not a folder", dir);
    return claim;
  }
  if (!fs::exists(status)) {
    fs::create_directories(folder, ec);
    if (ec) {
      claim.error = fmt::format("cannot create folder {}: {}", dir, ec.message());
      return claim;
    }
  }
  const fs::path ledger = folder / kRunFolderLedger;
  if (!is_regular_file_not_link(ledger)) {
    if (fs::exists(fs::symlink_status(ledger, ec))) {
      claim.not_a_run_folder = true;
      claim.error = fmt::format("{} is not a regular file; a run folder's ledger must be one", ledger.string());
      return claim;
    }
    const std::vector<std::string> present = top_entries(folder);
    const bool earlier_run_folder =
        is_regular_file_not_link(folder / "results.sqlite") && is_regular_file_not_link(folder / "study.resolved.yaml");
    if (!present.empty() && !earlier_run_folder) {
      claim.not_a_run_folder = true;
      claim.error = fmt::format(
          "{} holds files dsx did not write ({}); dsx writes only into an empty folder or a run folder of its own: "
          "choose another folder",
          dir, listing(present, 3));
      return claim;
    }
    std::ofstream out(ledger, std::ios::binary);
    out << kLedgerHeader;
    if (earlier_run_folder) out << "results.sqlite\nstudy.resolved.yaml\n";
    if (!out.flush()) {
      claim.error = fmt::format("cannot write {}: {}", ledger.string(), std::strerror(errno));
      return claim;
    }
  }
  const fs::path lock_path = folder / kRunFolderLock;
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
  // A read-only run folder is still locked (flock needs no write access); what writes there fails
  // later with its own message.
  const bool read_only = fd < 0 && (errno == EACCES || errno == EROFS);
  if (read_only) fd = ::open(lock_path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    claim.error = fmt::format("cannot open {}: {}", lock_path.string(), std::strerror(errno));
    return claim;
  }
  RunFolderLock lock(fd);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK) {
      claim.error = fmt::format("cannot lock {}: {}", lock_path.string(), std::strerror(errno));
      return claim;
    }
    const std::string holder = read_holder(fd);
    if (when_held == WhenHeld::fail) {
      claim.error = fmt::format("{} is in use by {}; wait for it to finish or choose another folder", dir, holder);
      return claim;
    }
    if (on_wait) on_wait(holder);
    if (::flock(fd, LOCK_EX) != 0) {
      claim.error = fmt::format("stopped waiting for {} to let go of {}: {}", holder, dir, std::strerror(errno));
      return claim;
    }
  }
  const std::string text = holder_text(command) + "\n";
  if (!read_only && (::ftruncate(fd, 0) != 0 ||
                     ::pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()))) {
    claim.error = fmt::format("cannot write {}: {}", lock_path.string(), std::strerror(errno));
    return claim;
  }
  claim.lock.emplace(std::move(lock));
  return claim;
}

void record_written_file(const std::string& path) {
  fs::path folder = fs::path(path).parent_path();
  fs::path relative = fs::path(path).filename();
  for (int level = 0; level < 3; ++level) {
    const fs::path ledger = (folder.empty() ? fs::path(".") : folder) / kRunFolderLedger;
    if (is_regular_file_not_link(ledger)) {
      const std::string entry = relative.generic_string();
      const std::vector<std::string> entries = ledger_entries(ledger);
      if (std::find(entries.begin(), entries.end(), entry) == entries.end()) {
        std::ofstream(ledger, std::ios::binary | std::ios::app) << entry << '\n';
      }
      return;
    }
    if (folder.empty() || !folder.has_filename() || folder.filename() == ".." || folder.filename() == ".") return;
    relative = folder.filename() / relative;
    folder = folder.parent_path();
  }
}

std::vector<std::string> remove_written_files(const std::string& dir) {
  const fs::path folder(dir);
  const fs::path ledger = folder / kRunFolderLedger;
  std::set<fs::path, std::greater<>> parents;  // deepest first
  for (const std::string& entry : ledger_entries(ledger)) {
    if (!removable(folder, entry)) continue;
    std::error_code ec;
    fs::remove(folder / entry, ec);
    for (fs::path p = fs::path(entry).parent_path(); !p.empty(); p = p.parent_path()) parents.insert(p);
  }
  for (const fs::path& p : parents) {
    std::error_code ec;
    fs::remove(folder / p, ec);  // only when empty
  }
  if (is_regular_file_not_link(ledger)) std::ofstream(ledger, std::ios::binary | std::ios::trunc) << kLedgerHeader;
  return files_below(folder);
}

}  // namespace dsx
