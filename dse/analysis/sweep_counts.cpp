#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <numeric>
#include <stdexcept>

#include "dse/analysis/blocks.hpp"
#include "dse/analysis/derived.hpp"
#include "dse/analysis/retention.hpp"

namespace dsx {

std::uint64_t SweepCounts::excluded_total() const {
  return std::accumulate(excluded.begin(), excluded.end(), std::uint64_t{0});
}

void SweepCounts::append(const SweepCounts& later, std::uint64_t later_first) {
  if (later_first != points_done) {
    throw std::invalid_argument(fmt::format("counts up to point {} cannot take counts from point {}", points_done, later_first));
  }
  const auto add = [](std::vector<std::uint64_t>& to, const std::vector<std::uint64_t>& from) {
    if (to.size() != from.size()) throw std::invalid_argument("the sweep counts to add have another shape");
    for (std::size_t i = 0; i < to.size(); ++i) to[i] += from[i];
  };
  if (formulas_applied != later.formulas_applied || assertions.size() != later.assertions.size()) {
    throw std::invalid_argument("the sweep counts to add have another shape");
  }
  points_done = later.points_done;
  evaluated += later.evaluated;
  feasible += later.feasible;
  infeasible += later.infeasible;
  errors += later.errors;
  add(excluded, later.excluded);
  add(infeasible_by_solver_reason, later.infeasible_by_solver_reason);
  add(constraint_violations, later.constraint_violations);
  add(filtered_out, later.filtered_out);
  for (std::size_t i = 0; i < assertions.size(); ++i) {
    AssertionCount& a = assertions[i];
    const AssertionCount& b = later.assertions[i];
    a.checked += b.checked;
    a.holding += b.holding;
    if (!a.has_example && b.has_example) {
      a.has_example = true;
      a.example_point = b.example_point;
    }
  }
  for (const std::uint64_t p : later.error_points) {
    if (error_points.size() < kMaxKeptErrorRows) error_points.push_back(p);
  }
}

std::map<std::string, std::uint64_t> SweepCounts::infeasible_by_reason(const ResolvedStudy& study) const {
  std::map<std::string, std::uint64_t> out;
  const auto reasons = study.solver->reasons();
  for (std::size_t r = 0; r < infeasible_by_solver_reason.size() && r < reasons.size(); ++r) {
    if (infeasible_by_solver_reason[r] > 0) out[std::string(reasons[r])] += infeasible_by_solver_reason[r];
  }
  const StudyAnalyses& a = analyses_of(study);
  for (std::size_t c = 0; c < constraint_violations.size() && c < a.constraints.size(); ++c) {
    if (constraint_violations[c] > 0) out[constraint_reason(a.constraints[c])] += constraint_violations[c];
  }
  return out;
}

std::string SweepCounts::to_json() const {
  nlohmann::ordered_json j;
  j["points_done"] = points_done;
  j["evaluated"] = evaluated;
  j["feasible"] = feasible;
  j["infeasible"] = infeasible;
  j["errors"] = errors;
  j["excluded"] = excluded;
  j["infeasible_by_solver_reason"] = infeasible_by_solver_reason;
  j["formulas_applied"] = formulas_applied;
  j["constraint_violations"] = constraint_violations;
  j["filtered_out"] = filtered_out;
  j["error_points"] = error_points;
  j["assertions"] = nlohmann::ordered_json::array();
  for (const AssertionCount& a : assertions) {
    nlohmann::ordered_json x = {{"checked", a.checked}, {"holding", a.holding}};
    x["example_point"] = a.has_example ? nlohmann::ordered_json(a.example_point) : nlohmann::ordered_json();
    j["assertions"].push_back(x);
  }
  return j.dump();
}

SweepCounts SweepCounts::from_json(const std::string& text, const ResolvedStudy& study) {
  SweepCounts c;
  try {
    const auto j = nlohmann::json::parse(text);
    c.points_done = j.at("points_done").get<std::uint64_t>();
    c.evaluated = j.at("evaluated").get<std::uint64_t>();
    c.feasible = j.at("feasible").get<std::uint64_t>();
    c.infeasible = j.at("infeasible").get<std::uint64_t>();
    c.errors = j.at("errors").get<std::uint64_t>();
    c.excluded = j.at("excluded").get<std::vector<std::uint64_t>>();
    c.infeasible_by_solver_reason = j.at("infeasible_by_solver_reason").get<std::vector<std::uint64_t>>();
    c.formulas_applied = j.at("formulas_applied").get<bool>();
    c.constraint_violations = j.at("constraint_violations").get<std::vector<std::uint64_t>>();
    c.filtered_out = j.at("filtered_out").get<std::vector<std::uint64_t>>();
    c.error_points = j.at("error_points").get<std::vector<std::uint64_t>>();
    for (const auto& a : j.at("assertions")) {
      AssertionCount x;
      x.checked = a.at("checked").get<std::uint64_t>();
      x.holding = a.at("holding").get<std::uint64_t>();
      if (!a.at("example_point").is_null()) {
        x.has_example = true;
        x.example_point = a.at("example_point").get<std::uint64_t>();
      }
      c.assertions.push_back(x);
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("the stored sweep counts cannot be read: ") + e.what());
  }
  const StudyAnalyses& a = analyses_of(study);
  const bool fits = c.excluded.size() == a.grid_constraints.size() &&
                    c.infeasible_by_solver_reason.size() == study.solver->reasons().size() &&
                    (!c.formulas_applied || (c.constraint_violations.size() == a.constraints.size() &&
                                             c.filtered_out.size() == a.filters.size() &&
                                             c.assertions.size() == a.assertions.size()));
  if (!fits) throw std::runtime_error("the stored sweep counts were made for another study");
  return c;
}

}  // namespace dsx
