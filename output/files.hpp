// Writing files into a run folder: atomically (temp file + rename) so a crash never leaves a
// half-written report, and only below the run folder.
#pragma once

#include <string>
#include <string_view>

namespace dsx {

// Writes `content` to `path` via a temporary sibling and rename(2). Throws std::runtime_error
// with the path and strerror on failure (disk full, unwritable folder).
void write_file_atomic(const std::string& path, std::string_view content);

// Reads a whole file; throws std::runtime_error with the path when it cannot.
std::string read_file(const std::string& path);

// Creates `path` and its parents; throws std::runtime_error on failure.
void make_directories(const std::string& path);

}  // namespace dsx
