#include "dse/cli/options.hpp"

#include <fmt/core.h>

#include <sstream>

#include "dse/cli/commands.hpp"

namespace dsx::cli {

std::optional<int> parse_options(const std::string& command, const std::string& usage,
                                 const std::vector<std::string>& args, po::options_description& options,
                                 const po::positional_options_description& positional,
                                 po::variables_map& vm) {
  options.add_options()("help,h", "show this help");
  try {
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
    if (vm.count("help") != 0u) {
      std::ostringstream text;
      text << options;
      fmt::print("usage: {}\n\n{}", usage, text.str());
      return kSuccess;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    fmt::print(stderr, "dsx {}: error: {}\nusage: {}\n", command, e.what(), usage);
    return kBadInput;
  }
  return std::nullopt;
}

}  // namespace dsx::cli
