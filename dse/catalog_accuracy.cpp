#include "dse/catalog_accuracy.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "dse/quantity.hpp"
#include "dse/yaml_reader.hpp"

namespace dsx {

namespace {

constexpr std::array<std::string_view, 11> kAccuracyKeys = {
    "model",    "method", "weight_precision", "quantize", "group_size", "sparsity",
    "structured_2_4", "metric", "baseline", "compressed", "source"};
constexpr std::array<std::string_view, 2> kQuantizeChoices = {"weights_only", "weights_activations"};
constexpr std::array<std::string_view, 2> kOffOn = {"off", "on"};
constexpr std::string_view kPerChannel = "per_channel";

template <std::size_t N>
std::vector<std::string> names_of(const std::array<std::string_view, N>& names, std::size_t first = 0) {
  std::vector<std::string> out;
  for (std::size_t i = first; i < N; ++i) out.emplace_back(names[i]);
  return out;
}

// The index of the scalar `node` among `names` (from `first`); nullopt after an error naming them.
template <std::size_t N>
std::optional<std::size_t> read_choice(const YamlReader& r, const YamlNode& node, const std::string& path,
                                       std::string_view what, const std::array<std::string_view, N>& names,
                                       std::size_t first = 0) {
  const auto text = r.string(node, path);
  if (!text) return std::nullopt;
  for (std::size_t i = first; i < N; ++i) {
    if (names[i] == *text) return i;
  }
  r.unknown(node, what, names_of(names, first));
  return std::nullopt;
}

bool sixteen_bit(Precision p) { return p == Precision::fp16 || p == Precision::bf16; }

bool same_entry(const CatalogAccuracy& a, const CatalogAccuracy& b) {
  return a.model == b.model && a.figure.metric == b.figure.metric && a.figure.setting == b.figure.setting;
}

std::optional<CatalogAccuracy> read_entry(const YamlReader& r, const YamlNode& entry, const std::string& path,
                                          const Catalog& into) {
  if (!r.expect_mapping(entry, path)) return std::nullopt;
  r.check_keys(entry, kAccuracyKeys, path);
  const std::size_t errors_before = r.diags().error_count();
  CatalogAccuracy out;
  const auto field = [&](std::string_view key) { return r.require(entry, key, path); };
  const auto sub = [&](std::string_view key) { return path + "." + std::string(key); };
  if (const YamlNode* n = field("model")) {
    if (const auto id = r.string(*n, sub("model"))) {
      if (into.find_model(*id) == nullptr) {
        r.unknown(*n, "model id", into.model_ids());
      } else {
        out.model = *id;
      }
    }
  }
  if (const YamlNode* n = field("source")) {
    if (const auto text = r.string(*n, sub("source"))) out.source = *text;
  }
  CompressionSetting& s = out.figure.setting;
  if (const YamlNode* n = field("method")) {
    if (const auto i = read_choice(r, *n, sub("method"), "compression method", kCompressionMethodNames, 1)) {
      s.method = static_cast<std::uint8_t>(*i);
    }
  }
  if (const YamlNode* n = field("weight_precision")) {
    if (const auto text = r.string(*n, sub("weight_precision"))) {
      if (const auto p = parse_precision(*text)) {
        s.weight_precision = *p;
      } else {
        std::vector<std::string> names;
        for (Precision q : kAllPrecisions) names.emplace_back(precision_name(q));
        r.unknown(*n, "precision", names);
      }
    }
  }
  if (const YamlNode* n = field("quantize")) {
    if (const auto i = read_choice(r, *n, sub("quantize"), "quantize choice", kQuantizeChoices)) {
      s.weights_activations = *i == 1;
    }
  }
  if (const YamlNode* n = field("group_size")) {
    if (n->is_scalar() && (n->text == kPerChannel || n->text == "none")) {
      s.group_size = 0;
    } else if (n->is_scalar() && !n->text.empty() && (n->text[0] < '0' || n->text[0] > '9')) {
      r.error(*n, sub("group_size") + ": '" + n->text +
                      "' is neither a whole number of weights, per_channel nor none (weights not quantized)");
    } else if (const auto q = r.quantity(*n, Dimension::count, sub("group_size"),
                                         {.bounded = true, .min_value = 1, .max_value = 1e9, .integer = true})) {
      s.group_size = q->value;
    }
  }
  if (const YamlNode* n = entry.find("group_size"); n != nullptr && sixteen_bit(s.weight_precision) && s.group_size != 0) {
    r.error(*n, sub("group_size") + ": " + std::string(precision_name(s.weight_precision)) +
                    " weights are the 16-bit baseline's, not quantized, and have no groups: write none");
  }
  if (const YamlNode* n = field("sparsity")) {
    if (const auto q = r.quantity(*n, Dimension::dimensionless, sub("sparsity"),
                                  {.bounded = true, .min_value = 0, .max_value = 0.999999})) {
      s.sparsity = q->value;
    }
  }
  if (const YamlNode* n = entry.find("structured_2_4")) {
    if (const auto i = read_choice(r, *n, sub("structured_2_4"), "structured_2_4 choice", kOffOn)) {
      s.structured_2_4 = *i == 1;
    }
  }
  if (const YamlNode* n = field("metric")) {
    if (const auto i = read_choice(r, *n, sub("metric"), "accuracy metric", kAccuracyMetricNames)) {
      out.figure.metric = static_cast<AccuracyMetric>(*i);
    }
  }
  const bool fraction = out.figure.metric == AccuracyMetric::zero_shot_average_accuracy;
  for (const auto& [key, value] : {std::pair{"baseline", &out.figure.baseline}, {"compressed", &out.figure.compressed}}) {
    const YamlNode* n = field(key);
    if (n == nullptr) continue;
    const auto q = r.quantity(*n, Dimension::dimensionless, sub(key),
                              {.bounded = true, .min_value = 0, .max_value = 1e300, .min_exclusive = true});
    if (!q) continue;
    if (fraction && q->value > 1) {
      r.error(*n, sub(key) + ": an accuracy of " + n->text + " is more than 1; write the source's percentage with its "
                                 "unit ('" + n->text + " %')");
      continue;
    }
    *value = q->value;
  }
  if (r.diags().error_count() != errors_before) return std::nullopt;
  return out;
}

}  // namespace

void read_accuracy_entries(const YamlReader& r, const YamlNode& list, std::string_view path, Catalog& into) {
  if (!r.expect_sequence(list, path)) return;
  std::vector<std::pair<CatalogAccuracy, const YamlNode*>> read;
  for (std::size_t i = 0; i < list.items.size(); ++i) {
    const std::string at = std::string(path) + "[" + std::to_string(i) + "]";
    auto entry = read_entry(r, list.items[i], at, into);
    if (!entry) continue;
    const auto earlier = std::find_if(read.begin(), read.end(), [&](const auto& e) { return same_entry(e.first, *entry); });
    if (earlier != read.end()) {
      r.error(list.items[i], at + ": a second figure for model '" + entry->model + "', the same setting and metric " +
                                 std::string(kAccuracyMetricNames[static_cast<std::size_t>(entry->figure.metric)]) +
                                 ": the first is at line " + std::to_string(earlier->second->line) + ", column " +
                                 std::to_string(earlier->second->column));
      continue;
    }
    read.emplace_back(std::move(*entry), &list.items[i]);
  }
  for (auto& kept : read) {
    CatalogAccuracy& entry = kept.first;  // not a structured binding: clang 14 cannot capture one
    const auto existing = std::find_if(into.accuracy.begin(), into.accuracy.end(),
                                       [&](const CatalogAccuracy& e) { return same_entry(e, entry); });
    if (existing != into.accuracy.end()) {
      *existing = std::move(entry);
    } else {
      into.accuracy.push_back(std::move(entry));
    }
  }
}

void load_accuracy_text(const std::string& file, const std::string& text, Catalog& into, Diagnostics& diags) {
  YamlReader r(file, diags);
  const auto root = r.parse(text);
  if (!root) return;
  if (!r.expect_mapping(*root, "")) return;
  const std::array<std::string_view, 1> keys = {kAccuracyListKey};
  r.check_keys(*root, keys, "");
  if (const YamlNode* list = r.require(*root, kAccuracyListKey, "")) {
    read_accuracy_entries(r, *list, kAccuracyListKey, into);
  }
}

void attach_published_accuracy(Catalog& catalog) {
  for (CatalogModel& m : catalog.models) {
    m.prepared.published_accuracy.clear();
    for (const CatalogAccuracy& a : catalog.accuracy) {
      if (a.model == m.id) m.prepared.published_accuracy.push_back(a.figure);
    }
  }
}

std::vector<std::pair<std::string_view, std::string>> accuracy_entry_fields(const CatalogAccuracy& e) {
  const CompressionSetting& s = e.figure.setting;
  const std::array<std::string, kAccuracyKeys.size()> values = {
      e.model,
      std::string(kCompressionMethodNames[s.method]),
      std::string(precision_name(s.weight_precision)),
      std::string(kQuantizeChoices[s.weights_activations ? 1 : 0]),
      s.group_size != 0                 ? number_text(s.group_size)
      : sixteen_bit(s.weight_precision) ? std::string("none")
                                        : std::string(kPerChannel),
      number_text(s.sparsity),
      std::string(kOffOn[s.structured_2_4 ? 1 : 0]),
      std::string(kAccuracyMetricNames[static_cast<std::size_t>(e.figure.metric)]),
      number_text(e.figure.baseline),
      number_text(e.figure.compressed),
      e.source};
  std::vector<std::pair<std::string_view, std::string>> out;
  for (std::size_t i = 0; i < values.size(); ++i) out.emplace_back(kAccuracyKeys[i], values[i]);
  return out;
}

void write_accuracy_entries(std::string& out, const std::vector<CatalogAccuracy>& entries) {
  if (entries.empty()) return;
  out += "  compression_accuracy:\n";
  for (const CatalogAccuracy& e : entries) {
    std::string fields;
    for (const auto& [key, value] : accuracy_entry_fields(e)) {
      fields += (fields.empty() ? "" : ", ") + std::string(key) + ": " + yaml_scalar(value);
    }
    out += "    - {" + fields + "}\n";
  }
}

std::string accuracy_entry_text(const CatalogAccuracy& e) {
  std::string out;
  write_accuracy_entries(out, {e});
  return out;
}

}  // namespace dsx
