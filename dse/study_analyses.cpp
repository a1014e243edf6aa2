#include "dse/study_analyses.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <utility>

#include "dse/analysis/blocks.hpp"
#include "dse/analysis/derived.hpp"
#include "dse/analysis/expression.hpp"
#include "dse/analysis/points.hpp"
#include "dse/catalog.hpp"
#include "dse/grid.hpp"
#include "dse/layouts.hpp"
#include "dse/quantity.hpp"

namespace dsx {

namespace {

constexpr std::array<std::string_view, 4> kDerivedKeys = {"name", "expr", "unit", "description"};
constexpr std::array<std::string_view, 2> kRuleKeys = {"name", "expr"};
constexpr std::array<std::string_view, 4> kAssertionKeys = {"name", "expr", "where", "require"};
constexpr std::array<std::string_view, 2> kParetoKeys = {"group", "epsilon"};
constexpr std::array<std::string_view, 5> kKeepKeys = {"all", "front", "top_k", "sample", "seed"};
constexpr std::array<std::string_view, 11> kBreakevenKeys = {"name",  "description", "metric", "metrics", "direction",
                                                             "along", "alternatives", "among", "where", "refine",
                                                             "tolerance"};
constexpr std::array<std::string_view, 3> kToleranceKeys = {"relative", "absolute", "max_evaluations"};
constexpr std::array<std::string_view, 13> kSensitivityKeys = {"name",  "description", "metric", "direction", "base",
                                                               "base_point", "inputs", "local", "morris",
                                                               "sobol", "decide", "among", "flip"};
constexpr std::array<std::string_view, 2> kInputKeys = {"name", "range"};
constexpr std::array<std::string_view, 3> kLocalKeys = {"enabled", "change", "step"};
constexpr std::array<std::string_view, 3> kMorrisKeys = {"trajectories", "levels", "seed"};
constexpr std::array<std::string_view, 4> kSobolKeys = {"samples", "bootstrap", "confidence", "seed"};
constexpr std::array<std::string_view, 3> kFlipKeys = {"max_change", "steps", "tolerance"};
constexpr std::array<std::string_view, 8> kFieldNames = {"peak_flops", "memory", "memory_bandwidth", "host_link",
                                                         "accelerator_link", "tdp", "idle_power_fraction", "price"};

// Names of the files and figures an analysis writes: letters, digits, '_' and '-'.
bool valid_name(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

// A metric name: snake_case starting with a letter (it becomes a column and an expression name).
bool valid_metric_name(std::string_view s) {
  return !s.empty() && s.front() >= 'a' && s.front() <= 'z' && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::string index_path(std::string_view path, std::size_t i) { return std::string(path) + "[" + std::to_string(i) + "]"; }

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i > 0 ? ", " : "") + items[i];
  return out;
}

std::string at_text(const YamlNode& n) { return "line " + std::to_string(n.line) + ", column " + std::to_string(n.column); }

QuantityBounds at_least(double min, bool integer = false) {
  return QuantityBounds{.bounded = true, .min_value = min, .max_value = HUGE_VAL, .integer = integer};
}
QuantityBounds open_unit_interval() {
  return QuantityBounds{.bounded = true, .min_value = 0, .max_value = 1, .min_exclusive = true};
}

class BlockReader {
 public:
  BlockReader(const YamlReader& r, ResolvedStudy& study, StudyAnalyses& a, const SelectorReader& selectors)
      : r_(r), s_(study), a_(a), read_selectors_(selectors), solver_(*study.solver) {
    base_names_ = expression_names(solver_);
    for (const Axis& axis : s_.axes) swept_.push_back(axis.param);
  }

  void read(const YamlNode& root) {
    if (const YamlNode* n = root.find("grid_constraints")) {
      read_rules(*n, "grid_constraints", a_.grid_constraints, point_input_names());
    }
    if (const YamlNode* n = root.find("keep")) read_keep(*n);
    if (const YamlNode* n = root.find("derived")) read_derived(*n);
    if (const YamlNode* n = root.find("filters")) read_rules(*n, "filters", a_.filters, all_names());
    if (const YamlNode* n = root.find("constraints")) read_rules(*n, "constraints", a_.constraints, all_names());
    if (const YamlNode* n = root.find("assertions")) read_assertions(*n);
    if (const YamlNode* n = root.find("top_k")) {
      if (auto q = r_.quantity(*n, Dimension::count, "top_k", at_least(1, true))) {
        a_.top_k = static_cast<std::size_t>(q->value);
      }
    }
    if (const YamlNode* n = root.find("pareto")) read_pareto(*n);
    if (const YamlNode* n = root.find("breakeven")) read_breakevens(*n);
    if (const YamlNode* n = root.find("sensitivity")) read_sensitivities(*n);
  }

 private:
  std::vector<std::string> all_names() const {
    std::vector<std::string> names = base_names_;
    for (const DerivedMetric& d : a_.derived) names.push_back(d.name);
    return names;
  }

  std::vector<std::string> metric_names() const {
    std::vector<std::string> names;
    for (const MetricSpec& m : solver_.metrics()) names.emplace_back(m.name);
    for (const DerivedMetric& d : a_.derived) names.push_back(d.name);
    return names;
  }

  // An expression: it parses, and every name it uses is one of `names`.
  std::optional<std::string> expression(const YamlNode& node, const std::string& path,
                                        const std::vector<std::string>& names) const {
    auto text = r_.string(node, path);
    if (!text) return std::nullopt;
    const ExpressionScan scan = scan_expression(*text);
    if (scan.syntax) {
      r_.error(node, path + ": " + scan.syntax->message, scan.syntax->offset, scan.syntax->length);
      return std::nullopt;
    }
    bool ok = true;
    for (std::size_t i = 0; i < scan.names.size(); ++i) {
      const std::string& name = scan.names[i];
      if (std::find(names.begin(), names.end(), name) != names.end()) continue;
      std::string message = path + ": unknown name '" + name + "' in the expression";
      const auto later = std::find_if(a_.derived.begin(), a_.derived.end(), [&](const DerivedMetric& d) { return d.name == name; });
      if (later != a_.derived.end()) {
        message += "; a derived metric can use only those declared before it";
      } else {
        const std::string near = closest_match(name, names);
        message += near.empty() ? "; " : "; did you mean '" + near + "'? ";
        message += "valid names: " + join(names);
      }
      r_.error(node, message, scan.offsets[i], name.size());
      ok = false;
    }
    if (!ok) return std::nullopt;
    return text;
  }

  std::optional<std::string> unique_name(const YamlNode& item, const std::string& path, std::vector<const YamlNode*>& seen,
                                         std::string_view what, bool file_name) const {
    const YamlNode* n = r_.require(item, "name", path);
    if (n == nullptr) return std::nullopt;
    auto name = r_.string(*n, path + ".name");
    if (!name) return std::nullopt;
    if (file_name && !valid_name(*name)) {
      r_.error(*n, path + ".name: '" + *name + "' is not a valid name: use a-z, 0-9, '_' and '-' (it names the " +
                       "files of this analysis)");
      return std::nullopt;
    }
    for (const YamlNode* earlier : seen) {
      if (earlier->text == *name) {
        r_.error(*n, path + ": another " + std::string(what) + " is already named '" + *name + "' (" + at_text(*earlier) + ")");
        return std::nullopt;
      }
    }
    seen.push_back(n);
    return name;
  }

  std::optional<Direction> direction(const YamlNode& item, const std::string& path) const {
    const YamlNode* d = item.find("direction");
    if (d == nullptr) return Direction::minimize;
    if (d->is_scalar() && (d->text == "min" || d->text == "max")) {
      return d->text == "min" ? Direction::minimize : Direction::maximize;
    }
    if (r_.expect_scalar(*d, path + ".direction")) {
      const std::vector<std::string> directions = {"min", "max"};
      r_.unknown(*d, "direction", directions);
    }
    return std::nullopt;
  }

  // A metric of the study (solver or derived) by name, with the closest match when unknown.
  std::optional<std::string> metric(const YamlNode& node, const std::string& path) const {
    if (!r_.expect_scalar(node, path)) return std::nullopt;
    const std::vector<std::string> names = metric_names();
    if (std::find(names.begin(), names.end(), node.text) == names.end()) {
      r_.unknown(node, "metric", names);
      return std::nullopt;
    }
    return node.text;
  }

  // A parameter of the solver that is meant to be swept; its being swept is checked with the grid.
  std::optional<std::string> swept_param(const YamlNode& node, const std::string& path) const {
    if (!r_.expect_scalar(node, path)) return std::nullopt;
    if (param_of(solver_, node.text) < 0 && find_bundle_kind(node.text) == nullptr && node.text != kLayoutAxis) {
      r_.unknown(node, "swept parameter", swept_);
      return std::nullopt;
    }
    return node.text;
  }

  std::optional<std::vector<std::string>> labels(const YamlNode& node, const std::string& path) const {
    if (!r_.expect_sequence(node, path)) return std::nullopt;
    std::vector<std::string> out;
    bool ok = true;
    for (std::size_t i = 0; i < node.items.size(); ++i) {
      if (auto s = r_.string(node.items[i], index_path(path, i))) {
        out.push_back(*s);
      } else {
        ok = false;
      }
    }
    if (!ok) return std::nullopt;
    return out;
  }

  // ---- derived:, filters:, constraints:, assertions: ----

  void read_derived(const YamlNode& list) {
    if (list.is_null() || !r_.expect_sequence(list, "derived")) return;
    for (std::size_t i = 0; i < list.items.size(); ++i) {
      const YamlNode& item = list.items[i];
      const std::string path = index_path("derived", i);
      if (!r_.expect_mapping(item, path)) continue;
      r_.check_keys(item, kDerivedKeys, path);
      const std::size_t before = r_.diags().error_count();
      DerivedMetric d;
      if (const YamlNode* n = r_.require(item, "name", path)) {
        if (auto name = r_.string(*n, path + ".name")) {
          d.name = *name;
          if (!valid_metric_name(d.name)) {
            r_.error(*n, path + ".name: '" + d.name + "' is not a valid metric name: use snake_case (a-z, 0-9, '_', " +
                             "starting with a letter) with the unit as suffix, e.g. cost_per_inference_usd");
          } else if (std::find(base_names_.begin(), base_names_.end(), d.name) != base_names_.end()) {
            const bool is_metric = metric_of(solver_, d.name) >= 0;
            r_.error(*n, path + ".name: '" + d.name + "' is already " +
                             (is_metric ? "a metric" : param_of(solver_, d.name) >= 0 ? "a parameter" : "a name") +
                             " of solver " + std::string(solver_.name()) + "; choose another name");
          } else if (a_.find_derived(d.name) != nullptr) {
            r_.error(*n, path + ": another derived metric is already named '" + d.name + "'");
          }
        }
      }
      if (const YamlNode* n = r_.require(item, "expr", path)) {
        if (auto e = expression(*n, path + ".expr", all_names())) d.expr = *e;
      }
      if (const YamlNode* n = item.find("unit")) {
        if (auto u = r_.string(*n, path + ".unit")) {
          const Unit* unit = find_unit(*u);
          if (unit == nullptr) {
            std::vector<std::string> symbols;
            for (const Unit& x : all_units()) {
              if (x.canonical) symbols.emplace_back(x.symbol);
            }
            r_.unknown(*n, "unit", symbols);
          } else {
            d.unit = *u;
            d.dimension = unit->dimension;
            d.unit_scale = unit->scale;
          }
        }
      }
      if (const YamlNode* n = item.find("description")) {
        if (auto s = r_.string(*n, path + ".description", true)) d.description = *s;
      }
      if (r_.diags().error_count() == before) a_.derived.push_back(std::move(d));
    }
  }

  // The names an expression may use before the solver ran: inputs, not metrics.
  std::vector<std::string> point_input_names() const {
    std::vector<std::string> names;
    for (const std::string& n : base_names_) {
      if (metric_of(solver_, n) < 0) names.push_back(n);
    }
    return names;
  }

  void read_keep(const YamlNode& node) {
    KeepOptions& k = a_.keep;
    if (node.is_scalar() && node.text == "all") return;
    if (!node.is_mapping()) {
      r_.error(node, "keep: 'all', or a mapping of what to keep: {front: true, top_k: 10, sample: 1000}");
      return;
    }
    r_.check_keys(node, kKeepKeys, "keep");
    if (const YamlNode* n = node.find("all")) {
      if (auto v = r_.boolean(*n, "keep.all")) k.all = *v;
    } else {
      k.all = false;
    }
    if (const YamlNode* n = node.find("front")) {
      if (auto v = r_.boolean(*n, "keep.front")) k.front = *v;
    }
    if (const YamlNode* n = node.find("top_k")) {
      if (auto q = r_.quantity(*n, Dimension::count, "keep.top_k", at_least(1, true))) {
        k.top_k = static_cast<std::size_t>(q->value);
      }
    }
    if (const YamlNode* n = node.find("sample")) {
      if (auto q = r_.quantity(*n, Dimension::count, "keep.sample", at_least(1, true))) {
        k.sample = static_cast<std::size_t>(q->value);
      }
    }
    if (const YamlNode* n = node.find("seed")) {
      if (auto q = r_.quantity(*n, Dimension::count, "keep.seed", at_least(0, true))) {
        k.seed = static_cast<std::uint64_t>(q->value);
      }
    }
    if (k.all && (k.front || k.top_k > 0 || k.sample > 0)) {
      r_.error(node, "keep: 'all: true' keeps every row; leave it out to keep only the front, top_k and sample");
    } else if (!k.all && !k.front && k.top_k == 0 && k.sample == 0) {
      r_.error(node, "keep: choose what to keep: front: true, top_k: N, sample: N (or keep: all)");
    }
  }

  void read_rules(const YamlNode& list, const std::string& key, std::vector<RowRule>& out,
                  const std::vector<std::string>& names) {
    if (list.is_null() || !r_.expect_sequence(list, key)) return;
    std::vector<const YamlNode*> seen;
    const std::string what = key == "filters" ? "filter" : key == "constraints" ? "constraint" : "grid constraint";
    for (std::size_t i = 0; i < list.items.size(); ++i) {
      const YamlNode& item = list.items[i];
      const std::string path = index_path(key, i);
      if (!r_.expect_mapping(item, path)) continue;
      r_.check_keys(item, kRuleKeys, path);
      const std::size_t before = r_.diags().error_count();
      RowRule rule;
      if (auto name = unique_name(item, path, seen, what, false)) rule.name = *name;
      if (const YamlNode* n = r_.require(item, "expr", path)) {
        if (auto e = expression(*n, path + ".expr", names)) rule.expr = *e;
      }
      if (r_.diags().error_count() == before) out.push_back(std::move(rule));
    }
  }

  void read_assertions(const YamlNode& list) {
    if (list.is_null() || !r_.expect_sequence(list, "assertions")) return;
    std::vector<const YamlNode*> seen;
    for (std::size_t i = 0; i < list.items.size(); ++i) {
      const YamlNode& item = list.items[i];
      const std::string path = index_path("assertions", i);
      if (!r_.expect_mapping(item, path)) continue;
      r_.check_keys(item, kAssertionKeys, path);
      const std::size_t before = r_.diags().error_count();
      Assertion x;
      if (auto name = unique_name(item, path, seen, "assertion", false)) x.name = *name;
      if (const YamlNode* n = r_.require(item, "expr", path)) {
        if (auto e = expression(*n, path + ".expr", all_names())) x.expr = *e;
      }
      if (const YamlNode* n = item.find("where")) {
        if (auto w = read_selectors_(*n, path + ".where")) x.where = std::move(*w);
      }
      if (const YamlNode* n = item.find("require")) {
        if (n->is_scalar() && (n->text == "all" || n->text == "any")) {
          x.require = n->text == "all" ? Quantifier::all : Quantifier::any;
        } else if (r_.expect_scalar(*n, path + ".require")) {
          const std::vector<std::string> choices = {"all", "any"};
          r_.unknown(*n, "quantifier", choices);
        }
      }
      if (r_.diags().error_count() == before) a_.assertions.push_back(std::move(x));
    }
  }

  // ---- pareto: ----

  void read_pareto(const YamlNode& node) {
    if (node.is_null() || !r_.expect_mapping(node, "pareto")) return;
    r_.check_keys(node, kParetoKeys, "pareto");
    if (const YamlNode* g = node.find("group")) {
      std::vector<const YamlNode*> items;
      if (g->is_sequence()) {
        for (const YamlNode& x : g->items) items.push_back(&x);
        if (items.empty()) r_.error(*g, "pareto.group: give at least one swept parameter, or leave group out");
      } else {
        items.push_back(g);
      }
      for (const YamlNode* x : items) {
        if (!r_.expect_scalar(*x, "pareto.group")) continue;
        if (std::find(swept_.begin(), swept_.end(), x->text) == swept_.end()) {
          if (param_of(solver_, x->text) >= 0) {
            r_.error(*x, "pareto.group: '" + x->text + "' is not swept in this study (swept parameters: " + join(swept_) + ")");
          } else {
            r_.unknown(*x, "swept parameter", swept_);
          }
          continue;
        }
        if (std::find(a_.pareto.group.begin(), a_.pareto.group.end(), x->text) != a_.pareto.group.end()) {
          r_.error(*x, "pareto.group: '" + x->text + "' is listed twice");
          continue;
        }
        a_.pareto.group.push_back(x->text);
      }
    }
    if (const YamlNode* e = node.find("epsilon")) {
      std::vector<const YamlNode*> items;
      if (e->is_sequence()) {
        for (const YamlNode& x : e->items) items.push_back(&x);
        if (items.empty()) r_.error(*e, "pareto.epsilon: give a value per objective, or leave epsilon out");
      } else {
        items.push_back(e);
      }
      QuantityBounds b{.bounded = true, .min_value = 0, .max_value = 10, .min_exclusive = true};
      for (const YamlNode* x : items) {
        if (auto q = r_.quantity(*x, Dimension::dimensionless, "pareto.epsilon", b)) a_.pareto.epsilon.push_back(q->value);
      }
    }
  }

  // ---- breakeven: ----

  void read_breakevens(const YamlNode& list) {
    if (list.is_null() || !r_.expect_sequence(list, "breakeven")) return;
    std::vector<const YamlNode*> seen;
    for (std::size_t i = 0; i < list.items.size(); ++i) {
      const YamlNode& item = list.items[i];
      const std::string path = index_path("breakeven", i);
      if (!r_.expect_mapping(item, path)) continue;
      r_.check_keys(item, kBreakevenKeys, path);
      const std::size_t before = r_.diags().error_count();
      BreakevenRequest b;
      if (auto name = unique_name(item, path, seen, "break-even", true)) b.name = *name;
      if (const YamlNode* n = item.find("description")) {
        if (auto s = r_.string(*n, path + ".description", true)) b.description = *s;
      }
      const YamlNode* metric_node = item.find("metric");
      const YamlNode* metrics_node = item.find("metrics");
      if (metric_node != nullptr && metrics_node != nullptr) {
        r_.error(*metrics_node, path + ": give either metric (with alternatives) or metrics, not both");
      } else if (metric_node == nullptr && metrics_node == nullptr) {
        r_.error(item, path + ": give metric (compared across the values of alternatives) or metrics (two or more "
                             "metrics of each design point compared with each other)");
      }
      if (metric_node != nullptr) {
        if (auto m = metric(*metric_node, path + ".metric")) b.metric = *m;
      }
      if (metrics_node != nullptr && r_.expect_sequence(*metrics_node, path + ".metrics")) {
        for (std::size_t k = 0; k < metrics_node->items.size(); ++k) {
          if (auto m = metric(metrics_node->items[k], index_path(path + ".metrics", k))) b.metrics.push_back(*m);
        }
      }
      if (auto d = direction(item, path)) b.direction = *d;
      if (const YamlNode* n = r_.require(item, "along", path)) {
        if (auto p = swept_param(*n, path + ".along")) b.along = *p;
      }
      if (const YamlNode* n = item.find("alternatives")) {
        if (auto p = swept_param(*n, path + ".alternatives")) b.alternatives = *p;
      } else if (metric_node != nullptr) {
        r_.error(item, path + ": missing required key 'alternatives' (the swept parameter whose values are compared "
                             "on " + metric_node->text + ")");
      }
      if (const YamlNode* n = item.find("among")) {
        if (auto l = labels(*n, path + ".among")) b.among = std::move(*l);
      }
      if (const YamlNode* n = item.find("where")) {
        if (auto w = read_selectors_(*n, path + ".where")) b.where = std::move(*w);
      }
      if (const YamlNode* n = item.find("refine")) {
        if (auto v = r_.boolean(*n, path + ".refine")) b.refine = *v;
      }
      if (const YamlNode* n = item.find("tolerance")) read_tolerance(*n, path + ".tolerance", b);
      if (r_.diags().error_count() == before) a_.breakevens.push_back(std::move(b));
    }
  }

  void read_tolerance(const YamlNode& node, const std::string& path, BreakevenRequest& b) {
    const QuantityBounds relative{.bounded = true, .min_value = 0, .max_value = 1};
    if (node.is_scalar()) {
      if (auto q = r_.quantity(node, Dimension::dimensionless, path, relative)) b.tolerance.relative = q->value;
      return;
    }
    if (!r_.expect_mapping(node, path)) return;
    r_.check_keys(node, kToleranceKeys, path);
    if (const YamlNode* n = node.find("relative")) {
      if (auto q = r_.quantity(*n, Dimension::dimensionless, path + ".relative", relative)) b.tolerance.relative = q->value;
    }
    if (const YamlNode* n = node.find("absolute")) {
      const int p = param_of(solver_, b.along);
      const Dimension d = p >= 0 ? solver_.params()[static_cast<std::size_t>(p)].dimension : Dimension::dimensionless;
      if (auto q = r_.quantity(*n, d, path + ".absolute", at_least(0))) b.tolerance.absolute = q->value;
    }
    if (const YamlNode* n = node.find("max_evaluations")) {
      const QuantityBounds bounds{.bounded = true, .min_value = 1, .max_value = 1e6, .integer = true};
      if (auto q = r_.quantity(*n, Dimension::count, path + ".max_evaluations", bounds)) {
        b.tolerance.max_evaluations = static_cast<int>(q->value);
      }
    }
  }

  // ---- sensitivity: ----

  std::vector<std::string> input_names() const {
    std::vector<std::string> names;
    for (const ParamSpec& p : solver_.params()) {
      if (p.kind == ParamKind::number && !p.integer) names.emplace_back(p.name);
    }
    const bool hardware = std::any_of(solver_.params().begin(), solver_.params().end(),
                                      [](const ParamSpec& p) { return p.kind == ParamKind::hardware; });
    if (hardware) names.insert(names.end(), kFieldNames.begin(), kFieldNames.end());
    return names;
  }

  std::optional<UncertainDecl> read_input(const YamlNode& item, const std::string& path) const {
    const YamlNode* name_node = &item;
    const YamlNode* range_node = nullptr;
    if (item.is_mapping()) {
      r_.check_keys(item, kInputKeys, path);
      name_node = r_.require(item, "name", path);
      range_node = item.find("range");
      if (name_node == nullptr) return std::nullopt;
    }
    auto name = r_.string(*name_node, path + (item.is_mapping() ? ".name" : ""));
    if (!name) return std::nullopt;
    UncertainDecl d;
    d.name = *name;
    const int p = param_of(solver_, d.name);
    const std::string field = d.name.substr(d.name.rfind('.') == std::string::npos ? 0 : d.name.rfind('.') + 1);
    const bool is_field = std::find(kFieldNames.begin(), kFieldNames.end(), field) != kFieldNames.end();
    if (p < 0 && !is_field) {
      const std::vector<std::string> names = input_names();
      if (d.name.find('.') != std::string::npos) {
        const std::vector<std::string> fields(kFieldNames.begin(), kFieldNames.end());
        const std::string near = closest_match(field, fields);
        r_.error(*name_node, path + ": unknown hardware field '" + field + "' in '" + d.name + "'" +
                                 (near.empty() ? "; " : "; did you mean '" + near + "'? ") +
                                 "valid hardware fields: " + join(fields));
      } else {
        r_.unknown(*name_node, "uncertain input", names);
      }
      return std::nullopt;
    }
    if (range_node != nullptr) {
      if (!range_node->is_sequence() || range_node->items.size() != 2) {
        r_.error(*range_node, path + ".range: expected [low, high], got " + range_node->describe());
        return std::nullopt;
      }
      // A parameter's range is in its unit; a hardware field's is a factor on the catalog value.
      const Dimension dim = p >= 0 ? solver_.params()[static_cast<std::size_t>(p)].dimension : Dimension::dimensionless;
      auto lo = r_.quantity(range_node->items[0], dim, path + ".range");
      auto hi = r_.quantity(range_node->items[1], dim, path + ".range");
      if (!lo || !hi) return std::nullopt;
      d.range = InputRange{lo->value, hi->value};
    }
    return d;
  }

  void read_sensitivities(const YamlNode& list) {
    if (list.is_null() || !r_.expect_sequence(list, "sensitivity")) return;
    std::vector<const YamlNode*> seen;
    for (std::size_t i = 0; i < list.items.size(); ++i) {
      const YamlNode& item = list.items[i];
      const std::string path = index_path("sensitivity", i);
      if (!r_.expect_mapping(item, path)) continue;
      r_.check_keys(item, kSensitivityKeys, path);
      const std::size_t before = r_.diags().error_count();
      SensitivityRequest s;
      if (auto name = unique_name(item, path, seen, "sensitivity analysis", true)) s.name = *name;
      if (const YamlNode* n = item.find("description")) {
        if (auto d = r_.string(*n, path + ".description", true)) s.description = *d;
      }
      if (const YamlNode* n = r_.require(item, "metric", path)) {
        if (auto m = metric(*n, path + ".metric")) s.metric = *m;
      }
      if (auto d = direction(item, path)) s.direction = *d;
      if (const YamlNode* n = item.find("base")) {
        if (auto w = read_selectors_(*n, path + ".base")) s.base = std::move(*w);
      }
      if (const YamlNode* n = item.find("base_point")) {
        const QuantityBounds b{.bounded = true, .min_value = 0, .max_value = 9e15, .integer = true};
        if (auto q = r_.quantity(*n, Dimension::count, path + ".base_point", b)) s.base_point = static_cast<std::uint64_t>(q->value);
      }
      if (const YamlNode* n = r_.require(item, "inputs", path)) {
        if (r_.expect_sequence(*n, path + ".inputs")) {
          for (std::size_t k = 0; k < n->items.size(); ++k) {
            if (auto in = read_input(n->items[k], index_path(path + ".inputs", k))) s.inputs.push_back(std::move(*in));
          }
        }
      }
      if (const YamlNode* n = item.find("local")) {
        if (n->is_mapping()) {
          r_.check_keys(*n, kLocalKeys, path + ".local");
          if (const YamlNode* c = n->find("enabled")) {
            if (auto v = r_.boolean(*c, path + ".local.enabled")) s.local = *v;
          }
          if (const YamlNode* c = n->find("change")) {
            if (auto q = r_.quantity(*c, Dimension::dimensionless, path + ".local.change", open_unit_interval())) {
              s.local_options.relative_change = q->value;
            }
          }
          if (const YamlNode* c = n->find("step")) {
            if (auto q = r_.quantity(*c, Dimension::dimensionless, path + ".local.step", open_unit_interval())) {
              s.local_options.elasticity_step = q->value;
            }
          }
        } else if (auto v = r_.boolean(*n, path + ".local")) {
          s.local = *v;
        }
      }
      if (const YamlNode* n = item.find("morris")) {
        if (n->is_mapping()) {
          r_.check_keys(*n, kMorrisKeys, path + ".morris");
          MorrisOptions m;
          count(*n, "trajectories", path + ".morris", 2, m.trajectories);
          count(*n, "levels", path + ".morris", 2, m.levels);
          seed(*n, path + ".morris", m.seed);
          s.morris = m;
        } else if (auto v = r_.boolean(*n, path + ".morris")) {
          if (*v) s.morris = MorrisOptions{};
        }
      }
      if (const YamlNode* n = item.find("sobol")) {
        if (n->is_mapping()) {
          r_.check_keys(*n, kSobolKeys, path + ".sobol");
          SobolOptions o;
          count(*n, "samples", path + ".sobol", 4, o.samples);
          count(*n, "bootstrap", path + ".sobol", 0, o.bootstrap);
          if (const YamlNode* c = n->find("confidence")) {
            const QuantityBounds b{.bounded = true, .min_value = 0, .max_value = 0.999999, .min_exclusive = true};
            if (auto q = r_.quantity(*c, Dimension::dimensionless, path + ".sobol.confidence", b)) o.confidence = q->value;
          }
          seed(*n, path + ".sobol", o.seed);
          s.sobol = o;
        } else if (auto v = r_.boolean(*n, path + ".sobol")) {
          if (*v) s.sobol = SobolOptions{};
        }
      }
      if (const YamlNode* n = item.find("decide")) {
        if (auto p = swept_param(*n, path + ".decide")) s.decide = *p;
      }
      if (const YamlNode* n = item.find("among")) {
        if (auto l = labels(*n, path + ".among")) s.among = std::move(*l);
      }
      if (const YamlNode* n = item.find("flip")) {
        if (r_.expect_mapping(*n, path + ".flip")) {
          r_.check_keys(*n, kFlipKeys, path + ".flip");
          if (const YamlNode* c = n->find("max_change")) {
            const QuantityBounds b{.bounded = true, .min_value = 0, .max_value = 100, .min_exclusive = true};
            if (auto q = r_.quantity(*c, Dimension::dimensionless, path + ".flip.max_change", b)) {
              s.flip.max_relative_change = q->value;
            }
          }
          count(*n, "steps", path + ".flip", 1, s.flip.scan_steps);
          if (const YamlNode* c = n->find("tolerance")) {
            if (auto q = r_.quantity(*c, Dimension::dimensionless, path + ".flip.tolerance", open_unit_interval())) {
              s.flip.tolerance = q->value;
            }
          }
        }
      }
      if (r_.diags().error_count() == before) a_.sensitivities.push_back(std::move(s));
    }
  }

  template <typename T>
  void count(const YamlNode& map, std::string_view key, const std::string& path, double min, T& out) const {
    if (const YamlNode* c = map.find(key)) {
      const QuantityBounds b{.bounded = true, .min_value = min, .max_value = 1e9, .integer = true};
      if (auto q = r_.quantity(*c, Dimension::count, path + "." + std::string(key), b)) out = static_cast<T>(q->value);
    }
  }

  void seed(const YamlNode& map, const std::string& path, std::uint64_t& out) const {
    if (const YamlNode* c = map.find("seed")) {
      const QuantityBounds b{.bounded = true, .min_value = 0, .max_value = 9007199254740992.0, .integer = true};
      if (auto q = r_.quantity(*c, Dimension::count, path + ".seed", b)) out = static_cast<std::uint64_t>(q->value);
    }
  }

  const YamlReader& r_;
  ResolvedStudy& s_;
  StudyAnalyses& a_;
  const SelectorReader& read_selectors_;
  const Solver& solver_;
  std::vector<std::string> base_names_;
  std::vector<std::string> swept_;
};

// The node a request field names: "among[1]", "where.batch", "inputs[2].range", "morris.levels".
// Walks as deep as the file goes and returns the last node found (the item itself at worst).
const YamlNode& node_of_field(const YamlNode& item, std::string_view field) {
  const YamlNode* at = &item;
  std::size_t pos = 0;
  while (pos < field.size()) {
    std::size_t end = field.find('.', pos);
    if (end == std::string_view::npos) end = field.size();
    std::string_view part = field.substr(pos, end - pos);
    pos = end + 1;
    std::optional<std::size_t> index;
    if (const auto b = part.find('['); b != std::string_view::npos && part.back() == ']') {
      index = static_cast<std::size_t>(std::stoul(std::string(part.substr(b + 1, part.size() - b - 2))));
      part = part.substr(0, b);
    }
    const YamlNode* next = at->is_mapping() ? at->find(part) : nullptr;
    if (next == nullptr) break;
    at = next;
    if (index) {
      if (!at->is_sequence() || *index >= at->items.size()) break;
      at = &at->items[*index];
    }
  }
  return *at;
}

// The node to point at: a mapping entry of a list (an input written {name: ..., range: ...}) is
// pointed at by its name.
const YamlNode& value_node(const YamlNode& item, std::string_view field) {
  const YamlNode& n = node_of_field(item, field);
  if (&n != &item && n.is_mapping()) {
    if (const YamlNode* name = n.find("name")) return *name;
  }
  return n;
}

void report_problems(const YamlReader& r, const YamlNode& item, const std::string& path,
                     const std::vector<RequestProblem>& problems) {
  for (const RequestProblem& p : problems) {
    r.error(value_node(item, p.field), path + "." + p.field + ": " + p.message);
  }
}

std::string yaml_flow_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i > 0 ? ", " : "") + yaml_scalar(items[i]);
  return out + "]";
}

std::string yaml_selectors(const std::vector<Selector>& where) {
  std::string out = "{";
  for (std::size_t i = 0; i < where.size(); ++i) {
    out += (i > 0 ? ", " : "") + where[i].param + ": " + yaml_scalar(where[i].label);
  }
  return out + "}";
}

std::string num(double v) { return number_text(v); }

// A comparison or a cited value selects one design point; a grid constraint that removes it leaves
// the entry no row, which the loader reports as it reports a selector that selects nothing.
// `entries` holds each entry's name and selectors, in the order of the list under `key`.
void check_points_kept(const YamlReader& r, const YamlNode& root, const ResolvedStudy& study, std::string_view key,
                       const std::vector<std::pair<std::string, const std::vector<Selector>*>>& entries) {
  const StudyAnalyses& a = analyses_of(study);
  const YamlNode* list = root.find(key);
  if (a.grid_constraints.empty() || entries.empty() || list == nullptr || !list->is_sequence()) return;
  const Grid grid(study);
  PointFormulas formulas(study);
  PointInputs inputs;
  for (const auto& entry : entries) {
    const std::string& name = entry.first;
    std::vector<RequestProblem> problems;
    const std::vector<std::uint32_t> at = pin_axes(study, *entry.second, "where", problems);
    if (!problems.empty() || std::find(at.begin(), at.end(), kFree) != at.end()) continue;
    grid.inputs(point_index(study, at), inputs);
    const std::optional<std::size_t> broken = formulas.broken_grid_constraint(inputs);
    if (!broken) continue;
    // The entry's node: entries keep the order of the list (an entry with an error stops the load).
    const auto item = std::find_if(list->items.begin(), list->items.end(), [&](const YamlNode& n) {
      const YamlNode* written = n.is_mapping() ? n.find("name") : nullptr;
      return written != nullptr && written->text == name;
    });
    if (item == list->items.end()) continue;
    const RowRule& rule = a.grid_constraints[*broken];
    r.error(node_of_field(*item, "where"),
            index_path(key, static_cast<std::size_t>(item - list->items.begin())) +
                ".where: selects nothing: the grid constraints removed the matching design point (grid constraint '" +
                rule.name + "': " + rule.expr + " is false there); select a point the grid keeps or relax the constraint");
  }
}

// A cited aggregate (count, min, max, sum) reads the rows its `where:` selects; when the grid
// constraints remove every one of them it would cite nothing, which the loader reports at its
// `where:` (or at the entry, when it selects every row). Stops at the first point the grid keeps.
void check_aggregates_select(const YamlReader& r, const YamlNode& root, const ResolvedStudy& study) {
  const StudyAnalyses& a = analyses_of(study);
  const YamlNode* list = root.find("values");
  if (a.grid_constraints.empty() || list == nullptr || !list->is_sequence()) return;
  const Grid grid(study);
  PointFormulas formulas(study);
  PointInputs inputs;
  for (const CitedValue& v : study.values) {
    if (v.aggregate == CitedAggregate::none) continue;
    std::vector<RequestProblem> problems;
    std::vector<std::uint32_t> at = pin_axes(study, v.where, "where", problems);
    if (!problems.empty()) continue;
    std::vector<std::size_t> free;
    for (std::size_t x = 0; x < at.size(); ++x) {
      if (at[x] == kFree) {
        free.push_back(x);
        at[x] = 0;
      }
    }
    std::optional<std::size_t> broken;  // the constraint the first point fails
    std::uint64_t points = 0;
    bool kept = false;
    for (;;) {
      grid.inputs(point_index(study, at), inputs);
      ++points;
      const std::optional<std::size_t> b = formulas.broken_grid_constraint(inputs);
      if (!b) {
        kept = true;
        break;
      }
      if (!broken) broken = b;
      std::size_t k = free.size();
      while (k > 0 && ++at[free[k - 1]] == study.axes[free[k - 1]].values.size()) at[free[--k]] = 0;
      if (k == 0) break;
    }
    if (kept) continue;
    const auto item = std::find_if(list->items.begin(), list->items.end(), [&](const YamlNode& n) {
      const YamlNode* written = n.is_mapping() ? n.find("name") : nullptr;
      return written != nullptr && written->text == v.name;
    });
    if (item == list->items.end()) continue;
    const RowRule& rule = a.grid_constraints[*broken];
    const YamlNode* where = item->find("where");
    const std::string path = index_path("values", static_cast<std::size_t>(item - list->items.begin()));
    r.error(where != nullptr ? *where : *item,
            path + (where != nullptr ? ".where" : "") + ": selects nothing: the grid constraints remove all " +
                std::to_string(points) + (points == 1 ? " design point" : " design points") +
                " it selects (the first fails grid constraint '" + rule.name + "': " + rule.expr +
                " is false there); select rows the grid keeps or relax the constraints");
  }
}

}  // namespace

std::vector<std::string> read_study_analyses(const YamlReader& reader, const YamlNode& root, ResolvedStudy& study,
                                             const SelectorReader& read_selectors) {
  auto analyses = std::make_shared<StudyAnalyses>();
  if (study.solver == nullptr) return {};
  BlockReader(reader, study, *analyses, read_selectors).read(root);
  std::vector<std::string> names;
  for (const DerivedMetric& d : analyses->derived) names.push_back(d.name);
  study.analyses = std::move(analyses);
  return names;
}

MetricSpec derived_metric_spec(const ResolvedStudy& study, std::size_t index) {
  const DerivedMetric& d = analyses_of(study).derived.at(index);
  return MetricSpec{d.name, d.dimension, d.description};
}

bool check_study_analyses(const YamlReader& r, const YamlNode& root, const ResolvedStudy& study) {
  const std::size_t before = r.diags().error_count();
  const StudyAnalyses& a = analyses_of(study);
  if (const YamlNode* list = root.find("breakeven"); list != nullptr && list->is_sequence()) {
    for (std::size_t i = 0; i < a.breakevens.size() && i < list->items.size(); ++i) {
      report_problems(r, list->items[i], index_path("breakeven", i), check_breakeven(study, a.breakevens[i]));
    }
  }
  if (const YamlNode* list = root.find("sensitivity"); list != nullptr && list->is_sequence()) {
    for (std::size_t i = 0; i < a.sensitivities.size() && i < list->items.size(); ++i) {
      report_problems(r, list->items[i], index_path("sensitivity", i), check_sensitivity(study, a.sensitivities[i]));
    }
  }
  const std::size_t k = study.objectives.size();
  if (const YamlNode* p = root.find("pareto"); p != nullptr && p->is_mapping()) {
    if (k < 2 && (!a.pareto.group.empty() || !a.pareto.epsilon.empty())) {
      r.error(*p, "pareto: a front needs at least two objectives; add them under objectives:");
    } else if (const YamlNode* e = p->find("epsilon"); e != nullptr && a.pareto.epsilon.size() != 1 &&
                                                       a.pareto.epsilon.size() != k) {
      r.error(*e, fmt::format("pareto.epsilon: give one value per objective ({}) or a single value for all, got {}", k,
                              a.pareto.epsilon.size()));
    }
  }
  if (const YamlNode* n = root.find("top_k"); n != nullptr && a.top_k > 0 && k == 0) {
    r.error(*n, "top_k: lists the best design points of each objective; add objectives:");
  }
  if (const YamlNode* n = root.find("keep"); n != nullptr && n->is_mapping()) {
    if (a.keep.front && k < 2) {
      r.error(node_of_field(*n, "front"), "keep.front: a front needs at least two objectives; add them under objectives:");
    }
    if (a.keep.top_k > 0 && k == 0) {
      r.error(node_of_field(*n, "top_k"), "keep.top_k: keeps the best design points of each objective; add objectives:");
    }
  }
  // Figures the analyses draw must not overwrite the study's own.
  const auto clash = [&](const std::string& name) {
    return std::any_of(study.figures.begin(), study.figures.end(), [&](const FigureDecl& f) {
      return f.name == name || (f.name.starts_with(name + "_") &&
                                f.name.find_first_not_of("0123456789", name.size() + 1) == std::string::npos);
    });
  };
  const auto check_names = [&](const char* key, const std::vector<std::string>& names,
                               const std::vector<std::string>& prefixes) {
    const YamlNode* list = root.find(key);
    if (list == nullptr || !list->is_sequence()) return;
    for (std::size_t i = 0; i < names.size() && i < list->items.size(); ++i) {
      for (const std::string& prefix : prefixes) {
        if (clash(prefix + names[i])) {
          r.error(node_of_field(list->items[i], "name"),
                  index_path(key, i) + ".name: its figure '" + prefix + names[i] +
                      "' has the name of one of the study's figures; rename one of them");
        }
      }
    }
  };
  std::vector<std::string> names;
  for (const BreakevenRequest& b : a.breakevens) names.push_back(b.name);
  check_names("breakeven", names, {"breakeven_"});
  names.clear();
  for (const SensitivityRequest& s : a.sensitivities) names.push_back(s.name);
  check_names("sensitivity", names, {"tornado_", "morris_", "sobol_", "flips_"});
  if (k >= 2 && (!a.pareto.group.empty()) && clash("pareto_fronts")) {
    r.error(*root.find("pareto"), "pareto: its figure 'pareto_fronts' has the name of one of the study's figures");
  }
  std::vector<std::pair<std::string, const std::vector<Selector>*>> compared, cited;
  for (const Comparison& c : study.comparisons) compared.emplace_back(c.name, &c.where);
  for (const CitedValue& v : study.values) {
    cited.emplace_back(v.name, &v.where);
    if (!v.over.empty()) cited.emplace_back(v.name, &v.over);
    if (!v.minus.empty()) cited.emplace_back(v.name, &v.minus);
  }
  check_points_kept(r, root, study, "compare", compared);
  check_points_kept(r, root, study, "values", cited);
  check_aggregates_select(r, root, study);
  return r.diags().error_count() == before;
}

void write_study_analyses_yaml(const ResolvedStudy& study, std::string& out) {
  const StudyAnalyses& a = analyses_of(study);
  const Solver& solver = *study.solver;
  if (!a.derived.empty()) {
    out += "derived:\n";
    for (const DerivedMetric& d : a.derived) {
      out += "  - name: " + d.name + "\n";
      out += "    expr: " + yaml_scalar(d.expr) + "\n";
      if (!d.unit.empty()) out += "    unit: " + yaml_scalar(d.unit) + "\n";
      if (!d.description.empty()) out += "    description: " + yaml_scalar(d.description) + "\n";
    }
  }
  const auto rules = [&](const char* key, const std::vector<RowRule>& list) {
    if (list.empty()) return;
    out += std::string(key) + ":\n";
    for (const RowRule& x : list) out += "  - {name: " + yaml_scalar(x.name) + ", expr: " + yaml_scalar(x.expr) + "}\n";
  };
  rules("grid_constraints", a.grid_constraints);
  if (!a.keep.all) {
    out += std::string("keep: {front: ") + (a.keep.front ? "true" : "false");
    if (a.keep.top_k > 0) out += ", top_k: " + std::to_string(a.keep.top_k);
    if (a.keep.sample > 0) out += ", sample: " + std::to_string(a.keep.sample);
    out += ", seed: " + std::to_string(a.keep.seed) + "}\n";
  }
  rules("filters", a.filters);
  rules("constraints", a.constraints);
  if (!a.assertions.empty()) {
    out += "assertions:\n";
    for (const Assertion& x : a.assertions) {
      out += "  - name: " + yaml_scalar(x.name) + "\n";
      out += "    expr: " + yaml_scalar(x.expr) + "\n";
      if (!x.where.empty()) out += "    where: " + yaml_selectors(x.where) + "\n";
      out += std::string("    require: ") + (x.require == Quantifier::all ? "all" : "any") + "\n";
    }
  }
  if (a.top_k > 0) out += "top_k: " + std::to_string(a.top_k) + "\n";
  if (!a.pareto.group.empty() || !a.pareto.epsilon.empty()) {
    out += "pareto:\n";
    if (!a.pareto.group.empty()) out += "  group: " + yaml_flow_list(a.pareto.group) + "\n";
    if (!a.pareto.epsilon.empty()) {
      std::vector<std::string> eps;
      for (double e : a.pareto.epsilon) eps.push_back(num(e));
      out += "  epsilon: " + yaml_flow_list(eps) + "\n";
    }
  }
  const auto direction = [](Direction d) { return d == Direction::minimize ? "min" : "max"; };
  if (!a.breakevens.empty()) {
    out += "breakeven:\n";
    for (const BreakevenRequest& b : a.breakevens) {
      out += "  - name: " + b.name + "\n";
      if (!b.description.empty()) out += "    description: " + yaml_scalar(b.description) + "\n";
      if (b.metrics.empty()) {
        out += "    metric: " + b.metric + "\n";
      } else {
        out += "    metrics: " + yaml_flow_list(b.metrics) + "\n";
      }
      out += std::string("    direction: ") + direction(b.direction) + "\n";
      out += "    along: " + b.along + "\n";
      if (!b.alternatives.empty()) out += "    alternatives: " + b.alternatives + "\n";
      if (!b.among.empty()) out += "    among: " + yaml_flow_list(b.among) + "\n";
      if (!b.where.empty()) out += "    where: " + yaml_selectors(b.where) + "\n";
      const int p = param_of(solver, b.along);
      const ParamSpec* along = p >= 0 ? &solver.params()[static_cast<std::size_t>(p)] : nullptr;
      const bool numeric = along != nullptr && along->kind == ParamKind::number;
      out += std::string("    refine: ") + (b.refine.value_or(numeric) ? "true" : "false") + "\n";
      out += "    tolerance: {relative: " + num(b.tolerance.relative) + ", absolute: " +
             yaml_scalar(exact_quantity_label(b.tolerance.absolute, along != nullptr ? along->dimension : Dimension::dimensionless)) +
             ", max_evaluations: " + std::to_string(b.tolerance.max_evaluations) + "}\n";
    }
  }
  if (!a.sensitivities.empty()) {
    out += "sensitivity:\n";
    for (const SensitivityRequest& s : a.sensitivities) {
      out += "  - name: " + s.name + "\n";
      if (!s.description.empty()) out += "    description: " + yaml_scalar(s.description) + "\n";
      out += "    metric: " + s.metric + "\n";
      out += std::string("    direction: ") + direction(s.direction) + "\n";
      if (s.base_point) {
        out += "    base_point: " + std::to_string(*s.base_point) + "\n";
      } else if (!s.base.empty()) {
        out += "    base: " + yaml_selectors(s.base) + "\n";
      }
      out += "    inputs:\n";
      for (const UncertainDecl& in : s.inputs) {
        out += "      - {name: " + yaml_scalar(in.name);
        if (in.range) {
          const int p = param_of(solver, in.name);
          const Dimension d = p >= 0 ? solver.params()[static_cast<std::size_t>(p)].dimension : Dimension::dimensionless;
          out += ", range: [" + yaml_scalar(exact_quantity_label(in.range->lo, d)) + ", " +
                 yaml_scalar(exact_quantity_label(in.range->hi, d)) + "]";
        }
        out += "}\n";
      }
      out += std::string("    local: {enabled: ") + (s.local ? "true" : "false") + ", change: " +
             num(s.local_options.relative_change) + ", step: " + num(s.local_options.elasticity_step) + "}\n";
      if (s.morris) {
        out += fmt::format("    morris: {{trajectories: {}, levels: {}, seed: {}}}\n", s.morris->trajectories,
                           s.morris->levels, s.morris->seed);
      }
      if (s.sobol) {
        out += fmt::format("    sobol: {{samples: {}, bootstrap: {}, confidence: {}, seed: {}}}\n", s.sobol->samples,
                           s.sobol->bootstrap, num(s.sobol->confidence), s.sobol->seed);
      }
      if (!s.decide.empty()) {
        out += "    decide: " + s.decide + "\n";
        if (!s.among.empty()) out += "    among: " + yaml_flow_list(s.among) + "\n";
        out += fmt::format("    flip: {{max_change: {}, steps: {}, tolerance: {}}}\n", num(s.flip.max_relative_change),
                           s.flip.scan_steps, num(s.flip.tolerance));
      }
    }
  }
}

}  // namespace dsx
