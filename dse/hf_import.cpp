#include "dse/hf_import.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "dse/sha256.hpp"

namespace dsx {

namespace {

constexpr std::array<std::string_view, 10> kFamilies = {"llama", "mistral", "mixtral", "qwen2", "gemma",
                                                        "gemma2", "gpt2", "bert", "deepseek_v2", "deepseek_v3"};

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

 private:
  const nlohmann::json& j_;
  std::string type_;
};

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
    if (type == "gpt2" || type == "bert") {
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
  out.yaml = fmt::format(
      "  - id: {}\n"
      "    name: \"{} (imported Hugging Face config)\"\n"
      "    source: \"Hugging Face config.json {} (SHA-256 {}), model_type {}, read by dsx catalog import-hf; "
      "seq_len 2048 (or the learned position table) is a dsx choice\"\n"
      "    architecture: transformer\n"
      "    params: {{{}}}\n",
      out.id, quoted_text(origin.empty() ? out.id : origin), quoted_text(base_name), sha256_hex(text), type, params);
  return out;
}

}  // namespace dsx
