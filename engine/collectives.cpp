#include "engine/collectives.hpp"

#include <algorithm>
#include <cmath>

namespace dsx {

double point_to_point_s(double bytes, double bandwidth_bytes_per_s, double alpha_s) {
  return alpha_s + bytes / bandwidth_bytes_per_s;
}

double ring_all_reduce_s(double bytes, double ranks, double bandwidth_bytes_per_s, double alpha_s) {
  if (ranks <= 1) return 0.0;
  return 2.0 * (ranks - 1.0) / ranks * bytes / bandwidth_bytes_per_s + 2.0 * (ranks - 1.0) * alpha_s;
}

double tree_all_reduce_s(double bytes, double ranks, double bandwidth_bytes_per_s, double alpha_s) {
  if (ranks <= 1) return 0.0;
  return 2.0 * std::ceil(std::log2(ranks)) * (alpha_s + bytes / bandwidth_bytes_per_s);
}

double reduce_scatter_s(double bytes, double ranks, double bandwidth_bytes_per_s, double alpha_s) {
  if (ranks <= 1) return 0.0;
  return (ranks - 1.0) / ranks * bytes / bandwidth_bytes_per_s + (ranks - 1.0) * alpha_s;
}

double all_gather_s(double bytes, double ranks, double bandwidth_bytes_per_s, double alpha_s) {
  return reduce_scatter_s(bytes, ranks, bandwidth_bytes_per_s, alpha_s);
}

double all_to_all_s(double bytes_per_rank, double ranks, double bandwidth_bytes_per_s, double alpha_s) {
  return reduce_scatter_s(bytes_per_rank, ranks, bandwidth_bytes_per_s, alpha_s);
}

double inter_node_ring_bandwidth_bytes_per_s(const HierarchicalFabric& f) {
  return f.nics_per_node * f.nic_bandwidth_bytes_per_s / f.gpus_per_node / f.oversubscription;
}

double hierarchical_all_reduce_s(double bytes, double nodes, const HierarchicalFabric& f) {
  const double g = f.gpus_per_node;
  return reduce_scatter_s(bytes, g, f.intra_bandwidth_bytes_per_s, f.intra_alpha_s) +
         ring_all_reduce_s(bytes / g, nodes, inter_node_ring_bandwidth_bytes_per_s(f), f.inter_alpha_s) +
         all_gather_s(bytes, g, f.intra_bandwidth_bytes_per_s, f.intra_alpha_s);
}

double cross_pod_all_reduce_s(double in_pod_all_reduce_s, double bytes, double ranks_in_pod, double pods,
                              double dcn_bandwidth_bytes_per_s, double dcn_alpha_s) {
  return in_pod_all_reduce_s + ring_all_reduce_s(bytes / ranks_in_pod, pods, dcn_bandwidth_bytes_per_s, dcn_alpha_s);
}

double hierarchical_all_to_all_s(double bytes_per_rank, std::span<const AllToAllTier> tiers,
                                 const TokenRouting& routing) {
  double across_nodes_share = 1;
  if (routing.max_nodes_per_token > 0) {
    double nodes = 1;
    for (const AllToAllTier& tier : tiers) nodes *= tier.inside_node ? 1.0 : tier.ranks;
    const double copies = std::min({routing.experts_per_token, routing.max_nodes_per_token, nodes});
    across_nodes_share = copies / routing.experts_per_token;
  }
  double total_s = 0;
  for (const AllToAllTier& tier : tiers) {
    const double bytes = tier.inside_node ? bytes_per_rank : bytes_per_rank * across_nodes_share;
    total_s += all_to_all_s(bytes, tier.ranks, tier.bandwidth_bytes_per_s, tier.alpha_s);
  }
  return total_s;
}

}  // namespace dsx
