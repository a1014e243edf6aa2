// The dsx command table: one entry per subcommand, each a function from its arguments to an exit
// code (DESIGN.md section 2): 0 success, 1 runtime failure, 2 bad input, 3 a study assertion failed.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dsx::cli {

enum ExitCode : int { kSuccess = 0, kRuntimeFailure = 1, kBadInput = 2, kAssertionFailed = 3 };

struct Command {
  std::string_view name;
  std::string_view summary;
  int (*run)(const std::vector<std::string>& args);
};

std::span<const Command> commands();

int run_command(const std::vector<std::string>& args);
int validate_command(const std::vector<std::string>& args);
int eval_command(const std::vector<std::string>& args);
int catalog_command(const std::vector<std::string>& args);
int report_command(const std::vector<std::string>& args);
int merge_command(const std::vector<std::string>& args);
int calibrate_command(const std::vector<std::string>& args);
int accuracy_command(const std::vector<std::string>& args);

// Where shipped data lives: the catalog and the templates (overridable per command).
// Where the catalog, the templates and the shipped studies are: $DSX_DATA_DIR when set; else an
// installed tree's <prefix>/share/dsx beside <prefix>/bin/dsx (cmake --install, the .deb); else the
// source tree dsx was built from.
std::string data_dir();
std::string default_catalog_dir();
std::string default_template_dir();

}  // namespace dsx::cli
