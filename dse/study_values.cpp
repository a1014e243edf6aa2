// values: numbers a study's prose cites as {{value.NAME}} (dse/study_references.hpp). Each entry
// names one design point, with the selectors compare: entries use, and one of its metrics; with
// `over:`, a second point, and the value is the ratio of the metric at the first to the second.
#include <algorithm>
#include <array>

#include "dse/study_loader.hpp"

namespace dsx::study_loading {

namespace {

constexpr std::array<std::string_view, 4> kValueKeys = {"name", "metric", "where", "over"};

// Cited as {{value.NAME}}: lower-case letters, digits and '_', a letter first.
bool value_name(std::string_view s) {
  if (s.empty() || s.front() < 'a' || s.front() > 'z') return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

}  // namespace

void StudyLoader::read_values(const YamlNode& list) {
  if (list.is_null()) return;
  if (!r_.expect_sequence(list, "values")) return;
  std::vector<const YamlNode*> names;
  for (std::size_t i = 0; i < list.items.size(); ++i) {
    const YamlNode& item = list.items[i];
    const std::string path = index_path("values", i);
    if (!r_.expect_mapping(item, path)) continue;
    r_.check_keys(item, kValueKeys, path);
    const std::size_t errors_before = r_.diags().error_count();
    CitedValue v;
    if (const YamlNode* n = r_.require(item, "name", path)) {
      if (auto name = r_.string(*n, path + ".name")) {
        if (!value_name(*name)) {
          r_.error(*n, path + ".name: '" + shown_name(*name) +
                           "' is cited as {{value." + shown_name(*name) +
                           "}}: use lower-case letters, digits and '_', a letter first");
        }
        for (const YamlNode* earlier : names) {
          if (earlier->text == *name) {
            r_.error(*n, path + ": another value is already named '" + *name + "' (" + at_text(*earlier) + ")");
          }
        }
        v.name = *name;
        names.push_back(n);
      }
    }
    if (const YamlNode* n = r_.require(item, "where", path)) {
      if (auto where = read_selectors(*n, path + ".where")) {
        v.where = std::move(*where);
        require_one_point(*n, path, v.where, "a cited value");
      }
    }
    if (const YamlNode* n = item.find("over")) {
      if (auto over = read_selectors(*n, path + ".over")) {
        v.over = std::move(*over);
        require_one_point(*n, path, v.over, "a ratio's denominator", "over");
      }
    }
    std::size_t metric = 0;
    if (const YamlNode* n = r_.require(item, "metric", path)) read_metric(*n, path + ".metric", v.metric, metric);
    if (r_.diags().error_count() == errors_before) s_.values.push_back(std::move(v));
  }
}

}  // namespace dsx::study_loading
