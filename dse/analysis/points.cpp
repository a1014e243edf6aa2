#include "dse/analysis/points.hpp"

#include <stdexcept>

namespace dsx {

void throw_if_problems(std::string_view analysis, const std::vector<RequestProblem>& problems) {
  if (problems.empty()) return;
  std::string text(analysis);
  for (const RequestProblem& p : problems) text += "\n  " + p.field + ": " + p.message;
  throw std::invalid_argument(text);
}

int param_of(const Solver& solver, std::string_view name) {
  const auto params = solver.params();
  for (std::size_t p = 0; p < params.size(); ++p) {
    if (params[p].name == name) return static_cast<int>(p);
  }
  return -1;
}

int metric_of(const Solver& solver, std::string_view name) {
  const auto metrics = solver.metrics();
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    if (metrics[m].name == name) return static_cast<int>(m);
  }
  return -1;
}

int axis_of(const ResolvedStudy& study, std::string_view param) {
  for (std::size_t a = 0; a < study.axes.size(); ++a) {
    if (study.axes[a].param == param) return static_cast<int>(a);
  }
  return -1;
}

namespace {
template <typename Range, typename Name>
std::string join_names(const Range& range, Name name) {
  std::string out;
  for (const auto& item : range) {
    if (!out.empty()) out += ", ";
    out += name(item);
  }
  return out;
}
std::string axis_labels(const Axis& axis) {
  return join_names(axis.values, [](const AxisValue& v) { return v.label; });
}

// The fixed bundle of kind `kind` (region: quebec under fixed:), or nullptr.
const BundleUse* fixed_bundle(const ResolvedStudy& study, std::string_view kind) {
  for (const BundleUse& u : study.bundles) {
    if (u.kind == kind && u.axis < 0) return &u;
  }
  return nullptr;
}

// "; bundles: region, node": the bundle kinds a selector may also name.
std::string bundle_kinds_text(const ResolvedStudy& study) {
  if (study.bundles.empty()) return "";
  return "; bundles: " + join_names(study.bundles, [](const BundleUse& u) { return u.kind; });
}

}  // namespace

std::string param_names(const Solver& solver) {
  return join_names(solver.params(), [](const ParamSpec& p) { return std::string(p.name); });
}

std::string metric_names(const Solver& solver) {
  return join_names(solver.metrics(), [](const MetricSpec& m) { return std::string(m.name); });
}

std::string axis_names(const ResolvedStudy& study) {
  return join_names(study.axes, [](const Axis& a) { return a.param; });
}

std::vector<std::uint32_t> pin_axes(const ResolvedStudy& study, std::span<const Selector> where,
                                    std::string_view field, std::vector<RequestProblem>& problems) {
  std::vector<std::uint32_t> pinned(study.axes.size(), kFree);
  for (std::size_t a = 0; a < study.axes.size(); ++a) {
    if (study.axes[a].values.size() == 1) pinned[a] = 0;
  }
  for (const Selector& sel : where) {
    const std::string key = std::string(field) + "." + sel.param;
    const int a = axis_of(study, sel.param);
    if (a < 0) {
      if (const BundleUse* use = fixed_bundle(study, sel.param)) {
        if (sel.label != use->id) {
          problems.push_back({key, "'" + sel.label + "' selects nothing: " + sel.param + " is fixed to '" + use->id +
                                       "' in this study"});
        }
        continue;
      }
      const int p = param_of(*study.solver, sel.param);
      if (p < 0) {
        problems.push_back({key, "unknown parameter '" + sel.param + "' (parameters: " + param_names(*study.solver) +
                                     bundle_kinds_text(study) + ")"});
        continue;
      }
      if (const BundleUse* use = study.bundle_setting(static_cast<std::size_t>(p)); use != nullptr && use->axis >= 0) {
        problems.push_back({key, sel.param + " is set by the " + use->kind + " axis; select a " + use->kind +
                                     " instead (axis values: " + axis_labels(study.axes[static_cast<std::size_t>(use->axis)]) +
                                     ")"});
        continue;
      }
      const std::string& fixed = study.fixed_labels[static_cast<std::size_t>(p)];
      if (sel.label != fixed) {
        problems.push_back({key, "'" + sel.label + "' selects nothing: " + sel.param + " is fixed to '" + fixed +
                                     "' in this study"});
      }
      continue;
    }
    const Axis& axis = study.axes[static_cast<std::size_t>(a)];
    std::uint32_t found = kFree;
    for (std::size_t v = 0; v < axis.values.size(); ++v) {
      if (axis.values[v].label == sel.label) found = static_cast<std::uint32_t>(v);
    }
    if (found == kFree) {
      problems.push_back({key, "'" + sel.label + "' is not a value of the " + sel.param + " axis (axis values: " +
                                   axis_labels(axis) + ")"});
      continue;
    }
    pinned[static_cast<std::size_t>(a)] = found;
  }
  return pinned;
}

std::uint64_t point_index(const ResolvedStudy& study, std::span<const std::uint32_t> coordinates) {
  if (coordinates.size() != study.axes.size()) throw std::invalid_argument("point_index: one coordinate per axis");
  std::uint64_t index = 0;
  for (std::size_t a = 0; a < study.axes.size(); ++a) {
    const std::size_t n = study.axes[a].values.size();
    if (coordinates[a] >= n) throw std::invalid_argument("point_index: coordinate outside the axis " + study.axes[a].param);
    index = index * n + coordinates[a];
  }
  return index;
}

}  // namespace dsx
