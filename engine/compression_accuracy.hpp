// Published accuracy of a compressed language model: what a paper measured for one model, one
// compression method and one setting, at the uncompressed baseline and compressed. The catalog file
// studies/catalog/compression_accuracy.yaml holds the figures with their sources (dse/catalog_accuracy.hpp);
// the compression solver (engine/solvers/compression.hpp) reports a figure only for a point whose
// setting is exactly a published row's: no figure is interpolated between settings or carried to
// another model.
//
// Metrics, each as its source measured it:
//  - wikitext2_perplexity: perplexity on WikiText-2 (Merity et al. 2016, arXiv:1609.07843) test text,
//    lower is better, at the source's context length (the row's source names it where it states one).
//  - zero_shot_average_accuracy: the mean zero-shot accuracy over the source's task set, as a
//    fraction (Huang et al. 2024, arXiv:2404.14047: PIQA, ARC-e, ARC-c, HellaSwag, Winogrande).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "engine/precision.hpp"

namespace dsx {

enum class AccuracyMetric : std::uint8_t { wikitext2_perplexity, zero_shot_average_accuracy };
inline constexpr std::array<std::string_view, 2> kAccuracyMetricNames = {"wikitext2_perplexity",
                                                                         "zero_shot_average_accuracy"};

// Compression methods a published row can name; `none` (index 0) names no method.
//  - rtn: round-to-nearest, no calibration.
//  - gptq: Frantar et al., arXiv:2210.17323.
//  - awq: Lin et al., arXiv:2306.00978.
//  - smoothquant: Xiao et al., arXiv:2211.10438 (weights and activations).
//  - magnitude: pruning the smallest weights by magnitude.
//  - sparsegpt: Frantar and Alistarh, arXiv:2301.00774 (pruning with weight reconstruction).
//  - wanda: Sun et al., arXiv:2306.11695 (pruning by weight magnitude x input activation norm).
inline constexpr std::array<std::string_view, 8> kCompressionMethodNames = {
    "none", "rtn", "gptq", "awq", "smoothquant", "magnitude", "sparsegpt", "wanda"};
inline constexpr std::uint8_t kNoCompressionMethod = 0;

// A setting as the compression solver's parameters state it. group_size 0 is per-channel (one scale
// per output row of a weight matrix), or no grouping; weights left at the baseline precision (pruned
// only) have no scales, and their setting's group_size is 0 whatever the parameter says.
struct CompressionSetting {
  std::uint8_t method = kNoCompressionMethod;  // index into kCompressionMethodNames
  Precision weight_precision = Precision::fp16;
  bool weights_activations = false;  // activations at weight_precision too (W8A8), else weight-only
  double group_size = 0;
  double sparsity = 0;               // unstructured fraction pruned
  bool structured_2_4 = false;

  bool operator==(const CompressionSetting&) const = default;
};

struct PublishedAccuracy {
  CompressionSetting setting;
  AccuracyMetric metric = AccuracyMetric::wikitext2_perplexity;
  double baseline = 0;    // the uncompressed 16-bit model, as the same source measured it
  double compressed = 0;
};

// The row for exactly `setting` and `metric`; nullptr when none.
const PublishedAccuracy* find_published_accuracy(std::span<const PublishedAccuracy> rows,
                                                 const CompressionSetting& setting, AccuracyMetric metric);

// The uncompressed value of `metric` some row states (every row of one model and source shares it);
// nullptr when no row has the metric.
const PublishedAccuracy* find_published_baseline(std::span<const PublishedAccuracy> rows, AccuracyMetric metric);

}  // namespace dsx
