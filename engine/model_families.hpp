// Architecture families defined outside model_builders.cpp, one file per family; the registry in
// model_builders.cpp lists each with one line. Each builder documents its layout and sources at the
// top of its definition.
//  - engine/model_builders_vision.cpp: vit, mobilenet_v2, mobilenet_v3_large, efficientnet, convnext
//  - engine/model_builders_sequence.cpp: mamba, encoder_decoder (T5, Whisper)
//  - engine/model_builders_mamba2.cpp: mamba2 (Mamba-2, the SSD layer)
//  - engine/model_builders_hybrid.cpp: jamba (attention + Mamba layers, dense and MoE feed-forwards),
//    nemotron_h (Mamba-2, attention and MLP layers)
//  - engine/model_builders_recsys.cpp: mlp, dlrm
//  - engine/model_builders_detection.cpp: mask_rcnn
//  - engine/model_builders_diffusion.cpp: sdxl
#pragma once

#include "engine/model_builders.hpp"

namespace dsx {

Architecture vit_architecture();
Architecture mobilenet_v2_architecture();
Architecture mobilenet_v3_large_architecture();
Architecture efficientnet_architecture();
Architecture convnext_architecture();
Architecture mamba_architecture();
Architecture mamba2_architecture();
Architecture jamba_architecture();
Architecture nemotron_h_architecture();
Architecture encoder_decoder_architecture();
Architecture mlp_architecture();
Architecture dlrm_architecture();
Architecture mask_rcnn_architecture();
Architecture sdxl_architecture();

}  // namespace dsx
