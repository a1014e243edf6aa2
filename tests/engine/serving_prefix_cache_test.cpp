// Prefix caching in the serving solver (prefix_hit_rate; engine/serving.hpp prefill_after_prefix_time,
// engine/solvers/serving.hpp): the cached tokens skip prefill, and under paging their blocks count once.
#include <cmath>

#include "tests/engine/serving_features_fixture.hpp"

namespace dsx::serving_features {
namespace {

constexpr double kKvPerToken = 131072;  // Llama-3-8B at fp16

TEST_F(ServingFeatures, PrefixPrefillFlopsAreTheUncachedQueriesAgainstAllKeys) {
  const ServingShape& s = llama8b.serving_shape;
  // Half of a 2,048-token prompt cached: 1,024 queries x 2,048 keys instead of 2,048 x 2,048.
  const double full = prefill_flops(s, 2048);
  const double half = prefill_flops_after_prefix(s, 1024, 2048);
  EXPECT_NEAR(half, full - s.linear_flops_per_token * 1024 - s.attention_flops_per_query_key * 2048 * 1024,
              full * 1e-12);
  EXPECT_DOUBLE_EQ(prefill_flops_after_prefix(s, 2048, 2048), full);
}

TEST_F(ServingFeatures, HitRateShrinksTtftAndPrefillWork) {
  PointInputs in = point(llama8b, 16);
  double previous_ttft = 1e300;
  double previous_itl = 1e300;
  for (const double h : {0.0, 0.25, 0.5, 0.9, 1.0}) {
    in.values[P::prefix_hit_rate] = h;
    const auto out = run(in);
    EXPECT_LT(out[M::ttft_s], previous_ttft) << h;
    EXPECT_LT(out[M::itl_s], previous_itl) << h;
    EXPECT_GT(out[M::ttft_s], 0) << h;
    previous_ttft = out[M::ttft_s];
    previous_itl = out[M::itl_s];
  }
}

TEST_F(ServingFeatures, FullHitStillRunsTheLastPromptToken) {
  PointInputs in = point(llama8b, 1);
  in.values[P::prefix_hit_rate] = 1;
  const auto out = run(in);
  const ServingDevice dev{.peak_flops_per_s = 989e12, .memory_bandwidth_bytes_per_s = 3.35e12,
                          .link_bytes_per_s = 450e9, .link_latency_s = 0.5e-6};
  const PhaseTime one = prefill_after_prefix_time(llama8b.serving_shape, dev, 1, 2047, 1, 0.40);
  EXPECT_DOUBLE_EQ(out[M::ttft_s], one.total_s());
}

TEST_F(ServingFeatures, PagedPrefixBlocksAreHeldOnce) {
  PointInputs in = point(llama8b, 8);
  in.values[P::kv_block_tokens] = 16;
  in.values[P::prefix_hit_rate] = 0.5;
  const auto out = run(in);
  const double weights = llama8b.eager.parameter_count * 2;
  // 1,024 shared tokens once; each sequence holds 2,176 - 1,024 tokens plus 7.5 empty slots.
  EXPECT_DOUBLE_EQ(out[M::kv_held_per_sequence_bytes], (1152 + 7.5) * kKvPerToken);
  EXPECT_DOUBLE_EQ(out[M::memory_bytes], weights + 1024 * kKvPerToken + 8 * (1152 + 7.5) * kKvPerToken);
  EXPECT_EQ(out[M::max_batch], std::floor((hw.memory_bytes - weights - 1024 * kKvPerToken) / (1159.5 * kKvPerToken)));
  EXPECT_NEAR(out[M::kv_fragmentation_fraction], 8 * 7.5 / (8 * 1159.5 + 1024), 1e-12);
}

TEST_F(ServingFeatures, OnlyFullBlocksOfThePrefixAreShared) {
  PointInputs in = point(llama8b, 8);
  in.values[P::kv_block_tokens] = 16;
  in.values[P::prefix_hit_rate] = 0.3;  // floor(614.4) = 614 cached tokens, 38 full blocks = 608 shared
  const auto out = run(in);
  EXPECT_DOUBLE_EQ(out[M::kv_held_per_sequence_bytes], (2176 - 608 + 7.5) * kKvPerToken);
}

TEST_F(ServingFeatures, ContiguousCacheKeepsAPrivateCopyOfThePrefix) {
  PointInputs in = point(llama8b, 8);
  const double memory = run(in)[M::memory_bytes];
  in.values[P::prefix_hit_rate] = 0.5;
  EXPECT_EQ(run(in)[M::memory_bytes], memory);
}

}  // namespace
}  // namespace dsx::serving_features
