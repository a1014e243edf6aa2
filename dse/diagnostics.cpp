#include "dse/diagnostics.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <string_view>
#include <utility>

namespace dsx {

namespace {

bool is_utf8_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0U) == 0x80U; }

// Line `line` (1-based) of `text`, without its line break; empty when out of range.
std::string_view line_of(std::string_view text, int line) {
  std::size_t begin = 0;
  for (int l = 1; l < line; ++l) {
    const std::size_t nl = text.find('\n', begin);
    if (nl == std::string_view::npos) return {};
    begin = nl + 1;
  }
  std::size_t end = text.find('\n', begin);
  if (end == std::string_view::npos) end = text.size();
  if (end > begin && text[end - 1] == '\r') --end;
  return text.substr(begin, end - begin);
}

// A C0 control character (tabs and line breaks included), DEL, or the lead byte of a C1 control
// (U+0080 to U+009F, 0xC2 0x80-0x9F in UTF-8): terminals act on these, so they are shown escaped.
bool is_c0_or_del(unsigned char c) { return c < 0x20 || c == 0x7f; }
bool is_c1_at(std::string_view s, std::size_t i) {
  return static_cast<unsigned char>(s[i]) == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
         static_cast<unsigned char>(s[i + 1]) <= 0x9f;
}

void append_hex_escape(std::string& out, unsigned char c) {
  constexpr std::string_view kHex = "0123456789abcdef";
  out += "\\x";
  out += kHex[c >> 4U];
  out += kHex[c & 0xfU];
}

// The columns one character starting at s[i] takes once escaped, and its length in bytes.
std::pair<std::size_t, std::size_t> shown_width(std::string_view s, std::size_t i) {
  if (is_c0_or_del(static_cast<unsigned char>(s[i]))) return {4, 1};
  if (is_c1_at(s, i)) return {8, 2};
  std::size_t bytes = 1;
  while (i + bytes < s.size() && is_utf8_continuation(s[i + bytes])) ++bytes;
  return {1, bytes};
}

// The caret line under the escaped `line`: `column` and `span` count characters of the raw line;
// each escaped character widens by its escape, so the caret stays under the same character.
std::string caret_line(std::string_view line, int column, std::size_t span) {
  std::size_t pad = 0;
  std::size_t width = 0;
  std::size_t i = 0;
  int col = 1;
  for (; i < line.size() && col < column; ++col) {
    const auto [w, bytes] = shown_width(line, i);
    pad += w;
    i += bytes;
  }
  pad += static_cast<std::size_t>(std::max(column - col, 0));
  for (std::size_t n = 0; n < span; ++n) {
    if (i < line.size()) {
      const auto [w, bytes] = shown_width(line, i);
      width += w;
      i += bytes;
    } else {
      ++width;
    }
  }
  std::string out(pad, ' ');
  out += '^';
  if (width > 1) out.append(width - 1, '~');
  return out;
}

// The part of a long source line around the reported characters, so that one error on a line of
// megabytes prints a line a terminal can show; `column` and `span` are in characters of `text`.
struct SourceWindow {
  std::string before;  // "..." when characters before the window are left out
  std::string_view text;
  std::string after;
  int column = 1;
  std::size_t span = 1;
};

SourceWindow window_around(std::string_view line, int column, std::size_t span) {
  constexpr std::size_t kContext = 60;
  SourceWindow w;
  w.text = line;
  w.column = column;
  w.span = span;
  std::size_t chars = 0;
  for (char c : line) chars += is_utf8_continuation(c) ? 0 : 1;
  if (chars <= kMaxShownLineChars) return w;
  const std::size_t first = static_cast<std::size_t>(column - 1) > kContext ? static_cast<std::size_t>(column - 1) - kContext : 0;
  const std::size_t last = std::min(chars, static_cast<std::size_t>(column - 1) + span + kContext);
  std::size_t begin_byte = line.size();
  std::size_t end_byte = line.size();
  std::size_t n = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (is_utf8_continuation(line[i])) continue;
    if (n == first) begin_byte = i;
    if (n == last) {
      end_byte = i;
      break;
    }
    ++n;
  }
  w.text = line.substr(begin_byte, end_byte - begin_byte);
  w.before = first > 0 ? "..." : "";
  w.after = last < chars ? "..." : "";
  w.column = column - static_cast<int>(first);
  return w;
}

// Optimal string alignment distance: insertions, deletions, substitutions and transpositions of
// neighbours each cost 1 ("titel" -> "title" is one edit).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string escape_control_characters(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (is_c0_or_del(c)) {
      append_hex_escape(out, c);
    } else if (is_c1_at(text, i)) {
      append_hex_escape(out, c);
      append_hex_escape(out, static_cast<unsigned char>(text[++i]));
    } else {
      out += text[i];
    }
  }
  return out;
}

void Diagnostics::add_source(std::string file, std::string text) {
  for (auto& [name, content] : sources_) {
    if (name == file) {
      content = std::move(text);
      return;
    }
  }
  sources_.emplace_back(std::move(file), std::move(text));
}

void Diagnostics::error(SourceLocation where, std::string message, std::size_t span) {
  if (errors_.size() >= kMaxKeptErrors) {
    ++dropped_;
    return;
  }
  errors_.push_back(Diagnostic{std::move(where), std::move(message), std::max<std::size_t>(span, 1)});
}

void Diagnostics::unknown(SourceLocation where, std::string_view what, std::string_view got,
                          std::span<const std::string> choices) {
  std::string message = "unknown " + std::string(what) + " '" + elide_middle(got, 80) + "'";
  const std::string near = closest_match(got, choices);
  if (!near.empty()) message += "; did you mean '" + near + "'?";
  if (choices.empty()) {
    message += " (there are no " + std::string(what) + "s to choose from)";
  } else {
    message += near.empty() ? "; " : " ";
    message += "valid " + std::string(what) + "s: ";
    for (std::size_t i = 0; i < choices.size(); ++i) {
      if (i > 0) message += ", ";
      message += choices[i];
    }
  }
  std::size_t span = 0;
  for (char c : got) span += is_utf8_continuation(c) ? 0 : 1;
  error(std::move(where), std::move(message), span);
}

std::string Diagnostics::format() const {
  std::string out;
  const std::size_t shown = std::min(errors_.size(), kMaxShownErrors);
  for (std::size_t e = 0; e < shown; ++e) {
    const Diagnostic& d = errors_[e];
    out += escape_control_characters(d.where.file);
    if (d.where.line > 0) {
      out += ':' + std::to_string(d.where.line);
      if (d.where.column > 0) out += ':' + std::to_string(d.where.column);
    }
    out += ": error: " + escape_control_characters(elide_middle(d.message, kMaxShownMessageChars)) + "\n";
    if (d.where.line <= 0) continue;
    const auto source = std::find_if(sources_.begin(), sources_.end(),
                                     [&](const auto& s) { return s.first == d.where.file; });
    if (source == sources_.end()) continue;
    const SourceWindow window = window_around(line_of(source->second, d.where.line), std::max(d.where.column, 1),
                                              std::min<std::size_t>(d.span, kMaxShownLineChars));
    out += "  " + window.before + escape_control_characters(window.text) + window.after;
    out += "\n  " + std::string(window.before.size() > 0 ? 3 : 0, ' ') +
           caret_line(window.text, window.column, window.span) + "\n";
  }
  if (error_count() > shown) {
    out += "... and " + std::to_string(error_count() - shown) + " more errors; fix these first\n";
  }
  return out;
}

std::string elide_middle(std::string_view text, std::size_t max_chars) {
  std::size_t chars = 0;
  for (char c : text) chars += is_utf8_continuation(c) ? 0 : 1;
  if (chars <= max_chars) return std::string(text);
  const std::size_t keep_front = max_chars * 2 / 3;
  const std::size_t keep_back = max_chars - keep_front;
  const auto byte_of_char = [&](std::size_t wanted) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (is_utf8_continuation(text[i])) continue;
      if (n++ == wanted) return i;
    }
    return text.size();
  };
  const std::size_t front_end = byte_of_char(keep_front);
  const std::size_t back_begin = byte_of_char(chars - keep_back);
  return std::string(text.substr(0, front_end)) + "...(" + std::to_string(chars - keep_front - keep_back) +
         " characters)..." + std::string(text.substr(back_begin));
}

std::string closest_match(std::string_view word, std::span<const std::string> choices) {
  // No name is this long: a suggestion would cost time quadratic in the word for nothing.
  if (word.empty() || word.size() > 256) return "";
  const std::string word_lower = lower(word);
  // 1. A unique choice that extends the word ("h100" -> "h100_sxm", not the nearer "h200").
  const std::string* extended = nullptr;
  std::size_t extended_count = 0;
  for (const std::string& choice : choices) {
    if (word.size() >= 3 && lower(choice).starts_with(word_lower)) {
      extended = &choice;
      ++extended_count;
    }
  }
  if (extended_count == 1) return *extended;
  // 2. The nearest spelling, within a third of the longer word's length.
  std::size_t best = std::numeric_limits<std::size_t>::max();
  const std::string* best_choice = nullptr;
  for (const std::string& choice : choices) {
    const std::size_t folded = edit_distance(word_lower, lower(choice));
    const std::size_t longest = std::max(word.size(), choice.size());
    if (folded > std::max<std::size_t>(1, longest / 3)) continue;
    // Ties are broken by the case-sensitive distance, then by the order of the choices.
    const std::size_t score = 2 * folded + (edit_distance(word, choice) > folded ? 1 : 0);
    if (score < best) {
      best = score;
      best_choice = &choice;
    }
  }
  if (best_choice != nullptr) return *best_choice;
  // 3. The longest choice the word starts with ("usec" -> "us").
  const std::string* stem = nullptr;
  for (const std::string& choice : choices) {
    if (!choice.empty() && word_lower.starts_with(lower(choice)) && (stem == nullptr || choice.size() > stem->size())) {
      stem = &choice;
    }
  }
  return stem != nullptr ? *stem : "";
}

}  // namespace dsx
