// Files in tests: reading a whole file (golden files, reports, logs of child processes) and a
// temporary folder per test.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace dsx {

// The file's bytes; empty when it cannot be read.
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes `text` as the whole file.
inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// `text` with the first `from` replaced by `to`; throws when `from` is not in it, so a test whose
// fixture changed fails instead of testing the unchanged text.
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error("no '" + from + "' in the text");
  return text.replace(at, from.size(), to);
}

// A fresh folder below the system's temporary folder, named after `tag`, the process and the
// running test; removed with everything in it when the object goes.
class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = test != nullptr ? test->name() : "";
    std::replace(name.begin(), name.end(), '/', '_');  // parameterised tests: "Name/0"
    path_ = (std::filesystem::temp_directory_path() / ("dsx_" + tag + "_" + std::to_string(::getpid()) + "_" + name))
                .string();
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace dsx
