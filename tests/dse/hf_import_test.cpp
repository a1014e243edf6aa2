// dsx catalog import-hf: real Hugging Face configs (tests/data/hf_configs, sources in its README)
// import to the parameter counts of the catalog entries of the same models; SHA-256 against the
// FIPS 180-4 examples; unknown families and missing keys name what is wrong.
#include "dse/hf_import.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "dse/catalog.hpp"
#include "dse/diagnostics.hpp"
#include "dse/sha256.hpp"
#include "engine/model_builders.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

const std::string kSource = DSX_SOURCE_DIR;

const Catalog& shipped() {
  static const Catalog catalog = [] {
    Diagnostics d;
    return load_catalog(kSource + "/studies/catalog", d);
  }();
  return catalog;
}

ModelGraph imported_graph(const HfImport& entry) {
  std::map<std::string, double, std::less<>> values(entry.params.begin(), entry.params.end());
  return build_architecture(entry.architecture, values);
}

HfImport import_text(const std::string& text, const std::string& name = "config.json") {
  std::string error;
  const auto entry = import_hf_config(name, text, "", error);
  EXPECT_TRUE(entry.has_value()) << error;
  return entry.value_or(HfImport{});
}

TEST(Sha256, FipsExamples) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(HfImport, RealConfigsGiveTheCatalogParameterCounts) {
  const std::map<std::string, std::string> files = {{"llama32_3b.json", "llama32_3b"},
                                                    {"qwen25_7b.json", "qwen25_7b"},
                                                    {"gemma2_9b_it.json", "gemma2_9b"},
                                                    {"gpt2.json", "gpt2"},
                                                    {"bert_base_uncased.json", "bert_base"}};
  for (const auto& [file, id] : files) {
    const std::string path = kSource + "/tests/data/hf_configs/" + file;
    const std::string text = read_text(path);
    ASSERT_FALSE(text.empty()) << path;
    const HfImport entry = import_text(text, path);
    const CatalogModel* m = shipped().find_model(id);
    ASSERT_NE(m, nullptr) << id;
    EXPECT_EQ(imported_graph(entry).parameter_count, m->prepared.eager.parameter_count) << file;
    EXPECT_NE(entry.yaml.find(sha256_hex(text)), std::string::npos) << file;
    EXPECT_NE(entry.yaml.find(file), std::string::npos) << file;
  }
}

TEST(HfImport, EntriesLoadAsCatalogModels) {
  const std::string text = read_text(kSource + "/tests/data/hf_configs/gemma2_9b_it.json");
  std::string error;
  const auto entry = import_hf_config("gemma2_9b_it.json", text, "my_gemma", error);
  ASSERT_TRUE(entry) << error;
  EXPECT_EQ(entry->id, "my_gemma");
  Catalog c;
  Diagnostics d;
  load_models_text("imported.yaml", "models:\n" + entry->yaml, c, d);
  ASSERT_FALSE(d.has_errors()) << d.format() << entry->yaml;
  ASSERT_NE(c.find_model("my_gemma"), nullptr);
  // Gemma 2's alternation and head_dim come through.
  EXPECT_NE(entry->yaml.find("head_dim: 256"), std::string::npos);
  EXPECT_NE(entry->yaml.find("sliding_window: 4096, global_every: 2"), std::string::npos);
  // Without --name the id comes from _name_or_path.
  EXPECT_EQ(import_text(text).id, "gemma_2_9b_it");
}

// Families without a stored file: their published values (Hugging Face configs of
// mistralai/Mistral-7B-v0.1, mistralai/Mixtral-8x22B-v0.1, deepseek-ai/DeepSeek-V2), the keys the
// importer reads, against the catalog entries.
TEST(HfImport, MistralMixtralAndDeepSeekKeys) {
  const std::string mistral = R"({"model_type": "mistral", "hidden_size": 4096, "intermediate_size": 14336,
      "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "sliding_window": 4096,
      "tie_word_embeddings": false, "vocab_size": 32000})";
  const HfImport m = import_text(mistral);
  EXPECT_EQ(imported_graph(m).parameter_count, shipped().find_model("mistral_7b")->prepared.eager.parameter_count);
  EXPECT_NE(m.yaml.find("sliding_window: 4096"), std::string::npos);
  const std::string mixtral = R"({"model_type": "mixtral", "hidden_size": 6144, "intermediate_size": 16384,
      "num_attention_heads": 48, "num_hidden_layers": 56, "num_key_value_heads": 8, "num_local_experts": 8,
      "num_experts_per_tok": 2, "sliding_window": null, "vocab_size": 32000})";
  EXPECT_EQ(imported_graph(import_text(mixtral)).parameter_count,
            shipped().find_model("mixtral_8x22b")->prepared.eager.parameter_count);
  const std::string deepseek = R"({"model_type": "deepseek_v2", "hidden_size": 5120, "intermediate_size": 12288,
      "kv_lora_rank": 512, "moe_intermediate_size": 1536, "n_routed_experts": 160, "n_shared_experts": 2,
      "num_attention_heads": 128, "num_experts_per_tok": 6, "num_hidden_layers": 60, "num_key_value_heads": 128,
      "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
      "first_k_dense_replace": 1, "tie_word_embeddings": false, "vocab_size": 102400})";
  EXPECT_EQ(imported_graph(import_text(deepseek)).parameter_count,
            shipped().find_model("deepseek_v2")->prepared.eager.parameter_count);
}

// state-spaces/mamba-2.8b-hf's config.json (tests/data/hf_configs/mamba_2_8b_hf.json) imports as
// architecture mamba with the catalog's mamba_2_8b parameters; a file without the optional keys takes
// MambaConfig's defaults and says so.
TEST(HfImport, MambaConfigGivesTheCatalogMamba) {
  const std::string path = kSource + "/tests/data/hf_configs/mamba_2_8b_hf.json";
  const std::string text = read_text(path);
  ASSERT_FALSE(text.empty()) << path;
  const HfImport m = import_text(text, path);
  EXPECT_EQ(m.architecture, "mamba");
  EXPECT_EQ(imported_graph(m).parameter_count, shipped().find_model("mamba_2_8b")->prepared.eager.parameter_count);
  EXPECT_EQ(imported_graph(m).parameter_count, 2'768'345'600.0);
  EXPECT_NE(m.yaml.find("architecture: mamba\n"), std::string::npos) << m.yaml;
  EXPECT_NE(m.yaml.find("dt_rank: 160"), std::string::npos) << m.yaml;
  // The file sets no tie_word_embeddings: tied, PretrainedConfig's default, named in the source.
  EXPECT_NE(m.yaml.find("tied_embeddings: 1"), std::string::npos) << m.yaml;
  EXPECT_NE(m.yaml.find("MambaConfig defaults used: tie_word_embeddings true"), std::string::npos) << m.yaml;
  Catalog c;
  Diagnostics d;
  load_models_text("imported.yaml", "models:\n" + m.yaml, c, d);
  ASSERT_FALSE(d.has_errors()) << d.format() << m.yaml;

  const HfImport bare = import_text(R"({"model_type": "mamba", "hidden_size": 2560, "num_hidden_layers": 64,
      "vocab_size": 50280, "use_bias": false, "time_step_rank": "auto"})");
  EXPECT_EQ(imported_graph(bare).parameter_count, 2'768'345'600.0);
  EXPECT_NE(bare.yaml.find("state_size 16, expand 2, conv_kernel 4"), std::string::npos) << bare.yaml;
  // MambaConfig's use_bias defaults to true (in_proj and out_proj biases), which the builder lacks.
  std::string error;
  EXPECT_FALSE(import_hf_config("c.json", R"({"model_type": "mamba", "hidden_size": 64, "num_hidden_layers": 2,
      "vocab_size": 100})", "", error));
  EXPECT_NE(error.find("use_bias true"), std::string::npos) << error;
  EXPECT_FALSE(import_hf_config("c.json", R"({"model_type": "mamba", "hidden_size": 64, "vocab_size": 100,
      "use_bias": false})", "", error));
  EXPECT_NE(error.find("missing key 'num_hidden_layers'"), std::string::npos) << error;
}

// ai21labs/Jamba-v0.1's config.json, the values of the catalog entry jamba_v01's source (JambaConfig's
// defaults are that file's), imports as architecture jamba with the catalog's parameter count; a file
// without the pattern keys takes JambaConfig's defaults and says so.
TEST(HfImport, JambaConfigGivesTheCatalogJamba) {
  const std::string jamba = R"({"architectures": ["JambaForCausalLM"], "model_type": "jamba",
      "attn_layer_offset": 4, "attn_layer_period": 8, "expert_layer_offset": 1, "expert_layer_period": 2,
      "hidden_size": 4096, "intermediate_size": 14336, "mamba_conv_bias": true, "mamba_d_conv": 4,
      "mamba_d_state": 16, "mamba_dt_rank": 256, "mamba_expand": 2, "mamba_proj_bias": false,
      "max_position_embeddings": 262144, "num_attention_heads": 32, "num_experts": 16, "num_experts_per_tok": 2,
      "num_hidden_layers": 32, "num_key_value_heads": 8, "sliding_window": null, "tie_word_embeddings": false,
      "vocab_size": 65536, "_name_or_path": "ai21labs/Jamba-v0.1"})";
  const HfImport j = import_text(jamba);
  EXPECT_EQ(j.architecture, "jamba");
  EXPECT_EQ(j.id, "jamba_v0_1");
  const ModelGraph g = imported_graph(j);
  EXPECT_EQ(g.parameter_count, shipped().find_model("jamba_v01")->prepared.eager.parameter_count);
  EXPECT_EQ(g.parameter_count, 51'570'323'328.0);
  EXPECT_EQ(g.active_parameters(), 12'110'311'296.0);
  EXPECT_EQ(j.yaml.find("defaults used"), std::string::npos) << j.yaml;
  Catalog c;
  Diagnostics d;
  load_models_text("imported.yaml", "models:\n" + j.yaml, c, d);
  ASSERT_FALSE(d.has_errors()) << d.format() << j.yaml;

  const HfImport bare = import_text(R"({"model_type": "jamba", "hidden_size": 4096, "intermediate_size": 14336,
      "num_attention_heads": 32, "num_hidden_layers": 32, "vocab_size": 65536})");
  EXPECT_EQ(imported_graph(bare).parameter_count, 51'570'323'328.0);
  EXPECT_NE(bare.yaml.find("JambaConfig defaults used: num_key_value_heads 8, attn_layer_period 8"), std::string::npos)
      << bare.yaml;
  EXPECT_NE(bare.yaml.find("mamba_dt_rank auto (ceil(hidden_size / 16) = 256)"), std::string::npos) << bare.yaml;
  std::string error;
  EXPECT_FALSE(import_hf_config("c.json", R"({"model_type": "jamba", "hidden_size": 64, "intermediate_size": 128,
      "num_attention_heads": 4, "num_hidden_layers": 8, "vocab_size": 100, "mamba_proj_bias": true})", "", error));
  EXPECT_NE(error.find("mamba_proj_bias true is not modelled"), std::string::npos) << error;
}

TEST(HfImport, UnknownFamiliesAndMissingKeysAreNamed) {
  std::string error;
  EXPECT_FALSE(import_hf_config("c.json", R"({"model_type": "t5"})", "", error));
  EXPECT_NE(error.find("model_type 't5' is not supported"), std::string::npos) << error;
  EXPECT_NE(error.find("llama, mistral"), std::string::npos) << error;
  EXPECT_FALSE(import_hf_config("c.json", R"({"model_type": "llama", "hidden_size": 64})", "", error));
  EXPECT_NE(error.find("missing key 'num_attention_heads'"), std::string::npos) << error;
  EXPECT_FALSE(import_hf_config("c.json", R"({"hidden_size": 64})", "", error));
  EXPECT_NE(error.find("missing key 'model_type'"), std::string::npos) << error;
  EXPECT_FALSE(import_hf_config("c.json", "not json", "", error));
}

// A Mamba2Config with state-spaces/mamba2-2.7b's values (the catalog entry mamba2_2_7b's source: d 2560,
// 64 layers, 80 heads of 64, one group, vocab 50288, tied) imports as architecture mamba2 with the
// catalog's count; a bare file takes Mamba2Config's defaults (n_groups 8, untied) and says so.
TEST(HfImport, Mamba2ConfigGivesTheCatalogMamba2) {
  const HfImport m = import_text(R"({"architectures": ["Mamba2ForCausalLM"], "model_type": "mamba2",
      "hidden_size": 2560, "num_hidden_layers": 64, "num_heads": 80, "head_dim": 64, "n_groups": 1,
      "state_size": 128, "expand": 2, "conv_kernel": 4, "chunk_size": 256, "vocab_size": 50288,
      "tie_word_embeddings": true, "use_bias": false, "use_conv_bias": true})");
  EXPECT_EQ(m.architecture, "mamba2");
  EXPECT_EQ(imported_graph(m).parameter_count, shipped().find_model("mamba2_2_7b")->prepared.eager.parameter_count);
  EXPECT_EQ(imported_graph(m).parameter_count, 2'702'599'680.0);
  EXPECT_NE(m.yaml.find("head_dim: 64, ngroups: 1, chunk_size: 256"), std::string::npos) << m.yaml;
  Catalog c;
  Diagnostics d;
  load_models_text("imported.yaml", "models:\n" + m.yaml, c, d);
  ASSERT_FALSE(d.has_errors()) << d.format() << m.yaml;

  // Mamba2Config's defaults: 128 heads of 64 = 2 x 4096, 8 groups, N 128, untied: per layer 4096 +
  // 4096 (16384 + 2048 + 128) + 10240 x 5 + 3 x 128 + 8192 + 8192 x 4096 = 109,640,064.
  const HfImport bare = import_text(R"({"model_type": "mamba2", "hidden_size": 4096, "num_hidden_layers": 64,
      "vocab_size": 32768})");
  EXPECT_EQ(imported_graph(bare).parameter_count, 64 * 109'640'064.0 + 2 * 32768.0 * 4096 + 4096);
  EXPECT_NE(bare.yaml.find("Mamba2Config defaults used: expand 2, head_dim 64, num_heads 128"), std::string::npos)
      << bare.yaml;
  std::string error;
  EXPECT_FALSE(import_hf_config("c.json", R"({"model_type": "mamba2", "hidden_size": 2560, "num_hidden_layers": 2,
      "vocab_size": 100})", "", error));
  EXPECT_NE(error.find("num_heads x head_dim (8192) must equal expand x hidden_size (5120)"), std::string::npos)
      << error;
}

// nvidia/Nemotron-H-8B-Base-8K's config.json imports as architecture nemotron_h with the catalog
// entry nemotron_h_8b's count, its hybrid_override_pattern read as attention every 11 layers from 7;
// a pattern the layout cannot express, or an MoE layer, stops with the reason.
TEST(HfImport, NemotronHConfigGivesTheCatalogNemotronH) {
  const std::string path = kSource + "/tests/data/hf_configs/nemotron_h_8b_base_8k.json";
  const std::string text = read_text(path);
  ASSERT_FALSE(text.empty()) << path;
  const HfImport m = import_text(text, path);
  EXPECT_EQ(m.architecture, "nemotron_h");
  EXPECT_EQ(imported_graph(m).parameter_count,
            shipped().find_model("nemotron_h_8b")->prepared.eager.parameter_count);
  EXPECT_EQ(imported_graph(m).parameter_count, 8'100'852'736.0);
  EXPECT_NE(m.yaml.find("attention_period: 11, attention_offset: 7, attention_layers: 4, d_ff: 21504"), std::string::npos) << m.yaml;
  EXPECT_NE(m.yaml.find("chunk_size: 128"), std::string::npos) << m.yaml;
  EXPECT_NE(m.yaml.find(sha256_hex(text)), std::string::npos);
  Catalog c;
  Diagnostics d;
  load_models_text("imported.yaml", "models:\n" + m.yaml, c, d);
  ASSERT_FALSE(d.has_errors()) << d.format() << m.yaml;

  const std::string base = R"({"model_type": "nemotron_h", "hidden_size": 64, "num_attention_heads": 4,
      "num_key_value_heads": 2, "attention_head_dim": 16, "intermediate_size": 128, "vocab_size": 100,
      "num_hidden_layers": 6, "hybrid_override_pattern": )";
  const HfImport plain = import_text(base + R"("MM*MM*"})");
  EXPECT_NE(plain.yaml.find("attention_period: 3, attention_offset: 2, attention_layers: 2, d_ff: 0"), std::string::npos) << plain.yaml;
  std::string error;
  EXPECT_FALSE(import_hf_config("c.json", base + R"("M-*-M*"})", "", error));
  EXPECT_NE(error.find("hybrid_override_pattern M-*-M* is not modelled"), std::string::npos) << error;
  EXPECT_NE(error.find("(M-*M-*)"), std::string::npos) << error;
  EXPECT_FALSE(import_hf_config("c.json", base + R"("ME*ME*"})", "", error));
  EXPECT_NE(error.find("layer 'E' is not modelled"), std::string::npos) << error;
  EXPECT_FALSE(import_hf_config("c.json", base + R"("MM*MM"})", "", error));
  EXPECT_NE(error.find("has 5 layers, num_hidden_layers 6"), std::string::npos) << error;
}

}  // namespace
}  // namespace dsx
