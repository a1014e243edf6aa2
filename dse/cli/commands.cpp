#include "dse/cli/commands.hpp"

#include <fmt/core.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "dse/calibration/intervals.hpp"
#include "dse/catalog.hpp"
#include "dse/catalog_accuracy.hpp"
#include "dse/cli/options.hpp"
#include "dse/grid.hpp"
#include "dse/quantity.hpp"
#include "dse/results.hpp"
#include "dse/study.hpp"
#include "engine/registry.hpp"
#include "dse/analysis/blocks.hpp"
#include "dse/analysis/prose_claims.hpp"
#include "dse/yaml_reader.hpp"
#include "output/format.hpp"
#include "output/report.hpp"

namespace dsx::cli {

namespace {

// 0 for a feasible point, 4 for an infeasible one, 1 when the solver failed on it.
int eval_exit_code(PointStatus status) {
  return status == PointStatus::ok ? kSuccess : status == PointStatus::infeasible ? kInfeasible : kRuntimeFailure;
}

constexpr std::array<Command, 9> kCommands = {{
    {"run", "sweep a study, analyse it and render its report", run_command},
    {"validate", "load and check studies without sweeping them, and flag prose a decision contradicts", validate_command},
    {"eval", "evaluate one design point and print every metric", eval_command},
    {"catalog", "list the hardware, models, compression accuracy figures and solvers dsx knows, with sources", catalog_command},
    {"report", "re-render figures and reports of a stored run", report_command},
    {"merge", "join the run folders of a study swept in shards (dsx run --shard I/N)", merge_command},
    {"diff", "compare two run folders: studies, rows, metrics and decisions", diff_command},
    {"calibrate", "fit efficiency parameters to published measurements and write a profile", calibrate_command},
    {"accuracy", "predict every published measurement and report the accuracy per regime", accuracy_command},
}};

std::string yaml_quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string show(double value, std::string_view name, Dimension dimension) {
  return format_quantity(value, describe_quantity(name, dimension));
}

// What a study may give a solver parameter, its default and its range, as `dsx catalog solvers`
// lists them.
struct ParamFacts {
  std::string kind;
  std::string default_value;  // "required" when a study must give it
  std::string range;          // numbers with bounds; empty otherwise
};

ParamFacts param_facts(const ParamSpec& p) {
  ParamFacts f;
  switch (p.kind) {
    case ParamKind::hardware: f.kind = p.has_default ? "hardware id or none" : "hardware id"; break;
    case ParamKind::model: f.kind = p.has_default ? "model id or none" : "model id"; break;
    case ParamKind::precision: f.kind = "precision"; break;
    case ParamKind::choice: {
      std::vector<std::string> names(p.choices.begin(), p.choices.end());
      f.kind = fmt::format("one of {}", fmt::join(names, ", "));
      break;
    }
    case ParamKind::number: {
      const std::string phrase = dimension_phrase(p.dimension);  // "a bandwidth": the article goes
      f.kind = phrase.substr(phrase.find(' ') + 1);
      if (!p.word.empty()) f.kind += " or " + std::string(p.word);
      break;
    }
  }
  if (p.integer) f.kind += " (integer)";
  if (!p.has_default) {
    f.default_value = "required";
  } else if (p.kind == ParamKind::model || p.kind == ParamKind::hardware) {
    f.default_value = std::string(kNoCatalogEntry);
  } else if (p.kind == ParamKind::choice) {
    f.default_value = std::string(p.choices[static_cast<std::size_t>(p.default_value)]);
  } else if (p.kind == ParamKind::precision) {
    f.default_value = std::string(precision_name(kAllPrecisions[static_cast<std::size_t>(p.default_value)]));
  } else {
    f.default_value = exact_quantity_label(p.default_value, p.dimension);
  }
  if (p.kind == ParamKind::number && p.max_value > p.min_value) {
    f.range = fmt::format("{}{}, {}]", p.min_exclusive ? "(" : "[", exact_quantity_label(p.min_value, p.dimension),
                          exact_quantity_label(p.max_value, p.dimension));
  }
  return f;
}

}  // namespace

std::span<const Command> commands() { return kCommands; }

std::string data_dir() {
  if (const char* env = std::getenv("DSX_DATA_DIR"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path installed = (exe.parent_path() / DSX_RELATIVE_DATA_DIR).lexically_normal();
    if (std::filesystem::is_directory(installed / "studies" / "catalog", ec)) return installed.string();
  }
  return DSX_SOURCE_DIR;
}

std::string default_catalog_dir() { return data_dir() + "/studies/catalog"; }
std::string default_template_dir() { return data_dir() + "/templates"; }

std::optional<ResolvedStudy> one_point_study(const std::string& solver, const std::vector<std::string>& assignments,
                                             const std::string& catalog_dir, const std::string& calibration,
                                             std::string& errors) {
  // A one-point study: each assignment becomes a one-value axis, so every check of the study
  // loader (units, ids, ranges, suggestions) applies to the command line too.
  std::string text = fmt::format("study: eval\ntitle: dsx eval\nquestion: one design point\nsolver: {}\n{}axes:\n",
                                 yaml_quote(solver),
                                 calibration.empty() ? "" : "calibration: " + yaml_quote(calibration) + "\n");
  for (const std::string& a : assignments) {
    const auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0) {
      errors = fmt::format("dsx eval: error: expected key=value, got '{}'\n", a);
      return std::nullopt;
    }
    text += fmt::format("  {}: [{}]\n", a.substr(0, eq), yaml_quote(a.substr(eq + 1)));
  }
  Diagnostics diags;
  auto study = load_study_text("<command line>", text, catalog_dir, diags);
  if (!study) errors = diags.format();
  return study;
}

nlohmann::ordered_json point_json(const ResolvedStudy& study, const PointInputs& inputs, std::span<const double> values,
                                  const PointResult& result) {
  const auto metrics = study.solver->metrics();
  const std::string status(status_name(result.status));
  const std::string reason =
      result.status == PointStatus::infeasible ? reason_text(study.solver->reasons()[result.reason], inputs.hardware) : "";
  nlohmann::ordered_json out;
  out["solver"] = std::string(study.solver->name());
  for (const Axis& axis : study.axes) {
    out["inputs"][axis.param] = axis.values[0].label;
    // A bundle (region=quebec) also shows the values it set.
    for (std::size_t i = 0; i < axis.sets.size(); ++i) {
      out["inputs"][std::string(study.solver->params()[axis.sets[i]].name)] = axis.set_labels[i];
    }
  }
  for (const FixedInput& f : fixed_inputs(study)) out["inputs"][f.name] = f.label;
  out["status"] = status;
  if (!reason.empty()) out["reason"] = reason;
  out["calibration"] = study.calibration ? nlohmann::json(study.calibration_name) : nlohmann::json(nullptr);
  for (std::size_t p = 0; p < study.solver->params().size(); ++p) {
    if (study.calibrated[p]) out["calibrated_inputs"].push_back(std::string(study.solver->params()[p].name));
  }
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    out["metrics"][std::string(metrics[m].name)] = std::isfinite(values[m]) ? nlohmann::json(values[m]) : nullptr;
    if (result.status != PointStatus::ok) continue;
    if (const auto iv = solver_metric_interval(study, inputs, values, m)) {
      out["intervals"][std::string(metrics[m].name)] = {{"p10", iv->low}, {"p90", iv->high}, {"regime", iv->regime}};
    }
  }
  for (const MetricSpec& m : metrics) out["units"][std::string(m.name)] = describe_quantity(m.name, m.dimension).unit;
  return out;
}

nlohmann::ordered_json catalog_json(const Catalog& catalog, std::string_view what) {
  const bool all = what == "all";
  nlohmann::ordered_json out;
  if (all || what == "hardware") {
    for (const HardwareSpec& hw : catalog.hardware) {
      nlohmann::ordered_json entry;
      entry["id"] = hw.id;
      entry["name"] = hw.name;
      if (!hw.short_name.empty()) entry["short_name"] = hw.short_name;
      for (Precision p : kAllPrecisions) {
        if (hw.supports(p)) entry["peak_flops_per_s"][std::string(precision_name(p))] = hw.peak(p);
      }
      entry["memory_bytes"] = hw.memory_bytes;
      entry["memory_bandwidth_bytes_per_s"] = hw.memory_bandwidth_bytes_per_s;
      if (hw.has_weight_memory()) {
        entry["weight_memory"] = {{"bytes", hw.weight_memory_bytes},
                                  {"read_bandwidth_bytes_per_s", hw.weight_memory_bandwidth_bytes_per_s}};
      }
      entry["host_link_bandwidth_bytes_per_s"] = hw.host_link_bandwidth_bytes_per_s;
      entry["accelerator_link_bandwidth_bytes_per_s"] = hw.accelerator_link_bandwidth_bytes_per_s;
      entry["tdp_w"] = hw.tdp_known() ? nlohmann::ordered_json(hw.tdp_w) : nullptr;  // null: not published
      entry["idle_power_fraction"] = hw.idle_power_fraction;
      entry["price_usd"] = hw.price_usd;
      if (hw.rental_known()) {
        entry["rental"] = {{"usd_per_hour", hw.rental_usd_per_hour}, {"date", hw.rental_date}, {"source", hw.rental_source}};
      } else {
        entry["rental"] = nullptr;  // no on-demand price published or read
      }
      if (hw.cores > 0) entry["cores"] = static_cast<long long>(hw.cores);
      if (hw.sparse_speedup > 0) entry["sparse_speedup"] = hw.sparse_speedup;
      if (hw.fp8_gemm_relative_efficiency > 0) entry["fp8_gemm_relative_efficiency"] = hw.fp8_gemm_relative_efficiency;
      entry["release_year"] = hw.release_year > 0 ? nlohmann::ordered_json(hw.release_year) : nullptr;
      entry["source"] = hw.source;
      out["hardware"].push_back(entry);
    }
  }
  if (all || what == "models") {
    for (const CatalogModel& m : catalog.models) {
      const ModelGraph& g = m.prepared.eager;
      nlohmann::ordered_json entry;
      entry["id"] = m.id;
      entry["name"] = m.name;
      if (!m.short_name.empty()) entry["short_name"] = m.short_name;
      entry["architecture"] = m.architecture;
      for (const auto& [k, v] : m.params) entry["params"][k] = v;
      entry["sample_unit"] = g.sample_unit;
      entry["flops_per_sample"] = g.total_flops_per_sample();
      // Resident parameters (embedding tables included, as papers count them), the ones a token uses
      // (mixture of experts), and the weights one forward pass reads (gathered tables excluded).
      const double parameters = g.parameter_count > 0 ? g.parameter_count : g.total_weight_elements();
      entry["parameters"] = parameters;
      entry["active_parameters"] = g.active_parameter_count > 0 ? g.active_parameter_count : parameters;
      entry["weights_read_per_pass"] = g.total_weight_elements();
      entry["kernels_eager"] = g.total_kernels();
      entry["kernels_compiled"] = m.prepared.compiled.total_kernels();
      entry["source"] = m.source;
      out["models"].push_back(entry);
    }
  }
  for (const BundleKind& kind : kBundleKinds) {
    if (!all && what != kind.list_key) continue;
    out[std::string(kind.list_key)] = nlohmann::ordered_json::array();
    for (const CatalogBundle& b : catalog.bundles) {
      if (b.kind != kind.name) continue;
      nlohmann::ordered_json entry;
      entry["id"] = b.id;
      entry["name"] = b.name;
      for (const auto& [param, label] : b.values) entry["values"][param] = label;
      if (!b.torus.empty()) entry["topology"]["torus"] = std::vector<long long>(b.torus.begin(), b.torus.end());
      entry["source"] = b.source;
      out[std::string(kind.list_key)].push_back(entry);
    }
  }
  if (all || what == kAccuracyListKey) {
    out[std::string(kAccuracyListKey)] = nlohmann::ordered_json::array();
    for (const CatalogAccuracy& a : catalog.accuracy) {
      nlohmann::ordered_json entry;
      for (const auto& [key, value] : accuracy_entry_fields(a)) entry[std::string(key)] = value;
      entry["sparsity"] = a.figure.setting.sparsity;
      entry["baseline"] = a.figure.baseline;
      entry["compressed"] = a.figure.compressed;
      out[std::string(kAccuracyListKey)].push_back(entry);
    }
  }
  if (all || what == "solvers") {
    for (const Solver* s : all_solvers()) {
      nlohmann::ordered_json entry;
      entry["name"] = std::string(s->name());
      entry["description"] = std::string(s->description());
      for (const ParamSpec& p : s->params()) {
        const ParamFacts f = param_facts(p);
        nlohmann::ordered_json param = {{"name", std::string(p.name)}, {"description", std::string(p.description)},
                                        {"kind", f.kind}, {"default", f.default_value}};
        if (!f.range.empty()) param["range"] = f.range;
        entry["params"].push_back(param);
      }
      for (const MetricSpec& m : s->metrics()) {
        entry["metrics"].push_back({{"name", std::string(m.name)}, {"description", std::string(m.description)}});
      }
      out["solvers"].push_back(entry);
    }
  }
  return out;
}

int validate_command(const std::vector<std::string>& args) {
  po::options_description options("dsx validate options");
  std::vector<std::string> files;
  std::string catalog_dir;
  options.add_options()("study", po::value(&files)->required(), "study files to check")(
      "catalog", po::value(&catalog_dir)->default_value(default_catalog_dir()), "catalog folder");
  po::positional_options_description positional;
  positional.add("study", -1);
  po::variables_map vm;
  if (auto code = parse_options("validate", "dsx validate STUDY.yaml... [--catalog DIR]", args, options,
                                positional, vm)) {
    return *code;
  }
  int status = kSuccess;
  for (const std::string& file : files) {
    Diagnostics diags;
    const std::optional<std::string> text = read_input_file(file, "study", diags);
    const auto study = text ? load_study_text(file, *text, catalog_dir, diags) : std::nullopt;
    if (!study) {
      fmt::print(stderr, "{}", diags.format());
      status = kBadInput;
      continue;
    }
    for (const ProseContradiction& c : prose_contradictions(*study, *text)) {
      fmt::print(stderr, "{}:{}:{}: warning: {}\n", escape_control_characters(c.claim.where.file), c.claim.where.line,
                 c.claim.where.column, c.message);
    }
    const Grid grid(*study);
    const StudyAnalyses& a = analyses_of(*study);
    fmt::print("{}: ok: solver {}, {} axes, {} design points{}{}\n", file, study->solver->name(), study->axes.size(),
               format_grouped(static_cast<double>(grid.size())),
               a.grid_constraints.empty() ? "" : fmt::format(" before {} grid constraint{}", a.grid_constraints.size(),
                                                                a.grid_constraints.size() == 1 ? "" : "s"),
               a.keep.all ? "" : "; keeping " + keep_description(*study));
  }
  return status;
}

int eval_command(const std::vector<std::string>& args) {
  po::options_description options("dsx eval options");
  std::string solver_name;
  std::vector<std::string> assignments;
  std::string catalog_dir;
  std::string calibration;
  bool json = false;
  options.add_options()("solver", po::value(&solver_name)->required(), "solver name (dsx catalog solvers)")(
      "assignment", po::value(&assignments), "parameter=value, e.g. hardware=h100_sxm launch_overhead='10 us'")(
      "json", po::bool_switch(&json), "print JSON")(
      "calibration", po::value(&calibration),
      "calibration profile: default (when the catalog has one), none, a name in the catalog's calibration/ folder, "
      "or a file")(
      "catalog", po::value(&catalog_dir)->default_value(default_catalog_dir()), "catalog folder");
  po::positional_options_description positional;
  positional.add("solver", 1).add("assignment", -1);
  po::variables_map vm;
  if (auto code = parse_options("eval", "dsx eval SOLVER key=value... [--json]", args, options, positional, vm)) {
    return *code;
  }
  std::string errors;
  const auto study = one_point_study(solver_name, assignments, catalog_dir, calibration, errors);
  if (!study) {
    fmt::print(stderr, "{}", errors);
    return kBadInput;
  }
  const Grid grid(*study);
  PointInputs inputs;
  grid.inputs(0, inputs);
  const auto metrics = study->solver->metrics();
  std::vector<double> values(metrics.size());
  const PointResult result = study->solver->evaluate(inputs, values);
  const std::string status(status_name(result.status));
  const std::string reason =
      result.status == PointStatus::infeasible ? reason_text(study->solver->reasons()[result.reason], inputs.hardware) : "";
  if (json) {
    fmt::print("{}\n", point_json(*study, inputs, values, result).dump(2));
    return eval_exit_code(result.status);
  }
  fmt::print("solver {}: {}{}\n", study->solver->name(), status, reason.empty() ? "" : " (" + reason + ")");
  for (const Axis& axis : study->axes) {
    if (!axis.is_bundle()) continue;
    std::string sets;
    for (std::size_t i = 0; i < axis.sets.size(); ++i) {
      sets += fmt::format("{}{} = {}", i == 0 ? "" : ", ", study->solver->params()[axis.sets[i]].name, axis.set_labels[i]);
    }
    fmt::print("  {} {}: {}\n", axis.param, axis.values[0].label, sets);
  }
  if (study->calibration) {
    std::vector<std::string> fitted;
    for (std::size_t p = 0; p < study->solver->params().size(); ++p) {
      if (study->calibrated[p]) {
        const std::string& origin = study->calibration_origin[p];
        fitted.push_back(fmt::format("{} = {}{}", study->solver->params()[p].name, study->fixed_labels[p],
                                     origin.empty() ? "" : " (" + origin + ")"));
      }
    }
    fmt::print("  calibration profile '{}'{}{}; [p10, p90]: the 80 % interval of its accuracy\n",
               study->calibration_name, fitted.empty() ? "" : ": ", fmt::join(fitted, ", "));
  }
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    const auto iv = result.status == PointStatus::ok ? solver_metric_interval(*study, inputs, values, m) : std::nullopt;
    const std::string interval =
        iv ? fmt::format("[{}, {}]", show(iv->low, metrics[m].name, metrics[m].dimension),
                         show(iv->high, metrics[m].name, metrics[m].dimension))
           : "";
    fmt::print("  {:<36} {:>14} {:>26}   {}\n", metrics[m].name, show(values[m], metrics[m].name, metrics[m].dimension),
               interval, metrics[m].description);
  }
  return eval_exit_code(result.status);
}

int catalog_command(const std::vector<std::string>& args) {
  if (!args.empty() && args.front() == "import-hf") return import_hf_command({args.begin() + 1, args.end()});
  po::options_description options("dsx catalog options");
  std::string what = "all";
  std::string catalog_dir;
  bool json = false;
  options.add_options()("what", po::value(&what),
                        "hardware, models, regions, fabrics, nodes, compression_accuracy, solvers or all (default)")(
      "json", po::bool_switch(&json), "print JSON")(
      "catalog", po::value(&catalog_dir)->default_value(default_catalog_dir()), "catalog folder");
  po::positional_options_description positional;
  positional.add("what", 1);
  po::variables_map vm;
  if (auto code = parse_options("catalog", "dsx catalog [hardware|models|regions|fabrics|nodes|compression_accuracy|solvers] [--json]\n"
                                "       dsx catalog import-hf CONFIG.json [--name ID] [--out FILE]", args,
                                options, positional, vm)) {
    return *code;
  }
  std::vector<std::string> kinds = {"all", "hardware", "models"};
  for (const BundleKind& k : kBundleKinds) kinds.emplace_back(k.list_key);
  kinds.emplace_back(kAccuracyListKey);
  kinds.emplace_back("solvers");
  if (std::find(kinds.begin(), kinds.end(), what) == kinds.end()) {
    const std::string near = closest_match(what, kinds);
    fmt::print(stderr, "dsx catalog: error: unknown section '{}'{}; valid sections: {}\n", what,
               near.empty() ? "" : fmt::format("; did you mean '{}'?", near), fmt::join(kinds, ", "));
    return kBadInput;
  }
  Diagnostics diags;
  const Catalog catalog = load_catalog(catalog_dir, diags);
  if (diags.has_errors()) {
    fmt::print(stderr, "{}", diags.format());
    return kBadInput;
  }
  if (json) {
    fmt::print("{}\n", catalog_json(catalog, what).dump(2));
    return kSuccess;
  }
  const bool all = what == "all";
  if (all || what == "hardware") {
    fmt::print("hardware ({} entries)\n", catalog.hardware.size());
    for (const HardwareSpec& hw : catalog.hardware) {
      std::string peaks;
      for (Precision p : kAllPrecisions) {
        if (!hw.supports(p)) continue;
        peaks += fmt::format("{}{} {}", peaks.empty() ? "" : ", ", precision_name(p),
                             show(hw.peak(p), "peak_flops_per_s", Dimension::flop_rate));
      }
      fmt::print("  {:<16} {}{}\n    peak: {}\n    memory {}, bandwidth {}, TDP {}, price {}{}\n    source: {}\n", hw.id,
                 hw.name, hw.release_year > 0 ? fmt::format(" ({})", hw.release_year) : "", peaks,
                 show(hw.memory_bytes, "memory_bytes", Dimension::bytes),
                 show(hw.memory_bandwidth_bytes_per_s, "memory_bandwidth_bytes_per_s", Dimension::bandwidth),
                 hw.tdp_known() ? show(hw.tdp_w, "tdp_w", Dimension::power) : std::string("unknown"),
                 show(hw.price_usd, "price_usd", Dimension::money),
                 hw.cores > 0 ? fmt::format(", {} core{}", hw.cores, hw.cores == 1 ? "" : "s") : "", hw.source);
      if (hw.has_weight_memory()) {
        fmt::print("    weight memory {}, read bandwidth {}\n",
                   show(hw.weight_memory_bytes, "weight_memory_bytes", Dimension::bytes),
                   show(hw.weight_memory_bandwidth_bytes_per_s, "weight_memory_bandwidth_bytes_per_s",
                        Dimension::bandwidth));
      }
      if (hw.rental_known()) {
        fmt::print("    rental: {} per accelerator-hour on demand ({}), source: {}\n",
                   show(hw.rental_usd_per_hour, "rental_usd_per_hour", Dimension::money), hw.rental_date,
                   hw.rental_source);
      }
    }
  }
  if (all || what == "models") {
    fmt::print("models ({} entries)\n", catalog.models.size());
    for (const CatalogModel& m : catalog.models) {
      const ModelGraph& g = m.prepared.eager;
      // Total parameters (embedding tables included, as papers count them), the ones a token uses
      // when they differ (mixture of experts), and the weights one pass reads (gathered tables excluded).
      const double parameters = g.parameter_count > 0 ? g.parameter_count : g.total_weight_elements();
      const std::string active =
          g.active_parameter_count > 0 && g.active_parameter_count != parameters
              ? fmt::format(" ({} active)", show(g.active_parameter_count, "parameters", Dimension::count))
              : "";
      fmt::print("  {:<16} {} ({})\n    {} per {}, {} parameters{}, {} weights read per pass, {} kernels eager / {} "
                 "compiled\n    source: {}\n",
                 m.id, m.name, m.architecture, show(g.total_flops_per_sample(), "flops", Dimension::flops),
                 g.sample_unit, show(parameters, "parameters", Dimension::count), active,
                 show(g.total_weight_elements(), "parameters", Dimension::count), g.total_kernels(),
                 m.prepared.compiled.total_kernels(), m.source);
    }
  }
  for (const BundleKind& kind : kBundleKinds) {
    if (!all && what != kind.list_key) continue;
    const std::vector<std::string> ids = catalog.bundle_ids(kind.name);
    fmt::print("{} ({} entries; a study names one as {}: ID)\n", kind.list_key, ids.size(), kind.name);
    for (const CatalogBundle& b : catalog.bundles) {
      if (b.kind != kind.name) continue;
      std::string values;
      for (const auto& [param, label] : b.values) values += fmt::format("{}{} = {}", values.empty() ? "" : ", ", param, label);
      if (!b.torus.empty()) values += fmt::format(", topology = torus {}", fmt::join(b.torus, " x "));
      fmt::print("  {:<16} {}\n    sets: {}\n    source: {}\n", b.id, b.name, values, b.source);
    }
  }
  if (all || what == kAccuracyListKey) {
    fmt::print("{} ({} entries; the compression solver cites one at exactly its model and setting)\n",
               kAccuracyListKey, catalog.accuracy.size());
    for (const CatalogAccuracy& a : catalog.accuracy) {
      std::string setting;
      for (const auto& [key, value] : accuracy_entry_fields(a)) {
        if (key == "model" || key == "metric" || key == "baseline" || key == "compressed" || key == "source") continue;
        setting += fmt::format("{}{} = {}", setting.empty() ? "" : ", ", key, value);
      }
      // Six significant digits, as many as any source prints, without the noise of "68.6 %" / 100.
      const auto figure = [&a](double v) {
        return a.figure.metric == AccuracyMetric::zero_shot_average_accuracy ? fmt::format("{:.6g} %", v * 100)
                                                                             : fmt::format("{:.6g}", v);
      };
      fmt::print("  {:<16} {}: {} uncompressed, {} compressed\n    setting: {}\n    source: {}\n", a.model,
                 kAccuracyMetricNames[static_cast<std::size_t>(a.figure.metric)], figure(a.figure.baseline), figure(a.figure.compressed), setting, a.source);
    }
  }
  if (all || what == "solvers") {
    fmt::print("solvers ({} entries)\n", all_solvers().size());
    for (const Solver* s : all_solvers()) {
      fmt::print("  {:<16} {}\n    parameters:\n", s->name(), s->description());
      for (const ParamSpec& p : s->params()) {
        const ParamFacts f = param_facts(p);
        fmt::print("      {:<20} {}\n{:<28}{}; default {}{}\n", p.name, p.description, "", f.kind, f.default_value,
                   f.range.empty() ? "" : "; " + f.range);
      }
      fmt::print("    metrics:\n");
      for (const MetricSpec& m : s->metrics()) fmt::print("      {:<36} {}\n", m.name, m.description);
    }
  }
  return kSuccess;
}

}  // namespace dsx::cli
