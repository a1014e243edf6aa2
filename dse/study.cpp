#include "dse/study.hpp"

#include <algorithm>
#include <filesystem>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "dse/bundles.hpp"
#include "dse/quantity.hpp"
#include "dse/study_analyses.hpp"
#include "dse/yaml_reader.hpp"
#include "engine/registry.hpp"

namespace dsx {

namespace {

constexpr std::array<std::string_view, 22> kStudyKeys = {
    "study",   "title",   "question",    "solver",      "axes",       "fixed", "objectives", "catalog",  "compare",
    "figures", "sections", "derived",    "filters",     "constraints", "assertions", "top_k", "pareto", "breakeven",
    "sensitivity", "template", "grid_constraints", "keep"};
constexpr std::array<std::string_view, 2> kSectionKeys = {"title", "text"};
constexpr std::array<std::string_view, 5> kCatalogKeys = {"hardware", "models", "regions", "fabrics", "nodes"};
constexpr std::array<std::string_view, 2> kObjectiveKeys = {"metric", "direction"};
constexpr std::array<std::string_view, 7> kCompareKeys = {"name",      "where",  "metric",     "expected",
                                                          "tolerance", "source", "explanation"};
constexpr std::array<std::string_view, 18> kFigureKeys = {
    "name",  "kind",  "title", "caption",   "x", "y",     "group", "where",      "log_x",
    "log_y", "pareto", "crossover", "z", "log_z", "roofs", "precisions", "eta", "width"};
constexpr std::array<std::string_view, 6> kRangeKeys = {"from", "to", "scale", "count", "step", "factor"};

constexpr double kDefaultTolerance = 0.05;
// A generated axis longer than this is almost certainly a typo in `step`.
constexpr std::uint64_t kMaxAxisValues = 10'000'000;
// All axes together hold at most this many values (40-byte AxisValues: 400 MB), checked before each
// range is generated; a grid of 1e18 points still needs only a few values per axis.
constexpr std::uint64_t kMaxTotalAxisValues = 10'000'000;
// Significant digits of generated range labels ("1.48718 us"); the value swept is the label's.
constexpr int kRangeLabelDigits = 6;
// Numbers on an axis are the same value when they agree to this relative precision ("10 us" = "0.01 ms").
constexpr double kSameValueTolerance = 1e-9;

bool same_number(double a, double b) {
  return a == b || std::fabs(a - b) <= kSameValueTolerance * std::max(std::fabs(a), std::fabs(b));
}

bool valid_name(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'; });
}

// A refused name as a message shows it: control characters (a NUL, a line break) as \xNN, so the
// message stays one line.
std::string shown_name(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xFU];
    } else {
      out += c;
    }
  }
  return out;
}

std::string hex64(std::uint64_t h) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 0; i < 16; ++i) out[15 - i] = kHex[(h >> (4 * i)) & 0xFU];
  return out;
}

// FNV-1a, 64 bit (Fowler, Noll, Vo; http://www.isthe.com/chongo/tech/comp/fnv/).
std::uint64_t fnv1a(std::string_view data) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (unsigned char c : data) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return hash;
}

std::string index_path(std::string_view path, std::size_t i) {
  return std::string(path) + "[" + std::to_string(i) + "]";
}

std::string at_text(const YamlNode& n) {
  return "line " + std::to_string(n.line) + ", column " + std::to_string(n.column);
}

QuantityBounds bounds_of(const ParamSpec& spec) {
  QuantityBounds b;
  b.bounded = spec.max_value > spec.min_value;
  b.min_value = spec.min_value;
  b.max_value = spec.max_value;
  b.min_exclusive = spec.min_exclusive;
  b.integer = spec.integer;
  return b;
}

bool is_categorical(const ParamSpec& spec) { return spec.kind != ParamKind::number; }

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i > 0 ? ", " : "") + items[i];
  return out;
}

class StudyLoader {
 public:
  StudyLoader(const std::string& file, Diagnostics& diags) : r_(file, diags) {}

  std::optional<ResolvedStudy> load(const std::string& text, const std::string& catalog_dir) {
    Diagnostics& diags = r_.diags();
    const std::size_t errors_before = diags.errors().size();
    const auto root = r_.parse(text);
    if (!root) return std::nullopt;
    if (root->is_null()) {
      r_.error(*root, "the study is empty: it needs at least the keys study, title, question, solver and axes");
      return std::nullopt;
    }
    if (!r_.expect_mapping(*root, "")) return std::nullopt;
    r_.check_keys(*root, kStudyKeys, "");
    s_.file = r_.file();
    s_.content_hash = hex64(fnv1a(text));

    if (const YamlNode* n = r_.require(*root, "study", "")) {
      if (auto name = r_.string(*n, "study")) {
        if (valid_name(*name)) {
          s_.name = *name;
        } else {
          r_.error(*n, "study: '" + shown_name(*name) + "' is not a valid study name: use a-z, 0-9, '_' and '-' (it names the "
                       "run folder runs/<study>/)");
        }
      }
    }
    if (const YamlNode* n = r_.require(*root, "title", "")) {
      if (auto t = r_.string(*n, "title")) s_.title = *t;
    }
    if (const YamlNode* n = r_.require(*root, "question", "")) {
      if (auto q = r_.string(*n, "question")) s_.question = *q;
    }
    const YamlNode* solver_node = r_.require(*root, "solver", "");
    if (solver_node != nullptr) {
      if (auto name = r_.string(*solver_node, "solver")) {
        s_.solver = find_solver(*name);
        if (s_.solver == nullptr) {
          std::vector<std::string> names;
          for (const Solver* solver : all_solvers()) names.emplace_back(solver->name());
          r_.unknown(*solver_node, "solver", names);
        }
      }
    }

    if (!catalog_dir.empty()) catalog_ = load_catalog(catalog_dir, diags);
    if (const YamlNode* block = root->find("catalog")) {
      if (r_.expect_mapping(*block, "catalog")) {
        r_.check_keys(*block, kCatalogKeys, "catalog");
        if (const YamlNode* hw = block->find("hardware")) {
          read_hardware_entries(r_, *hw, "catalog.hardware", catalog_, &broken_ids_);
        }
        if (const YamlNode* models = block->find("models")) {
          read_model_entries(r_, *models, "catalog.models", catalog_, &broken_ids_);
        }
        for (const BundleKind& kind : kBundleKinds) {
          if (const YamlNode* list = block->find(kind.list_key)) {
            read_bundle_entries(r_, *list, "catalog." + std::string(kind.list_key), kind, catalog_, &broken_ids_);
          }
        }
      }
    }

    const YamlNode* axes = r_.require(*root, "axes", "");
    if (s_.solver != nullptr) {
      for (const ParamSpec& p : s_.solver->params()) param_names_.emplace_back(p.name);
      for (const MetricSpec& m : s_.solver->metrics()) metric_names_.emplace_back(m.name);
      if (s_.solver->params().size() > kMaxParams) {
        throw std::logic_error("solver '" + std::string(s_.solver->name()) + "' declares more than kMaxParams");
      }
      if (axes != nullptr) read_axes(*axes);
      read_fixed(root->find("fixed"));
      apply_bundles(root->find("fixed"));
      fill_defaults(*solver_node);
      if (axes != nullptr) check_point_count(*axes);
      for (std::string& name : read_study_analyses(r_, *root, s_, [this](const YamlNode& n, const std::string& path) {
             return read_selectors(n, path);
           })) {
        metric_names_.push_back(std::move(name));
      }
      if (const YamlNode* n = root->find("objectives")) {
        objectives_written_ = n->is_sequence() && !n->items.empty();
        read_objectives(*n);
      }
      if (const YamlNode* n = root->find("compare")) read_comparisons(*n);
      if (const YamlNode* n = root->find("figures")) read_figures(*n);
    }
    if (const YamlNode* n = root->find("sections")) read_sections(*n);
    if (const YamlNode* n = root->find("template")) read_template(*n);
    if (diags.errors().size() != errors_before || s_.solver == nullptr) return std::nullopt;
    keep_used_catalog_entries();
    if (!check_study_analyses(r_, *root, s_)) return std::nullopt;
    return std::move(s_);
  }

 private:
  const ParamSpec& spec(std::size_t p) const { return s_.solver->params()[p]; }

  int param_index(std::string_view name) const {
    for (std::size_t i = 0; i < param_names_.size(); ++i) {
      if (param_names_[i] == name) return static_cast<int>(i);
    }
    return -1;
  }
  // A metric by index into metric_names_: the solver's, then the study's derived metrics.
  MetricSpec metric_spec(std::size_t index) const {
    const auto metrics = s_.solver->metrics();
    return index < metrics.size() ? metrics[index] : derived_metric_spec(s_, index - metrics.size());
  }
  int metric_index(std::string_view name) const {
    for (std::size_t i = 0; i < metric_names_.size(); ++i) {
      if (metric_names_[i] == name) return static_cast<int>(i);
    }
    return -1;
  }
  const Axis* axis_of(std::size_t p) const {
    for (const Axis& a : s_.axes) {
      if (a.param_index == p) return &a;
    }
    return nullptr;
  }
  std::string solver_what() const { return std::string(s_.solver->name()) + " parameter"; }

  // A misspelt parameter under axes: or fixed:. The parameter it was probably meant to be is not
  // reported again as missing.
  void unknown_param(const YamlNode& key) {
    r_.unknown(key, solver_what(), param_names_);
    const std::string near = closest_match(key.text, param_names_);
    if (!near.empty()) misspelt_.insert(near);
  }

  // One value of a parameter, as an axis element, a fixed value or a selector. Catalog ids are
  // stored as indices into catalog_ until keep_used_catalog_entries() renumbers them.
  std::optional<AxisValue> read_value(const ParamSpec& p, const YamlNode& node, const std::string& path) const {
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
      case ParamKind::hardware: return lookup(catalog_.hardware_ids(), "hardware id");
      case ParamKind::model: return lookup(catalog_.model_ids(), "model id");
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
        const auto q = r_.quantity(node, p.dimension, p.name, bounds_of(p));
        if (!q) return std::nullopt;
        return AxisValue{node.text, q->value};
      }
    }
    return std::nullopt;
  }

  std::string expected_phrase(const ParamSpec& p) const {
    switch (p.kind) {
      case ParamKind::hardware: return "a hardware id";
      case ParamKind::model: return "a model id";
      case ParamKind::precision: return "a precision";
      case ParamKind::choice: return "one of " + join(std::vector<std::string>(p.choices.begin(), p.choices.end()));
      case ParamKind::number: return dimension_phrase(p.dimension);
    }
    return "a value";
  }

  // The label for a parameter's default value.
  static std::string default_label(const ParamSpec& p) {
    switch (p.kind) {
      case ParamKind::choice: return std::string(p.choices[static_cast<std::size_t>(p.default_value)]);
      case ParamKind::precision: return std::string(precision_name(kAllPrecisions[static_cast<std::size_t>(p.default_value)]));
      case ParamKind::number: return exact_quantity_label(p.default_value, p.dimension);
      case ParamKind::hardware:
      case ParamKind::model: break;
    }
    throw std::logic_error("parameter '" + std::string(p.name) + "' has a default but names a catalog entry");
  }

  void read_axes(const YamlNode& axes) {
    if (!r_.expect_mapping(axes, "axes")) return;
    if (axes.entries.empty()) {
      r_.error(axes, "axes: give at least one axis (a parameter and the values it takes)");
      return;
    }
    for (const YamlEntry& e : axes.entries) {
      const int p = param_index(e.key.text);
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
        std::vector<const YamlNode*> nodes;
        for (std::size_t i = 0; i < e.value.items.size(); ++i) {
          const YamlNode& item = e.value.items[i];
          auto v = read_value(ps, item, index_path(path, i));
          if (!v) {
            ok = false;
            continue;
          }
          bool duplicate = false;
          for (std::size_t j = 0; j < axis.values.size(); ++j) {
            const bool same = ps.kind == ParamKind::number ? same_number(axis.values[j].value, v->value)
                                                           : axis.values[j].value == v->value;
            if (same) {
              r_.error(item, path + ": duplicate value '" + item.text + "' (already given at " + at_text(*nodes[j]) +
                                 ")");
              duplicate = true;
              break;
            }
          }
          if (duplicate) {
            ok = false;
            continue;
          }
          axis.values.push_back(*v);
          nodes.push_back(&item);
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

  // Whether `count` more values keep all axes within kMaxTotalAxisValues; reported at `node` if not.
  bool fits_total(const YamlNode& node, const std::string& path, std::string_view gives, std::uint64_t count) {
    if (count <= kMaxTotalAxisValues - std::min(axis_values_, kMaxTotalAxisValues)) return true;
    r_.error(node, path + ": " + std::string(gives) + " " + std::to_string(count) + " values and the axes before it hold " +
                       std::to_string(axis_values_) + "; all axes together hold at most " +
                       std::to_string(kMaxTotalAxisValues) +
                       " values (a grid of many points needs only a few values per axis)");
    return false;
  }

  std::string example_values(const ParamSpec& p) const {
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

  // A generated range: {from, to, scale: linear|log, count | step | factor}.
  bool read_range(const ParamSpec& ps, const YamlNode& range, const std::string& path, Axis& axis) {
    r_.check_keys(range, kRangeKeys, path);
    const std::size_t errors_before = r_.diags().errors().size();
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
    if (r_.diags().errors().size() != errors_before || !from || !to) return false;
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

  void read_fixed(const YamlNode* fixed) {
    if (fixed == nullptr) return;
    if (fixed->is_null()) return;  // `fixed:` with nothing under it
    if (!r_.expect_mapping(*fixed, "fixed")) return;
    for (const YamlEntry& e : fixed->entries) {
      const int p = param_index(e.key.text);
      if (p < 0) {
        if (const BundleKind* kind = find_bundle_kind(e.key.text)) {
          read_fixed_bundle(*kind, e);
        } else {
          unknown_param(e.key);
        }
        continue;
      }
      const auto pi = static_cast<std::size_t>(p);
      const std::string path = "fixed." + e.key.text;
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

  // ---- bundles (dse/catalog.hpp, dse/bundles.hpp) ----

  // The catalog entry `node` names, or nullptr after reporting why not.
  const CatalogBundle* lookup_bundle(const BundleKind& kind, const YamlNode& node, const std::string& path) const {
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

  // The settings of `b` for this study's solver; nullopt after an error at `node`.
  std::optional<std::vector<BundleSetting>> settings_of(const CatalogBundle& b, const YamlNode& node,
                                                        const std::string& path) const {
    std::string problem;
    auto settings = bundle_settings(b, *s_.solver, catalog_, problem);
    if (!settings) r_.error(node, path + ": " + problem);
    return settings;
  }

  static std::string names_of(const std::vector<BundleSetting>& settings, std::span<const ParamSpec> params) {
    std::string out;
    for (const BundleSetting& x : settings) out += (out.empty() ? "" : ", ") + std::string(params[x.param].name);
    return out.empty() ? "nothing" : out;
  }

  // axes: region: [us_average, quebec]. Every value must set the same parameters of the solver.
  // After an error in a bundle, the parameters its kind sets are not also reported as missing.
  void quiet_bundle_params(const BundleKind& kind) {
    for (const CatalogBundle& b : catalog_.bundles) {
      if (b.kind != kind.name) continue;
      for (const auto& [name, label] : b.values) bundle_quiet_.insert(name);
    }
  }

  void read_bundle_axis(const BundleKind& kind, const YamlEntry& e) {
    const std::size_t errors_before = r_.diags().errors().size();
    read_bundle_axis_values(kind, e);
    if (r_.diags().errors().size() != errors_before) quiet_bundle_params(kind);
  }

  void read_bundle_axis_values(const BundleKind& kind, const YamlEntry& e) {
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
    bool ok = true;
    for (std::size_t i = 0; i < e.value.items.size(); ++i) {
      const YamlNode& item = e.value.items[i];
      const std::string item_path = index_path(path, i);
      const CatalogBundle* b = lookup_bundle(kind, item, item_path);
      if (b == nullptr) {
        ok = false;
        continue;
      }
      const auto earlier = std::find_if(nodes.begin(), nodes.end(), [&](const YamlNode* n) { return n->text == item.text; });
      if (earlier != nodes.end()) {
        r_.error(item, path + ": duplicate value '" + item.text + "' (already given at " + at_text(**earlier) + ")");
        ok = false;
        continue;
      }
      auto settings = settings_of(*b, item, item_path);
      if (!settings) {
        ok = false;
        continue;
      }
      axis.values.push_back(AxisValue{item.text, static_cast<double>(axis.values.size())});
      rows.push_back(std::move(*settings));
      nodes.push_back(&item);
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

  // fixed: region: quebec.
  void read_fixed_bundle(const BundleKind& kind, const YamlEntry& e) {
    const std::size_t errors_before = r_.diags().errors().size();
    read_fixed_bundle_value(kind, e);
    if (r_.diags().errors().size() != errors_before) quiet_bundle_params(kind);
  }

  void read_fixed_bundle_value(const BundleKind& kind, const YamlEntry& e) {
    const std::string path = "fixed." + e.key.text;
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

  // A parameter is set by at most one of: an axis, fixed:, a bundle. The parameters of a fixed
  // bundle become fixed values; those of a bundle axis are set per point (Grid::inputs).
  void apply_bundles(const YamlNode* fixed) {
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

  // The bundle use of kind `name` in this study, or nullptr.
  const BundleUse* bundle_use(std::string_view name) const {
    for (const BundleUse& u : s_.bundles) {
      if (u.kind == name) return &u;
    }
    return nullptr;
  }
  // A parameter swept under axes:, or a bundle kind with an axis (figures plot its ids).
  bool is_swept_name(std::string_view name) const {
    const int p = param_index(name);
    if (p >= 0) return s_.is_axis[static_cast<std::size_t>(p)];
    const BundleUse* use = bundle_use(name);
    return use != nullptr && use->axis >= 0;
  }
  bool set_by_bundle_axis(std::size_t p) const {
    const BundleUse* u = s_.bundle_setting(p);
    return u != nullptr && u->axis >= 0;
  }

  void fill_defaults(const YamlNode& solver_node) {
    const auto params = s_.solver->params();
    for (std::size_t p = 0; p < params.size(); ++p) {
      if (s_.is_axis[p] || fixed_[p] || failed_param(p)) continue;
      if (params[p].has_default) {
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

  // A parameter written under axes: or fixed: whose value had an error (already reported).
  bool failed_param(std::size_t p) const {
    return std::any_of(axis_nodes_.begin(), axis_nodes_.end(),
                       [&](const YamlNode* k) { return k->text == param_names_[p]; }) ||
           fixed_written(p) || bundle_quiet_.count(param_names_[p]) > 0;
  }
  bool fixed_written(std::size_t p) const { return fixed_keys_.count(param_names_[p]) > 0; }

  void check_point_count(const YamlNode& axes) {
    std::uint64_t total = 1;
    for (const Axis& a : s_.axes) {
      if (__builtin_mul_overflow(total, static_cast<std::uint64_t>(a.values.size()), &total)) {
        r_.error(axes, "axes: the grid has more than 2^64 design points; sweep fewer values");
        return;
      }
    }
  }

  void read_objectives(const YamlNode& list) {
    if (list.is_null()) return;
    if (!r_.expect_sequence(list, "objectives")) return;
    for (std::size_t i = 0; i < list.items.size(); ++i) {
      const YamlNode& item = list.items[i];
      const std::string path = index_path("objectives", i);
      if (!r_.expect_mapping(item, path)) continue;
      r_.check_keys(item, kObjectiveKeys, path);
      Objective o;
      bool ok = true;
      if (const YamlNode* m = r_.require(item, "metric", path)) {
        ok = read_metric(*m, path + ".metric", o.metric, o.metric_index) && ok;
        for (const Objective& earlier : s_.objectives) {
          if (ok && earlier.metric == o.metric) {
            r_.error(*m, path + ": metric '" + o.metric + "' is already an objective");
            ok = false;
          }
        }
      } else {
        ok = false;
      }
      if (const YamlNode* d = r_.require(item, "direction", path)) {
        if (d->is_scalar() && d->text == "min") {
          o.direction = Direction::minimize;
        } else if (d->is_scalar() && d->text == "max") {
          o.direction = Direction::maximize;
        } else {
          if (r_.expect_scalar(*d, path + ".direction")) {
            const std::vector<std::string> directions = {"min", "max"};
            r_.unknown(*d, "direction", directions);
          }
          ok = false;
        }
      } else {
        ok = false;
      }
      if (ok) s_.objectives.push_back(std::move(o));
    }
  }

  bool read_metric(const YamlNode& node, const std::string& path, std::string& name, std::size_t& index) const {
    if (!r_.expect_scalar(node, path)) return false;
    const int m = metric_index(node.text);
    if (m < 0) {
      r_.unknown(node, "metric", metric_names_);
      return false;
    }
    name = node.text;
    index = static_cast<std::size_t>(m);
    return true;
  }

  // Selectors "param: value" that keep rows: the param must be swept or fixed and the value one it
  // takes. Labels are normalised to the axis (or fixed) label.
  std::optional<std::vector<Selector>> read_selectors(const YamlNode& where, const std::string& path) const {
    if (!r_.expect_mapping(where, path)) return std::nullopt;
    std::vector<Selector> out;
    bool ok = true;
    for (const YamlEntry& e : where.entries) {
      const std::string item = path + "." + e.key.text;
      if (const BundleUse* use = bundle_use(e.key.text)) {
        // A bundle axis is selected by id; a fixed bundle selects every row and adds no selector.
        if (!e.value.is_scalar()) {
          r_.error(e.value, item + ": a selector takes one value, got " + e.value.describe());
          ok = false;
        } else if (use->axis >= 0) {
          std::vector<std::string> labels;
          for (const AxisValue& v : s_.axes[static_cast<std::size_t>(use->axis)].values) labels.push_back(v.label);
          if (std::find(labels.begin(), labels.end(), e.value.text) == labels.end()) {
            const std::string near = closest_match(e.value.text, labels);
            r_.error(e.value, item + ": '" + e.value.text + "' is not a value of the " + e.key.text + " axis" +
                                  (near.empty() ? "" : "; did you mean '" + near + "'?") + " (axis values: " +
                                  join(labels) + ")");
            ok = false;
          } else {
            out.push_back(Selector{e.key.text, e.value.text});
          }
        } else if (e.value.text != use->id) {
          r_.error(e.value, item + ": '" + e.value.text + "' selects nothing: " + e.key.text + " is fixed to '" +
                                use->id + "' in this study");
          ok = false;
        }
        continue;
      }
      const int p = param_index(e.key.text);
      if (p < 0) {
        r_.unknown(e.key, solver_what(), param_names_);
        ok = false;
        continue;
      }
      const auto pi = static_cast<std::size_t>(p);
      if (set_by_bundle_axis(pi)) {
        const BundleUse& use = *s_.bundle_setting(pi);
        r_.error(e.key, item + ": " + e.key.text + " is set by the " + use.kind + " axis; select a " + use.kind +
                            " instead, e.g. " + use.kind + ": " +
                            s_.axes[static_cast<std::size_t>(use.axis)].values.front().label);
        ok = false;
        continue;
      }
      const ParamSpec& ps = spec(pi);
      if (!s_.is_axis[pi] && !fixed_[pi]) {
        ok = false;  // its own error was reported under axes: or fixed:
        continue;
      }
      if (!e.value.is_scalar()) {
        r_.error(e.value, item + ": a selector takes one value, got " + e.value.describe());
        ok = false;
        continue;
      }
      const Axis* axis = axis_of(pi);
      if (s_.is_axis[pi] && axis == nullptr) {
        ok = false;  // the axis itself had an error
        continue;
      }
      if (axis != nullptr) {
        std::vector<std::string> labels;
        for (const AxisValue& v : axis->values) labels.push_back(v.label);
        const auto value = read_value(ps, e.value, item);
        if (!value) {
          ok = false;
          continue;
        }
        const AxisValue* match = nullptr;
        for (const AxisValue& v : axis->values) {
          const bool same = ps.kind == ParamKind::number ? same_number(v.value, value->value) : v.value == value->value;
          if (same) match = &v;
        }
        if (match == nullptr) {
          // Numbers are matched by value, so a spelling suggestion ("15 us" -> "5 us") would mislead.
          const std::string near = ps.kind == ParamKind::number ? "" : closest_match(e.value.text, labels);
          r_.error(e.value, item + ": '" + e.value.text + "' is not a value of the " + e.key.text + " axis" +
                                (near.empty() ? "" : "; did you mean '" + near + "'?") + " (axis values: " +
                                join(labels) + ")");
          ok = false;
          continue;
        }
        out.push_back(Selector{e.key.text, match->label});
      } else {
        const auto value = read_value(ps, e.value, item);
        if (!value) {
          ok = false;
          continue;
        }
        const bool same = ps.kind == ParamKind::number ? same_number(s_.fixed_values[pi], value->value)
                                                       : s_.fixed_values[pi] == value->value;
        if (!same) {
          r_.error(e.value, item + ": '" + e.value.text + "' selects nothing: " + e.key.text +
                                " is fixed to '" + s_.fixed_labels[pi] + "' in this study");
          ok = false;
          continue;
        }
        out.push_back(Selector{e.key.text, s_.fixed_labels[pi]});
      }
    }
    if (!ok) return std::nullopt;
    return out;
  }

  void read_comparisons(const YamlNode& list) {
    if (list.is_null()) return;
    if (!r_.expect_sequence(list, "compare")) return;
    std::vector<const YamlNode*> names;
    for (std::size_t i = 0; i < list.items.size(); ++i) {
      const YamlNode& item = list.items[i];
      const std::string path = index_path("compare", i);
      if (!r_.expect_mapping(item, path)) continue;
      r_.check_keys(item, kCompareKeys, path);
      const std::size_t errors_before = r_.diags().errors().size();
      Comparison c;
      if (const YamlNode* n = r_.require(item, "name", path)) {
        if (auto name = r_.string(*n, path + ".name")) {
          c.name = *name;
          for (const YamlNode* earlier : names) {
            if (earlier->text == c.name) {
              r_.error(*n, path + ": another comparison is already named '" + c.name + "' (" + at_text(*earlier) +
                               ")");
            }
          }
          names.push_back(n);
        }
      }
      if (const YamlNode* n = r_.require(item, "where", path)) {
        if (auto where = read_selectors(*n, path + ".where")) {
          c.where = std::move(*where);
          std::vector<std::string> missing;
          for (const Axis& a : s_.axes) {
            const bool selected = std::any_of(c.where.begin(), c.where.end(),
                                              [&](const Selector& sel) { return sel.param == a.param; });
            if (!selected && a.values.size() > 1) missing.push_back(a.param);
          }
          if (!missing.empty()) {
            r_.error(*n, path + ".where: a comparison selects one design point; also give a value for: " +
                             join(missing));
          }
        }
      }
      std::size_t metric = 0;
      const YamlNode* metric_node = r_.require(item, "metric", path);
      const bool metric_ok = metric_node != nullptr && read_metric(*metric_node, path + ".metric", c.metric, metric);
      if (const YamlNode* n = r_.require(item, "expected", path)) {
        if (metric_ok) {
          const Dimension d = metric_spec(metric).dimension;
          if (auto q = r_.quantity(*n, d, path + ".expected")) c.expected = q->value;
        }
      }
      c.tolerance = kDefaultTolerance;
      if (const YamlNode* n = item.find("tolerance")) {
        const QuantityBounds b{.bounded = true, .min_value = 0, .max_value = HUGE_VAL};
        if (auto q = r_.quantity(*n, Dimension::dimensionless, path + ".tolerance", b)) c.tolerance = q->value;
      }
      if (const YamlNode* n = r_.require(item, "source", path)) {
        if (auto s = r_.string(*n, path + ".source")) c.source = *s;
      }
      if (const YamlNode* n = item.find("explanation")) {
        if (auto s = r_.string(*n, path + ".explanation", true)) c.explanation = *s;
      }
      if (r_.diags().errors().size() == errors_before) s_.comparisons.push_back(std::move(c));
    }
  }

  // A study's own template folder: a relative path below the study file's folder, so a study can
  // never make dsx read templates from elsewhere.
  void read_template(const YamlNode& node) {
    auto folder = r_.string(node, "template");
    if (!folder) return;
    if (std::any_of(folder->begin(), folder->end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; })) {
      r_.error(node, "template: the folder name holds a control character (a NUL, a line break, an escape, ...); "
                     "write a plain relative path");
      return;
    }
    const std::filesystem::path path(*folder);
    bool escapes = path.empty() || path.is_absolute();
    for (const auto& part : path) escapes = escapes || part == "..";
    if (escapes) {
      r_.error(node, "template: '" + *folder + "' must be a folder below the study file's folder (a relative path "
                     "without '..')");
      return;
    }
    s_.template_folder = *folder;
  }

  void read_sections(const YamlNode& list) {
    if (list.is_null()) return;
    if (!r_.expect_sequence(list, "sections")) return;
    for (std::size_t i = 0; i < list.items.size(); ++i) {
      const YamlNode& item = list.items[i];
      const std::string path = index_path("sections", i);
      if (!r_.expect_mapping(item, path)) continue;
      r_.check_keys(item, kSectionKeys, path);
      Section section;
      const YamlNode* title = r_.require(item, "title", path);
      const YamlNode* text = r_.require(item, "text", path);
      if (title == nullptr || text == nullptr) continue;
      auto t = r_.string(*title, path + ".title");
      auto x = r_.string(*text, path + ".text");
      if (!t || !x) continue;
      section.title = *t;
      section.text = *x;
      s_.sections.push_back(std::move(section));
    }
  }

  // Metrics of the solver that a roofline can place: intensities on x (FLOP per byte, named
  // *_flop_per_byte) and FLOP/s on y.
  std::vector<std::string> metrics_where(bool (*keep)(const MetricSpec&)) const {
    std::vector<std::string> out;
    for (const MetricSpec& m : s_.solver->metrics()) {
      if (keep(m)) out.emplace_back(m.name);
    }
    return out;
  }
  static bool is_intensity(const MetricSpec& m) {
    return m.dimension == Dimension::dimensionless && m.name.ends_with("_flop_per_byte");
  }
  static bool is_flop_rate(const MetricSpec& m) { return m.dimension == Dimension::flop_rate; }
  static std::string list_or_none(const std::vector<std::string>& items) {
    return items.empty() ? std::string("none") : join(items);
  }
  // The first parameter of `kind` the solver has, or -1.
  int param_of_kind(ParamKind kind) const {
    for (std::size_t i = 0; i < s_.solver->params().size(); ++i) {
      if (s_.solver->params()[i].kind == kind) return static_cast<int>(i);
    }
    return -1;
  }
  // The labels a parameter takes among the rows `where` keeps: the selected label, the axis values
  // or the fixed value.
  std::vector<std::string> labels_in_rows(std::size_t p, const std::vector<Selector>& where) const {
    const std::string& name = param_names_[p];
    for (const Selector& sel : where) {
      if (sel.param == name) return {sel.label};
    }
    if (const Axis* a = axis_of(p)) {
      std::vector<std::string> out;
      for (const AxisValue& v : a->values) out.push_back(v.label);
      return out;
    }
    if (!s_.is_axis[p] && !s_.fixed_labels[p].empty()) return {s_.fixed_labels[p]};
    return {};
  }

  void read_figures(const YamlNode& list) {
    if (list.is_null()) return;
    if (!r_.expect_sequence(list, "figures")) return;
    std::vector<const YamlNode*> names;
    std::vector<std::string> swept;
    for (const Axis& a : s_.axes) swept.push_back(a.param);
    static const std::vector<std::string> kinds = {"scatter", "bars", "line", "roofline", "heatmap"};
    for (std::size_t i = 0; i < list.items.size(); ++i) {
      const YamlNode& item = list.items[i];
      const std::string path = index_path("figures", i);
      if (!r_.expect_mapping(item, path)) continue;
      r_.check_keys(item, kFigureKeys, path);
      const std::size_t errors_before = r_.diags().errors().size();
      FigureDecl f;
      if (const YamlNode* n = r_.require(item, "name", path)) {
        if (auto name = r_.string(*n, path + ".name")) {
          if (!valid_name(*name)) {
            r_.error(*n, path + ".name: '" + shown_name(*name) + "' is not a valid figure name: use a-z, 0-9, '_' and '-' (it "
                                "names the files figures/<name>.*)");
          }
          for (const YamlNode* earlier : names) {
            if (earlier->text == *name) {
              r_.error(*n, path + ": another figure is already named '" + *name + "' (" + at_text(*earlier) + ")");
            }
          }
          names.push_back(n);
          f.name = *name;
        }
      }
      bool kind_ok = false;
      if (const YamlNode* n = r_.require(item, "kind", path)) {
        if (r_.expect_scalar(*n, path + ".kind")) {
          const auto it = std::find(kinds.begin(), kinds.end(), n->text);
          if (it == kinds.end()) {
            r_.unknown(*n, "figure kind", kinds);
          } else {
            f.kind = static_cast<FigureKind>(it - kinds.begin());
            kind_ok = true;
          }
        }
      }
      const bool roofline = kind_ok && f.kind == FigureKind::roofline;
      const bool heatmap = kind_ok && f.kind == FigureKind::heatmap;
      if (const YamlNode* n = r_.require(item, "title", path)) {
        if (auto s = r_.string(*n, path + ".title")) f.title = *s;
      }
      if (const YamlNode* n = r_.require(item, "caption", path)) {
        if (auto s = r_.string(*n, path + ".caption")) f.caption = *s;
      }
      // A swept parameter on a heatmap's x or y (its columns or rows).
      const auto heatmap_axis = [&](const YamlNode& node, const std::string& key) -> bool {
        const int p = param_index(node.text);
        if (is_swept_name(node.text)) return true;
        if (p >= 0) {
          r_.error(node, path + "." + key + ": '" + node.text + "' is not swept in this study (swept parameters: " +
                             join(swept) + ")");
        } else if (metric_index(node.text) >= 0) {
          r_.error(node, path + "." + key + ": a heatmap puts swept parameters on x and y (its columns and rows) "
                             "and the metric on z, got the metric '" + node.text + "'; swept parameters: " +
                             join(swept));
        } else {
          r_.unknown(node, "swept parameter", swept);
        }
        return false;
      };
      const YamlNode* x_node = r_.require(item, "x", path);
      if (x_node != nullptr && kind_ok && r_.expect_scalar(*x_node, path + ".x")) {
        const int m = metric_index(x_node->text);
        const bool is_metric = m >= 0;
        const int p = param_index(x_node->text);
        const bool is_swept = is_swept_name(x_node->text);
        if (roofline) {
          const std::vector<std::string> intensities = metrics_where(is_intensity);
          if (is_metric && is_intensity(metric_spec(static_cast<std::size_t>(m)))) {
            f.x = x_node->text;
          } else if (is_metric || p >= 0) {
            r_.error(*x_node, path + ".x: a roofline puts an arithmetic intensity on x (a metric in FLOP/byte, "
                                     "named *_flop_per_byte), got '" + x_node->text + "'; intensity metrics of "
                                     "solver '" + std::string(s_.solver->name()) + "': " + list_or_none(intensities));
          } else {
            r_.unknown(*x_node, "intensity metric", intensities);
          }
        } else if (heatmap) {
          if (heatmap_axis(*x_node, "x")) f.x = x_node->text;
        } else if (f.kind == FigureKind::bars ? is_swept : (is_metric || is_swept)) {
          f.x = x_node->text;
        } else if (p >= 0) {
          r_.error(*x_node, path + ".x: '" + x_node->text + "' is not swept in this study (swept parameters: " +
                                join(swept) + ")");
        } else if (f.kind == FigureKind::bars && is_metric) {
          r_.error(*x_node, path + ".x: a bars figure puts a swept parameter on x (its categories), got the metric '" +
                                x_node->text + "'; swept parameters: " + join(swept));
        } else if (f.kind == FigureKind::bars) {
          r_.unknown(*x_node, "swept parameter", swept);
        } else {
          std::vector<std::string> choices = metric_names_;
          choices.insert(choices.end(), swept.begin(), swept.end());
          r_.unknown(*x_node, "metric or swept parameter", choices);
        }
      }
      if (const YamlNode* n = r_.require(item, "y", path)) {
        if (heatmap) {
          if (!n->is_scalar()) {
            r_.error(*n, path + ".y: a heatmap takes one swept parameter on y (its rows), got " + n->describe());
          } else if (heatmap_axis(*n, "y")) {
            if (n->text == f.x) {
              r_.error(*n, path + ".y: '" + n->text + "' is already on x; a heatmap needs two different swept "
                                  "parameters");
            }
            f.y.push_back(n->text);
          }
        } else {
          std::vector<const YamlNode*> ys;
          if (n->is_sequence()) {
            for (const YamlNode& y : n->items) ys.push_back(&y);
            if (ys.empty()) r_.error(*n, path + ".y: give at least one metric");
          } else {
            ys.push_back(n);
          }
          std::vector<std::size_t> indices;
          for (const YamlNode* y : ys) {
            std::string name;
            std::size_t index = 0;
            if (!read_metric(*y, path + ".y", name, index)) continue;
            const MetricSpec spec = metric_spec(index);
            if (roofline && !is_flop_rate(spec)) {
              r_.error(*y, path + ".y: a roofline puts achieved or attainable FLOP/s on y (a metric in FLOP/s), got '" +
                               name + "' (" + std::string(dimension_name(spec.dimension)) + "); FLOP/s metrics of "
                               "solver '" + std::string(s_.solver->name()) + "': " +
                               list_or_none(metrics_where(is_flop_rate)));
              continue;
            }
            if (!indices.empty()) {
              const MetricSpec first = metric_spec(indices.front());
              if (first.dimension != spec.dimension) {
                r_.error(*y, path + ".y: '" + name + "' (" + std::string(dimension_name(spec.dimension)) + ") and '" +
                                 std::string(first.name) + "' (" + std::string(dimension_name(first.dimension)) +
                                 ") share one axis, so they need the same unit");
                continue;
              }
            }
            indices.push_back(index);
            f.y.push_back(name);
          }
          if (roofline && ys.size() > 1) {
            r_.error(*n, path + ".y: a roofline takes one FLOP/s metric on y, got " + std::to_string(ys.size()));
          }
        }
      }
      const YamlNode* group_node = item.find("group");
      if (group_node != nullptr && heatmap) {
        r_.error(*group_node, path + ".group: a heatmap has no series (each cell is one design point); remove group");
      } else if (group_node != nullptr && r_.expect_scalar(*group_node, path + ".group")) {
        const YamlNode* n = group_node;
        const int p = param_index(n->text);
        if (is_swept_name(n->text)) {
          if (n->text == f.x) {
            r_.error(*n, path + ".group: '" + n->text + "' is already on x; group by another swept parameter");
          }
          f.group = n->text;
        } else if (p >= 0) {
          r_.error(*n, path + ".group: '" + n->text + "' is not swept in this study (swept parameters: " +
                           join(swept) + ")");
        } else {
          r_.unknown(*n, "swept parameter", swept);
        }
      }
      bool where_ok = true;
      if (const YamlNode* n = item.find("where")) {
        if (auto where = read_selectors(*n, path + ".where")) {
          f.where = std::move(*where);
        } else {
          where_ok = false;
        }
      }
      const auto flag = [&](std::string_view key, bool& out) -> const YamlNode* {
        const YamlNode* n = item.find(key);
        if (n != nullptr) {
          if (auto b = r_.boolean(*n, path + "." + std::string(key))) out = *b;
        }
        return n;
      };
      const YamlNode* log_x = flag("log_x", f.log_x);
      const YamlNode* log_y = flag("log_y", f.log_y);
      const YamlNode* pareto = flag("pareto", f.pareto);
      const YamlNode* crossover = flag("crossover", f.crossover);
      const YamlNode* log_z = flag("log_z", f.log_z);
      if (roofline) {
        for (const YamlNode* n : {log_x, log_y}) {
          if (n != nullptr && n->text == "false") {
            r_.error(*n, path + ": a roofline is always log-log; remove log_x and log_y");
          }
        }
        f.log_x = f.log_y = true;
      } else if (heatmap) {
        for (const YamlNode* n : {log_x, log_y}) {
          if (n != nullptr && n->text == "true") {
            r_.error(*n, path + ": a heatmap places its cells evenly, so log_x and log_y do not apply; for a "
                                "logarithmic colour scale use log_z");
          }
        }
      } else {
        if (f.log_x && kind_ok) {
          const int p = param_index(f.x);
          if (f.kind == FigureKind::bars || (p >= 0 && is_categorical(spec(static_cast<std::size_t>(p))))) {
            r_.error(*log_x, path + ".log_x: x of this figure is categorical; only a numeric x can be logarithmic");
          }
        }
        if (f.log_y && kind_ok && f.kind == FigureKind::bars) {
          r_.error(*log_y, path + ".log_y: stacked bars need a linear value axis (segments add up to the bar's "
                                  "length); remove log_y");
        }
      }
      if (f.pareto && kind_ok) {
        if (f.kind != FigureKind::scatter) {
          r_.error(*pareto, path + ".pareto: only a scatter figure draws a Pareto front");
        } else if (!objectives_written_) {
          r_.error(*pareto, path + ".pareto: the front is taken over the study's objectives; add objectives:");
        }
      }
      // Axes that vary among the rows the figure keeps, other than the listed parameters.
      const auto unpinned_axes = [&](std::initializer_list<std::string_view> except) {
        std::vector<std::string> out;
        for (const Axis& a : s_.axes) {
          if (a.values.size() < 2 || std::find(except.begin(), except.end(), a.param) != except.end()) continue;
          const bool pinned = std::any_of(f.where.begin(), f.where.end(), [&](const Selector& s) { return s.param == a.param; });
          if (!pinned) out.push_back(a.param);
        }
        return out;
      };
      if (f.crossover && kind_ok) {
        const int xp = param_index(f.x);
        if (f.kind != FigureKind::line) {
          r_.error(*crossover, path + ".crossover: only a line figure marks where its lines cross");
        } else if (xp >= 0 && is_categorical(spec(static_cast<std::size_t>(xp)))) {
          r_.error(*crossover, path + ".crossover: x '" + f.x + "' is categorical; lines cross along a numeric x "
                                      "(a metric or a numeric swept parameter)");
        } else if (where_ok && !f.x.empty() && f.y.size() < 2 && f.group.empty() && unpinned_axes({f.x}).empty()) {
          r_.error(*crossover, path + ".crossover: this figure draws a single line, so nothing can cross; give a "
                                      "group or two y metrics");
        }
      }
      if (f.log_z && kind_ok && !heatmap) r_.error(*log_z, path + ".log_z: only a heatmap has a colour scale");
      const YamlNode* z_node = item.find("z");
      if (z_node != nullptr && kind_ok && !heatmap) {
        r_.error(*z_node, path + ".z: only a heatmap has z (the metric shown in each cell)");
      } else if (heatmap) {
        if (z_node == nullptr) {
          const std::string example = !s_.objectives.empty() ? s_.objectives.front().metric
                                      : metric_names_.empty()   ? std::string("<metric>")
                                                                : metric_names_.front();
          r_.error(item, path + ": a heatmap needs z, the metric shown in each cell (e.g. z: " + example + ")");
        } else {
          std::size_t index = 0;
          read_metric(*z_node, path + ".z", f.z, index);
        }
        if (where_ok && !f.x.empty() && f.y.size() == 1) {
          const std::vector<std::string> loose = unpinned_axes({f.x, f.y.front()});
          if (!loose.empty()) {
            std::vector<std::string> example;
            for (const std::string& p : loose) example.push_back(p + ": " + axis_of(static_cast<std::size_t>(param_index(p)))->values.front().label);
            r_.error(item.find("where") != nullptr ? *item.find("where") : item,
                     path + ": each heatmap cell is one design point, but " + join(loose) +
                         (loose.size() == 1 ? " also varies" : " also vary") + "; hold " +
                         (loose.size() == 1 ? "it" : "them") + " with where, e.g. where: {" + join(example) + "}");
          }
        }
      }
      // Roofline roofs: hardware ids and precisions, explicit or those the kept rows use.
      const YamlNode* roofs_node = item.find("roofs");
      const YamlNode* precisions_node = item.find("precisions");
      const YamlNode* eta_node = item.find("eta");
      for (const auto& [node, key] : {std::pair{roofs_node, "roofs"}, {precisions_node, "precisions"}, {eta_node, "eta"}}) {
        if (node != nullptr && kind_ok && !roofline) {
          r_.error(*node, path + "." + key + ": only a roofline figure has " + key);
        }
      }
      if (roofline) {
        const auto read_list = [&](const YamlNode* node, const std::string& key, auto&& check) {
          std::vector<std::string> out;
          if (node == nullptr) return out;
          std::vector<const YamlNode*> items;
          if (node->is_sequence()) {
            for (const YamlNode& x : node->items) items.push_back(&x);
            if (items.empty()) r_.error(*node, path + "." + key + ": give at least one value, or leave " + key + " out");
          } else {
            items.push_back(node);
          }
          for (const YamlNode* x : items) {
            if (!r_.expect_scalar(*x, path + "." + key)) continue;
            if (!check(*x)) continue;
            if (std::find(out.begin(), out.end(), x->text) != out.end()) {
              r_.error(*x, path + "." + key + ": '" + x->text + "' is listed twice");
              continue;
            }
            out.push_back(x->text);
          }
          return out;
        };
        const std::vector<std::string> hardware_ids = catalog_.hardware_ids();
        f.roofs = read_list(roofs_node, "roofs", [&](const YamlNode& x) {
          if (catalog_.find_hardware(x.text) != nullptr) return true;
          if (std::find(broken_ids_.begin(), broken_ids_.end(), x.text) == broken_ids_.end()) {
            r_.unknown(x, "hardware id", hardware_ids);
          }
          return false;
        });
        std::vector<std::string> precision_names;
        for (Precision pr : kAllPrecisions) precision_names.emplace_back(precision_name(pr));
        f.precisions = read_list(precisions_node, "precisions", [&](const YamlNode& x) {
          if (parse_precision(x.text)) return true;
          r_.unknown(x, "precision", precision_names);
          return false;
        });
        if (eta_node != nullptr) {
          QuantityBounds b;
          b.bounded = true;
          b.min_value = 0;
          b.max_value = 1;
          b.min_exclusive = true;
          if (const auto q = r_.quantity(*eta_node, Dimension::dimensionless, "eta", b)) f.eta = q->value;
        }
        const YamlNode& kind_node = *item.find("kind");
        if (roofs_node == nullptr && where_ok) {
          const int hp = param_of_kind(ParamKind::hardware);
          if (hp < 0) {
            r_.error(kind_node, path + ": solver '" + std::string(s_.solver->name()) + "' has no hardware parameter, "
                                "so list the roofs to draw, e.g. roofs: [" +
                                (hardware_ids.empty() ? std::string("<hardware id>") : hardware_ids.front()) + "]");
          } else {
            f.roofs = labels_in_rows(static_cast<std::size_t>(hp), f.where);
          }
        }
        if (precisions_node == nullptr && where_ok) {
          const int pp = param_of_kind(ParamKind::precision);
          if (pp < 0) {
            r_.error(kind_node, path + ": solver '" + std::string(s_.solver->name()) + "' has no precision parameter, "
                                "so list the roofs' precisions, e.g. precisions: [fp16]");
          } else {
            f.precisions = labels_in_rows(static_cast<std::size_t>(pp), f.where);
          }
        }
        // A roof the user asked for must exist: every listed hardware has a peak at one of the precisions.
        if (roofs_node != nullptr || precisions_node != nullptr) {
          for (const std::string& id : f.roofs) {
            const HardwareSpec* h = catalog_.find_hardware(id);
            if (h == nullptr) continue;
            const bool any = std::any_of(f.precisions.begin(), f.precisions.end(), [&](const std::string& p) {
              const auto pr = parse_precision(p);
              return pr && h->supports(*pr);
            });
            if (!any && !f.precisions.empty()) {
              r_.error(roofs_node != nullptr ? *roofs_node : *precisions_node,
                       path + ": '" + id + "' has no peak at " + join(f.precisions) + ", so it has no roof to draw");
            }
          }
        }
      }
      if (const YamlNode* n = item.find("width")) {
        static const std::vector<std::string> widths = {"double", "single"};
        if (r_.expect_scalar(*n, path + ".width")) {
          const auto it = std::find(widths.begin(), widths.end(), n->text);
          if (it == widths.end()) {
            r_.unknown(*n, "figure width", widths);
          } else {
            f.width = static_cast<FigureWidth>(it - widths.begin());
          }
        }
      }
      if (r_.diags().errors().size() == errors_before) s_.figures.push_back(std::move(f));
    }
  }

  // The resolved study keeps only the catalog entries it uses, in catalog order, so that its
  // resolved YAML (which writes exactly those) loads back to the same indices.
  void keep_used_catalog_entries() {
    const auto params = s_.solver->params();
    std::vector<std::string> hardware;
    std::vector<std::string> models;
    const auto use = [&](std::size_t p, const std::string& label) {
      if (params[p].kind == ParamKind::hardware) hardware.push_back(label);
      if (params[p].kind == ParamKind::model) models.push_back(label);
    };
    for (const Axis& a : s_.axes) {
      if (a.is_bundle()) {
        for (std::size_t k = 0; k < a.set_labels.size(); ++k) use(a.sets[k % a.sets.size()], a.set_labels[k]);
        continue;
      }
      for (const AxisValue& v : a.values) use(a.param_index, v.label);
    }
    for (std::size_t p = 0; p < params.size(); ++p) {
      if (!s_.is_axis[p] && !set_by_bundle_axis(p)) use(p, s_.fixed_labels[p]);
    }
    for (const FigureDecl& f : s_.figures) hardware.insert(hardware.end(), f.roofs.begin(), f.roofs.end());
    const auto used = [](const std::vector<std::string>& ids, const std::string& id) {
      return std::find(ids.begin(), ids.end(), id) != ids.end();
    };
    for (const HardwareSpec& h : catalog_.hardware) {
      if (used(hardware, h.id)) s_.catalog.hardware.push_back(h);
    }
    for (const CatalogModel& m : catalog_.models) {
      if (used(models, m.id)) s_.catalog.models.push_back(m);
    }
    const auto renumber = [&](std::size_t p, const std::string& label, double& value) {
      if (params[p].kind == ParamKind::hardware) {
        value = static_cast<double>(s_.catalog.find_hardware(label) - s_.catalog.hardware.data());
      } else if (params[p].kind == ParamKind::model) {
        value = static_cast<double>(s_.catalog.find_model(label) - s_.catalog.models.data());
      }
    };
    for (Axis& a : s_.axes) {
      if (a.is_bundle()) {
        for (std::size_t k = 0; k < a.set_labels.size(); ++k) renumber(a.sets[k % a.sets.size()], a.set_labels[k], a.set_values[k]);
        continue;
      }
      for (AxisValue& v : a.values) renumber(a.param_index, v.label, v.value);
    }
    for (std::size_t p = 0; p < params.size(); ++p) {
      if (!s_.is_axis[p] && !set_by_bundle_axis(p)) renumber(p, s_.fixed_labels[p], s_.fixed_values[p]);
    }
    for (const CatalogBundle& b : catalog_.bundles) {
      const bool used_here = std::any_of(s_.bundles.begin(), s_.bundles.end(), [&](const BundleUse& u) {
        if (u.kind != b.kind) return false;
        if (u.axis < 0) return u.id == b.id;
        const auto& values = s_.axes[static_cast<std::size_t>(u.axis)].values;
        return std::any_of(values.begin(), values.end(), [&](const AxisValue& v) { return v.label == b.id; });
      });
      if (used_here) s_.catalog.bundles.push_back(b);
    }
  }

  YamlReader r_;
  ResolvedStudy s_;
  Catalog catalog_;
  std::vector<std::string> param_names_;
  std::vector<std::string> metric_names_;
  std::vector<const YamlNode*> axis_nodes_;  // keys under axes: that name a parameter
  std::uint64_t axis_values_ = 0;            // values of the axes read so far
  std::array<bool, kMaxParams> fixed_{};     // fixed or defaulted
  std::set<std::string> fixed_keys_;
  std::set<std::string> misspelt_;          // parameters a misspelt key probably meant
  std::vector<std::string> broken_ids_;     // catalog block entries that had errors
  std::vector<const YamlNode*> bundle_keys_;            // the key of each of s_.bundles
  std::set<std::string> bundle_quiet_;  // parameters a bundle with errors may set: not reported missing
  std::vector<std::vector<BundleSetting>> bundle_rows_;  // a fixed bundle's settings (empty for an axis)
  bool objectives_written_ = false;
};

// ---- resolved YAML ----------------------------------------------------------------------------

std::string flow_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i > 0 ? ", " : "") + yaml_scalar(items[i]);
  return out + "]";
}

std::string flow_selectors(const std::vector<Selector>& where) {
  std::string out = "{";
  for (std::size_t i = 0; i < where.size(); ++i) {
    out += (i > 0 ? ", " : "") + where[i].param + ": " + yaml_scalar(where[i].label);
  }
  return out + "}";
}

void write_hardware(std::string& out, const HardwareSpec& h) {
  out += "    - id: " + yaml_scalar(h.id) + "\n";
  out += "      name: " + yaml_scalar(h.name) + "\n";
  out += "      source: " + yaml_scalar(h.source) + "\n";
  out += "      peak_flops: {";
  bool first = true;
  for (Precision p : kAllPrecisions) {
    if (!h.supports(p)) continue;
    std::string label = exact_quantity_label(h.peak(p), Dimension::flop_rate);
    // Integer precisions are rated in operations per second (624 TOP/s): same dimension, same value.
    const std::size_t flop = label.find("FLOP/s");
    if ((p == Precision::int8 || p == Precision::int4) && flop != std::string::npos) label.replace(flop, 4, "OP");
    out += (first ? "" : ", ") + std::string(precision_name(p)) + ": " + yaml_scalar(label);
    first = false;
  }
  out += "}\n";
  const auto field = [&](std::string_view key, double v, Dimension d) {
    out += "      " + std::string(key) + ": " + yaml_scalar(exact_quantity_label(v, d)) + "\n";
  };
  field("memory", h.memory_bytes, Dimension::bytes);
  field("memory_bandwidth", h.memory_bandwidth_bytes_per_s, Dimension::bandwidth);
  field("host_link", h.host_link_bandwidth_bytes_per_s, Dimension::bandwidth);
  field("accelerator_link", h.accelerator_link_bandwidth_bytes_per_s, Dimension::bandwidth);
  field("tdp", h.tdp_w, Dimension::power);
  field("idle_power_fraction", h.idle_power_fraction, Dimension::dimensionless);
  field("price", h.price_usd, Dimension::money);
  // Optional kernel limits: written when known, so a round trip keeps them and 0 stays "unknown".
  const auto optional = [&](std::string_view key, double v, Dimension d) {
    if (v > 0) field(key, v, d);
  };
  optional("shared_memory_per_block", h.shared_memory_per_block_bytes, Dimension::bytes);
  optional("shared_memory_per_sm", h.shared_memory_per_sm_bytes, Dimension::bytes);
  optional("registers_per_thread", h.registers_per_thread, Dimension::count);
  optional("registers_per_sm", h.registers_per_sm, Dimension::count);
  optional("max_threads_per_block", h.max_threads_per_block, Dimension::count);
}

void write_model(std::string& out, const CatalogModel& m) {
  out += "    - id: " + yaml_scalar(m.id) + "\n";
  out += "      name: " + yaml_scalar(m.name) + "\n";
  out += "      source: " + yaml_scalar(m.source) + "\n";
  out += "      architecture: " + yaml_scalar(m.architecture) + "\n";
  out += "      params: {";
  for (std::size_t i = 0; i < m.params.size(); ++i) {
    out += (i > 0 ? ", " : "") + m.params[i].first + ": " + yaml_scalar(m.params[i].second);
  }
  out += "}\n";
}

}  // namespace

std::string ResolvedStudy::template_dir() const {
  if (template_folder.empty()) return "";
  return (std::filesystem::path(file).parent_path() / template_folder).string();
}

std::uint64_t ResolvedStudy::point_count() const {
  std::uint64_t total = 1;
  for (const Axis& a : axes) {
    if (__builtin_mul_overflow(total, static_cast<std::uint64_t>(a.values.size()), &total)) {
      throw std::overflow_error("study '" + name + "' has more than 2^64 design points");
    }
  }
  return total;
}

std::optional<ResolvedStudy> load_study_text(const std::string& file, const std::string& text,
                                             const std::string& catalog_dir, Diagnostics& diags) {
  StudyLoader loader(file, diags);
  return loader.load(text, catalog_dir);
}

std::optional<ResolvedStudy> load_study(const std::string& file, const std::string& catalog_dir,
                                        Diagnostics& diags) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    diags.error(SourceLocation{file}, std::string("cannot read the study: ") + std::strerror(errno));
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return load_study_text(file, text.str(), catalog_dir, diags);
}

std::string resolved_study_yaml(const ResolvedStudy& study) {
  const auto params = study.solver->params();
  std::string out;
  out += "# " + study.file + ", resolved: every default is explicit and every catalog entry the study uses is\n";
  out += "# written out in full, so this file loads on its own.\n";
  out += "study: " + yaml_scalar(study.name) + "\n";
  out += "title: " + yaml_scalar(study.title) + "\n";
  out += "question: " + yaml_scalar(study.question) + "\n";
  out += "solver: " + yaml_scalar(study.solver->name()) + "\n";
  out += "axes:\n";
  for (const Axis& a : study.axes) {
    std::vector<std::string> labels;
    for (const AxisValue& v : a.values) labels.push_back(v.label);
    out += "  " + a.param + ": " + flow_list(labels) + "\n";
  }
  // A parameter a bundle sets is written as the bundle (region: quebec), not as its own value.
  const auto written_fixed = [&](std::size_t p) { return !study.is_axis[p] && study.bundle_setting(p) == nullptr; };
  bool any_fixed = false;
  for (std::size_t p = 0; p < params.size(); ++p) any_fixed = any_fixed || written_fixed(p);
  for (const BundleUse& u : study.bundles) any_fixed = any_fixed || u.axis < 0;
  if (any_fixed) {
    out += "fixed:\n";
    for (std::size_t p = 0; p < params.size(); ++p) {
      if (written_fixed(p)) out += "  " + std::string(params[p].name) + ": " + yaml_scalar(study.fixed_labels[p]) + "\n";
    }
    for (const BundleUse& u : study.bundles) {
      if (u.axis < 0) out += "  " + u.kind + ": " + yaml_scalar(u.id) + "\n";
    }
  }
  if (!study.objectives.empty()) {
    out += "objectives:\n";
    for (const Objective& o : study.objectives) {
      out += "  - {metric: " + o.metric + ", direction: " + (o.direction == Direction::minimize ? "min" : "max") +
             "}\n";
    }
  }
  if (!study.comparisons.empty()) {
    out += "compare:\n";
    const auto metrics = study.solver->metrics();
    for (const Comparison& c : study.comparisons) {
      Dimension d = Dimension::dimensionless;
      for (const MetricSpec& m : metrics) {
        if (m.name == c.metric) d = m.dimension;
      }
      out += "  - name: " + yaml_scalar(c.name) + "\n";
      out += "    where: " + flow_selectors(c.where) + "\n";
      out += "    metric: " + c.metric + "\n";
      out += "    expected: " + yaml_scalar(exact_quantity_label(c.expected, d)) + "\n";
      out += "    tolerance: " + number_text(c.tolerance) + "\n";
      out += "    source: " + yaml_scalar(c.source) + "\n";
      out += "    explanation: " + (c.explanation.empty() ? std::string("\"\"") : yaml_scalar(c.explanation)) + "\n";
    }
  }
  if (!study.template_folder.empty()) out += "template: " + yaml_scalar(study.template_folder) + "\n";
  if (!study.sections.empty()) {
    out += "sections:\n";
    for (const Section& sec : study.sections) {
      out += "  - title: " + yaml_scalar(sec.title) + "\n";
      out += "    text: " + yaml_scalar(sec.text) + "\n";
    }
  }
  if (!study.figures.empty()) {
    out += "figures:\n";
    static constexpr std::array<std::string_view, 5> kKinds = {"scatter", "bars", "line", "roofline", "heatmap"};
    const auto flag = [&](std::string_view key, bool v) { out += "    " + std::string(key) + (v ? ": true\n" : ": false\n"); };
    for (const FigureDecl& f : study.figures) {
      out += "  - name: " + yaml_scalar(f.name) + "\n";
      out += "    kind: " + std::string(kKinds[static_cast<std::size_t>(f.kind)]) + "\n";
      out += "    title: " + yaml_scalar(f.title) + "\n";
      out += "    caption: " + yaml_scalar(f.caption) + "\n";
      out += "    x: " + f.x + "\n";
      out += "    y: " + (f.kind == FigureKind::heatmap && f.y.size() == 1 ? f.y.front() : flow_list(f.y)) + "\n";
      if (f.kind == FigureKind::heatmap) out += "    z: " + f.z + "\n";
      if (!f.group.empty()) out += "    group: " + f.group + "\n";
      if (!f.where.empty()) out += "    where: " + flow_selectors(f.where) + "\n";
      flag("log_x", f.log_x);
      flag("log_y", f.log_y);
      flag("pareto", f.pareto);
      if (f.kind == FigureKind::line) flag("crossover", f.crossover);
      if (f.kind == FigureKind::heatmap) flag("log_z", f.log_z);
      if (f.kind == FigureKind::roofline) {
        out += "    roofs: " + flow_list(f.roofs) + "\n";
        out += "    precisions: " + flow_list(f.precisions) + "\n";
        out += "    eta: " + number_text(f.eta) + "\n";
      }
      out += std::string("    width: ") + (f.width == FigureWidth::single_column ? "single" : "double") + "\n";
    }
  }
  write_study_analyses_yaml(study, out);
  if (!study.catalog.hardware.empty() || !study.catalog.models.empty() || !study.catalog.bundles.empty()) {
    out += "catalog:\n";
    if (!study.catalog.hardware.empty()) {
      out += "  hardware:\n";
      for (const HardwareSpec& h : study.catalog.hardware) write_hardware(out, h);
    }
    if (!study.catalog.models.empty()) {
      out += "  models:\n";
      for (const CatalogModel& m : study.catalog.models) write_model(out, m);
    }
    write_bundle_entries(out, study.catalog.bundles);
  }
  return out;
}

}  // namespace dsx
