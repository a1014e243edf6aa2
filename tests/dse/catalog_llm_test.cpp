// The large-language-model entries of studies/catalog/models.yaml against the parameter counts their
// papers and model cards publish (within 1 %), and the active counts of the mixtures of experts.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "dse/catalog.hpp"
#include "dse/diagnostics.hpp"

namespace dsx {
namespace {

const Catalog& shipped() {
  static const Catalog catalog = [] {
    Diagnostics d;
    Catalog c = load_catalog(std::string(DSX_SOURCE_DIR) + "/studies/catalog", d);
    EXPECT_FALSE(d.has_errors()) << d.format();
    return c;
  }();
  return catalog;
}

const ModelGraph& graph(const std::string& id) {
  const CatalogModel* m = shipped().find_model(id);
  if (m == nullptr) throw std::runtime_error("no catalog model " + id);
  return m->prepared.eager;
}

double relative_error(double value, double reference) { return std::abs(value - reference) / reference; }

struct Published {
  const char* id;
  double total;
  const char* source;
};

// Each total as its source prints it (the rounding of the source is the precision asked for: 1 %).
constexpr Published kTotals[] = {
    {"llama2_7b", 6.74e9, "Hugging Face meta-llama/Llama-2-7b-hf: 6,738,415,616 (paper Table 1: 7B)"},
    {"llama2_13b", 13.0e9, "Hugging Face meta-llama/Llama-2-13b-hf: 13,015,864,320 (paper: 13B)"},
    {"llama2_70b", 69.0e9, "Hugging Face meta-llama/Llama-2-70b-hf: 68,976,648,192 (paper: 70B)"},
    {"llama32_1b", 1.23e9, "Meta Llama 3.2 model card: 1.23B"},
    {"llama32_3b", 3.21e9, "Meta Llama 3.2 model card: 3.21B"},
    {"mistral_7b", 7.24e9, "Hugging Face mistralai/Mistral-7B-v0.1: 7.24B (paper title: 7B)"},
    {"mixtral_8x22b", 141e9, "Mistral AI Mixtral 8x22B announcement: 141B"},
    {"qwen25_7b", 7.61e9, "Qwen2.5-7B model card: 7.61B"},
    {"qwen25_72b", 72.7e9, "Qwen2.5-72B model card: 72.7B"},
    {"gemma2_9b", 8'324'201'984.0 + 917'514'240.0, "Gemma 2 report arXiv:2408.00118 Table 2 (non-embedding + embedding)"},
    {"gemma2_27b", 26'047'480'320.0 + 1'179'648'000.0, "Gemma 2 report Table 2 (non-embedding + embedding)"},
    {"phi3_mini", 3.8e9, "Phi-3 report arXiv:2404.14219 section 2: 3.8B"},
    {"gptj_6b", 6'053'381'344.0, "Hugging Face EleutherAI/gpt-j-6b model card: 6,053,381,344"},
    {"mpt_7b", 6.7e9, "Hugging Face mosaicml/mpt-7b model card: 6.7B"},
    {"mpt_30b", 29.95e9, "Hugging Face mosaicml/mpt-30b model card: 29.95B"},
    {"bloom_176b", 176'247'271'424.0, "Hugging Face bigscience/bloom model card v1.3: 176,247,271,424"},
    {"opt_175b", 175e9, "OPT arXiv:2205.01068 abstract: 175B"},
    {"palm_540b", 540.35e9, "PaLM arXiv:2204.02311 Table 1: 540.35B"},
    {"falcon_40b", 83'671'941'120.0 / 2,
     "tiiuae/falcon-40b pytorch_model.bin.index.json: 83,671,941,120 bytes of bfloat16 = 41,835,970,560 (model page: "
     "41.8B)"},
    {"deepseek_v2", 236e9, "DeepSeek-V2 arXiv:2405.04434 section 3.1.2: 236B"},
    {"jamba_v01", 52e9, "Jamba arXiv:2403.19887, Introduction: 52B total available parameters"},
    {"mamba2_2_7b", 2.7e9, "state-spaces/mamba2-2.7b (Hugging Face; arXiv:2405.21060 section 9: Mamba-2 2.7B)"},
    {"mamba2_130m", 130e6, "state-spaces/mamba2-130m (Hugging Face): 130M"},
    {"bert_large", 335'141'888.0 - (1024.0 * 1024 + 1024) - 2 * 1024,
     "Hugging Face bert-large-uncased BertModel 335,141,888 less the pooler and token-type table (the paper's 340M "
     "is a rounded figure)"},
};

TEST(CatalogLlm, TotalParametersMatchTheirSources) {
  for (const Published& p : kTotals) {
    const ModelGraph& g = graph(p.id);
    EXPECT_LT(relative_error(g.parameter_count, p.total), 0.01)
        << p.id << ": " << g.parameter_count << " vs " << p.total << " (" << p.source << ")";
  }
}

TEST(CatalogLlm, ExactCountsWhereTheLayoutIsModelledInFull) {
  // Hugging Face num_parameters() of the checkpoints whose every tensor the builder models.
  EXPECT_EQ(graph("llama2_7b").parameter_count, 6'738'415'616.0);
  EXPECT_EQ(graph("llama2_13b").parameter_count, 13'015'864'320.0);
  EXPECT_EQ(graph("llama2_70b").parameter_count, 68'976'648'192.0);
  EXPECT_EQ(graph("llama32_1b").parameter_count, 1'235'814'400.0);
  EXPECT_EQ(graph("llama32_3b").parameter_count, 3'212'749'824.0);
  EXPECT_EQ(graph("mistral_7b").parameter_count, 7'241'732'096.0);
  EXPECT_EQ(graph("qwen25_7b").parameter_count, 7'615'616'512.0);
  // BLOOM less its embedding LayerNorm (2 x 14336), which is not modelled.
  EXPECT_EQ(graph("bloom_176b").parameter_count, 176'247'271'424.0 - 2 * 14336.0);
  // Checkpoint totals from pytorch_model.bin.index.json (total_size in bytes of bfloat16 / 2), less or plus the
  // norm parameters the builder counts differently. Falcon-40B: ln_attn and ln_mlp per parallel block, counted as
  // one LayerNorm (-60 x 2 x 8192). MPT-30B: its 2 x 48 + 1 LayerNorms have no bias, counted with one (+97 x 7168).
  EXPECT_EQ(graph("falcon_40b").parameter_count, 83'671'941'120.0 / 2 - 60 * 2 * 8192.0);
  EXPECT_EQ(graph("mpt_30b").parameter_count, 59'914'401'792.0 / 2 + 97 * 7168.0);
  // Jamba v0.1, counted tensor by tensor from transformers' modeling_jamba.py with JambaConfig's defaults
  // (tests/engine/hybrid_test.cpp): 4 attention layers with a dense MLP, 16 Mamba layers with 16 experts,
  // 12 Mamba layers with a dense MLP; top-2 of 16 experts active.
  EXPECT_EQ(graph("jamba_v01").parameter_count, 51'570'323'328.0);
  EXPECT_EQ(graph("jamba_v01").active_parameters(), 12'110'311'296.0);
  // Mamba-2, counted tensor by tensor from mamba2.py with the checkpoints' configs (tests/engine/mamba2_test.cpp).
  EXPECT_EQ(graph("mamba2_2_7b").parameter_count, 2'702'599'680.0);
  EXPECT_EQ(graph("mamba2_130m").parameter_count, 128'989'632.0);
}

TEST(CatalogLlm, MixturesOfExpertsCountActiveParametersApart) {
  // Mixtral 8x22B: 39B active (announcement); DeepSeek-V2: 21B activated per token (arXiv:2405.04434).
  EXPECT_LT(relative_error(graph("mixtral_8x22b").active_parameters(), 39e9), 0.01);
  EXPECT_LT(relative_error(graph("deepseek_v2").active_parameters(), 21e9), 0.03);
  // Jamba v0.1: 12B active (arXiv:2403.19887, Introduction).
  EXPECT_LT(relative_error(graph("jamba_v01").active_parameters(), 12e9), 0.01);
  // Dense models: every parameter is active.
  EXPECT_EQ(graph("llama2_7b").active_parameters(), graph("llama2_7b").parameter_count);
}

}  // namespace
}  // namespace dsx
