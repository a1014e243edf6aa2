#include "engine/fusion.hpp"

#include <algorithm>

namespace dsx {

namespace {

bool joins(const Op& group, bool group_is_pointwise, const Op& next) {
  if (next.repeat != group.repeat) return false;
  if (next.kind == OpKind::elementwise) return true;
  return next.kind == OpKind::normalization && group_is_pointwise;
}

bool is_pointwise(OpKind k) { return k == OpKind::elementwise || k == OpKind::normalization; }

}  // namespace

ModelGraph fuse_elementwise_chains(const ModelGraph& eager) {
  ModelGraph fused = eager;
  fused.ops.clear();
  bool group_is_pointwise = false;
  for (const Op& op : eager.ops) {
    if (!fused.ops.empty() && joins(fused.ops.back(), group_is_pointwise, op)) {
      Op& group = fused.ops.back();
      const double extra_input =
          std::max(0.0, op.input_elements_per_sample - group.output_elements_per_sample);
      group.name += "+" + op.name;
      group.flops_per_sample += op.flops_per_sample;
      group.input_elements_per_sample += extra_input;
      group.output_elements_per_sample = op.output_elements_per_sample;
      group.weight_elements += op.weight_elements;
      group_is_pointwise = group_is_pointwise && is_pointwise(op.kind);
      continue;
    }
    fused.ops.push_back(op);
    group_is_pointwise = is_pointwise(op.kind);
  }
  return fused;
}

PreparedModel prepare_model(ModelGraph eager) {
  PreparedModel prepared;
  prepared.compiled = fuse_elementwise_chains(eager);
  prepared.eager = std::move(eager);
  return prepared;
}

}  // namespace dsx
