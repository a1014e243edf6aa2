#include "engine/operators.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "engine/builder_support.hpp"

namespace dsx {

using builders::make_op;

double Conv2dShape::weight_elements() const {
  const double per_group_in = static_cast<double>(in_channels / groups);
  return static_cast<double>(out_channels) * per_group_in * static_cast<double>(kernel_h * kernel_w) +
         (bias ? static_cast<double>(out_channels) : 0.0);
}

Conv2dShape square_conv(std::uint64_t size, std::uint64_t in_channels, std::uint64_t out_channels, std::uint64_t kernel,
                        std::uint64_t stride, std::uint64_t groups, bool bias) {
  return Conv2dShape{.height = size, .width = size, .in_channels = in_channels, .out_channels = out_channels,
                     .kernel_h = kernel, .kernel_w = kernel, .stride = stride, .pad_h = kernel / 2,
                     .pad_w = kernel / 2, .groups = groups, .bias = bias};
}

Op conv2d(std::string name, const Conv2dShape& s, std::uint32_t repeat) {
  if (s.groups == 0 || s.in_channels % s.groups != 0 || s.out_channels % s.groups != 0) {
    throw std::invalid_argument(name + ": groups must divide the input and output channels");
  }
  if (s.stride == 0 || s.height + 2 * s.pad_h < s.kernel_h || s.width + 2 * s.pad_w < s.kernel_w) {
    throw std::invalid_argument(name + ": the kernel does not fit the padded input");
  }
  const double out_map = static_cast<double>(s.out_height() * s.out_width());
  const double macs_per_output = static_cast<double>((s.in_channels / s.groups) * s.kernel_h * s.kernel_w);
  const double out = out_map * static_cast<double>(s.out_channels);
  return make_op(std::move(name), s.groups == 1 ? OpKind::conv : OpKind::grouped_conv, 2 * out * macs_per_output,
                 static_cast<double>(s.in_channels * s.height * s.width), out, s.weight_elements(), repeat);
}

Op patch_embedding(std::string name, std::uint64_t image_size, std::uint64_t channels, std::uint64_t patch,
                   std::uint64_t d_model, std::uint32_t repeat) {
  const Conv2dShape s{.height = image_size, .width = image_size, .in_channels = channels, .out_channels = d_model,
                      .kernel_h = patch, .kernel_w = patch, .stride = patch, .bias = true};
  return conv2d(std::move(name), s, repeat);
}

Op causal_conv1d(std::string name, double length, double channels, double kernel, std::uint32_t repeat) {
  const double act = length * channels;
  return make_op(std::move(name), OpKind::grouped_conv, 2 * act * kernel, act, act, channels * kernel + channels,
                 repeat);
}

Op selective_scan(std::string name, double length, double channels, double state, std::uint32_t repeat) {
  const double flops = 9 * length * channels * state + 2 * length * channels;
  Op op = make_op(std::move(name), OpKind::selective_scan, flops, 2 * length * channels + 2 * length * state,
                  length * channels, channels * state + channels, repeat);
  op.state_elements = channels * state;
  return op;
}

Op ssd_scan(std::string name, const SsdScanShape& s, std::uint32_t repeat) {
  const double T = s.length, H = s.heads, D = s.heads * s.head_dim, G = s.groups, N = s.state;
  const double Q = std::min(s.chunk, T);
  const double chunks = std::ceil(T / Q);
  const double intra = 2 * chunks * Q * Q * (G * N + D);
  const double inter = 4 * T * D * N + 2 * chunks * D * N;
  const double in = T * D + T * H + 2 * T * G * N + 2 * chunks * G * Q * Q + 4 * chunks * D * N;
  Op op = make_op(std::move(name), OpKind::ssd_scan, intra + inter + 2 * T * D, in, T * D, 3 * H, repeat);
  op.kernels = 5;
  op.state_elements = D * N;
  return op;
}

Op embedding_bag(std::string name, double tables, double lookups_per_table, double dim, std::uint32_t repeat) {
  const double rows = tables * lookups_per_table;
  return make_op(std::move(name), OpKind::embedding_bag, tables * (lookups_per_table - 1) * dim, rows * dim,
                 tables * dim, 0, repeat);
}

Op attention_scores(std::string name, double q_tokens, double kv_tokens, double heads, double head_dim,
                    std::uint32_t repeat) {
  const double width = heads * head_dim;
  return make_op(std::move(name), OpKind::attention, 2 * q_tokens * kv_tokens * width, (q_tokens + kv_tokens) * width,
                 heads * q_tokens * kv_tokens, 0, repeat);
}

Op attention_context(std::string name, double q_tokens, double kv_tokens, double heads, double head_dim,
                     std::uint32_t repeat) {
  const double width = heads * head_dim;
  return make_op(std::move(name), OpKind::attention, 2 * q_tokens * kv_tokens * width,
                 heads * q_tokens * kv_tokens + kv_tokens * width, q_tokens * width, 0, repeat);
}

Op roi_align(std::string name, double regions, double channels, double pooled, double sampling_ratio,
             std::uint32_t repeat) {
  const double out = regions * channels * pooled * pooled, samples = sampling_ratio * sampling_ratio;
  return make_op(std::move(name), OpKind::reduction, out * (8 * samples + 1), out * 4 * samples, out, 0, repeat);
}

double append_squeeze_excitation(std::vector<Op>& ops, const std::string& prefix, double channels, double map_elements,
                                 double squeeze, double inner_flops_per_element, std::uint32_t repeat) {
  const double C = channels, S = squeeze, map = channels * map_elements;
  ops.push_back(make_op(prefix + "se_avgpool", OpKind::reduction, map, map, C, 0, repeat));
  ops.push_back(make_op(prefix + "se_fc1", OpKind::conv, 2 * C * S, C, S, C * S + S, repeat));
  ops.push_back(make_op(prefix + "se_act", OpKind::elementwise, inner_flops_per_element * S, S, S, 0, repeat));
  ops.push_back(make_op(prefix + "se_fc2", OpKind::conv, 2 * S * C, S, C, S * C + C, repeat));
  ops.push_back(make_op(prefix + "se_gate", OpKind::elementwise, 4 * C, C, C, 0, repeat));
  ops.push_back(make_op(prefix + "se_scale", OpKind::elementwise, map, map + C, map, 0, repeat));
  return 2 * C * S + S + C;
}

}  // namespace dsx
