// A study loaded from its text for a test: the resolved study (empty when the text has errors) and
// the diagnostics as dsx prints them; and every row of its grid, as the sweep writes them.
#pragma once

#include <optional>
#include <string>

#include "dse/diagnostics.hpp"
#include "dse/grid.hpp"
#include "dse/study.hpp"
#include "dse/sweep.hpp"

namespace dsx {

struct Loaded {
  std::optional<ResolvedStudy> study;
  std::string diagnostics;
};

inline Loaded load_study_for_test(const std::string& text, const std::string& catalog) {
  Diagnostics d;
  Loaded out;
  out.study = load_study_text("t.yaml", text, catalog, d);
  out.diagnostics = d.format();
  return out;
}

inline ResultTable sweep_whole_grid(const ResolvedStudy& study) {
  const Grid grid(study);
  SweepBlock block;
  evaluate_block(grid, *study.solver, 0, grid.size(), 1, block);
  ResultTable table = make_result_table(study);
  append_block(grid, block, table);
  return table;
}

}  // namespace dsx
