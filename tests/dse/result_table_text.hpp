// A ResultTable's labels and details as texts, row by row, for comparing tables whose codes may
// differ (each table numbers its texts in the order it met them).
#pragma once

#include <string>
#include <vector>

#include "dse/results.hpp"

namespace dsx::testing {

inline std::vector<std::string> label_texts(const ResultTable& t) {
  std::vector<std::string> out;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    for (std::size_t a = 0; a < t.axis_names.size(); ++a) out.push_back(t.label(r, a));
  }
  return out;
}

inline std::vector<std::string> detail_texts(const ResultTable& t) {
  std::vector<std::string> out;
  for (std::size_t r = 0; r < t.rows(); ++r) out.push_back(t.detail(r));
  return out;
}

}  // namespace dsx::testing
