// Every registered solver's tables: within kMaxParams, described, defaults inside their bounds,
// names unique, and no parameter sharing a name with a metric (results.csv carries both).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "engine/registry.hpp"

namespace dsx {
namespace {

TEST(SolverDeclarations, EverySolversTablesAreConsistent) {
  for (const Solver* solver : all_solvers()) {
    SCOPED_TRACE(std::string(solver->name()));
    EXPECT_FALSE(solver->description().empty());
    EXPECT_LE(solver->params().size(), kMaxParams);
    std::set<std::string_view> names;
    for (const ParamSpec& p : solver->params()) {
      EXPECT_FALSE(p.description.empty()) << p.name;
      EXPECT_TRUE(names.insert(p.name).second) << "parameter " << p.name << " declared twice";
      if (p.kind == ParamKind::number && p.has_default) {
        EXPECT_GE(p.default_value, p.min_value) << p.name;
        EXPECT_LE(p.default_value, p.max_value) << p.name;
      }
    }
    for (const MetricSpec& m : solver->metrics()) {
      EXPECT_FALSE(m.description.empty()) << m.name;
      EXPECT_TRUE(names.insert(m.name).second) << "metric " << m.name << " repeats a parameter or metric name";
    }
  }
}

}  // namespace
}  // namespace dsx
