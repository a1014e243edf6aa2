// Solver "serving": one LLM serving configuration (hardware x model x precision x TP x EP x batch x
// prompt/output lengths) as one replica inside a node.
//
// Physics in engine/serving.hpp (prefill and decode from the operator graph, KV cache, TP all-reduces
// on the one-way link) and engine/queueing.hpp (M/M/c, Erlang C). Definitions:
//  - ttft_s: prefill of the prompt. Continuous batching admits a request alone into one prefill
//    iteration (prefill of one prompt); static batching prefills the whole batch of B prompts first.
//  - itl_s (= TPOT): mean time between consecutive output tokens of one request, EXCLUSIVE of the
//    first token (which TTFT delivers). Decode step at the mean context (prompt + output / 2), plus,
//    for continuous batching, the prefill work each iteration carries for arriving requests: B /
//    output_tokens prompts per step on average (Orca's iteration-level scheduling, Yu et al. 2022).
//  - e2e_latency_s = ttft_s + (output_tokens - 1) x itl_s.
//  - tokens_per_s (per replica, all tp GPUs together; never multiplied by tp, unlike mlsysim 6.2):
//    continuous B x O / (O x t_step + t_prefill(B prompts)); static B x O / (t_prefill(B) +
//    E[max output] x t_step), output lengths uniform with mean O (engine/serving.hpp).
//  - tokens_per_s_per_gpu = tokens_per_s / gpus; tokens_per_s_per_user = 1 / itl_s.
//  - memory_bytes per GPU = weights / tp + B x KV(prompt + output) x 1 / min(tp, kv_heads); activations
//    and framework reserve are not counted. max_batch = floor((memory - weights/tp) / KV per sequence
//    per GPU). A point whose memory_bytes exceeds the device is infeasible; on hardware with a
//    read-only weight tier (HardwareSpec::weight_memory_bytes, a microcontroller's flash) its reason
//    says so, since serving keeps weights and KV cache in `memory` and reads nothing from the tier. batch = 0 evaluates the
//    replica at max_batch, as a throughput benchmark at an unbounded request rate fills the KV cache
//    (vLLM and TensorRT-LLM admit requests while KV blocks are free); batch_used says which batch ran.
//  - queueing (arrival_rate > 0): M/M/c with c = batch slots per replica, service time = e2e latency
//    (Kleinrock 1975; Harchol-Balter 2013): p99 = latency + the 0.99 quantile of the wait. Without an
//    arrival rate there is no queue and p99 equals the unloaded latency. concurrency (Little's law,
//    L = lambda W) = arrival_rate x mean response time, or, without one, the replica's request rate x
//    e2e latency.
//  - closed loop (clients N > 0; a benchmark's fixed concurrency: NIM's and AIPerf's --concurrency,
//    vLLM benchmark_serving --max-concurrency at an unbounded rate): every client sends its next
//    request as soon as the last one ends, so the replica holds N requests and runs min(N, batch
//    limit) of them, the limit being `batch`, or max_batch when batch is 0. TTFT, ITL and throughput
//    are the mean-value analysis of engine/queueing.hpp closed_loop_serving: a prompt's prefill
//    (whole, or in prefill_chunk_tokens chunks) shares its iterations with the running decodes, and
//    each step is priced at the decodes it carries, affine between one sequence (or none) and that
//    batch (the time per output token, speculative decoding and preemption included, scaled by the
//    plain decode step's ratio); clients beyond the limit wait for a slot, which TTFT holds.
//    concurrency is then N; there is no M/M/c queue (closed_and_open_loop with arrival_rate).
//    Colocated continuous batching only (closed_loop_needs_colocated).
//  - cost_per_million_tokens_usd = gpus x gpu-hour price / 3,600 / tokens_per_s x 1e6. The GPU-hour
//    price is the gpu_hour_price parameter or, when 0, the catalog purchase price amortised over
//    `lifetime` (default 3 years, a common depreciation period; a dsx choice) at full use; power and
//    hosting are not included. gpu_hour_price: catalog takes the chip's dated on-demand rental price
//    (its catalog `rental:`, a cloud instance's hourly price over its accelerators); a chip without one
//    makes the point infeasible, its reason naming the chip.
//  - eta (prefill) defaults to the seeds/004 regime prefill_long_context (0.40); eta_decode defaults to
//    eta when eta is given (a calibration profile gives it): a decode step of B sequences runs the
//    linear layers as GEMMs of B rows, the kernels a prefill of B tokens runs, and the roofline, not
//    eta, makes a small batch memory-bound. Without eta, or with prefill_hardware (eta then carries
//    the prefill chip's calibration factor), a log-linear interpolation in batch between decode_bs1
//    (0.03 at batch 1) and decode_batched (0.25 at batch 32 and above) (engine/efficiency.hpp).
//  - prefill's attention: a causal model's fused kernel computes half the prompt's query-key pairs
//    (engine/serving.hpp causal_skipped_prefill_flops); chunked prefill's chunks keep the full count.
//  - memory_efficiency scales the datasheet bandwidth every weight and KV stream runs at (STREAM-like
//    kernels reach 80-90 % of it); step_overhead is the fixed time of one model iteration, prefill or
//    decode, that no roofline sees: the engine's scheduling and sampling, kernel launch and tail
//    latencies (Kwon et al., "Efficient Memory Management for Large Language Model Serving with
//    PagedAttention", SOSP 2023, section 6, measure such per-iteration costs). Both default to the
//    ideal (1 and 0 s); the calibration profile gives what published serving measurements imply.
//  - output_lengths: uniform (on (0, 2 x output_tokens], a static batch runs until its longest request,
//    engine/serving.hpp) or fixed (every request generates exactly output_tokens, as benchmarks with
//    a fixed output length do: a static batch then takes output_tokens steps).
//  - attention-free models (architecture mamba): no KV cache; each sequence holds its Mamba layers'
//    constant conv + SSM state (engine/serving.hpp), which kv_cache_bytes reports, so memory_bytes and
//    max_batch do not depend on the context; decode steps cost the same at any context. tp must divide
//    the expand x d_model channels (tp_must_divide_channels). A step's scan FLOPs (Mamba-1's selective
//    scan, Mamba-2's SSD scan) run at engine/dispatch.hpp scan_peak_flops_per_s, the rate training
//    gives them: Mamba-1's at the fp32 vector rate, Mamba-2's at the GEMM rate.
//  - multi-head latent attention (DeepSeek-V2/V3): the KV cache is the latent plus the RoPE key, one
//    copy for all heads (replicated under tp); prefill attention is priced materialised, decode absorbed
//    (engine/serving.hpp).
//  - expert parallelism (ep, mixture of experts only): the replica is tp x ep GPUs of one node (at
//    most gpus_per_node, default 8; 72 on a GB200 NVL72 rack, one NVLink domain); attention data-parallel over ep groups of tp GPUs, routed experts sharded over all of
//    them, two all-to-alls per MoE layer and forward pass (engine/serving.hpp). memory_bytes counts the
//    busiest group's ceil(B / ep) sequences; max_batch = ep x the per-group fit; tokens_per_s_per_gpu and
//    cost count tp x ep GPUs. Infeasible: ep > 1 on a dense model, ep not dividing the routed experts,
//    tp x ep > gpus_per_node.
//  - paged KV cache (kv_block_tokens b > 0; Kwon et al. 2023, "Efficient Memory Management for Large
//    Language Model Serving with PagedAttention", SOSP): a sequence holds blocks for the tokens it has,
//    not a reservation. Under continuous batching a running sequence holds on average the mean context
//    (prompt + output / 2, the context the decode step is priced at) plus (b - 1) / 2 empty slots of its
//    last block; under static batching all sequences run to full length. memory_bytes and max_batch use
//    that. b = 0 is the contiguous
//    reservation of prompt + output_tokens per sequence (the model before paging; a system that reserves
//    the maximum length, as those PagedAttention compares against, reserves more).
//    kv_fragmentation_fraction: allocated KV holding no token, over all allocated KV: contiguous, the
//    reservation beyond the mean context; paged, the last blocks' empty slots.
//  - preemption (paged, continuous; Kwon et al. 2023, arXiv:2309.06180, section 4.5): a batch whose
//    mean occupancy fits the cache but whose full length does not finds the cache full on some steps
//    (kv_full_probability, engine/serving.hpp paged_preemption: sequences at independent uniform
//    positions, normal approximation), and those steps preempt the latest-admitted sequences, whole,
//    to free the slots their new tokens take (preemptions_per_step, per replica; preemptions_per_request
//    = that x output_tokens / batch). `preemption: recompute` prefills each evicted sequence again (its
//    prompt, against a cached prefix as any prefill; the tokens it had generated are taken as none, the
//    latest admitted having generated the fewest); `swap` moves its KV shard to host memory and back,
//    2 x its held bytes at swap_bandwidth, or when 0 at the host link's full rate, which makes the swap
//    time a lower bound: vLLM's many small block copies reach less (its section 7.3 measures
//    recomputation never above 20 % of swapping's latency at small blocks). Each direction is counted
//    at the host link's one-way rate (catalog host_link), the two not overlapped. swap_space (vLLM's
//    per-GPU CPU swap space, 4 GiB by default; 0 = not checked) must hold what one full step evicts,
//    whole sequences (engine/serving.hpp evicted_bytes_per_full_step): vLLM aborts when it does not
//    (exceeds_swap_space). How long they stay on the host, and so the swap space a run needs over
//    many steps, is not modelled.
//    kv_watermark w (vLLM's block manager watermark, 0.01 by default there; engine/serving.hpp
//    kv_admission_bytes): admission leaves w of the cache free, so max_batch counts
//    (1 - w) x the cache and a batch above it is infeasible (exceeds_admission), while the running
//    sequences grow into the whole cache, which is what kv_full_probability compares with. Needs a
//    paged cache (watermark_needs_paged_cache); 0 (the default) = no watermark.
//    That time per decode step (preemption_s) adds to every output token's time, so to ITL and
//    throughput. none (the default) leaves the step as before and reports only kv_full_probability.
//    Infeasible with a contiguous cache or static batching (which hold every sequence at full length),
//    and swap without swap_bandwidth on hardware without a host link. The mean occupancy must still
//    fit (exceeds_memory).
//  - prefix caching (prefix_hit_rate h): the first floor(h x prompt) prompt tokens (at most prompt - 1:
//    the last prompt token always runs, as vLLM recomputes it for the logits) are cached; prefill runs
//    the rest against all prompt keys (engine/serving.hpp prefill_after_prefix_time), shrinking TTFT and
//    the prefill work each decode iteration carries. The cached tokens are taken as one prefix all
//    requests share (a system prompt); with a paged cache its full blocks are held once per expert-
//    parallel group (vLLM shares blocks by reference count), without paging every sequence holds its copy.
//  - chunked prefill (prefill_chunk_tokens C > 0; Agrawal et al. 2024, "Taming Throughput-Latency
//    Tradeoff in LLM Inference with Sarathi-Serve", OSDI): a prompt's uncached n tokens run as
//    k = ceil(n / C) equal chunks, one per decode iteration (engine/serving.hpp hybrid_step_time); a chunk
//    costs what it adds to a decode step, delta = t_hybrid - t_step. TTFT = k x (decode iteration +
//    delta); the prefill work per B x O output tokens is B x k x delta instead of a separate prefill of B
//    prompts; itl_max_s = decode iteration + delta instead of decode iteration + a whole prompt's prefill
//    (the generation stall Sarathi-Serve removes). Continuous batching only. The B prompts that start
//    while B requests generate O tokens need B x k chunks, one per iteration: B x k > O is infeasible,
//    as a chunk budget that small cannot keep B sequences decoding.
//  - speculative decoding (draft_tokens gamma > 0, acceptance_rate alpha, draft_cost_ratio c; Leviathan et
//    al. 2023, "Fast Inference from Transformers via Speculative Decoding", ICML): one iteration is gamma
//    draft steps of c x t_step plus a target pass over gamma + 1 tokens per sequence (weights and KV read
//    once, FLOPs x (gamma + 1); engine/serving.hpp verify_step_time, at eta_decode or its default at
//    B x (gamma + 1) tokens) plus step_overhead, and yields (1 - alpha^(gamma+1)) / (1 - alpha) tokens
//    per sequence; the decode time per output token, iteration / that, replaces t_step in ITL and
//    throughput. While the verification stays memory-bound this is the paper's walltime improvement
//    (1 - alpha^(gamma+1)) / ((1 - alpha)(gamma c + 1)). With `draft_model` (a catalog model; none by
//    default) c is that model's own decode step (engine/serving.hpp decode_step_time, at the same batch,
//    mean context, tp, precisions, eta_decode and step_overhead) over the target's, and its weights
//    (sharded over tp) and each sequence's KV cache count in memory beside the target's; a draft that
//    is not a transformer or whose heads tp does not divide is infeasible. The draft must share the
//    target's tokenizer, which is not checked. Without it c is draft_cost_ratio and the draft takes no
//    memory. The gamma speculative KV slots are not counted.
//  - disaggregated prefill and decode (disaggregated: on; Zhong et al. 2024, "DistServe: Disaggregating
//    Prefill and Decoding for Goodput-optimized Large Language Model Serving", OSDI; Patel et al. 2024,
//    "Splitwise: Efficient Generative LLM Inference Using Phase Splitting", ISCA): prefill_decode_ratio
//    prefill instances of prefill_tp x ep GPUs (below) serve each decode instance. Decode iterations
//    carry no prefill (itl_s = decode time per token); TTFT = prefill of one prompt + moving its KV cache,
//    each GPU its shard at kv_transfer_bandwidth, not overlapped with the prefill (kv_transfer_s);
//    tokens_per_s = min(decode pool B / t_token, prefill pool ratio x B x O / prefill of B prompts); gpus
//    and the cost count both pools. Continuous batching only; not combined with chunked prefill.
//    On a torus node (torus_x, torus_y, torus_z) with kv_transfer_bandwidth 0 and no prefill_hardware
//    the transfer is a hop between neighbouring blocks of the torus instead of a switch's per-GPU
//    link: the prefill instance and its decode instance are two blocks of min(prefill_tp, tp) x ep
//    chips side by side (both must fit the torus), and each chip sends the larger shard across the
//    face between them at its share of the face's links, plus one link_latency (engine/torus.hpp
//    torus_block_hop_s; "How to Scale Your Model", part 2: ICI joins nearest neighbours only). The
//    switched transfer carries no latency term. Serving has no pipeline parallelism: this is its only
//    point-to-point transfer.
//    prefill_memory_bytes: a prefill GPU holds the target's weights and its group's ceil(B / ep) prompts'
//    KV cache (paged: their blocks outside the shared prefix, which is held once); the draft stays on
//    the decode pool. On the decode hardware at the decode tp this never exceeds memory_bytes.
//    prefill_tp (0 = tp) sizes a prefill instance apart from a decode one, as DistServe chooses each
//    phase's parallelism (prefill_gpus = ratio x prefill_tp x ep): prefill, its memory and its
//    all-reduces run at prefill_tp, and the KV transfer takes the larger per-GPU shard of the two sides,
//    KV(P) x max(1 / min(prefill_tp, kv_heads), 1 / min(tp, kv_heads)) / bandwidth. It must divide the
//    heads, fit the node with ep and, above 1, have a link; without disaggregation it is infeasible.
//  - a prefill pool on other hardware (prefill_hardware, a catalog id; none = the decode hardware;
//    Splitwise's "Splitwise-HA" prefills on H100 and decodes on A100, Patel et al. 2024, arXiv:2311.18677;
//    its simulator's README, github.com/Mutinifni/splitwise-sim, runs it as KV-cache transfers from a
//    DGX-H100 to a DGX-A100 machine):
//    with disaggregated on, every prefill runs on that chip (its peak at `precision`, its
//    memory bandwidth x memory_efficiency, its accelerator link for the tp all-reduces, a switched node:
//    a torus describes the decode node), at prefill_tp, with the decode side's ep, eta and step_overhead; its
//    memory must hold prefill_memory_bytes. The KV moves at kv_transfer_bandwidth or, when 0, at the
//    slower of the two chips' accelerator links. Prefill GPUs cost prefill_gpu_hour_price or, when 0,
//    the prefill chip's catalog price over `lifetime`, or its rental price when gpu_hour_price is
//    catalog (infeasible without one); when gpu_hour_price gives the decode GPUs' price and
//    prefill_gpu_hour_price is 0 the prefill price is unknown (cost NaN). The calibration profile's
//    per-chip factor of eta follows the prefill chip (ParamSpec::scaled_by_second_hardware; dse/grid.cpp);
//    memory_efficiency and step_overhead are fitted without per-chip factors and apply to both pools.
//    prefill_hardware without disaggregation is infeasible. A study's derived hardware_* values and a
//    sensitivity's hardware fields are the decode hardware's; a calibration measurement that sets
//    prefill_hardware would fit eta's factor to the decode chip (none does).
//  - weight-only quantization (weight_precision int8 or int4; w8a16 / w4a16): weights stored and read
//    at 8 or 4 bits plus, per group of weight_group_size weights, one 16-bit scale and a zero point
//    (weight_zero_point: none, packed at the weight's width, or 16bit): w + (2 + z) / g bytes per weight
//    (engine/serving.hpp grouped_weight_bytes). The defaults, g = 128 and no zero point, are the group
//    size of Lin et al. 2024, "AWQ: Activation-aware Weight Quantization for LLM Compression and
//    Acceleration", MLSys (its INT4-g128 results) with a symmetric scale: 1 + 2/128 or 0.5 + 2/128
//    bytes; AWQ's own checkpoints add a packed zero (packed: 0.5 + 2.5/128). gpt-fast's int4
//    (pytorch-labs/gpt-fast quantize.py: get_group_qparams and pack_scales_and_zeros, a bf16 scale and
//    a bf16 zero per group; its README's rows use --groupsize 32) is g = 32, 16bit: 0.5 + 4/32 =
//    0.625 bytes; its int8 (WeightOnlyInt8Linear) one bf16 scale per output channel, g = 0 (not
//    counted). Compute, its roof, activations and collectives stay at `precision`; dequantization is
//    free (engine/serving.hpp). `same` stores weights at `precision` and ignores the group.
//  - itl_max_s: the longest gap between two tokens of a request: static, one decode iteration;
//    continuous, a decode iteration plus the prefill iteration it waits for (vLLM's scheduler runs
//    waiting prefills first) of the ceil(B / O) prompts that arrive per iteration, at least one; with
//    chunking a decode iteration plus one chunk; disaggregated a decode iteration.
//  - continuous batching's per-iteration scheduler cost is step_overhead (above).
//  - gemm_shapes: on prices each step's linear-layer GEMMs by their tiles and waves on the chip's
//    compute_units, with split-K for GEMMs too skinny to fill them (engine/gemm_waves.hpp; the rest of
//    the FLOPs stay at peak x eta, the split's partial sums join the memory traffic); a decode step
//    priced by the seeds' interpolated efficiency (no eta_decode, no eta) keeps the plain roofline,
//    that efficiency being a whole step's. off (the default) is the plain roofline: with the shipped
//    validation set on, serving latency and batch-1 decode improve held out and serving throughput
//    does not (README, Accuracy), and a point costs 1.5-1.6x as much.
// mlsysim bugs avoided are listed in engine/serving.hpp.
#pragma once

#include "engine/solver.hpp"

namespace dsx {

class ServingSolver final : public TabledSolver {
 public:
  enum Param : std::size_t {
    hardware,
    model,
    precision,
    kv_precision,
    batch,
    prompt_tokens,
    output_tokens,
    tp,
    eta,
    eta_decode,
    batching,
    arrival_rate,
    gpu_hour_price,
    lifetime,
    link_latency,
    ep,
    memory_efficiency,
    output_lengths,
    step_overhead,
    gpus_per_node,
    kv_block_tokens,
    prefix_hit_rate,
    prefill_chunk_tokens,
    draft_tokens,
    acceptance_rate,
    draft_cost_ratio,
    disaggregated,
    prefill_decode_ratio,
    kv_transfer_bandwidth,
    weight_precision,
    draft_model,
    prefill_hardware,
    prefill_gpu_hour_price,
    prefill_tp,
    torus_x,
    torus_y,
    torus_z,
    preemption,
    swap_bandwidth,
    swap_space,
    kv_watermark,
    weight_group_size,
    weight_zero_point,
    clients,
    gemm_shapes,
    kParamCount
  };
  enum Metric : std::size_t {
    ttft_s,
    itl_s,
    e2e_latency_s,
    tokens_per_s,
    tokens_per_s_per_gpu,
    tokens_per_s_per_user,
    requests_per_s,
    prefill_s,
    decode_step_s,
    decode_compute_s,
    decode_memory_s,
    decode_communication_s,
    kv_cache_bytes,
    kv_cache_per_token_bytes,
    weights_per_gpu_bytes,
    memory_bytes,
    max_batch,
    static_tokens_per_s,
    continuous_tokens_per_s,
    continuous_speedup_vs_static,
    concurrency,
    queue_utilization,
    p99_latency_s,
    p99_ttft_s,
    gpu_hour_price_usd,
    cost_per_million_tokens_usd,
    eta_decode_used,
    gpus,
    decode_all_to_all_s,
    batch_used,
    kv_fragmentation_fraction,
    kv_held_per_sequence_bytes,
    itl_max_s,
    prefill_chunks,
    speculative_tokens_per_step,
    speculative_speedup,
    kv_transfer_s,
    prefill_gpus,
    draft_cost_ratio_used,
    prefill_memory_bytes,
    prefill_gpu_hour_price_usd,
    kv_full_probability,
    preemptions_per_step,
    preemptions_per_request,
    preemption_s,
    kMetricCount
  };
  enum Reason : std::uint8_t {
    precision_unsupported,
    not_a_transformer,
    tp_needs_link,
    tp_must_divide_heads,
    exceeds_memory,
    queue_unstable,
    ep_needs_moe,
    ep_must_divide_experts,
    replica_exceeds_node,
    needs_continuous_batching,
    chunked_with_disaggregation,
    no_kv_transfer_link,
    chunks_starve_batch,
    draft_not_servable,
    torus_is_not_the_node,
    prefill_hardware_needs_disaggregation,
    prefill_precision_unsupported,
    prefill_needs_link,
    prefill_exceeds_memory,
    prefill_tp_needs_disaggregation,
    tp_must_divide_channels,
    preemption_needs_paged_cache,
    swap_needs_host_link,
    watermark_needs_paged_cache,
    exceeds_admission,
    exceeds_swap_space,
    no_rental_price,
    no_prefill_rental_price,
    pools_exceed_torus,
    closed_loop_needs_colocated,
    closed_and_open_loop,
    exceeds_memory_not_weight_tier,
  };

  ServingSolver();
  PointResult evaluate(const PointInputs& in, std::span<double> out) const override;
};

// Default decode eta at a batch (see the header comment).
double default_decode_eta(double batch);

}  // namespace dsx
