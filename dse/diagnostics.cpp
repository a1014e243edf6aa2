#include "dse/diagnostics.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

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

// The caret line under `line`: tabs before the column are copied so the caret lines up in a terminal.
std::string caret_line(std::string_view line, int column, std::size_t span) {
  std::string out;
  int col = 1;
  for (std::size_t i = 0; i < line.size() && col < column; ++i) {
    if (is_utf8_continuation(line[i])) continue;
    out += line[i] == '\t' ? '\t' : ' ';
    ++col;
  }
  for (; col < column; ++col) out += ' ';
  out += '^';
  if (span > 1) out.append(span - 1, '~');
  return out;
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
  errors_.push_back(Diagnostic{std::move(where), std::move(message), std::max<std::size_t>(span, 1)});
}

void Diagnostics::unknown(SourceLocation where, std::string_view what, std::string_view got,
                          std::span<const std::string> choices) {
  std::string message = "unknown " + std::string(what) + " '" + std::string(got) + "'";
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
  for (const Diagnostic& d : errors_) {
    out += d.where.file;
    if (d.where.line > 0) {
      out += ':' + std::to_string(d.where.line);
      if (d.where.column > 0) out += ':' + std::to_string(d.where.column);
    }
    out += ": error: " + d.message + "\n";
    if (d.where.line <= 0) continue;
    const auto source = std::find_if(sources_.begin(), sources_.end(),
                                     [&](const auto& s) { return s.first == d.where.file; });
    if (source == sources_.end()) continue;
    const std::string_view line = line_of(source->second, d.where.line);
    out += "  ";
    out += line;
    out += "\n  " + caret_line(line, std::max(d.where.column, 1), d.span) + "\n";
  }
  return out;
}

std::string closest_match(std::string_view word, std::span<const std::string> choices) {
  if (word.empty()) return "";
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
