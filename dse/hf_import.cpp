#include "dse/hf_import.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "dse/sha256.hpp"

namespace dsx {

namespace {

constexpr std::array<std::string_view, 14> kFamilies = {
    "llama", "mistral",     "mixtral",     "qwen2", "gemma", "gemma2", "gpt2", "bert",
    "deepseek_v2", "deepseek_v3", "jamba", "mamba", "mamba2", "nemotron_h"};

struct MissingKey : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Config {
 public:
  Config(const nlohmann::json& j, std::string type) : j_(j), type_(std::move(type)) {}
  double number(const char* key) const {
    const auto it = j_.find(key);
    if (it == j_.end() || !it->is_number()) {
      throw MissingKey(fmt::format("missing key '{}' (a number) for model_type '{}'", key, type_));
    }
    return it->get<double>();
  }
  // A number, or `fallback` when the key is absent or null.
  double number_or(const char* key, double fallback) const {
    const auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return fallback;
    if (!it->is_number()) throw MissingKey(fmt::format("key '{}' must be a number for model_type '{}'", key, type_));
    return it->get<double>();
  }
  bool flag_or(const char* key, bool fallback) const {
    const auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return fallback;
    if (!it->is_boolean()) throw MissingKey(fmt::format("key '{}' must be true or false for model_type '{}'", key, type_));
    return it->get<bool>();
  }
  // number_or / flag_or with the config class's own default, noted in `defaulted` when the key is absent
  // (the generated entry's source lists them).
  double number_default(const char* key, double class_default, std::vector<std::string>& defaulted) const {
    if (!present(key)) defaulted.push_back(fmt::format("{} {}", key, class_default));
    return number_or(key, class_default);
  }
  bool flag_default(const char* key, bool class_default, std::vector<std::string>& defaulted) const {
    if (!present(key)) defaulted.push_back(fmt::format("{} {}", key, class_default));
    return flag_or(key, class_default);
  }
  // A rank that may be "auto" (ceil(hidden_size / 16), MambaConfig.time_step_rank and JambaConfig.mamba_dt_rank),
  // whose class default is "auto".
  double rank_or_auto(const char* key, double hidden_size, std::vector<std::string>& defaulted) const {
    const double automatic = std::ceil(hidden_size / 16);
    const auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) {
      defaulted.push_back(fmt::format("{} auto (ceil(hidden_size / 16) = {})", key, automatic));
      return automatic;
    }
    if (it->is_string() && it->get<std::string>() == "auto") return automatic;
    if (!it->is_number()) {
      throw MissingKey(fmt::format("key '{}' must be a number or \"auto\" for model_type '{}'", key, type_));
    }
    return it->get<double>();
  }
  // A string key, which must be present.
  std::string text(const char* key) const {
    const auto it = j_.find(key);
    if (it == j_.end() || !it->is_string()) {
      throw MissingKey(fmt::format("missing key '{}' (a string) for model_type '{}'", key, type_));
    }
    return it->get<std::string>();
  }
  bool present(const char* key) const {
    const auto it = j_.find(key);
    return it != j_.end() && !it->is_null();
  }

 private:
  const nlohmann::json& j_;
  std::string type_;
};

// Nemotron-H's hybrid_override_pattern as architecture nemotron_h's attention_period and
// attention_offset (engine/model_builders_hybrid.cpp): the '*' layers evenly spaced, the others
// alternating 'M' and '-' from an 'M' (all 'M' without MLP layers); anything else is not modelled.
struct NemotronHLayout {
  double period = 0, offset = 0, count = 0;
  bool mlp = false;
};
NemotronHLayout nemotron_h_layout(const std::string& pattern, double layers) {
  if (static_cast<double>(pattern.size()) != layers) {
    throw MissingKey(fmt::format("hybrid_override_pattern has {} layers, num_hidden_layers {}", pattern.size(), layers));
  }
  std::vector<std::size_t> attention;
  NemotronHLayout out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '*') attention.push_back(i);
    if (pattern[i] == '-') out.mlp = true;
    if (pattern[i] != '*' && pattern[i] != '-' && pattern[i] != 'M') {
      throw MissingKey(fmt::format("hybrid_override_pattern layer '{}' is not modelled: architecture nemotron_h "
                                   "has Mamba-2 (M), attention (*) and MLP (-) layers",
                                   pattern[i]));
    }
  }
  if (attention.empty()) {
    throw MissingKey("hybrid_override_pattern has no attention layer ('*'): a stack of Mamba-2 layers is `mamba2`");
  }
  out.offset = static_cast<double>(attention.front());
  out.period = attention.size() > 1 ? static_cast<double>(attention[1] - attention[0]) : layers;
  out.count = static_cast<double>(attention.size());
  const auto period = static_cast<std::size_t>(out.period);
  std::string expected;
  std::size_t other = 0;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const bool is_attention =
        i >= attention.front() && (i - attention.front()) % period == 0 && (i - attention.front()) / period < attention.size();
    expected += is_attention ? '*' : (!out.mlp || other++ % 2 == 0) ? 'M' : '-';
  }
  if (expected != pattern) {
    throw MissingKey(fmt::format("hybrid_override_pattern {} is not modelled: architecture nemotron_h places an "
                                 "attention layer every {} layers from layer {}, {} of them, and alternates M and - "
                                 "between them ({})",
                                 pattern, out.period, out.offset, out.count, expected));
  }
  return out;
}

std::string slug(std::string_view s) {
  std::string out;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      out += static_cast<char>(std::tolower(u));
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

std::string quoted_text(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string format_value(double v) { return fmt::format("{}", static_cast<long long>(std::llround(v))); }

}  // namespace

std::string hf_supported_families() {
  std::string out;
  for (std::string_view f : kFamilies) out += (out.empty() ? "" : ", ") + std::string(f);
  return out;
}

std::optional<HfImport> import_hf_config(std::string_view file_name, std::string_view text, std::string_view id,
                                         std::string& error) {
  const nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    error = fmt::format("{}: not a JSON object", file_name);
    return std::nullopt;
  }
  const auto type_it = j.find("model_type");
  if (type_it == j.end() || !type_it->is_string()) {
    error = fmt::format("{}: missing key 'model_type'; supported families: {}", file_name, hf_supported_families());
    return std::nullopt;
  }
  const std::string type = type_it->get<std::string>();
  if (std::find(kFamilies.begin(), kFamilies.end(), type) == kFamilies.end()) {
    error = fmt::format("{}: model_type '{}' is not supported; supported families: {}", file_name, type,
                        hf_supported_families());
    return std::nullopt;
  }
  HfImport out;
  out.model_type = type;
  const Config c(j, type);
  auto set = [&](const char* key, double value) { out.params.emplace_back(key, value); };
  try {
    if (type == "jamba") {
      // transformers JambaConfig (models/jamba/configuration_jamba.py): its defaults are Jamba-v0.1's.
      out.architecture = "jamba";
      out.config_class = "JambaConfig";
      const double d = c.number("hidden_size");
      const double heads = c.number("num_attention_heads");
      set("layers", c.number("num_hidden_layers"));
      set("d_model", d);
      set("heads", heads);
      set("kv_heads", c.number_default("num_key_value_heads", 8, out.defaulted));
      set("attention_period", c.number_default("attn_layer_period", 8, out.defaulted));
      set("attention_offset", c.number_default("attn_layer_offset", 4, out.defaulted));
      set("expert_period", c.number_default("expert_layer_period", 2, out.defaulted));
      set("expert_offset", c.number_default("expert_layer_offset", 1, out.defaulted));
      set("experts", c.number_default("num_experts", 16, out.defaulted));
      set("experts_per_token", c.number_default("num_experts_per_tok", 2, out.defaulted));
      set("d_ff", c.number("intermediate_size"));
      set("d_state", c.number_default("mamba_d_state", 16, out.defaulted));
      set("d_conv", c.number_default("mamba_d_conv", 4, out.defaulted));
      set("expand", c.number_default("mamba_expand", 2, out.defaulted));
      set("dt_rank", c.rank_or_auto("mamba_dt_rank", d, out.defaulted));
      set("vocab", c.number("vocab_size"));
      set("seq_len", 2048);
      set("tied_embeddings", c.flag_default("tie_word_embeddings", false, out.defaulted) ? 1 : 0);
      if (!c.flag_default("mamba_conv_bias", true, out.defaulted)) {
        throw MissingKey("mamba_conv_bias false is not modelled: architecture jamba's conv1d has a bias");
      }
      if (c.flag_default("mamba_proj_bias", false, out.defaulted)) {
        throw MissingKey(
            "mamba_proj_bias true is not modelled: architecture jamba's in_proj and out_proj have no bias");
      }
      if (c.number_or("sliding_window", 0) > 0) {
        throw MissingKey("sliding_window is not modelled: architecture jamba's attention layers attend globally");
      }
    } else if (type == "mamba") {
      // transformers MambaConfig (models/mamba/configuration_mamba.py), whose defaults are state-spaces/mamba-2.8b's.
      out.architecture = "mamba";
      out.config_class = "MambaConfig";
      const double d = c.number("hidden_size");
      set("layers", c.number("num_hidden_layers"));
      set("d_model", d);
      set("d_state", c.number_default("state_size", 16, out.defaulted));
      set("expand", c.number_default("expand", 2, out.defaulted));
      set("d_conv", c.number_default("conv_kernel", 4, out.defaulted));
      set("dt_rank", c.rank_or_auto("time_step_rank", d, out.defaulted));
      set("vocab", c.number("vocab_size"));
      set("seq_len", 2048);
      // MambaConfig sets no tie_word_embeddings: PretrainedConfig's default, true in transformers 4.x, applies.
      const bool tied = c.flag_or("tie_word_embeddings", true);
      if (!c.present("tie_word_embeddings")) {
        out.defaulted.emplace_back("tie_word_embeddings true (PretrainedConfig's default in transformers 4.x)");
      }
      set("tied_embeddings", tied ? 1 : 0);
      if (c.flag_default("use_bias", true, out.defaulted)) {
        throw MissingKey("use_bias true (MambaConfig's default) is not modelled: architecture mamba's in_proj and "
                         "out_proj have no bias, as in the released checkpoints (use_bias false)");
      }
      if (!c.flag_default("use_conv_bias", true, out.defaulted)) {
        throw MissingKey("use_conv_bias false is not modelled: architecture mamba's conv1d has a bias");
      }
    } else if (type == "mamba2") {
      // transformers Mamba2Config (models/mamba2/configuration_mamba2.py); the heads must fill expand x
      // hidden_size, as the config class checks.
      out.architecture = "mamba2";
      out.config_class = "Mamba2Config";
      const double d = c.number("hidden_size");
      const double expand = c.number_default("expand", 2, out.defaulted);
      const double head_dim = c.number_default("head_dim", 64, out.defaulted);
      const double heads = c.number_default("num_heads", 128, out.defaulted);
      if (heads * head_dim != expand * d) {
        throw MissingKey(fmt::format("num_heads x head_dim ({}) must equal expand x hidden_size ({})", heads * head_dim,
                                     expand * d));
      }
      set("layers", c.number("num_hidden_layers"));
      set("d_model", d);
      set("d_state", c.number_default("state_size", 128, out.defaulted));
      set("expand", expand);
      set("d_conv", c.number_default("conv_kernel", 4, out.defaulted));
      set("head_dim", head_dim);
      set("ngroups", c.number_default("n_groups", 8, out.defaulted));
      set("chunk_size", c.number_default("chunk_size", 256, out.defaulted));
      set("vocab", c.number("vocab_size"));
      set("seq_len", 2048);
      set("tied_embeddings", c.flag_default("tie_word_embeddings", false, out.defaulted) ? 1 : 0);
      if (c.flag_default("use_bias", false, out.defaulted)) {
        throw MissingKey("use_bias true is not modelled: architecture mamba2's in_proj and out_proj have no bias");
      }
      if (!c.flag_default("use_conv_bias", true, out.defaulted)) {
        throw MissingKey("use_conv_bias false is not modelled: architecture mamba2's conv1d has a bias");
      }
    } else if (type == "nemotron_h") {
      // transformers NemotronHConfig (models/nemotron_h/configuration_nemotron_h.py), whose defaults are
      // Nemotron-H-8B's but for chunk_size.
      out.architecture = "nemotron_h";
      out.config_class = "NemotronHConfig";
      const double layers = c.number("num_hidden_layers");
      const NemotronHLayout layout = nemotron_h_layout(c.text("hybrid_override_pattern"), layers);
      set("layers", layers);
      set("d_model", c.number("hidden_size"));
      set("heads", c.number("num_attention_heads"));
      set("kv_heads", c.number_default("num_key_value_heads", 8, out.defaulted));
      set("head_dim", c.present("head_dim") ? c.number("head_dim")
                                            : c.number_default("attention_head_dim", 128, out.defaulted));
      set("attention_period", layout.period);
      set("attention_offset", layout.offset);
      set("attention_layers", layout.count);
      set("d_ff", layout.mlp ? c.number("intermediate_size") : 0);
      set("mamba_heads", c.number_default("mamba_num_heads", 128, out.defaulted));
      set("mamba_head_dim", c.number_default("mamba_head_dim", 64, out.defaulted));
      set("d_state", c.number_default("ssm_state_size", 128, out.defaulted));
      set("ngroups", c.number_default("n_groups", 8, out.defaulted));
      set("d_conv", c.number_default("conv_kernel", 4, out.defaulted));
      set("chunk_size", c.number_default("chunk_size", 256, out.defaulted));
      set("vocab", c.number("vocab_size"));
      set("seq_len", 2048);
      set("tied_embeddings", c.flag_default("tie_word_embeddings", false, out.defaulted) ? 1 : 0);
      for (const char* bias : {"use_bias", "mamba_proj_bias", "mlp_bias", "attention_bias"}) {
        if (c.flag_default(bias, false, out.defaulted)) {
          throw MissingKey(fmt::format("{} true is not modelled: architecture nemotron_h's linear layers have no bias", bias));
        }
      }
      if (!c.flag_default("use_conv_bias", true, out.defaulted)) {
        throw MissingKey("use_conv_bias false is not modelled: architecture nemotron_h's conv1d has a bias");
      }
      if (c.present("mlp_hidden_act") && c.text("mlp_hidden_act") != "relu2") {
        throw MissingKey("mlp_hidden_act " + c.text("mlp_hidden_act") +
                         " is not modelled: architecture nemotron_h's MLP is squared ReLU (relu2)");
      }
    } else if (type == "gpt2" || type == "bert") {
      const bool gpt2 = type == "gpt2";
      const double d = c.number(gpt2 ? "n_embd" : "hidden_size");
      const double heads = c.number(gpt2 ? "n_head" : "num_attention_heads");
      const double positions = c.number(gpt2 ? "n_positions" : "max_position_embeddings");
      set("layers", c.number(gpt2 ? "n_layer" : "num_hidden_layers"));
      set("d_model", d);
      set("heads", heads);
      set("kv_heads", heads);
      set("d_ff", gpt2 ? c.number_or("n_inner", 4 * d) : c.number("intermediate_size"));
      set("vocab", c.number("vocab_size"));
      set("seq_len", std::min(2048.0, positions));
      set("gated_mlp", 0);
      set("norm", 0);
      set("embeddings", 1);
      set("positions", positions);
      set("tied_embeddings", 1);
      set("bias", 1);
    } else {
      const bool gemma = type == "gemma" || type == "gemma2";
      const bool deepseek = type == "deepseek_v2" || type == "deepseek_v3";
      const double d = c.number("hidden_size");
      const double heads = c.number("num_attention_heads");
      set("layers", c.number("num_hidden_layers"));
      set("d_model", d);
      set("heads", heads);
      set("kv_heads", deepseek ? heads : c.number_or("num_key_value_heads", heads));
      set("d_ff", c.number("intermediate_size"));
      set("vocab", c.number("vocab_size"));
      set("seq_len", 2048);
      set("gated_mlp", 1);
      set("norm", 1);
      set("embeddings", 1);
      set("rope", 1);
      if (c.flag_or("tie_word_embeddings", gemma)) set("tied_embeddings", 1);
      if (!deepseek) {
        const double head_dim = c.number_or("head_dim", 0);
        if (head_dim > 0 && head_dim * heads != d) set("head_dim", head_dim);
      }
      if (type == "qwen2") set("qkv_bias", 1);
      const bool windowed = type == "mistral" || type == "mixtral" || type == "gemma2" ||
                            (type == "qwen2" && c.flag_or("use_sliding_window", false));
      const double window = windowed ? c.number_or("sliding_window", 0) : 0;
      if (window > 0) {
        set("sliding_window", window);
        if (type == "gemma2") set("global_every", 2);
      }
      if (type == "mixtral") {
        set("experts", c.number("num_local_experts"));
        set("experts_per_token", c.number("num_experts_per_tok"));
      }
      if (deepseek) {
        set("experts", c.number("n_routed_experts"));
        set("experts_per_token", c.number("num_experts_per_tok"));
        set("expert_d_ff", c.number("moe_intermediate_size"));
        set("shared_experts", c.number_or("n_shared_experts", 0));
        set("dense_layers", c.number_or("first_k_dense_replace", 0));
        set("kv_lora_rank", c.number("kv_lora_rank"));
        set("q_lora_rank", c.number_or("q_lora_rank", 0));
        set("qk_nope_head_dim", c.number("qk_nope_head_dim"));
        set("qk_rope_head_dim", c.number("qk_rope_head_dim"));
        set("v_head_dim", c.number("v_head_dim"));
      }
    }
  } catch (const MissingKey& e) {
    error = fmt::format("{}: {}; supported families: {}", file_name, e.what(), hf_supported_families());
    return std::nullopt;
  }
  const auto name_it = j.find("_name_or_path");
  const std::string origin = name_it != j.end() && name_it->is_string() ? name_it->get<std::string>() : "";
  out.id = !id.empty() ? std::string(id) : slug(origin.empty() ? type : origin.substr(origin.rfind('/') + 1));
  std::string params;
  for (const auto& [key, value] : out.params) params += fmt::format("{}{}: {}", params.empty() ? "" : ", ", key, format_value(value));
  const std::string base_name(file_name.substr(file_name.find_last_of('/') == std::string_view::npos
                                                   ? 0
                                                   : file_name.find_last_of('/') + 1));
  std::string defaults;
  if (!out.defaulted.empty()) {
    defaults = "; keys absent from the file, transformers' " + out.config_class + " defaults used: ";
    for (std::size_t i = 0; i < out.defaulted.size(); ++i) defaults += (i > 0 ? ", " : "") + out.defaulted[i];
  }
  out.yaml = fmt::format(
      "  - id: {}\n"
      "    name: \"{} (imported Hugging Face config)\"\n"
      "    source: \"Hugging Face config.json {} (SHA-256 {}), model_type {}, read by dsx catalog import-hf; "
      "seq_len 2048 (or the learned position table) is a dsx choice{}\"\n"
      "    architecture: {}\n"
      "    params: {{{}}}\n",
      out.id, quoted_text(origin.empty() ? out.id : origin), quoted_text(base_name), sha256_hex(text), type,
      quoted_text(defaults), out.architecture, params);
  return out;
}

}  // namespace dsx
