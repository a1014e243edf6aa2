// Operator graphs generated from architecture parameters, never typed in.
//
// Each architecture declares its parameters (name, dimension, default) like a solver does, so the
// catalog reader (dse/catalog.hpp) can validate models.yaml with file:line:col messages and the
// closest match. build() receives the values in params() order, SI units, defaults filled in.
// FLOPs count a multiply-accumulate as 2 FLOP (shared/reference mlsysim-catalog, section 0).
//
// Architectures (formulas and sources at the top of each builder in model_builders.cpp):
//  - transformer: decoder/encoder stack (GPT-2, BERT, Llama; MHA or GQA); a sample is one sequence.
//  - resnet: bottleneck ResNet (ResNet-50 = blocks 3,4,6,3); a sample is one image.
//  - ds_cnn: Hello Edge / MLPerf Tiny keyword-spotting DS-CNN; a sample is one utterance.
//  - kernel_profile: seeds/000 lab_07's "N kernels of t each" abstraction; a sample is one pass.
//    Its bytes_per_kernel is stated at fp16: input = output = bytes_per_kernel / 4 elements.
// Families in files of their own (engine/model_families.hpp; operator cost rules in engine/operators.hpp):
//  - vit, mobilenet_v2, mobilenet_v3_large, efficientnet, convnext (model_builders_vision.cpp): images.
//  - mamba (selective state-space LM; a sample is one sequence), encoder_decoder (T5 over token pairs,
//    Whisper over 30 s of log-mel frames; cross-attention) (model_builders_sequence.cpp).
//  - mamba2 (Mamba-2, the SSD layer of arXiv:2405.21060; a sample is one sequence) (model_builders_mamba2.cpp).
//  - jamba (hybrid of attention and Mamba layers with dense and MoE feed-forwards; a sample is one
//    sequence) (model_builders_hybrid.cpp, from the shared pieces of model_builders_blocks.hpp).
//  - nemotron_h (hybrid of Mamba-2, attention and MLP layers, NVIDIA's Nemotron-H; a sample is one
//    sequence) (model_builders_hybrid.cpp).
//  - mlp, dlrm (pooled embedding bags, dot or DCNv2 interaction) (model_builders_recsys.cpp).
//  - mask_rcnn (ResNet-50-FPN, RPN, RoIAlign box and mask heads; a sample is one image)
//    (model_builders_detection.cpp).
//  - sdxl (Stable Diffusion XL base: UNet denoising steps, CLIP text encoders, VAE decoder; a sample
//    is one image) (model_builders_diffusion.cpp).
// Each graph lists one Op per eager kernel in execution order, so fusion (engine/fusion.hpp) yields
// the compiled graph; identical blocks (layers, ResNet blocks, profile groups) use Op::repeat.
#pragma once

#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>

#include "engine/graph.hpp"
#include "engine/units.hpp"

namespace dsx {

struct ArchParamSpec {
  std::string_view name;
  Dimension dimension = Dimension::count;
  std::string_view description;
  bool has_default = false;
  double default_value = 0;
  bool integer = true;
};

struct Architecture {
  std::string_view name;
  std::string_view description;
  std::string_view sample_unit;  // "sample", "image", "token", "utterance", ...
  std::span<const ArchParamSpec> params;
  // Builds the eager graph (ids/name/source are filled in by the caller). Throws
  // std::invalid_argument on values that describe no valid network.
  ModelGraph (*build)(std::span<const double> values);
};

std::span<const Architecture> all_architectures();
const Architecture* find_architecture(std::string_view name);

// Builds `architecture` from named values (SI), filling each parameter the map lacks with its declared
// default. Throws std::invalid_argument for an unknown architecture, a name the architecture does not
// declare, or a missing parameter without a default. (The catalog reader does the same with
// diagnostics; this is for code and tests that hold values, not YAML.)
ModelGraph build_architecture(std::string_view architecture,
                              const std::map<std::string, double, std::less<>>& named);

}  // namespace dsx
