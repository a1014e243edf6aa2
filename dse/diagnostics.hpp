// Diagnostics for bad user input: every problem at once, each as
//   file:line:col: error: message
//     <the offending line>
//     ^~~~~
//   with the valid choices and the closest match where there is one.
// Control characters in the file name, the message and the echoed line are shown as \xNN, the caret
// under the same character of the escaped line.
// Lines and columns are 1-based. Diagnostics keep the text of every file they report on so the
// offending line can be shown.
// Bounded output whatever the input: format() prints the first kMaxShownErrors errors and counts the
// rest, shows at most kMaxShownLineChars characters of a source line (around the caret) and of a
// message (the middle left out); an error past kMaxKeptErrors is counted, not kept.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dsx {

inline constexpr std::size_t kMaxShownErrors = 50;
inline constexpr std::size_t kMaxKeptErrors = 10'000;
inline constexpr std::size_t kMaxShownLineChars = 200;
inline constexpr std::size_t kMaxShownMessageChars = 4'000;

struct SourceLocation {
  std::string file;
  int line = 0;    // 1-based; 0 = unknown (whole file)
  int column = 0;  // 1-based
};

struct Diagnostic {
  SourceLocation where;
  std::string message;
  std::size_t span = 1;  // characters to underline
};

class Diagnostics {
 public:
  void add_source(std::string file, std::string text);
  void error(SourceLocation where, std::string message, std::size_t span = 1);
  // "unknown <what> 'got'; did you mean 'x'? valid <what>s: a, b, c"
  void unknown(SourceLocation where, std::string_view what, std::string_view got,
               std::span<const std::string> choices);

  bool has_errors() const { return !errors_.empty(); }
  const std::vector<Diagnostic>& errors() const { return errors_; }  // the first kMaxKeptErrors
  std::size_t error_count() const { return errors_.size() + dropped_; }
  // All errors, formatted with the offending line and a caret, in the order they were found.
  std::string format() const;

 private:
  std::vector<std::pair<std::string, std::string>> sources_;
  std::vector<Diagnostic> errors_;
  std::size_t dropped_ = 0;
};

// `text` with every control character shown as \xNN: C0 (below 0x20, tabs and line breaks included),
// DEL (0x7f) and C1 (U+0080 to U+009F, each of its two UTF-8 bytes), so input echoed in a message
// can neither drive a terminal nor break the one-line file:line:col format. format() applies it to
// file names, messages and the echoed source line.
std::string escape_control_characters(std::string_view text);

// `text` cut to `max_chars` characters by leaving out its middle: "front...(N characters)...back".
std::string elide_middle(std::string_view text, std::size_t max_chars);

// The choice closest to `word` by edit distance, or "" when none is close enough to suggest.
std::string closest_match(std::string_view word, std::span<const std::string> choices);

}  // namespace dsx
