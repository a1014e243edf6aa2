// The three solver parameters a node's torus topology sets (studies/README.md, "Nodes"): chips along
// each dimension of the node's scale-up domain; 0 = no such dimension, all 0 = a switched domain
// (the default). engine/torus.hpp node_torus turns them and the chip's accelerator link into a
// torus.
#pragma once

#include <string_view>

#include "engine/solver.hpp"

namespace dsx {

constexpr ParamSpec torus_param(std::string_view name) {
  return ParamSpec{.name = name,
                   .kind = ParamKind::number,
                   .dimension = Dimension::count,
                   .description = "chips along this dimension of the node's torus (a node's topology sets it); "
                                  "0 = none; all 0 = a switched domain",
                   .has_default = true,
                   .default_value = 0,
                   .min_value = 0,
                   .max_value = 1024,
                   .integer = true};
}

}  // namespace dsx
