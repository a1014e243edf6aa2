#include "engine/solvers/training_params.hpp"

#include "engine/collectives.hpp"
#include "engine/solvers/torus_params.hpp"
#include "engine/solvers/training.hpp"
#include "engine/solvers/training_layout.hpp"

namespace dsx::training {

namespace {

constexpr std::array<std::string_view, 3> kRecompute = {"none", "selective", "full"};
constexpr std::array<std::string_view, 2> kAttention = {"fused", "unfused"};
constexpr std::array<std::string_view, 5> kPrecisions = {"fp32", "tf32", "bf16", "fp16", "fp8"};
constexpr std::array<std::string_view, 5> kOptimizers = {"adamw", "adam_8bit", "adafactor", "sgd_momentum", "lion"};
constexpr std::array<std::string_view, 2> kOffOn = {"off", "on"};
// Transformer Engine's cp_comm_type names (transformer_engine/pytorch/attention/dot_product_attention/
// context_parallel.py: "p2p" AttnFuncWithCPAndKVP2P, "all_gather" AttnFuncWithCPAndKVAllGather).
constexpr std::array<std::string_view, 2> kCpComm = {"p2p", "all_gather"};
constexpr std::array<std::string_view, 3> kFinetune = {"full", "lora", "qlora"};
constexpr std::array<std::string_view, 8> kOffload = {"none",    "optimizer",     "weights",
                                                     "activations", "optimizer_weights", "optimizer_activations",
                                                     "weights_activations", "all"};
// How an EP group that spans nodes or pods exchanges tokens (engine/collectives.hpp).
constexpr std::array<std::string_view, 2> kEpAllToAll = {"flat", "hierarchical"};
// Expert tensor-parallel degree, as torchtitan's ParallelDims allows it ("Currently we only support ETP=TP
// or ETP=1", torchtitan/distributed/parallel_dims.py).
constexpr std::array<std::string_view, 2> kEtp = {"tp", "1"};
constexpr std::array<std::string_view, 2> kFp8WeightCasts = {"per_microbatch", "cached"};
constexpr double kQloraRank = 64;                // QLoRA's r for its Guanaco runs (Dettmers et al. 2023)
constexpr double kCheckpointBandwidthBytesPerS = 100e9;  // mlsysim recovery profile: the default

constexpr std::array<ParamSpec, TrainingSolver::kParamCount> kParams = {{
    {.name = "hardware", .kind = ParamKind::hardware, .description = "accelerator (catalog id); all GPUs alike"},
    {.name = "model", .kind = ParamKind::model,
     .description = "language model (catalog id): a transformer (dense or mixture of experts, MHA/GQA or MLA), a "
                    "hybrid (Jamba) or a Mamba stack; its seq_len is used"},
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
     .description = "achieved fraction of the training precision's peak on the per-GPU compute", .has_default = true,
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
     .description = "one-way latency of a transfer across nodes (default IB NDR, 5 µs)", .has_default = true,
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
    {.name = "precision", .kind = ParamKind::choice, .choices = kPrecisions,
     .description = "training precision: fp32/tf32 (fp32 weights and activations, no master copy), bf16/fp16 "
                    "(16-bit weights, activations, gradients; fp32 master), fp8 (Transformer Engine: linear-layer "
                    "GEMMs at the fp8 peak x the hardware's fp8_gemm_relative_efficiency, attention and the LM "
                    "head in bf16, bf16 weights and fp32 master)",
     .has_default = true, .default_value = 2},
    {.name = "optimizer", .kind = ParamKind::choice, .choices = kOptimizers,
     .description = "optimizer whose states are kept per trainable parameter: adamw 8 B, adam_8bit 2 B, adafactor "
                    "8 / d_model B (factored), sgd_momentum 4 B, lion 4 B (plus the fp32 master in mixed precision)",
     .has_default = true, .default_value = 0},
    {.name = "cp", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "context-parallel degree: each sequence split over cp ranks, K/V passed around a ring "
                    "(gpus = tp x pp x cp x dp; on NVLink while tp x cp fits a node)",
     .has_default = true, .default_value = 1, .min_value = 1, .max_value = 1024, .integer = true},
    {.name = "sequence_parallel", .kind = ParamKind::choice, .choices = kOffOn,
     .description = "Megatron sequence parallelism: LayerNorm and dropout activations sharded over tp "
                    "(Korthikanti et al. 2022); the TP traffic keeps its volume",
     .has_default = true, .default_value = 1},
    {.name = "finetune", .kind = ParamKind::choice, .choices = kFinetune,
     .description = "full training, or LoRA / QLoRA adapters of rank lora_rank on every linear layer of the blocks "
                    "over a frozen base (bf16, or 4-bit NF4 for qlora)",
     .has_default = true, .default_value = 0},
    {.name = "lora_rank", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "rank r of the LoRA adapters (finetune lora or qlora; default QLoRA's 64)", .has_default = true,
     .default_value = kQloraRank, .min_value = 1, .max_value = 65536, .integer = true},
    {.name = "attention_eta", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "achieved fraction of attention's peak in the fused attention kernels, forward and backward "
                    "(FLOPs a causal mask skips not counted)",
     .has_default = true, .default_value = 0.5, .min_value = 0, .max_value = 1, .min_exclusive = true},
    {.name = "memory_efficiency", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "achieved fraction of the memory bandwidth in the memory-bound work: norms, activations, "
                    "residual adds, the loss, fp8 casts, the optimizer update",
     .has_default = true, .default_value = 0.8, .min_value = 0, .max_value = 1, .min_exclusive = true},
    {.name = "memory_traffic", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "bytes the memory-bound work moves over the fused minimum counted (1: every elementwise chain "
                    "one kernel; eager frameworks move more: intermediate copies, casts, unfused backward)",
     .has_default = true, .default_value = 1, .min_value = 1, .max_value = 20},
    {.name = "tp_overlap", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "fraction of the TP all-reduces hidden behind the GEMMs (Megatron-Core's TP communication "
                    "overlap, which leaves a MoE layer's expert-TP all-gather and reduce-scatter exposed; 0: exposed)",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1},
    {.name = "offload", .kind = ParamKind::choice, .choices = kOffload,
     .description = "what lives in host memory: optimizer (ZeRO-Offload: the gradient shard, fp32 master and optimizer "
                    "states, the update on the host CPU; needs host_memory_bandwidth), weights and/or activations "
                    "(Calculon: streamed over the host link a layer at a time, two layers resident), or all",
     .has_default = true, .default_value = 0},
    {.name = "host_memory_bandwidth", .kind = ParamKind::number, .dimension = Dimension::bandwidth,
     .description = "host memory bandwidth the offloaded update of one GPU's shard achieves (the host CPUs' "
                    "achieved rate / GPUs per host); 0 = not given",
     .has_default = true, .default_value = 0, .min_value = 0},
    torus_param("torus_x"),
    torus_param("torus_y"),
    torus_param("torus_z"),
    {.name = "rank_order", .kind = ParamKind::choice, .choices = kRankOrders,
     .description = "order of the tp, cp, ep, dp and pp ranks, innermost first (Megatron-Core's RankGenerator): a "
                    "group whose ranks span at most a node talks on NVLink/ICI, the others on the NIC. "
                    "tp-cp-ep-dp-pp is Megatron-Core's default (stages outermost), tp-cp-ep-pp-dp its "
                    "--use-tp-pp-dp-mapping (a pipeline's stages share a node when tp x cp x pp fits it); any of "
                    "the 120 orders, e.g. pp-tp-cp-ep-dp (stages inside a node, TP across nodes)",
     .has_default = true, .default_value = 0},
    {.name = "host_memory_capacity", .kind = ParamKind::number, .dimension = Dimension::bytes,
     .description = "host memory one GPU's offload may fill (a host's memory / the GPUs sharing it); needed by any "
                    "offload; 0 = not given",
     .has_default = true, .default_value = 0, .min_value = 0},
    {.name = "fp8_weight_cast", .kind = ParamKind::choice, .choices = kFp8WeightCasts,
     .description = "fp8 only: per_microbatch (Transformer Engine casts the linear weights to fp8 on every forward "
                    "pass, its default and llm-foundry's) or cached (cast once per step and reused by the other "
                    "micro-batches and the recomputed forward: Megatron-Core's is_first_microbatch)",
     .has_default = true, .default_value = 0},
    {.name = "cp_comm", .kind = ParamKind::choice, .choices = kCpComm,
     .description = "cp > 1: p2p (ring attention, K/V passed to the next rank, one ring direction, hidden behind "
                    "attention; Transformer Engine's default) or all_gather (Llama 3: K/V all-gathered, then "
                    "attention; not hidden, a torus's rings run both directions)",
     .has_default = true, .default_value = 0},
    {.name = "gpus_per_pod", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "GPUs of a pod, whole nodes on the NIC fabric (a TPU slice, a scalable unit), whose pods meet on "
                    "the data-centre network (dcn_bandwidth, dcn_latency); 0 = no third tier, one fabric",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1e7, .integer = true},
    {.name = "dcn_bandwidth", .kind = ParamKind::number, .dimension = Dimension::bandwidth,
     .description = "one-way data-centre network bandwidth per GPU between pods (TPU v5p: 50 Gb/s per chip); needed "
                    "when the job spans pods; 0 = not given",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1e14},
    {.name = "dcn_latency", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "latency (alpha) of one step of a transfer between pods; needed when the job spans pods; 0 = not "
                    "given",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1},
    {.name = "ep_all_to_all", .kind = ParamKind::choice, .choices = kEpAllToAll,
     .description = "ep > 1 spanning nodes or pods: flat (one pairwise exchange over the EP group, every step at the "
                    "slowest tier's rate and latency) or hierarchical (Tutel's 2DH: an all-to-all inside each node "
                    "on NVLink/ICI, then among the nodes on the NIC, then among the pods on the data-centre network)",
     .has_default = true, .default_value = 0},
    {.name = "etp", .kind = ParamKind::choice, .choices = kEtp,
     .description = "expert tensor-parallel degree (ep > 1): tp (experts split over the TP group, the EP group of "
                    "ep data-parallel ranks tp apart; Megatron-Core's default) or 1 (torchtitan's etp = 1: whole "
                    "experts, the EP group takes the tp ranks, ep a multiple of tp)",
     .has_default = true, .default_value = 0},
    {.name = "max_nodes_per_token", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "ep_all_to_all hierarchical: DeepSeek-V3's node-limited routing, each token sent across nodes "
                    "once to each node it reaches, at most this many (M = 4 in DeepSeek-V3), the node's links "
                    "forwarding it to its experts there; 0 = unlimited, every one of its k copies crosses",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1e6, .integer = true},
}};

static_assert(TrainingSolver::kParamCount <= kMaxParams, "PointInputs::values holds kMaxParams parameters");

constexpr std::array<MetricSpec, TrainingSolver::kMetricCount> kMetrics = {{
    {"step_time_s", Dimension::time, "compute + optimizer update + bubble + exposed TP/PP/EP/CP/DP communication + exposed offload"},
    {"compute_s", Dimension::time,
     "one GPU's shard of all micro-batches: GEMMs at eta x peak, attention at attention_eta, memory-bound work"},
    {"bubble_s", Dimension::time, "pipeline fill and drain: compute x (p-1)/m"},
    {"tp_comm_s", Dimension::time,
     "tensor-parallel all-reduces per step (a MoE layer's feed-forward under etp tp and ep > 1: in ep_comm_s)"},
    {"pp_comm_s", Dimension::time, "pipeline point-to-point per step"},
    {"ep_comm_s", Dimension::time,
     "expert-parallel dispatch and combine all-to-alls per step, with etp tp the routed tokens' all-gathers and "
     "reduce-scatters over the expert-TP group (Megatron-Core's token dispatcher)"},
    {"dp_comm_s", Dimension::time, "exposed data-parallel gradient communication per step (over dp x cp ranks)"},
    {"bubble_fraction", Dimension::dimensionless, "(p-1)/(m+p-1)", MetricDomain::fraction},
    {"scaling_efficiency", Dimension::dimensionless, "compute_s / step_time_s", MetricDomain::fraction},
    {"tokens_per_s", Dimension::rate, "global training tokens per second (DP x m x b x s / step)"},
    {"mfu", Dimension::dimensionless,
     "model FLOPs utilization (PaLM appendix B; 4 N + 6 A + attention for LoRA) against the training precision's "
     "dense peak; fp8 against the bf16 peak, so fp8 and bf16 runs share one scale (up to fp8 peak / bf16 peak)",
     MetricDomain::fraction},
    {"hfu", Dimension::dimensionless, "hardware FLOPs utilization (with recomputation), against the peak of mfu",
     MetricDomain::fraction},
    {"tflops_per_gpu", Dimension::dimensionless, "achieved model TFLOP/s per GPU (mfu x peak / 1e12)",
     MetricDomain::non_negative},
    {"hardware_tflops_per_gpu", Dimension::dimensionless,
     "achieved hardware TFLOP/s per GPU, recomputation included (hfu x peak / 1e12; Megatron-LM's convention)",
     MetricDomain::non_negative},
    {"active_parameters", Dimension::count, "parameters one token uses (all of them for a dense model)"},
    {"dp", Dimension::count, "data-parallel degree gpus / (tp x pp x cp)"},
    {"microbatches", Dimension::count, "micro-batches per step per replica"},
    {"memory_per_gpu_bytes", Dimension::bytes, "weights + gradients + optimizer + activations + buffers"},
    {"weights_bytes", Dimension::bytes, "weights per GPU (training precision; LoRA: frozen base + adapters)"},
    {"gradients_bytes", Dimension::bytes, "gradients of the trainable parameters per GPU"},
    {"optimizer_bytes", Dimension::bytes, "fp32 master + optimizer states of the trainable parameters per GPU"},
    {"activations_bytes", Dimension::bytes, "stored activations per GPU (first pipeline stage)"},
    {"fleet_model_state_bytes_per_param", Dimension::dimensionless,
     "(weights + gradients + optimizer) on all GPUs / parameters: 16 x dp / (ZeRO sharding); 16 at ZeRO-3"},
    {"time_to_train_s", Dimension::time, "training_tokens / tokens_per_s"},
    {"time_to_train_6pd_s", Dimension::time,
     "6 P_active D / (N X MFU), (4 P_active + 6 A) D / (N X MFU) for LoRA: check (no attention term)"},
    {"fleet_mtbf_s", Dimension::time, "1 / sum of component failure rates of gpus / 8 nodes"},
    {"checkpoint_interval_s", Dimension::time, "Daly 2006 optimum for a checkpoint of checkpoint_s"},
    {"goodput", Dimension::dimensionless, "1 - checkpoint / period - (restart + period / 2) / MTBF"},
    {"time_with_failures_s", Dimension::time, "time_to_train_s / goodput"},
    {"gpu_power_w", Dimension::power, "per GPU: TDP x (idle + (1 - idle) x compute share)"},
    {"energy_j", Dimension::energy, "facility energy of the run (IT x PUE)"},
    {"co2_kg", Dimension::dimensionless, "operational CO2e of the run in kg", MetricDomain::non_negative},
    {"water_l", Dimension::dimensionless, "on-site water of the run in litres: IT energy (kWh) x WUE",
     MetricDomain::non_negative},
    {"gpu_hour_cost_usd", Dimension::money, "owned GPU-hour: capex / 3 y + 5 %/y maintenance + electricity"},
    {"cost_usd", Dimension::money, "cost of the run"},
    {"cost_per_million_tokens_usd", Dimension::money, "cost per million training tokens"},
    {"tokens_per_s_per_gpu", Dimension::rate, "tokens_per_s / gpus (what torchtitan and llm-foundry report)"},
    {"checkpoint_bytes", Dimension::bytes,
     "one checkpoint: weights + master + optimizer states of the trainable parameters (14 B per parameter for "
     "bf16 AdamW; LoRA: the adapters only)"},
    {"checkpoint_s", Dimension::time, "time to write one checkpoint: checkpoint_bytes / checkpoint_bandwidth"},
    {"cp_comm_s", Dimension::time,
     "context-parallel K/V exchanges per step (ring steps or all-gathers) not hidden behind attention compute"},
    {"trainable_parameters", Dimension::count, "parameters with gradients and optimizer states (LoRA: the adapters)"},
    {"memory_bound_s", Dimension::time,
     "the part of compute_s that streams memory: norms, activations, residual adds, the loss, fp8 casts"},
    {"optimizer_s", Dimension::time,
     "the optimizer update per step: states, gradients and weights through memory (offloaded: the gradient copy "
     "not hidden by the last backward, the host update, the weights' copy back)"},
    {"host_memory_per_gpu_bytes", Dimension::bytes, "gradients, fp32 master and optimizer states offloaded to host "
     "memory per GPU, plus the weights and stored activations when offloaded (0 without offload)"},
    {"offload_exposed_s", Dimension::time,
     "host-link transfers of offloaded weights and activations per step not hidden behind the layers' compute, "
     "plus the updated weights' write-back (0 without weight or activation offload)"},
}};

constexpr std::array<std::string_view, 28> kReasons = {
    "model is neither a transformer nor a Mamba stack (no qkv_proj / attention_scores, selective_scan or ssd_scan op)",
    "tp x pp does not divide gpus",
    "tp and gpus_per_node must nest: one divides the other (TP groups tile nodes)",
    "tp must divide the attention heads",
    "pp x virtual_stages exceeds the layers (every model chunk needs one)",
    "global_batch is not a multiple of dp x micro_batch",
    "does not fit in device memory",
    "ep > 1 needs a mixture-of-experts model",
    "ep must divide dp (Megatron-Core shards experts within the data-parallel group)",
    "ep must divide the number of routed experts",
    "interleaved stages need the micro-batches per step to be a multiple of pp (Megatron-LM's schedule)",
    kPrecisionUnsupported,
    "tp x pp x cp does not divide gpus",
    "tp x cp and gpus_per_node must nest: one divides the other (TP x CP groups tile nodes)",
    "seq_len must be a multiple of 2 x cp (the load-balanced causal split gives each rank 2 chunks)",
    "ep > 1 with tp > 1 needs sequence_parallel on (Megatron-Core)",
    "offloading the optimizer needs host_memory_bandwidth",
    "cp > 1 splits attention (ring attention); a hybrid model's Mamba layers scan the whole sequence",
    "the torus dimensions (torus_x x torus_y x torus_z) must multiply to gpus_per_node",
    "offloading weights or activations needs at least 3 layers per pipeline stage (Calculon)",
    "offloading needs host_memory_capacity (the host memory one GPU may fill)",
    "what offload moves to host memory (host_memory_per_gpu_bytes) exceeds the host memory one GPU may fill "
    "(host_memory_capacity)",
    "rank_order places a group unevenly: every product of the innermost degrees (in the dense grid, and in the "
    "expert grid of tp, ep, dp x cp / ep, pp) must divide gpus_per_node or be a multiple of it",
    "gpus_per_pod must be a multiple of gpus_per_node, and every product of rank_order's innermost degrees (in "
    "both grids) must divide gpus_per_pod or be a multiple of it",
    "the job spans pods (gpus > gpus_per_pod): dcn_bandwidth and dcn_latency must be given",
    "tp must divide the Mamba channels (expand x d_model) and a Mamba-2 model's ngroups",
    "etp 1 needs ep a multiple of tp with ep / tp dividing dp (the EP group takes all of TP and part of DP: "
    "torchtitan ParallelDims)",
    "ep_all_to_all hierarchical needs the EP group to hold the same number of its ranks in every node (and pod) "
    "it spans",
};

}  // namespace

std::span<const ParamSpec> param_specs() { return kParams; }
std::span<const MetricSpec> metric_specs() { return kMetrics; }
std::span<const std::string_view> reasons() { return kReasons; }

}  // namespace dsx::training
