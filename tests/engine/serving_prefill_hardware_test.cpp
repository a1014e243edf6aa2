// Disaggregated prefill on its own hardware (prefill_hardware, prefill_gpu_hour_price;
// engine/solvers/serving.hpp after Patel et al. 2024, Splitwise, arXiv:2311.18677, whose
// Splitwise-HA prefills on H100 and decodes on A100): prefill at the prefill chip's peak, the KV moved
// at the slower side's link, each pool priced at its own chip. Hardware values are the catalog's
// (tests/engine/published_specs.hpp).
#include <cmath>

#include "tests/engine/serving_features_fixture.hpp"

namespace dsx::serving_features {
namespace {

constexpr double kPromptKvBytes = 2048 * 131072.0;  // Llama-3-8B, 2,048-token prompt, fp16
constexpr double kH100Fp16 = 989e12;                  // dense FP16 peak
constexpr double kA100Fp16 = 312e12;
constexpr double kA100LinkOneWay = 300e9;             // NVLink 3, 600 GB/s bidirectional
constexpr double kDefaultPrefillEta = 0.40;           // seeds/004 prefill_long_context
constexpr double kThreeYearsH = 3 * 365 * 24.0;

class PrefillHardware : public ServingFeatures {
 protected:
  const HardwareSpec a100 = published::a100_80gb_sxm();

  // Splitwise-HA: A100 decode, H100 prefill.
  PointInputs split(double batch, double tp = 1) const {
    PointInputs in = point(llama8b, batch, tp);
    in.hardware = &a100;
    in.second_hardware = &hw;
    in.values[P::disaggregated] = 1;
    return in;
  }
};

TEST_F(PrefillHardware, PrefillRunsAtThePrefillChipsPeakAndDecodeOnTheDecodeChip) {
  const auto out = run(split(16));
  // Llama-3-8B prefill at tp 1 is compute-bound: the causal kernel's FLOPs / (989 TFLOP/s x 0.40), no
  // collective.
  const ServingShape& shape = llama8b.serving_shape;
  const double one_prompt_s =
      (prefill_flops(shape, 2048) - 2048.0 * 2048 / 2 * shape.attention_flops_per_query_key) / (kH100Fp16 * kDefaultPrefillEta);
  EXPECT_NEAR(out[M::prefill_s], 16 * one_prompt_s, 1e-12 * out[M::prefill_s]);
  // TTFT: the H100 prefill plus the KV over the slower NVLink, the A100's 300 GB/s.
  EXPECT_DOUBLE_EQ(out[M::kv_transfer_s], kPromptKvBytes / kA100LinkOneWay);
  EXPECT_NEAR(out[M::ttft_s], one_prompt_s + kPromptKvBytes / kA100LinkOneWay, 1e-12 * out[M::ttft_s]);
  // The same prefill on A100 takes 989 / 312 times as long.
  PointInputs colocated_a100 = point(llama8b, 16);
  colocated_a100.hardware = &a100;
  const auto a100_out = run(colocated_a100);
  EXPECT_NEAR(a100_out[M::prefill_s] / out[M::prefill_s], kH100Fp16 / kA100Fp16, 1e-9);
  // Decode is the A100's.
  EXPECT_EQ(out[M::decode_step_s], a100_out[M::decode_step_s]);
  EXPECT_EQ(out[M::itl_s], a100_out[M::decode_step_s]);
  // The prefill pool bounds throughput at ratio x B x O / its prefill of B prompts.
  PointInputs thin = split(16);
  thin.values[P::prefill_decode_ratio] = 0.1;
  const auto slow = run(thin);
  EXPECT_DOUBLE_EQ(slow[M::tokens_per_s], 0.1 * 16 * 256 / out[M::prefill_s]);
}

TEST_F(PrefillHardware, EachPoolIsPricedAtItsOwnChip) {
  PointInputs in = split(16);
  in.values[P::prefill_decode_ratio] = 0.5;
  auto out = run(in);
  // Catalog prices over 3 years: A100 $17,500 -> 0.6659 $/h, H100 $31,250 -> 1.1891 $/h.
  const double a100_h = 17500 / kThreeYearsH, h100_h = 31250 / kThreeYearsH;
  EXPECT_DOUBLE_EQ(out[M::gpu_hour_price_usd], a100_h);
  EXPECT_DOUBLE_EQ(out[M::prefill_gpu_hour_price_usd], h100_h);
  EXPECT_EQ(out[M::gpus], 1.5);
  EXPECT_EQ(out[M::prefill_gpus], 0.5);
  EXPECT_NEAR(out[M::cost_per_million_tokens_usd], (1 * a100_h + 0.5 * h100_h) / 3600 / out[M::tokens_per_s] * 1e6,
              1e-9 * out[M::cost_per_million_tokens_usd]);
  // A rental price for the decode GPUs says nothing of the prefill chip's: the cost is unknown until
  // prefill_gpu_hour_price gives it.
  in.values[P::gpu_hour_price] = 2.0;
  out = run(in);
  EXPECT_TRUE(std::isnan(out[M::prefill_gpu_hour_price_usd]));
  EXPECT_TRUE(std::isnan(out[M::cost_per_million_tokens_usd]));
  in.values[P::prefill_gpu_hour_price] = 3.0;
  out = run(in);
  EXPECT_NEAR(out[M::cost_per_million_tokens_usd], (1 * 2.0 + 0.5 * 3.0) / 3600 / out[M::tokens_per_s] * 1e6,
              1e-9 * out[M::cost_per_million_tokens_usd]);
}

TEST_F(PrefillHardware, ThePrefillChipHoldsTheWeightsAndTheBatchsPrompts) {
  PointInputs in = split(16);
  const auto out = run(in);
  EXPECT_DOUBLE_EQ(out[M::prefill_memory_bytes], out[M::weights_per_gpu_bytes] + 16 * kPromptKvBytes);
  // A prefill chip too small for them is infeasible while the decode side fits.
  HardwareSpec small = hw;
  small.memory_bytes = out[M::prefill_memory_bytes] - 1;
  in.second_hardware = &small;
  const PointResult r = result(in);
  EXPECT_EQ(r.status, PointStatus::infeasible);
  EXPECT_EQ(r.reason, ServingSolver::prefill_exceeds_memory);
}

TEST_F(PrefillHardware, TheDecodeChipAsPrefillHardwareChangesNothing) {
  PointInputs in = point(llama8b, 16);
  in.values[P::disaggregated] = 1;
  in.values[P::prefill_decode_ratio] = 0.5;
  const auto same_pool = run(in);
  in.second_hardware = &hw;
  const auto named = run(in);
  for (std::size_t m = 0; m < named.size(); ++m) {
    EXPECT_DOUBLE_EQ(named[m], same_pool[m]) << solver.metrics()[m].name;
  }
}

TEST_F(PrefillHardware, InfeasibleReasons) {
  PointInputs in = split(16);
  in.values[P::disaggregated] = 0;
  EXPECT_EQ(result(in).reason, ServingSolver::prefill_hardware_needs_disaggregation);
  EXPECT_EQ(result(in).status, PointStatus::infeasible);
  // H100 decode at fp8 with an A100 prefill pool, which has no fp8.
  in = split(16);
  in.hardware = &hw;
  in.second_hardware = &a100;
  in.values[P::precision] = static_cast<double>(index_of(Precision::fp8));
  EXPECT_EQ(result(in).reason, ServingSolver::prefill_precision_unsupported);
  // tp 2 on a prefill chip without an accelerator link.
  HardwareSpec no_link = hw;
  no_link.accelerator_link_bandwidth_bytes_per_s = 0;
  in = split(16, 2);
  in.second_hardware = &no_link;
  EXPECT_EQ(result(in).reason, ServingSolver::prefill_needs_link);
  // At tp 1 it prefills, but its KV has no link to leave by unless kv_transfer_bandwidth gives one.
  in = split(16);
  in.second_hardware = &no_link;
  EXPECT_EQ(result(in).reason, ServingSolver::no_kv_transfer_link);
  in.values[P::kv_transfer_bandwidth] = 25e9;  // a 200 Gb/s NIC
  const auto out = run(in);
  EXPECT_DOUBLE_EQ(out[M::kv_transfer_s], kPromptKvBytes / 25e9);
}

// prefill_tp: a prefill instance of its own tensor-parallel size.
TEST_F(PrefillHardware, APrefillInstanceOfItsOwnTp) {
  // Llama-3-70B decoded at tp 4 on A100s, prefilled at tp 8 on H100s.
  PointInputs in = point(llama70b, 16, 4);
  in.hardware = &a100;
  in.second_hardware = &hw;
  in.values[P::disaggregated] = 1;
  in.values[P::prefill_tp] = 8;
  const auto out = run(in);
  // The prefill is the H100s' at tp 8, as a colocated tp-8 H100 replica runs it.
  const auto h100_tp8 = run(point(llama70b, 16, 8));
  EXPECT_EQ(out[M::prefill_s], h100_tp8[M::prefill_s]);
  EXPECT_EQ(out[M::prefill_gpus], 8);
  EXPECT_EQ(out[M::gpus], 12);
  // 8 KV heads: each prefill GPU sends 1/8 of the 327,680 B per token, each decode GPU receives 1/4.
  EXPECT_DOUBLE_EQ(out[M::kv_transfer_s], 2048 * 327680.0 / 4 / kA100LinkOneWay);
  EXPECT_DOUBLE_EQ(out[M::prefill_memory_bytes], h100_tp8[M::weights_per_gpu_bytes] + 16 * 2048 * 327680.0 / 8);
  // Without disaggregation, or not dividing the 64 heads, it is infeasible.
  in.values[P::prefill_tp] = 3;
  EXPECT_EQ(result(in).reason, ServingSolver::tp_must_divide_heads);
  in.second_hardware = nullptr;
  in.values[P::prefill_tp] = 8;
  in.values[P::disaggregated] = 0;
  EXPECT_EQ(result(in).reason, ServingSolver::prefill_tp_needs_disaggregation);
}

}  // namespace
}  // namespace dsx::serving_features
