#include "output/files.hpp"

#include "output/run_folder.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace dsx {

AtomicFileWriter::AtomicFileWriter(std::string path) : path_(std::move(path)), tmp_(path_ + ".tmp") {
  // A fresh temporary, never a file or a symbolic link already at its name (left by an interrupted
  // write, or planted): the write cannot land outside the folder of `path`.
  std::remove(tmp_.c_str());
  const int fd = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  file_ = fd >= 0 ? ::fdopen(fd, "wb") : nullptr;
  if (file_ == nullptr) {
    const int e = errno;
    if (fd >= 0) ::close(fd);
    throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(e));
  }
}

AtomicFileWriter::~AtomicFileWriter() {
  if (file_ == nullptr) return;
  std::fclose(file_);
  std::remove(tmp_.c_str());
}

void AtomicFileWriter::append(std::string_view bytes) {
  if (file_ == nullptr) throw std::logic_error("AtomicFileWriter: append after commit");
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(errno));
  }
}

void AtomicFileWriter::commit() {
  if (file_ == nullptr) throw std::logic_error("AtomicFileWriter: committed twice");
  std::FILE* f = std::exchange(file_, nullptr);
  if (std::fclose(f) != 0) {
    const int e = errno;
    std::remove(tmp_.c_str());
    throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(e));
  }
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int e = errno;
    std::remove(tmp_.c_str());
    throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(e));
  }
  record_written_file(path_);
}

void write_file_atomic(const std::string& path, std::string_view content) {
  AtomicFileWriter file(path);
  file.append(content);
  file.commit();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string read_file_within(const std::string& folder, const std::string& relative) {
  const std::string shown = folder + "/" + relative;
  const auto fail = [&](int e) -> std::runtime_error {
    if (e == ELOOP || e == ENOTDIR) {
      return std::runtime_error(shown + ": error: a symbolic link or not a file; dsx reads it only from inside " +
                                folder + ", never through a link");
    }
    return std::runtime_error(shown + ": error: cannot read: " + std::strerror(e));
  };
  int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) throw fail(errno);
  std::size_t start = 0;
  for (std::size_t slash = relative.find('/'); slash != std::string::npos; slash = relative.find('/', start)) {
    const std::string part = relative.substr(start, slash - start);
    start = slash + 1;
    if (part.empty() || part == ".") continue;
    const int next = part == ".." ? -1 : ::openat(dir, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const int e = part == ".." ? ELOOP : errno;
    ::close(dir);
    if (next < 0) throw fail(e);
    dir = next;
  }
  const int fd = ::openat(dir, relative.substr(start).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  const int open_errno = errno;
  ::close(dir);
  if (fd < 0) throw fail(open_errno);
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      const int e = errno;
      ::close(fd);
      throw fail(e == EISDIR ? ENOTDIR : e);
    }
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

void make_directories(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) throw std::runtime_error("cannot create folder " + path + ": " + ec.message());
}

}  // namespace dsx
