// The dsx command table: one entry per subcommand, each a function from its arguments to an exit
// code (DESIGN.md section 2): 0 success, 1 runtime failure, 2 bad input, 3 a study assertion failed,
// 5 the report written with a figure or analysis missing.
#pragma once

#include <optional>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "dse/catalog.hpp"
#include "dse/study.hpp"
#include <string_view>
#include <vector>

namespace dsx::cli {

// 4: `dsx eval` evaluated the point and the solver found it infeasible (the reason is printed), so a
// script can tell it from a point that works without reading the output.
// 5: the report is written but incomplete: a figure was not drawn or a break-even or sensitivity
// analysis could not run; each is printed on stderr and shown in the report in its place. A failed
// assertion (3) takes precedence.
enum ExitCode : int {
  kSuccess = 0,
  kRuntimeFailure = 1,
  kBadInput = 2,
  kAssertionFailed = 3,
  kInfeasible = 4,
  kReportIncomplete = 5
};

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
// `dsx catalog import-hf` (dse/cli/import_hf.cpp): a Hugging Face config.json as a models.yaml entry.
int import_hf_command(const std::vector<std::string>& args);
int report_command(const std::vector<std::string>& args);
int merge_command(const std::vector<std::string>& args);
// `dsx diff RUN_A RUN_B` (dse/cli/diff.cpp): exit 0 when the runs agree, 1 when they differ, 2 on bad input.
int diff_command(const std::vector<std::string>& args);
int calibrate_command(const std::vector<std::string>& args);
int accuracy_command(const std::vector<std::string>& args);

// Where the catalog, the templates and the shipped studies are: $DSX_DATA_DIR when set; else an
// installed tree's <prefix>/share/dsx beside <prefix>/bin/dsx (cmake --install, the .deb); else the
// source tree dsx was built from.
std::string data_dir();
std::string default_catalog_dir();
std::string default_template_dir();

// The pieces of `dsx eval` and `dsx catalog` the Python module shares.
// A one-point study of `solver` with `assignments` ("key=value", as on the command line), checked like
// a study file; nullopt with every problem in `errors` otherwise.
std::optional<ResolvedStudy> one_point_study(const std::string& solver, const std::vector<std::string>& assignments,
                                             const std::string& catalog_dir, const std::string& calibration,
                                             std::string& errors);
// One evaluated point as `dsx eval --json` prints it: inputs, status, metrics, units, intervals.
nlohmann::ordered_json point_json(const ResolvedStudy& study, const PointInputs& inputs, std::span<const double> values,
                                  const PointResult& result);
// A catalog section ("all", "hardware", "models", a bundle kind's list key, "solvers") as
// `dsx catalog --json` prints it.
nlohmann::ordered_json catalog_json(const Catalog& catalog, std::string_view what);

}  // namespace dsx::cli
