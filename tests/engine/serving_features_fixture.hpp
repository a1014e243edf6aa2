// Shared by the tests of the serving solver's features (paged KV, prefix caching, chunked prefill,
// speculative decoding, disaggregation): Llama-3-8B and -70B shapes on an H100 SXM, defaults
// everywhere else.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "engine/fusion.hpp"
#include "engine/model_builders.hpp"
#include "engine/serving.hpp"
#include "engine/solvers/serving.hpp"
#include "tests/engine/published_specs.hpp"

namespace dsx::serving_features {

using P = ServingSolver::Param;
using M = ServingSolver::Metric;

class ServingFeatures : public ::testing::Test {
 protected:
  const ServingSolver solver;
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel llama8b = published::llama3(32, 4096, 32, 14336);
  const PreparedModel llama70b = published::llama3(80, 8192, 64, 28672);

  PointInputs point(const PreparedModel& model, double batch, double tp = 1) const {
    PointInputs in;
    in.hardware = &hw;
    in.model = &model;
    for (std::size_t i = 0; i < solver.params().size(); ++i) in.values[i] = solver.params()[i].default_value;
    in.values[P::precision] = static_cast<double>(index_of(Precision::fp16));
    in.values[P::batch] = batch;
    in.values[P::tp] = tp;
    return in;
  }
  std::vector<double> run(const PointInputs& in, PointStatus expected = PointStatus::ok) const {
    std::vector<double> out(solver.metrics().size());
    EXPECT_EQ(solver.evaluate(in, out).status, expected);
    return out;
  }
  PointResult result(const PointInputs& in) const {
    std::vector<double> out(solver.metrics().size());
    return solver.evaluate(in, out);
  }
};

}  // namespace dsx::serving_features
