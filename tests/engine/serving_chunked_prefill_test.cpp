// Chunked prefill in the serving solver (prefill_chunk_tokens; engine/serving.hpp hybrid_step_time,
// engine/solvers/serving.hpp): the chunk size trades time to first token for inter-token latency.
#include <cmath>

#include "tests/engine/serving_features_fixture.hpp"

namespace dsx::serving_features {
namespace {

ServingDevice h100_fp16() {
  return {.peak_flops_per_s = 989e12, .memory_bandwidth_bytes_per_s = 3.35e12, .link_bytes_per_s = 450e9,
          .link_latency_s = 0.5e-6};
}

TEST_F(ServingFeatures, AnEmptyChunkIsADecodeStep) {
  const ServingShape& s = llama8b.serving_shape;
  const PhaseTime decode = decode_step_time(s, h100_fp16(), 16, 2176, 0.25);
  const PhaseTime hybrid = hybrid_step_time(s, h100_fp16(), 16, 2176, 0, 2048, 0, 0.25, 0.40);
  EXPECT_DOUBLE_EQ(hybrid.total_s(), decode.total_s());
}

TEST_F(ServingFeatures, HybridStepAddsTheChunksFlopsAndBytes) {
  const ServingShape& s = llama8b.serving_shape;
  const ServingDevice d = h100_fp16();
  const PhaseTime decode = decode_step_time(s, d, 16, 2176, 0.25);
  const PhaseTime hybrid = hybrid_step_time(s, d, 16, 2176, 512, 2048, 1280, 0.25, 0.40);
  EXPECT_NEAR(hybrid.compute_s - decode.compute_s, prefill_flops_after_prefix(s, 512, 2048) / (989e12 * 0.40),
              1e-15);
  // The chunk adds its activations and the KV it reads and writes; the weights stream once.
  const double chunk_bytes = 512 * s.linear_activation_elements_per_token * 2 + 1280 * 131072.0;
  EXPECT_NEAR(hybrid.memory_s - decode.memory_s, chunk_bytes / 3.35e12, 1e-15);
}

TEST_F(ServingFeatures, ChunksPerPromptAreTheCeiling) {
  PointInputs in = point(llama8b, 16);
  in.values[P::prefill_chunk_tokens] = 512;
  EXPECT_EQ(run(in)[M::prefill_chunks], 4);
  in.values[P::prefill_chunk_tokens] = 600;
  EXPECT_EQ(run(in)[M::prefill_chunks], 4);
  in.values[P::prefill_chunk_tokens] = 4096;
  EXPECT_EQ(run(in)[M::prefill_chunks], 1);
  in.values[P::prefill_chunk_tokens] = 0;
  EXPECT_EQ(run(in)[M::prefill_chunks], 1);
}

TEST_F(ServingFeatures, TtftIsChunksTimesTheHybridIteration) {
  PointInputs in = point(llama8b, 16);
  in.values[P::prefill_chunk_tokens] = 512;
  const auto out = run(in);
  EXPECT_DOUBLE_EQ(out[M::ttft_s], 4 * out[M::itl_max_s]);
}

TEST_F(ServingFeatures, ChunkSizeTradesTtftForTheLongestGap) {
  PointInputs in = point(llama8b, 16);
  in.values[P::prefill_chunk_tokens] = 0;
  const auto unchunked = run(in);
  // Unchunked, a decode step waits for a whole prompt's prefill iteration.
  EXPECT_DOUBLE_EQ(unchunked[M::itl_max_s], unchunked[M::decode_step_s] + unchunked[M::ttft_s]);
  double previous_ttft = 1e300;
  double previous_gap = 0;
  for (const double chunk : {128.0, 256.0, 512.0, 1024.0, 2048.0}) {
    in.values[P::prefill_chunk_tokens] = chunk;
    const auto out = run(in);
    EXPECT_LT(out[M::ttft_s], previous_ttft) << chunk;
    EXPECT_GT(out[M::itl_max_s], previous_gap) << chunk;
    EXPECT_LT(out[M::itl_max_s], unchunked[M::itl_max_s]) << chunk;
    EXPECT_GE(out[M::ttft_s], unchunked[M::ttft_s]) << chunk;
    previous_ttft = out[M::ttft_s];
    previous_gap = out[M::itl_max_s];
  }
}

TEST_F(ServingFeatures, UnchunkedGapWaitsForThePromptsArrivingPerIteration) {
  // 512 sequences of 256 output tokens: 2 prompts arrive per decode iteration and prefill together.
  PointInputs in = point(llama8b, 512);
  in.values[P::prompt_tokens] = 128;
  const auto out = run(in);
  const ServingDevice d{.peak_flops_per_s = 989e12, .memory_bandwidth_bytes_per_s = 3.35e12,
                        .link_bytes_per_s = 450e9, .link_latency_s = 0.5e-6};
  const double two_prompts = prefill_time(llama8b.serving_shape, d, 128, 2, 0.40).total_s();
  EXPECT_DOUBLE_EQ(out[M::itl_max_s], out[M::decode_step_s] + two_prompts);
  EXPECT_GE(out[M::itl_max_s], out[M::itl_s] * (1 - 1e-12));
}

TEST_F(ServingFeatures, ChunkedPrefillNeedsContinuousBatching) {
  PointInputs in = point(llama8b, 16);
  in.values[P::prefill_chunk_tokens] = 512;
  in.values[P::batching] = 1;
  const PointResult r = result(in);
  EXPECT_EQ(r.status, PointStatus::infeasible);
  EXPECT_EQ(r.reason, ServingSolver::needs_continuous_batching);
}

TEST_F(ServingFeatures, ChunksMustKeepTheBatchDecoding) {
  // 64 sequences x 4 chunks = 256 chunk iterations per 256 output tokens: just sustainable; 65 is not.
  PointInputs in = point(llama8b, 64);
  in.values[P::prefill_chunk_tokens] = 512;
  EXPECT_EQ(result(in).status, PointStatus::ok);
  in.values[P::batch] = 65;
  const PointResult r = result(in);
  EXPECT_EQ(r.status, PointStatus::infeasible);
  EXPECT_EQ(r.reason, ServingSolver::chunks_starve_batch);
}

TEST_F(ServingFeatures, ChunkingComposesWithPrefixCaching) {
  PointInputs in = point(llama8b, 16);
  in.values[P::prefill_chunk_tokens] = 512;
  in.values[P::prefix_hit_rate] = 0.5;  // 1,024 uncached tokens: 2 chunks
  EXPECT_EQ(run(in)[M::prefill_chunks], 2);
}

}  // namespace
}  // namespace dsx::serving_features
