// `dsx merge OUT SHARD_DIR...`: the run folder of a study swept in shards (dse/merge.hpp).
#include <fmt/core.h>

#include <chrono>
#include <exception>
#include <filesystem>

#include "dse/cli/analyse.hpp"
#include "dse/cli/commands.hpp"
#include "dse/cli/options.hpp"
#include "dse/merge.hpp"
#include "dse/store.hpp"
#include "output/files.hpp"
#include "output/run_folder.hpp"

namespace dsx::cli {

int merge_command(const std::vector<std::string>& args) {
  po::options_description options("dsx merge options");
  std::string out_dir, template_dir;
  std::vector<std::string> shard_dirs;
  options.add_options()("out", po::value(&out_dir)->required(), "the run folder to write (must not hold a run)")(
      "shards", po::value(&shard_dirs)->required(), "the shards' run folders (dsx run --shard I/N)")(
      "template", po::value(&template_dir), "report template folder (default: the study's, else the shipped ones)");
  po::positional_options_description positional;
  positional.add("out", 1).add("shards", -1);
  po::variables_map vm;
  if (auto code = parse_options("merge", "dsx merge OUT SHARD_DIR... [--template DIR]", args, options, positional, vm)) {
    return *code;
  }
  const auto start = std::chrono::steady_clock::now();
  std::error_code ec;
  if (std::filesystem::exists(result_store_path(out_dir), ec)) {
    fmt::print(stderr, "dsx merge: error: {} already holds a run; merge into a new folder\n", out_dir);
    return kBadInput;
  }
  std::vector<std::string> problems;
  const auto plan = plan_merge(shard_dirs, problems);
  if (!plan) {
    for (const std::string& p : problems) fmt::print(stderr, "dsx merge: error: {}\n", p);
    return kBadInput;
  }
  for (const std::string& note : plan->notes) fmt::print(stderr, "dsx merge: note: {}\n", note);
  const RunFolderClaim claim = claim_run_folder(out_dir, "dsx merge " + out_dir, WhenHeld::fail);
  if (!claim.lock) {
    fmt::print(stderr, "dsx merge: error: {}\n", claim.error);
    return claim.not_a_run_folder ? kBadInput : kRuntimeFailure;
  }
  nlohmann::ordered_json manifest;
  try {
    write_merged_store(*plan, out_dir);
    record_written_file(result_store_path(out_dir));
    record_written_file(out_dir + "/study.resolved.yaml");
    ResultStore store(result_store_path(out_dir));
    for (const auto& [key, value] : plan->identity) manifest[key] = value;
    manifest["merged_shards"] = nlohmann::ordered_json::array();
    for (const ShardFolder& s : plan->shards) manifest["merged_shards"].push_back({{"shard", s.shard.text()}, {"dir", s.dir}});
    const int status = analyse_and_render(*plan->study, store, out_dir, template_dir_for(template_dir, *plan->study), manifest);
    manifest["timings_s"]["total"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    write_file_atomic(out_dir + "/manifest.json", manifest.dump(2) + "\n");
    fmt::print("merged {} shards into {}\nreport: {}/report.html\n        {}/report.md\n", plan->shards.size(), out_dir,
               out_dir, out_dir);
    return status;
  } catch (const std::exception& e) {
    fmt::print(stderr, "dsx merge: error: {}\n", e.what());
    return kRuntimeFailure;
  }
}

}  // namespace dsx::cli
