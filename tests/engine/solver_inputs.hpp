// Engine tests: a point's inputs start with every parameter at the solver's declared default, as a
// study's would, before a test sets the ones it examines.
#pragma once

#include "engine/solver.hpp"

namespace dsx {

inline void set_defaults(const Solver& solver, PointInputs& in) {
  const auto params = solver.params();
  for (std::size_t i = 0; i < params.size(); ++i) in.values[i] = params[i].default_value;
}

}  // namespace dsx
