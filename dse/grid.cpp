#include "dse/grid.hpp"

#include <stdexcept>

namespace dsx {

Grid::Grid(const ResolvedStudy& study) : study_(&study) {
  const auto params = study.solver->params();
  for (std::size_t p = 0; p < params.size(); ++p) {
    if (params[p].kind == ParamKind::hardware) hardware_param_ = static_cast<int>(p);
    if (params[p].kind == ParamKind::model) model_param_ = static_cast<int>(p);
  }
  base_.values = study.fixed_values;
  for (const Axis& axis : study.axes) {
    if (axis.values.empty()) throw std::logic_error("grid axis '" + axis.param + "' is empty");
    radix_.push_back(axis.values.size());
    size_ *= axis.values.size();
  }
  if (hardware_param_ >= 0 && !study.is_axis[hardware_param_]) {
    base_.hardware = &study.catalog.hardware.at(static_cast<std::size_t>(base_.values[hardware_param_]));
  }
  if (model_param_ >= 0 && !study.is_axis[model_param_]) {
    base_.model = &study.catalog.models.at(static_cast<std::size_t>(base_.values[model_param_])).prepared;
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
    const double value = axis.values[index % radix_[a]].value;
    index /= radix_[a];
    out.values[axis.param_index] = value;
    if (static_cast<int>(axis.param_index) == hardware_param_) {
      out.hardware = &study_->catalog.hardware[static_cast<std::size_t>(value)];
    } else if (static_cast<int>(axis.param_index) == model_param_) {
      out.model = &study_->catalog.models[static_cast<std::size_t>(value)].prepared;
    }
  }
}

}  // namespace dsx
