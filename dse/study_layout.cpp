// Layout axes: `axes: layout: {gpus: 1024, tp: [1, 2, 4, 8], pp: any, cp: [1, 2]}` asks for every valid
// factorization of the GPUs (dse/layouts.hpp); `layout: ["tp8 pp16 dp128", ...]` lists layouts by hand
// and is the form the resolved study writes. Either is a bundle-like axis (dse/study.hpp, Axis::sets):
// each value sets gpus, tp, pp, cp and ep, of those the solver has, together.
#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>

#include "dse/study_loader.hpp"

namespace dsx::study_loading {

namespace {

constexpr std::array<std::string_view, 5> kLayoutKeys = {"gpus", "tp", "pp", "cp", "ep"};

std::string layout_example() { return "{gpus: 1024, tp: [1, 2, 4, 8], pp: any, cp: [1, 2]}"; }

std::string choice_text(const LayoutChoice& c) {
  if (c.any) return "any";
  std::string out;
  for (std::uint64_t v : c.values) out += (out.empty() ? "" : ", ") + std::to_string(v);
  return c.values.size() == 1 ? out : "[" + out + "]";
}

}  // namespace

std::optional<double> StudyLoader::known_value(std::string_view name) const {
  const int p = param_index(name);
  if (p < 0) return std::nullopt;
  const auto pi = static_cast<std::size_t>(p);
  if (s_.is_axis[pi] || set_by_bundle_axis(pi) || !fixed_[pi]) return std::nullopt;
  return s_.fixed_values[pi];
}

std::optional<LayoutChoice> StudyLoader::read_layout_choice(const YamlNode& node, const std::string& path,
                                                            std::size_t p, bool allow_any) {
  const ParamSpec& ps = spec(p);
  LayoutChoice choice;
  choice.max = static_cast<std::uint64_t>(ps.max_value);
  choice.values.clear();
  if (node.is_scalar() && node.text == "any") {
    if (!allow_any) {
      r_.error(node, path + ": give the job's GPU count (an integer, or a list of them), e.g. 1024");
      return std::nullopt;
    }
    choice.any = true;
    return choice;
  }
  std::vector<const YamlNode*> nodes;  // where each value was written
  const auto read_one = [&](const YamlNode& item, const std::string& item_path) -> bool {
    if (!item.is_scalar()) {
      r_.error(item, item_path + ": expected a positive integer" + std::string(allow_any ? " or 'any'" : "") + ", got " +
                         item.describe());
      return false;
    }
    const char first = item.text.empty() ? ' ' : item.text.front();
    if (!(first >= '0' && first <= '9') && first != '-' && first != '+' && first != '.') {
      r_.error(item, item_path + ": expected a positive integer" + std::string(allow_any ? ", a list of them or 'any'" : "") +
                         ", got '" + item.text + "'" + (allow_any ? " (write 'any' for every divisor)" : ""));
      return false;
    }
    const auto v = read_value(ps, item, item_path);
    if (!v) return false;
    if (v->value < 1) {
      r_.error(item, item_path + ": " + std::string(ps.name) + " = " + item.text + ": a parallel degree is at least 1");
      return false;
    }
    const auto n = static_cast<std::uint64_t>(v->value);
    const auto earlier = std::find(choice.values.begin(), choice.values.end(), n);
    if (earlier != choice.values.end()) {
      r_.error(item, item_path + ": duplicate value '" + item.text + "' (already given at " +
                         at_text(*nodes[static_cast<std::size_t>(earlier - choice.values.begin())]) + ")");
      return false;
    }
    choice.values.push_back(n);
    nodes.push_back(&item);
    return true;
  };
  if (node.is_sequence()) {
    if (node.items.empty()) {
      r_.error(node, path + ": the list is empty; give at least one value" + std::string(allow_any ? " or 'any'" : ""));
      return std::nullopt;
    }
    bool ok = true;
    for (std::size_t i = 0; i < node.items.size(); ++i) ok = read_one(node.items[i], index_path(path, i)) && ok;
    if (!ok) return std::nullopt;
    return choice;
  }
  if (node.is_scalar()) {
    if (!read_one(node, path)) return std::nullopt;
    return choice;
  }
  r_.error(node, path + ": expected an integer, a list of integers" + std::string(allow_any ? " or 'any'" : "") +
                     ", got " + node.describe());
  return std::nullopt;
}

void StudyLoader::read_layout_axis(const YamlEntry& e) {
  const std::string path = "axes.layout";
  // The layout parameters the solver has, in the solver's order (the order a bundle axis sets them).
  std::vector<std::string> names;
  std::vector<std::size_t> sets;
  for (std::size_t p = 0; p < param_names_.size(); ++p) {
    if (std::find(kLayoutKeys.begin(), kLayoutKeys.end(), param_names_[p]) != kLayoutKeys.end()) sets.push_back(p);
  }
  for (std::string_view k : kLayoutKeys) {
    if (param_index(k) >= 0) names.emplace_back(k);
  }
  if (param_index("gpus") < 0 || param_index("tp") < 0) {
    r_.error(e.key, path + ": solver '" + std::string(s_.solver->name()) + "' has no gpus and tp parameters to lay "
                        "out; a layout axis splits a job's gpus into tp x pp x cp x dp (the training solver)");
    return;
  }
  const auto has = [&](std::string_view k) { return param_index(k) >= 0; };
  const std::size_t errors_before = r_.diags().error_count();
  Axis axis;
  axis.param = std::string(kLayoutAxis);
  axis.sets = sets;
  axis.param_index = sets.front();
  PendingLayout pending;
  pending.node = &e.value;
  if (e.value.is_mapping()) {
    r_.check_keys(e.value, kLayoutKeys, path);
    for (const YamlEntry& k : e.value.entries) {
      if (std::find(kLayoutKeys.begin(), kLayoutKeys.end(), k.key.text) == kLayoutKeys.end() || has(k.key.text)) {
        continue;
      }
      r_.error(k.key, path + "." + k.key.text + ": solver '" + std::string(s_.solver->name()) + "' has no parameter '" +
                          k.key.text + "'; the layout keys it takes: " + join(names));
    }
    LayoutRequest& req = pending.request;
    if (const YamlNode* g = r_.require(e.value, "gpus", path)) {
      if (auto c = read_layout_choice(*g, path + ".gpus", static_cast<std::size_t>(param_index("gpus")), false)) {
        req.gpus = c->values;
      }
    }
    // A degree left out is 1 (a key the solver lacks was reported above). The label shows tp, pp where
    // the solver has it, and cp and ep where they may be other than 1.
    const auto degree = [&](std::string_view key, LayoutChoice& into) {
      const YamlNode* n = e.value.find(key);
      if (n == nullptr || !has(key)) return false;
      if (auto c = read_layout_choice(*n, path + "." + std::string(key), static_cast<std::size_t>(param_index(key)), true)) {
        into = *c;
      }
      return into.any || into.values != std::vector<std::uint64_t>{1};
    };
    degree("tp", req.tp);
    degree("pp", req.pp);
    pending.show_pp = has("pp");
    pending.show_cp = degree("cp", req.cp);
    pending.show_ep = degree("ep", req.ep);
    if (r_.diags().error_count() != errors_before) return;
    pending.axis = s_.axes.size();
    pending_layouts_.push_back(std::move(pending));
  } else if (e.value.is_sequence()) {
    if (e.value.items.empty()) {
      r_.error(e.value, path + ": the axis is empty; give at least one layout, or constraints such as " +
                            layout_example());
      return;
    }
    std::vector<const YamlNode*> seen;
    for (std::size_t i = 0; i < e.value.items.size(); ++i) {
      const YamlNode& item = e.value.items[i];
      const std::string item_path = index_path(path, i);
      if (!item.is_scalar()) {
        r_.error(item, item_path + ": expected a layout such as 'tp8 pp16 dp128', got " + item.describe());
        continue;
      }
      std::string problem;
      const std::optional<Layout> l = parse_layout_label(item.text, problem);
      if (!l) {
        r_.error(item, item_path + ": " + problem);
        continue;
      }
      const std::array<std::pair<std::string_view, std::uint64_t>, 5> degrees = {
          {{"gpus", l->gpus}, {"tp", l->tp}, {"pp", l->pp}, {"cp", l->cp}, {"ep", l->ep}}};
      bool ok = true;
      for (const auto& [name, value] : degrees) {
        const int p = param_index(name);
        if (p < 0) {
          if (value != 1) {
            r_.error(item, item_path + ": solver '" + std::string(s_.solver->name()) + "' has no parameter '" +
                               std::string(name) + "'; the layout keys it takes: " + join(names));
            ok = false;
          }
          continue;
        }
        const ParamSpec& ps = spec(static_cast<std::size_t>(p));
        const std::string problem_text =
            check_bounds(static_cast<double>(value), bounds_of(ps), ps.dimension, ps.name, std::to_string(value));
        if (!problem_text.empty()) {
          r_.error(item, item_path + ": " + problem_text);
          ok = false;
        }
      }
      if (!ok) continue;
      // One space between degrees, so that selectors match the label as the resolved study writes it.
      std::string label;
      std::istringstream words(item.text);
      for (std::string word; words >> word;) label += (label.empty() ? "" : " ") + word;
      bool duplicate = false;
      for (std::size_t v = 0; v < axis.values.size(); ++v) {
        if (axis.values[v].label != label) continue;
        r_.error(item, path + ": duplicate value '" + item.text + "' (already given at " + at_text(*seen[v]) + ")");
        duplicate = true;
      }
      if (duplicate) continue;
      axis.values.push_back(AxisValue{label, static_cast<double>(axis.values.size())});
      seen.push_back(&item);
      for (std::size_t p : sets) {
        const std::string& name = param_names_[p];
        std::uint64_t v = 1;
        for (const auto& [n, value] : degrees) {
          if (n == name) v = value;
        }
        axis.set_values.push_back(static_cast<double>(v));
        axis.set_labels.push_back(std::to_string(v));
      }
    }
    if (r_.diags().error_count() != errors_before) return;
    if (!fits_total(e.value, path, "the list gives", axis.values.size())) return;
    axis_values_ += axis.values.size();
  } else {
    r_.error(e.value, path + ": a layout axis is a mapping of constraints, e.g. " + layout_example() +
                          ", or a list of layouts such as ['tp8 pp16 dp128', 'tp8 pp16 cp16 dp8']");
    return;
  }
  s_.bundles.push_back(BundleUse{axis.param, static_cast<int>(s_.axes.size()), "", axis.sets});
  bundle_keys_.push_back(&e.key);
  bundle_rows_.push_back({});
  s_.axes.push_back(std::move(axis));
}

void StudyLoader::expand_layouts() {
  for (PendingLayout& pending : pending_layouts_) {
    Axis& axis = s_.axes[pending.axis];
    const std::string path = "axes.layout";
    LayoutFacts base;
    std::vector<std::string> known;  // the facts filtered on, for messages
    if (auto node = known_value("gpus_per_node")) {
      base.gpus_per_node = *node;
      known.push_back("gpus_per_node " + number_text(*node));
    }
    if (auto v = known_value("virtual_stages")) {
      base.virtual_stages = *v;
      if (*v > 1) known.push_back("virtual_stages " + number_text(*v));
    }
    // The model's facts: of the fixed model, or of each model on a model axis (a layout is then kept
    // when one of them admits it). A model a bundle axis sets is not known here.
    std::vector<const CatalogModel*> models;
    const int model_param = param_of_kind(ParamKind::model);
    if (model_param >= 0) {
      const auto mp = static_cast<std::size_t>(model_param);
      const Axis* a = s_.is_axis[mp] ? axis_of(mp) : nullptr;
      if (a != nullptr && a->param == param_names_[mp]) {
        for (const AxisValue& v : a->values) models.push_back(&catalog_.models.at(static_cast<std::size_t>(v.value)));
      } else if (auto index = known_value(param_names_[mp])) {
        models.push_back(&catalog_.models.at(static_cast<std::size_t>(*index)));
      }
    }
    std::vector<LayoutFacts> facts;
    std::vector<std::string> model_facts;
    for (const CatalogModel* m : models) {
      if (!m->prepared.is_transformer) {
        facts.clear();  // the solver refuses it for its own reason; filter on nothing model-related
        break;
      }
      const ServingShape& shape = m->prepared.serving_shape;
      LayoutFacts f = base;
      f.layers = shape.layers;
      f.heads = shape.heads;
      f.seq_len = shape.built_seq_len;
      f.experts = shape.experts;
      facts.push_back(f);
      model_facts.push_back("model " + m->id + " (" + number_text(shape.layers) + " layers, " + number_text(shape.heads) +
                      " heads, seq_len " + number_text(shape.built_seq_len) +
                      (shape.experts > 0 ? ", " + number_text(shape.experts) + " experts" : ", dense") + ")");
    }
    if (facts.empty()) {
      facts.push_back(base);
    } else {
      known.insert(known.end(), model_facts.begin(), model_facts.end());
    }
    const std::uint64_t room = kMaxTotalAxisValues - std::min(axis_values_, kMaxTotalAxisValues);
    const LayoutEnumeration found = enumerate_layouts(pending.request, facts, room);
    if (found.too_much_work) {
      r_.error(*pending.node, path + ": the constraints ask to examine more than " + std::to_string(kMaxLayoutWork) +
                                  " combinations of gpus, tp, pp, cp and ep; narrow them (a list instead of 'any')");
      continue;
    }
    if (found.truncated) {
      r_.error(*pending.node, path + ": the constraints give more than " + std::to_string(room) +
                                  " layouts, and all axes together hold at most " + std::to_string(kMaxTotalAxisValues) +
                                  " values; narrow tp, pp, cp or ep");
      continue;
    }
    if (found.layouts.empty()) {
      std::vector<std::string> reasons;
      for (std::size_t k = 0; k < kLayoutDropCount; ++k) {
        if (found.dropped[k] > 0) reasons.emplace_back(layout_drop_text(static_cast<LayoutDrop>(k)));
      }
      const LayoutRequest& q = pending.request;
      std::string gpus;
      for (std::uint64_t g : q.gpus) gpus += (gpus.empty() ? "" : ", ") + std::to_string(g);
      r_.error(*pending.node, path + ": no layout of " + gpus + " GPUs meets tp " + choice_text(q.tp) + ", pp " +
                                  choice_text(q.pp) + ", cp " + choice_text(q.cp) + ", ep " + choice_text(q.ep) +
                                  (known.empty() ? "" : " with " + join(known)) + ": every combination fails: " +
                                  join(reasons));
      continue;
    }
    for (const Layout& l : found.layouts) {
      axis.values.push_back(AxisValue{layout_label(l, pending.show_pp, pending.show_cp, pending.show_ep),
                                      static_cast<double>(axis.values.size())});
      for (std::size_t p : axis.sets) {
        const std::string& name = param_names_[p];
        const std::uint64_t v = name == "gpus" ? l.gpus : name == "tp" ? l.tp : name == "pp" ? l.pp : name == "cp" ? l.cp : l.ep;
        axis.set_values.push_back(static_cast<double>(v));
        axis.set_labels.push_back(std::to_string(v));
      }
    }
    axis_values_ += axis.values.size();
  }
}

}  // namespace dsx::study_loading
