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

// Llama 3 (Grattafiori et al. 2024, "The Llama 3 Herd of Models", Table 3): 8 KV heads, vocabulary 128,256.
inline PreparedModel llama(double layers, double d_model, double heads, double d_ff) {
  const std::map<std::string, double> given = {
      {"layers", layers}, {"d_model", d_model}, {"heads", heads}, {"kv_heads", 8},     {"d_ff", d_ff},
      {"vocab", 128256},  {"seq_len", 2048},    {"gated_mlp", 1}, {"norm", 1},         {"embeddings", 1},
      {"rope", 1}};
  return prepare_model(build_architecture("transformer", {given.begin(), given.end()}));
}

class ServingFeatures : public ::testing::Test {
 protected:
  const ServingSolver solver;
  const HardwareSpec hw = published::h100_sxm();
  const PreparedModel llama8b = llama(32, 4096, 32, 14336);
  const PreparedModel llama70b = llama(80, 8192, 64, 28672);

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
