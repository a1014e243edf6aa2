// Reading a whole file in tests (golden files, reports, logs of child processes).
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace dsx {

// The file's bytes; empty when it cannot be read.
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace dsx
