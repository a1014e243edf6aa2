// The solver table: every solver dsx knows, by the name a study uses in `solver:`.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/solver.hpp"

namespace dsx {

std::span<const Solver* const> all_solvers();
const Solver* find_solver(std::string_view name);  // nullptr when unknown
std::vector<std::string> solver_names();           // in registry order, for messages

}  // namespace dsx
