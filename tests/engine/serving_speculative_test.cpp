// Speculative decoding in the serving solver (draft_tokens, acceptance_rate, draft_cost_ratio;
// engine/serving.hpp speculative_tokens_per_step and verify_step_time, engine/solvers/serving.hpp),
// against Leviathan et al. 2023, "Fast Inference from Transformers via Speculative Decoding", ICML.
#include <cmath>

#include "tests/engine/serving_features_fixture.hpp"

namespace dsx::serving_features {
namespace {

TEST(SpeculativeTokens, ExpectedTokensPerVerification) {
  // (1 - 0.8^5) / (1 - 0.8) = (1 - 0.32768) / 0.2 = 3.3616
  EXPECT_NEAR(speculative_tokens_per_step(0.8, 4), 3.3616, 1e-12);
  EXPECT_NEAR(speculative_tokens_per_step(0.6, 2), 1.96, 1e-12);  // 1 + 0.6 + 0.36
  EXPECT_EQ(speculative_tokens_per_step(0.0, 4), 1.0);            // every draft token rejected
  EXPECT_EQ(speculative_tokens_per_step(1.0, 4), 5.0);            // every draft token accepted
}

TEST_F(ServingFeatures, VerificationReadsTheWeightsOnce) {
  const ServingShape& s = llama70b.serving_shape;
  const ServingDevice d{.peak_flops_per_s = 989e12, .memory_bandwidth_bytes_per_s = 3.35e12,
                        .link_bytes_per_s = 450e9, .link_latency_s = 0.5e-6, .tp = 8};
  const PhaseTime one = decode_step_time(s, d, 1, 2176, 0.03);
  const PhaseTime five = verify_step_time(s, d, 1, 2176, 5, 0.03);
  EXPECT_NEAR(five.compute_s, 5 * one.compute_s, 1e-15);
  EXPECT_NEAR(five.memory_s - one.memory_s, 4 * s.linear_activation_elements_per_token * 2 / 8 / 3.35e12, 1e-15);
}

// While the verification pass is memory-bound, the speedup is the paper's walltime improvement
// factor (1 - alpha^(gamma+1)) / ((1 - alpha)(gamma c + 1)): 3.3616 / 1.2 = 2.80 at alpha 0.8, gamma 4,
// c 0.05. Llama-3-70B on 8 H100s at batch 1 streams 17.6 GB of weights per GPU per step.
TEST_F(ServingFeatures, MemoryBoundSpeedupIsLeviathansFactor) {
  PointInputs in = point(llama70b, 1, 8);
  in.values[P::draft_tokens] = 4;
  in.values[P::acceptance_rate] = 0.8;
  in.values[P::draft_cost_ratio] = 0.05;
  const auto out = run(in);
  EXPECT_NEAR(out[M::speculative_tokens_per_step], 3.3616, 1e-12);
  EXPECT_NEAR(out[M::speculative_speedup], 3.3616 / 1.2, 0.02 * 3.3616 / 1.2);
  EXPECT_LT(out[M::speculative_speedup], 3.3616 / 1.2);  // the 5-token pass moves a little more
}

TEST_F(ServingFeatures, SpeculationReplacesTheDecodeStepInItlAndThroughput) {
  PointInputs in = point(llama8b, 4);
  const auto plain = run(in);
  in.values[P::draft_tokens] = 4;
  in.values[P::acceptance_rate] = 0.8;
  in.values[P::draft_cost_ratio] = 0.1;
  const auto out = run(in);
  const double t_token = out[M::decode_step_s] / out[M::speculative_speedup];
  EXPECT_NEAR(out[M::itl_s], t_token + out[M::prefill_s] / 256, 1e-15);
  EXPECT_NEAR(out[M::continuous_tokens_per_s], 4 * 256 / (256 * t_token + out[M::prefill_s]), 1e-9);
  EXPECT_LT(out[M::itl_s], plain[M::itl_s]);
  EXPECT_GT(out[M::tokens_per_s], plain[M::tokens_per_s]);
  EXPECT_EQ(out[M::ttft_s], plain[M::ttft_s]);
}

TEST_F(ServingFeatures, NoAcceptanceOnlyCosts) {
  PointInputs in = point(llama8b, 4);
  in.values[P::draft_tokens] = 4;
  in.values[P::acceptance_rate] = 0;
  in.values[P::draft_cost_ratio] = 0.1;
  EXPECT_LT(run(in)[M::speculative_speedup], 1);
}

TEST_F(ServingFeatures, SpeculationLosesAtLargeBatch) {
  // At a large batch the target pass is compute-bound: gamma + 1 tokens per sequence cost about
  // gamma + 1 times one step, so accepted tokens no longer come for free.
  PointInputs in = point(llama8b, 256);
  in.values[P::prompt_tokens] = 512;
  in.values[P::draft_tokens] = 4;
  in.values[P::acceptance_rate] = 0.8;
  in.values[P::draft_cost_ratio] = 0.05;
  const auto large = run(in);
  in.values[P::batch] = 1;
  const auto small = run(in);
  EXPECT_LT(large[M::speculative_speedup], small[M::speculative_speedup]);
}

TEST_F(ServingFeatures, DraftTokensZeroIsPlainDecoding) {
  PointInputs in = point(llama8b, 4);
  const auto plain = run(in);
  in.values[P::acceptance_rate] = 0.8;
  in.values[P::draft_cost_ratio] = 0.1;
  const auto out = run(in);
  EXPECT_EQ(out[M::itl_s], plain[M::itl_s]);
  EXPECT_EQ(out[M::speculative_tokens_per_step], 1);
  EXPECT_EQ(out[M::speculative_speedup], 1);
}

}  // namespace
}  // namespace dsx::serving_features
