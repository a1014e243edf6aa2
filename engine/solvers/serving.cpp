#include "engine/solvers/serving.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "engine/efficiency.hpp"
#include "engine/queueing.hpp"
#include "engine/serving.hpp"

namespace dsx {

namespace {

constexpr std::array<std::string_view, 2> kBatching = {"continuous", "static"};
constexpr double kSecondsPerYear = 365.0 * 24 * 3600;
constexpr double kSecondsPerHour = 3600.0;
constexpr double kP99 = 0.99;
constexpr double kBatchedFrom = 32;  // seeds/004: "Inference decode, batch=32+"

constexpr std::array<std::string_view, 2> kOutputLengths = {"uniform", "fixed"};

constexpr std::array<ParamSpec, ServingSolver::kParamCount> kParams = {{
    {.name = "hardware", .kind = ParamKind::hardware, .description = "accelerator (catalog id); all tp GPUs alike"},
    {.name = "model", .kind = ParamKind::model, .description = "transformer model (catalog id)"},
    {.name = "precision", .kind = ParamKind::precision,
     .description = "precision of weights, activations and the compute roof"},
    {.name = "kv_precision", .kind = ParamKind::precision, .description = "storage precision of the KV cache",
     .has_default = true, .default_value = static_cast<double>(index_of(Precision::fp16))},
    {.name = "batch", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "concurrent sequences per replica (decode batch); 0 = as many as the KV cache holds next to "
                    "the weights (a benchmark at maximum load)",
     .has_default = true, .default_value = 1, .min_value = 0, .max_value = 1e6, .integer = true},
    {.name = "prompt_tokens", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "prompt (input) tokens per request", .has_default = true, .default_value = 2048,
     .min_value = 1, .max_value = 1e7, .integer = true},
    {.name = "output_tokens", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "generated tokens per request (mean)", .has_default = true, .default_value = 256,
     .min_value = 1, .max_value = 1e7, .integer = true},
    {.name = "tp", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "tensor-parallel GPUs per replica, inside one node", .has_default = true, .default_value = 1,
     .min_value = 1, .max_value = 1024, .integer = true},
    {.name = "eta", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "prefill fraction of peak FLOP/s; 0 = seeds/004 prefill_long_context default (0.40)",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1},
    {.name = "eta_decode", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "decode fraction of peak FLOP/s; 0 = seeds/004 default, 0.03 at batch 1 to 0.25 at batch 32+ "
                    "(log-linear in batch)",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1},
    {.name = "batching", .kind = ParamKind::choice, .choices = kBatching,
     .description = "continuous (iteration-level, Orca/vLLM) or static (request-level) batching",
     .has_default = true, .default_value = 0},
    {.name = "arrival_rate", .kind = ParamKind::number, .dimension = Dimension::rate,
     .description = "Poisson request arrivals per second at one replica; 0 = no queue", .has_default = true,
     .default_value = 0, .min_value = 0, .max_value = 1e9},
    {.name = "gpu_hour_price", .kind = ParamKind::number, .dimension = Dimension::money,
     .description = "USD per GPU-hour; 0 = catalog price amortised over lifetime", .has_default = true,
     .default_value = 0, .min_value = 0, .max_value = 1e6},
    {.name = "lifetime", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "amortisation period of the purchase price (default 3 years)", .has_default = true,
     .default_value = 3 * kSecondsPerYear, .min_value = 0, .max_value = 1e10, .min_exclusive = true},
    {.name = "link_latency", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "alpha of one ring all-reduce step (default 0.5 us: mlsysim catalog NVLink latency)",
     .has_default = true, .default_value = 0.5e-6, .min_value = 0, .max_value = 1e-2},
    {.name = "ep", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "expert-parallel groups of tp GPUs (MoE only): attention data-parallel over them, routed experts "
                    "sharded over all tp x ep GPUs",
     .has_default = true, .default_value = 1, .min_value = 1, .max_value = 256, .integer = true},
    {.name = "memory_efficiency", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "achieved fraction of the datasheet memory bandwidth for weight and KV streams (default 1; "
                    "calibrated)",
     .has_default = true, .default_value = 1, .min_value = 0, .max_value = 1, .min_exclusive = true},
    {.name = "output_lengths", .kind = ParamKind::choice, .choices = kOutputLengths,
     .description = "uniform on (0, 2 x output_tokens] (a static batch waits for its longest request) or fixed "
                    "(every request generates output_tokens, as fixed-length benchmarks do)",
     .has_default = true, .default_value = 0},
    {.name = "step_overhead", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "fixed time of one prefill or decode iteration: scheduling, sampling, launches (default 0; "
                    "calibrated)",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 10},
    {.name = "gpus_per_node", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "GPUs sharing one NVLink domain, the most one replica spans (8: HGX/DGX; 72: GB200 NVL72)",
     .has_default = true, .default_value = 8, .min_value = 1, .max_value = 1024, .integer = true},
}};

constexpr std::array<MetricSpec, ServingSolver::kMetricCount> kMetrics = {{
    {"ttft_s", Dimension::time, "time to first token: prefill of one prompt (continuous) or of the batch (static)"},
    {"itl_s", Dimension::time, "inter-token latency (TPOT), exclusive of the first token"},
    {"e2e_latency_s", Dimension::time, "ttft_s + (output_tokens - 1) x itl_s"},
    {"tokens_per_s", Dimension::rate, "output tokens per second of one replica (all tp GPUs)"},
    {"tokens_per_s_per_gpu", Dimension::rate, "tokens_per_s / (tp x ep)"},
    {"tokens_per_s_per_user", Dimension::rate, "1 / itl_s"},
    {"requests_per_s", Dimension::rate, "tokens_per_s / output_tokens"},
    {"prefill_s", Dimension::time, "prefill of the whole batch's prompts"},
    {"decode_step_s", Dimension::time, "one decode step of the batch at the mean context"},
    {"decode_compute_s", Dimension::time, "compute part of a decode step"},
    {"decode_memory_s", Dimension::time, "memory part of a decode step (weights + KV read)"},
    {"decode_communication_s", Dimension::time, "tensor-parallel all-reduces + expert-parallel all-to-alls of a decode step"},
    {"kv_cache_bytes", Dimension::bytes, "KV cache of one sequence at prompt + output tokens (whole replica)"},
    {"kv_cache_per_token_bytes", Dimension::bytes,
     "2 x layers x kv_heads x head_dim x bytes(kv_precision); MLA: layers x (kv_lora_rank + qk_rope_head_dim) x bytes"},
    {"weights_per_gpu_bytes", Dimension::bytes, "(non-expert parameters / tp + expert parameters / (tp x ep)) x bytes(precision)"},
    {"memory_bytes", Dimension::bytes, "per GPU: weights + KV cache of its group's ceil(batch / ep) sequences at full length"},
    {"max_batch", Dimension::count, "largest batch whose KV cache fits next to the weights: ep x per-group fit"},
    {"static_tokens_per_s", Dimension::rate, "replica throughput with static batching"},
    {"continuous_tokens_per_s", Dimension::rate, "replica throughput with continuous batching"},
    {"continuous_speedup_vs_static", Dimension::dimensionless, "continuous_tokens_per_s / static_tokens_per_s"},
    {"concurrency", Dimension::count, "requests in the system (Little's law L = lambda W)"},
    {"queue_utilization", Dimension::dimensionless, "arrival_rate x e2e / batch (M/M/c rho); 0 without arrivals"},
    {"p99_latency_s", Dimension::time, "e2e latency + 0.99 quantile of the M/M/c wait"},
    {"p99_ttft_s", Dimension::time, "ttft + 0.99 quantile of the M/M/c wait"},
    {"gpu_hour_price_usd", Dimension::money, "price of one GPU-hour used for the cost"},
    {"cost_per_million_tokens_usd", Dimension::money, "tp x ep x gpu_hour_price / 3600 / tokens_per_s x 1e6"},
    {"eta_decode_used", Dimension::dimensionless, "decode eta applied"},
    {"gpus", Dimension::count, "GPUs of one replica: tp x ep"},
    {"decode_all_to_all_s", Dimension::time, "expert-parallel dispatch + combine all-to-alls of a decode step"},
    {"batch_used", Dimension::count, "concurrent sequences evaluated: batch, or max_batch when batch is 0"},
}};

constexpr std::array<std::string_view, 10> kReasons = {
    kPrecisionUnsupported,
    "model is not a transformer (no qkv_proj / attention_scores op)",
    "tensor or expert parallelism needs an accelerator link",
    "tp must divide the attention heads",
    "weights + KV cache do not fit in device memory",
    "arrival rate exceeds the replica's capacity (queue unstable)",
    "no GPU price: catalog price is 0 and gpu_hour_price is not given",
    "ep > 1 needs a mixture-of-experts model",
    "ep must divide the number of routed experts",
    "tp x ep GPUs must fit in one node (gpus_per_node)",
};

}  // namespace

double default_decode_eta(double batch) {
  const double low = default_eta(EfficiencyRegime::decode_bs1);
  const double high = default_eta(EfficiencyRegime::decode_batched);
  if (batch >= kBatchedFrom) return high;
  if (batch <= 1) return low;
  return low + (high - low) * std::log(batch) / std::log(kBatchedFrom);
}

ServingSolver::ServingSolver()
    : TabledSolver("serving",
                   "LLM serving replica: prefill/decode from the operator graph, KV cache, TP, batching, M/M/c tail, $/Mtok",
                   kParams, kMetrics, kReasons) {}

PointResult ServingSolver::evaluate(const PointInputs& in, std::span<double> out) const {
  std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
  const HardwareSpec& hw = *in.hardware;
  const auto& v = in.values;
  const Precision weight_precision = kAllPrecisions[static_cast<std::size_t>(v[Param::precision])];
  const Precision kv_prec = kAllPrecisions[static_cast<std::size_t>(v[Param::kv_precision])];
  if (!hw.supports(weight_precision)) return {PointStatus::infeasible, precision_unsupported};
  if (!in.model->is_transformer) return {PointStatus::infeasible, not_a_transformer};
  const ServingShape& shape = in.model->serving_shape;

  const double prompt = v[Param::prompt_tokens];
  const double output = v[Param::output_tokens];
  const double n_tp = v[Param::tp];
  if (std::fmod(shape.heads, n_tp) != 0) return {PointStatus::infeasible, tp_must_divide_heads};
  const double n_ep = v[Param::ep];
  if (n_ep > 1 && shape.experts <= 0) return {PointStatus::infeasible, ep_needs_moe};
  if (n_ep > 1 && std::fmod(shape.experts, n_ep) != 0) return {PointStatus::infeasible, ep_must_divide_experts};
  if (n_tp * n_ep > v[Param::gpus_per_node]) return {PointStatus::infeasible, replica_exceeds_node};
  const double n_gpus = n_tp * n_ep;
  if (n_gpus > 1 && hw.accelerator_link_bandwidth_bytes_per_s <= 0) return {PointStatus::infeasible, tp_needs_link};

  const ServingDevice dev{.peak_flops_per_s = hw.peak(weight_precision),
                          .memory_bandwidth_bytes_per_s = hw.memory_bandwidth_bytes_per_s * v[Param::memory_efficiency],
                          .link_bytes_per_s = hw.accelerator_link_bandwidth_bytes_per_s,
                          .link_latency_s = v[Param::link_latency],
                          .weight_bytes_per_element = bytes_per_element(weight_precision),
                          .kv_bytes_per_element = bytes_per_element(kv_prec),
                          .tp = n_tp,
                          .ep = n_ep};
  const double eta_prefill = eta_or_default(v[Param::eta], EfficiencyRegime::prefill_long_context);

  const double full_context = prompt + output;
  const double kv_token = kv_cache_bytes_per_token(shape, dev.kv_bytes_per_element);
  const double kv_seq = dsx::kv_cache_bytes(shape, full_context, dev.kv_bytes_per_element);
  const double kv_seq_gpu = kv_seq * kv_share_per_gpu(shape, n_tp);
  const double weights_gpu = weight_elements_per_gpu(shape, n_tp, n_ep) * dev.weight_bytes_per_element;
  const double fit = n_ep * std::floor((hw.memory_bytes - weights_gpu) / kv_seq_gpu);
  const double B = v[Param::batch] > 0 ? v[Param::batch] : fit;
  out[batch_used] = B;
  if (B < 1) return {PointStatus::infeasible, exceeds_memory};
  const double memory = weights_gpu + sequences_per_group(B, n_ep) * kv_seq_gpu;

  const double eta_dec = v[Param::eta_decode] > 0 ? v[Param::eta_decode] : default_decode_eta(B);
  const PhaseTime prefill_one = prefill_time(shape, dev, prompt, 1, eta_prefill);
  const PhaseTime prefill_batch = prefill_time(shape, dev, prompt, B, eta_prefill);
  const PhaseTime step = decode_step_time(shape, dev, B, prompt + output / 2, eta_dec);
  const double overhead = v[Param::step_overhead];
  const double t_step = step.total_s() + overhead;
  const double t_prefill_batch = prefill_batch.total_s() + overhead;

  const double continuous_tps = B * output / (output * t_step + t_prefill_batch);
  const double static_steps = v[Param::output_lengths] == 0 ? static_batch_decode_steps(output, B) : output;
  const double static_tps = B * output / (t_prefill_batch + static_steps * t_step);
  const bool is_static = v[Param::batching] != 0;
  const double ttft = is_static ? t_prefill_batch : prefill_one.total_s() + overhead;
  const double itl = is_static ? t_step : t_step + t_prefill_batch / output;
  const double e2e = ttft + (output - 1) * itl;
  const double tps = is_static ? static_tps : continuous_tps;

  const double lambda = v[Param::arrival_rate];
  double p99_wait = 0;
  double concurrency_value = tps / output * e2e;
  double rho = 0;
  if (lambda > 0) {
    const double mu = 1.0 / e2e;
    const MmcResult q = mmc_queue(lambda, mu, B);
    rho = q.utilization;
    p99_wait = mmc_wait_quantile_s(q, lambda, mu, B, kP99);
    concurrency_value = lambda * (e2e + q.mean_wait_s);
  }
  const double hour_price =
      v[Param::gpu_hour_price] > 0 ? v[Param::gpu_hour_price] : hw.price_usd / (v[Param::lifetime] / kSecondsPerHour);

  out[ttft_s] = ttft;
  out[itl_s] = itl;
  out[e2e_latency_s] = e2e;
  out[tokens_per_s] = tps;
  out[tokens_per_s_per_gpu] = tps / n_gpus;
  out[tokens_per_s_per_user] = 1.0 / itl;
  out[requests_per_s] = tps / output;
  out[prefill_s] = t_prefill_batch;
  out[decode_step_s] = t_step;
  out[decode_compute_s] = step.compute_s;
  out[decode_memory_s] = step.memory_s;
  out[decode_communication_s] = step.communication_s;
  out[kv_cache_bytes] = kv_seq;
  out[kv_cache_per_token_bytes] = kv_token;
  out[weights_per_gpu_bytes] = weights_gpu;
  out[memory_bytes] = memory;
  out[max_batch] = std::max(0.0, fit);
  out[static_tokens_per_s] = static_tps;
  out[continuous_tokens_per_s] = continuous_tps;
  out[continuous_speedup_vs_static] = continuous_tps / static_tps;
  out[concurrency] = concurrency_value;
  out[queue_utilization] = rho;
  out[p99_latency_s] = e2e + p99_wait;
  out[p99_ttft_s] = ttft + p99_wait;
  out[gpu_hour_price_usd] = hour_price;
  out[cost_per_million_tokens_usd] = n_gpus * hour_price / kSecondsPerHour / tps * 1e6;
  out[eta_decode_used] = eta_dec;
  out[gpus] = n_gpus;
  out[decode_all_to_all_s] = step.expert_all_to_all_s;

  if (memory > hw.memory_bytes) return {PointStatus::infeasible, exceeds_memory};
  if (lambda > 0 && rho >= 1.0) return {PointStatus::infeasible, queue_unstable};
  if (hour_price <= 0) return {PointStatus::infeasible, no_price};
  return {};
}

}  // namespace dsx
