// Layer pieces shared by the decoder builders: the transformer's attention and feed-forward sub-layers
// (engine/model_builders.cpp, `transformer`) and Mamba's and Mamba-2's mixers (engine/model_builders_
// sequence.cpp `mamba`, engine/model_builders_mamba2.cpp `mamba2`), so that a hybrid stack
// (engine/model_builders_hybrid.cpp, `jamba` and `nemotron_h`) builds its layers from
// the same ops. Formulas, op names and sources are those of the two builders' headers; these functions
// only append the ops in execution order and return the parameters they add.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/graph.hpp"

namespace dsx::builders {

// What the attention and feed-forward sub-layers of one decoder need, per sample of T tokens.
struct DecoderBlockSpec {
  double T = 0;             // tokens per sample
  double d = 0;             // model width
  double H = 0;             // query heads
  double dh = 0;            // width of one head
  double q_width = 0;       // width of the queries and of the attention output (d unless head_dim is set)
  double d_kv = 0;          // kv_heads x dh
  double b = 0;             // 1 = every linear layer carries a bias
  double b_qkv = 0;         // 1 = the q, k and v projections carry biases
  bool rope = false;
  // Sub-layer pre-norm: RMSNorm (d weights, 4 FLOP per element) or LayerNorm (2 d, 8).
  std::string norm_name;
  double norm_flops = 0;
  double norm_weights = 0;
  // Sliding window: keys a windowed layer's query attends (min(T, W)) and W itself; 0 = none.
  double window = 0;
  double window_keys = 0;
  // Multi-head latent attention (mla = kv_lora_rank > 0): ranks and head dimensions.
  bool mla = false;
  double rq = 0;            // q_lora_rank (0 = queries projected from d)
  double rkv = 0;           // kv_lora_rank
  double dqk = 0;           // qk_nope_head_dim + qk_rope_head_dim
  double dr = 0;            // qk_rope_head_dim
  double dv = 0;            // v_head_dim
  // Feed-forward: SwiGLU (3 matmuls) or GELU (2); dense inner size F, expert inner size Fe.
  bool gated = false;
  double F = 0;
  double Fe = 0;
  double experts = 0;            // E routed experts of a MoE layer
  double experts_per_token = 0;  // k
  double shared_experts = 0;     // S
};

// One attention sub-layer executed `r` times, with its norm and residual add unless it is half of a
// parallel block (`sequential` false); returns its parameters without the norm. In a sliding-window
// layer (`windowed`) the score, softmax and context ops cover T x min(T, W) pairs and carry
// attention_window = W.
double append_attention(std::vector<Op>& ops, const DecoderBlockSpec& s, std::uint32_t r, bool windowed,
                        bool sequential);

// SwiGLU or GELU MLP of inner size `f` on `rows` token rows per sample, weights x `copies`; returns
// one copy's parameters.
double append_mlp(std::vector<Op>& ops, const DecoderBlockSpec& s, const std::string& prefix, double rows, double f,
                  double copies, std::uint32_t r);

// One feed-forward sub-layer (dense MLP of F, or router + k of E experts of Fe + shared experts)
// executed `r` times, with its norm and residual add unless `sequential` is false; returns its
// parameters without the norm and sets `expert_params` to one routed expert's when `moe`.
double append_feed_forward(std::vector<Op>& ops, const DecoderBlockSpec& s, bool moe, std::uint32_t r,
                           bool sequential, double& expert_params);

// Mamba's mixer (Gu & Dao 2023, arXiv:2312.00752, Figure 3) on T tokens: in_proj d -> 2D, causal
// depthwise conv1d of k taps, SiLU, x_proj D -> R + 2N, [RMSNorms on Delta's R inputs, B and C
// (Jamba, huggingface/transformers modeling_jamba.py JambaMambaMixer: dt_layernorm, b_layernorm,
// c_layernorm)], dt_proj R -> D with bias, selective scan, gate, out_proj D -> d. No norm, no residual.
struct MambaMixerSpec {
  double T = 0;
  double d = 0;
  double D = 0;             // expand x d
  double N = 0;             // d_state
  double R = 0;             // dt_rank
  double k = 0;             // d_conv
  bool dt_bc_norms = false;
};
double append_mamba_mixer(std::vector<Op>& ops, const MambaMixerSpec& m, std::uint32_t r);

// Mamba-2's mixer (engine/model_builders_mamba2.cpp, the `mamba2` builder's header has the layout and
// sources) on T tokens: in_proj d -> 2 D + 2 G N + H, causal depthwise conv1d of k taps over x, B and
// C, SiLU, the SSD scan, gated RMSNorm in G groups, out_proj D -> d, no biases but the conv's. No
// block norm, no residual; returns d (2 D + 2 G N + H) + (D + 2 G N)(k + 1) + 3 H + D + D d.
struct Mamba2MixerSpec {
  double T = 0;
  double d = 0;
  double D = 0;             // heads x head_dim
  double N = 0;             // d_state
  double H = 0;             // heads
  double P = 0;             // head_dim
  double G = 0;             // groups of B and C
  double k = 0;             // d_conv
  double Q = 0;             // chunk_size
};
double append_mamba2_mixer(std::vector<Op>& ops, const Mamba2MixerSpec& m, std::uint32_t r);

}  // namespace dsx::builders
