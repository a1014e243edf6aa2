// Operator cost rules: the FLOPs, activation elements and weights of one op from its shape, for the
// operators the CNN, state-space, encoder-decoder and recommendation builders share. Each
// constructor returns one eager kernel (Op::kernels = 1) or appends the kernels of a composite
// block in the order eager PyTorch launches them. Conventions (model_builders.cpp): a
// multiply-accumulate is 2 FLOP, bias adds ride in the epilogue and are not counted, activations are
// per-sample element counts, weights are the parameters one execution reads whatever the batch.
//
// Rules, with Ho x Wo the output map and g the groups:
//  - conv2d (kind conv when g = 1, grouped_conv otherwise; depthwise is g = C_in = C_out):
//      FLOPs 2 Ho Wo C_out (C_in / g) kh kw, input C_in H W, output C_out Ho Wo,
//      weights C_out (C_in / g) kh kw (+ C_out bias); Ho = floor((H + 2 pad_h - kh) / stride) + 1.
//    A depthwise conv does kh kw MACs per output element against the dense conv's C_in kh kw, so
//    its intensity is ~kh kw / (2 x bytes per element) FLOP/byte: memory-bound at a GPU's tensor-core
//    peak, but it runs on the vector units (engine/dispatch.hpp), where a 5 x 5 one is compute-bound.
//  - patch_embedding (ViT, Dosovitskiy et al. 2021, arXiv:2010.11929 eq. 1): a conv with kernel =
//    stride = patch, i.e. 2 (H W / p^2) (C p^2) d FLOPs, weights C p^2 d + d.
//  - causal_conv1d (Mamba's short convolution, arXiv:2312.00752 Figure 3): depthwise over time,
//    kernel k, left padding k - 1 so the output keeps L steps: 2 L C k FLOPs, weights C k + C.
//  - selective_scan (Gu & Dao 2023, arXiv:2312.00752, section 3.3 and Algorithm 2), channels
//    D = E d_model, state N, L steps: FLOPs 9 L D N (discretise A-bar = exp(Delta A) and B-bar x,
//    the recurrence h = A-bar h + B-bar x as an associative scan, y = C h; A. Gu's count,
//    github.com/state-spaces/mamba issue #110) + 2 L D for the skip y += D x. The fused kernel reads
//    x and Delta (2 L D) and B and C (2 L N) from HBM and writes y (L D); the (L, D, N) state
//    never leaves SRAM (section 3.3.2: "reduce IOs by a factor of O(N)"). Weights: A (D N) and
//    the skip D (D). Gating by SiLU(z) is a separate element-wise op. Its FLOPs run on the vector
//    units (engine/graph.hpp, runs_on_vector_units: the kernel's arithmetic is scalar fp32); at 16
//    bits and N = 16 its intensity is about 24 FLOP/byte, above an A100's vector ridge (19.5 TFLOP/s /
//    2.039 TB/s = 9.6) and below its tensor-core ridge (153): priced at the tensor-core peak it was
//    memory-bound and 2.5 x cheaper (tests/engine/scan_pricing_test.cpp). The state one sequence
//    carries: D N.
//  - ssd_scan (Mamba-2's state space dual layer; Dao & Gu 2024, "Transformers are SSMs",
//    arXiv:2405.21060, section 6: the sequence cut into chunks of Q, each diagonal block in the
//    quadratic, attention-like form, the off-diagonal blocks through the states at chunk ends),
//    H heads of P channels (D = H P), G groups of B and C of state N, T tokens, c = ceil(T / Q) chunks
//    of Q (Q = T when T < Q), counted per matrix product of the reference kernels
//    (state-spaces/mamba mamba_ssm/ops/triton/ssd_combined.py, _mamba_chunk_scan_combined_fwd):
//      C B^T per chunk and group (_bmm_chunk_fwd)                2 c Q^2 G N
//      the masked Q x Q blocks times x per head (_chunk_scan_fwd) 2 c Q^2 D
//      each chunk's final state B^T x (_chunk_state_fwd)          2 T D N
//      the states passed from chunk to chunk (_state_passing_fwd) 2 c D N
//      C times the incoming state (_chunk_scan_fwd)               2 T D N
//      the skip y += D x                                          2 T D
//    the intra-chunk part 2 T Q (G N + D) and the inter-chunk part 4 T D N + 2 c D N: linear in T for
//    a fixed Q, the paper's O(T N^2) training cost at Q = N = P. The dense Q x Q blocks are counted
//    (the kernel skips those above the diagonal block by block: an upper bound within about 2 x on
//    that term). Five kernels (_chunk_cumsum_fwd first); reads x (T D), dt (T H), B and C (2 T G N),
//    the C B^T blocks once written and once read (2 c G Q^2) and the chunk states written, passed
//    and read (4 c D N); writes y (T D). Weights: A_log, D and dt_bias, H each. The state one sequence
//    carries: H P N = D N (Mamba2.allocate_inference_cache's ssm_state). Its products run on the
//    tensor cores (engine/graph.hpp, op_roof gemm).
//  - embedding_bag (DLRM, Naumov et al. 2019, arXiv:1906.00091 section 2.1.1): per sample, each of
//    T tables gathers `lookups` rows of dimension d and sums them: FLOPs T (lookups - 1) d adds,
//    input T lookups d elements (the rows gathered), output T d. The tables themselves are not
//    swept (weights read 0; their size belongs to ModelGraph::parameter_count), so the op sits on
//    the bandwidth roof at ~1/(2 x bytes per element) FLOP/byte.
//  - attention_scores / attention_context for Tq queries over Tk keys in H heads of width dh
//    (self-attention Tq = Tk; cross-attention of an encoder-decoder: Tq decoder, Tk encoder
//    positions; Vaswani et al. 2017, arXiv:1706.03762 section 3.2.3): QK^T 2 Tq Tk H dh FLOPs,
//    reads q (Tq H dh) and k (Tk H dh), writes H Tq Tk scores; A V 2 Tq Tk H dh, reads the scores
//    and v (Tk H dh), writes Tq H dh.
//  - squeeze_excitation (Hu et al. 2018, arXiv:1709.01507; torchvision SqueezeExcitation):
//    global average pool (C H W FLOPs), fc1 C -> S and fc2 S -> C as 1x1 convs with bias (kind conv)
//    (2 C S FLOPs each), the inner activation on S (ReLU or SiLU), the gate (sigmoid or hard-sigmoid, 4 FLOP per
//    element) on C, and the channel-wise rescale of the C H W map (1 FLOP per element, reads the map
//    and the C gates): six eager kernels, weights 2 C S + S + C.
//  - roi_align (He et al. 2017, Mask R-CNN, arXiv:1703.06870 section 3; torchvision
//    csrc/ops/cpu/roi_align_kernel.cpp), a reduction: R regions x C channels x P x P bins, each the
//    mean of s x s bilinear samples (sampling_ratio s). A sample reads its 4 neighbours and takes 4
//    multiplies, 3 adds and 1 accumulate; each bin is divided by s^2 once: FLOPs R C P^2 (8 s^2 + 1).
//    Input: the 4 s^2 values a bin gathers, R C P^2 4 s^2 elements (an upper bound: neighbouring
//    samples share corners, which caches catch); output R C P^2; no weights.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/graph.hpp"

namespace dsx {

struct Conv2dShape {
  std::uint64_t height = 1;   // input map H
  std::uint64_t width = 1;    // input map W
  std::uint64_t in_channels = 1;
  std::uint64_t out_channels = 1;
  std::uint64_t kernel_h = 1;
  std::uint64_t kernel_w = 1;
  std::uint64_t stride = 1;   // both axes (1-D convs use height 1, kernel_h 1)
  std::uint64_t pad_h = 0;
  std::uint64_t pad_w = 0;
  std::uint64_t groups = 1;   // 1 dense; in_channels = out_channels = groups: depthwise
  bool bias = false;

  std::uint64_t out_height() const { return (height + 2 * pad_h - kernel_h) / stride + 1; }
  std::uint64_t out_width() const { return (width + 2 * pad_w - kernel_w) / stride + 1; }
  double weight_elements() const;  // kernel (+ bias)
};

// A square k x k conv with 'same'-style padding k / 2 on a square map (the CNN builders' case).
Conv2dShape square_conv(std::uint64_t size, std::uint64_t in_channels, std::uint64_t out_channels, std::uint64_t kernel,
                        std::uint64_t stride, std::uint64_t groups = 1, bool bias = false);

// Throws std::invalid_argument when groups does not divide both channel counts or the kernel does not fit.
Op conv2d(std::string name, const Conv2dShape& s, std::uint32_t repeat);
Op patch_embedding(std::string name, std::uint64_t image_size, std::uint64_t channels, std::uint64_t patch,
                   std::uint64_t d_model, std::uint32_t repeat);
Op causal_conv1d(std::string name, double length, double channels, double kernel, std::uint32_t repeat);
Op selective_scan(std::string name, double length, double channels, double state, std::uint32_t repeat);
struct SsdScanShape {
  double length = 0;     // T tokens
  double heads = 0;      // H
  double head_dim = 0;   // P
  double groups = 1;     // G (ngroups of B and C)
  double state = 0;      // N
  double chunk = 256;    // Q
};
Op ssd_scan(std::string name, const SsdScanShape& s, std::uint32_t repeat);
Op embedding_bag(std::string name, double tables, double lookups_per_table, double dim, std::uint32_t repeat);
Op attention_scores(std::string name, double q_tokens, double kv_tokens, double heads, double head_dim,
                    std::uint32_t repeat);
Op attention_context(std::string name, double q_tokens, double kv_tokens, double heads, double head_dim,
                     std::uint32_t repeat);
Op roi_align(std::string name, double regions, double channels, double pooled, double sampling_ratio,
             std::uint32_t repeat);

// Appends the six kernels of a squeeze-excitation block on a channels x map_elements map with
// `squeeze` inner channels whose activation costs `inner_flops_per_element` (ReLU 1, SiLU 4);
// `prefix` names them. Returns the block's parameters.
double append_squeeze_excitation(std::vector<Op>& ops, const std::string& prefix, double channels, double map_elements,
                                 double squeeze, double inner_flops_per_element, std::uint32_t repeat);

}  // namespace dsx
