// `dsx diff RUN_A RUN_B`: what changed between two run folders (dse/run_diff.hpp). Exit status like
// diff(1): 0 when the runs agree within the tolerance, 1 when they differ, 2 for bad input.
#include <fmt/core.h>

#include <cmath>
#include <exception>

#include "dse/cli/commands.hpp"
#include "dse/cli/options.hpp"
#include "dse/run_diff.hpp"
#include "output/run_diff_markdown.hpp"
#include "output/files.hpp"

namespace dsx::cli {

namespace {
constexpr int kDiffersExitCode = 1;
}  // namespace

int diff_command(const std::vector<std::string>& args) {
  po::options_description options("dsx diff options");
  std::string run_a, run_b, markdown;
  RunDiffOptions diff_options;
  bool json = false;
  long long top = 10;
  options.add_options()("run-a", po::value(&run_a)->required(), "the first run folder (A)")(
      "run-b", po::value(&run_b)->required(), "the second run folder (B)")(
      "tolerance", po::value(&diff_options.tolerance)->default_value(1e-9, "1e-9"),
      "relative change |B - A| / |A| up to which two values agree")(
      "top", po::value(&top)->default_value(10), "largest changes listed per metric, examples per list")(
      "json", po::bool_switch(&json), "print JSON")(
      "markdown", po::value(&markdown), "also write the comparison as a Markdown section to this file");
  po::positional_options_description positional;
  positional.add("run-a", 1).add("run-b", 1);
  po::variables_map vm;
  if (auto code = parse_options("diff", "dsx diff RUN_A RUN_B [--tolerance REL] [--top N] [--json] [--markdown FILE]",
                                args, options, positional, vm)) {
    return *code;
  }
  if (!(diff_options.tolerance >= 0) || !std::isfinite(diff_options.tolerance)) {
    fmt::print(stderr, "dsx diff: error: --tolerance must be a finite number >= 0, got {}\n", diff_options.tolerance);
    return kBadInput;
  }
  // Every listed change is held in memory, so the list is bounded.
  constexpr long long kMaxTop = 10'000;
  if (top < 0 || top > kMaxTop) {
    fmt::print(stderr, "dsx diff: error: --top must be between 0 and {}, got {}\n", kMaxTop, top);
    return kBadInput;
  }
  diff_options.top = static_cast<std::size_t>(top);
  // Exit status 1 means "the runs differ" here, so every failure, a store that cannot be read or a
  // Markdown file that cannot be written, is 2, as diff(1) reports trouble.
  try {
    std::vector<std::string> problems;
    const auto diff = diff_runs(run_a, run_b, diff_options, problems);
    if (!diff) {
      for (const std::string& p : problems) fmt::print(stderr, "dsx diff: error: {}\n", p);
      return kBadInput;
    }
    if (!markdown.empty()) write_file_atomic(markdown, run_diff_markdown(*diff));
    fmt::print("{}", json ? run_diff_json(*diff) : run_diff_text(*diff));
    return diff->differs() ? kDiffersExitCode : kSuccess;
  } catch (const std::exception& e) {
    fmt::print(stderr, "dsx diff: error: {}\n", e.what());
    return kBadInput;
  }
}

}  // namespace dsx::cli
