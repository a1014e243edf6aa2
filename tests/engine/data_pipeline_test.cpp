// Solver "data_pipeline" on seeds/001 ("Starving the GPU"): ResNet-50 training on an A100 at fp16,
// 500 KB JPEGs, 8 CPU workers x 250 MB/s, NVMe storage.
#include "engine/solvers/data_pipeline.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "engine/fusion.hpp"
#include "engine/model_builders.hpp"
#include "engine/pipeline.hpp"

namespace dsx {
namespace {

using S = DataPipelineSolver;

const PreparedModel& resnet50() {
  static const PreparedModel m = [] {
    // blocks 3,4,6,3; base width 64; 224 x 224; 1,000 classes (He et al. 2016, Table 1).
    return prepare_model(build_architecture(
        "resnet", {{"blocks1", 3}, {"blocks2", 4}, {"blocks3", 6}, {"blocks4", 3}, {"base_width", 64}, {"image_size", 224}, {"classes", 1000}}));
  }();
  return m;
}

HardwareSpec a100() {
  HardwareSpec hw;
  hw.id = "a100_80gb_sxm";
  hw.peak_flops_per_s[index_of(Precision::fp16)] = 312e12;
  hw.memory_bandwidth_bytes_per_s = 2.039e12;
  hw.memory_bytes = 80.0 * kGibi;
  hw.host_link_bandwidth_bytes_per_s = 32e9;
  hw.accelerator_link_bandwidth_bytes_per_s = 300e9;
  return hw;
}

std::size_t precision_index(Precision p) {
  return static_cast<std::size_t>(std::find(kAllPrecisions.begin(), kAllPrecisions.end(), p) - kAllPrecisions.begin());
}

// The seed's configuration at batch 256, roofline step at eta 0.5 with 10 us launches.
PointInputs seed_point(const HardwareSpec& hw) {
  PointInputs in;
  in.hardware = &hw;
  in.model = &resnet50();
  in.values[S::precision] = static_cast<double>(precision_index(Precision::fp16));
  in.values[S::batch] = 256;
  in.values[S::eta] = 0.5;
  in.values[S::execution] = 0;
  in.values[S::launch_overhead] = 10e-6;
  in.values[S::step_model] = S::roofline;
  in.values[S::stated_samples_per_s] = 0;
  in.values[S::sample_bytes] = 500e3;
  in.values[S::cpu_workers] = 8;
  in.values[S::cpu_throughput_per_worker] = 250e6;
  in.values[S::storage_bandwidth] = 7e9;
  in.values[S::decode] = S::cpu;
  in.values[S::gpu_decode_bandwidth] = 0;
  in.values[S::decoded_sample_bytes] = 224.0 * 224 * 3;
  in.values[S::memory_format] = S::nhwc;
  in.values[S::gpus] = 1;
  in.values[S::gpus_per_node] = 8;
  in.values[S::fabric_bandwidth] = 50e9;
  in.values[S::fabric_latency] = 5e-6;
  in.values[S::overlap] = 1;
  in.values[S::bucket_bytes] = 25e6;
  in.values[S::gradient_bytes_per_parameter] = 4;
  in.values[S::cuda_core_eta] = 0;
  in.values[S::tf32_eta] = 0;
  return in;
}

struct Out {
  PointResult result;
  std::array<double, S::kMetricCount> m{};
  double operator[](S::Metric k) const { return m[k]; }
};

Out run(const PointInputs& in) {
  Out o;
  o.result = S{}.evaluate(in, o.m);
  return o;
}

TEST(DataPipelineSolver, DeclarationsMatchTheEnums) {
  const S s;
  ASSERT_EQ(s.params().size(), S::kParamCount);
  ASSERT_EQ(s.metrics().size(), S::kMetricCount);
  EXPECT_EQ(s.params()[S::stated_samples_per_s].name, "stated_samples_per_s");
  EXPECT_EQ(s.params()[S::decoded_sample_bytes].name, "decoded_sample_bytes");
  EXPECT_EQ(s.metrics()[S::step_time_s].name, "step_time_s");
  EXPECT_EQ(s.metrics()[S::crossover_batch].name, "crossover_batch");
  EXPECT_EQ(s.metrics()[S::memory_footprint_bytes].name, "memory_footprint_bytes");
  EXPECT_EQ(s.params()[S::decode].choices[S::gpu_sm], "gpu_sm");
  EXPECT_EQ(s.params()[S::step_model].choices[S::stated_rate], "stated_rate");
  for (const MetricSpec& m : s.metrics()) {
    EXPECT_TRUE(std::all_of(m.name.begin(), m.name.end(), [](char c) { return std::islower(c) || c == '_'; }))
        << m.name;
  }
}

// Roofline step: 3 x the eager forward pass; the seed's 2 GB/s CPU side prepares 4,000 images/s, more
// than the A100 trains, so the accelerator binds at 100% utilization and there is no crossover.
TEST(DataPipelineSolver, SeedConfigurationIsAcceleratorBound) {
  const HardwareSpec hw = a100();
  const Out o = run(seed_point(hw));
  ASSERT_EQ(o.result.status, PointStatus::ok);
  const double step = training_step(resnet50().eager, hw, Precision::fp16, 256, 0.5, 10e-6).latency_s();
  EXPECT_DOUBLE_EQ(o[S::step_time_s], step);
  EXPECT_DOUBLE_EQ(o[S::transform_time_s], 0.064);
  EXPECT_DOUBLE_EQ(o[S::cpu_throughput_bytes_per_s], 2e9);
  EXPECT_DOUBLE_EQ(o[S::transform_samples_per_s], 4000);
  EXPECT_DOUBLE_EQ(o[S::storage_time_s], 256 * 500e3 / 7e9);
  EXPECT_DOUBLE_EQ(o[S::host_transfer_time_s], 256 * 150528 / 32e9);
  EXPECT_GT(step, 0.064);
  EXPECT_DOUBLE_EQ(o[S::accelerator_utilization], 1.0);
  EXPECT_DOUBLE_EQ(o[S::gpu_only_samples_per_s], 256 / step);
  EXPECT_DOUBLE_EQ(o[S::pipeline_samples_per_s], 256 / step);
  EXPECT_DOUBLE_EQ(o[S::accelerator_idle_s], 0);
  EXPECT_DOUBLE_EQ(o[S::slowdown_factor], 1);
  // Eager ResNet-50 at fp16: unfused BN, ReLU and residual adds make memory time exceed compute.
  EXPECT_GT(o[S::step_memory_s], o[S::step_compute_s]);
  EXPECT_EQ(o[S::binding_constraint], S::accelerator_memory);
  EXPECT_TRUE(std::isnan(o[S::crossover_batch]));
  EXPECT_EQ(o[S::workers_needed], std::ceil(256 * 500e3 / (step * 250e6)));
  EXPECT_NEAR(o[S::no_prefetch_utilization],
              step / (step + 0.064 + 256 * 500e3 / 7e9 + 256 * 150528 / 32e9), 1e-15);
  EXPECT_NEAR(o[S::storage_demand_bytes_per_s], 256 * 500e3 / step, 1e-3);
  EXPECT_NEAR(o[S::storage_utilization], 256 * 500e3 / step / 7e9, 1e-15);
  EXPECT_NEAR(o[S::step_flops], 3 * 256 * resnet50().eager.total_flops_per_sample(), 1.0);
}

// seeds/001 Key Insight with its own stated rate: "5,300+ images per second" against 8 x 250 MB/s:
// the pipeline delivers 4,000 (not ~850), the GPU is 75% busy, and the CPU binds at every batch.
TEST(DataPipelineSolver, StatedRateReproducesTheSeedsArithmetic) {
  const HardwareSpec hw = a100();
  PointInputs in = seed_point(hw);
  in.values[S::step_model] = S::stated_rate;
  in.values[S::stated_samples_per_s] = 5300;
  const Out o = run(in);
  ASSERT_EQ(o.result.status, PointStatus::ok);
  EXPECT_NEAR(o[S::gpu_only_samples_per_s], 5300, 1e-9);
  EXPECT_NEAR(o[S::pipeline_samples_per_s], 4000, 1e-9);
  EXPECT_NEAR(o[S::accelerator_utilization], 4000.0 / 5300.0, 1e-12);
  EXPECT_EQ(o[S::binding_constraint], S::data_transform);
  EXPECT_EQ(o[S::crossover_batch], 0.0);
  EXPECT_EQ(o[S::workers_needed], 11);
  EXPECT_NEAR(o[S::storage_demand_bytes_per_s], 2.65e9, 1e-3);
  EXPECT_TRUE(std::isnan(o[S::step_compute_s]));
  // ~850 images/s needs 53.125 MB/s per worker; then utilization is 850 / 5,300 = 16%.
  in.values[S::cpu_throughput_per_worker] = 53.125e6;
  const Out slow = run(in);
  EXPECT_NEAR(slow[S::pipeline_samples_per_s], 850, 1e-9);
  EXPECT_NEAR(slow[S::accelerator_utilization], 850.0 / 5300.0, 1e-12);
  EXPECT_NEAR(slow[S::slowdown_factor], 5300.0 / 850.0, 1e-12);
}

// With the CPU rate the seed's ~850 implies, the roofline step and the transform cross at a small
// batch: below it the accelerator binds, above it the CPU.
TEST(DataPipelineSolver, BindingFlipsAtTheCrossoverBatch) {
  const HardwareSpec hw = a100();
  PointInputs in = seed_point(hw);
  in.values[S::cpu_throughput_per_worker] = 53.125e6;
  const double b_star = run(in)[S::crossover_batch];
  ASSERT_TRUE(std::isfinite(b_star));
  EXPECT_GT(b_star, 1);
  EXPECT_LT(b_star, 32);
  for (double b = 1; b <= 1024; b *= 2) {
    in.values[S::batch] = b;
    const Out o = run(in);
    EXPECT_DOUBLE_EQ(o[S::crossover_batch], b_star);
    if (b < b_star) {
      EXPECT_LT(o[S::binding_constraint], S::data_transform) << b;
      EXPECT_DOUBLE_EQ(o[S::accelerator_utilization], 1.0) << b;
    } else {
      EXPECT_EQ(o[S::binding_constraint], S::data_transform) << b;
      EXPECT_NEAR(o[S::accelerator_utilization], o[S::step_time_s] / o[S::transform_time_s], 1e-15) << b;
    }
  }
  // Section 6: at batch 512 more workers raise utilization; 32 workers (1.7 GB/s) keep up.
  in.values[S::batch] = 512;
  double previous = 0;
  for (double workers : {8.0, 16.0, 32.0}) {
    in.values[S::cpu_workers] = workers;
    const Out o = run(in);
    EXPECT_GT(o[S::accelerator_utilization], previous);
    previous = o[S::accelerator_utilization];
    EXPECT_EQ(o[S::accelerator_utilization] == 1.0, workers >= o[S::workers_needed]) << workers;
  }
}

// Exercise 3: decode on the GPU at 50 GB/s. A separate decode engine overlaps the step (the seed's
// model); decode kernels on the SMs lengthen it.
TEST(DataPipelineSolver, GpuDecode) {
  const HardwareSpec hw = a100();
  PointInputs in = seed_point(hw);
  in.values[S::batch] = 512;
  in.values[S::gpu_decode_bandwidth] = 50e9;
  in.values[S::decode] = S::gpu_engine;
  const Out engine = run(in);
  ASSERT_EQ(engine.result.status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(engine[S::transform_time_s], 512 * 500e3 / 50e9);
  EXPECT_DOUBLE_EQ(engine[S::host_transfer_time_s], 512 * 500e3 / 32e9);
  EXPECT_DOUBLE_EQ(engine[S::accelerator_utilization], 1.0);
  EXPECT_LT(engine[S::binding_constraint], S::data_transform);
  in.values[S::decode] = S::gpu_sm;
  const Out sm = run(in);
  const double step = sm[S::step_time_s];
  EXPECT_DOUBLE_EQ(sm[S::cycle_time_s], step + 512 * 500e3 / 50e9);
  EXPECT_NEAR(sm[S::accelerator_utilization], step / (step + 512 * 500e3 / 50e9), 1e-15);
  EXPECT_DOUBLE_EQ(sm[S::accelerator_idle_s], 0);
  EXPECT_TRUE(std::isnan(sm[S::crossover_batch]));
  // Exercise 2 with GPU decode: 5 MB images outrun 7 GB/s of storage.
  in.values[S::decode] = S::gpu_engine;
  in.values[S::sample_bytes] = 5e6;
  const Out big = run(in);
  EXPECT_EQ(big[S::binding_constraint], S::storage_read);
  EXPECT_NEAR(big[S::accelerator_utilization], big[S::step_time_s] / (512 * 5e6 / 7e9), 1e-15);
  EXPECT_GT(big[S::storage_utilization], 1.0);
  EXPECT_EQ(big[S::crossover_batch], training_crossover_batch(resnet50().eager, hw, Precision::fp16, 0.5, 10e-6, 0,
                                                              5e6 / 7e9));
}

TEST(DataPipelineSolver, HostLinkCanBind) {
  HardwareSpec hw = a100();
  hw.host_link_bandwidth_bytes_per_s = 0.1e9;
  const Out o = run(seed_point(hw));
  EXPECT_EQ(o[S::binding_constraint], S::host_link);
  EXPECT_NEAR(o[S::cycle_time_s], 256 * 150528 / 0.1e9, 1e-15);
}

TEST(DataPipelineSolver, InfeasiblePoints) {
  const HardwareSpec hw = a100();
  PointInputs in = seed_point(hw);
  in.values[S::step_model] = S::stated_rate;
  EXPECT_EQ(run(in).result.reason, S::missing_stated_rate);
  in = seed_point(hw);
  in.values[S::decode] = S::gpu_engine;
  EXPECT_EQ(run(in).result.reason, S::missing_gpu_decode_bandwidth);
  in = seed_point(hw);
  in.values[S::precision] = static_cast<double>(precision_index(Precision::int4));
  EXPECT_EQ(run(in).result.status, PointStatus::infeasible);
  EXPECT_EQ(run(in).result.reason, S::precision_unsupported);
  in = seed_point(hw);
  in.values[S::batch] = 8192;
  const Out big = run(in);
  EXPECT_EQ(big.result.status, PointStatus::infeasible);
  EXPECT_EQ(big.result.reason, S::exceeds_memory);
  EXPECT_GT(big[S::memory_footprint_bytes], hw.memory_bytes);
  // Batch 1024 still fits in 80 GiB.
  in.values[S::batch] = 1024;
  EXPECT_EQ(run(in).result.status, PointStatus::ok);
}

// ResNet-50's 25,557,032 parameters (torchvision) x 4 B of fp32 gradient = 102,228,128 B.
constexpr double kGradientBytes = 25557032.0 * 4;

// One GPU has nothing to reduce: the step, the totals and the efficiency are the single replica's.
TEST(DataPipelineSolver, OneGpuReducesNothing) {
  const HardwareSpec hw = a100();
  const Out o = run(seed_point(hw));
  EXPECT_EQ(o[S::all_reduce_s], 0.0);
  EXPECT_EQ(o[S::dp_comm_s], 0.0);
  EXPECT_EQ(o[S::scaling_efficiency], 1.0);
  EXPECT_DOUBLE_EQ(o[S::total_gpu_only_samples_per_s], o[S::gpu_only_samples_per_s]);
  EXPECT_DOUBLE_EQ(o[S::total_samples_per_s], o[S::pipeline_samples_per_s]);
}

// 8 GPUs on NVLink (300 GB/s one-way), no overlap: a ring all-reduce of 102.2 MB,
// 2 x 7/8 x 102,228,128 B / 300 GB/s + 14 x 0.5 us = 596.33 us + 7 us = 603.33 us, all of it exposed.
TEST(DataPipelineSolver, DataParallelRingAllReduceInANode) {
  const HardwareSpec hw = a100();
  PointInputs in = seed_point(hw);
  in.values[S::gpus] = 8;
  in.values[S::overlap] = 0;
  const Out one = run(seed_point(hw));
  const Out o = run(in);
  ASSERT_EQ(o.result.status, PointStatus::ok);
  EXPECT_NEAR(o[S::all_reduce_s], 603.3307e-6, 1e-10);
  EXPECT_NEAR(o[S::all_reduce_s], 2.0 * 7 / 8 * kGradientBytes / 300e9 + 14 * 0.5e-6, 1e-15);
  EXPECT_DOUBLE_EQ(o[S::dp_comm_s], o[S::all_reduce_s]);
  EXPECT_DOUBLE_EQ(o[S::step_time_s], one[S::step_time_s] + o[S::all_reduce_s]);
  EXPECT_DOUBLE_EQ(o[S::scaling_efficiency], one[S::step_time_s] / o[S::step_time_s]);
  EXPECT_DOUBLE_EQ(o[S::total_gpu_only_samples_per_s], 8 * 256 / o[S::step_time_s]);
  EXPECT_DOUBLE_EQ(o[S::gpu_only_samples_per_s], 256 / o[S::step_time_s]);
  // Replicas each hold the whole model: the footprint is one GPU's.
  EXPECT_DOUBLE_EQ(o[S::memory_footprint_bytes], one[S::memory_footprint_bytes]);
  // The crossover holds the exposed all-reduce as a fixed cost per step.
  in.values[S::cpu_throughput_per_worker] = 53.125e6;
  const Out slow = run(in);
  EXPECT_EQ(slow[S::crossover_batch],
            training_crossover_batch(resnet50().eager, hw, Precision::fp16, 0.5, 10e-6, 0, 500e3 / (8 * 53.125e6),
                                     slow[S::dp_comm_s]));
}

// Overlap with the backward pass (2/3 of the step). A stated rate of 256 images per 0.6 ms gives a
// 0.4 ms backward pass. Fully overlapped, the step waits for the larger of the last bucket's share and
// what the backward pass cannot hide: 25 MB buckets -> 603.33 us x 25e6 / 102,228,128 = 147.55 us
// against 603.33 - 400 = 203.33 us; with 1 MB buckets only the latter, 203.33 us; with one bucket as
// large as the gradient all of it; at overlap 0.5 (200 us of the backward) 403.33 us.
TEST(DataPipelineSolver, AllReduceOverlapsTheBackwardPass) {
  const HardwareSpec hw = a100();
  PointInputs in = seed_point(hw);
  in.values[S::gpus] = 8;
  in.values[S::step_model] = S::stated_rate;
  in.values[S::stated_samples_per_s] = 256 / 0.6e-3;
  const double reduce = 2.0 * 7 / 8 * kGradientBytes / 300e9 + 14 * 0.5e-6;
  EXPECT_NEAR(run(in)[S::dp_comm_s], reduce - 0.4e-3, 1e-12);
  in.values[S::bucket_bytes] = 1e6;
  EXPECT_NEAR(run(in)[S::dp_comm_s], 203.3307e-6, 1e-10);
  in.values[S::bucket_bytes] = kGradientBytes;
  EXPECT_NEAR(run(in)[S::dp_comm_s], reduce, 1e-15);
  in.values[S::bucket_bytes] = 25e6;
  in.values[S::overlap] = 0.5;
  EXPECT_NEAR(run(in)[S::dp_comm_s], reduce - 0.2e-3, 1e-12);
  // A long step hides all but the last bucket.
  in.values[S::stated_samples_per_s] = 256 / 0.1;
  const Out o = run(in);
  EXPECT_NEAR(o[S::dp_comm_s], 147.5452e-6, 1e-9);
  EXPECT_NEAR(o[S::dp_comm_s], reduce * 25e6 / kGradientBytes, 1e-15);
  EXPECT_NEAR(o[S::step_time_s], 0.1 + o[S::dp_comm_s], 1e-15);
}

// 16 GPUs in two nodes of 8: reduce-scatter over NVLink (7/8 x 102.2 MB / 300 GB/s + 7 x 0.5 us =
// 301.67 us), a ring of the 1/8 shard over the two nodes' NICs (8 NICs x 50 GB/s / 8 = 50 GB/s per
// ring: 2 x 1/2 x 12.78 MB / 50 GB/s + 2 x 5 us = 265.57 us), all-gather back (301.67 us): 868.90 us.
TEST(DataPipelineSolver, DataParallelAcrossNodes) {
  const HardwareSpec hw = a100();
  PointInputs in = seed_point(hw);
  in.values[S::gpus] = 16;
  in.values[S::overlap] = 0;
  const double in_node = 7.0 / 8 * kGradientBytes / 300e9 + 7 * 0.5e-6;
  const double across = kGradientBytes / 8 / 50e9 + 2 * 5e-6;
  const Out o = run(in);
  EXPECT_NEAR(o[S::all_reduce_s], 2 * in_node + across, 1e-15);
  EXPECT_NEAR(o[S::all_reduce_s], 868.9011e-6, 1e-10);
  // A slower fabric stretches only the part across nodes.
  in.values[S::fabric_bandwidth] = 25e9;
  EXPECT_NEAR(run(in)[S::all_reduce_s], 2 * in_node + kGradientBytes / 8 / 25e9 + 2 * 5e-6, 1e-15);
  // 12 GPUs do not fill two nodes of 8; 4 GPUs in one node do.
  in.values[S::gpus] = 12;
  EXPECT_EQ(run(in).result.reason, S::gpus_do_not_fill_nodes);
  in.values[S::gpus] = 4;
  EXPECT_EQ(run(in).result.status, PointStatus::ok);
  EXPECT_NEAR(run(in)[S::all_reduce_s], 2.0 * 3 / 4 * kGradientBytes / 300e9 + 6 * 0.5e-6, 1e-15);
}

// NCHW at fp16 adds the transposes' traffic, batch x bytes per sample / bandwidth, to the step; NHWC
// and fp32 add nothing.
TEST(DataPipelineSolver, NchwLayoutAddsTransposes) {
  HardwareSpec hw = a100();
  hw.peak_flops_per_s[index_of(Precision::fp32)] = 19.5e12;
  PointInputs in = seed_point(hw);
  const Out nhwc = run(in);
  in.values[S::memory_format] = S::nchw;
  const Out nchw = run(in);
  const double transposes = 256 * layout_transpose_bytes_per_sample(resnet50().eager, Precision::fp16) / 2.039e12;
  EXPECT_GT(transposes, 0.0);
  EXPECT_DOUBLE_EQ(nchw[S::step_layout_s], transposes);
  EXPECT_EQ(nhwc[S::step_layout_s], 0.0);
  EXPECT_NEAR(nchw[S::step_time_s], nhwc[S::step_time_s] + transposes, 1e-15);
  EXPECT_EQ(nchw[S::binding_constraint], S::accelerator_memory);
  in.values[S::precision] = static_cast<double>(precision_index(Precision::fp32));
  const Out fp32_nchw = run(in);
  in.values[S::memory_format] = S::nhwc;
  EXPECT_EQ(fp32_nchw[S::step_time_s], run(in)[S::step_time_s]);
}

// eta is the 16-bit tensor-core efficiency; fp32 runs at cuda_core_eta and tf32 at tf32_eta when
// they are set, at eta when they are 0.
TEST(DataPipelineSolver, EfficiencyOfTheUnitThePrecisionRunsOn) {
  HardwareSpec hw = a100();
  hw.peak_flops_per_s[index_of(Precision::fp32)] = 19.5e12;
  hw.peak_flops_per_s[index_of(Precision::tf32)] = 156e12;
  const ModelGraph& g = resnet50().eager;
  PointInputs in = seed_point(hw);
  in.values[S::cuda_core_eta] = 0.8;
  in.values[S::tf32_eta] = 0.2;
  EXPECT_DOUBLE_EQ(run(in)[S::step_compute_s], training_step(g, hw, Precision::fp16, 256, 0.5, 10e-6).compute_s);
  in.values[S::precision] = static_cast<double>(precision_index(Precision::fp32));
  EXPECT_DOUBLE_EQ(run(in)[S::step_compute_s], training_step(g, hw, Precision::fp32, 256, 0.8, 10e-6).compute_s);
  // 3 x 4.09 GMAC x 2 x 256 / (19.5 TFLOP/s x 0.8) = 0.40 s.
  EXPECT_NEAR(run(in)[S::step_compute_s], 0.40, 0.01);
  in.values[S::precision] = static_cast<double>(precision_index(Precision::tf32));
  EXPECT_DOUBLE_EQ(run(in)[S::step_compute_s], training_step(g, hw, Precision::tf32, 256, 0.2, 10e-6).compute_s);
  in.values[S::tf32_eta] = 0;
  EXPECT_DOUBLE_EQ(run(in)[S::step_compute_s], training_step(g, hw, Precision::tf32, 256, 0.5, 10e-6).compute_s);
}

// A 4 x 4 torus node (the A100's 300 GB/s one way shared by 4 links of 75 GB/s; engine/torus.hpp).
// All 16 chips: the wrapped torus is bandwidth-optimal, 2 x 15/16 S / 300 GB/s as on a switch, in 2 x
// (3 + 3) hops instead of 30. Eight chips: a 2 x 4 block, wrapped along its 4 only: per reduce-scatter
// max(1/2 x S/2 / 75, 3/4 x S/2 / 150) + max(3/4 x S/4 / 150, 1/2 x S/8 / 75) = 11/32 S / 75 GB/s in
// 3 + 3 hops, twice for the all-reduce.
TEST(DataPipelineSolver, OnATorusNodeTheReplicasReduceOnTheirBlock) {
  const HardwareSpec hw = a100();
  PointInputs in = seed_point(hw);
  in.values[S::overlap] = 0;
  in.values[S::gpus_per_node] = 16;
  in.values[S::torus_x] = 4;
  in.values[S::torus_y] = 4;
  in.values[S::gpus] = 16;
  Out o = run(in);
  ASSERT_EQ(o.result.status, PointStatus::ok);
  EXPECT_NEAR(o[S::all_reduce_s], 2.0 * 15 / 16 * kGradientBytes / 300e9 + 12 * 0.5e-6, 1e-15);
  in.values[S::gpus] = 8;
  o = run(in);
  ASSERT_EQ(o.result.status, PointStatus::ok);
  EXPECT_NEAR(o[S::all_reduce_s], 2 * (11.0 / 32 * kGradientBytes / 75e9 + 6 * 0.5e-6), 1e-15);
  in.values[S::torus_y] = 2;
  EXPECT_EQ(run(in).result.reason, S::torus_is_not_the_node);
}

}  // namespace
}  // namespace dsx
