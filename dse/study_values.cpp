// values: numbers a study's prose cites as {{value.NAME}} (dse/study_references.hpp). Each entry
// names one design point, with the selectors compare: entries use, and one of its metrics; with
// `over:`, a second point, and the value is the ratio of the metric at the first to the second; with
// `minus:`, their difference. An entry with `count:`, `min:`, `max:` or `sum:` reads every row its
// `where:` selects that meets its `when:` conditions (studies/README.md "values").
#include <algorithm>
#include <array>

#include "dse/analysis/blocks.hpp"
#include "dse/study_loader.hpp"

namespace dsx::study_loading {

namespace {

constexpr std::array<std::string_view, 11> kValueKeys = {"name",  "metric", "count", "min",  "max", "sum",
                                                         "where", "over",   "minus", "when", "as"};
// What an entry cites: one point's metric, or one of the aggregates over rows.
constexpr std::array<std::string_view, 5> kWhatKeys = {"metric", "count", "min", "max", "sum"};
const std::vector<std::string> kConditionWords = {"feasible", "infeasible", "error", "filters"};
// as: words, in the order of CitedAs after `metric`.
const std::vector<std::string> kAsWords = {"percent", "percent_less", "percent_of"};

// Cited as {{value.NAME}}: lower-case letters, digits and '_', a letter first.
bool value_name(std::string_view s) {
  if (s.empty() || s.front() < 'a' || s.front() > 'z') return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

bool name_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

// The part of a scalar from `offset`, `length` characters long, placed where it is written, so that
// an error in it points at its own column.
YamlNode part_of(const YamlNode& node, std::size_t offset, std::size_t length) {
  YamlNode part = node;
  part.text = node.text.substr(offset, length);
  if (node.style != YamlNode::Style::block) part.column += static_cast<int>(offset);
  part.span = std::max<std::size_t>(1, part.text.size());
  return part;
}

std::size_t skip_spaces(const std::string& s, std::size_t at) {
  while (at < s.size() && s[at] == ' ') ++at;
  return at;
}

// Why no row can meet every one of `when`, decided from the conditions alone (two statuses, a
// comparison, which needs a feasible row, with another status, or bounds on one metric that leave
// no value); empty when some row may.
std::string contradiction(const std::vector<CitedCondition>& when) {
  using Kind = CitedCondition::Kind;
  const CitedCondition* status = nullptr;
  for (const CitedCondition& c : when) {
    if (c.kind == Kind::filters) continue;
    const Kind needs = c.kind == Kind::compare ? Kind::feasible : c.kind;
    if (status != nullptr) {
      const Kind had = status->kind == Kind::compare ? Kind::feasible : status->kind;
      if (had != needs) {
        return "'" + status->text + "' and '" + c.text + "' hold on no row together" +
               (c.kind == Kind::compare || status->kind == Kind::compare ? " (a comparison holds on feasible rows only)" : "");
      }
    }
    status = &c;
  }
  for (const CitedCondition& a : when) {
    if (a.kind != Kind::compare) continue;
    for (const CitedCondition& b : when) {
      if (b.kind != Kind::compare || b.metric != a.metric) continue;
      const bool a_upper = a.op == CitedCondition::Op::less || a.op == CitedCondition::Op::less_equal;
      const bool b_lower = b.op == CitedCondition::Op::greater || b.op == CitedCondition::Op::greater_equal;
      if (!a_upper || !b_lower) continue;
      const bool closed = a.op == CitedCondition::Op::less_equal && b.op == CitedCondition::Op::greater_equal;
      if (a.threshold < b.threshold || (a.threshold == b.threshold && !closed)) {
        return "'" + b.text + "' and '" + a.text + "' leave no value of " + a.metric;
      }
    }
  }
  return {};
}

}  // namespace

std::optional<CitedCondition> StudyLoader::read_condition(const YamlNode& node, const std::string& path) const {
  if (!r_.expect_scalar(node, path)) return std::nullopt;
  const std::string& text = node.text;
  CitedCondition c;
  c.text = text;
  for (std::size_t w = 0; w < kConditionWords.size(); ++w) {
    if (text == kConditionWords[w]) {
      c.kind = static_cast<CitedCondition::Kind>(w);
      if (c.kind == CitedCondition::Kind::filters && analyses_of(s_).filters.empty()) {
        r_.error(node, path + ": 'filters' keeps the rows the study's filters keep, but the study has no filters");
        return std::nullopt;
      }
      return c;
    }
  }
  const std::size_t start = skip_spaces(text, 0);
  std::size_t end = start;
  while (end < text.size() && name_char(text[end])) ++end;
  const std::size_t op_at = skip_spaces(text, end);
  const bool has_op = op_at < text.size() && (text[op_at] == '<' || text[op_at] == '>');
  if (!has_op) {
    const bool one_word = end > start && skip_spaces(text, end) == text.size();
    if (one_word && metric_index(text.substr(start, end - start)) >= 0) {
      r_.error(node, path + ": '" + text + "' is a metric; compare it with a value, e.g. '" +
                         text.substr(start, end - start) + " <= 50 ms'");
      return std::nullopt;
    }
    const std::string near = one_word ? closest_match(text, kConditionWords) : "";
    r_.error(node, path + ": '" + text + "' is not a condition" + (near.empty() ? "" : "; did you mean '" + near + "'?") +
                       " (a condition is one of " + join(kConditionWords) +
                       ", or a metric compared with a value: 'METRIC < VALUE', with <, <=, > or >=)");
    return std::nullopt;
  }
  const YamlNode metric_part = part_of(node, start, end - start);
  bool ok = true;
  if (end == start) {
    r_.error(metric_part, path + ": a comparison starts with a metric: 'METRIC < VALUE'");
    ok = false;
  } else {
    const int m = metric_index(metric_part.text);
    if (m < 0) {
      r_.unknown(metric_part, "metric", metric_names_);
      ok = false;
    } else {
      c.metric = metric_part.text;
    }
  }
  const bool equal = op_at + 1 < text.size() && text[op_at + 1] == '=';
  c.op = text[op_at] == '<' ? (equal ? CitedCondition::Op::less_equal : CitedCondition::Op::less)
                            : (equal ? CitedCondition::Op::greater_equal : CitedCondition::Op::greater);
  const std::size_t value_at = skip_spaces(text, op_at + (equal ? 2 : 1));
  if (value_at == text.size()) {
    r_.error(part_of(node, op_at, equal ? 2 : 1), path + ": the comparison has no value after '" +
                                                     text.substr(op_at, equal ? 2 : 1) + "'");
    return std::nullopt;
  }
  if (!ok) return std::nullopt;
  const Dimension d = metric_spec(static_cast<std::size_t>(metric_index(c.metric))).dimension;
  const auto q = r_.quantity(part_of(node, value_at, text.size() - value_at), d, path + ": " + c.metric);
  if (!q) return std::nullopt;
  c.kind = CitedCondition::Kind::compare;
  c.threshold = q->value;
  return c;
}

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
    // What it cites: exactly one of metric, count, min, max, sum.
    const YamlNode* what = nullptr;
    std::string_view what_key;
    bool several = false;
    for (const YamlEntry& e : item.entries) {
      if (std::find(kWhatKeys.begin(), kWhatKeys.end(), e.key.text) == kWhatKeys.end()) continue;
      if (what != nullptr) {
        several = true;
        r_.error(e.key, path + ": '" + e.key.text + "' and '" + std::string(what_key) + "' both given; a value cites one of " +
                            "metric, count, min, max, sum");
        continue;
      }
      what = &e.value;
      what_key = e.key.text;
    }
    if (what == nullptr) {
      r_.error(item, path + ": missing what the value cites: one of metric (one design point's), count, min, max, sum "
                            "(over the rows its where: selects)");
    }
    const bool aggregate = what != nullptr && what_key != "metric";
    if (what_key == "count") v.aggregate = CitedAggregate::count;
    if (what_key == "min") v.aggregate = CitedAggregate::min;
    if (what_key == "max") v.aggregate = CitedAggregate::max;
    if (what_key == "sum") v.aggregate = CitedAggregate::sum;
    if (aggregate && !analyses_of(s_).keep.all) {
      r_.error(*what, path + "." + std::string(what_key) + ": reads every row its where: selects, but keep: stores only "
                            "some rows; remove keep: or cite one design point's metric");
    }
    if (what_key == "count") {
      std::vector<std::string> choices = {"rows"};
      for (const Axis& a : s_.axes) {
        if (a.values.size() > 1) choices.push_back(a.param);
      }
      if (r_.expect_scalar(*what, path + ".count")) {
        if (std::find(choices.begin(), choices.end(), what->text) == choices.end()) {
          r_.unknown(*what, "count", choices, "values: (rows, or a swept parameter whose distinct values are counted)");
        } else {
          v.count_of = what->text;
        }
      }
    } else if (what != nullptr) {
      std::size_t metric = 0;
      read_metric(*what, path + "." + std::string(what_key), v.metric, metric);
    }
    const YamlNode* where_node = what_key == "metric" && !several ? r_.require(item, "where", path) : item.find("where");
    if (where_node != nullptr) {
      if (auto where = read_selectors(*where_node, path + ".where")) {
        v.where = std::move(*where);
        if (!aggregate && what != nullptr) require_one_point(*where_node, path, v.where, "a cited value");
      }
    }
    for (const char* key : {"over", "minus"}) {
      const YamlNode* n = item.find(key);
      if (n == nullptr) continue;
      const bool over = std::string_view(key) == "over";
      if (aggregate) {
        r_.error(*n, path + "." + key + ": " + (over ? "a ratio" : "a difference") + " is of one design point's metric; "
                     "cite it with metric:, not " + std::string(what_key) + ":");
        continue;
      }
      if (!over && item.find("over") != nullptr) {
        r_.error(*n, path + ".minus: a value is a ratio (over:) or a difference (minus:), not both");
        continue;
      }
      if (auto sel = read_selectors(*n, path + "." + key)) {
        (over ? v.over : v.minus) = std::move(*sel);
        require_one_point(*n, path, over ? v.over : v.minus, over ? "a ratio's denominator" : "the subtracted point", key);
      }
    }
    if (const YamlNode* n = item.find("when")) {
      if (what != nullptr && !aggregate) {
        r_.error(*n, path + ".when: a condition picks among rows; a metric: value is one design point's (cite count, "
                            "min, max or sum to read several)");
      } else if (n->is_sequence()) {
        if (n->items.empty()) r_.error(*n, path + ".when: an empty list; give one condition or several");
        for (std::size_t k = 0; k < n->items.size(); ++k) {
          if (auto c = read_condition(n->items[k], index_path(path + ".when", k))) v.when.push_back(std::move(*c));
        }
      } else if (auto c = read_condition(*n, path + ".when")) {
        v.when.push_back(std::move(*c));
      }
      if (const std::string why = contradiction(v.when); !why.empty()) {
        r_.error(*n, path + ".when: no row can meet these conditions: " + why + ", so the value would read no row");
      }
    }
    if (const YamlNode* n = item.find("as")) {
      if (r_.expect_scalar(*n, path + ".as")) {
        const auto word = std::find(kAsWords.begin(), kAsWords.end(), n->text);
        if (word == kAsWords.end()) {
          r_.unknown(*n, "reading", kAsWords, path + ".as (how a ratio or a difference of two design points reads)");
        } else if (v.over.empty() && v.minus.empty() && item.find("over") == nullptr && item.find("minus") == nullptr) {
          r_.error(*n, path + ".as: '" + n->text + "' reads a value against a second design point; give over: or minus: " +
                           "(a value in percent of another point's)");
        } else {
          v.as = static_cast<CitedAs>(1 + (word - kAsWords.begin()));
        }
      }
    }
    if (r_.diags().error_count() == errors_before) s_.values.push_back(std::move(v));
  }
}

}  // namespace dsx::study_loading
