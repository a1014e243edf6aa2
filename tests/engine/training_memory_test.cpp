#include "engine/training_memory.hpp"

#include <gtest/gtest.h>

namespace dsx {
namespace {

// ZeRO section 3.1: mixed-precision Adam = 2 + 2 + 12 = 16 bytes per parameter before activations.
TEST(TrainingMemory, MixedPrecisionAdamIs16BytesPerParam) {
  EXPECT_DOUBLE_EQ(model_state_bytes_per_param(Optimizer::adam, true), 16.0);
  EXPECT_DOUBLE_EQ(model_state_bytes_per_param(Optimizer::adam, false), 16.0);  // 4 + 4 + 8
  EXPECT_DOUBLE_EQ(model_state_bytes_per_param(Optimizer::sgd_momentum, true), 12.0);
  EXPECT_DOUBLE_EQ(model_state_bytes_per_param(Optimizer::sgd, true), 8.0);
  EXPECT_DOUBLE_EQ(model_state_bytes_per_param(Optimizer::sgd, false), 8.0);
  EXPECT_DOUBLE_EQ(optimizer_bytes_per_param(Optimizer::sgd, false), 0.0);

  // seeds/003 "Numbers to Know": 7B params -> 112 GB to start training. (Its breakdown, 2 B weights +
  // 4 B master + 8 B Adam, sums to 14 B: it leaves out the 2 B of fp16 gradients.)
  EXPECT_DOUBLE_EQ(7e9 * model_state_bytes_per_param(Optimizer::adam, true), 112e9);

  TrainingMemoryInput in;
  in.parameters = 7.5e9;  // ZeRO Figure 1: 7.5B parameters, Nd = 64
  in.data_parallel = 64;
  in.capacity_bytes = 80e9;
  EXPECT_DOUBLE_EQ(training_memory(in).total_bytes, 120e9);  // baseline (2 + 2 + K) psi, K = 12
  in.zero_stage = 1;
  EXPECT_NEAR(training_memory(in).total_bytes, 31.4e9, 0.05e9);
  in.zero_stage = 2;
  EXPECT_NEAR(training_memory(in).total_bytes, 16.6e9, 0.05e9);
  in.zero_stage = 3;
  EXPECT_NEAR(training_memory(in).total_bytes, 1.875e9, 1e6);
  EXPECT_TRUE(training_memory(in).fits);
}

// Korthikanti et al. Table 2 rows with s = 2048, b = 1, h = 12288, a = 96, t = 8 (GPT-3 175B, Table 3).
TEST(TrainingMemory, KorthikantiActivationRows) {
  const double s = 2048, b = 1, h = 12288, a = 96, t = 8;
  const double sbh = s * b * h;
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(s, b, h, a, 1, false, Recomputation::none), sbh * (34 + 5 * a * s / h));
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(s, b, h, a, t, true, Recomputation::none),
                   sbh * (34 + 5 * a * s / h) / t);
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(s, b, h, a, t, false, Recomputation::none),
                   sbh * (10 + 24 / t + 5 * a * s / (h * t)));
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(s, b, h, a, t, true, Recomputation::selective), 34 * sbh / t);
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(s, b, h, a, t, false, Recomputation::selective), sbh * (10 + 24 / t));
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(s, b, h, a, t, true, Recomputation::full), 2 * sbh);
  // Section 5: sequence parallel + selective recomputation cuts activations about 5x vs TP alone.
  const double tp_only = activation_bytes_per_layer(s, b, h, a, t, false, Recomputation::none);
  const double sp_sel = activation_bytes_per_layer(s, b, h, a, t, true, Recomputation::selective);
  EXPECT_GT(tp_only / sp_sel, 4.5);
  EXPECT_LT(tp_only / sp_sel, 6.0);
}

TEST(TrainingMemory, ShardsOverTensorAndPipelineAndFits) {
  TrainingMemoryInput in;
  in.parameters = 70e9;
  in.layers = 80;
  in.hidden = 8192;
  in.heads = 64;
  in.seq_len = 4096;
  in.micro_batch = 1;
  in.tensor_parallel = 8;
  in.pipeline_parallel = 4;
  in.data_parallel = 32;
  in.in_flight_microbatches = 4;
  in.recompute = Recomputation::selective;
  in.communication_buffer_bytes = 1e9;
  in.capacity_bytes = 80e9;
  const TrainingMemory m = training_memory(in);
  EXPECT_DOUBLE_EQ(m.weights_bytes, 70e9 / 32 * 2);
  EXPECT_DOUBLE_EQ(m.optimizer_bytes, 70e9 / 32 * 12);
  EXPECT_DOUBLE_EQ(m.activations_bytes, 20 * 4 * 34.0 * 4096 * 8192 / 8);
  EXPECT_DOUBLE_EQ(m.total_bytes, m.weights_bytes + m.gradients_bytes + m.optimizer_bytes + m.activations_bytes + 1e9);
  EXPECT_TRUE(m.fits);
  in.tensor_parallel = 1;
  in.pipeline_parallel = 1;
  EXPECT_FALSE(training_memory(in).fits);
}

}  // namespace
}  // namespace dsx

namespace dsx {
namespace {

// A fused kernel (FlashAttention) never stores the s x s scores: without recomputation it keeps what
// selective recomputation keeps, and the other modes are unchanged.
TEST(TrainingMemory, FusedAttentionStoresNoScores) {
  const double s = 2048, b = 6, h = 4096, a = 32, t = 1;
  const double sbh = s * b * h;
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(s, b, h, a, t, true, Recomputation::none, AttentionKernel::fused),
                   34 * sbh);
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(s, b, h, a, t, true, Recomputation::none, AttentionKernel::unfused),
                   sbh * (34 + 5 * a * s / h));
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(s, b, h, a, t, true, Recomputation::full, AttentionKernel::fused),
                   2 * sbh);
  // MPT-7B at micro-batch 6 on 8 GPUs with ZeRO-3 (llm-foundry's H100 benchmark row): 32 layers of
  // 34 s b h = 54.8 GB fit in 80 GiB next to 6.66e9 x 16 B / 8 of states; unfused needs 183 GB.
  TrainingMemoryInput in;
  in.parameters = 6.66e9;
  in.layers = 32;
  in.hidden = h;
  in.heads = a;
  in.seq_len = s;
  in.micro_batch = b;
  in.data_parallel = 8;
  in.zero_stage = 3;
  in.capacity_bytes = 80.0 * (1ull << 30);
  in.attention = AttentionKernel::fused;
  EXPECT_TRUE(training_memory(in).fits);
  in.attention = AttentionKernel::unfused;
  EXPECT_FALSE(training_memory(in).fits);
  EXPECT_NEAR(training_memory(in).activations_bytes, 32 * sbh * 114, 1);
}

}  // namespace
}  // namespace dsx
