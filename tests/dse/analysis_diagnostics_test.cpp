// Problems of a study's analysis blocks are each reported once, at their node: a sensitivity input
// whose hardware-field range reaches 0 gives one error, whichever analyses the block asks for.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dse/diagnostics.hpp"
#include "dse/study.hpp"

namespace dsx {
namespace {

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
  return n;
}

std::string study_with(const std::string& analyses, const std::string& input) {
  return R"(study: scale_factor
title: t
question: q
solver: inference
axes:
  hardware: [a100_80gb_sxm, h100_sxm]
  batch: [1, 8, 64]
fixed:
  model: resnet50
  precision: fp16
  execution: compiled
  eta: 0.4
  launch_overhead: 10 us
sensitivity:
  - name: drivers
    metric: latency_s
)" + analyses + "    inputs:\n      - " + input + "\n";
}

TEST(AnalysisDiagnostics, AHardwareFieldRangeReachingZeroIsReportedOnce) {
  const std::string message = "sensitivity[0].inputs[0].range: a hardware field's range is a scale factor and must stay above 0";
  const std::vector<std::string> analyses = {
      "    base: {hardware: h100_sxm, batch: 8}\n",
      "    base: {hardware: h100_sxm, batch: 8}\n    morris: {trajectories: 4}\n    sobol: {samples: 64}\n",
      "    base: {batch: 8}\n    decide: hardware\n",
  };
  const std::vector<std::string> inputs = {
      "{name: h100_sxm.price, range: [0, 2]}",
      "{name: price, range: [-1, 2]}",
      "{name: memory_bandwidth, range: [0 %, 150 %]}",
  };
  for (const std::string& a : analyses) {
    for (const std::string& in : inputs) {
      Diagnostics d;
      const auto study = load_study_text("s.yaml", study_with(a, in), DSX_SOURCE_DIR "/studies/catalog", d);
      EXPECT_FALSE(study.has_value());
      const std::string text = d.format();
      EXPECT_EQ(d.errors().size(), 1U) << text;
      EXPECT_EQ(count_of(text, message), 1U) << text;
      EXPECT_EQ(count_of(text, ": error: "), 1U) << text;
    }
  }
}

}  // namespace
}  // namespace dsx
