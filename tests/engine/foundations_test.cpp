#include "engine/solvers/foundations.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>

namespace dsx {
namespace {

using F = FoundationsSolver;

// Catalog values (studies/catalog/hardware.yaml): NVIDIA A100 datasheet 312 TFLOP/s fp16 dense,
// 40GB at 1,555 GB/s and 80GB at 2,039 GB/s; H100 SXM 989 TFLOP/s at 3.35 TB/s; PCIe Gen5 64 GB/s.
HardwareSpec device(double fp16, double bandwidth, double host_link) {
  HardwareSpec hw;
  hw.id = "dev";
  hw.peak_flops_per_s[index_of(Precision::fp16)] = fp16;
  hw.peak_flops_per_s[index_of(Precision::int8)] = 2 * fp16;
  hw.memory_bandwidth_bytes_per_s = bandwidth;
  hw.host_link_bandwidth_bytes_per_s = host_link;
  return hw;
}

// The seed's example inputs, one design point.
PointInputs seed_point(const HardwareSpec& hw) {
  PointInputs in;
  in.hardware = &hw;
  in.values[F::precision] = static_cast<double>(index_of(Precision::fp16));
  in.values[F::operation] = F::gemm;
  in.values[F::gemm_n] = 4096;
  in.values[F::accelerators] = 1;
  in.values[F::serial_fraction] = 0.05;
  in.values[F::arrival_rate] = 1000;
  in.values[F::latency] = 0.050;
  in.values[F::memory_per_request] = 1e9;
  in.values[F::memory_capacity] = 24e9;
  in.values[F::model_params] = 1e9;
  in.values[F::training_tokens] = 20e9;
  in.values[F::mfu] = 0.40;
  in.values[F::transfer_size] = 1e3;
  in.values[F::link_latency] = 0.010;
  in.values[F::link_bandwidth] = 10e9 / 8;
  return in;
}

struct Eval {
  PointResult result;
  std::array<double, F::kMetricCount> m{};
};

Eval run(const PointInputs& in) {
  const F solver;
  Eval r;
  r.result = solver.evaluate(in, r.m);
  return r;
}

TEST(Foundations, DeclaresOneMetricPerEnumEntry) {
  const F solver;
  EXPECT_EQ(solver.params().size(), F::kParamCount);
  EXPECT_LE(solver.params().size(), kMaxParams);
  EXPECT_EQ(solver.metrics().size(), F::kMetricCount);
  EXPECT_EQ(solver.metrics()[F::ridge_point_flop_per_byte].name, "ridge_point_flop_per_byte");
  EXPECT_EQ(solver.metrics()[F::transfer_serialization_share].name, "transfer_serialization_share");
  EXPECT_EQ(solver.params()[F::link_bandwidth].name, "link_bandwidth");
}

// seeds/003 "A Concrete Example: The A100 Analysis": ridge = int(312 / 2.039) = 153 FLOP/byte; GEMM
// 4096 at 1,365 FLOP/byte is compute-bound; ReLU at 0.25 op/byte reaches 0.25 x 2.039 / 312 = 0.16% of
// peak.
TEST(Foundations, A100RooflineSeedExample) {
  const HardwareSpec a100 = device(312e12, 2.039e12, 32e9);
  PointInputs in = seed_point(a100);
  Eval gemm = run(in);
  ASSERT_EQ(gemm.result.status, PointStatus::ok);
  EXPECT_NEAR(gemm.m[F::ridge_point_flop_per_byte], 153.02, 0.01);
  EXPECT_EQ(static_cast<int>(gemm.m[F::ridge_point_flop_per_byte]), 153);
  EXPECT_NEAR(gemm.m[F::intensity_flop_per_byte], 1365.33, 0.01);
  EXPECT_DOUBLE_EQ(gemm.m[F::attainable_flops_per_s], 312e12);
  EXPECT_DOUBLE_EQ(gemm.m[F::peak_utilization], 1.0);
  EXPECT_DOUBLE_EQ(gemm.m[F::compute_bound], 1.0);

  in.values[F::operation] = F::relu;
  Eval relu = run(in);
  EXPECT_DOUBLE_EQ(relu.m[F::intensity_flop_per_byte], 0.25);
  EXPECT_DOUBLE_EQ(relu.m[F::attainable_flops_per_s], 0.25 * 2.039e12);
  EXPECT_NEAR(relu.m[F::peak_utilization], 0.001634, 1e-6);
  EXPECT_DOUBLE_EQ(relu.m[F::compute_bound], 0.0);
}

// The two A100 parts have different ridges: 312 / 1.555 = 200.6 (40GB), 312 / 2.039 = 153.0 (80GB);
// the seed's header comment "~208" is 312 / 1.5, neither part. H100: int(989 / 3.35) = 295.
TEST(Foundations, RidgePointsDependOnThePart) {
  const HardwareSpec a100_40 = device(312e12, 1.555e12, 32e9);
  EXPECT_NEAR(run(seed_point(a100_40)).m[F::ridge_point_flop_per_byte], 200.64, 0.01);
  const HardwareSpec h100 = device(989e12, 3.35e12, 64e9);
  const Eval r = run(seed_point(h100));
  EXPECT_NEAR(r.m[F::ridge_point_flop_per_byte], 295.22, 0.01);
  // seeds/003 "Memory Hierarchy": accelerator memory vs CPU-accelerator link, int(3,350 / 64) = 52x.
  EXPECT_NEAR(r.m[F::memory_to_host_link_ratio], 52.34, 0.01);
  // The ridge scales with the precision's peak: int8 runs at twice the fp16 rate here.
  PointInputs in = seed_point(h100);
  in.values[F::precision] = static_cast<double>(index_of(Precision::int8));
  EXPECT_NEAR(run(in).m[F::ridge_point_flop_per_byte], 2 * 295.22, 0.02);
}

TEST(Foundations, LawsSeedExamples) {
  const HardwareSpec a100 = device(312e12, 2.039e12, 32e9);
  PointInputs in = seed_point(a100);
  Eval r = run(in);
  // Little: 50 in flight, 50 GB of memory for them, 24 fit in 24 GB, 480 QPS.
  EXPECT_DOUBLE_EQ(r.m[F::requests_in_flight], 50);
  EXPECT_DOUBLE_EQ(r.m[F::in_flight_memory_bytes], 50e9);
  EXPECT_DOUBLE_EQ(r.m[F::max_concurrent_requests], 24);
  EXPECT_DOUBLE_EQ(r.m[F::max_throughput_requests_per_s], 480);
  // Training time on one A100 at 40% MFU.
  EXPECT_DOUBLE_EQ(r.m[F::training_flops], 1.2e20);
  EXPECT_DOUBLE_EQ(r.m[F::training_throughput_flops_per_s], 312e12 * 0.4);
  EXPECT_NEAR(r.m[F::training_time_s], 961538.46, 0.01);
  // Scaling rules at 1B parameters, fp16.
  EXPECT_DOUBLE_EQ(r.m[F::training_memory_bytes], 16e9);
  EXPECT_DOUBLE_EQ(r.m[F::inference_weights_bytes], 2e9);
  EXPECT_DOUBLE_EQ(r.m[F::inference_flops_per_token], 2e9);
  // Transfer of 1 kB over 10 Gbit/s behind 10 ms: latency-bound.
  EXPECT_NEAR(r.m[F::serialization_time_s], 0.8e-6, 1e-18);
  EXPECT_NEAR(r.m[F::transfer_time_s], 0.0100008, 1e-15);
  EXPECT_GT(r.m[F::transfer_latency_share], 0.9999);
  EXPECT_DOUBLE_EQ(r.m[F::transfer_latency_share] + r.m[F::transfer_serialization_share], 1.0);
  // Amdahl and Gustafson at one processor.
  EXPECT_DOUBLE_EQ(r.m[F::amdahl_speedup], 1);
  EXPECT_DOUBLE_EQ(r.m[F::gustafson_speedup], 1);
  EXPECT_DOUBLE_EQ(r.m[F::amdahl_limit], 20);

  in.values[F::accelerators] = 8;
  in.values[F::transfer_size] = 1e9;
  r = run(in);
  EXPECT_NEAR(r.m[F::amdahl_speedup], 5.926, 0.001);
  EXPECT_NEAR(r.m[F::amdahl_efficiency], 5.926 / 8, 0.001);
  EXPECT_NEAR(r.m[F::gustafson_speedup], 7.65, 1e-12);
  EXPECT_NEAR(r.m[F::training_time_s], 961538.46 / 8, 0.01);
  EXPECT_NEAR(r.m[F::transfer_time_s], 0.810, 1e-12);
  EXPECT_LT(r.m[F::transfer_latency_share], 0.013);

  in.values[F::accelerators] = 1000;
  EXPECT_NEAR(run(in).m[F::gustafson_speedup], 950.05, 1e-9);
}

TEST(Foundations, ScalingRulesAtSevenBillion) {
  const HardwareSpec a100 = device(312e12, 2.039e12, 32e9);
  PointInputs in = seed_point(a100);
  in.values[F::model_params] = 7e9;
  in.values[F::training_tokens] = 1e12;
  Eval r = run(in);
  EXPECT_DOUBLE_EQ(r.m[F::inference_weights_bytes], 14e9);
  EXPECT_DOUBLE_EQ(r.m[F::training_memory_bytes], 112e9);
  EXPECT_DOUBLE_EQ(r.m[F::inference_flops_per_token], 14e9);
  EXPECT_DOUBLE_EQ(r.m[F::training_flops], 4.2e22);
  in.values[F::precision] = static_cast<double>(index_of(Precision::int8));
  EXPECT_DOUBLE_EQ(run(in).m[F::inference_weights_bytes], 7e9);
}

TEST(Foundations, UnsupportedPrecisionIsInfeasibleButKeepsTheLaws) {
  const HardwareSpec a100 = device(312e12, 2.039e12, 32e9);
  PointInputs in = seed_point(a100);
  in.values[F::precision] = static_cast<double>(index_of(Precision::fp8));
  const Eval r = run(in);
  EXPECT_EQ(r.result.status, PointStatus::infeasible);
  EXPECT_EQ(F().reasons()[r.result.reason], "precision not supported by the hardware");
  EXPECT_TRUE(std::isnan(r.m[F::ridge_point_flop_per_byte]));
  EXPECT_TRUE(std::isnan(r.m[F::training_time_s]));
  EXPECT_DOUBLE_EQ(r.m[F::requests_in_flight], 50);
  EXPECT_DOUBLE_EQ(r.m[F::intensity_flop_per_byte], 4096.0 / 3.0 * 2.0);  // 1 byte per element
}

}  // namespace
}  // namespace dsx
