#include "dse/grid.hpp"

#include <stdexcept>

namespace dsx {

Grid::Grid(const ResolvedStudy& study) : study_(&study) {
  const auto params = study.solver->params();
  for (std::size_t p = 0; p < params.size(); ++p) {
    if (params[p].kind == ParamKind::hardware) (hardware_param_ < 0 ? hardware_param_ : second_hardware_param_) = static_cast<int>(p);
    if (params[p].kind == ParamKind::model) (model_param_ < 0 ? model_param_ : second_model_param_) = static_cast<int>(p);
  }
  base_.values = study.fixed_values;
  for (const Axis& axis : study.axes) {
    if (axis.values.empty()) throw std::logic_error("grid axis '" + axis.param + "' is empty");
    radix_.push_back(axis.values.size());
    size_ *= axis.values.size();
  }
  // A hardware or model parameter that a bundle axis sets is pointed at per point.
  const auto fixed = [&](int p) {
    if (p < 0 || study.is_axis[p]) return false;
    const BundleUse* use = study.bundle_setting(static_cast<std::size_t>(p));
    return use == nullptr || use->axis < 0;
  };
  if (fixed(hardware_param_)) {
    set(static_cast<std::size_t>(hardware_param_), base_.values[hardware_param_], base_);
  }
  if (fixed(model_param_)) {
    base_.model = &study.catalog.models.at(static_cast<std::size_t>(base_.values[model_param_])).prepared;
  }
  if (fixed(second_model_param_)) set(static_cast<std::size_t>(second_model_param_), base_.values[second_model_param_], base_);
  if (fixed(second_hardware_param_)) {
    set(static_cast<std::size_t>(second_hardware_param_), base_.values[second_hardware_param_], base_);
  }
}

void Grid::coordinates(std::uint64_t index, std::span<std::uint32_t> out) const {
  for (std::size_t a = radix_.size(); a-- > 0;) {
    out[a] = static_cast<std::uint32_t>(index % radix_[a]);
    index /= radix_[a];
  }
}

void Grid::inputs(std::uint64_t index, PointInputs& out) const {
  out = base_;
  for (std::size_t a = radix_.size(); a-- > 0;) {
    const Axis& axis = study_->axes[a];
    const std::size_t v = index % radix_[a];
    index /= radix_[a];
    if (axis.is_bundle()) {
      const std::size_t n = axis.sets.size();
      for (std::size_t i = 0; i < n; ++i) set(axis.sets[i], axis.set_values[v * n + i], out);
      continue;
    }
    set(axis.param_index, axis.values[v].value, out);
  }
}

void Grid::set(std::size_t param, double value, PointInputs& out) const {
  out.values[param] = value;
  if (static_cast<int>(param) == hardware_param_) {
    const auto chip = static_cast<std::size_t>(value);
    out.hardware = &study_->catalog.hardware[chip];
    scale_per_chip(out);
  } else if (static_cast<int>(param) == second_hardware_param_) {
    out.second_hardware = value < 0 ? nullptr : &study_->catalog.hardware[static_cast<std::size_t>(value)];
    scale_per_chip(out);
  } else if (static_cast<int>(param) == model_param_) {
    out.model = &study_->catalog.models[static_cast<std::size_t>(value)].prepared;
  } else if (static_cast<int>(param) == second_model_param_) {
    out.second_model = value < 0 ? nullptr : &study_->catalog.models[static_cast<std::size_t>(value)].prepared;
  }
}

void Grid::scale_per_chip(PointInputs& out) const {
  const auto params = study_->solver->params();
  for (const ResolvedStudy::HardwareScaled& s : study_->hardware_scaled) {
    const HardwareSpec* chip =
        params[s.param].scaled_by_second_hardware && out.second_hardware != nullptr ? out.second_hardware : out.hardware;
    if (chip == nullptr) continue;  // the first hardware is set later, on this same point
    out.values[s.param] = s.value_per_hardware[static_cast<std::size_t>(chip - study_->catalog.hardware.data())];
  }
}

}  // namespace dsx
