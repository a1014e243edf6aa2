// Running commands from the CLI tests through the shell, in the source folder, with stdout and
// stderr together: dsx as a user types it, and the tools around it (mpirun, sbatch, sh scripts).
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace dsx {

struct CommandResult {
  int exit_code = -1;  // -1 when the command did not exit normally
  std::string out;
};

// Runs `command` with /bin/sh in DSX_SOURCE_DIR; arguments are trusted test strings.
inline CommandResult run_shell(const std::string& command) {
  CommandResult r;
  FILE* pipe = popen(("cd '" + std::string(DSX_SOURCE_DIR) + "' && " + command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) r.out += buffer;
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// `dsx ARGS` with the binary under test.
inline CommandResult run_dsx(const std::string& args) { return run_shell(std::string("'") + DSX_BINARY + "' " + args); }

}  // namespace dsx
