// `dsx calibrate` and `dsx accuracy`: fit a calibration profile to measurements, and report how
// accurate dsx is on them (dse/calibration/fit.hpp, output/accuracy_report.hpp).
#include <fmt/core.h>

#include <exception>
#include <filesystem>
#include <optional>

#include "dse/calibration/fit.hpp"
#include "dse/calibration/measurements.hpp"
#include "dse/calibration/profile.hpp"
#include "dse/cli/commands.hpp"
#include "dse/cli/options.hpp"
#include "output/accuracy_report.hpp"
#include "output/files.hpp"
#include "output/run_folder.hpp"

namespace dsx::cli {

namespace {

// The measurement set the paths hold, or nullopt after printing every problem.
std::optional<MeasurementSet> load_or_report(const std::vector<std::string>& paths, const std::string& catalog_dir) {
  Diagnostics diags;
  auto set = load_measurements(paths, catalog_dir, diags);
  if (!set) fmt::print(stderr, "{}", diags.format());
  return set;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::string shell_words(const std::string& command, const std::vector<std::string>& args) {
  return args.empty() ? command : command + " " + joined(args);
}

}  // namespace

int calibrate_command(const std::vector<std::string>& args) {
  po::options_description options("dsx calibrate options");
  std::vector<std::string> inputs;
  std::string out;
  std::string name;
  std::string catalog_dir;
  options.add_options()("measurements", po::value(&inputs)->required(),
                        "measurement files or folders (studies/catalog/measurements/README.md)")(
      "out", po::value(&out)->required(), "the profile file to write")(
      "name", po::value(&name), "the profile's name (default: the --out file's stem)")(
      "catalog", po::value(&catalog_dir)->default_value(default_catalog_dir()), "catalog folder");
  po::positional_options_description positional;
  positional.add("measurements", -1);
  po::variables_map vm;
  if (auto code = parse_options("calibrate", "dsx calibrate MEASUREMENTS... --out PROFILE.yaml [--name NAME]", args,
                                options, positional, vm)) {
    return *code;
  }
  const auto set = load_or_report(inputs, catalog_dir);
  if (!set) return kBadInput;
  CalibrationOptions opt;
  if (name.empty()) {
    const std::size_t slash = out.find_last_of('/');
    name = out.substr(slash == std::string::npos ? 0 : slash + 1);
    if (name.size() > 5 && name.ends_with(".yaml")) name.resize(name.size() - 5);
  }
  opt.profile_name = name;
  const std::string from = joined(inputs);
  opt.fitted_from = from;
  const Calibration c = calibrate(*set, opt);
  try {
    const std::filesystem::path parent = std::filesystem::path(out).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent);
    write_file_atomic(out, "# dsx calibration profile: `dsx calibrate " + from + " --out " + out +
                               "` wrote it; a study names it with calibration: (studies/README.md).\n" +
                               profile_yaml(c.profile));
  } catch (const std::exception& e) {
    fmt::print(stderr, "dsx calibrate: error: {}\n", e.what());
    return kRuntimeFailure;
  }
  fmt::print("{} measurements, {} predicted; profile '{}' written to {}\n\n", set->rows.size(), c.profile.predicted,
             c.profile.name, out);
  fmt::print("Fitted parameters:\n{}\n", parameter_table_text(*set, c));
  fmt::print("Accuracy per regime (cv: each source left out of the fit that predicts it):\n{}\n", regime_table_text(c));
  fmt::print("Residuals:\n{}", residual_table_text(*set, c));
  for (const std::string& n : c.notes) fmt::print("note: {}\n", n);
  return kSuccess;
}

int accuracy_command(const std::vector<std::string>& args) {
  po::options_description options("dsx accuracy options");
  std::vector<std::string> inputs;
  std::string out = "runs/accuracy";
  std::string catalog_dir;
  std::string template_dir;
  options.add_options()("measurements", po::value(&inputs),
                        "measurement files or folders (default: the catalog's measurements/ folder)")(
      "out", po::value(&out)->default_value(out), "folder for the report")(
      "catalog", po::value(&catalog_dir)->default_value(default_catalog_dir()), "catalog folder")(
      "template", po::value(&template_dir)->default_value(default_template_dir()), "report template folder");
  po::positional_options_description positional;
  positional.add("measurements", -1);
  po::variables_map vm;
  if (auto code = parse_options("accuracy", "dsx accuracy [MEASUREMENTS...] [--out DIR]", args, options, positional, vm)) {
    return *code;
  }
  if (inputs.empty()) inputs.push_back(catalog_dir + "/measurements");
  const auto set = load_or_report(inputs, catalog_dir);
  if (!set) return kBadInput;
  const RunFolderClaim claim = claim_run_folder(out, "dsx accuracy", WhenHeld::fail);
  if (!claim.lock) {
    fmt::print(stderr, "dsx accuracy: error: {}\n", claim.error);
    return claim.not_a_run_folder ? kBadInput : kRuntimeFailure;
  }
  CalibrationOptions opt;
  opt.fitted_from = joined(inputs);
  const Calibration c = calibrate(*set, opt);
  AccuracyReportInputs in;
  in.set = &*set;
  in.calibration = &c;
  in.command = shell_words("dsx accuracy", args);
  in.template_dir = template_dir;
  in.dsx_version = DSX_VERSION;
  in.git_revision = DSX_GIT_REVISION;
  try {
    write_accuracy_report(in, out);
  } catch (const std::exception& e) {
    fmt::print(stderr, "dsx accuracy: error: {}\n", e.what());
    return kRuntimeFailure;
  }
  fmt::print("{} measurements, {} predicted.\n{}", set->rows.size(), c.profile.predicted, regime_table_text(c));
  fmt::print("report: {}/report.html\n        {}/report.md\n", out, out);
  return kSuccess;
}

}  // namespace dsx::cli
