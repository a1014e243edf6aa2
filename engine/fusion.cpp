#include "engine/fusion.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dsx {

namespace {

bool is_pointwise(OpKind k) { return k == OpKind::elementwise || k == OpKind::normalization; }

bool joins(FusionPolicy policy, const Op& group, bool group_is_pointwise, const Op& next) {
  if (next.repeat != group.repeat) return false;
  switch (policy) {
    case FusionPolicy::none:
      return false;
    case FusionPolicy::elementwise:
      return next.kind == OpKind::elementwise && group.kind != OpKind::normalization;
    case FusionPolicy::elementwise_norm:
      if (next.kind == OpKind::elementwise) return true;
      return next.kind == OpKind::normalization && group_is_pointwise;
  }
  return false;
}

}  // namespace

ModelGraph fuse(const ModelGraph& eager, FusionPolicy policy) {
  ModelGraph fused = eager;
  fused.ops.clear();
  bool group_is_pointwise = false;
  for (const Op& op : eager.ops) {
    if (!fused.ops.empty() && joins(policy, fused.ops.back(), group_is_pointwise, op)) {
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

ModelGraph fuse_elementwise_chains(const ModelGraph& eager) { return fuse(eager, FusionPolicy::elementwise_norm); }

PreparedModel prepare_model(ModelGraph eager) {
  PreparedModel prepared;
  prepared.compiled = fuse(eager, FusionPolicy::elementwise_norm);
  prepared.compiled_elementwise = fuse(eager, FusionPolicy::elementwise);
  prepared.flat_eager = flatten(eager);
  prepared.flat_compiled = flatten(prepared.compiled);
  prepared.flat_compiled_elementwise = flatten(prepared.compiled_elementwise);
  prepared.servable = derive_serving_shape(eager, prepared.serving_shape);
  prepared.is_transformer = prepared.servable && prepared.serving_shape.attention_layers > 0;
  prepared.eager = std::move(eager);
  return prepared;
}

double fused_kernel_count(double eager_kernels, double cut_fraction) {
  return std::max(1.0, std::round(eager_kernels * (1.0 - cut_fraction)));
}

double compile_breakeven_passes(double compile_time_s, double eager_latency_s, double compiled_latency_s) {
  if (compile_time_s <= 0) return 0.0;
  const double saved_s = eager_latency_s - compiled_latency_s;
  if (!(saved_s > 0)) return std::numeric_limits<double>::infinity();
  return compile_time_s / saved_s;
}

}  // namespace dsx
