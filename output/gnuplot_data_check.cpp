#include "output/gnuplot_data_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <vector>

namespace dsx {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// What a data file holds: the most columns of any row, the `index` blocks, its `# columns:` line.
struct DataShape {
  std::size_t columns = 0;
  std::size_t blocks = 0;
  std::string header;
};

std::size_t count_fields(std::string_view line) {
  std::size_t fields = 0;
  for (std::size_t i = 0; i < line.size();) {
    if (blank(line[i])) {
      ++i;
      continue;
    }
    ++fields;
    if (line[i] == '"') {
      const std::size_t close = line.find('"', i + 1);
      i = close == std::string_view::npos ? line.size() : close + 1;
    } else {
      while (i < line.size() && !blank(line[i])) ++i;
    }
  }
  return fields;
}

// Blocks are separated by two blank lines (comment lines between them do not count).
DataShape data_shape(std::string_view data) {
  DataShape shape;
  std::size_t blanks = 0;
  bool rows = false;
  for (std::size_t start = 0; start < data.size();) {
    const std::size_t end = std::min(data.find('\n', start), data.size());
    const std::string_view line = data.substr(start, end - start);
    start = end + 1;
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) {
      ++blanks;
      continue;
    }
    if (line[first] == '#') {
      if (shape.header.empty() && line.substr(first).starts_with("# columns:")) shape.header = std::string(line.substr(first));
      continue;
    }
    if (rows && blanks >= 2) ++shape.blocks;
    if (!rows) shape.blocks = 1;
    rows = true;
    blanks = 0;
    shape.columns = std::max(shape.columns, count_fields(line));
  }
  return shape;
}

// The functions whose one integer argument is a column number.
constexpr std::array<std::string_view, 20> kColumnFunctions = {
    "column", "stringcolumn", "strcol", "valid", "xtic", "xticlabels", "ytic", "yticlabels", "x2tic", "x2ticlabels",
    "y2tic", "y2ticlabels", "ztic", "zticlabels", "cbtic", "cbticlabels", "key", "timecolumn", "xticlabel", "yticlabel"};

bool abbreviates(std::string_view word, std::string_view full) {
  return !word.empty() && word.size() <= full.size() && full.substr(0, word.size()) == word;
}

struct Reference {
  std::size_t pos = 0;
  std::size_t number = 0;
  bool block = false;
};

class Reader {
 public:
  explicit Reader(std::string_view script) : s_(script) {}

  std::vector<Reference> run() {
    bool line_start = true;
    while (i_ < s_.size()) {
      if (line_start) {
        line_start = false;
        skip_datablock();
        if (i_ >= s_.size()) break;
      }
      const char c = s_[i_];
      if (c == '\n') {
        line_start = true;
        ++i_;
      } else if (c == '#') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else if (c == '"' || c == '\'') {
        skip_string();
      } else if (c == '$' && i_ + 1 < s_.size() && is_digit(s_[i_ + 1])) {
        const std::size_t at = i_++;
        refs_.push_back({at, integer(), false});
      } else if (is_digit(c) || c == '.') {
        while (i_ < s_.size() && (word_char(s_[i_]) || s_[i_] == '.')) ++i_;
      } else if (word_char(c)) {
        word();
      } else {
        ++i_;
      }
    }
    return refs_;
  }

 private:
  std::size_t integer() {
    std::size_t n = 0;
    while (i_ < s_.size() && is_digit(s_[i_])) n = n * 10 + static_cast<std::size_t>(s_[i_++] - '0');
    return n;
  }

  // An integer literal here (not the start of 1.5 or 1e3), read; none otherwise, i_ unchanged.
  std::optional<std::size_t> integer_literal() {
    std::size_t k = i_;
    while (k < s_.size() && is_digit(s_[k])) ++k;
    if (k == i_ || (k < s_.size() && (s_[k] == '.' || word_char(s_[k])))) return std::nullopt;
    return integer();
  }

  void skip_blanks() {
    while (i_ < s_.size() && (blank(s_[i_]) || (s_[i_] == '\\' && i_ + 1 < s_.size() && s_[i_ + 1] == '\n'))) {
      i_ += s_[i_] == '\\' ? 2 : 1;
    }
  }

  void skip_string() {
    const char quote = s_[i_++];
    while (i_ < s_.size() && s_[i_] != '\n') {
      if (quote == '"' && s_[i_] == '\\' && i_ + 1 < s_.size()) {
        i_ += 2;
      } else if (s_[i_] == quote) {
        ++i_;
        if (quote == '\'' && i_ < s_.size() && s_[i_] == '\'') {
          ++i_;
          continue;
        }
        return;
      } else {
        ++i_;
      }
    }
  }

  // `$name << EOD` starts a datablock: its lines up to the one holding only EOD are data, not script.
  void skip_datablock() {
    const std::size_t end = std::min(s_.find('\n', i_), s_.size());
    const std::string_view line = s_.substr(i_, end - i_);
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] != '$') return;
    const std::size_t arrows = line.find("<<");
    if (arrows == std::string_view::npos) return;
    std::string_view terminator = line.substr(arrows + 2);
    terminator.remove_prefix(std::min(terminator.find_first_not_of(" \t"), terminator.size()));
    terminator = terminator.substr(0, std::min(terminator.find_first_of(" \t\r#"), terminator.size()));
    if (terminator.empty()) return;
    for (std::size_t start = end + 1; start < s_.size();) {
      const std::size_t stop = std::min(s_.find('\n', start), s_.size());
      std::string_view text = s_.substr(start, stop - start);
      while (!text.empty() && (blank(text.back()))) text.remove_suffix(1);
      start = stop + 1;
      if (text == terminator) {
        i_ = std::min(stop, s_.size());
        return;
      }
    }
    i_ = s_.size();
  }

  void word() {
    const std::size_t begin = i_;
    while (i_ < s_.size() && word_char(s_[i_])) ++i_;
    const std::string_view w = s_.substr(begin, i_ - begin);
    if (std::find(kColumnFunctions.begin(), kColumnFunctions.end(), w) != kColumnFunctions.end()) {
      const std::size_t after = i_;
      skip_blanks();
      if (i_ < s_.size() && s_[i_] == '(') {
        ++i_;
        skip_blanks();
        const std::size_t at = i_;
        if (const auto n = integer_literal()) {
          skip_blanks();
          if (i_ < s_.size() && s_[i_] == ')') refs_.push_back({at, *n, false});
        }
      }
      i_ = std::max(i_, after);
      return;
    }
    if (abbreviates(w, "using")) {
      using_entries();
    } else if (abbreviates(w, "index")) {
      skip_blanks();
      for (int side = 0; side < 2; ++side) {
        const std::size_t at = i_;
        const auto n = integer_literal();
        if (!n) break;
        refs_.push_back({at, *n, true});
        if (i_ >= s_.size() || s_[i_] != ':') break;
        ++i_;
      }
    }
  }

  // The bare column numbers of a using specification; expressions in it are read by run().
  void using_entries() {
    const std::size_t resume = i_;
    skip_blanks();
    int depth = 0;
    bool entry_start = true;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (depth == 0 && (blank(c) || c == ',' || c == '\n' || c == ';' || c == '#')) break;
      if (c == '"' || c == '\'') {
        skip_string();
        entry_start = false;
        continue;
      }
      if (entry_start && depth == 0 && is_digit(c)) {
        const std::size_t at = i_;
        const auto n = integer_literal();
        if (n && (i_ >= s_.size() || s_[i_] == ':' || blank(s_[i_]) || s_[i_] == ',' || s_[i_] == '\n' || s_[i_] == ';')) {
          refs_.push_back({at, *n, false});
        }
        entry_start = false;
        continue;
      }
      entry_start = depth == 0 && c == ':';
      if (c == '(') ++depth;
      if (c == ')' && depth > 0) --depth;
      ++i_;
    }
    i_ = resume;
  }

  std::string_view s_;
  std::size_t i_ = 0;
  std::vector<Reference> refs_;
};

ScriptHazard at(std::string_view s, std::size_t pos, std::string what) {
  ScriptHazard h{1, 1, std::move(what)};
  for (std::size_t k = 0; k < pos && k < s.size(); ++k) {
    h.column = s[k] == '\n' ? 1 : h.column + ((static_cast<unsigned char>(s[k]) & 0xC0) != 0x80 ? 1 : 0);
    h.line += s[k] == '\n' ? 1 : 0;
  }
  return h;
}

}  // namespace

std::optional<ScriptHazard> gnuplot_data_mismatch(std::string_view script, std::string_view data,
                                                  std::string_view data_name) {
  const DataShape shape = data_shape(data);
  if (shape.blocks == 0) return std::nullopt;
  std::vector<Reference> refs = Reader(script).run();
  std::sort(refs.begin(), refs.end(), [](const Reference& a, const Reference& b) { return a.pos < b.pos; });
  const std::string header = shape.header.empty() ? std::string("it has no '# columns:' line")
                                                  : fmt::format("its header: {}", shape.header);
  for (const Reference& r : refs) {
    if (r.block && r.number >= shape.blocks) {
      return at(script, r.pos,
                fmt::format("the script reads index {} (block {}) of {}, which now has {} block{} (index 0 to {}; {})",
                            r.number, r.number + 1, data_name, shape.blocks, shape.blocks == 1 ? "" : "s",
                            shape.blocks - 1, header));
    }
    if (!r.block && r.number > shape.columns) {
      return at(script, r.pos,
                fmt::format("the script reads column {} of {}, which now has {} column{} ({})", r.number, data_name,
                            shape.columns, shape.columns == 1 ? "" : "s", header));
    }
  }
  return std::nullopt;
}

}  // namespace dsx
