// Hugging Face config.json -> a models.yaml entry (`dsx catalog import-hf`): architecture `transformer`,
// or `jamba` and `mamba` for those families. Families and the keys each reads (transformers'
// configuration_<family>.py names):
//  - llama, mistral, mixtral, qwen2: num_hidden_layers, hidden_size, num_attention_heads,
//    num_key_value_heads (default: heads), intermediate_size, vocab_size, tie_word_embeddings
//    (default false), head_dim (when not hidden / heads); SwiGLU, RMSNorm, RoPE. mistral and mixtral
//    take a non-null sliding_window; qwen2 only when use_sliding_window is true, and carries q/k/v
//    biases; mixtral adds num_local_experts and num_experts_per_tok.
//  - gemma, gemma2: as llama with head_dim, tied embeddings (default true), gated GELU MLP; gemma2's
//    sliding_window alternates with global layers (global_every 2).
//  - gpt2: n_layer, n_embd, n_head, n_inner (null: 4 n_embd), vocab_size, n_positions; LayerNorm,
//    GELU, biases, learned positions, tied head.
//  - bert: num_hidden_layers, hidden_size, num_attention_heads, intermediate_size, vocab_size,
//    max_position_embeddings; as GPT-2 (pooler and token-type table not modelled).
//  - deepseek_v2, deepseek_v3: the llama keys plus kv_lora_rank, q_lora_rank (null: 0),
//    qk_nope_head_dim, qk_rope_head_dim, v_head_dim, n_routed_experts, num_experts_per_tok,
//    moe_intermediate_size, n_shared_experts, first_k_dense_replace.
//  - jamba (architecture jamba; JambaConfig, models/jamba/configuration_jamba.py): num_hidden_layers,
//    hidden_size, num_attention_heads, intermediate_size, vocab_size are required; num_key_value_heads,
//    attn_layer_period / offset, expert_layer_period / offset, num_experts, num_experts_per_tok,
//    mamba_d_state, mamba_d_conv, mamba_expand, mamba_dt_rank ("auto": ceil(hidden / 16)) and
//    tie_word_embeddings take JambaConfig's defaults when absent (8, 8 / 4, 2 / 1, 16, 2, 16, 4, 2, auto,
//    false). mamba_conv_bias false, mamba_proj_bias true or a sliding_window stop the import: the builder
//    has neither form.
//  - mamba (architecture mamba; MambaConfig, models/mamba/configuration_mamba.py): num_hidden_layers,
//    hidden_size, vocab_size are required; state_size, expand, conv_kernel, time_step_rank ("auto") take
//    MambaConfig's defaults (16, 2, 4, auto) and tie_word_embeddings PretrainedConfig's (true in
//    transformers 4.x; MambaConfig sets none). use_bias true (MambaConfig's default: biases on in_proj and
//    out_proj) or use_conv_bias false stop the import: the builder has the released checkpoints' form.
//  Each default taken is listed in the entry's source.
// seq_len is 2048, or the learned position table when that is shorter (BERT 512). The entry's source
// names the file and its SHA-256, so the exact config it came from can be checked.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dsx {

struct HfImport {
  std::string id;
  std::string model_type;
  std::string architecture = "transformer";            // transformer, jamba or mamba
  std::vector<std::pair<std::string, double>> params;  // the architecture's parameters, in entry order
  std::string config_class;                            // transformers' config class (jamba, mamba)
  std::vector<std::string> defaulted;                  // "key value" of each key taken from its defaults
  std::string yaml;  // one list item ("  - id: ...") for models.yaml or a study's catalog: models: list
};

// The supported model_type values, comma-separated (for error messages and help).
std::string hf_supported_families();

// Reads `text` (the file's bytes) named `file_name`; `id` names the entry (empty: derived from the
// config's _name_or_path or the model_type). On failure returns nullopt and sets `error` to a message
// naming the missing or unsupported key.
std::optional<HfImport> import_hf_config(std::string_view file_name, std::string_view text, std::string_view id,
                                         std::string& error);

}  // namespace dsx
