// dsx catalog import-hf CONFIG.json [--name ID] [--out FILE]: a Hugging Face config.json as a
// models.yaml entry (dse/hf_import.hpp), printed or written to a file.
#include <fmt/core.h>

#include <fstream>
#include <sstream>

#include "dse/cli/commands.hpp"
#include "dse/cli/options.hpp"
#include "dse/hf_import.hpp"

namespace dsx::cli {

int import_hf_command(const std::vector<std::string>& args) {
  po::options_description options("dsx catalog import-hf options");
  std::string config;
  std::string name;
  std::string out_file;
  options.add_options()("config", po::value(&config)->required(), "a Hugging Face config.json")(
      "name", po::value(&name), "id of the entry (default: from _name_or_path)")(
      "out", po::value(&out_file), "write the entry to this file instead of stdout");
  po::positional_options_description positional;
  positional.add("config", 1);
  po::variables_map vm;
  if (auto code = parse_options("catalog import-hf", "dsx catalog import-hf CONFIG.json [--name ID] [--out FILE]", args,
                                options, positional, vm)) {
    return *code;
  }
  std::ifstream in(config, std::ios::binary);
  if (!in) {
    fmt::print(stderr, "dsx catalog import-hf: error: cannot read {}\n", config);
    return kBadInput;
  }
  std::ostringstream text;
  text << in.rdbuf();
  std::string error;
  const auto entry = import_hf_config(config, text.str(), name, error);
  if (!entry) {
    fmt::print(stderr, "dsx catalog import-hf: error: {}\n", error);
    return kBadInput;
  }
  if (out_file.empty()) {
    fmt::print("{}", entry->yaml);
    return kSuccess;
  }
  std::ofstream out(out_file, std::ios::binary);
  out << entry->yaml;
  if (!out) {
    fmt::print(stderr, "dsx catalog import-hf: error: cannot write {}\n", out_file);
    return kRuntimeFailure;
  }
  fmt::print(stderr, "wrote {} ({}; append it under models: in models.yaml or a study's catalog: block)\n", out_file,
             entry->id);
  return kSuccess;
}

}  // namespace dsx::cli
