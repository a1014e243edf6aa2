// The grid of a study: point index <-> coordinates (mixed radix, last axis fastest) and the
// solver inputs of a point (an axis of bundles sets each of its parameters; the chip sets the
// calibrated parameters the profile scales per hardware). Building inputs allocates nothing, so the
// sweep can call it per point.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "dse/study.hpp"

namespace dsx {

class Grid {
 public:
  explicit Grid(const ResolvedStudy& study);

  std::uint64_t size() const { return size_; }
  std::size_t axis_count() const { return radix_.size(); }
  // Value index along each axis of point `index`.
  void coordinates(std::uint64_t index, std::span<std::uint32_t> out) const;
  // The point's full solver inputs (fixed values plus this point's axis values).
  void inputs(std::uint64_t index, PointInputs& out) const;

 private:
  // Sets one solver input, pointing hardware/model at the catalog entry its value indexes.
  void set(std::size_t param, double value, PointInputs& out) const;
  // Sets the calibrated parameters the profile scales per chip from the chip each one follows
  // (ParamSpec::scaled_by_second_hardware), whichever hardware was set last.
  void scale_per_chip(PointInputs& out) const;

  const ResolvedStudy* study_;
  std::vector<std::uint64_t> radix_;
  std::uint64_t size_ = 1;
  PointInputs base_;
  int hardware_param_ = -1;
  int model_param_ = -1;
  int second_model_param_ = -1;     // a second model parameter (PointInputs::second_model)
  int second_hardware_param_ = -1;  // a second hardware parameter (PointInputs::second_hardware)
};

}  // namespace dsx
