#include "engine/solvers/collectives.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "engine/collectives.hpp"
#include "engine/solvers/torus_params.hpp"
#include "engine/torus.hpp"

namespace dsx {

namespace {

enum Operation : std::size_t { all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, reduce, send_recv };
constexpr std::array<std::string_view, 7> kOperations = {"all_reduce", "all_gather", "reduce_scatter", "all_to_all",
                                                         "broadcast",  "reduce",     "send_recv"};
enum Algorithm : std::size_t { automatic, ring, tree };
constexpr std::array<std::string_view, 3> kAlgorithms = {"auto", "ring", "tree"};

constexpr std::array<ParamSpec, CollectivesSolver::kParamCount> kParams = {{
    {.name = "hardware", .kind = ParamKind::hardware,
     .description = "accelerator (catalog id): its accelerator link (else host link) is the in-node link"},
    {.name = "operation", .kind = ParamKind::choice, .choices = kOperations,
     .description = "all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, reduce or send_recv",
     .has_default = true, .default_value = 0},
    {.name = "message", .kind = ParamKind::number, .dimension = Dimension::bytes,
     .description = "size S as nccl-tests prints it (all-gather, reduce-scatter: the whole gathered buffer)",
     .min_value = 0, .max_value = 1e15, .min_exclusive = true},
    {.name = "ranks", .kind = ParamKind::number, .dimension = Dimension::count, .description = "GPUs taking part",
     .min_value = 2, .max_value = 1e7, .integer = true},
    {.name = "ranks_per_node", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "GPUs of one node among them; 0 = all (one node)", .has_default = true, .default_value = 0,
     .min_value = 0, .max_value = 1e4, .integer = true},
    {.name = "intra_bandwidth", .kind = ParamKind::number, .dimension = Dimension::bandwidth,
     .description = "one-way bandwidth per GPU inside a node; 0 = the hardware's accelerator link (else host link)",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1e15},
    {.name = "intra_latency", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "alpha of one step inside a node (default 0.5 µs: mlsysim catalog NVLink latency)",
     .has_default = true, .default_value = kNvlinkAlphaS, .min_value = 0, .max_value = 1},
    {.name = "fabric_bandwidth", .kind = ParamKind::number, .dimension = Dimension::bandwidth,
     .description = "one-way bandwidth of one GPU's fabric port between nodes (a fabric bundle sets it); 0 = none",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 1e15},
    {.name = "fabric_latency", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "alpha of one step between nodes (default 5 µs: mlsysim catalog InfiniBand NDR)",
     .has_default = true, .default_value = kFabricAlphaS, .min_value = 0, .max_value = 1},
    {.name = "algorithm", .kind = ParamKind::choice, .choices = kAlgorithms,
     .description = "all-reduce inside a node: ring, binomial tree, or auto (the faster)", .has_default = true,
     .default_value = 0},
    {.name = "bus_efficiency", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "fraction of the one-way link bandwidth a large message achieves (default 1; calibrated)",
     .has_default = true, .default_value = 1, .min_value = 0, .max_value = 2, .min_exclusive = true},
    torus_param("torus_x"),
    torus_param("torus_y"),
    torus_param("torus_z"),
    {.name = "hops", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "send_recv on a torus node: neighbour hops between the two chips (default 1; at most the "
                    "torus's diameter); 1 elsewhere",
     .has_default = true, .default_value = 1, .min_value = 1, .max_value = 3072, .integer = true},
}};

constexpr std::array<MetricSpec, CollectivesSolver::kMetricCount> kMetrics = {{
    {"time_s", Dimension::time, "time of one operation"},
    {"algorithm_bandwidth_bytes_per_s", Dimension::bandwidth, "message / time_s (nccl-tests algbw)"},
    {"bus_bandwidth_bytes_per_s", Dimension::bandwidth, "algbw x bus_factor (nccl-tests busbw)"},
    {"bus_factor", Dimension::dimensionless, "2(n-1)/n all-reduce; (n-1)/n reduce-scatter, all-gather, all-to-all; 1 others"},
    {"link_bandwidth_bytes_per_s", Dimension::bandwidth, "one-way bandwidth of the slowest link used, x bus_efficiency"},
    {"tree_chosen", Dimension::dimensionless, "1 when the all-reduce ran as a tree, else 0"},
}};

constexpr std::array<std::string_view, 6> kReasons = {
    "ranks_per_node must divide ranks",
    "a collective over several nodes needs fabric_bandwidth (or a fabric bundle)",
    "the hardware entry gives no accelerator or host link",
    "ranks_per_node (or ranks, on one node) exceeds the chips of the node's torus",
    "hops other than 1 applies to send_recv inside one torus node only",
    "hops exceeds the diameter of the node's torus",
};

}  // namespace

CollectivesSolver::CollectivesSolver()
    : TabledSolver("collectives", "one collective (all-reduce, all-gather, ...): time, algorithm and bus bandwidth",
                   kParams, kMetrics, kReasons) {}

PointResult CollectivesSolver::evaluate(const PointInputs& in, std::span<double> out) const {
  std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
  const HardwareSpec& hw = *in.hardware;
  const auto& v = in.values;
  const auto op = static_cast<Operation>(static_cast<std::size_t>(v[Param::operation]));
  const double S = v[Param::message], n = v[Param::ranks];
  const double g = v[Param::ranks_per_node] > 0 ? std::min(v[Param::ranks_per_node], n) : n;
  if (std::fmod(n, g) != 0) return {PointStatus::infeasible, ranks_per_node_must_divide};
  const double eff = v[Param::bus_efficiency];
  const double node_link = v[Param::intra_bandwidth] > 0 ? v[Param::intra_bandwidth]
                           : hw.accelerator_link_bandwidth_bytes_per_s > 0 ? hw.accelerator_link_bandwidth_bytes_per_s
                                                                           : hw.host_link_bandwidth_bytes_per_s;
  if (!(node_link > 0) && g > 1) return {PointStatus::infeasible, needs_link};
  const double intra = node_link * eff, alpha_in = v[Param::intra_latency];
  const bool multi_node = g < n;
  if (multi_node && !(v[Param::fabric_bandwidth] > 0)) return {PointStatus::infeasible, needs_fabric};
  const double fabric = v[Param::fabric_bandwidth] * eff, alpha_out = v[Param::fabric_latency];
  const double slowest = multi_node ? (g > 1 ? std::min(intra, fabric) : fabric) : intra;
  const double alpha = multi_node ? alpha_out : alpha_in;
  const TorusTopology torus = node_torus(v[Param::torus_x], v[Param::torus_y], v[Param::torus_z], intra);
  const bool on_torus = torus.count > 0;
  if (on_torus && g > torus_chips(torus)) return {PointStatus::infeasible, exceeds_torus};
  const TorusTopology group = on_torus ? torus_group(torus, g) : TorusTopology{};
  const double hop_count = std::max(1.0, v[Param::hops]);  // 0 from inputs built without the parameter
  if (hop_count != 1 && (op != send_recv || !on_torus || multi_node)) return {PointStatus::infeasible, hops_need_torus_send_recv};
  if (on_torus && hop_count > torus_diameter_hops(torus)) return {PointStatus::infeasible, hops_exceed_diameter};
  // Nodes of g ranks, one NIC each; a torus node's in-node phase runs on its torus instead.
  HierarchicalFabric nodes;
  nodes.gpus_per_node = g;
  nodes.intra_bandwidth_bytes_per_s = intra;
  nodes.intra_alpha_s = alpha_in;
  nodes.nic_bandwidth_bytes_per_s = fabric;
  nodes.nics_per_node = g;
  nodes.inter_alpha_s = alpha_out;
  double t = 0;
  bool tree_used = false;
  switch (op) {
    case all_reduce:
      if (on_torus) {
        t = multi_node ? torus_hierarchical_all_reduce_s(S, n / g, group, nodes) : torus_all_reduce_s(S, group, alpha_in);
      } else if (multi_node) {
        t = hierarchical_all_reduce_s(S, n / g, nodes);
      } else {
        const double by_ring = ring_all_reduce_s(S, n, intra, alpha_in);
        const double by_tree = tree_all_reduce_s(S, n, intra, alpha_in);
        const auto choice = static_cast<Algorithm>(static_cast<std::size_t>(v[Param::algorithm]));
        tree_used = choice == tree || (choice == automatic && by_tree < by_ring);
        t = tree_used ? by_tree : by_ring;
      }
      break;
    case all_gather:
      t = !on_torus     ? all_gather_s(S, n, slowest, alpha)
          : multi_node ? torus_hierarchical_all_gather_s(S, n / g, group, nodes)
                       : torus_all_gather_s(S, group, alpha_in);
      break;
    case reduce_scatter:
      t = !on_torus     ? reduce_scatter_s(S, n, slowest, alpha)
          : multi_node ? torus_hierarchical_reduce_scatter_s(S, n / g, group, nodes)
                       : torus_reduce_scatter_s(S, group, alpha_in);
      break;
    case all_to_all:
      if (on_torus) {
        t = multi_node ? torus_hierarchical_all_to_all_s(S, n / g, group, nodes) : torus_all_to_all_s(S, group, alpha_in);
      } else if (multi_node) {
        const double across = S * (n - g) / n / fabric, within = g > 1 ? S * (g - 1) / n / intra : 0.0;
        t = std::max(across, within) + (n - 1) * alpha_out;
      } else {
        t = all_to_all_s(S, n, intra, alpha_in);
      }
      break;
    case broadcast:
    case reduce:
      t = !on_torus     ? S / slowest + (n - 1) * alpha
          : multi_node ? torus_hierarchical_broadcast_s(S, n / g, group, nodes)
          : op == broadcast ? torus_broadcast_s(S, group, alpha_in)
                            : torus_reduce_s(S, group, alpha_in);
      break;
    case send_recv:
      t = on_torus && !multi_node ? torus_send_recv_s(S, torus, hop_count, alpha_in)
                                  : point_to_point_s(S, multi_node ? fabric : intra, alpha);
      break;
  }
  const double factor = op == all_reduce                                                   ? 2 * (n - 1) / n
                        : op == all_gather || op == reduce_scatter || op == all_to_all ? (n - 1) / n
                                                                                       : 1.0;
  out[time_s] = t;
  out[algorithm_bandwidth_bytes_per_s] = S / t;
  out[bus_bandwidth_bytes_per_s] = S / t * factor;
  out[bus_factor] = factor;
  const double torus_link = torus.dimensions[0].link_bandwidth_bytes_per_s;
  out[link_bandwidth_bytes_per_s] = !on_torus     ? slowest
                                    : !multi_node ? torus_link
                                    : g > 1       ? std::min(torus_link, fabric)
                                                  : fabric;
  out[tree_chosen] = tree_used ? 1.0 : 0.0;
  return {};
}

}  // namespace dsx
