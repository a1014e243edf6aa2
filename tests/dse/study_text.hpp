// A study loaded from its text for a test: the resolved study (empty when the text has errors) and
// the diagnostics as dsx prints them.
#pragma once

#include <optional>
#include <string>

#include "dse/diagnostics.hpp"
#include "dse/study.hpp"

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

}  // namespace dsx
