#include "dse/study_references.hpp"

#include <algorithm>

#include "dse/analysis/blocks.hpp"
#include "dse/study.hpp"

namespace dsx {

std::vector<TextReference> find_text_references(std::string_view text) {
  std::vector<TextReference> out;
  for (std::size_t open = text.find("{{"); open != std::string_view::npos; open = text.find("{{", open)) {
    const std::size_t close = text.find("}}", open + 2);
    TextReference r;
    r.offset = open;
    if (close == std::string_view::npos) {
      r.length = text.size() - open;
      out.push_back(std::move(r));
      break;
    }
    r.length = close + 2 - open;
    std::string_view key = text.substr(open + 2, close - open - 2);
    while (!key.empty() && (key.front() == ' ' || key.front() == '\n')) key.remove_prefix(1);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\n')) key.remove_suffix(1);
    r.key = std::string(key);
    out.push_back(std::move(r));
    open = close + 2;
  }
  return out;
}

std::vector<std::string> citable_keys(const ResolvedStudy& study) {
  const StudyAnalyses& a = analyses_of(study);
  std::vector<std::string> keys;
  for (const SensitivityRequest& s : a.sensitivities) {
    if (s.decide.empty()) continue;
    for (const char* field : {"choice", "next", "margin", "value", "next_value"}) {
      keys.push_back("decision." + s.name + "." + field);
    }
  }
  for (const Objective& o : study.objectives) {
    keys.push_back("best." + o.key());
    keys.push_back("best." + o.key() + ".value");
  }
  for (const BreakevenRequest& b : a.breakevens) keys.push_back("breakeven." + b.name);
  for (const Comparison& c : study.comparisons) {
    keys.push_back("compare." + c.name + ".dsx");
    keys.push_back("compare." + c.name + ".difference");
  }
  for (const CitedValue& v : study.values) keys.push_back("value." + v.name);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

}  // namespace dsx
