// Running the dsx binary from the CLI tests: fork, optional limits, exec with the arguments as
// they are (no shell), output to a log file; and waiting for it with its exit code and peak memory.
#pragma once

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/test_files.hpp"

namespace dsx {

struct ChildOptions {
  rlim_t file_size_limit = RLIM_INFINITY;  // RLIMIT_FSIZE: writes past it fail with EFBIG
  bool as_nobody = false;                  // drop to uid/gid 65534 before exec
};

struct ChildProcess {
  pid_t pid = -1;
};

struct ChildExit {
  int exit_code = -1;  // 128 + signal when killed
  long long max_resident_bytes = 0;
};

// Starts dsx in the source folder with stdout and stderr appended to `log`.
inline ChildProcess start_dsx(const std::vector<std::string>& args, const std::filesystem::path& log,
                              const ChildOptions& options = {}) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (chdir(DSX_SOURCE_DIR) != 0) _exit(126);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0666);
    if (fd < 0) _exit(126);
    dup2(fd, 1);
    dup2(fd, 2);
    signal(SIGXFSZ, SIG_DFL);
    if (options.file_size_limit != RLIM_INFINITY) {
      const rlimit limit{options.file_size_limit, options.file_size_limit};
      if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(126);
    }
    constexpr gid_t kNobody = 65534;
    if (options.as_nobody && (setgroups(0, nullptr) != 0 || setgid(kNobody) != 0 || setuid(kNobody) != 0)) _exit(126);
    std::vector<std::string> copy = args;
    std::string binary = DSX_BINARY;
    std::vector<char*> argv{binary.data()};
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  return ChildProcess{pid};
}

inline ChildExit wait_child(const ChildProcess& child) {
  int status = 0;
  rusage usage{};
  wait4(child.pid, &status, 0, &usage);
  ChildExit out;
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
  out.max_resident_bytes = static_cast<long long>(usage.ru_maxrss) * 1024;  // ru_maxrss is in KiB on Linux
  return out;
}

// "" when dsx can run as uid 65534 (ChildOptions::as_nobody): the checkout and the binary are
// reachable by others. Otherwise why not, for a test to skip with: a checkout under /root, say.
inline std::string why_nobody_cannot_run_dsx() {
  const pid_t pid = fork();
  if (pid == 0) {
    constexpr gid_t kNobody = 65534;
    if (setgroups(0, nullptr) != 0 || setgid(kNobody) != 0 || setuid(kNobody) != 0) _exit(1);
    if (chdir(DSX_SOURCE_DIR) != 0) _exit(2);
    if (access(DSX_BINARY, X_OK) != 0) _exit(3);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 0) return "";
  if (code == 1) return "cannot drop privileges to uid 65534";
  return std::string("as root these tests run dsx as nobody (uid 65534), who cannot reach ") +
         (code == 2 ? DSX_SOURCE_DIR : DSX_BINARY) + "; run them from a checkout others can enter";
}

}  // namespace dsx
