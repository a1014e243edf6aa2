#include "output/gnuplot_script_check.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>

namespace dsx {

namespace {

// A command or function and the shortest abbreviation gnuplot takes for it.
struct Refused {
  std::string_view full;
  std::size_t shortest;
  std::string_view why;
};

constexpr std::array<Refused, 8> kRefused = {{
    {"system", 2, "runs a shell command"},
    {"shell", 2, "starts a shell"},
    {"load", 2, "runs another script"},
    {"call", 2, "runs another script"},
    {"evaluate", 4, "runs a command built from a string"},
    {"save", 2, "writes a file outside the figure"},
    {"import", 3, "loads a plugin library"},
    {"cd", 2, "changes the folder the figure is drawn in"},
}};

bool abbreviates(std::string_view word, std::string_view full, std::size_t shortest) {
  return word.size() >= shortest && word.size() <= full.size() && full.substr(0, word.size()) == word;
}

// Options whose value names a file gnuplot writes: set output / print / table, fit's logfile.
bool names_written_file(std::string_view word, std::string_view previous) {
  if (previous == "set") {
    return abbreviates(word, "output", 1) || abbreviates(word, "print", 2) || abbreviates(word, "table", 3);
  }
  return word == "logfile";
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

class Scanner {
 public:
  explicit Scanner(std::string_view script) : s_(script) {}

  std::optional<ScriptHazard> run() {
    for (std::size_t start = 0; start < s_.size();) {
      const std::size_t end = std::min(s_.find('\n', start), s_.size());
      const std::string_view text = s_.substr(start, end - start);
      const std::size_t first = text.find_first_not_of(" \t");
      if (first != std::string_view::npos && text[first] != '#' && text.find('`') != std::string_view::npos) {
        fail(start + text.find('`'), "a backquote runs its text as a shell command");
        return error_;
      }
      start = end + 1;
    }
    while (!error_ && i_ < s_.size()) step();
    return error_;
  }

 private:
  void fail(std::size_t pos, const std::string& what) {
    if (error_) return;
    ScriptHazard h{1, 1, what};
    for (std::size_t k = 0; k < pos && k < s_.size(); ++k) {
      h.column = s_[k] == '\n' ? 1 : h.column + ((static_cast<unsigned char>(s_[k]) & 0xC0) != 0x80 ? 1 : 0);
      h.line += s_[k] == '\n' ? 1 : 0;
    }
    error_ = std::move(h);
  }

  void skip_blanks() {
    while (i_ < s_.size()) {
      if (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\r') {
        ++i_;
      } else if (s_[i_] == '\\' && i_ + 1 < s_.size() && s_[i_ + 1] == '\n') {
        i_ += 2;  // a continued line
      } else {
        break;
      }
    }
  }

  // The raw text of the string literal at i_ (quotes excluded); i_ moves past it.
  std::string_view literal() {
    const char quote = s_[i_];
    const std::size_t open = ++i_;
    while (i_ < s_.size() && s_[i_] != '\n') {
      if (quote == '"' && s_[i_] == '\\' && i_ + 1 < s_.size()) {
        i_ += 2;
      } else if (s_[i_] == quote && quote == '\'' && i_ + 1 < s_.size() && s_[i_ + 1] == '\'') {
        i_ += 2;
      } else if (s_[i_] == quote) {
        break;
      } else {
        ++i_;
      }
    }
    const std::string_view text = s_.substr(open, i_ - open);
    if (i_ < s_.size() && s_[i_] == quote) ++i_;
    return text;
  }

  void check_literal(std::size_t at, std::string_view text) {
    const std::size_t first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos) return;
    char lead = text[first];
    if (lead == '\\' && first + 1 < text.size()) {
      // An octal escape is a character like any other ("\074" is '<'); \n, \t and the like are not
      // '<' or '|'; other escapes are not read here, so they are refused.
      const std::string_view rest = text.substr(first + 1);
      std::size_t digits = 0;
      int value = 0;
      while (digits < 3 && digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '7') {
        value = value * 8 + (rest[digits] - '0');
        ++digits;
      }
      if (digits > 0) {
        lead = static_cast<char>(value);
      } else if (std::string_view("ntr\\\"'").find(rest.front()) == std::string_view::npos) {
        fail(at, fmt::format("the string \"{}\" starts with an escape that could name a pipe", text));
        return;
      }
    }
    if (lead == '<' || lead == '|') {
      fail(at, fmt::format("the string \"{}\" names a pipe, which runs a shell command", text));
    }
  }

  // After `set output` and the like: end of command, a datablock or one plain file name.
  void check_destination(std::size_t at, std::string_view option) {
    skip_blanks();
    if (i_ >= s_.size() || s_[i_] == '\n' || s_[i_] == ';' || s_[i_] == '#') return;
    if (s_[i_] == '$') return;
    if (s_[i_] != '"' && s_[i_] != '\'') {
      fail(at, fmt::format("'{}' takes a file name written as one string here", option));
      return;
    }
    const std::size_t open = i_;
    const std::string_view name = literal();
    check_literal(open, name);
    skip_blanks();
    const bool ends = i_ >= s_.size() || s_[i_] == '\n' || s_[i_] == ';' || s_[i_] == '#' || word_char(s_[i_]);
    if (name.empty() || name.front() == '.' || name.find_first_of("/\\") != std::string_view::npos || !ends) {
      fail(open, fmt::format("'{}' may write only a plain file name in the figure's folder, not \"{}\"", option, name));
    }
  }

  void step() {
    skip_blanks();
    if (i_ >= s_.size()) return;
    const char c = s_[i_];
    if (c == '\n' || c == ';' || c == '{' || c == '}') {
      command_start_ = true;
      previous_.clear();
      ++i_;
      return;
    }
    if (c == '#') {
      while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      return;
    }
    const bool at_start = command_start_;
    command_start_ = false;
    if (c == '"' || c == '\'') {
      const std::size_t open = i_;
      check_literal(open, literal());
      previous_.clear();
      return;
    }
    if (c == '!' && at_start) {
      fail(i_, "'!' at the start of a command runs a shell command");
      return;
    }
    if (c == '@') {
      fail(i_, "'@' expands a macro, which can build any command from strings");
      return;
    }
    if (c == '(' && (previous_ == "if" || previous_ == "while")) {
      skip_condition();
      command_start_ = true;
      previous_.clear();
      return;
    }
    if (!word_char(c) || std::isdigit(static_cast<unsigned char>(c)) != 0) {
      ++i_;
      if (c != ' ') previous_.clear();
      return;
    }
    const std::size_t begin = i_;
    while (i_ < s_.size() && word_char(s_[i_])) ++i_;
    const std::string_view word = s_.substr(begin, i_ - begin);
    if (at_start && word == "l") {
      fail(begin, "'l' at the start of a command is gnuplot's load, which runs another script");
      return;
    }
    for (const Refused& r : kRefused) {
      if (abbreviates(word, r.full, r.shortest)) {
        fail(begin, fmt::format("'{}' {}", word, r.why));
        return;
      }
    }
    if (names_written_file(word, previous_)) {
      check_destination(begin, word);
      previous_.clear();
      return;
    }
    if (at_start && word == "else") command_start_ = true;
    previous_ = std::string(word);
  }

  // The parenthesised condition of if/while, strings in it checked.
  void skip_condition() {
    int depth = 0;
    while (!error_ && i_ < s_.size() && s_[i_] != '\n') {
      const char c = s_[i_];
      if (c == '"' || c == '\'') {
        const std::size_t open = i_;
        check_literal(open, literal());
        continue;
      }
      if (c == '@') {
        fail(i_, "'@' expands a macro, which can build any command from strings");
        return;
      }
      if (word_char(c) && std::isdigit(static_cast<unsigned char>(c)) == 0) {
        const std::size_t begin = i_;
        while (i_ < s_.size() && word_char(s_[i_])) ++i_;
        const std::string_view word = s_.substr(begin, i_ - begin);
        for (const Refused& r : kRefused) {
          if (abbreviates(word, r.full, r.shortest)) fail(begin, fmt::format("'{}' {}", word, r.why));
        }
        continue;
      }
      ++i_;
      if (c == '(') ++depth;
      if (c == ')' && --depth == 0) return;
    }
  }

  std::string_view s_;
  std::size_t i_ = 0;
  bool command_start_ = true;
  std::string previous_;
  std::optional<ScriptHazard> error_;
};

}  // namespace

std::optional<ScriptHazard> gnuplot_script_hazard(std::string_view script) { return Scanner(script).run(); }

}  // namespace dsx
