// dsx: design-space explorer for ML systems. `dsx --help` lists the commands.
#include <csignal>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <fmt/format.h>

#include "dse/cli/commands.hpp"
#include "dse/cli/distributed.hpp"
#include "dse/diagnostics.hpp"

namespace {

void print_usage() {
  fmt::print("usage: dsx <command> [options]\n\ncommands:\n");
  for (const auto& c : dsx::cli::commands()) fmt::print("  {:<10} {}\n", c.name, c.summary);
  fmt::print("\n`dsx <command> --help` describes a command's options.\n"
             "exit codes: 0 success, 1 runtime failure, 2 bad input, 3 a study assertion failed,\n"
             "4 dsx eval: the point is infeasible, 5 the report is written but a figure or analysis is\n"
             "missing (said on stderr and in the report)\n");
}

}  // namespace

int main(int argc, char** argv) {
  // Under mpirun every rank runs this program; only `dsx run` uses the other ranks (dse/cli/distributed.hpp).
  const dsx::cli::MpiSession mpi(&argc, &argv);
  // Past a file-size limit (ulimit -f) a write fails with EFBIG and is reported like a full disk,
  // naming the file, instead of SIGXFSZ killing the process mid-write.
  std::signal(SIGXFSZ, SIG_IGN);
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_usage();
    return args.empty() ? dsx::cli::kBadInput : dsx::cli::kSuccess;
  }
  if (args[0] == "--version") {
    fmt::print("dsx {} ({}){}\n", DSX_VERSION, DSX_GIT_REVISION, dsx::cli::built_with_mpi() ? ", with MPI" : "");
    return dsx::cli::kSuccess;
  }
  if (dsx::cli::world_rank() > 0 && args[0] != "run") return dsx::cli::kSuccess;  // rank 0 does it
  for (const auto& c : dsx::cli::commands()) {
    if (c.name != args[0]) continue;
    try {
      return c.run(std::vector<std::string>(args.begin() + 1, args.end()));
    } catch (const std::exception& e) {
      fmt::print(stderr, "dsx {}: error: {}\n", c.name, e.what());
      return dsx::cli::kRuntimeFailure;
    }
  }
  std::vector<std::string> names;
  for (const auto& c : dsx::cli::commands()) names.emplace_back(c.name);
  const std::string near = dsx::closest_match(args[0], names);
  fmt::print(stderr, "dsx: error: unknown command '{}'{}; valid commands: {}\n", args[0],
             near.empty() ? "" : fmt::format("; did you mean '{}'?", near), fmt::join(names, ", "));
  return dsx::cli::kBadInput;
}
