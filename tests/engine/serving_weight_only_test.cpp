// Weight-only quantization in the serving solver (weight_precision, weight_group_size,
// weight_zero_point; engine/solvers/serving.hpp): int8 or int4 weights with a 16-bit scale (and a zero
// point) per group, activations and collectives at `precision`.
#include <cmath>

#include "tests/engine/serving_features_fixture.hpp"

namespace dsx::serving_features {
namespace {

constexpr double kInt4Bytes = 0.5 + 2.0 / 128;  // 4 bits + a 16-bit scale per group of 128 (AWQ g128)
constexpr double kInt8Bytes = 1 + 2.0 / 128;

TEST_F(ServingFeatures, WeightsAreStoredAtTheirOwnPrecision) {
  PointInputs in = point(llama70b, 1, 4);
  in.values[P::weight_precision] = 2;
  EXPECT_DOUBLE_EQ(run(in)[M::weights_per_gpu_bytes], llama70b.eager.parameter_count * kInt4Bytes / 4);
  in.values[P::weight_precision] = 1;
  EXPECT_DOUBLE_EQ(run(in)[M::weights_per_gpu_bytes], llama70b.eager.parameter_count * kInt8Bytes / 4);
}

TEST_F(ServingFeatures, W4a16ShrinksOnlyTheWeightStream) {
  PointInputs in = point(llama70b, 1, 4);
  const auto fp16 = run(in);
  in.values[P::weight_precision] = 2;
  const auto w4 = run(in);
  const double weights_read = llama70b.serving_shape.weight_elements_read;
  EXPECT_NEAR(fp16[M::decode_memory_s] - w4[M::decode_memory_s], weights_read * (2 - kInt4Bytes) / 4 / 3.35e12,
              1e-12);
  EXPECT_DOUBLE_EQ(w4[M::decode_compute_s], fp16[M::decode_compute_s]);
  EXPECT_DOUBLE_EQ(w4[M::decode_communication_s], fp16[M::decode_communication_s]);
  // A batch-1 decode step is a weight stream: about 2 / 0.52 = 3.9x fewer bytes, most of that in time.
  EXPECT_GT(fp16[M::decode_step_s] / w4[M::decode_step_s], 2.5);
}

TEST_F(ServingFeatures, Llama70bFitsOneH100AtInt4) {
  // 70.55e9 x 0.516 B = 36.4 GB: fits where fp16 (141 GB) does not.
  PointInputs in = point(llama70b, 1, 1);
  EXPECT_EQ(result(in).reason, ServingSolver::exceeds_memory);
  in.values[P::weight_precision] = 2;
  EXPECT_EQ(result(in).status, PointStatus::ok);
}

// By hand: gpt-fast's int4 (quantize.py: groups of 32, a bf16 scale and a bf16 zero each) is
// 4 bits + 32 bits per 32 weights = 0.5 + 0.125 B; AWQ's checkpoints (g128, a 4-bit packed zero):
// 0.5 + (2 + 0.5) / 128 = 0.51953125 B; per-channel int8 counts the weight byte only.
TEST(GroupedWeightBytes, CountsTheScaleAndTheZeroPointOfEachGroup) {
  EXPECT_DOUBLE_EQ(grouped_weight_bytes(0.5, 32, 2), 0.625);
  EXPECT_DOUBLE_EQ(grouped_weight_bytes(0.5, 128, 0.5), 0.51953125);
  EXPECT_DOUBLE_EQ(grouped_weight_bytes(0.5, 128, 0), 0.515625);
  EXPECT_DOUBLE_EQ(grouped_weight_bytes(1, 0, 2), 1.0);
}

TEST_F(ServingFeatures, GptFastInt4GroupsOf32WithBf16ZerosStreamFiveEighthsOfAByte) {
  PointInputs in = point(llama8b, 1);
  in.values[P::weight_precision] = 2;
  in.values[P::weight_group_size] = 32;
  in.values[P::weight_zero_point] = 2;  // 16bit
  EXPECT_DOUBLE_EQ(run(in)[M::weights_per_gpu_bytes], llama8b.eager.parameter_count * 0.625);
  in.values[P::weight_zero_point] = 1;  // packed: a 4-bit zero, 0.5 + 2.5 / 32 = 0.578125
  EXPECT_DOUBLE_EQ(run(in)[M::weights_per_gpu_bytes], llama8b.eager.parameter_count * 0.578125);
  in.values[P::weight_precision] = 1;  // int8, packed: 1 + 3 / 32
  EXPECT_DOUBLE_EQ(run(in)[M::weights_per_gpu_bytes], llama8b.eager.parameter_count * (1 + 3.0 / 32));
  in.values[P::weight_group_size] = 0;  // per output channel: the weight byte alone
  EXPECT_DOUBLE_EQ(run(in)[M::weights_per_gpu_bytes], llama8b.eager.parameter_count * 1.0);
}

TEST_F(ServingFeatures, TheGroupDoesNotTouchUnquantizedWeights) {
  PointInputs in = point(llama8b, 1);
  in.values[P::weight_group_size] = 32;
  in.values[P::weight_zero_point] = 2;
  EXPECT_DOUBLE_EQ(run(in)[M::weights_per_gpu_bytes], llama8b.eager.parameter_count * 2);
}

TEST_F(ServingFeatures, SameIsThePrecisionsOwnBytes) {
  PointInputs in = point(llama8b, 8);
  const auto out = run(in);
  EXPECT_DOUBLE_EQ(out[M::weights_per_gpu_bytes], llama8b.eager.parameter_count * 2);
}

}  // namespace
}  // namespace dsx::serving_features
