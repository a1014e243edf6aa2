#include "engine/solvers/training.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include "engine/carbon.hpp"
#include "engine/dispatch.hpp"
#include "engine/economics.hpp"
#include "engine/laws.hpp"
#include "engine/offload.hpp"
#include "engine/parallelism.hpp"
#include "engine/pipeline.hpp"
#include "engine/reliability.hpp"
#include "engine/serving.hpp"
#include "engine/solvers/training_communication.hpp"
#include "engine/solvers/training_layout.hpp"
#include "engine/solvers/training_params.hpp"
#include "engine/solvers/training_stages.hpp"
#include "engine/training_memory.hpp"

namespace dsx {

using namespace training;

namespace {

constexpr double kLifetimeYears = 3;
constexpr double kMaintenancePerYear = 0.05;
constexpr double kRestartS = 300;                        // mlsysim ReliabilityModel recovery time
constexpr double kPsusPerNode = 2;

// The once-per-step update of one pipeline stage's weights and the offload traffic its memory implies
// (`tm`, the stage's memory; `trainable_share`, the trainable fraction of its weights).
void price_update(const TrainingMemory& tm, const OffloadParts& offloaded, double trainable_share, const HardwareSpec& hw,
                  double host_memory_bandwidth_bytes_per_s, StepInput& step) {
  const bool weights_offloaded = offloaded.weights;
  // The optimizer update reads and writes its states (fp32 master included), reads the gradients
  // and writes the trainable weights, once per step.
  // With the weights offloaded it still writes all of them (on their way to host memory).
  step.optimizer_step_bytes = 2.0 * tm.optimizer_bytes + tm.gradients_bytes +
                              (weights_offloaded ? tm.host_weights_bytes : tm.weights_bytes) * trainable_share;
  const double host_link = hw.host_link_bandwidth_bytes_per_s;
  if (offloaded.optimizer) {
    // The host updates the shard's states and writes its weights (as many bytes as its gradients);
    // gradients go down and weights come back over the host link, one way each.
    step.offload_update_s = (2.0 * tm.host_optimizer_bytes + 2.0 * tm.host_gradients_bytes) / host_memory_bandwidth_bytes_per_s;
    step.offload_gradients_to_host_s = tm.host_gradients_bytes / host_link;
    step.offload_weights_to_device_s = weights_offloaded ? 0.0 : tm.host_gradients_bytes / host_link;
  }
  if (weights_offloaded || offloaded.activations) {
    const LayerOffloadBytes layer = layer_offload_bytes(weights_offloaded, offloaded.activations,
                                                        tm.layer_weights_bytes, tm.layer_activations_bytes);
    step.offload_forward_bytes = layer.forward_bytes;
    step.offload_backward_bytes = layer.backward_bytes;
    step.host_link_bytes_per_s = host_link;
    // The accelerator's update writes the trainable weights, which then go back to host memory.
    if (weights_offloaded && !offloaded.optimizer) step.offload_once_s = tm.host_weights_bytes * trainable_share / host_link;
  }
}

}  // namespace

TrainingSolver::TrainingSolver()
    : TabledSolver("training",
                   "3D-parallel LLM training and LoRA fine-tuning (+ expert and context parallelism): memory per GPU, step time, "
                   "MFU/HFU, time, cost, energy and carbon",
                   training::param_specs(), training::metric_specs(), training::reasons()) {}

PointResult TrainingSolver::evaluate(const PointInputs& in, std::span<double> out) const {
  std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
  const HardwareSpec& hw = *in.hardware;
  const auto& v = in.values;
  // A transformer, a hybrid (Jamba) or an attention-free Mamba stack: a serving view of its graph.
  if (!in.model->servable) return {PointStatus::infeasible, not_a_transformer};
  const ServingShape& shape = in.model->serving_shape;
  // A torus node (TPU ICI, Trn2 NeuronLink) costs its in-node collectives on the torus
  // (engine/torus.hpp); a switched node keeps engine/collectives.hpp's.
  const TorusTopology torus = training_node_torus(in);
  TrainingLayout layout;
  if (const PointResult placed = place_training_ranks(in, torus, layout); placed.status != PointStatus::ok) return placed;
  const double n = layout.gpus, t = layout.tp, p = layout.pp, b = layout.micro_batch, cp = layout.cp;
  const double dp = layout.dp, node = layout.gpus_per_node, chunks_per_stage = layout.chunks_per_stage;
  const double m = layout.microbatches, stage_layers = layout.stage_layers, e = layout.ep, etp_degree = layout.etp;
  const Precision precision = kComputePrecision[static_cast<std::size_t>(v[Param::precision])];
  // bf16 on hardware without a bf16 peak runs at its fp16 peak, as the solver always has.
  const double bf16_peak = hw.supports(Precision::bf16) ? hw.peak(Precision::bf16) : hw.peak(Precision::fp16);
  if (precision != Precision::bf16 && !hw.supports(precision)) return {PointStatus::infeasible, precision_unsupported};
  const bool fp8 = precision == Precision::fp8;
  const bool mixed = precision != Precision::fp32 && precision != Precision::tf32;
  const double element_bytes = weight_bytes_per_param(mixed);  // activations, weights, gradients; fp8: bf16
  const Optimizer optimizer = kOptimizerKind[static_cast<std::size_t>(v[Param::optimizer])];
  const int finetune = static_cast<int>(v[Param::finetune]);
  const bool lora = finetune == kLora || finetune == kQlora;
  const int recompute = static_cast<int>(v[Param::recompute]);
  const int zero = static_cast<int>(v[Param::zero_stage]);
  const OffloadParts offloaded = kOffloadParts[static_cast<std::size_t>(v[Param::offload])];
  const bool offload = offloaded.optimizer;
  if (offload && v[Param::host_memory_bandwidth] <= 0) return {PointStatus::infeasible, offload_needs_host_bandwidth};
  const bool any_offload = offloaded.optimizer || offloaded.weights || offloaded.activations;
  if (any_offload && v[Param::host_memory_capacity] <= 0) return {PointStatus::infeasible, offload_needs_host_capacity};
  const bool weights_offloaded = offloaded.weights;
  const bool activations_offloaded = offloaded.activations;
  if ((weights_offloaded || activations_offloaded) && stage_layers < kMinLayersToOffload) {
    return {PointStatus::infeasible, offload_needs_three_layers};
  }
  const double s = shape.built_seq_len, h = shape.d_model, params = shape.parameter_count;
  const double active = shape.active_parameter_count;
  const double adapters = lora ? v[Param::lora_rank] * shape.adapter_in_out_elements : 0.0;
  const double active_adapters = lora ? v[Param::lora_rank] * shape.active_adapter_in_out_elements : 0.0;
  const double trainable = lora ? adapters : params;
  // Each CP rank holds s / cp tokens of the micro-batch.
  const double activation_message = b * s * h * element_bytes / cp;

  TrainingMemoryInput mem;
  mem.parameters = params;
  mem.expert_parameters = shape.expert_weight_elements;
  mem.expert_parallel = e;
  mem.expert_tensor_parallel = etp_degree;
  mem.layers = shape.layers;
  mem.hidden = h;
  mem.heads = shape.heads;
  mem.seq_len = s;
  mem.micro_batch = b;
  mem.tensor_parallel = t;
  mem.pipeline_parallel = p;
  // ZeRO shards over the DP x CP ranks, which hold the same weights (Megatron-Core's distributed
  // optimizer runs over the data-parallel group with context parallelism).
  mem.data_parallel = dp * cp;
  mem.stage_layers = stage_layers;
  // Interleaved 1F1B keeps (1 + (p-1)/(p v)) times the activations of 1F1B in flight on the first
  // stage (Korthikanti et al. 2022, section 4.2.3).
  mem.in_flight_microbatches = std::min(m, p) * (chunks_per_stage > 1 ? 1 + (p - 1) / (p * chunks_per_stage) : 1.0);
  mem.zero_stage = zero;
  mem.recompute = static_cast<Recomputation>(recompute);
  mem.attention = v[Param::attention] == 0 ? AttentionKernel::fused : AttentionKernel::unfused;
  mem.sequence_parallel = v[Param::sequence_parallel] == 1;
  mem.optimizer = optimizer;
  mem.mixed_precision = mixed;
  mem.activation_bytes_per_element = element_bytes;
  mem.context_parallel = cp;
  mem.recurrent_layers = shape.recurrent_layers;
  mem.recurrent_channels = shape.recurrent_channels;
  mem.recurrent_state_size = shape.recurrent_state_size;
  mem.recurrent_x_proj_width = shape.recurrent_x_proj_width;
  mem.ssd_layers = shape.ssd_layers;
  mem.recurrent_heads = shape.recurrent_heads;
  mem.recurrent_groups = shape.recurrent_groups;
  // A hybrid's Mamba layers have a feed-forward (Jamba: an MLP or a mixture of experts; Nemotron-H: the
  // MLP layer after each, counted with it), a Mamba stack's none.
  mem.recurrent_feed_forward = shape.feed_forward_layers >= shape.recurrent_layers;
  mem.feed_forward_layers = std::min(shape.feed_forward_layers, shape.layers);
  mem.frozen_base = lora;
  mem.base_weight_bytes_per_param = finetune == kQlora ? kNf4BytesPerParam : element_bytes;
  mem.adapter_parameters = adapters;
  mem.communication_buffer_bytes = p > 1 ? 2.0 * activation_message : 0.0;
  mem.optimizer_offload = offload;
  mem.weight_offload = weights_offloaded;
  mem.activation_offload = activations_offloaded;
  mem.capacity_bytes = hw.memory_bytes;
  // A hybrid (attention and Mamba layers) prices each stage's own layers: its Mamba layers'
  // activations, its layers' weights; the largest stage sets the memory per GPU.
  const bool hybrid = p > 1 && shape.attention_layers > 0 && shape.recurrent_layers > 0 &&
                      shape.layer_kinds.size() == static_cast<std::size_t>(shape.layers);
  const auto stage_count = static_cast<std::size_t>(p);
  const auto stage_chunks = static_cast<std::size_t>(chunks_per_stage);
  const auto stage_memory = [&mem](const StageKinds& k, const StageWeights& w) {
    TrainingMemoryInput stage_mem = mem;
    stage_mem.stage_layers = k.layers;
    stage_mem.stage_parameters = w.parameters;
    stage_mem.stage_expert_parameters = w.expert_parameters;
    stage_mem.stage_recurrent_layers = k.layers - k.attention;
    stage_mem.stage_feed_forward_layers = k.feed_forward;
    return training_memory(stage_mem);
  };
  TrainingMemory tm = training_memory(mem);
  if (hybrid) {
    tm.total_bytes = -1;
    StageKinds previous{.layers = -1};
    for (std::size_t stage = 0; stage < stage_count; ++stage) {
      const StageKinds k = stage_kinds(shape.layer_kinds, stage_count, stage_chunks, stage);
      if (k == previous) continue;
      previous = k;
      const TrainingMemory stage_tm = stage_memory(k, stage_weights(shape, k, p));
      if (stage_tm.total_bytes > tm.total_bytes) tm = stage_tm;
    }
  }
  out[memory_per_gpu_bytes] = tm.total_bytes;
  out[weights_bytes] = tm.weights_bytes;
  out[gradients_bytes] = tm.gradients_bytes;
  out[optimizer_bytes] = tm.optimizer_bytes;
  out[activations_bytes] = tm.activations_bytes;
  const double host_bytes =
      tm.host_gradients_bytes + tm.host_optimizer_bytes + tm.host_weights_bytes + tm.host_activations_bytes;
  out[host_memory_per_gpu_bytes] = host_bytes;
  out[fleet_model_state_bytes_per_param] = (tm.weights_bytes + tm.gradients_bytes + tm.optimizer_bytes) * n / params;
  out[Metric::dp] = dp;
  out[Metric::microbatches] = m;
  if (!tm.fits) return {PointStatus::infeasible, exceeds_memory};
  if (any_offload && host_bytes > v[Param::host_memory_capacity]) return {PointStatus::infeasible, exceeds_host_memory};

  StepInput step;
  step.parameters = lora ? active_adapters : active;
  step.frozen_parameters = lora ? active : 0.0;
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
  // fp8 linear GEMMs reach less of the doubled peak than bf16 ones reach of theirs (hardware.hpp).
  step.peak_flops_per_s = precision == Precision::bf16 ? bf16_peak : hw.gemm_peak(precision);
  step.attention_peak_flops_per_s = fp8 ? bf16_peak : 0.0;
  step.mfu_peak_flops_per_s = fp8 ? bf16_peak : 0.0;
  // fp8: the LM head is no Transformer Engine module and runs in bf16 (frozen under LoRA).
  if (fp8) (lora ? step.high_precision_frozen_parameters : step.high_precision_parameters) = shape.lm_head_weight_elements;
  step.context_parallel = cp;
  step.compute_efficiency = v[Param::eta] / v[Param::straggler_slowdown];
  step.attention_efficiency = v[Param::attention_eta] / v[Param::straggler_slowdown];
  step.attention_work_fraction = shape.causal ? 0.5 : 1.0;
  // Memory-bound work per token of the replica. An elementwise op reads its input and writes its
  // output forward; backward it reads its input and the output's gradient and writes the input's
  // gradient: 1.5 times the forward traffic, and full recomputation repeats the forward.
  const double elementwise_passes = 2.5 + (recompute >= 2 ? 1.0 : 0.0);
  const bool sp = v[Param::sequence_parallel] == 1;
  const double replicated_bytes = shape.replicated_elementwise_elements_per_token * element_bytes * elementwise_passes;
  // The loss reads the logits and writes their gradient.
  double split_bytes = shape.split_elementwise_elements_per_token * element_bytes * elementwise_passes +
                       2.0 * shape.logits_per_token * element_bytes;
  if (fp8) {
    // Transformer Engine casts each fp8 GEMM operand from bf16 and keeps its transpose for the
    // weight-gradient GEMM: 2 bytes read, 1 + 1 written per element of the forward inputs (again with
    // full recomputation) and of the backward output gradients.
    split_bytes += 4.0 * (shape.linear_input_elements_per_token * (recompute >= 2 ? 2.0 : 1.0) +
                          shape.linear_output_elements_per_token);
    // It casts this GPU's share of the linear layers' weights the same way on every forward pass (TE
    // Linear caches them over micro-batches only when the caller passes is_first_microbatch); cached:
    // once per step, spread over its m micro-batches.
    const double expert_weights = std::min(shape.expert_weight_elements, shape.linear_weight_elements);
    const double gpu_weights = (shape.linear_weight_elements - expert_weights) / (t * p) + expert_weights / (t * p * e);
    const bool cached = static_cast<int>(v[Param::fp8_weight_cast]) == kFp8WeightCastCached;
    step.memory_bytes_per_microbatch = 4.0 * gpu_weights * (cached ? 1.0 / m : (recompute >= 2 ? 2.0 : 1.0));
  }
  // The scans (Mamba layers): forward, backward at twice the forward (kTrainingPassMultiplier,
  // engine/pipeline.hpp) and the forward again under full recomputation, at engine/dispatch.hpp
  // scan_peak_flops_per_s (Mamba-1's on the vector units, Mamba-2's on the tensor cores).
  step.scan_flops_per_token = shape.scan_flops_per_token * (kTrainingPassMultiplier + (recompute >= 2 ? 1.0 : 0.0));
  step.scan_memory_bytes_per_token = shape.scan_elements_per_token * element_bytes * elementwise_passes;
  step.scan_peak_flops_per_s = scan_peak_flops_per_s(hw, precision, shape.scan_on_vector_units, step.peak_flops_per_s);
  step.split_memory_bytes_per_token = split_bytes + (sp ? replicated_bytes : 0.0);
  step.replicated_memory_bytes_per_token = sp ? 0.0 : replicated_bytes;
  step.memory_bytes_per_s = hw.memory_bandwidth_bytes_per_s * v[Param::memory_efficiency] /
                           (v[Param::memory_traffic] * v[Param::straggler_slowdown]);
  price_update(tm, offloaded, std::min(1.0, trainable / params), hw, v[Param::host_memory_bandwidth], step);
  const TrainingVolumes volumes = {.element_bytes = element_bytes,
                                   .activation_message_bytes = activation_message,
                                   .adapters = adapters,
                                   .base_weight_bytes_per_param = mem.base_weight_bytes_per_param,
                                   .lora = lora,
                                   .zero_stage = zero};
  if (const PointResult priced = price_training_communication(in, layout, torus, volumes, step); priced.status != PointStatus::ok) {
    return priced;
  }
  step.dp_overlap = v[Param::overlap];
  step.tp_overlap = v[Param::tp_overlap];
  step.gpus = n;
  StepResult r = training_step(step);
  if (hybrid) {
    // The busiest stage: its GEMMs (its layers' active weights), attention and scans at its own
    // shares, its layers' TP all-reduces and its MoE layers' all-to-alls; the slowest step is the one.
    const double mamba1_share = (shape.recurrent_layers - shape.ssd_layers) / shape.recurrent_layers;
    r.step_s = -1;
    StageKinds previous{.layers = -1};
    for (std::size_t stage = 0; stage < stage_count; ++stage) {
      const StageKinds k = stage_kinds(shape.layer_kinds, stage_count, stage_chunks, stage);
      if (k == previous) continue;
      previous = k;
      const StageWeights w = stage_weights(shape, k, p);
      StepInput stage_step = step;
      // Its own weights' update and offload traffic, and its own gradients' all-reduce.
      price_update(stage_memory(k, w), offloaded, std::min(1.0, trainable / params), hw, v[Param::host_memory_bandwidth],
                   stage_step);
      TrainingVolumes stage_volumes = volumes;
      stage_volumes.stage_parameters = w.parameters;
      stage_volumes.stage_expert_parameters = w.expert_parameters;
      if (const PointResult priced = price_training_communication(in, layout, torus, stage_volumes, stage_step);
          priced.status != PointStatus::ok) {
        return priced;
      }
      stage_step.stage_layers = k.layers;
      stage_step.gemm_imbalance = w.active_parameters / (active / p);
      stage_step.attention_imbalance = k.attention / (shape.attention_layers / p);
      stage_step.scan_imbalance = (k.layers - k.attention) / (shape.recurrent_layers / p);
      stage_step.stage_moe_layers = k.moe;
      if (shape.recurrent_layers > 0 && t > 1) {
        stage_step.tp_narrow_forward_calls_per_layer = (k.layers - k.attention) * mamba1_share / k.layers;
      }
      const StepResult stage_r = training_step(stage_step);
      if (stage_r.step_s > r.step_s) r = stage_r;
    }
  }

  out[step_time_s] = r.step_s;
  out[Metric::memory_bound_s] = r.memory_bound_s;
  out[Metric::optimizer_s] = r.optimizer_s;
  out[Metric::offload_exposed_s] = r.offload_s;
  out[compute_s] = r.compute_s;
  out[bubble_s] = r.bubble_s;
  out[tp_comm_s] = r.tp_comm_s;
  out[pp_comm_s] = r.pp_comm_s;
  out[ep_comm_s] = r.ep_comm_s;
  out[dp_comm_s] = r.dp_comm_s;
  out[Metric::cp_comm_s] = r.cp_comm_s;
  out[trainable_parameters] = trainable;
  out[bubble_fraction] = p > 1 ? pipeline_bubble_fraction(p, m, chunks_per_stage) : 0.0;
  out[scaling_efficiency] = r.scaling_efficiency;
  out[tokens_per_s] = r.tokens_per_s;
  out[tokens_per_s_per_gpu] = r.tokens_per_s / n;
  out[mfu] = r.mfu;
  out[hfu] = r.hfu;
  const double mfu_peak = fp8 ? step.mfu_peak_flops_per_s : step.peak_flops_per_s;
  out[tflops_per_gpu] = r.mfu * mfu_peak / 1e12;
  out[hardware_tflops_per_gpu] = r.hfu * mfu_peak / 1e12;
  out[active_parameters] = active;
  const double tokens = v[Param::training_tokens];
  const double duration_s = tokens / r.tokens_per_s;
  out[time_to_train_s] = duration_s;
  // The check's "P": the parameter FLOPs per token over 6 (4 N + 6 A with frozen weights).
  const double flops_parameters = lora ? (4 * active + 6 * active_adapters) / 6 : active;
  out[time_to_train_6pd_s] = training_time_s(flops_parameters, tokens, n, mfu_peak, r.mfu);

  const std::array<ComponentCount, 3> node_components = {
      {{node, kGpuMttfHours}, {node, kNicMttfHours}, {kPsusPerNode, kPsuMttfHours}}};
  const double mtbf_s =
      mtbf_h(failure_rate_per_h(node_components.data(), static_cast<int>(node_components.size()), n / node)) * 3600.0;
  // The trainable parameters' weights, master copy and optimizer states (a LoRA checkpoint leaves out
  // the frozen base, which is already on storage).
  const double checkpoint_size = (element_bytes + optimizer_bytes_per_param(optimizer, mixed, h)) * trainable;
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
  const double gpu_hour = hw.price_usd > 0 ? owned_usd_per_device_hour(own) : std::numeric_limits<double>::quiet_NaN();
  out[gpu_hour_cost_usd] = gpu_hour;
  out[cost_usd] = run_cost_usd(gpu_hour, n, duration_s);
  out[cost_per_million_tokens_usd] = usd_per_million_tokens(gpu_hour, n, r.tokens_per_s);
  return {};
}

double TrainingSolver::metric_upper_bound(const PointInputs& in, std::size_t metric) const {
  if (in.hardware == nullptr) return Solver::metric_upper_bound(in, metric);
  const HardwareSpec& hw = *in.hardware;
  const Precision precision = kComputePrecision[static_cast<std::size_t>(in.values[Param::precision])];
  // As evaluate(): bf16 on hardware without a bf16 peak runs at its fp16 peak.
  const double bf16_peak = hw.supports(Precision::bf16) ? hw.peak(Precision::bf16) : hw.peak(Precision::fp16);
  const double run_peak = precision == Precision::bf16 ? bf16_peak : hw.peak(precision);
  switch (metric) {
    case mfu:
    case hfu:
      return precision == Precision::fp8 && bf16_peak > 0 ? run_peak / bf16_peak : 1.0;
    case tflops_per_gpu:
    case hardware_tflops_per_gpu:
      return run_peak > 0 ? run_peak / 1e12 : Solver::metric_upper_bound(in, metric);
    default:
      return Solver::metric_upper_bound(in, metric);
  }
}

}  // namespace dsx
