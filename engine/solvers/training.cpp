#include "engine/solvers/training.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "engine/carbon.hpp"
#include "engine/collectives.hpp"
#include "engine/economics.hpp"
#include "engine/laws.hpp"
#include "engine/parallelism.hpp"
#include "engine/reliability.hpp"
#include "engine/serving.hpp"
#include "engine/training_memory.hpp"

namespace dsx {

namespace {

constexpr std::array<std::string_view, 3> kRecompute = {"none", "selective", "full"};
constexpr std::array<std::string_view, 2> kAttention = {"fused", "unfused"};
constexpr double kNvlinkAlphaS = 0.5e-6;  // mlsysim alpha_intra
constexpr double kFabricAlphaS = 5e-6;    // mlsysim IB NDR latency: the default fabric_latency
constexpr double kBytesPerActivation = 2;  // bf16
constexpr double kBytesPerGradient = 2;    // bf16 gradients reduced across DP
constexpr double kLifetimeYears = 3;
constexpr double kMaintenancePerYear = 0.05;
constexpr double kCheckpointBytesPerParam = 14;        // 2 bf16 + 4 master + 4 + 4 Adam moments
constexpr double kCheckpointBandwidthBytesPerS = 100e9;  // mlsysim recovery profile: the default
constexpr double kRestartS = 300;                        // mlsysim ReliabilityModel recovery time
constexpr double kPsusPerNode = 2;

constexpr std::array<ParamSpec, TrainingSolver::kParamCount> kParams = {{
    {.name = "hardware", .kind = ParamKind::hardware, .description = "accelerator (catalog id); all GPUs alike"},
    {.name = "model", .kind = ParamKind::model,
     .description = "transformer (catalog id; dense or mixture of experts, MHA/GQA or MLA); its seq_len is used"},
    {.name = "gpus", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "accelerators in the job (gpus_per_node per node)", .has_default = true, .default_value = 1024,
     .min_value = 1, .max_value = 1e7, .integer = true},
    {.name = "tp", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "tensor-parallel degree (on NVLink inside a node; a multiple of the node across nodes)",
     .has_default = true, .default_value = 8, .min_value = 1, .max_value = 1024, .integer = true},
    {.name = "pp", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "pipeline-parallel stages (1F1B)", .has_default = true, .default_value = 1, .min_value = 1,
     .max_value = 1024, .integer = true},
    {.name = "ep", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "expert-parallel degree: routed experts sharded over ep data-parallel ranks (MoE only)",
     .has_default = true, .default_value = 1, .min_value = 1, .max_value = 1e6, .integer = true},
    {.name = "micro_batch", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "sequences per micro-batch", .has_default = true, .default_value = 1, .min_value = 1,
     .max_value = 1e4, .integer = true},
    {.name = "global_batch", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "sequences per optimizer step (= dp x micro_batch x microbatches)", .has_default = true,
     .default_value = 1024, .min_value = 1, .max_value = 1e8, .integer = true},
    {.name = "recompute", .kind = ParamKind::choice, .choices = kRecompute,
     .description = "activation recomputation (Korthikanti et al. 2022)", .has_default = true, .default_value = 1},
    {.name = "zero_stage", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "ZeRO stage 0-3 (Rajbhandari et al. 2020)", .has_default = true, .default_value = 1,
     .min_value = 0, .max_value = 3, .integer = true},
    {.name = "training_tokens", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "tokens of the whole run (D)", .has_default = true, .default_value = 15e12, .min_value = 1,
     .max_value = 1e16},
    {.name = "eta", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "achieved fraction of bf16 peak on the per-GPU compute", .has_default = true,
     .default_value = 0.5, .min_value = 0, .max_value = 1, .min_exclusive = true},
    {.name = "fabric_bandwidth", .kind = ParamKind::number, .dimension = Dimension::bandwidth,
     .description = "one-way bandwidth of one GPU's NIC (default IB NDR 400 Gb/s = 50 GB/s)", .has_default = true,
     .default_value = 50e9, .min_value = 0, .max_value = 1e14, .min_exclusive = true},
    {.name = "overlap", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "fraction of the DP gradient communication hidden behind backward compute",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1},
    {.name = "pue", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "power usage effectiveness of the data centre", .has_default = true, .default_value = 1.12,
     .min_value = 1, .max_value = 5},
    {.name = "carbon_intensity_g_per_kwh", .kind = ParamKind::number, .dimension = Dimension::carbon_intensity,
     .description = "grid carbon intensity (g CO2e/kWh)", .has_default = true,
     .default_value = 429, .min_value = 0, .max_value = 2000},
    {.name = "electricity_usd_per_kwh", .kind = ParamKind::number, .dimension = Dimension::energy_price,
     .description = "electricity price (USD/kWh)", .has_default = true, .default_value = 0.12,
     .min_value = 0, .max_value = 10},
    {.name = "wue_l_per_kwh", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "on-site water usage effectiveness (L per kWh of IT energy)", .has_default = true,
     .default_value = 1.8, .min_value = 0, .max_value = 20},
    {.name = "attention", .kind = ParamKind::choice, .choices = kAttention,
     .description = "fused (FlashAttention: the s x s scores are never stored) or unfused (stored without "
                    "recomputation, Korthikanti et al. Table 2)",
     .has_default = true, .default_value = 0},
    {.name = "virtual_stages", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "model chunks per pipeline stage: 1 = 1F1B, v > 1 = interleaved 1F1B (Narayanan et al. 2021)",
     .has_default = true, .default_value = 1, .min_value = 1, .max_value = 64, .integer = true},
    {.name = "gpus_per_node", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "GPUs sharing one NVLink domain (8: DGX/HGX; 72: GB200 NVL72)", .has_default = true,
     .default_value = 8, .min_value = 1, .max_value = 1024, .integer = true},
    {.name = "fabric_latency", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "one-way latency of a transfer across nodes (default IB NDR, 5 us)", .has_default = true,
     .default_value = kFabricAlphaS, .min_value = 0, .max_value = 1e-2},
    {.name = "oversubscription", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "fabric oversubscription k (k:1): transfers across nodes run at fabric_bandwidth / k",
     .has_default = true, .default_value = 1, .min_value = 1, .max_value = 64},
    {.name = "straggler_slowdown", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "slowest rank's compute time over the mean (>= 1): a synchronous step waits for it",
     .has_default = true, .default_value = 1, .min_value = 1, .max_value = 10},
    {.name = "checkpoint_bandwidth", .kind = ParamKind::number, .dimension = Dimension::bandwidth,
     .description = "storage write bandwidth of a checkpoint (default 100 GB/s)", .has_default = true,
     .default_value = kCheckpointBandwidthBytesPerS, .min_value = 0, .max_value = 1e15, .min_exclusive = true},
}};

constexpr std::array<MetricSpec, TrainingSolver::kMetricCount> kMetrics = {{
    {"step_time_s", Dimension::time, "compute + bubble + exposed TP/PP/DP communication"},
    {"compute_s", Dimension::time, "one GPU's shard of all micro-batches at eta x peak"},
    {"bubble_s", Dimension::time, "pipeline fill and drain: compute x (p-1)/m"},
    {"tp_comm_s", Dimension::time, "tensor-parallel all-reduces per step"},
    {"pp_comm_s", Dimension::time, "pipeline point-to-point per step"},
    {"ep_comm_s", Dimension::time, "expert-parallel dispatch and combine all-to-alls per step"},
    {"dp_comm_s", Dimension::time, "exposed data-parallel gradient communication per step"},
    {"bubble_fraction", Dimension::dimensionless, "(p-1)/(m+p-1)"},
    {"scaling_efficiency", Dimension::dimensionless, "compute_s / step_time_s"},
    {"tokens_per_s", Dimension::rate, "global training tokens per second (DP x m x b x s / step)"},
    {"mfu", Dimension::dimensionless, "model FLOPs utilization (PaLM appendix B)"},
    {"hfu", Dimension::dimensionless, "hardware FLOPs utilization (with recomputation)"},
    {"tflops_per_gpu", Dimension::dimensionless, "achieved model TFLOP/s per GPU (mfu x peak / 1e12)"},
    {"hardware_tflops_per_gpu", Dimension::dimensionless,
     "achieved hardware TFLOP/s per GPU, recomputation included (hfu x peak / 1e12; Megatron-LM's convention)"},
    {"active_parameters", Dimension::count, "parameters one token uses (all of them for a dense model)"},
    {"dp", Dimension::count, "data-parallel degree gpus / (tp x pp)"},
    {"microbatches", Dimension::count, "micro-batches per step per replica"},
    {"memory_per_gpu_bytes", Dimension::bytes, "weights + gradients + optimizer + activations + buffers"},
    {"weights_bytes", Dimension::bytes, "bf16 weights per GPU"},
    {"gradients_bytes", Dimension::bytes, "bf16 gradients per GPU"},
    {"optimizer_bytes", Dimension::bytes, "fp32 master + Adam moments per GPU"},
    {"activations_bytes", Dimension::bytes, "stored activations per GPU (first pipeline stage)"},
    {"fleet_model_state_bytes_per_param", Dimension::dimensionless,
     "(weights + gradients + optimizer) on all GPUs / parameters: 16 x dp / (ZeRO sharding); 16 at ZeRO-3"},
    {"time_to_train_s", Dimension::time, "training_tokens / tokens_per_s"},
    {"time_to_train_6pd_s", Dimension::time, "6 P_active D / (N X MFU): check (no attention term)"},
    {"fleet_mtbf_s", Dimension::time, "1 / sum of component failure rates of gpus / 8 nodes"},
    {"checkpoint_interval_s", Dimension::time, "Daly 2006 optimum for a checkpoint of checkpoint_s"},
    {"goodput", Dimension::dimensionless, "1 - checkpoint / period - (restart + period / 2) / MTBF"},
    {"time_with_failures_s", Dimension::time, "time_to_train_s / goodput"},
    {"gpu_power_w", Dimension::power, "per GPU: TDP x (idle + (1 - idle) x compute share)"},
    {"energy_j", Dimension::energy, "facility energy of the run (IT x PUE)"},
    {"co2_kg", Dimension::dimensionless, "operational CO2e of the run in kg"},
    {"water_l", Dimension::dimensionless, "on-site water of the run in litres: IT energy (kWh) x WUE"},
    {"gpu_hour_cost_usd", Dimension::money, "owned GPU-hour: capex / 3 y + 5 %/y maintenance + electricity"},
    {"cost_usd", Dimension::money, "cost of the run"},
    {"cost_per_million_tokens_usd", Dimension::money, "cost per million training tokens"},
    {"tokens_per_s_per_gpu", Dimension::rate, "tokens_per_s / gpus (what torchtitan and llm-foundry report)"},
    {"checkpoint_bytes", Dimension::bytes, "one checkpoint: 14 B per parameter (bf16 weights, fp32 master and Adam moments)"},
    {"checkpoint_s", Dimension::time, "time to write one checkpoint: checkpoint_bytes / checkpoint_bandwidth"},
}};

constexpr std::array<std::string_view, 12> kReasons = {
    "model is not a transformer (no qkv_proj / attention_scores op)",
    "tp x pp does not divide gpus",
    "tp and gpus_per_node must nest: one divides the other (TP groups tile nodes)",
    "tp must divide the attention heads",
    "pp x virtual_stages exceeds the layers (every model chunk needs one)",
    "global_batch is not a multiple of dp x micro_batch",
    "does not fit in device memory",
    "no GPU price in the catalog",
    "ep > 1 needs a mixture-of-experts model",
    "ep must divide dp (Megatron-Core shards experts within the data-parallel group)",
    "ep must divide the number of routed experts",
    "interleaved stages need the micro-batches per step to be a multiple of pp (Megatron-LM's schedule)",
};

// Layers of the busiest pipeline stage when `layers` split into stages x chunks_per_stage model chunks
// as evenly as they go (the first layers % chunks chunks get one more, as Megatron-LM and torchtitan
// split a stack that does not divide): a stage holds chunks_per_stage chunks, so the busiest holds as
// many of the larger chunks as there are.
double busiest_stage_layers(double layers, double stages, double chunks_per_stage) {
  const double chunks = stages * chunks_per_stage;
  const double small = std::floor(layers / chunks);
  const double larger = layers - chunks * small;
  return chunks_per_stage * small + std::min(chunks_per_stage, larger);
}

}  // namespace

TrainingSolver::TrainingSolver()
    : TabledSolver("training",
                   "3D-parallel LLM training (+ expert parallelism): memory per GPU, step time, MFU/HFU, time, cost, energy and carbon",
                   kParams, kMetrics, kReasons) {}

PointResult TrainingSolver::evaluate(const PointInputs& in, std::span<double> out) const {
  std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
  const HardwareSpec& hw = *in.hardware;
  const auto& v = in.values;
  if (!in.model->is_transformer) return {PointStatus::infeasible, not_a_transformer};
  const ServingShape& shape = in.model->serving_shape;
  const double n = v[Param::gpus], t = v[Param::tp], p = v[Param::pp], b = v[Param::micro_batch];
  const double dp = data_parallel_degree(n, t, p);
  if (dp == 0) return {PointStatus::infeasible, tp_pp_do_not_divide_gpus};
  const double node = v[Param::gpus_per_node];
  if (std::fmod(t > node ? t : node, t > node ? node : t) != 0) return {PointStatus::infeasible, tp_and_node_do_not_nest};
  if (std::fmod(shape.heads, t) != 0) return {PointStatus::infeasible, tp_must_divide_heads};
  const double chunks_per_stage = v[Param::virtual_stages];
  if (p * chunks_per_stage > shape.layers) return {PointStatus::infeasible, pp_exceeds_layers};
  const double m = v[Param::global_batch] / (dp * b);
  if (m < 1 || m != std::floor(m)) return {PointStatus::infeasible, batch_not_divisible};
  if (chunks_per_stage > 1 && std::fmod(m, p) != 0) return {PointStatus::infeasible, interleave_needs_microbatches};
  const double stage_layers = busiest_stage_layers(shape.layers, p, chunks_per_stage);
  const double e = v[Param::ep];
  if (e > 1 && shape.experts <= 0) return {PointStatus::infeasible, ep_needs_moe};
  if (std::fmod(dp, e) != 0) return {PointStatus::infeasible, ep_must_divide_dp};
  if (e > 1 && std::fmod(shape.experts, e) != 0) return {PointStatus::infeasible, ep_must_divide_experts};
  const int recompute = static_cast<int>(v[Param::recompute]);
  const int zero = static_cast<int>(v[Param::zero_stage]);
  const double s = shape.built_seq_len, h = shape.d_model, params = shape.parameter_count;
  const double active = shape.active_parameter_count;
  const double activation_message = b * s * h * kBytesPerActivation;

  TrainingMemoryInput mem;
  mem.parameters = params;
  mem.expert_parameters = shape.expert_weight_elements;
  mem.expert_parallel = e;
  mem.layers = shape.layers;
  mem.hidden = h;
  mem.heads = shape.heads;
  mem.seq_len = s;
  mem.micro_batch = b;
  mem.tensor_parallel = t;
  mem.pipeline_parallel = p;
  mem.data_parallel = dp;
  mem.stage_layers = stage_layers;
  // Interleaved 1F1B keeps (1 + (p-1)/(p v)) times the activations of 1F1B in flight on the first
  // stage (Korthikanti et al. 2022, section 4.2.3).
  mem.in_flight_microbatches = std::min(m, p) * (chunks_per_stage > 1 ? 1 + (p - 1) / (p * chunks_per_stage) : 1.0);
  mem.zero_stage = zero;
  mem.recompute = static_cast<Recomputation>(recompute);
  mem.attention = v[Param::attention] == 0 ? AttentionKernel::fused : AttentionKernel::unfused;
  mem.sequence_parallel = true;
  mem.communication_buffer_bytes = p > 1 ? 2.0 * activation_message : 0.0;
  mem.capacity_bytes = hw.memory_bytes;
  const TrainingMemory tm = training_memory(mem);
  out[memory_per_gpu_bytes] = tm.total_bytes;
  out[weights_bytes] = tm.weights_bytes;
  out[gradients_bytes] = tm.gradients_bytes;
  out[optimizer_bytes] = tm.optimizer_bytes;
  out[activations_bytes] = tm.activations_bytes;
  out[fleet_model_state_bytes_per_param] = (tm.weights_bytes + tm.gradients_bytes + tm.optimizer_bytes) * n / params;
  out[Metric::dp] = dp;
  out[Metric::microbatches] = m;
  if (!tm.fits) return {PointStatus::infeasible, exceeds_memory};
  if (hw.price_usd <= 0) return {PointStatus::infeasible, no_price};

  const double nvlink = hw.accelerator_link_bandwidth_bytes_per_s > 0 ? hw.accelerator_link_bandwidth_bytes_per_s
                                                                      : hw.host_link_bandwidth_bytes_per_s;
  const double nic = v[Param::fabric_bandwidth] / v[Param::oversubscription];
  const double fabric_alpha = v[Param::fabric_latency];
  const double dp_in_node = std::min(dp, std::max(1.0, std::floor(node / t)));
  HierarchicalFabric fabric;
  fabric.gpus_per_node = dp_in_node;
  fabric.intra_bandwidth_bytes_per_s = nvlink;
  fabric.intra_alpha_s = kNvlinkAlphaS;
  fabric.nic_bandwidth_bytes_per_s = nic;
  fabric.nics_per_node = dp_in_node;  // one NIC per GPU
  fabric.inter_alpha_s = fabric_alpha;
  const double expert_params = shape.expert_weight_elements;
  const double dense_gradient_bytes = (params - expert_params) / (t * p) * kBytesPerGradient;
  const double expert_gradient_bytes = expert_params / (t * p * e) * kBytesPerGradient;
  const double dp_volume = zero >= 3 ? 1.5 : 1.0;
  // Expert gradients are reduced over the dp / ep expert-DP ranks, `t x ep` apart in rank order.
  const double expert_dp = dp / e;
  HierarchicalFabric expert_fabric = fabric;
  expert_fabric.gpus_per_node = std::min(expert_dp, std::max(1.0, std::floor(node / (t * e))));
  expert_fabric.nics_per_node = expert_fabric.gpus_per_node;
  const double expert_dp_s =
      expert_gradient_bytes > 0 ? hierarchical_all_reduce_s(expert_gradient_bytes, expert_dp / expert_fabric.gpus_per_node,
                                                            expert_fabric)
                                : 0.0;
  const bool ep_in_node = t * e <= node;
  const double dispatch_bytes = b * s * shape.experts_per_token * h * kBytesPerActivation / t;

  StepInput step;
  step.parameters = active;
  step.layers = shape.layers;
  step.stage_layers = stage_layers;
  step.virtual_stages = chunks_per_stage;
  step.hidden = shape.attention_width;
  step.seq_len = s;
  step.micro_batch = b;
  step.microbatches = m;
  step.tensor_parallel = t;
  step.pipeline_parallel = p;
  step.data_parallel = dp;
  step.recompute = recompute;
  step.peak_flops_per_s = hw.supports(Precision::bf16) ? hw.peak(Precision::bf16) : hw.peak(Precision::fp16);
  step.compute_efficiency = v[Param::eta] / v[Param::straggler_slowdown];
  // A TP group larger than a node rings through the NICs, whose hops are its slowest links.
  step.tp_all_reduce_s = t <= node ? ring_all_reduce_s(activation_message, t, nvlink, kNvlinkAlphaS)
                                   : ring_all_reduce_s(activation_message, t, nic, fabric_alpha);
  step.pp_p2p_s = point_to_point_s(activation_message / t, nic, fabric_alpha);
  step.dp_all_reduce_s =
      dp_volume * (hierarchical_all_reduce_s(dense_gradient_bytes, dp / dp_in_node, fabric) + expert_dp_s);
  step.expert_parallel = e;
  step.moe_layers = shape.moe_layers;
  step.ep_all_to_all_s = e > 1 ? all_to_all_s(dispatch_bytes, e, ep_in_node ? nvlink : nic,
                                              ep_in_node ? kNvlinkAlphaS : fabric_alpha)
                               : 0.0;
  step.dp_overlap = v[Param::overlap];
  step.gpus = n;
  const StepResult r = training_step(step);

  out[step_time_s] = r.step_s;
  out[compute_s] = r.compute_s;
  out[bubble_s] = r.bubble_s;
  out[tp_comm_s] = r.tp_comm_s;
  out[pp_comm_s] = r.pp_comm_s;
  out[ep_comm_s] = r.ep_comm_s;
  out[dp_comm_s] = r.dp_comm_s;
  out[bubble_fraction] = p > 1 ? pipeline_bubble_fraction(p, m, chunks_per_stage) : 0.0;
  out[scaling_efficiency] = r.scaling_efficiency;
  out[tokens_per_s] = r.tokens_per_s;
  out[tokens_per_s_per_gpu] = r.tokens_per_s / n;
  out[mfu] = r.mfu;
  out[hfu] = r.hfu;
  out[tflops_per_gpu] = r.mfu * step.peak_flops_per_s / 1e12;
  out[hardware_tflops_per_gpu] = r.hfu * step.peak_flops_per_s / 1e12;
  out[active_parameters] = active;
  const double tokens = v[Param::training_tokens];
  const double duration_s = tokens / r.tokens_per_s;
  out[time_to_train_s] = duration_s;
  out[time_to_train_6pd_s] = training_time_s(active, tokens, n, step.peak_flops_per_s, r.mfu);

  const std::array<ComponentCount, 3> node_components = {
      {{node, kGpuMttfHours}, {node, kNicMttfHours}, {kPsusPerNode, kPsuMttfHours}}};
  const double mtbf_s =
      mtbf_h(failure_rate_per_h(node_components.data(), static_cast<int>(node_components.size()), n / node)) * 3600.0;
  const double checkpoint_size = kCheckpointBytesPerParam * params;
  const double checkpoint_s = checkpoint_size / v[Param::checkpoint_bandwidth];
  out[checkpoint_bytes] = checkpoint_size;
  out[Metric::checkpoint_s] = checkpoint_s;
  const double interval_s = daly_interval_s(checkpoint_s, mtbf_s);
  const double useful = goodput_fraction(interval_s, checkpoint_s, kRestartS, mtbf_s);
  out[fleet_mtbf_s] = mtbf_s;
  out[checkpoint_interval_s] = interval_s;
  out[goodput] = useful;
  out[time_with_failures_s] = useful > 0 ? duration_s / useful : std::numeric_limits<double>::infinity();

  const double power = device_power_w(hw.tdp_w, hw.idle_power_fraction, r.scaling_efficiency);
  out[gpu_power_w] = power;
  FootprintInput fp;
  fp.devices = n;
  fp.device_power_w = power;
  fp.duration_s = duration_s;
  fp.pue = v[Param::pue];
  fp.carbon_g_per_kwh = v[Param::carbon_intensity_g_per_kwh];
  fp.wue_l_per_kwh = v[Param::wue_l_per_kwh];
  const Footprint f = footprint(fp);
  out[energy_j] = f.facility_energy_j;
  out[co2_kg] = f.operational_co2_kg;
  out[water_l] = f.water_l;

  OwnershipInput own;
  own.capex_usd = hw.price_usd;
  own.lifetime_years = kLifetimeYears;
  own.maintenance_fraction_per_year = kMaintenancePerYear;
  own.power_w = power;
  own.pue = v[Param::pue];
  own.electricity_usd_per_kwh = v[Param::electricity_usd_per_kwh];
  const double gpu_hour = owned_usd_per_device_hour(own);
  out[gpu_hour_cost_usd] = gpu_hour;
  out[cost_usd] = run_cost_usd(gpu_hour, n, duration_s);
  out[cost_per_million_tokens_usd] = usd_per_million_tokens(gpu_hour, n, r.tokens_per_s);
  return {};
}

}  // namespace dsx
