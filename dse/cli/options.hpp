// Boost.Program_options glue shared by the commands: parses one command's arguments, prints its
// --help, and turns option errors into exit code 2 with the command's usage line.
#pragma once

#include <boost/program_options.hpp>
#include <optional>
#include <string>
#include <vector>

namespace dsx::cli {

namespace po = boost::program_options;

// Returns an exit code when the command must stop now (--help printed: 0; bad options: 2).
std::optional<int> parse_options(const std::string& command, const std::string& usage,
                                 const std::vector<std::string>& args, po::options_description& options,
                                 const po::positional_options_description& positional,
                                 po::variables_map& vm);

}  // namespace dsx::cli
