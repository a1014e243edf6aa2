// Writing files into a run folder: atomically (temp file + rename) so a crash never leaves a
// half-written report, and only below the run folder.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace dsx {

// Writes `content` to `path` via a temporary sibling and rename(2). Throws std::runtime_error
// with the path and strerror on failure (disk full, unwritable folder). A file written inside a
// run folder is added to its ledger (output/run_folder.hpp).
void write_file_atomic(const std::string& path, std::string_view content);

// The same, for a file written piece by piece (a large export that should never sit in memory
// whole): append() writes to a fresh temporary sibling, commit() renames it over `path` and adds it
// to the ledger; a writer destroyed before commit() removes the temporary. Errors as above.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::string path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void append(std::string_view bytes);
  void commit();

 private:
  std::string path_;
  std::string tmp_;
  std::FILE* file_ = nullptr;
};

// Reads a whole file; throws std::runtime_error with the path when it cannot.
std::string read_file(const std::string& path);

// Reads `relative` (e.g. "partials/x.mustache") below `folder` without following a symbolic link
// on the way (each step opened with O_NOFOLLOW under its parent's descriptor), so a file named by a
// study or a template folder cannot bring in a file from elsewhere. Throws std::runtime_error
// "<folder>/<relative>: error: ..." when a step is a link or the file cannot be read.
std::string read_file_within(const std::string& folder, const std::string& relative);

// Creates `path` and its parents; throws std::runtime_error on failure.
void make_directories(const std::string& path);

}  // namespace dsx
