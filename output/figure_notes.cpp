#include "output/figure_notes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <vector>

namespace dsx {

std::string figure_error_quote(std::string_view error, const std::string& run_dir) {
  constexpr std::size_t kMaxLines = 12;
  std::string text(error);
  std::vector<std::string> prefixes;
  std::error_code ec;
  const std::string absolute = std::filesystem::absolute(run_dir, ec).lexically_normal().string();
  for (const std::string& dir : {absolute, run_dir}) {
    if (!dir.empty()) prefixes.push_back((dir.back() == '/' ? dir : dir + "/") + "figures/");
  }
  for (const std::string& prefix : prefixes) {
    for (std::size_t p = text.find(prefix); p != std::string::npos; p = text.find(prefix, p)) {
      text.replace(p, prefix.size(), "figures/");
    }
  }
  std::vector<std::string> lines;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string line = text.substr(start, end - start);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
    lines.push_back(std::move(line));
    start = end + 1;
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  std::string out;
  for (std::size_t i = 0; i < lines.size() && i < kMaxLines; ++i) out += ">     " + lines[i] + "\n";
  if (lines.size() > kMaxLines) {
    out += fmt::format(">     ... {} more lines, printed in full on stderr\n", lines.size() - kMaxLines);
  }
  if (!out.empty()) out.pop_back();
  return out;
}

namespace {

void collect_not_drawn(const nlohmann::ordered_json& node, std::vector<std::string>& numbers) {
  if (node.is_object()) {
    const auto flag = node.find("not_drawn");
    const auto number = node.find("number");
    if (flag != node.end() && flag->is_boolean() && flag->get<bool>() && number != node.end() && number->is_string()) {
      numbers.push_back("Figure " + number->get<std::string>());
    }
  }
  if (node.is_structured()) {
    for (const auto& child : node) collect_not_drawn(child, numbers);
  }
}

std::string and_list(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? (items.size() > 2 ? ", and " : " and ") : ", ";
    out += items[i];
  }
  return out;
}

}  // namespace

nlohmann::ordered_json incomplete_context(const nlohmann::ordered_json& report,
                                          const std::vector<std::string>& failed_analyses) {
  std::vector<std::string> figures;
  collect_not_drawn(report, figures);
  std::vector<std::string> parts;
  if (!figures.empty()) parts.push_back(and_list(figures) + (figures.size() == 1 ? " was not drawn" : " were not drawn"));
  if (!failed_analyses.empty()) {
    parts.push_back(and_list(failed_analyses) + " could not run");
  }
  nlohmann::ordered_json out;
  out["has_missing"] = !parts.empty();
  const bool one = figures.size() + failed_analyses.size() == 1;
  out["text"] = and_list(parts) + (one ? "; its place below says why and what to do."
                                       : "; their places below say why and what to do.");
  return out;
}

std::string mark_figures_not_drawn(std::string html) {
  static constexpr std::string_view kIncomplete = "<blockquote>\n<p><strong>This report is incomplete.</strong>";
  static constexpr std::string_view kOpen = "<blockquote>\n<p><strong>Figure ";
  static constexpr std::string_view kMarked = "<blockquote class=\"figure-not-drawn\" role=\"note\">";
  if (const std::size_t p = html.find(kIncomplete); p != std::string::npos) {
    html.replace(p, std::string_view("<blockquote>").size(), kMarked);
  }
  for (std::size_t p = html.find(kOpen); p != std::string::npos; p = html.find(kOpen, p + 1)) {
    std::size_t k = p + kOpen.size();
    const std::size_t digits = k;
    while (k < html.size() && html[k] >= '0' && html[k] <= '9') ++k;
    if (k == digits || html.compare(k, 15, " was not drawn.") != 0) continue;
    html.replace(p, std::string_view("<blockquote>").size(), kMarked);
  }
  return html;
}

std::string_view figure_note_style() {
  return "blockquote.figure-not-drawn { margin: 0.8rem 0 1.2rem; padding: 0.5rem 1rem; border-left: 4px solid #b3261e; "
         "background: #fdf3f2; }\n"
         "blockquote.figure-not-drawn pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0.4rem 0; "
         "padding: 0.4rem 0.6rem; background: #ffffff; border: 1px solid #e6c3c0; font-size: 0.85em; }\n"
         "@media print { blockquote.figure-not-drawn { break-inside: avoid; } }\n";
}

}  // namespace dsx
