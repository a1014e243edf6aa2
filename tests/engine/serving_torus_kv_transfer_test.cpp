// The disaggregated KV transfer on a torus node (engine/solvers/serving.hpp; engine/torus.hpp
// torus_block_hop_s): the prefill instance and its decode instance are neighbouring blocks of the
// torus and each chip's shard crosses the face between them, by hand against a switch's per-GPU link,
// on H100-class chips (450 GB/s one way per chip, a 2D torus's 4 links at 112.5 GB/s).
#include <cmath>

#include "tests/engine/serving_features_fixture.hpp"

namespace dsx::serving_features {
namespace {

// Llama-3-70B, 2,048-token prompt, fp16: 327,680 B of KV per token, a quarter per GPU at tp 4.
constexpr double kShardBytes = 2048 * 327680.0 / 4;

PointInputs on_torus(PointInputs in) {
  in.values[P::disaggregated] = 1;
  in.values[P::gpus_per_node] = 8;
  in.values[P::torus_x] = 4;
  in.values[P::torus_y] = 2;
  return in;
}

// tp 4 on a 4 x 2 torus: an instance is a 2 x 2 block, the other one the next two columns, which
// meets it on both faces of the wrapped dimension of 4: 4 links for its 4 chips, 112.5 GB/s each
// (a quarter of the chip's 450 GB/s), plus one 0.5 us hop.
TEST_F(ServingFeatures, TorusKvTransferCrossesTheFaceBetweenInstances) {
  PointInputs in = on_torus(point(llama70b, 16, 4));
  const auto out = run(in);
  EXPECT_NEAR(out[M::kv_transfer_s], kShardBytes / 112.5e9 + 0.5e-6, 1e-15);
  // A switched node sends each shard over the GPU's whole link, without a latency term.
  in.values[P::torus_x] = 0;
  in.values[P::torus_y] = 0;
  EXPECT_DOUBLE_EQ(run(in)[M::kv_transfer_s], kShardBytes / 450e9);
  // A given kv_transfer_bandwidth is a path outside the torus: the switched formula.
  in = on_torus(point(llama70b, 16, 4));
  in.values[P::kv_transfer_bandwidth] = 50e9;
  EXPECT_DOUBLE_EQ(run(in)[M::kv_transfer_s], kShardBytes / 50e9);
}

// A prefill instance of tp 2 beside a decode instance of tp 4: blocks of the smaller instance's 2
// chips (a 1 x 2 column, tied with a 2 x 1 line and first in order), each chip sending the larger
// shard (KV / 2); the next column meets it on one face of 2 links (the pair of columns does not span
// the wrapped dimension of 4), 112.5 GB/s per chip.
TEST_F(ServingFeatures, TorusKvTransferUsesTheSmallerInstancesBlocks) {
  PointInputs in = on_torus(point(llama70b, 16, 4));
  in.values[P::prefill_tp] = 2;
  const auto out = run(in);
  EXPECT_NEAR(out[M::kv_transfer_s], 2 * kShardBytes / 112.5e9 + 0.5e-6, 1e-15);
}

// Two instances of tp 8 do not fit an 8-chip torus side by side.
TEST_F(ServingFeatures, TorusKvTransferNeedsBothInstancesOnTheTorus) {
  const PointInputs in = on_torus(point(llama70b, 16, 8));
  EXPECT_EQ(result(in).reason, ServingSolver::pools_exceed_torus);
}

}  // namespace
}  // namespace dsx::serving_features
