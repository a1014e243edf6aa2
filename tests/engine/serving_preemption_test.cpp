// Preemption of a paged KV cache (engine/serving.hpp paged_preemption; the serving solver's
// `preemption`, after Kwon et al. 2023, arXiv:2309.06180, section 4.5): how often a batch whose mean
// occupancy fits finds the cache full, how many sequences that evicts, and what recomputing or
// swapping them costs per step, checked against a hand calculation for Llama-3-8B on one H100.
#include <cmath>

#include "tests/engine/serving_features_fixture.hpp"

namespace dsx::serving_features {
namespace {

constexpr double kKvPerToken = 131072;  // Llama-3-8B: 2 x 32 layers x 8 KV heads x 128 x 2 B
constexpr double kRecompute = 1, kSwap = 2;

// By hand: 80 GiB less 2 B x 8,030,261,248 fp16 weights leave 532,827.94 tokens of cache. With
// block 16 a running sequence holds 2,048 + 128 + 7.5 = 2,183.5 tokens on average and grows by 256
// from admission to its last token. 244 sequences (max_batch) hold 532,774 on average, with a
// standard deviation of 256 x sqrt(244 / 12) = 1,154.4 tokens: z = 0.04672, P(full) = 0.48137.
// Each full step frees 244 slots in sequences of 2,055.5 tokens: 0.057141 preemptions per step,
// 0.059951 per request of 256 tokens.
constexpr double kFullProbability = 0.4813663205;
constexpr double kPreemptionsPerStep = 0.0571410276;

class ServingPreemption : public ServingFeatures {
 protected:
  PointInputs paged(double batch, double preemption) const {
    PointInputs in = point(llama8b, batch);
    in.values[P::kv_block_tokens] = 16;
    in.values[P::preemption] = preemption;
    return in;
  }
};

TEST(PagedPreemption, NothingWhenTheFullLengthFits) {
  const Preemption none = paged_preemption(10, 100, 20, 20, 90, 10 * 110);
  EXPECT_EQ(none.full_probability, 0);
  EXPECT_EQ(none.sequences_per_step, 0);
  // Mean occupancy exactly at the capacity: the cache is full half the steps.
  const Preemption half = paged_preemption(12, 100, 20, 20, 90, 1200);
  EXPECT_DOUBLE_EQ(half.full_probability, 0.5);
  EXPECT_DOUBLE_EQ(half.sequences_per_step, 0.5 * 12 * 1.0 / 90);
}

TEST_F(ServingPreemption, TheMaximumBatchFindsTheCacheFullAboutHalfTheSteps) {
  const auto out = run(paged(244, kRecompute));
  EXPECT_NEAR(out[M::kv_full_probability], kFullProbability, 1e-8);
  EXPECT_NEAR(out[M::preemptions_per_step], kPreemptionsPerStep, 1e-9);
  EXPECT_NEAR(out[M::preemptions_per_request], kPreemptionsPerStep * 256 / 244, 1e-9);
  // Recompute: each evicted sequence's 2,048-token prompt is prefilled again, as a TTFT's prefill.
  EXPECT_NEAR(out[M::preemption_s], kPreemptionsPerStep * out[M::ttft_s], 1e-9 * out[M::preemption_s]);
  EXPECT_EQ(out[M::max_batch], 244);
}

TEST_F(ServingPreemption, SwapMovesTheEvictedSequencesOverTheHostLinkBothWays) {
  const auto out = run(paged(244, kSwap));
  const double evicted_bytes = (2048 + 7.5) * kKvPerToken;
  EXPECT_NEAR(out[M::preemption_s], kPreemptionsPerStep * 2 * evicted_bytes / 64e9, 1e-9 * out[M::preemption_s]);
  // An effective swap rate below the link's (small block copies) given instead.
  PointInputs slower = paged(244, kSwap);
  slower.values[P::swap_bandwidth] = 8e9;
  const double slow_s = run(slower)[M::preemption_s];
  EXPECT_NEAR(slow_s, kPreemptionsPerStep * 2 * evicted_bytes / 8e9, 1e-9 * slow_s);
}

TEST_F(ServingPreemption, TheStepPaysItAndTheDefaultLeavesPointsAsTheyWere) {
  const auto none = run(paged(244, 0));
  const auto recompute = run(paged(244, kRecompute));
  // none reports the probability but charges nothing.
  EXPECT_NEAR(none[M::kv_full_probability], kFullProbability, 1e-8);
  EXPECT_EQ(none[M::preemption_s], 0);
  EXPECT_EQ(none[M::preemptions_per_step], 0);
  EXPECT_NEAR(recompute[M::itl_s] - none[M::itl_s], recompute[M::preemption_s], 1e-12);
  EXPECT_LT(recompute[M::tokens_per_s], none[M::tokens_per_s]);
  EXPECT_EQ(recompute[M::decode_step_s], none[M::decode_step_s]);
  // 230 sequences fit at full length (2,311.5 tokens each): no step finds the cache full.
  const auto fits = run(paged(230, kRecompute));
  EXPECT_EQ(fits[M::kv_full_probability], 0);
  EXPECT_EQ(fits[M::preemption_s], 0);
}

TEST_F(ServingPreemption, NeedsAPagedCacheAndContinuousBatching) {
  PointInputs contiguous = paged(8, kRecompute);
  contiguous.values[P::kv_block_tokens] = 0;
  EXPECT_EQ(result(contiguous).reason, ServingSolver::preemption_needs_paged_cache);
  PointInputs batched = paged(8, kSwap);
  batched.values[P::batching] = 1;
  EXPECT_EQ(result(batched).reason, ServingSolver::preemption_needs_paged_cache);
  EXPECT_EQ(result(paged(8, kSwap)).status, PointStatus::ok);
}

TEST(KvAdmission, TheWatermarkIsAShareOfTheCache) {
  EXPECT_DOUBLE_EQ(kv_admission_bytes(1000, 0.01), 990);
  EXPECT_DOUBLE_EQ(kv_admission_bytes(1000, 0), 1000);
}

// vLLM's watermark (block_manager_v1.py, 0.01 of the GPU blocks) limits admission only: by hand,
// floor(0.99 x 532,827.94 / 2,183.5) = floor(241.58) = 241 sequences are admitted, and they grow into
// the whole cache: mean 241 x 2,183.5 = 526,223.5 tokens, sd 256 x sqrt(241 / 12) = 1,147.25,
// z = 5.7568, P(full) = 4.2872e-9 (against 0.48137 at 244 without the watermark).
TEST_F(ServingPreemption, TheWatermarkAdmitsFewerSequencesThatGrowIntoTheWholeCache) {
  PointInputs largest = paged(0, kRecompute);
  largest.values[P::kv_watermark] = 0.01;
  const auto out = run(largest);
  EXPECT_EQ(out[M::max_batch], 241);
  EXPECT_EQ(out[M::batch_used], 241);
  EXPECT_NEAR(out[M::kv_full_probability], 4.287235e-9, 1e-14);
  // At 2,048 output tokens: floor(0.99 x 532,827.94 / 3,079.5) = 171 (173 without), growing by 2,048:
  // sd 2,048 x sqrt(171 / 12) = 7,731.0, z = 0.80629, P(full) = 0.210038; a full step frees 171 slots
  // in sequences of 2,055.5 tokens: 0.017473 preemptions per step.
  PointInputs longer = largest;
  longer.values[P::output_tokens] = 2048;
  const auto long_out = run(longer);
  EXPECT_EQ(long_out[M::max_batch], 171);
  EXPECT_NEAR(long_out[M::kv_full_probability], 0.2100383887, 1e-8);
  EXPECT_NEAR(long_out[M::preemptions_per_step], 0.0174733955, 1e-9);
  // A batch the watermark would not admit, though its mean occupancy fits the cache.
  PointInputs over = paged(244, kRecompute);
  over.values[P::kv_watermark] = 0.01;
  EXPECT_EQ(result(over).reason, ServingSolver::exceeds_admission);
  PointInputs contiguous = paged(8, 0);
  contiguous.values[P::kv_block_tokens] = 0;
  contiguous.values[P::kv_watermark] = 0.01;
  EXPECT_EQ(result(contiguous).reason, ServingSolver::watermark_needs_paged_cache);
}

// vLLM's swap_space (GiB of host memory per GPU, 4 by default) must hold what a full step swaps out:
// at batch 244 one sequence of 2,055.5 tokens x 131,072 B = 269,418,496 B (0.2509 GiB).
TEST_F(ServingPreemption, SwapNeedsHostMemoryForTheSequencesAFullStepEvicts) {
  PointInputs fits = paged(244, kSwap);
  fits.values[P::swap_space] = 4 * 1024.0 * 1024 * 1024;
  EXPECT_EQ(result(fits).status, PointStatus::ok);
  PointInputs tight = paged(244, kSwap);
  tight.values[P::swap_space] = 269418496;
  EXPECT_EQ(result(tight).status, PointStatus::ok);
  tight.values[P::swap_space] = 0.25 * 1024 * 1024 * 1024;
  EXPECT_EQ(result(tight).reason, ServingSolver::exceeds_swap_space);
  // Recompute keeps nothing on the host.
  tight.values[P::preemption] = kRecompute;
  EXPECT_EQ(result(tight).status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(paged_preemption(12, 100, 20, 20, 90, 1200).evicted_bytes_per_full_step, 90);
  EXPECT_DOUBLE_EQ(paged_preemption(12, 100, 20, 2, 90, 1200).evicted_bytes_per_full_step, 180);
}

}  // namespace
}  // namespace dsx::serving_features
