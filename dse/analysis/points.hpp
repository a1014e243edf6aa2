// Locating the design points of a study for the analyses (break-even, sensitivity): parameters,
// metrics and axes by name, selectors to axis positions, axis positions to grid point indices.
//
// Problems with an analysis request are collected, not thrown, each naming the request key it
// concerns, so that the study loader can report every one of them at its line and column and
// `dsx validate` can check analysis blocks without evaluating anything.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dse/study.hpp"
#include "engine/solver.hpp"

namespace dsx {

// A problem with an analysis request. `field` is the request key it concerns ("along", "metric",
// "where.batch", "inputs[2]"); `message` says what is wrong and, where there is one, what is valid.
struct RequestProblem {
  std::string field;
  std::string message;
};

// Throws std::invalid_argument with "field: message" of every problem (one per line); returns
// when there is none.
void throw_if_problems(std::string_view analysis, const std::vector<RequestProblem>& problems);

// The number an analysis reads from one evaluated (feasible) point, given its inputs and the
// solver's metrics: a study's derived metric, or NaN where a constraint is broken
// (dse/analysis/derived.hpp study_metric_value). An empty function means the solver metric itself.
using MetricValue = std::function<double(const PointInputs& in, std::span<const double> solver_metrics)>;

int param_of(const Solver& solver, std::string_view name);   // index into params(), -1 when absent
int metric_of(const Solver& solver, std::string_view name);  // index into metrics(), -1 when absent
int axis_of(const ResolvedStudy& study, std::string_view param);  // index into study.axes, -1 when absent

// "a, b, c": names for "valid choices" messages.
std::string param_names(const Solver& solver);
std::string metric_names(const Solver& solver);
std::string axis_names(const ResolvedStudy& study);

// Axis positions of a (partial) design point, one per study axis; kFree where not pinned.
inline constexpr std::uint32_t kFree = std::numeric_limits<std::uint32_t>::max();

// Pins axes by selectors. A selector on an axis (a bundle axis included: region: quebec) must name
// one of its labels; one on a fixed parameter or a fixed bundle must equal its fixed label or id (it
// selects nothing otherwise); a parameter that a bundle axis sets is selected through the bundle,
// not by its own value; an axis with a single value is pinned to it. Problems are appended with field "<field>.<param>".
std::vector<std::uint32_t> pin_axes(const ResolvedStudy& study, std::span<const Selector> where,
                                    std::string_view field, std::vector<RequestProblem>& problems);

// Grid point index of full axis coordinates (mixed radix, last axis fastest, as Grid numbers them).
std::uint64_t point_index(const ResolvedStudy& study, std::span<const std::uint32_t> coordinates);

}  // namespace dsx
