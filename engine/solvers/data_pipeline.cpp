#include "engine/solvers/data_pipeline.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "engine/collectives.hpp"
#include "engine/pipeline.hpp"
#include "engine/solvers/torus_params.hpp"
#include "engine/torus.hpp"

namespace dsx {

namespace {

constexpr std::array<std::string_view, 2> kExecutions = {"eager", "compiled"};
constexpr std::array<std::string_view, 2> kStepModels = {"roofline", "stated_rate"};
constexpr std::array<std::string_view, 3> kDecodes = {"cpu", "gpu_engine", "gpu_sm"};
constexpr std::array<std::string_view, 2> kMemoryFormats = {"nhwc", "nchw"};
constexpr double kDdpBucketBytes = 25e6;   // PyTorch DistributedDataParallel bucket_cap_mb default
constexpr double kBackwardShare = 2.0 / 3.0;  // backward = 2 of the step's 3 forward-pass equivalents
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kMaxQuantity = 1e18;
// 224 x 224 x 3 bytes: the uint8 RGB crop ResNet-50 takes (He et al. 2016, section 3.4).
constexpr double kResnetCropBytes = 224.0 * 224.0 * 3.0;

constexpr std::array<ParamSpec, DataPipelineSolver::kParamCount> kParams = {{
    {.name = "hardware", .kind = ParamKind::hardware, .description = "accelerator (catalog id)"},
    {.name = "model", .kind = ParamKind::model, .description = "model trained (catalog id)"},
    {.name = "precision", .kind = ParamKind::precision,
     .description = "numeric precision of weights, activations and the compute roof"},
    {.name = "batch", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "samples per training step", .has_default = true, .default_value = 1, .min_value = 1,
     .max_value = 1e9, .integer = true},
    {.name = "eta", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "achieved fraction of the peak FLOP/s in the step's roofline (seeds/004): the tensor-core peak "
                    "at 16 bits and narrower, and at tf32 and fp32 unless tf32_eta or cuda_core_eta is set; no default",
     .min_value = 0, .max_value = 1, .min_exclusive = true},
    {.name = "execution", .kind = ParamKind::choice, .choices = kExecutions,
     .description = "eager (one kernel per op) or compiled (element-wise chains fused)", .has_default = true,
     .default_value = 0},
    {.name = "launch_overhead", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "CPU-side cost of one kernel launch, forward and backward (5-20 µs eager, seeds/000)",
     .min_value = 0, .max_value = 1.0},
    {.name = "step_model", .kind = ParamKind::choice, .choices = kStepModels,
     .description = "roofline: 3 x the forward pass's operator roofline; stated_rate: batch / stated_samples_per_s",
     .has_default = true, .default_value = 0},
    {.name = "stated_samples_per_s", .kind = ParamKind::number, .dimension = Dimension::rate,
     .description = "GPU-only training rate used when step_model = stated_rate (0 = none given)",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = kMaxQuantity},
    {.name = "sample_bytes", .kind = ParamKind::number, .dimension = Dimension::bytes,
     .description = "stored (compressed) size of one sample, e.g. a JPEG", .min_value = 0,
     .max_value = kMaxQuantity, .min_exclusive = true},
    {.name = "cpu_workers", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "data-loader worker processes decoding and augmenting on the CPU", .min_value = 1,
     .max_value = 1e6, .integer = true},
    {.name = "cpu_throughput_per_worker", .kind = ParamKind::number, .dimension = Dimension::bandwidth,
     .description = "compressed bytes one CPU worker decodes and augments per second", .min_value = 0,
     .max_value = kMaxQuantity, .min_exclusive = true},
    {.name = "storage_bandwidth", .kind = ParamKind::number, .dimension = Dimension::bandwidth,
     .description = "read bandwidth of the dataset's storage (local NVMe, network file system)", .min_value = 0,
     .max_value = kMaxQuantity, .min_exclusive = true},
    {.name = "decode", .kind = ParamKind::choice, .choices = kDecodes,
     .description = "where samples are decoded: cpu workers, a GPU decode engine (overlaps the step) or "
                    "GPU SMs (adds to the step)",
     .has_default = true, .default_value = 0},
    {.name = "gpu_decode_bandwidth", .kind = ParamKind::number, .dimension = Dimension::bandwidth,
     .description = "compressed bytes per second decoded on the GPU (decode = gpu_engine or gpu_sm; 0 = none given)",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = kMaxQuantity},
    {.name = "decoded_sample_bytes", .kind = ParamKind::number, .dimension = Dimension::bytes,
     .description = "bytes per sample copied to the device after CPU decode (default: a 224 x 224 x 3 uint8 crop)",
     .has_default = true, .default_value = kResnetCropBytes, .min_value = 0, .max_value = kMaxQuantity,
     .min_exclusive = true},
    {.name = "memory_format", .kind = ParamKind::choice, .choices = kMemoryFormats,
     .description = "activation layout: nhwc (channels last) or nchw (tensor-core convs transpose in and out)",
     .has_default = true, .default_value = 0},
    {.name = "gpus", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "data-parallel replicas, each training `batch` samples per step", .has_default = true,
     .default_value = 1, .min_value = 1, .max_value = 1e7, .integer = true},
    {.name = "gpus_per_node", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "GPUs sharing one accelerator-link domain (8: DGX/HGX)", .has_default = true, .default_value = 8,
     .min_value = 1, .max_value = 1024, .integer = true},
    {.name = "fabric_bandwidth", .kind = ParamKind::number, .dimension = Dimension::bandwidth,
     .description = "one-way bandwidth of one GPU's NIC across nodes (default IB NDR 400 Gb/s = 50 GB/s)",
     .has_default = true, .default_value = 50e9, .min_value = 0, .max_value = 1e14, .min_exclusive = true},
    {.name = "fabric_latency", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "one-way latency of a transfer across nodes (default IB NDR, 5 µs)", .has_default = true,
     .default_value = kFabricAlphaS, .min_value = 0, .max_value = 1e-2},
    {.name = "overlap", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "share of the backward pass the gradient all-reduce can run under (the last bucket never is)",
     .has_default = true, .default_value = 1, .min_value = 0, .max_value = 1},
    {.name = "bucket_bytes", .kind = ParamKind::number, .dimension = Dimension::bytes,
     .description = "gradient bucket all-reduced at a time (PyTorch DDP default 25 MB); the last one is exposed",
     .has_default = true, .default_value = kDdpBucketBytes, .min_value = 0, .max_value = kMaxQuantity,
     .min_exclusive = true},
    {.name = "gradient_bytes_per_parameter", .kind = ParamKind::number, .dimension = Dimension::bytes,
     .description = "bytes per parameter in the gradient all-reduce (4: fp32 gradients of AMP)", .has_default = true,
     .default_value = 4, .min_value = 0, .max_value = 64, .min_exclusive = true},
    {.name = "cuda_core_eta", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "achieved fraction of the CUDA-core peak at fp32/fp64 (no tensor cores); 0 = eta",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1},
    {.name = "tf32_eta", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "achieved fraction of the TF32 tensor-core peak at precision tf32; 0 = eta",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1},
    torus_param("torus_x"),
    torus_param("torus_y"),
    torus_param("torus_z"),
}};

constexpr std::array<MetricSpec, DataPipelineSolver::kMetricCount> kMetrics = {{
    {"step_time_s", Dimension::time,
     "accelerator training step alone (forward + backward, + the exposed gradient all-reduce), the GPU-only time"},
    {"transform_time_s", Dimension::time, "decode + augmentation of one batch: batch x sample_bytes / throughput"},
    {"storage_time_s", Dimension::time, "reading one batch: batch x sample_bytes / storage_bandwidth"},
    {"host_transfer_time_s", Dimension::time, "copying one batch over the host link"},
    {"cycle_time_s", Dimension::time, "time per batch with prefetching: the slowest stage"},
    {"accelerator_utilization", Dimension::dimensionless,
     "step / cycle: the seed's step / max(step, transform) with every stage included", MetricDomain::fraction},
    {"no_prefetch_utilization", Dimension::dimensionless, "step / sum of all stages (stages run one after another)", MetricDomain::fraction},
    {"accelerator_idle_s", Dimension::time, "time per cycle the accelerator waits for data"},
    {"slowdown_factor", Dimension::dimensionless, "cycle / step (the seed's slowdown factor)"},
    {"gpu_only_samples_per_s", Dimension::rate, "batch / step: what the accelerator could train if never starved"},
    {"pipeline_samples_per_s", Dimension::rate, "batch / cycle: what the whole pipeline delivers"},
    {"transform_samples_per_s", Dimension::rate, "samples the decode path (CPU workers or GPU decoder) prepares per second"},
    {"cpu_throughput_bytes_per_s", Dimension::bandwidth, "cpu_workers x cpu_throughput_per_worker"},
    {"storage_demand_bytes_per_s", Dimension::bandwidth, "batch x sample_bytes / step: what the unstarved accelerator reads"},
    {"storage_utilization", Dimension::dimensionless, "storage demand / storage_bandwidth (> 1: storage stalls the step)"},
    {"binding_constraint", Dimension::dimensionless,
     "slowest stage: 0 accelerator compute (or a stated rate), 1 accelerator memory, 2 accelerator kernel launches, "
     "3 data transform, 4 storage read, 5 host link"},
    {"workers_needed", Dimension::count, "CPU workers for CPU decode to keep up with the step: ceil(batch x sample_bytes / (step x per-worker throughput))"},
    {"crossover_batch", Dimension::count,
     "smallest batch at which the slowest data stage takes as long as the step; empty if it never does"},
    {"step_compute_s", Dimension::time, "roofline step: FLOPs / (peak x eta), forward + backward"},
    {"step_memory_s", Dimension::time, "roofline step: memory time not hidden behind compute"},
    {"step_dispatch_s", Dimension::time, "roofline step: kernel launches x launch_overhead"},
    {"step_flops", Dimension::flops, "FLOP per training step: 3 x forward"},
    {"memory_footprint_bytes", Dimension::bytes, "16 B per parameter + activations kept for the backward pass"},
    {"step_layout_s", Dimension::time, "roofline step: NCHW <-> NHWC transposes around tensor-core convs (nchw)"},
    {"all_reduce_s", Dimension::time, "gradient all-reduce over the gpus (ring in a node, hierarchical across nodes)"},
    {"dp_comm_s", Dimension::time, "all-reduce time the step waits for (not hidden under the backward pass)"},
    {"scaling_efficiency", Dimension::dimensionless, "compute step / (compute step + exposed all-reduce)",
     MetricDomain::fraction},
    {"total_gpu_only_samples_per_s", Dimension::rate, "gpus x gpu_only_samples_per_s: the job, never starved"},
    {"total_samples_per_s", Dimension::rate, "gpus x pipeline_samples_per_s: what the job trains"},
}};

constexpr std::array<std::string_view, 6> kReasons = {
    kPrecisionUnsupported, "training step does not fit in device memory",
    "step_model stated_rate needs stated_samples_per_s > 0",
    "GPU decode needs gpu_decode_bandwidth > 0",
    "gpus above gpus_per_node must fill whole nodes (a multiple of gpus_per_node)",
    "the torus dimensions (torus_x x torus_y x torus_z) must multiply to gpus_per_node"};

}  // namespace

DataPipelineSolver::DataPipelineSolver()
    : TabledSolver("data_pipeline",
                   "training step fed by storage, decode/augment and host copy: utilization, binding stage, crossover batch",
                   kParams, kMetrics, kReasons) {}

PointResult DataPipelineSolver::evaluate(const PointInputs& in, std::span<double> out) const {
  const HardwareSpec& hw = *in.hardware;
  const auto precision = kAllPrecisions[static_cast<std::size_t>(in.values[Param::precision])];
  const double batch_size = in.values[Param::batch];
  const double unit_eta = !tensor_core_precision(precision)  ? in.values[Param::cuda_core_eta]
                          : precision == Precision::tf32     ? in.values[Param::tf32_eta]
                                                             : 0.0;
  const double eta_value = unit_eta > 0 ? unit_eta : in.values[Param::eta];
  const double launch = in.values[Param::launch_overhead];
  const auto model_kind = static_cast<StepModel>(in.values[Param::step_model]);
  const double stated_rate_value = in.values[Param::stated_samples_per_s];
  const double sample = in.values[Param::sample_bytes];
  const double workers = in.values[Param::cpu_workers];
  const double per_worker = in.values[Param::cpu_throughput_per_worker];
  const double storage_bw = in.values[Param::storage_bandwidth];
  const auto decode_at = static_cast<Decode>(in.values[Param::decode]);
  const double gpu_decode_bw = in.values[Param::gpu_decode_bandwidth];
  const double decoded_bytes = in.values[Param::decoded_sample_bytes];
  const bool channels_first = static_cast<MemoryFormat>(in.values[Param::memory_format]) == nchw;
  const double n_gpus = in.values[Param::gpus];
  const double node = in.values[Param::gpus_per_node];
  const ModelGraph& graph = in.model->graph(static_cast<Execution>(in.values[Param::execution]));
  std::fill(out.begin(), out.end(), kNaN);
  if (!hw.supports(precision)) return {PointStatus::infeasible, precision_unsupported};
  if (model_kind == stated_rate && !(stated_rate_value > 0)) return {PointStatus::infeasible, missing_stated_rate};
  if (decode_at != cpu && !(gpu_decode_bw > 0)) return {PointStatus::infeasible, missing_gpu_decode_bandwidth};
  if (n_gpus > node && std::fmod(n_gpus, node) != 0) return {PointStatus::infeasible, gpus_do_not_fill_nodes};

  const ExecutionBreakdown b = training_step(graph, hw, precision, batch_size, eta_value, launch);
  const double layout_s_per_sample =
      model_kind == roofline && channels_first
          ? layout_transpose_bytes_per_sample(graph, precision) / hw.memory_bandwidth_bytes_per_s
          : 0.0;
  const double layout_s = batch_size * layout_s_per_sample;
  const double compute_step = model_kind == stated_rate ? batch_size / stated_rate_value : b.latency_s() + layout_s;

  const double parameters = graph.parameter_count > 0 ? graph.parameter_count : graph.total_weight_elements();
  const double gradient_bytes = parameters * in.values[Param::gradient_bytes_per_parameter];
  HierarchicalFabric fabric;
  fabric.gpus_per_node = std::min(n_gpus, node);
  fabric.intra_bandwidth_bytes_per_s = hw.accelerator_link_bandwidth_bytes_per_s > 0
                                           ? hw.accelerator_link_bandwidth_bytes_per_s
                                           : hw.host_link_bandwidth_bytes_per_s;
  fabric.intra_alpha_s = kNvlinkAlphaS;
  fabric.nic_bandwidth_bytes_per_s = in.values[Param::fabric_bandwidth];
  fabric.nics_per_node = fabric.gpus_per_node;  // one NIC per GPU
  fabric.inter_alpha_s = in.values[Param::fabric_latency];
  // A torus node reduces inside the node on the replicas' block of its torus (engine/torus.hpp).
  const TorusTopology torus = node_torus(in.values[Param::torus_x], in.values[Param::torus_y],
                                         in.values[Param::torus_z], fabric.intra_bandwidth_bytes_per_s);
  if (torus.count > 0 && torus_chips(torus) != node) return {PointStatus::infeasible, torus_is_not_the_node};
  const double nodes = n_gpus / fabric.gpus_per_node;
  const double reduce_s =
      torus.count > 0
          ? torus_hierarchical_all_reduce_s(gradient_bytes, nodes, torus_group(torus, fabric.gpus_per_node), fabric)
          : hierarchical_all_reduce_s(gradient_bytes, nodes, fabric);
  const double last_bucket_share = std::min(1.0, in.values[Param::bucket_bytes] / gradient_bytes);
  const double exposed_s = std::max({0.0, reduce_s * last_bucket_share,
                                     reduce_s - in.values[Param::overlap] * kBackwardShare * compute_step});
  const double step = compute_step + exposed_s;
  const double cpu_bw = dsx::cpu_throughput_bytes_per_s(workers, per_worker);
  const double decode_bw = decode_at == cpu ? cpu_bw : gpu_decode_bw;
  const double decode_s = stage_time_s(batch_size, sample, decode_bw);
  const double read_s = stage_time_s(batch_size, sample, storage_bw);
  const double link_bytes = decode_at == cpu ? decoded_bytes : sample;
  const double link_s = stage_time_s(batch_size, link_bytes, hw.host_link_bandwidth_bytes_per_s);
  // Decode kernels on the SMs lengthen the accelerator's stage; elsewhere decode is its own stage.
  const double accelerator_s = step + (decode_at == gpu_sm ? decode_s : 0.0);
  const double transform_stage_s = decode_at == gpu_sm ? 0.0 : decode_s;
  const double data_s = std::max({transform_stage_s, read_s, link_s});
  const double cycle = std::max(accelerator_s, data_s);

  double binding = 0;
  if (accelerator_s >= data_s) {
    const double decode_part = decode_at == gpu_sm ? decode_s : 0.0;
    if (model_kind == stated_rate) {
      const std::array<double, 3> parts = {compute_step, decode_part, exposed_s};
      const std::array<Binding, 3> codes = {accelerator_compute, data_transform, gradient_all_reduce};
      binding = codes[static_cast<std::size_t>(std::max_element(parts.begin(), parts.end()) - parts.begin())];
    } else {
      const std::array<double, 5> parts = {b.compute_s, b.memory_s + layout_s, b.dispatch_s, decode_part, exposed_s};
      const std::array<Binding, 5> codes = {accelerator_compute, accelerator_memory, accelerator_dispatch,
                                            data_transform, gradient_all_reduce};
      binding = codes[static_cast<std::size_t>(std::max_element(parts.begin(), parts.end()) - parts.begin())];
    }
  } else if (transform_stage_s >= read_s && transform_stage_s >= link_s) {
    binding = data_transform;
  } else {
    binding = read_s >= link_s ? storage_read : host_link;
  }

  const double extra_step_per_sample = decode_at == gpu_sm ? sample / gpu_decode_bw : 0.0;
  const double data_per_sample =
      std::max({decode_at == gpu_sm ? 0.0 : sample / decode_bw, sample / storage_bw,
                link_bytes / hw.host_link_bandwidth_bytes_per_s});
  const double crossover =
      model_kind == stated_rate
          ? dsx::crossover_batch({.intercept_s = exposed_s,
                                  .slope_s_per_sample = 1.0 / stated_rate_value + extra_step_per_sample},
                                 data_per_sample)
          : training_crossover_batch(graph, hw, precision, eta_value, launch,
                                     extra_step_per_sample + layout_s_per_sample, data_per_sample, exposed_s);
  const double demand = dsx::storage_demand_bytes_per_s(batch_size, sample, step);

  out[step_time_s] = step;
  out[transform_time_s] = decode_s;
  out[storage_time_s] = read_s;
  out[host_transfer_time_s] = link_s;
  out[cycle_time_s] = cycle;
  out[accelerator_utilization] = step / cycle;
  out[no_prefetch_utilization] = step / (accelerator_s + transform_stage_s + read_s + link_s);
  out[accelerator_idle_s] = cycle - accelerator_s;
  out[slowdown_factor] = cycle / step;
  out[gpu_only_samples_per_s] = batch_size / step;
  out[pipeline_samples_per_s] = batch_size / cycle;
  out[transform_samples_per_s] = batch_size / decode_s;
  out[cpu_throughput_bytes_per_s] = cpu_bw;
  out[storage_demand_bytes_per_s] = demand;
  out[storage_utilization] = demand / storage_bw;
  out[binding_constraint] = binding;
  out[workers_needed] = dsx::workers_needed(batch_size, sample, step, per_worker);
  out[crossover_batch] = crossover;
  if (model_kind == roofline) {
    out[step_compute_s] = b.compute_s;
    out[step_memory_s] = b.memory_s;
    out[step_dispatch_s] = b.dispatch_s;
  }
  out[step_flops] = b.flops;
  const double footprint = training_memory_bytes(graph, precision, batch_size);
  out[memory_footprint_bytes] = footprint;
  if (model_kind == roofline) out[step_layout_s] = layout_s;
  out[all_reduce_s] = reduce_s;
  out[dp_comm_s] = exposed_s;
  out[scaling_efficiency] = compute_step / step;
  out[total_gpu_only_samples_per_s] = n_gpus * batch_size / step;
  out[total_samples_per_s] = n_gpus * batch_size / cycle;
  if (footprint > hw.memory_bytes) return {PointStatus::infeasible, exceeds_memory};
  return {};
}

}  // namespace dsx
