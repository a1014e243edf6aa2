#include "engine/graph.hpp"

#include <algorithm>
#include <array>

namespace dsx {

namespace {
constexpr std::array<std::string_view, kOpKindCount> kOpKindNames = {
    "matmul", "conv", "attention", "elementwise", "normalization", "reduction", "embedding", "memory",
    "grouped_conv", "selective_scan", "embedding_bag", "ssd_scan"};
}

std::string_view op_kind_name(OpKind k) { return kOpKindNames[static_cast<std::size_t>(k)]; }

std::optional<OpKind> parse_op_kind(std::string_view name) {
  for (std::size_t i = 0; i < kOpKindCount; ++i) {
    if (kOpKindNames[i] == name) return static_cast<OpKind>(i);
  }
  return std::nullopt;
}

double ModelGraph::total_flops_per_sample() const {
  double sum = 0;
  for (const Op& op : ops) sum += op.flops_per_sample * op.repeat;
  return sum;
}

double ModelGraph::total_kernels() const {
  double sum = 0;
  for (const Op& op : ops) sum += static_cast<double>(op.kernels) * op.repeat;
  return sum;
}

double ModelGraph::total_weight_elements() const {
  double sum = 0;
  for (const Op& op : ops) sum += op.weight_elements * op.repeat;
  return sum;
}

FlatGraph flatten(const ModelGraph& graph) {
  FlatGraph flat;
  for (const Op& op : graph.ops) {
    const double activation = op.input_elements_per_sample + op.output_elements_per_sample;
    flat.flops_per_sample.push_back(op.flops_per_sample);
    flat.activation_elements_per_sample.push_back(activation);
    flat.weight_elements.push_back(op.weight_elements);
    flat.kernels.push_back(op.kernels);
    flat.repeat.push_back(op.repeat);
    flat.roof.push_back(static_cast<std::uint8_t>(op_roof(op.kind)));
    flat.largest_activation_elements_per_sample = std::max(flat.largest_activation_elements_per_sample, activation);
  }
  flat.resident_weight_elements = graph.parameter_count > 0 ? graph.parameter_count : graph.total_weight_elements();
  return flat;
}

}  // namespace dsx
