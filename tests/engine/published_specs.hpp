// Published models and accelerators for engine tests that build them directly: architecture
// values as studies/catalog/models.yaml gives them to the transformer builder
// (engine/model_builders.hpp), hardware as studies/catalog/hardware.yaml gives it.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "engine/hardware.hpp"
#include "engine/model_builders.hpp"
#include "engine/precision.hpp"

namespace dsx::published {

using Values = std::map<std::string, double, std::less<>>;

// Mistral 7B's shape (Jiang et al. 2023); with experts 8 / experts_per_token 2 it is Mixtral 8x7B
// (Jiang et al. 2024, Table 1).
inline const Values kMistral7b = {{"layers", 32},  {"d_model", 4096}, {"heads", 32},     {"kv_heads", 8},
                                  {"d_ff", 14336}, {"vocab", 32000},  {"seq_len", 2048}, {"gated_mlp", 1},
                                  {"norm", 1},     {"embeddings", 1}, {"rope", 1}};

inline Values mixtral_8x7b() {
  Values v = kMistral7b;
  v["experts"] = 8;
  v["experts_per_token"] = 2;
  return v;
}

// DeepSeek-V3 (DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv:2412.19437, and its config.json):
// MLA attention, 3 dense layers, then 58 MoE layers of 256 routed experts (8 active) and 1 shared.
inline const Values kDeepSeekV3 = {
    {"layers", 61},           {"d_model", 7168},     {"heads", 128},            {"kv_heads", 128},
    {"d_ff", 18432},          {"vocab", 129280},     {"seq_len", 4096},         {"gated_mlp", 1},
    {"norm", 1},              {"embeddings", 1},     {"rope", 1},               {"experts", 256},
    {"experts_per_token", 8}, {"expert_d_ff", 2048}, {"shared_experts", 1},     {"dense_layers", 3},
    {"kv_lora_rank", 512},    {"q_lora_rank", 1536}, {"qk_nope_head_dim", 128}, {"qk_rope_head_dim", 64},
    {"v_head_dim", 128}};

// Llama 3 70B (Meta, config.json): 80 layers, d_model 8,192, 64 heads, 8 KV heads, d_ff 28,672.
inline const Values kLlama3_70b = {{"layers", 80},    {"d_model", 8192}, {"heads", 64},    {"kv_heads", 8},
                                   {"d_ff", 28672},   {"vocab", 128256}, {"seq_len", 2048}, {"gated_mlp", 1},
                                   {"norm", 1},       {"embeddings", 1}, {"rope", 1}};

// studies/catalog/hardware.yaml h100_sxm: dense peaks, 80 GiB at 3.35 TB/s, NVLink 4 450 GB/s and
// PCIe Gen5 64 GB/s one-way, 700 W, idle 30 % of TDP, $31,250.
inline HardwareSpec h100_sxm() {
  HardwareSpec hw;
  hw.id = "h100_sxm";
  hw.peak_flops_per_s[index_of(Precision::bf16)] = 989e12;
  hw.peak_flops_per_s[index_of(Precision::fp16)] = 989e12;
  hw.peak_flops_per_s[index_of(Precision::fp8)] = 1979e12;
  hw.memory_bytes = 80 * 1024.0 * 1024 * 1024;
  hw.memory_bandwidth_bytes_per_s = 3.35e12;
  hw.accelerator_link_bandwidth_bytes_per_s = 450e9;
  hw.host_link_bandwidth_bytes_per_s = 64e9;
  hw.tdp_w = 700;
  hw.idle_power_fraction = 0.3;
  hw.price_usd = 31250;
  hw.compute_units = 132;  // SXM5: 132 SMs (NVIDIA H100 Tensor Core GPU Architecture whitepaper)
  hw.sparse_speedup = 2;   // the datasheet's sparse tensor rates are twice the dense ones
  return hw;
}

// studies/catalog/hardware.yaml a100_80gb_sxm (NVIDIA A100 Tensor Core GPU datasheet, 2021): dense
// FP16/BF16 312 TFLOP/s, 80 GiB at 2.039 TB/s, NVLink 3 300 GB/s and PCIe Gen4 32 GB/s one-way, 400 W,
// idle 30 % of TDP, $17,500.
inline HardwareSpec a100_80gb_sxm() {
  HardwareSpec hw;
  hw.id = "a100_80gb_sxm";
  hw.peak_flops_per_s[index_of(Precision::bf16)] = 312e12;
  hw.peak_flops_per_s[index_of(Precision::fp16)] = 312e12;
  hw.memory_bytes = 80 * 1024.0 * 1024 * 1024;
  hw.memory_bandwidth_bytes_per_s = 2.039e12;
  hw.accelerator_link_bandwidth_bytes_per_s = 300e9;
  hw.host_link_bandwidth_bytes_per_s = 32e9;
  hw.tdp_w = 400;
  hw.idle_power_fraction = 0.3;
  hw.price_usd = 17500;
  hw.compute_units = 108;
  hw.sparse_speedup = 2;
  return hw;
}

// Llama 3 (Grattafiori et al. 2024, "The Llama 3 Herd of Models", Table 3): 8 KV heads, vocabulary
// 128,256, gated MLP, RoPE; 8B is (32, 4096, 32, 14336), 70B (80, 8192, 64, 28672).
inline PreparedModel llama3(double layers, double d_model, double heads, double d_ff) {
  const Values given = {{"layers", layers}, {"d_model", d_model}, {"heads", heads}, {"kv_heads", 8},
                        {"d_ff", d_ff},     {"vocab", 128256},    {"seq_len", 2048}, {"gated_mlp", 1},
                        {"norm", 1},        {"embeddings", 1},    {"rope", 1}};
  return prepare_model(build_architecture("transformer", {given.begin(), given.end()}));
}

}  // namespace dsx::published
