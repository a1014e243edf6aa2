#include "dse/study_loader.hpp"

#include <algorithm>
#include <cctype>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "dse/calibration/profile.hpp"
#include "dse/study_analyses.hpp"
#include "engine/registry.hpp"

namespace dsx::study_loading {

namespace {

constexpr std::array<std::string_view, 6> kRangeKeys = {"from", "to", "scale", "count", "step", "factor"};
// A generated axis longer than this is almost certainly a typo in `step`.
constexpr std::uint64_t kMaxAxisValues = 10'000'000;
// Significant digits of generated range labels ("1.48718 us"); the value swept is the label's.
constexpr int kRangeLabelDigits = 6;

}  // namespace

std::optional<AxisValue> StudyLoader::read_value(const ParamSpec& p, const YamlNode& node, const std::string& path) const {
  if (p.kind != ParamKind::number) {
    if (!node.is_scalar() || node.text.empty()) {
      r_.error(node, path + ": expected " + expected_phrase(p) + ", got " + node.describe());
      return std::nullopt;
    }
  }
  const auto lookup = [&](const std::vector<std::string>& choices, std::string_view what) -> std::optional<AxisValue> {
    const auto it = std::find(choices.begin(), choices.end(), node.text);
    if (it == choices.end()) {
      // An entry of the study's own catalog block that had errors: already reported there.
      const bool broken = (p.kind == ParamKind::hardware || p.kind == ParamKind::model) &&
                          std::find(broken_ids_.begin(), broken_ids_.end(), node.text) != broken_ids_.end();
      if (!broken) r_.unknown(node, what, choices);
      return std::nullopt;
    }
    return AxisValue{node.text, static_cast<double>(it - choices.begin())};
  };
  switch (p.kind) {
    case ParamKind::hardware:
      if (p.has_default && node.text == kNoCatalogEntry) return AxisValue{node.text, -1};
      return lookup(catalog_.hardware_ids(), "hardware id");
    case ParamKind::model:
      if (p.has_default && node.text == kNoCatalogEntry) return AxisValue{node.text, -1};
      return lookup(catalog_.model_ids(), "model id");
    case ParamKind::precision: {
      std::vector<std::string> names;
      for (Precision pr : kAllPrecisions) names.emplace_back(precision_name(pr));
      return lookup(names, "precision");
    }
    case ParamKind::choice: {
      const std::vector<std::string> names(p.choices.begin(), p.choices.end());
      return lookup(names, std::string(p.name) + " choice");
    }
    case ParamKind::number: {
      if (!p.word.empty() && node.is_scalar()) {
        if (node.text == p.word) return AxisValue{node.text, kParamWord};
        // A word that is not a number: the parameter's word misspelt, or no value at all.
        const unsigned char first = node.text.empty() ? ' ' : static_cast<unsigned char>(node.text.front());
        if (std::isalpha(first) != 0) {
          const std::string word(p.word);
          const std::string near = closest_match(node.text, std::span<const std::string>(&word, 1));
          r_.error(node, path + ": expected " + expected_phrase(p) + ", got '" + node.text + "'" +
                             (near.empty() ? "" : "; did you mean '" + near + "'?"));
          return std::nullopt;
        }
      }
      const auto q = r_.quantity(node, p.dimension, p.name, bounds_of(p));
      if (!q) return std::nullopt;
      return AxisValue{node.text, q->value};
    }
  }
  return std::nullopt;
}

std::string StudyLoader::expected_phrase(const ParamSpec& p) const {
  switch (p.kind) {
    case ParamKind::hardware: return p.has_default ? "a hardware id or none" : "a hardware id";
    case ParamKind::model: return p.has_default ? "a model id or none" : "a model id";
    case ParamKind::precision: return "a precision";
    case ParamKind::choice: return "one of " + join(std::vector<std::string>(p.choices.begin(), p.choices.end()));
    case ParamKind::number:
      return dimension_phrase(p.dimension) + (p.word.empty() ? "" : " such as '" + std::string(unit_example(p.dimension)) +
                                                                        "' or the word '" + std::string(p.word) + "'");
  }
  return "a value";
}

std::string StudyLoader::default_label(const ParamSpec& p) {
  switch (p.kind) {
    case ParamKind::choice: return std::string(p.choices[static_cast<std::size_t>(p.default_value)]);
    case ParamKind::precision: return std::string(precision_name(kAllPrecisions[static_cast<std::size_t>(p.default_value)]));
    case ParamKind::number: return exact_quantity_label(p.default_value, p.dimension);
    case ParamKind::model:
    case ParamKind::hardware: return std::string(kNoCatalogEntry);
  }
  throw std::logic_error("parameter '" + std::string(p.name) + "' has a default of no kind");
}

void StudyLoader::read_axes(const YamlNode& axes) {
  if (!r_.expect_mapping(axes, "axes")) return;
  if (axes.entries.empty()) {
    r_.error(axes, "axes: give at least one axis (a parameter and the values it takes)");
    return;
  }
  for (const YamlEntry& e : axes.entries) {
    const int p = param_index(e.key.text);
    if (p < 0 && e.key.text == kLayoutAxis) {
      read_layout_axis(e);
      continue;
    }
    if (p < 0) {
      if (const BundleKind* kind = find_bundle_kind(e.key.text)) {
        read_bundle_axis(*kind, e);
      } else {
        unknown_param(e.key);
      }
      continue;
    }
    axis_nodes_.push_back(&e.key);
    Axis axis;
    axis.param = e.key.text;
    axis.param_index = static_cast<std::size_t>(p);
    s_.is_axis[axis.param_index] = true;
    const std::string path = "axes." + e.key.text;
    const ParamSpec& ps = spec(axis.param_index);
    if (e.value.is_mapping()) {
      if (ps.kind != ParamKind::number) {
        r_.error(e.value, path + ": a range {from, to, ...} needs a numeric parameter; list the values instead, "
                                 "e.g. [" + example_values(ps) + "]");
        continue;
      }
      if (!read_range(ps, e.value, path, axis)) continue;
    } else if (e.value.is_sequence()) {
      if (e.value.items.empty()) {
        r_.error(e.value, path + ": the axis is empty; give at least one value");
        continue;
      }
      bool ok = true;
      // The values given so far, ordered, so that a duplicate is found in log time: a value within
      // same_number's relative tolerance of an earlier one lies in a window a few 1e-9 wide around it.
      std::multimap<double, const YamlNode*> seen;
      for (std::size_t i = 0; i < e.value.items.size(); ++i) {
        const YamlNode& item = e.value.items[i];
        auto v = read_value(ps, item, index_path(path, i));
        if (!v) {
          ok = false;
          continue;
        }
        const double v_value = v->value;
        const double window = ps.kind == ParamKind::number ? 4e-9 * std::fabs(v_value) : 0.0;
        const YamlNode* earlier = nullptr;
        for (auto it = seen.lower_bound(v_value - window); it != seen.end() && it->first <= v_value + window; ++it) {
          const bool same = ps.kind == ParamKind::number ? same_number(it->first, v_value) : it->first == v_value;
          if (same && (earlier == nullptr || it->second->line < earlier->line ||
                       (it->second->line == earlier->line && it->second->column < earlier->column))) {
            earlier = it->second;
          }
        }
        if (earlier != nullptr) {
          r_.error(item, path + ": duplicate value '" + item.text + "' (already given at " + at_text(*earlier) + ")");
          ok = false;
          continue;
        }
        axis.values.push_back(*v);
        seen.emplace(v_value, &item);
      }
      if (!ok) continue;
      if (!fits_total(e.value, path, "the list gives", axis.values.size())) continue;
    } else {
      r_.error(e.value, path + ": an axis is a list of values, e.g. [" + example_values(ps) +
                            "]; to hold one value constant, put it under fixed:");
      continue;
    }
    axis_values_ += axis.values.size();
    s_.axes.push_back(std::move(axis));
  }
}

bool StudyLoader::fits_total(const YamlNode& node, const std::string& path, std::string_view gives, std::uint64_t count) {
  if (count <= kMaxTotalAxisValues - std::min(axis_values_, kMaxTotalAxisValues)) return true;
  r_.error(node, path + ": " + std::string(gives) + " " + std::to_string(count) + " values and the axes before it hold " +
                     std::to_string(axis_values_) + "; all axes together hold at most " +
                     std::to_string(kMaxTotalAxisValues) +
                     " values (a grid of many points needs only a few values per axis)");
  return false;
}

std::string StudyLoader::example_values(const ParamSpec& p) const {
  switch (p.kind) {
    case ParamKind::hardware: {
      const auto ids = catalog_.hardware_ids();
      return ids.size() >= 2 ? ids[0] + ", " + ids[1] : "a100_80gb_sxm, h100_sxm";
    }
    case ParamKind::model: {
      const auto ids = catalog_.model_ids();
      return ids.size() >= 2 ? ids[0] + ", " + ids[1] : "resnet50, gpt2_layer";
    }
    case ParamKind::precision: return "fp16, int8";
    case ParamKind::choice:
      return p.choices.size() >= 2 ? std::string(p.choices[0]) + ", " + std::string(p.choices[1])
                                   : std::string(p.choices.empty() ? "" : p.choices[0]);
    case ParamKind::number: return std::string(unit_example(p.dimension));
  }
  return "";
}

bool StudyLoader::read_range(const ParamSpec& ps, const YamlNode& range, const std::string& path, Axis& axis) {
  r_.check_keys(range, kRangeKeys, path);
  const std::size_t errors_before = r_.diags().error_count();
  const YamlNode* from_node = r_.require(range, "from", path);
  const YamlNode* to_node = r_.require(range, "to", path);
  std::optional<Quantity> from;
  std::optional<Quantity> to;
  if (from_node != nullptr) from = r_.quantity(*from_node, ps.dimension, ps.name);
  if (to_node != nullptr) to = r_.quantity(*to_node, ps.dimension, ps.name);
  bool log = false;
  if (const YamlNode* n = range.find("scale")) {
    if (n->is_scalar() && (n->text == "linear" || n->text == "log")) {
      log = n->text == "log";
    } else if (r_.expect_scalar(*n, path + ".scale")) {
      const std::vector<std::string> scales = {"linear", "log"};
      r_.unknown(*n, "scale", scales);
    }
  }
  const YamlNode* count_node = range.find("count");
  const YamlNode* step_node = range.find("step");
  const YamlNode* factor_node = range.find("factor");
  const int given = (count_node != nullptr) + (step_node != nullptr) + (factor_node != nullptr);
  if (given == 0) {
    r_.error(range, path + ": give one of count, step (linear scale) or factor (log scale)");
  } else if (given > 1) {
    const YamlNode* second = count_node != nullptr ? (step_node != nullptr ? step_node : factor_node) : factor_node;
    r_.error(*second, path + ": give only one of count, step and factor");
  }
  std::optional<double> count;
  std::optional<double> step;
  std::optional<double> factor;
  if (count_node != nullptr) {
    const QuantityBounds b{.bounded = true, .min_value = 2, .max_value = static_cast<double>(kMaxAxisValues),
                           .integer = true};
    if (auto q = r_.quantity(*count_node, Dimension::count, path + ".count", b)) count = q->value;
  }
  if (step_node != nullptr) {
    if (log) {
      r_.error(*step_node, path + ": step is for linear ranges; a log range takes factor (or count)");
    } else {
      const QuantityBounds b{.bounded = true, .min_value = 0, .max_value = HUGE_VAL, .min_exclusive = true};
      if (auto q = r_.quantity(*step_node, ps.dimension, path + ".step", b)) step = q->value;
    }
  }
  if (factor_node != nullptr) {
    if (!log) {
      r_.error(*factor_node, path + ": factor is for log ranges; add scale: log, or use step");
    } else {
      const QuantityBounds b{.bounded = true, .min_value = 1, .max_value = HUGE_VAL, .min_exclusive = true};
      if (auto q = r_.quantity(*factor_node, Dimension::dimensionless, path + ".factor", b)) factor = q->value;
    }
  }
  if (r_.diags().error_count() != errors_before || !from || !to) return false;
  const double a = from->value;
  const double b = to->value;
  if (!(a < b)) {
    r_.error(*to_node, path + ": to (" + to_node->text + ") must be greater than from (" + from_node->text + ")");
    return false;
  }
  if (log && a <= 0) {
    r_.error(*from_node, path + ": a log range must start above zero, got from: " + from_node->text);
    return false;
  }
  if (!std::isfinite(log ? b / a : b - a)) {
    r_.error(range, path + ": the range from " + from_node->text + " to " + to_node->text + " has a " +
                        (log ? "ratio" : "width") + " beyond the range of a double; narrow it");
    return false;
  }
  // Number of values, checked before anything is allocated.
  double n = 0;
  if (count) n = *count;
  if (step) n = std::floor((b - a) / *step * (1 + 1e-12) + 1e-9) + 1;
  if (factor) n = std::floor(std::log(b / a) / std::log(*factor) + 1e-9) + 1;
  if (!(n <= static_cast<double>(kMaxAxisValues))) {
    r_.error(range, path + ": the range gives " + (std::isfinite(n) ? number_text(n, 6) : "too many") +
                        " values; an axis holds at most " + std::to_string(kMaxAxisValues));
    return false;
  }
  if (!fits_total(range, path, "the range gives", static_cast<std::uint64_t>(n))) return false;
  const auto total = static_cast<std::size_t>(n);
  const std::string unit = from->unit;
  const double scale = from->unit_scale;
  for (std::size_t i = 0; i < total; ++i) {
    const double t = total > 1 ? static_cast<double>(i) / static_cast<double>(total - 1) : 0;
    double v = 0;
    if (count) {
      v = log ? (i + 1 == total ? b : a * std::pow(b / a, t)) : (i + 1 == total ? b : a + (b - a) * t);
    } else if (step) {
      v = a + static_cast<double>(i) * *step;
    } else {
      v = a * std::pow(*factor, static_cast<double>(i));
    }
    if (ps.integer && log) v = std::round(v);
    std::string label = label_in_unit(v, unit, scale, kRangeLabelDigits);
    const QuantityParse back = parse_quantity(label, ps.dimension, ps.name);
    if (!back.quantity) {
      r_.error(range, path + ": the range gives the value '" + label + "': " + back.error.message);
      return false;
    }
    const double value = back.quantity->value;
    if (ps.integer && value != std::floor(value)) {
      r_.error(range, path + ": " + std::string(ps.name) + " takes integers, but this range gives " + label +
                          "; choose count or step so every value is an integer");
      return false;
    }
    const std::string problem = check_bounds(value, bounds_of(ps), ps.dimension, ps.name, label);
    if (!problem.empty()) {
      r_.error(range, path + ": " + problem);
      return false;
    }
    if (!axis.values.empty() && same_number(axis.values.back().value, value)) {
      if (ps.integer && log) continue;  // rounding a log range to integers merges its small values
      r_.error(range, path + ": the range gives '" + label + "' twice; use fewer values");
      return false;
    }
    axis.values.push_back(AxisValue{std::move(label), value});
  }
  return true;
}

void StudyLoader::read_fixed(const YamlNode* fixed) {
  if (fixed == nullptr) return;
  if (fixed->is_null()) return;  // `fixed:` with nothing under it
  if (!r_.expect_mapping(*fixed, fixed_path_)) return;
  for (const YamlEntry& e : fixed->entries) {
    const int p = param_index(e.key.text);
    if (p < 0 && e.key.text == kLayoutAxis) {
      r_.error(e.key, fixed_path_ + ".layout: a layout is an axis (axes: layout: {gpus: ..., tp: ..., pp: ...}); to "
                                    "hold one layout, give gpus, tp, pp, cp and ep under " + fixed_path_ + ":");
      continue;
    }
    if (p < 0) {
      if (const BundleKind* kind = find_bundle_kind(e.key.text)) {
        read_fixed_bundle(*kind, e);
      } else {
        unknown_param(e.key);
      }
      continue;
    }
    const auto pi = static_cast<std::size_t>(p);
    const std::string path = fixed_path_ + "." + e.key.text;
    fixed_keys_.insert(e.key.text);
    if (s_.is_axis[pi]) {
      const YamlNode* axis_key = nullptr;
      for (const YamlNode* k : axis_nodes_) {
        if (k->text == e.key.text) axis_key = k;
      }
      r_.error(e.key, "'" + e.key.text + "' is both an axis (" + (axis_key ? at_text(*axis_key) : "") +
                          ") and fixed: keep one");
      continue;
    }
    if (!e.value.is_scalar()) {
      r_.error(e.value, path + ": a fixed value is a single value, got " + e.value.describe() +
                            "; to sweep several values, put them under axes:");
      continue;
    }
    if (auto v = read_value(spec(pi), e.value, path)) {
      s_.fixed_values[pi] = v->value;
      s_.fixed_labels[pi] = v->label;
      fixed_[pi] = true;
    }
  }
}

const CatalogBundle* StudyLoader::lookup_bundle(const BundleKind& kind, const YamlNode& node, const std::string& path) const {
  if (!node.is_scalar() || node.text.empty()) {
    r_.error(node, path + ": expected a " + std::string(kind.name) + " id, got " + node.describe());
    return nullptr;
  }
  if (const CatalogBundle* b = catalog_.find_bundle(kind.name, node.text)) return b;
  if (std::find(broken_ids_.begin(), broken_ids_.end(), node.text) == broken_ids_.end()) {
    r_.unknown(node, std::string(kind.name) + " id", catalog_.bundle_ids(kind.name));
  }
  return nullptr;
}

std::optional<std::vector<BundleSetting>> StudyLoader::settings_of(const CatalogBundle& b, const YamlNode& node,
                                                                 const std::string& path, bool with_topology) const {
  std::string problem;
  auto settings = bundle_settings(b, *s_.solver, catalog_, problem, with_topology);
  if (!settings) r_.error(node, path + ": " + problem);
  return settings;
}

std::string StudyLoader::names_of(const std::vector<BundleSetting>& settings, std::span<const ParamSpec> params) {
  std::string out;
  for (const BundleSetting& x : settings) out += (out.empty() ? "" : ", ") + std::string(params[x.param].name);
  return out.empty() ? "nothing" : out;
}

void StudyLoader::quiet_bundle_params(const BundleKind& kind) {
  for (const CatalogBundle& b : catalog_.bundles) {
    if (b.kind != kind.name) continue;
    for (const auto& [name, label] : b.values) bundle_quiet_.insert(name);
  }
}

void StudyLoader::read_bundle_axis(const BundleKind& kind, const YamlEntry& e) {
  const std::size_t errors_before = r_.diags().error_count();
  read_bundle_axis_values(kind, e);
  if (r_.diags().error_count() != errors_before) quiet_bundle_params(kind);
}

void StudyLoader::read_bundle_axis_values(const BundleKind& kind, const YamlEntry& e) {
  const std::string path = "axes." + e.key.text;
  const std::string example = e.key.text + ": [" + join(catalog_.bundle_ids(kind.name)) + "]";
  if (!e.value.is_sequence()) {
    r_.error(e.value, path + ": an axis of " + std::string(kind.list_key) + " is a list of ids, e.g. " + example +
                          "; to hold one constant, put it under fixed:");
    return;
  }
  if (e.value.items.empty()) {
    r_.error(e.value, path + ": the axis is empty; give at least one " + std::string(kind.name) + " id");
    return;
  }
  Axis axis;
  axis.param = e.key.text;
  std::vector<std::vector<BundleSetting>> rows;
  std::vector<const YamlNode*> nodes;
  std::unordered_map<std::string_view, const YamlNode*> node_of_id;
  bool ok = true;
  // One node with a torus topology has every node of the axis set the torus parameters.
  bool with_topology = false;
  for (const YamlNode& item : e.value.items) {
    const CatalogBundle* b = item.is_scalar() ? catalog_.find_bundle(kind.name, item.text) : nullptr;
    with_topology = with_topology || (b != nullptr && !b->torus.empty());
  }
  for (std::size_t i = 0; i < e.value.items.size(); ++i) {
    const YamlNode& item = e.value.items[i];
    const std::string item_path = index_path(path, i);
    const CatalogBundle* b = lookup_bundle(kind, item, item_path);
    if (b == nullptr) {
      ok = false;
      continue;
    }
    const auto earlier = node_of_id.find(item.text);
    if (earlier != node_of_id.end()) {
      r_.error(item, path + ": duplicate value '" + item.text + "' (already given at " + at_text(*earlier->second) + ")");
      ok = false;
      continue;
    }
    auto settings = settings_of(*b, item, item_path, with_topology);
    if (!settings) {
      ok = false;
      continue;
    }
    axis.values.push_back(AxisValue{item.text, static_cast<double>(axis.values.size())});
    rows.push_back(std::move(*settings));
    nodes.push_back(&item);
    node_of_id.emplace(item.text, &item);
  }
  if (!ok) return;
  const auto params = s_.solver->params();
  const auto same_params = [](const std::vector<BundleSetting>& a, const std::vector<BundleSetting>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const BundleSetting& x, const BundleSetting& y) { return x.param == y.param; });
  };
  for (std::size_t v = 1; v < rows.size(); ++v) {
    if (same_params(rows[v], rows[0])) continue;
    r_.error(*nodes[v], path + ": '" + nodes[v]->text + "' sets " + names_of(rows[v], params) + " of solver '" +
                            std::string(s_.solver->name()) + "' but '" + nodes[0]->text + "' sets " +
                            names_of(rows[0], params) + "; every value of an axis of " +
                            std::string(kind.list_key) + " must set the same parameters (add the missing values "
                            "in a catalog: block entry with base: " + nodes[v]->text + ")");
    ok = false;
  }
  if (!ok) return;
  if (rows[0].empty()) {
    const CatalogBundle* first = catalog_.find_bundle(kind.name, nodes[0]->text);
    r_.error(e.key, path + ": no " + std::string(kind.name) + " of this axis sets a parameter of solver '" +
                        std::string(s_.solver->name()) + "' (their values are for " + bundle_value_names(*first) +
                        ")");
    return;
  }
  for (const BundleSetting& x : rows[0]) axis.sets.push_back(x.param);
  for (const auto& row : rows) {
    for (const BundleSetting& x : row) {
      axis.set_values.push_back(x.value);
      axis.set_labels.push_back(x.label);
    }
  }
  axis.param_index = axis.sets.front();
  s_.bundles.push_back(BundleUse{e.key.text, static_cast<int>(s_.axes.size()), "", axis.sets});
  bundle_keys_.push_back(&e.key);
  bundle_rows_.push_back({});
  axis_values_ += axis.values.size();
  s_.axes.push_back(std::move(axis));
}

void StudyLoader::read_fixed_bundle(const BundleKind& kind, const YamlEntry& e) {
  const std::size_t errors_before = r_.diags().error_count();
  read_fixed_bundle_value(kind, e);
  if (r_.diags().error_count() != errors_before) quiet_bundle_params(kind);
}

void StudyLoader::read_fixed_bundle_value(const BundleKind& kind, const YamlEntry& e) {
  const std::string path = fixed_path_ + "." + e.key.text;
  fixed_keys_.insert(e.key.text);
  for (std::size_t u = 0; u < s_.bundles.size(); ++u) {
    if (s_.bundles[u].kind == e.key.text) {
      r_.error(e.key, "'" + e.key.text + "' is both an axis (" + at_text(*bundle_keys_[u]) + ") and fixed: keep one");
      return;
    }
  }
  if (e.value.is_sequence() || e.value.is_mapping()) {
    r_.error(e.value, path + ": a fixed " + std::string(kind.name) + " is one id, got " + e.value.describe() +
                          "; to sweep several, put them under axes:");
    return;
  }
  const CatalogBundle* b = lookup_bundle(kind, e.value, path);
  if (b == nullptr) return;
  auto settings = settings_of(*b, e.value, path);
  if (!settings) return;
  if (settings->empty()) {
    r_.error(e.value, path + ": " + std::string(kind.name) + " '" + b->id + "' sets no parameter of solver '" +
                          std::string(s_.solver->name()) + "' (its values are for " + bundle_value_names(*b) + ")");
    return;
  }
  BundleUse use{e.key.text, -1, b->id, {}};
  for (const BundleSetting& x : *settings) use.params.push_back(x.param);
  s_.bundles.push_back(std::move(use));
  bundle_keys_.push_back(&e.key);
  bundle_rows_.push_back(std::move(*settings));
}

void StudyLoader::apply_bundles(const YamlNode* fixed) {
  std::array<int, kMaxParams> setter{};
  setter.fill(-1);
  std::vector<BundleUse> kept;
  for (std::size_t u = 0; u < s_.bundles.size(); ++u) {
    const BundleUse& use = s_.bundles[u];
    const std::string by = use.axis >= 0 ? "the " + use.kind + " axis" : use.kind + " '" + use.id + "'";
    const std::string place = by + " (" + at_text(*bundle_keys_[u]) + ")";
    bool ok = true;
    for (std::size_t p : use.params) {
      const std::string& name = param_names_[p];
      const YamlNode* explicit_key = nullptr;
      std::string where;
      if (s_.is_axis[p]) {
        for (const YamlNode* k : axis_nodes_) {
          if (k->text == name) explicit_key = k;
        }
        where = "under axes:";
      } else if (fixed_written(p) && fixed != nullptr && fixed->is_mapping()) {
        for (const YamlEntry& f : fixed->entries) {
          if (f.key.text == name) explicit_key = &f.key;
        }
        where = "under fixed:";
      }
      if (explicit_key != nullptr) {
        r_.error(*explicit_key, "'" + name + "' is set both " + where + " and by " + place + ": keep one");
        ok = false;
      } else if (setter[p] >= 0) {
        const BundleUse& other = s_.bundles[static_cast<std::size_t>(setter[p])];
        const std::string other_by = other.axis >= 0 ? "the " + other.kind + " axis" : other.kind + " '" + other.id + "'";
        r_.error(*bundle_keys_[u], "'" + name + "' is set both by " + by + " and by " + other_by + " (" +
                                       at_text(*bundle_keys_[static_cast<std::size_t>(setter[p])]) + "): keep one");
        ok = false;
      } else {
        setter[p] = static_cast<int>(u);
      }
    }
    if (!ok) continue;
    for (std::size_t i = 0; i < use.params.size(); ++i) {
      const std::size_t p = use.params[i];
      fixed_[p] = true;
      if (use.axis < 0) {
        s_.fixed_values[p] = bundle_rows_[u][i].value;
        s_.fixed_labels[p] = bundle_rows_[u][i].label;
      } else {
        s_.fixed_values[p] = 0;
        s_.fixed_labels[p] = "per " + use.kind;
      }
    }
  }
}

const BundleUse* StudyLoader::bundle_use(std::string_view name) const {
  for (const BundleUse& u : s_.bundles) {
    if (u.kind == name) return &u;
  }
  return nullptr;
}

bool StudyLoader::is_swept_name(std::string_view name) const {
  const int p = param_index(name);
  if (p >= 0) return s_.is_axis[static_cast<std::size_t>(p)];
  const BundleUse* use = bundle_use(name);
  return use != nullptr && use->axis >= 0;
}

bool StudyLoader::set_by_bundle_axis(std::size_t p) const {
  const BundleUse* u = s_.bundle_setting(p);
  return u != nullptr && u->axis >= 0;
}

void StudyLoader::fill_defaults(const YamlNode& solver_node) {
  inherit_hardware_factors();
  const auto params = s_.solver->params();
  for (std::size_t p = 0; p < params.size(); ++p) {
    if (s_.is_axis[p] || fixed_[p] || failed_param(p)) continue;
    const FittedParameter* fitted =
        s_.calibration ? s_.calibration->parameter(s_.solver->name(), params[p].name) : nullptr;
    if (fitted != nullptr) {
      s_.fixed_values[p] = fitted->value;
      s_.fixed_labels[p] = exact_quantity_label(fitted->value, params[p].dimension);
      s_.calibrated[p] = true;
      fixed_[p] = true;
      scale_per_hardware(p, *fitted);
    } else if (params[p].has_default) {
      s_.fixed_values[p] = params[p].default_value;
      s_.fixed_labels[p] = default_label(params[p]);
      fixed_[p] = true;
    } else if (misspelt_.count(param_names_[p]) == 0) {
      const std::string example = params[p].kind == ParamKind::number
                                      ? " such as '" + std::string(unit_example(params[p].dimension)) + "'"
                                      : "";
      r_.error(solver_node, "solver '" + std::string(s_.solver->name()) + "' needs a value for '" +
                                std::string(params[p].name) + "' (" + expected_phrase(params[p]) + example +
                                "): give it under axes: or fixed:");
    }
  }
}

void StudyLoader::inherit_hardware_factors() {
  if (!s_.calibration || s_.calibration->hardware_factors.empty()) return;
  const CalibrationProfile& profile = *s_.calibration;
  std::vector<std::string> families;
  for (const HardwareFactor& f : profile.hardware_factors) {
    if (std::find(families.begin(), families.end(), f.family) == families.end()) families.push_back(f.family);
  }
  std::vector<HardwareFactor> inherited;
  for (const std::string& family : families) {
    for (const HardwareSpec& hw : catalog_.hardware) {
      const auto own = [&](std::string_view id) {
        return std::find_if(profile.hardware_factors.begin(), profile.hardware_factors.end(),
                            [&](const HardwareFactor& f) { return f.family == family && f.hardware == id; });
      };
      if (own(hw.id) != profile.hardware_factors.end()) continue;
      // Nearest base first; a chain never visits more entries than the catalog holds.
      std::string_view base = catalog_.hardware_base(hw.id);
      for (std::size_t hops = 0; !base.empty() && hops < catalog_.hardware.size(); ++hops) {
        if (const auto f = own(base); f != profile.hardware_factors.end()) {
          inherited.push_back(HardwareFactor{family, hw.id, f->factor, f->spread, 0});
          break;
        }
        base = catalog_.hardware_base(base);
      }
    }
  }
  if (inherited.empty()) return;
  CalibrationProfile copy = profile;
  copy.hardware_factors.insert(copy.hardware_factors.end(), inherited.begin(), inherited.end());
  std::sort(copy.hardware_factors.begin(), copy.hardware_factors.end(), [](const HardwareFactor& a, const HardwareFactor& b) {
    return std::tie(a.family, a.hardware) < std::tie(b.family, b.hardware);
  });
  s_.calibration = std::make_shared<const CalibrationProfile>(std::move(copy));
}

void StudyLoader::scale_per_hardware(std::size_t p, const FittedParameter& fitted) {
  if (fitted.per_hardware.empty()) return;
  const ParamSpec& spec = s_.solver->params()[p];
  const double upper = spec.max_value > spec.min_value ? spec.max_value : HUGE_VAL;
  ResolvedStudy::HardwareScaled scaled{p, {}};
  bool any = false;
  for (const HardwareSpec& hw : catalog_.hardware) {
    const double factor = s_.calibration->hardware_factor(fitted.per_hardware, hw.id);
    any = any || factor != 1.0;
    scaled.value_per_hardware.push_back(hardware_scaled_value(fitted.value, factor, upper));
  }
  if (!any) return;
  // One chip for the whole study: the value it gets, and where it comes from.
  const auto params = s_.solver->params();
  const auto hardware = std::find_if(params.begin(), params.end(),
                                     [](const ParamSpec& spec) { return spec.kind == ParamKind::hardware; });
  const auto h = static_cast<std::size_t>(hardware - params.begin());
  std::string chip;
  if (hardware != params.end() && fixed_[h] && !s_.is_axis[h] && !set_by_bundle_axis(h)) chip = s_.fixed_labels[h];
  for (const Axis& a : s_.axes) {
    if (hardware != params.end() && !a.is_bundle() && a.param_index == h && a.values.size() == 1) chip = a.values[0].label;
  }
  // A value that follows a second hardware (ParamSpec::scaled_by_second_hardware) takes its chip
  // wherever that one is set: one chip when it names one id throughout, none known when it varies.
  const auto second = hardware == params.end() ? params.end()
                                               : std::find_if(hardware + 1, params.end(), [](const ParamSpec& ps) {
                                                   return ps.kind == ParamKind::hardware;
                                                 });
  if (spec.scaled_by_second_hardware && second != params.end()) {
    const auto h2 = static_cast<std::size_t>(second - params.begin());
    std::set<std::string> labels;
    bool known = !set_by_bundle_axis(h2);
    if (!s_.is_axis[h2]) labels.insert(s_.fixed_labels[h2]);
    for (const Axis& a : s_.axes) {
      if (a.is_bundle() || a.param_index != h2) continue;
      for (const AxisValue& v : a.values) labels.insert(v.label);
    }
    labels.erase(std::string(kNoCatalogEntry));
    labels.erase("");  // not filled in yet: its default, none
    const bool also_none = known && s_.is_axis[h2] && std::any_of(s_.axes.begin(), s_.axes.end(), [&](const Axis& a) {
      return !a.is_bundle() && a.param_index == h2 &&
             std::any_of(a.values.begin(), a.values.end(), [](const AxisValue& v) { return v.label == kNoCatalogEntry; });
    });
    if (!known || labels.size() > 1 || (labels.size() == 1 && also_none && labels.count(chip) == 0)) {
      chip.clear();
    } else if (labels.size() == 1) {
      chip = *labels.begin();
    }
  }
  if (!chip.empty()) {
    const double factor = s_.calibration->hardware_factor(fitted.per_hardware, chip);
    if (factor != 1.0) {
      s_.fixed_values[p] = hardware_scaled_value(fitted.value, factor, upper);
      const std::string_view base = catalog_.hardware_base(chip);
      const bool inherited = std::any_of(s_.calibration->hardware_factors.begin(), s_.calibration->hardware_factors.end(),
                                         [&](const HardwareFactor& f) {
                                           return f.family == fitted.per_hardware && f.hardware == chip && f.rows == 0;
                                         });
      s_.calibration_origin[p] = s_.fixed_labels[p] + " x " + fitted.per_hardware + " factor " + number_text(factor) +
                                 " of " + chip + (inherited && !base.empty() ? ", copied from " + std::string(base) : "");
      s_.fixed_labels[p] = number_text(s_.fixed_values[p], 4);
    }
  } else {
    s_.fixed_labels[p] += " x " + fitted.per_hardware + " factor of the chip";
  }
  s_.hardware_scaled.push_back(std::move(scaled));
}

bool StudyLoader::failed_param(std::size_t p) const {
  return std::any_of(axis_nodes_.begin(), axis_nodes_.end(),
                     [&](const YamlNode* k) { return k->text == param_names_[p]; }) ||
         fixed_written(p) || bundle_quiet_.count(param_names_[p]) > 0;
}

void StudyLoader::check_point_count(const YamlNode& axes) {
  std::uint64_t total = 1;
  for (const Axis& a : s_.axes) {
    if (__builtin_mul_overflow(total, static_cast<std::uint64_t>(a.values.size()), &total)) {
      r_.error(axes, "axes: the grid has more than 2^64 design points; sweep fewer values");
      return;
    }
  }
}

}  // namespace dsx::study_loading
