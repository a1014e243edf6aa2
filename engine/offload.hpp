// Weights and activations kept in a second memory tier (host memory, reached over the host link)
// during training, streamed to the accelerator one transformer layer ("block") at a time, as
// Calculon models it: Isaev et al., "Calculon: a Methodology and Tool for High-Level Co-Design of
// Systems and Large Language Models", SC'23; its source,
// github.com/calculon-ai/calculon, calculon/llm/llm.py (_get_fw_offload_size, _get_bw_offload_size,
// _get_mem_cap_reqs, the block times of _compute_batch_stats):
//  - resident working set: two layers' weights (the one computing, the next arriving) and two
//    layers' stored activations of one micro-batch (Calculon: the working block's plus one stored
//    block, or two blocks' checkpoints under full recomputation); the rest lives in host memory,
//    which holds all of them (Calculon's tier-2 requirement).
//  - traffic per layer per micro-batch: forward, the next layer's weights come in while this
//    layer's activations go out, opposite directions of the link, so max(weights, activations);
//    backward, the weights and the stored activations both come back in, weights + activations.
//  - overlap: the transfer runs while the layer computes; it cannot hide behind the layer's
//    memory-bound work (both use the accelerator's memory), so of a transfer of x seconds the step
//    sees max(0, x - window), the window being the layer's compute-bound time plus its exposed
//    tensor-parallel communication (Calculon's block time less its memory time).
// Calculon refuses offloading with fewer than 3 layers per pipeline stage (llm.py: "Offloading
// requires each processor to handle at least 3 blocks"): the double-buffered pair must be fewer
// than the stage's layers for anything to leave the accelerator.
#pragma once

namespace dsx {

inline constexpr double kMinLayersToOffload = 3;

// Bytes one layer moves over the host link per micro-batch, given what is offloaded.
struct LayerOffloadBytes {
  double forward_bytes = 0;   // max(weights, activations): in and out at once
  double backward_bytes = 0;  // weights + activations, both coming in
};
LayerOffloadBytes layer_offload_bytes(bool weights, bool activations, double layer_weights_bytes,
                                      double layer_activations_bytes);

// What a transfer of `bytes` at `link_bytes_per_s` leaves exposed behind a window of `window_s`.
double offload_exposed_s(double bytes, double link_bytes_per_s, double window_s);

}  // namespace dsx
