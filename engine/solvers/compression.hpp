// Solver "compression": what quantization and pruning do to one language-model inference step's weight
// memory, latency and energy on one accelerator, against the same step at a baseline precision.
//
// Timing is the serving solver's roofline of a step (engine/serving.hpp: decode_step_time for one new
// token of each of `batch` sequences at `context_tokens` of context; prefill_time for `batch` prompts of
// `context_tokens` tokens), priced twice: at the baseline and with the compressed weights. FLOPs F and
// bytes Q come from that model on a unit device (as the synthesis solver reads them) and the step takes
// max(compute, Q / bandwidth) (Williams, Waterman and Patterson, "Roofline", CACM 52(4), 2009), with
//   compute = (F - F_lin) / (peak x eta) + F_lin / (peak_lin x eta),
// F_lin the linear (weight-matrix) FLOPs, peak the GEMM peak of the compute precision (HardwareSpec::
// gemm_peak: at fp8 the dense peak x fp8_gemm_relative_efficiency) and peak_lin
// that peak, doubled under 2:4 structured sparsity on parts with sparse tensor cores.
//  - Weight-only quantization (AWQ: Lin et al., arXiv:2306.00978; GPTQ: Frantar et al.,
//    arXiv:2210.17323): weights stored at the compressed precision and dequantized in the kernel, so
//    they cost bytes, not FLOPs: the compute precision and activations stay at the baseline. Each group
//    of `group_size` weights carries one fp16 scale and one zero point at the weight precision (the
//    scales/qzeros tensors of AWQ and GPTQ checkpoints; both papers use group size 128), i.e.
//    (2 + bytes per weight) / group_size extra bytes per weight.
//  - Weights and activations (W8A8: SmoothQuant, Xiao et al., arXiv:2211.10438; FP8): the compressed
//    precision is also the compute precision and activation storage; the hardware must support it.
//  - 2:4 structured sparsity (Mishra et al., "Accelerating Sparse Deep Neural Networks",
//    arXiv:2104.08378): half the weights are stored, each kept value with a 2-bit position index, and
//    sparse tensor cores run the linear FLOPs at the hardware entry's `sparse_speedup` times the dense
//    rate (2 on NVIDIA Ampere and later: A100 whitepaper, 2020, "Fine-Grained Structured Sparsity";
//    Ada, Hopper and Blackwell datasheets list sparse figures at 2x dense). The catalog stores dense
//    peaks; a part without `sparse_speedup` (AMD, TPUs, an entry that does not state it) is infeasible
//    with 2:4.
//  - Unstructured sparsity s: the nonzero weights plus a bitmask of one bit per dense position (the
//    bitmap encoding's own size: 0.125 B per weight; CSR with 32-bit column indices, cuSPARSE's
//    CUSPARSE_INDEX_32I, costs 4 B per nonzero, more for every s below 97% at fp16). It saves bytes
//    only: dense tensor cores do every FLOP of the dense matrix.
//  - KV-cache quantization (`kv_cache`: fp8 as vLLM's kv_cache_dtype and TensorRT-LLM's FP8 KV cache;
//    int8; int4 as KIVI, Liu et al., arXiv:2402.02750, at 4 bits): the compressed step stores and
//    reads its KV cache at that precision, dequantized in the attention kernel (bytes, not FLOPs);
//    the per-tensor or per-group scales are not counted. The baseline step keeps it at the baseline.
// Quantization and sparsity apply to every weight (embeddings and LM head included). Memory = weights
// + batch x KV cache of the step's context; a compressed footprint beyond device memory is infeasible.
// Energy = latency x TDP x (idle + (1 - idle) x compute / latency), the inference solver's
// energy-proportional model (engine/carbon.hpp); NaN when the TDP is unknown.
// Accuracy is not modelled, only cited: the model's published rows (PreparedModel::published_accuracy,
// engine/compression_accuracy.hpp, from the catalog's compression_accuracy.yaml) give the WikiText-2
// perplexity and the zero-shot average accuracy of the compressed model, and their change from the
// 16-bit baseline, when one row's method, weight precision, quantize, group size (none for weights
// left at the baseline precision, pruned only) and sparsity are exactly the point's, its baseline is 16-bit (fp16 or bf16) and its KV cache stays at the baseline (the
// published figures keep a 16-bit KV cache). Otherwise they are NaN and accuracy_figure says why
// (AccuracyFigure); a point that compresses nothing has a change of 0.
#pragma once

#include "engine/compression_accuracy.hpp"
#include "engine/solver.hpp"

namespace dsx {

class CompressionSolver final : public TabledSolver {
 public:
  enum Param : std::size_t {
    hardware,
    model,
    phase,
    batch,
    context_tokens,
    baseline_precision,
    weight_precision,
    quantize,
    group_size,
    sparsity,
    structured_2_4,
    eta,
    kv_cache,
    method,
    kParamCount
  };
  enum Metric : std::size_t {
    baseline_weights_bytes,
    compressed_weights_bytes,
    compression_ratio,
    baseline_memory_bytes,
    compressed_memory_bytes,
    baseline_fits,
    baseline_latency_s,
    compressed_latency_s,
    speedup,
    flops,
    baseline_bytes_moved,
    compressed_bytes_moved,
    compressed_compute_s,
    compressed_memory_s,
    baseline_energy_per_inference_j,
    compressed_energy_per_inference_j,
    accuracy_delta,
    compressed_accuracy,
    perplexity_delta,
    compressed_perplexity,
    accuracy_figure,
    kMetricCount
  };
  enum Reason : std::uint8_t {
    precision_unsupported,
    no_sparse_tensor_cores,
    sparsity_combined,
    not_a_transformer,
    exceeds_memory
  };
  enum Phase : std::uint8_t { decode, prefill };
  enum Quantize : std::uint8_t { weights_only, weights_activations };
  // The value of accuracy_figure: whether a published figure was found, and if not, why.
  enum AccuracyFigure : std::uint8_t {
    figure_found,         // a row matched, or nothing is compressed (a change of 0)
    no_method,            // method: none
    model_without_rows,   // no published row for this model
    setting_without_row,  // rows for the model, none for this method and setting
    outside_published,    // baseline not 16-bit, or a quantized KV cache
  };

  CompressionSolver();
  PointResult evaluate(const PointInputs& in, std::span<double> out) const override;
};

}  // namespace dsx
