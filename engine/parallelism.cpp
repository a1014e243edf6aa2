#include "engine/parallelism.hpp"

#include <algorithm>
#include <cmath>

#include "engine/offload.hpp"

namespace dsx {

double data_parallel_degree(double gpus, double tensor_parallel, double pipeline_parallel) {
  const double model_parallel = tensor_parallel * pipeline_parallel;
  if (model_parallel <= 0 || gpus < model_parallel) return 0.0;
  const double dp = gpus / model_parallel;
  return std::fabs(dp - std::round(dp)) < 1e-9 ? std::round(dp) : 0.0;
}

double pipeline_bubble_fraction(double stages, double microbatches, double virtual_stages) {
  return (stages - 1.0) / (virtual_stages * microbatches + stages - 1.0);
}

double pipeline_stretch(double stages, double microbatches, double virtual_stages) {
  return 1.0 + (stages - 1.0) / (virtual_stages * microbatches);
}

double model_flops_per_token(double parameters, double layers, double hidden, double seq_len, double frozen) {
  return 6.0 * parameters + 4.0 * frozen + 12.0 * layers * hidden * seq_len;
}

double hardware_flops_per_token(double parameters, double layers, double hidden, double seq_len, int recompute,
                                double frozen) {
  const double attention_forward = 4.0 * layers * hidden * seq_len;
  double extra = 0.0;
  if (recompute == 1) extra = attention_forward;
  if (recompute >= 2) extra = 2.0 * (parameters + frozen) + attention_forward;
  return model_flops_per_token(parameters, layers, hidden, seq_len, frozen) + extra;
}

double attention_flops_per_token(double layers, double hidden, double seq_len, int recompute) {
  return (recompute >= 1 ? 16.0 : 12.0) * layers * hidden * seq_len;
}

StepResult training_step(const StepInput& in) {
  StepResult r;
  const double tokens_per_microbatch = in.micro_batch * in.seq_len;
  const double shard = in.tensor_parallel * in.pipeline_parallel * in.context_parallel;
  const double hw_flops =
      hardware_flops_per_token(in.parameters, in.layers, in.hidden, in.seq_len, in.recompute, in.frozen_parameters);
  const double model_flops =
      model_flops_per_token(in.parameters, in.layers, in.hidden, in.seq_len, in.frozen_parameters);
  const double attention_peak = in.attention_peak_flops_per_s > 0 ? in.attention_peak_flops_per_s : in.peak_flops_per_s;
  const double attention_efficiency = in.attention_efficiency > 0 ? in.attention_efficiency : in.compute_efficiency;
  const double attention_flops = attention_flops_per_token(in.layers, in.hidden, in.seq_len, in.recompute);
  const double even_layers = in.layers / in.pipeline_parallel;
  const double layers_per_stage = in.stage_layers > 0 ? in.stage_layers : even_layers;
  const double imbalance = even_layers > 0 ? layers_per_stage / even_layers : 1.0;
  const double shard_tokens = tokens_per_microbatch * in.microbatches / shard * imbalance;
  // The high-precision GEMMs' FLOPs: 6 per trainable and 4 per frozen parameter, the forward's 2
  // again under full recomputation (as hardware_flops_per_token counts them).
  const double high_precision = in.high_precision_parameters + in.high_precision_frozen_parameters;
  const double high_precision_flops = 6.0 * in.high_precision_parameters + 4.0 * in.high_precision_frozen_parameters +
                                      (in.recompute >= 2 ? 2.0 * high_precision : 0.0);
  const double gemm_s_per_token =
      (hw_flops - attention_flops - high_precision_flops) / (in.peak_flops_per_s * in.compute_efficiency) +
      high_precision_flops / (attention_peak * in.compute_efficiency);
  const double attention_s_per_token =
      attention_flops * in.attention_work_fraction / (attention_peak * attention_efficiency);
  if (in.memory_bytes_per_s > 0) {
    r.memory_bound_s = ((in.split_memory_bytes_per_token + in.replicated_memory_bytes_per_token * in.tensor_parallel) *
                            shard_tokens +
                        in.memory_bytes_per_microbatch * in.microbatches * imbalance) /
                       in.memory_bytes_per_s;
    r.optimizer_s = in.optimizer_step_bytes / in.memory_bytes_per_s;
  }
  double scan_s_per_token = 0;
  if (in.scan_flops_per_token > 0 && in.scan_peak_flops_per_s > 0) {
    const double memory_s = in.memory_bytes_per_s > 0 ? in.scan_memory_bytes_per_token / in.memory_bytes_per_s : 0.0;
    scan_s_per_token =
        std::max(0.0, in.scan_flops_per_token / (in.scan_peak_flops_per_s * in.compute_efficiency) - memory_s);
  }
  if (in.gemm_imbalance > 0) {
    // Each part at its own stage share; the scans' bytes (in split_memory_bytes_per_token) move with
    // the Mamba layers, the rest of the memory-bound work with the layer count.
    const double even_tokens = tokens_per_microbatch * in.microbatches / shard;
    if (in.memory_bytes_per_s > 0) {
      r.memory_bound_s += in.scan_memory_bytes_per_token * even_tokens * (in.scan_imbalance - imbalance) /
                          in.memory_bytes_per_s;
    }
    r.compute_s = (gemm_s_per_token * in.gemm_imbalance + attention_s_per_token * in.attention_imbalance +
                   scan_s_per_token * in.scan_imbalance) * even_tokens + r.memory_bound_s;
  } else {
    r.compute_s = (gemm_s_per_token + attention_s_per_token + scan_s_per_token) * shard_tokens + r.memory_bound_s;
  }
  if (in.offload_update_s > 0) {
    // Backward is 2 of the 3 parameter-FLOP passes of a micro-batch (PaLM appendix B, 6 N = 2 N + 4 N).
    const double last_backward_s = r.compute_s / in.microbatches * 2.0 / 3.0;
    r.optimizer_s = std::max(0.0, in.offload_gradients_to_host_s - last_backward_s) + in.offload_update_s +
                    in.offload_weights_to_device_s;
  }
  const double stretch = in.pipeline_parallel > 1 ? pipeline_stretch(in.pipeline_parallel, in.microbatches, in.virtual_stages) : 1.0;
  r.bubble_s = r.compute_s * (stretch - 1.0);

  // Forward, backward (the conjugate of each), and the forward again under full recomputation.
  const double tp_passes = in.recompute >= 2 ? 3.0 : 2.0;
  const double tp_calls_per_layer = tp_passes * in.tp_forward_calls_per_layer;
  const double tp_layer_s =
      tp_calls_per_layer * in.tp_all_reduce_s + tp_passes * in.tp_narrow_forward_calls_per_layer * in.tp_narrow_all_reduce_s;
  r.tp_comm_s = in.tensor_parallel > 1 ? (1.0 - in.tp_overlap) * layers_per_stage * in.microbatches * tp_layer_s : 0.0;
  if (in.offload_forward_bytes > 0 || in.offload_backward_bytes > 0) {
    const double layer_steps = in.microbatches * layers_per_stage;
    // The forward's GEMMs (2 FLOPs per parameter per token, the frozen ones too) and attention
    // (4 L H Q T; PaLM appendix B) of one layer and micro-batch; the rest of its compute-bound time is backward.
    const double forward_gemm_s =
        2.0 * (in.parameters + in.frozen_parameters - high_precision) / (in.peak_flops_per_s * in.compute_efficiency) +
        2.0 * high_precision / (attention_peak * in.compute_efficiency);
    const double forward_attention_s =
        4.0 * in.layers * in.hidden * in.seq_len * in.attention_work_fraction / (attention_peak * attention_efficiency);
    const double layer_forward_s = (forward_gemm_s + forward_attention_s) * shard_tokens / layer_steps;
    const double layer_flops_s = (r.compute_s - r.memory_bound_s) / layer_steps;
    const double tp_forward_s = in.tensor_parallel > 1 ? (1.0 - in.tp_overlap) * tp_layer_s / tp_passes : 0.0;
    const double forward_window = layer_forward_s + tp_forward_s;
    const double backward_window = layer_flops_s - layer_forward_s + (tp_passes - 1.0) * tp_forward_s;
    const double layer_exposed_s =
        offload_exposed_s(in.offload_forward_bytes, in.host_link_bytes_per_s, forward_window) +
        offload_exposed_s(in.offload_backward_bytes, in.host_link_bytes_per_s, backward_window);
    r.offload_s = layer_exposed_s * layer_steps;
    r.bubble_s += r.offload_s * (stretch - 1.0);
    r.offload_s += in.offload_once_s;
  }
  r.pp_comm_s = in.pipeline_parallel > 1 ? 2.0 * in.virtual_stages * in.microbatches * in.pp_p2p_s : 0.0;
  const double ep_calls_per_layer = in.recompute >= 2 ? 6.0 : 4.0;
  r.ep_comm_s = !(in.expert_parallel > 1)   ? 0.0
                : in.stage_moe_layers >= 0 ? ep_calls_per_layer * in.stage_moe_layers * in.microbatches * in.ep_all_to_all_s
                                           : ep_calls_per_layer * in.moe_layers / in.pipeline_parallel * imbalance *
                                                 in.microbatches * in.ep_all_to_all_s;
  if (in.moe_tp_gather_scatter_s > 0) {
    const double moe_layers =
        in.stage_moe_layers >= 0 ? in.stage_moe_layers : in.moe_layers / in.pipeline_parallel * imbalance;
    r.ep_comm_s += tp_passes * moe_layers * in.microbatches * in.moe_tp_gather_scatter_s;
    r.tp_comm_s -= (1.0 - in.tp_overlap) * tp_passes * moe_layers * in.microbatches * in.tp_all_reduce_s;
  }
  r.dp_comm_s = in.data_parallel > 1 ? (1.0 - in.dp_overlap) * in.dp_all_reduce_s : 0.0;
  if (in.context_parallel > 1) {
    const double attention_layer_s = 4.0 * in.hidden * in.seq_len * tokens_per_microbatch /
                                     (in.tensor_parallel * in.context_parallel) /
                                     (attention_peak * attention_efficiency) * in.attention_work_fraction;
    const double exchanges_per_layer = in.recompute >= 2 ? 4.0 : 3.0;  // forward 1, backward 2, recomputed 1
    const double exposed_s = in.cp_all_gather ? in.cp_kv_exchange_s : std::max(0.0, in.cp_kv_exchange_s - attention_layer_s);
    r.cp_comm_s = exchanges_per_layer * layers_per_stage * in.microbatches * exposed_s;
  }
  r.step_s = r.compute_s + r.optimizer_s + r.bubble_s + r.tp_comm_s + r.pp_comm_s + r.ep_comm_s + r.dp_comm_s +
             r.cp_comm_s + r.offload_s;

  r.tokens_per_step = in.data_parallel * in.microbatches * tokens_per_microbatch;
  r.tokens_per_s = r.tokens_per_step / r.step_s;
  const double peak_total = in.gpus * (in.mfu_peak_flops_per_s > 0 ? in.mfu_peak_flops_per_s : in.peak_flops_per_s);
  r.mfu = model_flops * r.tokens_per_s / peak_total;
  r.hfu = hw_flops * r.tokens_per_s / peak_total;
  r.scaling_efficiency = r.compute_s / r.step_s;
  return r;
}

}  // namespace dsx
