#include "engine/solvers/serving.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "engine/collectives.hpp"
#include "engine/dispatch.hpp"
#include "engine/efficiency.hpp"
#include "engine/queueing.hpp"
#include "engine/serving.hpp"
#include "engine/solvers/torus_params.hpp"
#include "engine/torus.hpp"

namespace dsx {

namespace {

constexpr std::array<std::string_view, 2> kBatching = {"continuous", "static"};
constexpr double kSecondsPerYear = 365.0 * 24 * 3600;
constexpr double kSecondsPerHour = 3600.0;
constexpr double kP99 = 0.99;
constexpr double kBatchedFrom = 32;  // seeds/004: "Inference decode, batch=32+"

constexpr std::array<std::string_view, 2> kOutputLengths = {"uniform", "fixed"};
constexpr std::array<std::string_view, 2> kOffOn = {"off", "on"};
constexpr std::array<std::string_view, 3> kWeightPrecisions = {"same", "int8", "int4"};
constexpr std::array<std::string_view, 3> kPreemption = {"none", "recompute", "swap"};
constexpr int kSwap = 2;
// Bytes of one weight-only int8 or int4 weight, before its group's scale and zero point.
constexpr std::array<double, 3> kWeightOnlyWidthBytes = {0, 1, 0.5};
// A weight-only group's zero point: none, packed at the weight's width (AWQ's and GPTQ's qzeros), or
// 16 bits beside the scale (gpt-fast's scales_and_zeros); engine/serving.hpp grouped_weight_bytes.
constexpr std::array<std::string_view, 3> kZeroPoints = {"none", "packed", "16bit"};
constexpr int kZeroPacked = 1;
constexpr double kZero16BitBytes = 2;

constexpr std::array<ParamSpec, ServingSolver::kParamCount> kParams = {{
    {.name = "hardware", .kind = ParamKind::hardware, .description = "accelerator (catalog id); all tp GPUs alike"},
    {.name = "model", .kind = ParamKind::model,
     .description = "language model (catalog id): a transformer, a hybrid (Jamba) or a Mamba stack"},
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
     .description = "prefill fraction of peak FLOP/s (of the prefill hardware's, when given); 0 = seeds/004 "
                    "prefill_long_context default (0.40)",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1, .scaled_by_second_hardware = true},
    {.name = "eta_decode", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "decode fraction of peak FLOP/s; 0 = eta when eta is given (the same GEMMs, of batch rows), "
                    "else seeds/004 default, 0.03 at batch 1 to 0.25 at batch 32+ (log-linear in batch)",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1},
    {.name = "batching", .kind = ParamKind::choice, .choices = kBatching,
     .description = "continuous (iteration-level, Orca/vLLM) or static (request-level) batching",
     .has_default = true, .default_value = 0},
    {.name = "arrival_rate", .kind = ParamKind::number, .dimension = Dimension::rate,
     .description = "Poisson request arrivals per second at one replica; 0 = no queue", .has_default = true,
     .default_value = 0, .min_value = 0, .max_value = 1e9},
    {.name = "gpu_hour_price", .kind = ParamKind::number, .dimension = Dimension::money,
     .description = "USD per GPU-hour; 0 = catalog price amortised over lifetime; catalog = the chip's dated "
                    "rental price (its catalog rental: per_hour)",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1e6, .word = kCatalogWord},
    {.name = "lifetime", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "amortisation period of the purchase price (default 3 years)", .has_default = true,
     .default_value = 3 * kSecondsPerYear, .min_value = 0, .max_value = 1e10, .min_exclusive = true},
    {.name = "link_latency", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "alpha of one ring all-reduce step (default 0.5 µs: mlsysim catalog NVLink latency)",
     .has_default = true, .default_value = kNvlinkAlphaS, .min_value = 0, .max_value = 1e-2},
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
    {.name = "kv_block_tokens", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "paged KV cache block in tokens (PagedAttention; vLLM's default is 16); 0 = contiguous: each "
                    "sequence reserves prompt + output_tokens",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1e6, .integer = true},
    {.name = "prefix_hit_rate", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "fraction of prompt tokens whose KV is already cached (a prefix common to all requests); their "
                    "prefill is skipped and, with a paged cache, their full blocks are held once",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1},
    {.name = "prefill_chunk_tokens", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "chunked prefill (Sarathi-Serve): prompt tokens one decode iteration carries; 0 = off (a prompt "
                    "prefills in one iteration, of its own in the open loop)",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1e7, .integer = true},
    {.name = "draft_tokens", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "speculative decoding: tokens the draft proposes per verification (gamma); 0 = off",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 64, .integer = true},
    {.name = "acceptance_rate", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "speculative decoding: probability the target accepts a draft token (alpha, i.i.d.)",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1},
    {.name = "draft_cost_ratio", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "speculative decoding: time of one draft step / time of one target decode step (c); 0 = a free "
                    "draft",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 10},
    {.name = "disaggregated", .kind = ParamKind::choice, .choices = kOffOn,
     .description = "prefill and decode on separate GPU pools, of the same hardware unless prefill_hardware "
                    "(DistServe, Splitwise); the KV cache of each prompt moves to the decode pool",
     .has_default = true, .default_value = 0},
    {.name = "prefill_decode_ratio", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "disaggregated: prefill instances (prefill_tp x ep GPUs each) per decode instance",
     .has_default = true, .default_value = 1, .min_value = 0, .max_value = 64, .min_exclusive = true},
    {.name = "kv_transfer_bandwidth", .kind = ParamKind::number, .dimension = Dimension::bandwidth,
     .description = "disaggregated: one-way bandwidth per GPU from the prefill to the decode pool; 0 = the "
                    "accelerator link (pools in one NVLink domain; on a torus node, neighbouring blocks of it)",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1e15},
    {.name = "weight_precision", .kind = ParamKind::choice, .choices = kWeightPrecisions,
     .description = "weight-only quantization: int8 or int4 weights with a 16-bit scale per weight_group_size "
                    "weights (w8a16, w4a16), dequantized in the kernel at no cost; compute and activations at "
                    "precision; same = precision",
     .has_default = true, .default_value = 0},
    {.name = "draft_model", .kind = ParamKind::model,
     .description = "speculative decoding: the draft model (catalog id), run on the replica's GPUs with its tp; its "
                    "decode step sets draft_cost_ratio and its weights and KV cache share the memory; none = "
                    "draft_cost_ratio as given",
     .has_default = true, .default_value = -1},
    {.name = "prefill_hardware", .kind = ParamKind::hardware,
     .description = "disaggregated: the prefill pool's accelerator (catalog id), e.g. H100 prefill for A100 decode "
                    "(Splitwise-HA); none = the decode hardware",
     .has_default = true, .default_value = -1},
    {.name = "prefill_gpu_hour_price", .kind = ParamKind::number, .dimension = Dimension::money,
     .description = "USD per prefill GPU-hour when prefill_hardware is given; 0 = its catalog price amortised over "
                    "lifetime, its rental price when gpu_hour_price is catalog (unknown when gpu_hour_price gives "
                    "the decode GPUs' price)",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1e6},
    {.name = "prefill_tp", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "disaggregated: tensor-parallel GPUs of one prefill instance (DistServe sizes each phase's "
                    "parallelism apart); 0 = tp",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1024, .integer = true},
    torus_param("torus_x"),
    torus_param("torus_y"),
    torus_param("torus_z"),
    {.name = "preemption", .kind = ParamKind::choice, .choices = kPreemption,
     .description = "what a paged cache does when the running sequences outgrow it (vLLM, Kwon et al. 2023 section "
                    "4.5): recompute (the latest sequences are evicted and prefilled again) or swap (their KV goes to "
                    "host memory over the host link and back); none = not modelled, the batch runs as if the cache "
                    "held it",
     .has_default = true, .default_value = 0},
    {.name = "swap_bandwidth", .kind = ParamKind::number, .dimension = Dimension::bandwidth,
     .description = "preemption swap: the rate one GPU's evicted KV blocks reach host memory and come back at (vLLM "
                    "measured many small block copies well below PCIe's rate); 0 = the hardware's host link",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1e15},
    {.name = "swap_space", .kind = ParamKind::number, .dimension = Dimension::bytes,
     .description = "preemption swap: host memory one GPU may swap KV blocks to (vLLM's swap_space, 4 GiB per GPU by "
                    "default); a full step's evicted sequences must fit in it; 0 = not checked",
     .has_default = true, .default_value = 0, .min_value = 0},
    {.name = "kv_watermark", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "paged KV cache: share of the cache admission leaves free (vLLM's block manager watermark, 0.01 by "
                    "default); max_batch counts the rest, running sequences grow into all of it; 0 = none",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 0.99},
    {.name = "weight_group_size", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "weight-only quantization: weights sharing one 16-bit scale (128: AWQ's g128; gpt-fast's int4 "
                    "--groupsize, 32 in its README); 0 = one scale per output channel (gpt-fast's int8), not counted",
     .has_default = true, .default_value = 128, .min_value = 0, .max_value = 1e6, .integer = true},
    {.name = "weight_zero_point", .kind = ParamKind::choice, .choices = kZeroPoints,
     .description = "weight-only quantization: each group's zero point: none (symmetric), packed at the weight's "
                    "width (AWQ, GPTQ qzeros) or 16bit beside the scale (gpt-fast's int4 scales_and_zeros)",
     .has_default = true, .default_value = 0},
    {.name = "clients", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "closed loop (a benchmark's fixed concurrency): clients that each send their next request when "
                    "the last one ends; batch (0: max_batch) caps the running sequences, the rest wait for a slot; "
                    "0 = open loop (arrival_rate)",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1e6, .integer = true},
    {.name = "gemm_shapes", .kind = ParamKind::choice, .choices = kOffOn,
     .description = "on: each step's GEMMs priced by their tiles and waves on the chip's compute units, split-K for "
                    "skinny ones; off: the plain roofline at eta",
     .has_default = true, .default_value = 0},
}};

constexpr std::array<MetricSpec, ServingSolver::kMetricCount> kMetrics = {{
    {"ttft_s", Dimension::time, "time to first token: prefill of one prompt (continuous) or of the batch (static)"},
    {"itl_s", Dimension::time, "inter-token latency (TPOT), exclusive of the first token"},
    {"e2e_latency_s", Dimension::time, "ttft_s + (output_tokens - 1) x itl_s"},
    {"tokens_per_s", Dimension::rate, "output tokens per second of one replica (all tp GPUs)"},
    {"tokens_per_s_per_gpu", Dimension::rate, "tokens_per_s / gpus"},
    {"tokens_per_s_per_user", Dimension::rate, "1 / itl_s"},
    {"requests_per_s", Dimension::rate, "tokens_per_s / output_tokens"},
    {"prefill_s", Dimension::time, "prefill of the whole batch's prompts"},
    {"decode_step_s", Dimension::time, "one decode step of the batch at the mean context"},
    {"decode_compute_s", Dimension::time, "compute part of a decode step"},
    {"decode_memory_s", Dimension::time, "memory part of a decode step (weights + KV read)"},
    {"decode_communication_s", Dimension::time, "tensor-parallel all-reduces + expert-parallel all-to-alls of a decode step"},
    {"kv_cache_bytes", Dimension::bytes,
     "KV cache of one sequence at prompt + output tokens, plus its Mamba layers' recurrent state (whole replica)"},
    {"kv_cache_per_token_bytes", Dimension::bytes,
     "2 x attention layers x kv_heads x head_dim x bytes(kv_precision); MLA: layers x (kv_lora_rank + qk_rope_head_dim) x bytes"},
    {"weights_per_gpu_bytes", Dimension::bytes,
     "(non-expert parameters / tp + expert parameters / (tp x ep)) x bytes(precision, or weight_precision)"},
    {"memory_bytes", Dimension::bytes,
     "per GPU: weights + KV cache of its group's ceil(batch / ep) sequences at full length (paged: what they hold, "
     "and a shared prefix once)"},
    {"max_batch", Dimension::count, "largest batch whose KV cache fits next to the weights: ep x per-group fit"},
    {"static_tokens_per_s", Dimension::rate, "replica throughput with static batching"},
    {"continuous_tokens_per_s", Dimension::rate, "replica throughput with continuous batching"},
    {"continuous_speedup_vs_static", Dimension::dimensionless, "continuous_tokens_per_s / static_tokens_per_s"},
    {"concurrency", Dimension::count, "requests in the system (Little's law L = lambda W)"},
    {"queue_utilization", Dimension::dimensionless, "arrival_rate x e2e / batch (M/M/c rho); 0 without arrivals"},
    {"p99_latency_s", Dimension::time, "e2e latency + 0.99 quantile of the M/M/c wait"},
    {"p99_ttft_s", Dimension::time, "ttft + 0.99 quantile of the M/M/c wait"},
    {"gpu_hour_price_usd", Dimension::money, "price of one GPU-hour used for the cost"},
    {"cost_per_million_tokens_usd", Dimension::money, "gpus x gpu_hour_price / 3600 / tokens_per_s x 1e6"},
    {"eta_decode_used", Dimension::dimensionless, "decode eta applied"},
    {"gpus", Dimension::count, "GPUs of one replica: tp x ep, plus prefill_gpus when disaggregated"},
    {"decode_all_to_all_s", Dimension::time, "expert-parallel dispatch + combine all-to-alls of a decode step"},
    {"batch_used", Dimension::count, "concurrent sequences evaluated: batch, or max_batch when batch is 0"},
    {"kv_fragmentation_fraction", Dimension::dimensionless,
     "KV memory allocated but holding no token: contiguous, the reservation beyond the mean context; paged, the "
     "partly empty last blocks", MetricDomain::fraction},
    {"kv_held_per_sequence_bytes", Dimension::bytes,
     "KV memory one running sequence holds (whole replica): the reservation, or its blocks outside the shared prefix"},
    {"itl_max_s", Dimension::time,
     "longest gap between two tokens of a request: a decode iteration plus the prefill it waits for"},
    {"prefill_chunks", Dimension::count, "iterations one prompt's prefill spans: ceil(uncached prompt / chunk); 1 unchunked"},
    {"speculative_tokens_per_step", Dimension::count,
     "expected tokens per target verification, (1 - alpha^(gamma+1)) / (1 - alpha); 1 without a draft"},
    {"speculative_speedup", Dimension::dimensionless, "plain decode step / decode time per output token"},
    {"kv_transfer_s", Dimension::time, "disaggregated: moving one prompt's KV cache to the decode pool; 0 colocated"},
    {"prefill_gpus", Dimension::count, "disaggregated: prefill_decode_ratio x prefill_tp x ep; 0 colocated"},
    {"draft_cost_ratio_used", Dimension::dimensionless,
     "c applied: the draft model's decode step / the target's at the same batch and context, or draft_cost_ratio"},
    {"prefill_memory_bytes", Dimension::bytes,
     "disaggregated: per prefill GPU, weights + KV cache of its group's ceil(batch / ep) prompts; 0 colocated"},
    {"prefill_gpu_hour_price_usd", Dimension::money,
     "disaggregated: price of one prefill GPU-hour (the decode GPUs' unless prefill_hardware is given); 0 colocated"},
    {"kv_full_probability", Dimension::dimensionless,
     "paged, continuous: probability a decode step finds the KV cache full (the running sequences at independent "
     "uniform positions, normal approximation); 0 when the batch at full length fits",
     MetricDomain::fraction},
    {"preemptions_per_step", Dimension::dimensionless,
     "sequences preempted per decode step of the replica (0 with preemption none)", MetricDomain::non_negative},
    {"preemptions_per_request", Dimension::dimensionless,
     "expected preemptions of one request: preemptions_per_step x output_tokens / batch", MetricDomain::non_negative},
    {"preemption_s", Dimension::time,
     "time per decode step spent on preempted sequences: their prefill again (recompute) or their KV out to host "
     "memory and back (swap)"},
}};

constexpr std::array<std::string_view, 32> kReasons = {
    kPrecisionUnsupported,
    "model is neither a transformer nor a Mamba stack (no qkv_proj / attention_scores, selective_scan or ssd_scan op)",
    "tensor or expert parallelism needs an accelerator link",
    "tp must divide the attention heads",
    "weights + KV cache do not fit in device memory",
    "arrival rate exceeds the replica's capacity (queue unstable)",
    "ep > 1 needs a mixture-of-experts model",
    "ep must divide the number of routed experts",
    "tp x ep GPUs must fit in one node (gpus_per_node)",
    "chunked prefill and disaggregation need continuous batching",
    "chunked prefill does not apply to a disaggregated replica (its decode steps carry no prefill)",
    "disaggregation needs kv_transfer_bandwidth or an accelerator link",
    "prefill chunks cannot keep the batch decoding: batch x chunks per prompt exceeds output_tokens",
    "the draft model is neither a transformer nor a Mamba stack, or tp does not divide its heads or Mamba channels",
    "the torus dimensions (torus_x x torus_y x torus_z) must multiply to gpus_per_node",
    "prefill_hardware needs disaggregated: on (a colocated replica prefills on its own GPUs)",
    "precision not supported by the prefill hardware",
    "tensor or expert parallelism on the prefill hardware needs its accelerator link",
    "weights + the prompts' KV cache do not fit in the prefill hardware's memory",
    "prefill_tp needs disaggregated: on (a colocated replica prefills at tp)",
    "tp must divide the Mamba channels (expand x d_model) and a Mamba-2 model's ngroups",
    "preemption needs a paged KV cache (kv_block_tokens > 0) and continuous batching",
    "preemption by swap needs swap_bandwidth or a host link (the hardware's host_link)",
    "kv_watermark needs a paged KV cache (kv_block_tokens > 0)",
    "the batch's mean KV exceeds the cache less kv_watermark: the scheduler would not admit it",
    "the sequences one full step evicts exceed swap_space",
    "gpu_hour_price is catalog, but {hardware} has no rental price in the catalog",
    "gpu_hour_price is catalog, but the prefill hardware has no rental price in the catalog "
    "(give prefill_gpu_hour_price)",
    "disaggregated on a torus node: a prefill and a decode instance must fit its chips side by side (or give "
    "kv_transfer_bandwidth)",
    "clients (a closed loop) models colocated continuous batching",
    "clients (a closed loop) and arrival_rate (an open one) exclude each other",
    "weights + KV cache do not fit in device memory, and serving does not stream weights from the hardware's "
    "weight_memory tier (the inference solver does)",
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
  const Precision compute_precision = kAllPrecisions[static_cast<std::size_t>(v[Param::precision])];
  const Precision kv_prec = kAllPrecisions[static_cast<std::size_t>(v[Param::kv_precision])];
  if (!hw.supports(compute_precision)) return {PointStatus::infeasible, precision_unsupported};
  if (!in.model->servable) return {PointStatus::infeasible, not_a_transformer};
  const ServingShape& shape = in.model->serving_shape;

  const double prompt = v[Param::prompt_tokens];
  const double output = v[Param::output_tokens];
  const double n_tp = v[Param::tp];
  if (std::fmod(shape.heads, n_tp) != 0) return {PointStatus::infeasible, tp_must_divide_heads};
  if (!recurrent_tp_divides(shape, n_tp)) return {PointStatus::infeasible, tp_must_divide_channels};
  const double n_ep = v[Param::ep];
  if (n_ep > 1 && shape.experts <= 0) return {PointStatus::infeasible, ep_needs_moe};
  if (n_ep > 1 && std::fmod(shape.experts, n_ep) != 0) return {PointStatus::infeasible, ep_must_divide_experts};
  if (n_tp * n_ep > v[Param::gpus_per_node]) return {PointStatus::infeasible, replica_exceeds_node};
  const double n_gpus = n_tp * n_ep;
  if (n_gpus > 1 && hw.accelerator_link_bandwidth_bytes_per_s <= 0) return {PointStatus::infeasible, tp_needs_link};
  // On a torus node the TP group is its fastest block and the EP ranks its strided peers (engine/torus.hpp).
  const TorusTopology torus =
      node_torus(v[Param::torus_x], v[Param::torus_y], v[Param::torus_z], hw.accelerator_link_bandwidth_bytes_per_s);
  if (torus.count > 0 && torus_chips(torus) != v[Param::gpus_per_node]) {
    return {PointStatus::infeasible, torus_is_not_the_node};
  }

  const double weight_only_width = kWeightOnlyWidthBytes[static_cast<std::size_t>(v[Param::weight_precision])];
  const double zero_point_bytes = v[Param::weight_zero_point] == 0            ? 0.0
                                  : v[Param::weight_zero_point] == kZeroPacked ? weight_only_width
                                                                               : kZero16BitBytes;
  const double weight_bytes = v[Param::weight_precision] > 0
                                  ? grouped_weight_bytes(weight_only_width, v[Param::weight_group_size], zero_point_bytes)
                                  : bytes_per_element(compute_precision);
  const ServingDevice dev{.peak_flops_per_s = hw.gemm_peak(compute_precision),
                          .scan_peak_flops_per_s = scan_peak_flops_per_s(hw, compute_precision, shape.scan_on_vector_units,
                                                                         hw.gemm_peak(compute_precision)),
                          .memory_bandwidth_bytes_per_s = hw.memory_bandwidth_bytes_per_s * v[Param::memory_efficiency],
                          .link_bytes_per_s = hw.accelerator_link_bandwidth_bytes_per_s,
                          .link_latency_s = v[Param::link_latency],
                          .weight_bytes_per_element = weight_bytes,
                          .activation_bytes_per_element = bytes_per_element(compute_precision),
                          .kv_bytes_per_element = bytes_per_element(kv_prec),
                          .tp = n_tp,
                          .ep = n_ep,
                          .tp_torus = torus.count > 0 ? torus_group(torus, n_tp) : TorusTopology{},
                          .ep_torus = torus.count > 0 ? torus_strided_group(torus, n_tp, n_ep) : TorusTopology{},
                          .compute_units = v[Param::gemm_shapes] != 0 ? hw.compute_units : 0};
  const double eta_prefill = eta_or_default(v[Param::eta], EfficiencyRegime::prefill_long_context);
  // The prefill pool's device: the prefill hardware's peaks, bandwidth and link in a switched node, or
  // the decode device itself.
  const HardwareSpec* phw = in.second_hardware;
  const bool disagg = v[Param::disaggregated] != 0;
  if (phw != nullptr && !disagg) return {PointStatus::infeasible, prefill_hardware_needs_disaggregation};
  const double p_tp = v[Param::prefill_tp] > 0 ? v[Param::prefill_tp] : n_tp;
  if (v[Param::prefill_tp] > 0 && !disagg) return {PointStatus::infeasible, prefill_tp_needs_disaggregation};
  ServingDevice prefill_dev = dev;
  if (p_tp != n_tp) {
    if (std::fmod(shape.heads, p_tp) != 0) return {PointStatus::infeasible, tp_must_divide_heads};
    if (!recurrent_tp_divides(shape, p_tp)) return {PointStatus::infeasible, tp_must_divide_channels};
    if (p_tp * n_ep > v[Param::gpus_per_node]) return {PointStatus::infeasible, replica_exceeds_node};
    if (phw == nullptr && p_tp * n_ep > 1 && hw.accelerator_link_bandwidth_bytes_per_s <= 0) {
      return {PointStatus::infeasible, tp_needs_link};
    }
    prefill_dev.tp = p_tp;
    prefill_dev.tp_torus = torus.count > 0 ? torus_group(torus, p_tp) : TorusTopology{};
    prefill_dev.ep_torus = torus.count > 0 ? torus_strided_group(torus, p_tp, n_ep) : TorusTopology{};
  }
  if (phw != nullptr) {
    if (!phw->supports(compute_precision)) return {PointStatus::infeasible, prefill_precision_unsupported};
    if (p_tp * n_ep > 1 && phw->accelerator_link_bandwidth_bytes_per_s <= 0) {
      return {PointStatus::infeasible, prefill_needs_link};
    }
    prefill_dev.peak_flops_per_s = phw->gemm_peak(compute_precision);
    prefill_dev.scan_peak_flops_per_s =
        scan_peak_flops_per_s(*phw, compute_precision, shape.scan_on_vector_units, prefill_dev.peak_flops_per_s);
    prefill_dev.memory_bandwidth_bytes_per_s = phw->memory_bandwidth_bytes_per_s * v[Param::memory_efficiency];
    prefill_dev.link_bytes_per_s = phw->accelerator_link_bandwidth_bytes_per_s;
    prefill_dev.compute_units = v[Param::gemm_shapes] != 0 ? phw->compute_units : 0;
    prefill_dev.tp_torus = TorusTopology{};
    prefill_dev.ep_torus = TorusTopology{};
  }
  const ServingDevice& pdev = prefill_dev;

  const bool is_static = v[Param::batching] != 0;
  const double chunk = v[Param::prefill_chunk_tokens];
  if ((chunk > 0 || disagg) && is_static) return {PointStatus::infeasible, needs_continuous_batching};
  if (chunk > 0 && disagg) return {PointStatus::infeasible, chunked_with_disaggregation};
  const int preempt = static_cast<int>(v[Param::preemption]);
  const bool paged_continuous = v[Param::kv_block_tokens] > 0 && !is_static;
  if (preempt > 0 && !paged_continuous) return {PointStatus::infeasible, preemption_needs_paged_cache};
  const double swap_rate =
      v[Param::swap_bandwidth] > 0 ? v[Param::swap_bandwidth] : hw.host_link_bandwidth_bytes_per_s;
  if (preempt == kSwap && swap_rate <= 0) return {PointStatus::infeasible, swap_needs_host_link};
  const double watermark = v[Param::kv_watermark];
  if (watermark > 0 && v[Param::kv_block_tokens] <= 0) return {PointStatus::infeasible, watermark_needs_paged_cache};
  // Without a bandwidth given, the KV moves over the accelerator links, the slower side's bounding it.
  const double link_bandwidth =
      phw != nullptr
          ? std::min(hw.accelerator_link_bandwidth_bytes_per_s, phw->accelerator_link_bandwidth_bytes_per_s)
          : hw.accelerator_link_bandwidth_bytes_per_s;
  const double transfer_bandwidth = v[Param::kv_transfer_bandwidth] > 0 ? v[Param::kv_transfer_bandwidth] : link_bandwidth;
  if (disagg && transfer_bandwidth <= 0) return {PointStatus::infeasible, no_kv_transfer_link};
  // On a torus node, with no bandwidth given and both pools on its chips, a prefill instance and its
  // decode instance are neighbouring blocks of the smaller instance's chips (engine/torus.hpp
  // torus_block_hop_s): each of its chips sends the larger shard across the face between them.
  const bool torus_transfer = disagg && torus.count > 0 && v[Param::kv_transfer_bandwidth] == 0 && phw == nullptr;
  const double transfer_block = std::min(p_tp, n_tp) * n_ep;
  if (torus_transfer && 2 * transfer_block > torus_chips(torus)) {
    return {PointStatus::infeasible, pools_exceed_torus};
  }

  // A fully cached prompt still computes its last token to produce the first output's logits.
  const double cached = std::min(std::floor(v[Param::prefix_hit_rate] * prompt), prompt - 1);
  const double uncached = prompt - cached;
  const double mean_context = prompt + output / 2;

  const double full_context = prompt + output;
  const double kv_token = kv_cache_bytes_per_token(shape, dev.kv_bytes_per_element);
  const double kv_seq = dsx::sequence_cache_bytes(shape, full_context, dev.kv_bytes_per_element);
  const double block = v[Param::kv_block_tokens];
  double kv_held = kv_seq;
  double kv_shared = 0;
  double kv_empty_per_seq = kv_seq - dsx::sequence_cache_bytes(shape, mean_context, dev.kv_bytes_per_element);
  if (block > 0) {
    const double held_context = is_static ? full_context : mean_context;
    const double shared_tokens = std::floor(cached / block) * block;
    kv_shared = dsx::kv_cache_bytes(shape, shared_tokens, dev.kv_bytes_per_element);
    kv_empty_per_seq = paged_kv_waste_tokens(block) * kv_token;
    kv_held = dsx::sequence_cache_bytes(shape, held_context, dev.kv_bytes_per_element) - kv_shared + kv_empty_per_seq;
  }
  // A draft model (with draft tokens to propose) runs tp-sharded on the same GPUs, its weights and each
  // sequence's KV cache beside the target's.
  const ServingShape* draft =
      in.second_model != nullptr && v[Param::draft_tokens] > 0 ? &in.second_model->serving_shape : nullptr;
  if (draft != nullptr && (!in.second_model->servable || std::fmod(draft->heads, n_tp) != 0 ||
                           !recurrent_tp_divides(*draft, n_tp))) {
    return {PointStatus::infeasible, draft_not_servable};
  }
  const double draft_weights_gpu =
      draft != nullptr ? weight_elements_per_gpu(*draft, n_tp, 1) * dev.weight_bytes_per_element : 0.0;
  const double draft_kv_seq_gpu =
      draft != nullptr
          ? dsx::sequence_cache_bytes(*draft, is_static || block <= 0 ? full_context : mean_context, dev.kv_bytes_per_element) *
                kv_share_per_gpu(*draft, n_tp)
          : 0.0;
  const double kv_seq_gpu = kv_held * kv_share_per_gpu(shape, n_tp) + draft_kv_seq_gpu;
  const double kv_shared_gpu = kv_shared * kv_share_per_gpu(shape, n_tp);
  const double weights_gpu = weight_elements_per_gpu(shape, n_tp, n_ep) * dev.weight_bytes_per_element + draft_weights_gpu;
  const double cache_gpu = hw.memory_bytes - weights_gpu - kv_shared_gpu;
  const double fit = n_ep * std::floor(kv_admission_bytes(cache_gpu, watermark) / kv_seq_gpu);
  // A closed loop of N clients runs min(N, the batch limit) sequences; the rest wait for a slot.
  const double n_clients = v[Param::clients];
  const double slots = v[Param::batch] > 0 ? v[Param::batch] : fit;
  const double B = n_clients > 0 ? std::min(n_clients, slots) : slots;
  out[batch_used] = B;
  const Reason does_not_fit = hw.has_weight_memory() ? exceeds_memory_not_weight_tier : exceeds_memory;
  if (B < 1) return {PointStatus::infeasible, does_not_fit};
  const double memory = weights_gpu + kv_shared_gpu + sequences_per_group(B, n_ep) * kv_seq_gpu;

  // A decode step of B sequences runs the linear layers as GEMMs of B rows, the kernels a prefill of B
  // tokens runs, so a given eta (a profile's fit) is their efficiency too; the roofline, not eta, makes
  // a small batch memory-bound. Without one, or with eta scaled to another chip's prefill, the seeds'
  // interpolation in batch.
  const bool decode_takes_eta = v[Param::eta] > 0 && phw == nullptr;
  const auto decode_eta = [&](double tokens) {
    return v[Param::eta_decode] > 0 ? v[Param::eta_decode] : decode_takes_eta ? v[Param::eta] : default_decode_eta(tokens);
  };
  const double eta_dec = decode_eta(B);
  // The seeds' interpolated decode efficiency is a whole step's, skinny GEMMs' losses included: a step
  // priced by it keeps the plain roofline; a GEMM efficiency (eta_decode, or eta) prices its GEMMs by shape.
  ServingDevice decode_dev = dev;
  if (v[Param::eta_decode] <= 0 && !decode_takes_eta) decode_dev.compute_units = 0;
  const PhaseTime prefill_one = prefill_after_prefix_time(shape, pdev, uncached, cached, 1, eta_prefill);
  const PhaseTime prefill_batch = prefill_after_prefix_time(shape, pdev, uncached, cached, B, eta_prefill);
  const PhaseTime step = decode_step_time(shape, decode_dev, B, mean_context, eta_dec);
  const double overhead = v[Param::step_overhead];
  const double t_step = step.total_s() + overhead;
  const double t_prefill_one = prefill_one.total_s() + overhead;
  const double t_prefill_batch = prefill_batch.total_s() + overhead;

  // Speculative decoding: gamma draft steps of c x t_step, then one target pass over gamma + 1 tokens per
  // sequence; decode_iteration yields tokens_per_iteration tokens per sequence.
  const double gamma = v[Param::draft_tokens];
  double decode_iteration = t_step;
  double tokens_per_iteration = 1;
  double draft_ratio = 0;
  if (gamma > 0) {
    const double verify_tokens = B * (gamma + 1);
    const double eta_verify = decode_eta(verify_tokens);
    const PhaseTime verify = verify_step_time(shape, decode_dev, B, mean_context, gamma + 1, eta_verify);
    draft_ratio = v[Param::draft_cost_ratio];
    if (draft != nullptr) {
      const double draft_step = decode_step_time(*draft, decode_dev, B, mean_context, eta_dec).total_s() + overhead;
      draft_ratio = draft_step / t_step;
    }
    decode_iteration = gamma * draft_ratio * t_step + verify.total_s() + overhead;
    tokens_per_iteration = dsx::speculative_tokens_per_step(v[Param::acceptance_rate], gamma);
  }
  // Preemption (engine/serving.hpp paged_preemption): a sequence's held bytes grow by `swing` per GPU
  // from admission to its last token; each ep group holds its own cache and sequences.
  Preemption preempted;
  double swing_gpu = 0;
  if (paged_continuous) {
    const auto growth_bytes = [&](const ServingShape& m) {
      return (dsx::sequence_cache_bytes(m, full_context, dev.kv_bytes_per_element) -
              dsx::sequence_cache_bytes(m, prompt, dev.kv_bytes_per_element)) *
             kv_share_per_gpu(m, n_tp);
    };
    swing_gpu = growth_bytes(shape) + (draft != nullptr ? growth_bytes(*draft) : 0.0);
    preempted = paged_preemption(sequences_per_group(B, n_ep), kv_seq_gpu, swing_gpu, output,
                                 kv_seq_gpu - swing_gpu / 2, cache_gpu);
  }
  const double swap_space = v[Param::swap_space];
  if (preempt == kSwap && swap_space > 0 && preempted.evicted_bytes_per_full_step > swap_space) {
    return {PointStatus::infeasible, exceeds_swap_space};
  }
  double preemption_time = 0;
  if (preempt > 0 && preempted.sequences_per_step > 0) {
    // Recompute: each evicted sequence is prefilled again as one prompt on the decode GPUs (section 4.5:
    // "in one prompt phase iteration"); swap: its blocks go to host memory and come back, each GPU its shard.
    const double per_sequence_s =
        preempt == kSwap
            ? 2 * (kv_seq_gpu - swing_gpu / 2) / swap_rate
            : prefill_after_prefix_time(shape, dev, uncached, cached, 1, eta_prefill).total_s();
    preemption_time = preempted.sequences_per_step * per_sequence_s;
  }
  const double t_token = (gamma > 0 ? decode_iteration / tokens_per_iteration : t_step) + preemption_time;

  // Prefill work per B x O output tokens, the TTFT and the longest inter-token gap, by how prefill runs.
  double prefill_work = t_prefill_batch;
  double ttft = is_static ? t_prefill_batch : t_prefill_one;
  // Unchunked, a decode iteration may wait for the prefill of the ceil(B / O) prompts that arrive per
  // iteration, run together.
  double gap_max = is_static ? decode_iteration : decode_iteration + t_prefill_one;
  if (!is_static && B > output) {
    gap_max = decode_iteration +
              (prefill_after_prefix_time(shape, dev, uncached, cached, std::ceil(B / output), eta_prefill).total_s() +
               overhead);
  }
  const double chunks = chunk > 0 ? std::ceil(uncached / chunk) : 1.0;
  // One of a prompt's prefill iterations (a chunk, or the whole uncached prompt) carrying `decodes`
  // decode tokens; the chunks read the earlier chunks' KV again.
  const auto prefill_iteration_s = [&](double decodes) {
    return hybrid_step_time(shape, decode_dev, decodes, mean_context, uncached / chunks, prompt,
                            cached + uncached * (chunks + 1) / (2 * chunks), eta_dec, eta_prefill)
               .total_s() +
           overhead;
  };
  double transfer = 0;
  double prefill_memory = 0;
  const double hybrid_s = chunk > 0 || n_clients > 0 ? prefill_iteration_s(B) : 0.0;
  if (chunk > 0) {
    const double chunk_cost = hybrid_s - t_step;
    prefill_work = B * chunks * chunk_cost;
    ttft = chunks * (decode_iteration + chunk_cost);
    gap_max = decode_iteration + chunk_cost;
  } else if (disagg) {
    // Each prefill GPU sends its KV shard and each decode GPU receives its own; the larger one bounds it.
    const double shard_bytes = dsx::sequence_cache_bytes(shape, prompt, dev.kv_bytes_per_element) *
                               std::max(kv_share_per_gpu(shape, p_tp), kv_share_per_gpu(shape, n_tp));
    transfer = torus_transfer ? torus_block_hop_s(shard_bytes, torus, transfer_block, 2, v[Param::link_latency])
                              : shard_bytes / transfer_bandwidth;
    prefill_work = 0;
    ttft = t_prefill_one + transfer;
    gap_max = decode_iteration;
    // A prefill GPU holds the target's weights (not the draft's, which runs on the decode pool) and its
    // group's prompts' KV cache: with a paged cache their blocks outside the shared prefix, held once.
    const double prompt_kv_seq = block > 0 ? dsx::sequence_cache_bytes(shape, prompt, dev.kv_bytes_per_element) -
                                                 kv_shared + kv_empty_per_seq
                                           : dsx::sequence_cache_bytes(shape, prompt, dev.kv_bytes_per_element);
    prefill_memory = weight_elements_per_gpu(shape, p_tp, n_ep) * dev.weight_bytes_per_element +
                     kv_shared * kv_share_per_gpu(shape, p_tp) +
                     sequences_per_group(B, n_ep) * prompt_kv_seq * kv_share_per_gpu(shape, p_tp);
  }

  const double lambda = v[Param::arrival_rate];
  if (n_clients > 0 && (is_static || disagg)) return {PointStatus::infeasible, closed_loop_needs_colocated};
  if (n_clients > 0 && lambda > 0) return {PointStatus::infeasible, closed_and_open_loop};
  const double colocated_tps = B * output / (output * t_token + prefill_work);
  const double prefill_ratio = v[Param::prefill_decode_ratio];
  double continuous_tps =
      disagg ? std::min(colocated_tps, prefill_ratio * B * output / t_prefill_batch) : colocated_tps;
  const double static_steps = v[Param::output_lengths] == 0 ? static_batch_decode_steps(output, B) : output;
  const double static_tps = B * output / (t_prefill_batch + static_steps * t_token);
  double itl = is_static ? t_token : t_token + prefill_work / output;
  if (n_clients > 0) {
    // engine/queueing.hpp closed_loop_serving: the prompts' prefills queue on the engine and share its
    // iterations with the running decodes; steps are priced at the decodes they carry, between none or
    // one and the B that run when every client decodes.
    ClosedLoopSteps steps{.prefill_iterations = chunks,
                          .prefill_iteration_full_s = hybrid_s,
                          .decode_token_one_s = t_token,
                          .decode_token_full_s = t_token,
                          .decode_iteration_full_s = decode_iteration};
    const double lone_prefill_s = prefill_iteration_s(0);
    // Unchunked, a lone prompt is the open loop's prefill (its causal attention half skipped); the
    // decodes beside it add what they add to the iteration.
    steps.prefill_iteration_alone_s = chunk > 0 ? lone_prefill_s : t_prefill_one;
    if (chunk <= 0) steps.prefill_iteration_full_s = t_prefill_one + hybrid_s - lone_prefill_s;
    if (B > 1) {
      steps.decode_token_one_s *=
          (decode_step_time(shape, decode_dev, 1, mean_context, decode_eta(1)).total_s() + overhead) / t_step;
    }
    const ClosedLoopServing loop = closed_loop_serving(n_clients, slots, steps, output);
    ttft = loop.ttft_s;
    itl = loop.itl_s;
    continuous_tps = loop.requests_per_s * output;
  }
  const double e2e = ttft + (output - 1) * itl;
  const double tps = is_static ? static_tps : continuous_tps;
  const double pool_gpus = disagg ? prefill_ratio * (p_tp * n_ep) : 0;
  const double replica_gpus = n_gpus + pool_gpus;

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
  // gpu_hour_price: catalog rents every chip at its catalog rental price; a chip without one makes the
  // point infeasible rather than free.
  const bool rented = is_param_word(kParams[Param::gpu_hour_price], v[Param::gpu_hour_price]);
  if (rented && !hw.rental_known()) return {PointStatus::infeasible, no_rental_price};
  const double hour_price = rented                          ? hw.rental_usd_per_hour
                            : v[Param::gpu_hour_price] > 0 ? v[Param::gpu_hour_price]
                                                           : hw.price_usd / (v[Param::lifetime] / kSecondsPerHour);
  // A prefill hardware's GPU-hour: its own price, its rental price when every chip is rented, or its
  // catalog price amortised; a price given for the decode GPUs says nothing of it.
  double prefill_hour_price = disagg ? hour_price : 0;
  if (phw != nullptr) {
    if (rented && v[Param::prefill_gpu_hour_price] <= 0 && !phw->rental_known()) {
      return {PointStatus::infeasible, no_prefill_rental_price};
    }
    prefill_hour_price = v[Param::prefill_gpu_hour_price] > 0 ? v[Param::prefill_gpu_hour_price]
                         : rented                             ? phw->rental_usd_per_hour
                         : v[Param::gpu_hour_price] > 0       ? 0
                                                              : phw->price_usd / (v[Param::lifetime] / kSecondsPerHour);
  }

  out[ttft_s] = ttft;
  out[itl_s] = itl;
  out[e2e_latency_s] = e2e;
  out[tokens_per_s] = tps;
  out[tokens_per_s_per_gpu] = tps / replica_gpus;
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
  // No price (catalog price 0, gpu_hour_price not given): the cost metrics are unknown, not zero.
  const double known_price = hour_price > 0 ? hour_price : std::numeric_limits<double>::quiet_NaN();
  out[gpu_hour_price_usd] = known_price;
  const double known_prefill_price =
      prefill_hour_price > 0 || !disagg ? prefill_hour_price : std::numeric_limits<double>::quiet_NaN();
  out[cost_per_million_tokens_usd] =
      phw != nullptr ? (n_gpus * known_price + pool_gpus * known_prefill_price) / kSecondsPerHour / tps * 1e6
                     : replica_gpus * known_price / kSecondsPerHour / tps * 1e6;
  out[eta_decode_used] = eta_dec;
  out[gpus] = replica_gpus;
  out[decode_all_to_all_s] = step.expert_all_to_all_s;
  out[kv_fragmentation_fraction] = B * kv_empty_per_seq / (B * kv_held + kv_shared);
  out[kv_held_per_sequence_bytes] = kv_held;
  out[itl_max_s] = gap_max;
  out[prefill_chunks] = chunks;
  out[speculative_tokens_per_step] = tokens_per_iteration;
  out[speculative_speedup] = t_step / t_token;
  out[draft_cost_ratio_used] = draft_ratio;
  out[kv_transfer_s] = transfer;
  out[prefill_gpus] = pool_gpus;
  out[prefill_memory_bytes] = prefill_memory;
  out[prefill_gpu_hour_price_usd] = known_prefill_price;
  out[kv_full_probability] = preempted.full_probability;
  const double preemptions = preempt > 0 ? preempted.sequences_per_step * n_ep : 0.0;
  out[preemptions_per_step] = preemptions;
  out[preemptions_per_request] = preemptions * output / B;
  out[preemption_s] = preemption_time;

  if (memory > hw.memory_bytes) return {PointStatus::infeasible, does_not_fit};
  if (watermark > 0 && B > fit) return {PointStatus::infeasible, exceeds_admission};
  if (prefill_memory > (phw != nullptr ? phw : &hw)->memory_bytes) return {PointStatus::infeasible, prefill_exceeds_memory};
  if (chunk > 0 && n_clients <= 0 && B * chunks > output) return {PointStatus::infeasible, chunks_starve_batch};
  if (lambda > 0 && rho >= 1.0) return {PointStatus::infeasible, queue_unstable};
  return {};
}

}  // namespace dsx
