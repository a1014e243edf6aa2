// Disaggregated prefill and decode in the serving solver (disaggregated, prefill_decode_ratio,
// kv_transfer_bandwidth; engine/solvers/serving.hpp after DistServe and Splitwise): decode without
// prefill interference, TTFT plus the KV transfer, both pools in the GPU count and the cost.
#include <cmath>

#include "tests/engine/serving_features_fixture.hpp"

namespace dsx::serving_features {
namespace {

constexpr double kPromptKvBytes = 2048 * 131072.0;  // Llama-3-8B, 2,048-token prompt, fp16

TEST_F(ServingFeatures, DecodeCarriesNoPrefillAndTtftAddsTheTransfer) {
  PointInputs in = point(llama8b, 16);
  const auto colocated = run(in);
  in.values[P::disaggregated] = 1;
  const auto out = run(in);
  EXPECT_EQ(out[M::itl_s], out[M::decode_step_s]);
  EXPECT_EQ(out[M::itl_max_s], out[M::decode_step_s]);
  EXPECT_LT(out[M::itl_s], colocated[M::itl_s]);
  // One GPU's NVLink, 450 GB/s one-way: 268,435,456 B / 450 GB/s = 596.5 us.
  EXPECT_DOUBLE_EQ(out[M::kv_transfer_s], kPromptKvBytes / 450e9);
  EXPECT_DOUBLE_EQ(out[M::ttft_s], colocated[M::ttft_s] + kPromptKvBytes / 450e9);
  in.values[P::kv_transfer_bandwidth] = 50e9;
  EXPECT_DOUBLE_EQ(run(in)[M::kv_transfer_s], kPromptKvBytes / 50e9);
}

TEST_F(ServingFeatures, EachGpuMovesItsKvShard) {
  PointInputs in = point(llama70b, 16, 8);
  in.values[P::disaggregated] = 1;
  // Llama-3-70B: 327,680 B per token over 8 KV-head shards.
  EXPECT_DOUBLE_EQ(run(in)[M::kv_transfer_s], 2048 * 327680.0 / 8 / 450e9);
}

TEST_F(ServingFeatures, ThroughputIsTheSlowerPool) {
  PointInputs in = point(llama8b, 16);
  in.values[P::disaggregated] = 1;
  in.values[P::prefill_decode_ratio] = 0.1;
  auto out = run(in);
  EXPECT_DOUBLE_EQ(out[M::tokens_per_s], 0.1 * 16 * 256 / out[M::prefill_s]);
  in.values[P::prefill_decode_ratio] = 4;
  out = run(in);
  EXPECT_DOUBLE_EQ(out[M::tokens_per_s], 16 / out[M::decode_step_s]);
}

TEST_F(ServingFeatures, BothPoolsCountInGpusAndCost) {
  PointInputs in = point(llama70b, 16, 4);
  in.values[P::disaggregated] = 1;
  in.values[P::prefill_decode_ratio] = 0.5;
  const auto out = run(in);
  EXPECT_EQ(out[M::gpus], 6);
  EXPECT_EQ(out[M::prefill_gpus], 2);
  EXPECT_DOUBLE_EQ(out[M::tokens_per_s_per_gpu], out[M::tokens_per_s] / 6);
  EXPECT_NEAR(out[M::cost_per_million_tokens_usd],
              6 * out[M::gpu_hour_price_usd] / 3600 / out[M::tokens_per_s] * 1e6, 1e-9);
}

TEST_F(ServingFeatures, ColocatedHasNoPrefillPool) {
  const auto out = run(point(llama8b, 16));
  EXPECT_EQ(out[M::prefill_gpus], 0);
  EXPECT_EQ(out[M::kv_transfer_s], 0);
  EXPECT_EQ(out[M::gpus], 1);
}

TEST_F(ServingFeatures, DisaggregationInfeasibleReasons) {
  PointInputs in = point(llama8b, 16);
  in.values[P::disaggregated] = 1;
  in.values[P::batching] = 1;
  EXPECT_EQ(result(in).reason, ServingSolver::needs_continuous_batching);
  in.values[P::batching] = 0;
  in.values[P::prefill_chunk_tokens] = 512;
  EXPECT_EQ(result(in).reason, ServingSolver::chunked_with_disaggregation);
  in.values[P::prefill_chunk_tokens] = 0;
  HardwareSpec no_link = hw;
  no_link.accelerator_link_bandwidth_bytes_per_s = 0;
  in.hardware = &no_link;
  const PointResult r = result(in);
  EXPECT_EQ(r.status, PointStatus::infeasible);
  EXPECT_EQ(r.reason, ServingSolver::no_kv_transfer_link);
  in.values[P::kv_transfer_bandwidth] = 25e9;  // a 200 Gb/s NIC
  EXPECT_EQ(result(in).status, PointStatus::ok);
}

}  // namespace
}  // namespace dsx::serving_features
