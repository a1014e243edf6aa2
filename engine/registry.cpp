#include "engine/registry.hpp"

#include <array>

#include "engine/solvers/inference.hpp"

namespace dsx {

namespace {
const InferenceSolver kInference;

const std::array<const Solver*, 1> kSolvers = {
    &kInference,
};
}  // namespace

std::span<const Solver* const> all_solvers() { return kSolvers; }

const Solver* find_solver(std::string_view name) {
  for (const Solver* s : kSolvers) {
    if (s->name() == name) return s;
  }
  return nullptr;
}

}  // namespace dsx
