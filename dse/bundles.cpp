#include "dse/bundles.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "dse/quantity.hpp"
#include "dse/study.hpp"
#include "dse/yaml_reader.hpp"

namespace dsx {

namespace {

std::optional<double> index_in(const std::vector<std::string>& names, const std::string& label) {
  const auto it = std::find(names.begin(), names.end(), label);
  if (it == names.end()) return std::nullopt;
  return static_cast<double>(it - names.begin());
}

constexpr std::array<std::string_view, 3> kTorusParams = {"torus_x", "torus_y", "torus_z"};

}  // namespace

bool is_torus_param(std::string_view name) {
  return std::find(kTorusParams.begin(), kTorusParams.end(), name) != kTorusParams.end();
}

std::optional<std::vector<BundleSetting>> bundle_settings(const CatalogBundle& bundle, const Solver& solver,
                                                          const Catalog& catalog, std::string& problem,
                                                          bool with_topology) {
  std::vector<BundleSetting> out;
  const auto params = solver.params();
  for (std::size_t p = 0; p < params.size(); ++p) {
    const ParamSpec& spec = params[p];
    if (is_torus_param(spec.name) && (with_topology || !bundle.torus.empty())) {
      const auto d = static_cast<std::size_t>(
          std::find(kTorusParams.begin(), kTorusParams.end(), spec.name) - kTorusParams.begin());
      const double chips = d < bundle.torus.size() ? bundle.torus[d] : 0.0;
      out.push_back(BundleSetting{p, chips, fmt::format("{}", chips)});
      continue;
    }
    const auto it = std::find_if(bundle.values.begin(), bundle.values.end(),
                                 [&](const auto& v) { return v.first == spec.name; });
    if (it == bundle.values.end()) continue;
    const std::string& label = it->second;
    const std::string what = bundle.kind + " '" + bundle.id + "' sets " + std::string(spec.name) + " to '" + label + "'";
    std::optional<double> value;
    switch (spec.kind) {
      case ParamKind::number: {
        const QuantityParse q = parse_quantity(label, spec.dimension, spec.name);
        if (!q.quantity) {
          problem = what + ": " + q.error.message;
          return std::nullopt;
        }
        QuantityBounds bounds;
        bounds.bounded = spec.max_value > spec.min_value;
        bounds.min_value = spec.min_value;
        bounds.max_value = spec.max_value;
        bounds.min_exclusive = spec.min_exclusive;
        bounds.integer = spec.integer;
        const std::string out_of_bounds = check_bounds(q.quantity->value, bounds, spec.dimension, spec.name, label);
        if (!out_of_bounds.empty()) {
          problem = what + ": " + out_of_bounds;
          return std::nullopt;
        }
        value = q.quantity->value;
        break;
      }
      case ParamKind::hardware:
      case ParamKind::model:
        if (spec.has_default && label == kNoCatalogEntry) {
          value = -1;
        } else {
          value = index_in(spec.kind == ParamKind::hardware ? catalog.hardware_ids() : catalog.model_ids(), label);
        }
        break;
      case ParamKind::precision: {
        std::vector<std::string> names;
        for (Precision pr : kAllPrecisions) names.emplace_back(precision_name(pr));
        value = index_in(names, label);
        break;
      }
      case ParamKind::choice:
        value = index_in(std::vector<std::string>(spec.choices.begin(), spec.choices.end()), label);
        break;
    }
    if (!value) {
      problem = what + ", which " + std::string(solver.name()) + " does not know";
      return std::nullopt;
    }
    out.push_back(BundleSetting{p, *value, label});
  }
  return out;
}

std::string bundle_value_names(const CatalogBundle& bundle) {
  std::string out;
  for (const auto& [name, label] : bundle.values) out += (out.empty() ? "" : ", ") + name;
  return out;
}

void write_bundle_entries(std::string& out, const std::vector<CatalogBundle>& bundles) {
  for (const BundleKind& kind : kBundleKinds) {
    bool first = true;
    for (const CatalogBundle& b : bundles) {
      if (b.kind != kind.name) continue;
      if (first) out += "  " + std::string(kind.list_key) + ":\n";
      first = false;
      out += "    - id: " + yaml_scalar(b.id) + "\n";
      out += "      name: " + yaml_scalar(b.name) + "\n";
      out += "      source: " + yaml_scalar(b.source) + "\n";
      if (!b.torus.empty()) {
        out += "      topology: {torus: [";
        for (std::size_t i = 0; i < b.torus.size(); ++i) out += (i > 0 ? ", " : "") + fmt::format("{}", b.torus[i]);
        out += "]}\n";
      }
      out += "      values: {";
      for (std::size_t i = 0; i < b.values.size(); ++i) {
        out += (i > 0 ? ", " : "") + b.values[i].first + ": " + yaml_scalar(b.values[i].second);
      }
      out += "}\n";
    }
  }
}

const BundleUse* ResolvedStudy::bundle_setting(std::size_t param) const {
  for (const BundleUse& u : bundles) {
    if (std::find(u.params.begin(), u.params.end(), param) != u.params.end()) return &u;
  }
  return nullptr;
}

}  // namespace dsx
