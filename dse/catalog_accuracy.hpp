// compression_accuracy.yaml: published accuracy of compressed models, one figure per entry, read by
// the compression solver through the model it belongs to (PreparedModel::published_accuracy).
//
//   compression_accuracy:
//     - {model: llama3_8b, method: awq, weight_precision: int4, quantize: weights_only, group_size: 128,
//        sparsity: 0, metric: zero_shot_average_accuracy, baseline: 68.6 %, compressed: 68.2 %,
//        source: "Huang et al. 2024 (arXiv:2404.14047) ..."}
//
// `model` is a catalog model id; `method` one of engine/compression_accuracy.hpp's methods (not none);
// `weight_precision` a precision (fp16 or bf16 for a model pruned only); `quantize` weights_only or
// weights_activations; `group_size` a whole number >= 1, per_channel, or none for 16-bit weights; `sparsity` a fraction in [0, 1); `structured_2_4` off (left out) or on;
// `metric` wikitext2_perplexity or zero_shot_average_accuracy; `baseline` and `compressed` the
// source's values (> 0; an accuracy a fraction, written with % as the source prints it). One figure per
// model, setting and metric in a file; a study's `catalog: {compression_accuracy: [...]}` adds
// figures or replaces the one of the same model, setting and metric.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dse/catalog.hpp"

namespace dsx {

class YamlReader;
struct YamlNode;

inline constexpr std::string_view kAccuracyListKey = "compression_accuracy";
inline constexpr std::string_view kAccuracyFile = "compression_accuracy.yaml";

// Reads the entries of `list` into `into` (whose models they name must already be there).
void read_accuracy_entries(const YamlReader& reader, const YamlNode& list, std::string_view path, Catalog& into);
// Reads the `compression_accuracy:` list of one file's text into `into`.
void load_accuracy_text(const std::string& file, const std::string& text, Catalog& into, Diagnostics& diags);

// Sets every model's PreparedModel::published_accuracy to the rows of `catalog.accuracy` for its id.
void attach_published_accuracy(Catalog& catalog);

// An entry's keys (kAccuracyKeys' order: model, method, ..., source) and values as a catalog file
// spells them ("per_channel", "none" for 16-bit weights, numbers as written), for the YAML the resolved
// study writes and for `dsx catalog compression_accuracy`.
std::vector<std::pair<std::string_view, std::string>> accuracy_entry_fields(const CatalogAccuracy& e);
// The entries as a resolved study's `catalog:` block writes them (under "  compression_accuracy:").
void write_accuracy_entries(std::string& out, const std::vector<CatalogAccuracy>& entries);

// A one-line canonical text of an entry, for the catalog hash.
std::string accuracy_entry_text(const CatalogAccuracy& entry);

}  // namespace dsx
