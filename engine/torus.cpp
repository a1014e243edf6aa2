#include "engine/torus.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dsx {

namespace {

bool wraps(const TorusDimension& d) { return d.wraparound && d.chips >= 3; }

// The active dimensions (more than one chip) of `t`, in order.
struct Active {
  std::array<std::size_t, kMaxTorusDimensions> index{};
  std::size_t count = 0;
};

Active active_dimensions(const TorusTopology& t) {
  Active a;
  for (std::size_t d = 0; d < t.count; ++d) {
    if (t.dimensions[d].chips > 1) a.index[a.count++] = d;
  }
  return a;
}

// Reduce-scatter (equivalently all-gather) over the active dimensions, one part per dimension in a
// rotated order, parts in lockstep.
double multi_ring_s(double bytes, const TorusTopology& t, double alpha_s) {
  const Active a = active_dimensions(t);
  if (a.count == 0) return 0.0;
  const double part = bytes / static_cast<double>(a.count);
  double total = 0;
  for (std::size_t phase = 0; phase < a.count; ++phase) {
    double slowest = 0, steps = 0;
    for (std::size_t p = 0; p < a.count; ++p) {
      double shrink = 1;
      for (std::size_t q = 0; q < phase; ++q) shrink *= t.dimensions[a.index[(p + q) % a.count]].chips;
      const TorusDimension& d = t.dimensions[a.index[(p + phase) % a.count]];
      slowest = std::max(slowest, (d.chips - 1) / d.chips * part / shrink / torus_ring_bandwidth_bytes_per_s(d));
      steps = std::max(steps, d.chips - 1);
    }
    total += slowest + steps * alpha_s;
  }
  return total;
}

// Calls visit(block) for each block of `ranks` chips of `t` whose extent along each dimension divides
// t's and is a multiple of unit[d], in lexicographic order of the extents; a block wraps where it
// spans a wrapped dimension whole.
template <typename Visit>
void for_each_block(const TorusTopology& t, double ranks, const std::array<double, kMaxTorusDimensions>& unit,
                    Visit&& visit) {
  std::array<double, kMaxTorusDimensions> extent{};
  const auto step = [&](auto&& self, std::size_t d, double left) -> void {
    if (d == t.count) {
      if (left != 1) return;
      TorusTopology block = t;
      for (std::size_t i = 0; i < t.count; ++i) {
        block.dimensions[i].chips = extent[i];
        block.dimensions[i].wraparound = t.dimensions[i].wraparound && extent[i] == t.dimensions[i].chips;
      }
      visit(block);
      return;
    }
    const double chips = t.dimensions[d].chips;
    for (double e = unit[d]; e <= chips && e <= left; e += unit[d]) {
      if (std::fmod(chips, e) != 0 || std::fmod(left, e) != 0) continue;
      extent[d] = e;
      self(self, d + 1, left / e);
    }
  };
  step(step, 0, ranks);
}

}  // namespace

TorusTopology make_torus(const std::array<double, kMaxTorusDimensions>& chips, std::size_t count,
                         double link_bandwidth_bytes_per_s, bool wraparound) {
  TorusTopology t;
  t.count = std::min(count, kMaxTorusDimensions);
  for (std::size_t d = 0; d < t.count; ++d) {
    t.dimensions[d] = TorusDimension{chips[d], wraparound, link_bandwidth_bytes_per_s};
  }
  return t;
}

double torus_chips(const TorusTopology& t) {
  double n = 1;
  for (std::size_t d = 0; d < t.count; ++d) n *= t.dimensions[d].chips;
  return n;
}

double torus_ring_bandwidth_bytes_per_s(const TorusDimension& d) {
  if (d.chips <= 1) return 0.0;
  return (wraps(d) ? 2.0 : 1.0) * d.link_bandwidth_bytes_per_s;
}

double torus_bisection_bandwidth_bytes_per_s(const TorusTopology& t) {
  const double n = torus_chips(t);
  double least = std::numeric_limits<double>::infinity();
  for (std::size_t d = 0; d < t.count; ++d) {
    const TorusDimension& dim = t.dimensions[d];
    if (dim.chips <= 1) continue;
    least = std::min(least, n / dim.chips * (wraps(dim) ? 2.0 : 1.0) * dim.link_bandwidth_bytes_per_s);
  }
  return least;
}

double torus_reduce_scatter_s(double bytes, const TorusTopology& t, double alpha_s) {
  return multi_ring_s(bytes, t, alpha_s);
}

double torus_all_gather_s(double bytes, const TorusTopology& t, double alpha_s) {
  return multi_ring_s(bytes, t, alpha_s);
}

double torus_all_reduce_s(double bytes, const TorusTopology& t, double alpha_s) {
  return torus_reduce_scatter_s(bytes, t, alpha_s) + torus_all_gather_s(bytes, t, alpha_s);
}

double torus_all_to_all_s(double bytes_per_rank, const TorusTopology& t, double alpha_s) {
  const double n = torus_chips(t);
  if (n <= 1) return 0.0;
  double injection_bytes_per_s = 0;
  for (std::size_t d = 0; d < t.count; ++d) injection_bytes_per_s += torus_ring_bandwidth_bytes_per_s(t.dimensions[d]);
  double bound_s = (n - 1) / n * bytes_per_rank / injection_bytes_per_s;
  for (std::size_t d = 0; d < t.count; ++d) {
    const TorusDimension& dim = t.dimensions[d];
    if (dim.chips <= 1) continue;
    const double a = std::floor(dim.chips / 2) / dim.chips;
    const double cut_bytes_per_s = n / dim.chips * (wraps(dim) ? 2.0 : 1.0) * dim.link_bandwidth_bytes_per_s;
    bound_s = std::max(bound_s, n * a * (1 - a) * bytes_per_rank / cut_bytes_per_s);
  }
  return bound_s + (n - 1) * alpha_s;
}

double torus_broadcast_s(double bytes, const TorusTopology& t, double alpha_s) {
  const Active a = active_dimensions(t);
  if (a.count == 0) return 0.0;
  double tree_s = 0;
  for (std::size_t i = 0; i < a.count; ++i) {
    const TorusDimension& d = t.dimensions[a.index[i]];
    tree_s += std::ceil(std::log2(d.chips)) * bytes / d.link_bandwidth_bytes_per_s + (d.chips - 1) * alpha_s;
  }
  const double scatter_all_gather_s = torus_reduce_scatter_s(bytes, t, alpha_s) + torus_all_gather_s(bytes, t, alpha_s);
  return std::min(tree_s, scatter_all_gather_s);
}

double torus_reduce_s(double bytes, const TorusTopology& t, double alpha_s) { return torus_broadcast_s(bytes, t, alpha_s); }

double torus_send_recv_s(double bytes, const TorusTopology& t, double hops, double alpha_s) {
  double slowest = std::numeric_limits<double>::infinity();
  for (std::size_t d = 0; d < t.count; ++d) {
    if (t.dimensions[d].chips > 1) slowest = std::min(slowest, t.dimensions[d].link_bandwidth_bytes_per_s);
  }
  if (std::isinf(slowest)) return 0.0;
  return hops * alpha_s + bytes / slowest;
}

double torus_diameter_hops(const TorusTopology& t) {
  double hops = 0;
  for (std::size_t d = 0; d < t.count; ++d) {
    const TorusDimension& dim = t.dimensions[d];
    if (dim.chips > 1) hops += wraps(dim) ? std::floor(dim.chips / 2) : dim.chips - 1;
  }
  return hops;
}

double torus_hierarchical_broadcast_s(double bytes, double nodes, const TorusTopology& intra, const HierarchicalFabric& f) {
  const double chains_s = nodes > 1 ? bytes / f.gpus_per_node / inter_node_ring_bandwidth_bytes_per_s(f) +
                                          (nodes - 1) * f.inter_alpha_s
                                    : 0.0;
  return torus_reduce_scatter_s(bytes, intra, f.intra_alpha_s) + chains_s + torus_all_gather_s(bytes, intra, f.intra_alpha_s);
}

TorusTopology torus_group(const TorusTopology& t, double ranks) {
  if (ranks >= torus_chips(t)) return t;
  TorusTopology best;
  double best_s = std::numeric_limits<double>::infinity();
  std::array<double, kMaxTorusDimensions> unit{};
  unit.fill(1.0);
  for_each_block(t, ranks, unit, [&](const TorusTopology& block) {
    const double s = torus_all_reduce_s(1.0, block, 0.0);
    if (s < best_s) {
      best_s = s;
      best = block;
    }
  });
  if (best.count > 0) return best;
  TorusTopology line = t;
  for (std::size_t i = 0; i < t.count; ++i) line.dimensions[i].chips = 1;
  line.dimensions[0].chips = ranks;
  line.dimensions[0].wraparound = false;
  return line;
}

TorusTopology torus_peers(const TorusTopology& t, const TorusTopology& group) {
  TorusTopology peers = t;
  bool aligned = group.count == t.count;
  for (std::size_t d = 0; aligned && d < t.count; ++d) {
    const double e = group.dimensions[d].chips;
    if (std::fmod(t.dimensions[d].chips, e) != 0) {
      aligned = false;
      break;
    }
    peers.dimensions[d].chips = t.dimensions[d].chips / e;
    peers.dimensions[d].link_bandwidth_bytes_per_s = t.dimensions[d].link_bandwidth_bytes_per_s / e;
  }
  if (aligned) return peers;
  const double g = torus_chips(group);
  TorusTopology line = t;
  for (std::size_t i = 0; i < t.count; ++i) line.dimensions[i].chips = 1;
  line.dimensions[0] = TorusDimension{torus_chips(t) / g, false, t.dimensions[0].link_bandwidth_bytes_per_s / g};
  return line;
}

TorusTopology torus_strided_group(const TorusTopology& t, double stride, double ranks) {
  const TorusTopology block = torus_group(t, stride * ranks);
  return torus_peers(block, torus_group(block, stride));
}

double torus_block_hop_bandwidth_bytes_per_s(const TorusTopology& t, const TorusTopology& block) {
  const TorusTopology peers = torus_peers(t, block);
  double least = std::numeric_limits<double>::infinity();
  for (std::size_t d = 0; d < peers.count; ++d) {
    const TorusDimension& dim = peers.dimensions[d];
    if (dim.chips <= 1) continue;
    const bool two_faces = dim.chips == 2 && dim.wraparound && wraps(t.dimensions[d]);
    least = std::min(least, (two_faces ? 2.0 : 1.0) * dim.link_bandwidth_bytes_per_s);
  }
  return std::isinf(least) ? 0.0 : least;
}

double torus_block_hop_s(double bytes, const TorusTopology& t, double block_chips, double blocks, double alpha_s) {
  if (blocks <= 1) return 0.0;
  const TorusTopology block = torus_group(t, block_chips);
  double best_bytes_per_s = 0;
  if (block.count == t.count) {
    std::array<double, kMaxTorusDimensions> unit{};
    for (std::size_t d = 0; d < t.count; ++d) unit[d] = block.dimensions[d].chips;
    for_each_block(t, block_chips * blocks, unit, [&](const TorusTopology& group) {
      TorusTopology inner = block;
      for (std::size_t d = 0; d < t.count; ++d) {
        inner.dimensions[d].wraparound = group.dimensions[d].wraparound && inner.dimensions[d].chips == group.dimensions[d].chips;
      }
      best_bytes_per_s = std::max(best_bytes_per_s, torus_block_hop_bandwidth_bytes_per_s(group, inner));
    });
  }
  if (best_bytes_per_s == 0) {
    const TorusTopology group = torus_group(t, block_chips * blocks);
    best_bytes_per_s = torus_block_hop_bandwidth_bytes_per_s(group, torus_group(group, block_chips));
  }
  return point_to_point_s(bytes, best_bytes_per_s, alpha_s);
}

TorusTopology node_torus(double x, double y, double z, double chip_link_bandwidth_bytes_per_s) {
  std::array<double, kMaxTorusDimensions> chips{};
  std::size_t count = 0;
  for (const double d : {x, y, z}) {
    if (d > 0) chips[count++] = d;
  }
  if (count == 0) return TorusTopology{};
  return make_torus(chips, count, chip_link_bandwidth_bytes_per_s / (2.0 * static_cast<double>(count)));
}

double torus_hierarchical_all_reduce_s(double bytes, double nodes, const TorusTopology& intra, const HierarchicalFabric& f) {
  return torus_reduce_scatter_s(bytes, intra, f.intra_alpha_s) +
         ring_all_reduce_s(bytes / f.gpus_per_node, nodes, inter_node_ring_bandwidth_bytes_per_s(f), f.inter_alpha_s) +
         torus_all_gather_s(bytes, intra, f.intra_alpha_s);
}

double torus_product_reduce_scatter_s(double bytes, const TorusTopology& inner, const TorusTopology& outer,
                                      double alpha_s) {
  struct Ring {
    double chips = 1, bytes_per_s = 0;
    std::size_t dimension = 0;  // of the torus, whose links it crosses
  };
  std::array<Ring, 2 * kMaxTorusDimensions> rings{};
  std::size_t count = 0;
  for (const TorusTopology* group : {&inner, &outer}) {
    for (std::size_t d = 0; d < group->count; ++d) {
      const TorusDimension& dim = group->dimensions[d];
      if (dim.chips > 1) rings[count++] = Ring{dim.chips, torus_ring_bandwidth_bytes_per_s(dim), d};
    }
  }
  if (count == 0) return 0.0;
  const double part = bytes / static_cast<double>(count);
  double total = 0;
  for (std::size_t phase = 0; phase < count; ++phase) {
    std::array<double, kMaxTorusDimensions> link_s{};
    double steps = 0;
    for (std::size_t p = 0; p < count; ++p) {
      double shrink = 1;
      for (std::size_t q = 0; q < phase; ++q) shrink *= rings[(p + q) % count].chips;
      const Ring& r = rings[(p + phase) % count];
      link_s[r.dimension] += (r.chips - 1) / r.chips * part / shrink / r.bytes_per_s;
      steps = std::max(steps, r.chips - 1);
    }
    total += *std::max_element(link_s.begin(), link_s.end()) + steps * alpha_s;
  }
  // Rings that share a dimension's links may do better one group after the other.
  const double one_after_the_other =
      torus_reduce_scatter_s(bytes, inner, alpha_s) + torus_reduce_scatter_s(bytes / torus_chips(inner), outer, alpha_s);
  return std::min(total, one_after_the_other);
}

double torus_hierarchical_all_reduce_s(double bytes, double nodes, const TorusTopology& inner, const TorusTopology& outer,
                                       const HierarchicalFabric& f) {
  return 2.0 * torus_product_reduce_scatter_s(bytes, inner, outer, f.intra_alpha_s) +
         ring_all_reduce_s(bytes / f.gpus_per_node, nodes, inter_node_ring_bandwidth_bytes_per_s(f), f.inter_alpha_s);
}

double torus_hierarchical_reduce_scatter_s(double bytes, double nodes, const TorusTopology& intra,
                                           const HierarchicalFabric& f) {
  return torus_reduce_scatter_s(bytes, intra, f.intra_alpha_s) +
         reduce_scatter_s(bytes / f.gpus_per_node, nodes, inter_node_ring_bandwidth_bytes_per_s(f), f.inter_alpha_s);
}

double torus_hierarchical_all_gather_s(double bytes, double nodes, const TorusTopology& intra, const HierarchicalFabric& f) {
  return all_gather_s(bytes / f.gpus_per_node, nodes, inter_node_ring_bandwidth_bytes_per_s(f), f.inter_alpha_s) +
         torus_all_gather_s(bytes, intra, f.intra_alpha_s);
}

double torus_hierarchical_all_to_all_s(double bytes_per_rank, double nodes, const TorusTopology& intra,
                                       const HierarchicalFabric& f) {
  const double g = f.gpus_per_node, n = g * nodes;
  const double across_s = bytes_per_rank * (n - g) / n / inter_node_ring_bandwidth_bytes_per_s(f);
  const double within_s = torus_all_to_all_s(bytes_per_rank * g / n, intra, 0.0);
  return std::max(across_s, within_s) + (n - 1) * f.inter_alpha_s;
}

}  // namespace dsx
