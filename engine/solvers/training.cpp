#include "engine/solvers/training.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "engine/carbon.hpp"
#include "engine/collectives.hpp"
#include "engine/dispatch.hpp"
#include "engine/economics.hpp"
#include "engine/laws.hpp"
#include "engine/offload.hpp"
#include "engine/parallelism.hpp"
#include "engine/pipeline.hpp"
#include "engine/reliability.hpp"
#include "engine/serving.hpp"
#include "engine/solvers/torus_params.hpp"
#include "engine/torus.hpp"
#include "engine/training_memory.hpp"

namespace dsx {

namespace {

constexpr std::array<std::string_view, 3> kRecompute = {"none", "selective", "full"};
constexpr std::array<std::string_view, 2> kAttention = {"fused", "unfused"};
constexpr std::array<std::string_view, 5> kPrecisions = {"fp32", "tf32", "bf16", "fp16", "fp8"};
constexpr std::array<Precision, 5> kComputePrecision = {Precision::fp32, Precision::tf32, Precision::bf16,
                                                        Precision::fp16, Precision::fp8};
constexpr std::array<std::string_view, 5> kOptimizers = {"adamw", "adam_8bit", "adafactor", "sgd_momentum", "lion"};
constexpr std::array<Optimizer, 5> kOptimizerKind = {Optimizer::adam, Optimizer::adam_8bit, Optimizer::adafactor,
                                                     Optimizer::sgd_momentum, Optimizer::lion};
constexpr std::array<std::string_view, 2> kOffOn = {"off", "on"};
// Transformer Engine's cp_comm_type names (transformer_engine/pytorch/attention/dot_product_attention/
// context_parallel.py: "p2p" AttnFuncWithCPAndKVP2P, "all_gather" AttnFuncWithCPAndKVAllGather).
constexpr std::array<std::string_view, 2> kCpComm = {"p2p", "all_gather"};
constexpr std::array<std::string_view, 3> kFinetune = {"full", "lora", "qlora"};
constexpr std::array<std::string_view, 8> kOffload = {"none",    "optimizer",     "weights",
                                                     "activations", "optimizer_weights", "optimizer_activations",
                                                     "weights_activations", "all"};
// What each offload choice moves to host memory.
struct OffloadParts {
  bool optimizer, weights, activations;
};
constexpr std::array<OffloadParts, 8> kOffloadParts = {{{false, false, false},
                                                        {true, false, false},
                                                        {false, true, false},
                                                        {false, false, true},
                                                        {true, true, false},
                                                        {true, false, true},
                                                        {false, true, true},
                                                        {true, true, true}}};
// Rank orders, innermost first (engine/solvers/training.hpp, rank_order): Megatron-Core's default and
// --use-tp-pp-dp-mapping's order keep the indices 0 and 1 they always had; the other 118 orders of the
// five groups follow in lexicographic order of their group indices.
enum RankGroup : std::uint8_t { kTpGroup, kCpGroup, kEpGroup, kDpGroup, kPpGroup, kRankGroups };
constexpr std::size_t kRankOrderCount = 120;  // 5!
struct RankOrderTable {
  std::array<std::array<std::uint8_t, kRankGroups>, kRankOrderCount> groups{};
  std::array<std::array<char, 14>, kRankOrderCount> text{};
};
constexpr RankOrderTable make_rank_orders() {
  constexpr std::array<std::string_view, kRankGroups> names = {"tp", "cp", "ep", "dp", "pp"};
  RankOrderTable table;
  const std::array<std::uint8_t, kRankGroups> megatron = {0, 1, 2, 3, 4}, pipelines_inside = {0, 1, 2, 4, 3};
  table.groups[0] = megatron;
  table.groups[1] = pipelines_inside;
  std::size_t next = 2;
  std::array<std::uint8_t, kRankGroups> order = megatron;
  do {
    if (order != megatron && order != pipelines_inside) table.groups[next++] = order;
  } while (std::next_permutation(order.begin(), order.end()));
  for (std::size_t i = 0; i < kRankOrderCount; ++i) {
    for (std::size_t g = 0; g < kRankGroups; ++g) {
      table.text[i][3 * g] = names[table.groups[i][g]][0];
      table.text[i][3 * g + 1] = names[table.groups[i][g]][1];
      if (g + 1 < kRankGroups) table.text[i][3 * g + 2] = '-';
    }
  }
  return table;
}
constexpr RankOrderTable kRankOrderTable = make_rank_orders();
constexpr std::array<std::string_view, kRankOrderCount> kRankOrders = [] {
  std::array<std::string_view, kRankOrderCount> views{};
  for (std::size_t i = 0; i < kRankOrderCount; ++i) views[i] = std::string_view(kRankOrderTable.text[i].data(), 14);
  return views;
}();
// Ranks between neighbouring members of each group (the product of the degrees of the groups inside
// it) under `order`, for the group degrees `degree` (indexed by RankGroup).
std::array<double, kRankGroups> rank_strides(const std::array<std::uint8_t, kRankGroups>& order,
                                             const std::array<double, kRankGroups>& degree) {
  std::array<double, kRankGroups> stride{};
  double inside = 1;
  for (const std::uint8_t g : order) {
    stride[g] = inside;
    inside *= degree[g];
  }
  return stride;
}
// How an EP group that spans nodes or pods exchanges tokens (engine/collectives.hpp).
constexpr std::array<std::string_view, 2> kEpAllToAll = {"flat", "hierarchical"};
// Expert tensor-parallel degree, as torchtitan's ParallelDims allows it ("Currently we only support ETP=TP
// or ETP=1", torchtitan/distributed/parallel_dims.py).
constexpr std::array<std::string_view, 2> kEtp = {"tp", "1"};
constexpr std::array<std::string_view, 2> kFp8WeightCasts = {"per_microbatch", "cached"};
constexpr int kFp8WeightCastCached = 1;
constexpr int kLora = 1, kQlora = 2;
constexpr double kNf4BytesPerParam = 4.127 / 8;  // QLoRA section 3: NF4 + double-quantized constants
constexpr double kQloraRank = 64;                // QLoRA's r for its Guanaco runs (Dettmers et al. 2023)
constexpr double kLifetimeYears = 3;
constexpr double kMaintenancePerYear = 0.05;
constexpr double kCheckpointBandwidthBytesPerS = 100e9;  // mlsysim recovery profile: the default
constexpr double kRestartS = 300;                        // mlsysim ReliabilityModel recovery time
constexpr double kPsusPerNode = 2;

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
                    "overlap; 0: exposed)",
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
}};

static_assert(TrainingSolver::kParamCount <= kMaxParams, "PointInputs::values holds kMaxParams parameters");

constexpr std::array<MetricSpec, TrainingSolver::kMetricCount> kMetrics = {{
    {"step_time_s", Dimension::time, "compute + optimizer update + bubble + exposed TP/PP/EP/CP/DP communication + exposed offload"},
    {"compute_s", Dimension::time,
     "one GPU's shard of all micro-batches: GEMMs at eta x peak, attention at attention_eta, memory-bound work"},
    {"bubble_s", Dimension::time, "pipeline fill and drain: compute x (p-1)/m"},
    {"tp_comm_s", Dimension::time, "tensor-parallel all-reduces per step"},
    {"pp_comm_s", Dimension::time, "pipeline point-to-point per step"},
    {"ep_comm_s", Dimension::time, "expert-parallel dispatch and combine all-to-alls per step"},
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

// One pipeline stage of a hybrid by the kinds of its layers (engine/serving.hpp layer_kinds).
struct StageKinds {
  double layers = 0, attention = 0, moe = 0, feed_forward = 0;
  bool operator==(const StageKinds&) const = default;
};

// Stage `stage`'s layers by kind when the layers, in order, split into stages x chunks_per_stage
// contiguous chunks as busiest_stage_layers counts them (the first layers % chunks chunks one layer
// longer), chunk c on stage c % stages (Megatron-LM's interleaved assignment; chunk c = stage c at 1F1B).
StageKinds stage_kinds(const std::vector<std::uint8_t>& kinds, std::size_t stages, std::size_t chunks_per_stage,
                       std::size_t stage) {
  const std::size_t chunks = stages * chunks_per_stage;
  const std::size_t small = kinds.size() / chunks, larger = kinds.size() % chunks;
  StageKinds held;
  for (std::size_t c = stage; c < chunks; c += stages) {
    const std::size_t first = c * small + std::min(c, larger);
    for (std::size_t layer = first; layer < first + small + (c < larger ? 1 : 0); ++layer) {
      held.layers += 1;
      if ((kinds[layer] & kLayerAttention) != 0) held.attention += 1;
      if ((kinds[layer] & kLayerMoe) != 0) held.moe += 1;
      if ((kinds[layer] & kLayerFeedForward) != 0) held.feed_forward += 1;
    }
  }
  return held;
}

// A stage's parameters from its layers: each kind's mixer and feed-forward weights (engine/serving.hpp),
// the rest (embeddings, LM head, norms, routers) spread evenly over the stages as for a dense model.
struct StageWeights {
  double parameters = 0, expert_parameters = 0, active_parameters = 0;
};
StageWeights stage_weights(const ServingShape& shape, const StageKinds& k, double stages) {
  const double mamba = k.layers - k.attention, dense = k.feed_forward - k.moe;
  const double dense_layers = shape.feed_forward_layers - shape.moe_layers;
  const double attention_w = shape.attention_mixer_weight_elements / shape.attention_layers;
  const double mamba_w = shape.recurrent_mixer_weight_elements / shape.recurrent_layers;
  const double mlp_w = dense_layers > 0 ? shape.dense_feed_forward_weight_elements / dense_layers : 0.0;
  const double expert_w = shape.moe_layers > 0 ? shape.expert_weight_elements / shape.moe_layers : 0.0;
  const double active_expert_w =
      shape.moe_layers > 0
          ? (shape.active_parameter_count - (shape.parameter_count - shape.expert_weight_elements)) / shape.moe_layers
          : 0.0;
  const double rest = shape.parameter_count - shape.attention_mixer_weight_elements -
                      shape.recurrent_mixer_weight_elements - shape.dense_feed_forward_weight_elements -
                      shape.expert_weight_elements;
  const double own = rest / stages + k.attention * attention_w + mamba * mamba_w + dense * mlp_w;
  return {.parameters = own + k.moe * expert_w,
          .expert_parameters = k.moe * expert_w,
          .active_parameters = own + k.moe * active_expert_w};
}

}  // namespace

TrainingSolver::TrainingSolver()
    : TabledSolver("training",
                   "3D-parallel LLM training and LoRA fine-tuning (+ expert and context parallelism): memory per GPU, step time, "
                   "MFU/HFU, time, cost, energy and carbon",
                   kParams, kMetrics, kReasons) {}

PointResult TrainingSolver::evaluate(const PointInputs& in, std::span<double> out) const {
  std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
  const HardwareSpec& hw = *in.hardware;
  const auto& v = in.values;
  // A transformer, a hybrid (Jamba) or an attention-free Mamba stack: a serving view of its graph.
  if (!in.model->servable) return {PointStatus::infeasible, not_a_transformer};
  const ServingShape& shape = in.model->serving_shape;
  const double n = v[Param::gpus], t = v[Param::tp], p = v[Param::pp], b = v[Param::micro_batch];
  const double cp = v[Param::cp];
  const double dp = data_parallel_degree(n, t, p * cp);
  if (dp == 0) return {PointStatus::infeasible, cp > 1 ? tp_pp_cp_do_not_divide_gpus : tp_pp_do_not_divide_gpus};
  const double node = v[Param::gpus_per_node];
  if (std::fmod(t > node ? t : node, t > node ? node : t) != 0) return {PointStatus::infeasible, tp_and_node_do_not_nest};
  // A torus node (TPU ICI, Trn2 NeuronLink) costs its in-node collectives on the torus
  // (engine/torus.hpp); a switched node keeps engine/collectives.hpp's.
  const TorusTopology torus =
      node_torus(v[Param::torus_x], v[Param::torus_y], v[Param::torus_z],
                 hw.accelerator_link_bandwidth_bytes_per_s > 0 ? hw.accelerator_link_bandwidth_bytes_per_s
                                                               : hw.host_link_bandwidth_bytes_per_s);
  const bool on_torus = torus.count > 0;
  if (on_torus && torus_chips(torus) != node) return {PointStatus::infeasible, torus_is_not_the_node};
  const double tc = t * cp;
  if (cp > 1 && std::fmod(tc > node ? tc : node, tc > node ? node : tc) != 0) {
    return {PointStatus::infeasible, tp_cp_and_node_do_not_nest};
  }
  if (std::fmod(shape.heads, t) != 0) return {PointStatus::infeasible, tp_must_divide_heads};
  if (cp > 1 && shape.recurrent_layers > 0) return {PointStatus::infeasible, cp_needs_attention_only};
  if (!recurrent_tp_divides(shape, t)) {
    return {PointStatus::infeasible, tp_must_divide_recurrent_channels};
  }
  if (cp > 1 && std::fmod(shape.built_seq_len, 2 * cp) != 0) return {PointStatus::infeasible, cp_must_divide_sequence};
  const double chunks_per_stage = v[Param::virtual_stages];
  if (p * chunks_per_stage > shape.layers) return {PointStatus::infeasible, pp_exceeds_layers};
  const double m = v[Param::global_batch] / (dp * b);
  if (m < 1 || m != std::floor(m)) return {PointStatus::infeasible, batch_not_divisible};
  if (chunks_per_stage > 1 && std::fmod(m, p) != 0) return {PointStatus::infeasible, interleave_needs_microbatches};
  const double stage_layers = busiest_stage_layers(shape.layers, p, chunks_per_stage);
  const double e = v[Param::ep];
  if (e > 1 && shape.experts <= 0) return {PointStatus::infeasible, ep_needs_moe};
  // etp 1 (torchtitan): whole experts, the EP group of ep ranks holds the tp ranks and ep / tp of dp.
  const bool etp_one = e > 1 && v[Param::etp] == 1;
  const double etp_degree = etp_one ? 1.0 : t;
  if (etp_one) {
    if (std::fmod(e, t) != 0 || std::fmod(dp, e / t) != 0) return {PointStatus::infeasible, etp_one_needs_tp_inside_ep};
  } else if (std::fmod(dp, e) != 0) {
    return {PointStatus::infeasible, ep_must_divide_dp};
  }
  if (e > 1 && std::fmod(shape.experts, e) != 0) return {PointStatus::infeasible, ep_must_divide_experts};
  if (e > 1 && t > 1 && v[Param::sequence_parallel] != 1) return {PointStatus::infeasible, ep_tp_needs_sequence_parallel};
  // Where each group sits: its members' stride in rank order, in the grid of the dense layers (no EP)
  // and in Megatron-Core's expert grid (the same order, no CP, etp in the tp slot, dp x cp x tp / (etp x ep)
  // expert-DP ranks).
  const auto& order = kRankOrderTable.groups[static_cast<std::size_t>(v[Param::rank_order])];
  const std::array<double, kRankGroups> strides = rank_strides(order, {t, cp, 1.0, dp, p});
  const std::array<double, kRankGroups> expert_strides =
      rank_strides(order, {etp_degree, 1.0, e, dp * cp * t / (etp_degree * e), p});
  // A node holds whole blocks of the innermost groups, or a block spans whole nodes: every product
  // of the innermost degrees below the job nests with the node. Megatron-Core's two orders keep the
  // checks they always had (tp and tp x cp nest) and place a block that straddles nodes by the whole
  // blocks a node holds, as before.
  const bool megatron_order = v[Param::rank_order] < 2;
  for (const auto* grid : {&strides, &expert_strides}) {
    if (megatron_order || n <= node) break;
    for (const double inside : *grid) {
      if (inside < n && std::fmod(inside > node ? inside : node, inside > node ? node : inside) != 0) {
        return {PointStatus::infeasible, rank_order_does_not_nest};
      }
    }
  }
  // A third tier (engine/solvers/training.hpp, pods): pods of whole nodes that hold whole blocks.
  const double pod = v[Param::gpus_per_pod];
  const bool multi_pod = pod > 0 && n > pod;
  if (multi_pod) {
    if (std::fmod(pod, node) != 0) return {PointStatus::infeasible, pod_does_not_nest};
    for (const auto* grid : {&strides, &expert_strides}) {
      for (const double inside : *grid) {
        if (inside < n && std::fmod(inside > pod ? inside : pod, inside > pod ? pod : inside) != 0) {
          return {PointStatus::infeasible, pod_does_not_nest};
        }
      }
    }
    if (!(v[Param::dcn_bandwidth] > 0) || !(v[Param::dcn_latency] > 0)) return {PointStatus::infeasible, pods_need_dcn};
  }
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
  TrainingMemory tm = training_memory(mem);
  if (hybrid) {
    tm.total_bytes = -1;
    StageKinds previous{.layers = -1};
    for (std::size_t stage = 0; stage < stage_count; ++stage) {
      const StageKinds k = stage_kinds(shape.layer_kinds, stage_count, stage_chunks, stage);
      if (k == previous) continue;
      previous = k;
      const StageWeights w = stage_weights(shape, k, p);
      TrainingMemoryInput stage_mem = mem;
      stage_mem.stage_layers = k.layers;
      stage_mem.stage_parameters = w.parameters;
      stage_mem.stage_expert_parameters = w.expert_parameters;
      stage_mem.stage_recurrent_layers = k.layers - k.attention;
      const TrainingMemory stage_tm = training_memory(stage_mem);
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

  const double nvlink = hw.accelerator_link_bandwidth_bytes_per_s > 0 ? hw.accelerator_link_bandwidth_bytes_per_s
                                                                      : hw.host_link_bandwidth_bytes_per_s;
  const double nic = v[Param::fabric_bandwidth] / v[Param::oversubscription];
  const double fabric_alpha = v[Param::fabric_latency];
  // Gradients are reduced over the dp x cp ranks that hold the same weights, tp apart in rank order
  // (Megatron-Core's order tp-cp-ep-dp-pp). With pp inside dp (tp-cp-ep-pp-dp) the cp ranks stay tp
  // apart and the dp ranks are tp x cp x pp apart: a node holds its cp ranks and as many dp ranks as
  // whole tp x cp x pp blocks fit in it.
  const double dp_group = dp * cp;
  const auto in_node = [node](double stride_ranks, double ranks) {
    return std::min(ranks, std::max(1.0, std::floor(node / stride_ranks)));
  };
  const double cp_in_node_ranks = in_node(strides[kCpGroup], cp), dp_in_node_ranks = in_node(strides[kDpGroup], dp);
  const double dp_in_node = cp_in_node_ranks * dp_in_node_ranks;
  // Across pods: a pod holds its share of the DP x CP ranks (as a node does), and the 2D all-reduce
  // runs over the pods (engine/collectives.hpp cross_pod_all_reduce_s).
  const auto in_pod = [pod](double stride_ranks, double ranks) {
    return std::min(ranks, std::max(1.0, std::floor(pod / stride_ranks)));
  };
  const double dp_in_pod = multi_pod ? in_pod(strides[kCpGroup], cp) * in_pod(strides[kDpGroup], dp) : dp_group;
  const double dcn = v[Param::dcn_bandwidth], dcn_alpha = v[Param::dcn_latency];
  HierarchicalFabric fabric;
  fabric.gpus_per_node = dp_in_node;
  fabric.intra_bandwidth_bytes_per_s = nvlink;
  fabric.intra_alpha_s = kNvlinkAlphaS;
  fabric.nic_bandwidth_bytes_per_s = nic;
  fabric.nics_per_node = dp_in_node;  // one NIC per GPU
  fabric.inter_alpha_s = fabric_alpha;
  const double expert_params = shape.expert_weight_elements;
  // LoRA reduces the adapters' gradients only, all counted with the dense ones.
  const double dense_gradient_bytes = (lora ? adapters : params - expert_params) / (t * p) * element_bytes;
  const double expert_gradient_bytes = lora ? 0.0 : expert_params / (etp_degree * p * e) * element_bytes;
  const double dp_volume = zero >= 3 ? 1.5 : 1.0;
  // Expert gradients are reduced over the dp x cp x tp / (etp x ep) expert-DP ranks, the expert grid's DP
  // group (etp x ep apart in Megatron-Core's default order, etp x ep x pp with pp inside dp).
  const double expert_dp = dp_group * t / (etp_degree * e);
  const double expert_stride = expert_strides[kDpGroup];
  const double expert_dp_in_node = in_node(expert_stride, expert_dp);
  const HierarchicalFabric expert_fabric = {.gpus_per_node = expert_dp_in_node,
                                            .intra_bandwidth_bytes_per_s = nvlink,
                                            .intra_alpha_s = kNvlinkAlphaS,
                                            .nic_bandwidth_bytes_per_s = nic,
                                            .nics_per_node = expert_dp_in_node,
                                            .inter_alpha_s = fabric_alpha};
  const TorusTopology expert_torus =
      on_torus ? torus_strided_group(torus, expert_stride, expert_fabric.gpus_per_node) : TorusTopology{};
  const double expert_dp_in_pod = multi_pod ? in_pod(expert_stride, expert_dp) : expert_dp;
  const auto expert_all_reduce_s = [&](double bytes) {
    const double nodes = expert_dp_in_pod / expert_fabric.gpus_per_node;
    const double in_pod_s = on_torus ? torus_hierarchical_all_reduce_s(bytes, nodes, expert_torus, expert_fabric)
                                     : hierarchical_all_reduce_s(bytes, nodes, expert_fabric);
    return expert_dp_in_pod < expert_dp
               ? cross_pod_all_reduce_s(in_pod_s, bytes, expert_dp_in_pod, expert_dp / expert_dp_in_pod, dcn, dcn_alpha)
               : in_pod_s;
  };
  const double expert_dp_s = expert_gradient_bytes > 0 ? expert_all_reduce_s(expert_gradient_bytes) : 0.0;
  const bool ep_in_node = expert_strides[kEpGroup] * e <= node;
  const double dispatch_bytes = b * s * shape.experts_per_token * h * element_bytes / t / cp;
  // Ring attention: cp - 1 steps, each passing one rank's K and V chunk (b s / cp tokens of this TP
  // rank's KV heads; a GQA model with fewer KV heads than tp keeps one per rank). On a torus node
  // each step crosses the faces between neighbouring blocks of the ranks inside CP (TP blocks in
  // Megatron-Core's orders; engine/torus.hpp torus_block_hop_s).
  const bool cp_in_node = strides[kCpGroup] * cp <= node;
  const double kv_elements_per_layer = shape.kv_elements_per_token / shape.attention_layers;
  const double kv_chunk_bytes = b * s / cp * kv_elements_per_layer / std::min(t, std::max(1.0, shape.kv_heads)) *
                                element_bytes;
  // The all-gather form (Llama 3) gathers the cp chunks at once: on a switched node or the NICs a ring
  // all-gather, on a torus node the bidirectional rings of the strided group of the cp ranks.
  const bool cp_all_gather = v[Param::cp_comm] == 1;
  const double cp_exchange_s =
      !(cp > 1) ? 0.0
      : cp_all_gather
          ? (cp_in_node && on_torus
                 ? torus_all_gather_s(cp * kv_chunk_bytes, torus_strided_group(torus, strides[kCpGroup], cp), kNvlinkAlphaS)
                 : all_gather_s(cp * kv_chunk_bytes, cp, cp_in_node ? nvlink : nic, cp_in_node ? kNvlinkAlphaS : fabric_alpha))
      : cp_in_node && on_torus ? (cp - 1) * torus_block_hop_s(kv_chunk_bytes, torus, strides[kCpGroup], cp, kNvlinkAlphaS)
                               : (cp - 1) * point_to_point_s(kv_chunk_bytes, cp_in_node ? nvlink : nic,
                                                             cp_in_node ? kNvlinkAlphaS : fabric_alpha);

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
  step.cp_kv_exchange_s = cp_exchange_s;
  step.cp_all_gather = cp_all_gather;
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
  // The optimizer update reads and writes its states (fp32 master included), reads the gradients
  // and writes the trainable weights, once per step.
  // With the weights offloaded it still writes all of them (on their way to host memory).
  step.optimizer_step_bytes = 2.0 * tm.optimizer_bytes + tm.gradients_bytes +
                              (weights_offloaded ? tm.host_weights_bytes : tm.weights_bytes) *
                                  std::min(1.0, trainable / params);
  if (offload) {
    // The host updates the shard's states and writes its weights (as many bytes as its gradients);
    // gradients go down and weights come back over the host link, one way each.
    const double host_link = hw.host_link_bandwidth_bytes_per_s;
    step.offload_update_s =
        (2.0 * tm.host_optimizer_bytes + 2.0 * tm.host_gradients_bytes) / v[Param::host_memory_bandwidth];
    step.offload_gradients_to_host_s = tm.host_gradients_bytes / host_link;
    step.offload_weights_to_device_s = weights_offloaded ? 0.0 : tm.host_gradients_bytes / host_link;
  }
  if (weights_offloaded || activations_offloaded) {
    const LayerOffloadBytes layer = layer_offload_bytes(weights_offloaded, activations_offloaded,
                                                        tm.layer_weights_bytes, tm.layer_activations_bytes);
    step.offload_forward_bytes = layer.forward_bytes;
    step.offload_backward_bytes = layer.backward_bytes;
    step.host_link_bytes_per_s = hw.host_link_bandwidth_bytes_per_s;
    // The accelerator's update writes the trainable weights, which then go back to host memory.
    if (weights_offloaded && !offload) {
      step.offload_once_s =
          tm.host_weights_bytes * std::min(1.0, trainable / params) / hw.host_link_bandwidth_bytes_per_s;
    }
  }
  // A TP group larger than a node rings through the NICs, whose hops are its slowest links.
  // So does one whose ranks (strides[tp] apart) span more than a node. Inside a torus node a TP group
  // of consecutive ranks is a block, a strided one the peers of the blocks inside it.
  const double tp_stride = strides[kTpGroup];
  step.tp_all_reduce_s = tp_stride * t > node ? ring_all_reduce_s(activation_message, t, nic, fabric_alpha)
                         : on_torus ? torus_all_reduce_s(activation_message,
                                                         tp_stride == 1 ? torus_group(torus, t)
                                                                        : torus_strided_group(torus, tp_stride, t),
                                                         kNvlinkAlphaS)
                                    : ring_all_reduce_s(activation_message, t, nvlink, kNvlinkAlphaS);
  // A pipeline spans strides[pp] x pp ranks: in one node when such blocks tile it (or the whole job
  // is one node). Megatron-Core's default puts the stages outermost, so they share a node only when
  // the job does; with pp inside dp a pipeline is a block of tp x cp x pp consecutive ranks.
  const double pipeline_block = strides[kPpGroup] * p;
  const bool pp_in_node = n <= node || (pipeline_block <= node && std::fmod(node, pipeline_block) == 0);
  // On a torus node the stages are neighbouring blocks of strides[pp] chips (tp x cp x dp in the
  // default order, tp x cp with pp inside dp) and each transfer crosses the faces between them
  // (engine/torus.hpp torus_block_hop_s).
  const double stage_chips = strides[kPpGroup];
  step.pp_p2p_s = !pp_in_node ? point_to_point_s(activation_message / t, nic, fabric_alpha)
                  : on_torus  ? torus_block_hop_s(activation_message / t, torus, stage_chips, p, kNvlinkAlphaS)
                              : point_to_point_s(activation_message / t, nvlink, kNvlinkAlphaS);
  const double dp_nodes = dp_in_pod / dp_in_node;
  // On a torus node the in-node DP x CP ranks are one strided group when their cp and dp ranks are
  // adjacent in rank order or only one of the two has more than one rank in the node (the peers of
  // the TP blocks, tp apart, in Megatron-Core's default); otherwise (pp inside dp: the cp ranks tp
  // apart, the dp ranks tp x cp x pp apart) they are the product of two strided groups, reduced as
  // one schedule over both (engine/torus.hpp torus_product_reduce_scatter_s).
  const double cp_stride = strides[kCpGroup], dp_stride = strides[kDpGroup];
  const bool dp_one_group = cp_in_node_ranks == 1 || dp_in_node_ranks == 1 || dp_stride == cp_stride * cp ||
                            cp_stride == dp_stride * dp;
  const bool cp_inside_dp = cp_stride < dp_stride;
  const double dp_inner_stride =
      cp_in_node_ranks == 1 ? dp_stride : dp_in_node_ranks == 1 ? cp_stride : std::min(cp_stride, dp_stride);
  const double dp_inner_ranks = dp_one_group ? dp_in_node : cp_inside_dp ? cp_in_node_ranks : dp_in_node_ranks;
  const TorusTopology dp_torus =
      on_torus ? torus_strided_group(torus, dp_inner_stride, dp_inner_ranks) : TorusTopology{};
  const double dp_outer_stride = std::max(cp_stride, dp_stride);
  const TorusTopology dp_outer_torus = on_torus && !dp_one_group
                                           ? torus_strided_group(torus, dp_outer_stride, dp_in_node / dp_inner_ranks)
                                           : TorusTopology{};
  const auto dp_all_reduce_s = [&](double bytes) {
    const double in_pod_s =
        !on_torus      ? hierarchical_all_reduce_s(bytes, dp_nodes, fabric)
        : dp_one_group ? torus_hierarchical_all_reduce_s(bytes, dp_nodes, dp_torus, fabric)
                       : torus_hierarchical_all_reduce_s(bytes, dp_nodes, dp_torus, dp_outer_torus, fabric);
    return dp_in_pod < dp_group ? cross_pod_all_reduce_s(in_pod_s, bytes, dp_in_pod, dp_group / dp_in_pod, dcn, dcn_alpha)
                                : in_pod_s;
  };
  if (lora && zero >= 3) {
    // The adapters' gradients are reduce-scattered (half an all-reduce) and every weight, frozen base
    // included, is all-gathered for the forward and again for the backward (one all-reduce's volume;
    // Rajbhandari et al. 2020 section 7, with gradients and weights of different sizes).
    const double weight_bytes = (params - expert_params) / (t * p) * mem.base_weight_bytes_per_param +
                                adapters / (t * p) * element_bytes;
    const double expert_weight_bytes = expert_params / (etp_degree * p * e) * mem.base_weight_bytes_per_param;
    step.dp_all_reduce_s =
        0.5 * dp_all_reduce_s(dense_gradient_bytes) + dp_all_reduce_s(weight_bytes) +
        (expert_weight_bytes > 0 ? expert_all_reduce_s(expert_weight_bytes) : 0.0);
  } else {
    step.dp_all_reduce_s = dp_volume * (dp_all_reduce_s(dense_gradient_bytes) + expert_dp_s);
  }
  step.expert_parallel = e;
  step.moe_layers = shape.moe_layers;
  const TorusTopology ep_torus =
      e > 1 && ep_in_node && on_torus ? torus_strided_group(torus, expert_strides[kEpGroup], e) : TorusTopology{};
  step.ep_all_to_all_s = e <= 1                     ? 0.0
                         : ep_in_node && on_torus ? torus_all_to_all_s(dispatch_bytes, ep_torus, kNvlinkAlphaS)
                                                  : all_to_all_s(dispatch_bytes, e, ep_in_node ? nvlink : nic,
                                                                 ep_in_node ? kNvlinkAlphaS : fabric_alpha);
  if (multi_pod) {
    // A group spanning pods is paced by its hops across them, on the data-centre network.
    if (tp_stride * t > pod) step.tp_all_reduce_s = ring_all_reduce_s(activation_message, t, dcn, dcn_alpha);
    if (pipeline_block > pod) step.pp_p2p_s = point_to_point_s(activation_message / t, dcn, dcn_alpha);
    if (cp > 1 && strides[kCpGroup] * cp > pod) {
      step.cp_kv_exchange_s = (cp - 1) * point_to_point_s(kv_chunk_bytes, dcn, dcn_alpha);
    }
    if (e > 1 && expert_strides[kEpGroup] * e > pod) step.ep_all_to_all_s = all_to_all_s(dispatch_bytes, e, dcn, dcn_alpha);
  }
  if (e > 1 && !ep_in_node && v[Param::ep_all_to_all] == 1) {
    // Tutel's 2DH all-to-all (engine/collectives.hpp): the EP ranks a node holds exchange on NVLink (on
    // the torus, their strided group), then the nodes of a pod on the NIC, then the pods on the DCN.
    const double ep_stride = expert_strides[kEpGroup];
    const double ep_per_node = in_node(ep_stride, e);
    const double ep_per_pod = multi_pod ? in_pod(ep_stride, e) : e;
    if (std::fmod(e, ep_per_pod) != 0 || std::fmod(ep_per_pod, ep_per_node) != 0) {
      return {PointStatus::infeasible, hierarchical_all_to_all_uneven};
    }
    const double node_stage_s =
        ep_per_node <= 1 ? 0.0
        : on_torus       ? torus_all_to_all_s(dispatch_bytes, torus_strided_group(torus, ep_stride, ep_per_node), kNvlinkAlphaS)
                         : all_to_all_s(dispatch_bytes, ep_per_node, nvlink, kNvlinkAlphaS);
    const std::array<AllToAllTier, 2> outer = {{{.ranks = ep_per_pod / ep_per_node, .bandwidth_bytes_per_s = nic,
                                                 .alpha_s = fabric_alpha},
                                                {.ranks = e / ep_per_pod, .bandwidth_bytes_per_s = dcn, .alpha_s = dcn_alpha}}};
    step.ep_all_to_all_s = node_stage_s + hierarchical_all_to_all_s(dispatch_bytes, outer);
  }
  if (shape.recurrent_layers > 0 && t > 1) {
    // Every layer's mixer (attention or Mamba) ends in one d-wide all-reduce and each feed-forward in
    // another; a Mamba-1 mixer adds one of x_proj's dt_rank + 2 d_state outputs, a Mamba-2 mixer none
    // (engine/parallelism.hpp).
    step.tp_forward_calls_per_layer = (shape.layers + std::min(shape.feed_forward_layers, shape.layers)) / shape.layers;
    step.tp_narrow_forward_calls_per_layer = (shape.recurrent_layers - shape.ssd_layers) / shape.layers;
    const double narrow_message = activation_message * shape.recurrent_x_proj_width / h;
    step.tp_narrow_all_reduce_s =
        multi_pod && tp_stride * t > pod ? ring_all_reduce_s(narrow_message, t, dcn, dcn_alpha)
        : tp_stride * t > node           ? ring_all_reduce_s(narrow_message, t, nic, fabric_alpha)
        : on_torus ? torus_all_reduce_s(narrow_message,
                                        tp_stride == 1 ? torus_group(torus, t) : torus_strided_group(torus, tp_stride, t),
                                        kNvlinkAlphaS)
                   : ring_all_reduce_s(narrow_message, t, nvlink, kNvlinkAlphaS);
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
