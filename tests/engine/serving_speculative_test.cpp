// Speculative decoding in the serving solver (draft_tokens, acceptance_rate, draft_cost_ratio, draft_model;
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

// A draft model from the catalog: its decode step, priced as the solver prices any model's at the same
// batch, context, tp and eta, sets c; its weights and KV cache take memory beside the target's.
TEST_F(ServingFeatures, ADraftModelSetsTheCostRatioAndTakesMemory) {
  // Llama 3.2 1B's shape (16 layers, d_model 2,048, 32 heads, 8 KV heads, d_ff 8,192).
  const PreparedModel draft = published::llama3(16, 2048, 32, 8192);
  for (const double batch : {1.0, 16.0}) {
    PointInputs in = point(llama70b, batch, 8);
    in.values[P::draft_tokens] = 4;
    in.values[P::acceptance_rate] = 0.8;
    in.values[P::draft_cost_ratio] = 0.05;  // ignored once the draft model is given
    const auto given = run(in);
    EXPECT_DOUBLE_EQ(given[M::draft_cost_ratio_used], 0.05);
    in.second_model = &draft;
    const auto with_draft = run(in);
    const auto draft_alone = run(point(draft, batch, 8));
    const auto target_alone = run(point(llama70b, batch, 8));
    const double c = with_draft[M::draft_cost_ratio_used];
    EXPECT_NEAR(c, draft_alone[M::decode_step_s] / target_alone[M::decode_step_s], 1e-12) << batch;
    // Never cheaper than its share of the weights a step streams.
    EXPECT_GT(c, draft.serving_shape.parameter_count / llama70b.serving_shape.parameter_count) << batch;
    EXPECT_EQ(with_draft[M::speculative_speedup] > given[M::speculative_speedup], c < 0.05) << batch;
    EXPECT_NEAR(with_draft[M::memory_bytes] - target_alone[M::memory_bytes], draft_alone[M::memory_bytes],
                1e-9 * draft_alone[M::memory_bytes]) << batch;
    EXPECT_LT(with_draft[M::max_batch], target_alone[M::max_batch]) << batch;
    if (batch == 1) {
      // A memory-bound verification: Leviathan et al.'s factor with that c.
      EXPECT_NEAR(with_draft[M::speculative_speedup], 3.3616 / (4 * c + 1), 0.02 * 3.3616 / (4 * c + 1));
    }
  }
}

TEST_F(ServingFeatures, ADraftModelTheTensorParallelismCannotSplitIsInfeasible) {
  const published::Values twenty_heads = {{"layers", 8},  {"d_model", 2560}, {"heads", 20},     {"kv_heads", 4},
                                          {"d_ff", 6912}, {"vocab", 128256}, {"seq_len", 2048}, {"gated_mlp", 1},
                                          {"norm", 1},    {"embeddings", 1}, {"rope", 1}};
  const PreparedModel draft = prepare_model(build_architecture("transformer", {twenty_heads.begin(), twenty_heads.end()}));
  PointInputs in = point(llama70b, 16, 8);
  in.values[P::draft_tokens] = 4;
  in.values[P::acceptance_rate] = 0.8;
  in.second_model = &draft;
  std::vector<double> out(ServingSolver::kMetricCount);
  EXPECT_EQ(solver.evaluate(in, out).reason, ServingSolver::draft_not_servable);
}

}  // namespace
}  // namespace dsx::serving_features
