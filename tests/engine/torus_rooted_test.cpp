// Broadcast, reduce and send/recv on a torus (engine/torus.hpp; Chan, Heimlich, Purkayastha and van
// de Geijn, CCPE 2007, doi:10.1002/cpe.1206: the MST broadcast for short vectors, scatter + all-gather
// for long ones; Dally and Towles 2004: a cut-through message of L bytes over H hops costs
// H t_r + L / b), engine functions and the collectives solver, against hand calculations on a
// v6e-sized pod (16 x 16 chips, 400 GB/s one way per chip over 4 ports: 100 GB/s per link).
#include <gtest/gtest.h>

#include <vector>

#include "engine/solvers/collectives.hpp"
#include "engine/torus.hpp"

namespace dsx {
namespace {

using C = CollectivesSolver;
enum Op { broadcast = 4, reduce = 5, send_recv = 6 };

constexpr double kChipLink = 400e9, kLink = 100e9;

struct Out {
  std::vector<double> m = std::vector<double>(C::kMetricCount);
  PointResult r;
};

Out solve(double op, double bytes, double ranks, double per_node, double alpha, double hops = 1, double x = 16,
          double y = 16, double fabric = 0) {
  HardwareSpec hw;
  hw.accelerator_link_bandwidth_bytes_per_s = kChipLink;
  PointInputs in;
  in.hardware = &hw;
  in.values[C::operation] = op;
  in.values[C::message] = bytes;
  in.values[C::ranks] = ranks;
  in.values[C::ranks_per_node] = per_node;
  in.values[C::intra_latency] = alpha;
  in.values[C::fabric_bandwidth] = fabric;
  in.values[C::fabric_latency] = 0;
  in.values[C::bus_efficiency] = 1;
  in.values[C::torus_x] = x;
  in.values[C::torus_y] = y;
  in.values[C::hops] = hops;
  Out o;
  o.r = C().evaluate(in, o.m);
  return o;
}

// A large broadcast over the pod: scatter + all-gather, each 255/256 S over the chip's four links at
// once (2 x 2 x 100 GB/s), against the MST's 2 dimensions x 4 binomial steps of S over one link.
TEST(TorusRooted, LargeBroadcastIsScatterThenAllGather) {
  const double S = 1e9;
  const Out o = solve(broadcast, S, 256, 0, 0);
  ASSERT_EQ(o.r.status, PointStatus::ok);
  const double long_vector_s = 2 * 255.0 / 256 * S / 400e9;
  EXPECT_NEAR(o.m[C::time_s], long_vector_s, 1e-15);
  EXPECT_LT(long_vector_s, 2 * 4 * S / kLink);
  EXPECT_DOUBLE_EQ(o.m[C::bus_factor], 1.0);
  // Reduce is broadcast's dual at the same cost.
  EXPECT_DOUBLE_EQ(solve(reduce, S, 256, 0, 0).m[C::time_s], o.m[C::time_s]);
}

// A 1 kB broadcast with 1 us per hop: the tree, 2 x (4 x 1 kB / 100 GB/s + 15 us), beats scatter +
// all-gather's 2 x 2 x 15 hops.
TEST(TorusRooted, SmallBroadcastIsTheSpanningTree) {
  const double S = 1e3, alpha = 1e-6;
  const Out o = solve(broadcast, S, 256, 0, alpha);
  ASSERT_EQ(o.r.status, PointStatus::ok);
  EXPECT_NEAR(o.m[C::time_s], 2 * (4 * S / kLink + 15 * alpha), 1e-15);
  const TorusTopology pod = node_torus(16, 16, 0, kChipLink);
  EXPECT_NEAR(torus_reduce_scatter_s(S, pod, alpha) + torus_all_gather_s(S, pod, alpha),
              2 * (255.0 / 256 * S / 400e9 + 30 * alpha), 1e-15);
}

// A line of 4 chips without wraparound, 50 GB/s links: the rings run one way, scatter + all-gather
// 2 x 3/4 S / B; the tree's 2 steps of S / B lose.
TEST(TorusRooted, BroadcastOnALine) {
  const TorusTopology line = make_torus({4, 1, 1}, 1, 50e9, false);
  EXPECT_NEAR(torus_broadcast_s(8e9, line, 0), 1.5 * 8e9 / 50e9, 1e-12);
  EXPECT_DOUBLE_EQ(torus_diameter_hops(line), 3);
}

// Send/recv between chips 5 hops apart: 5 alpha + S / one link; the pod's diameter is 8 + 8 hops.
TEST(TorusRooted, SendRecvPaysEachHop) {
  const double S = 1e9, alpha = 1e-6;
  const Out o = solve(send_recv, S, 2, 0, alpha, 5);
  ASSERT_EQ(o.r.status, PointStatus::ok);
  EXPECT_NEAR(o.m[C::time_s], 5 * alpha + S / kLink, 1e-15);
  EXPECT_DOUBLE_EQ(o.m[C::link_bandwidth_bytes_per_s], kLink);
  EXPECT_EQ(solve(send_recv, S, 2, 0, alpha, 16).r.status, PointStatus::ok);
  const Out far = solve(send_recv, S, 2, 0, alpha, 17);
  EXPECT_EQ(far.r.status, PointStatus::infeasible);
  EXPECT_EQ(far.r.reason, C::hops_exceed_diameter);
}

// `hops` means nothing on a switched node, between nodes, or for the other operations.
TEST(TorusRooted, HopsOnlyForSendRecvInsideATorus) {
  EXPECT_EQ(solve(send_recv, 1e6, 2, 0, 0, 2, 0, 0).r.reason, C::hops_need_torus_send_recv);
  EXPECT_EQ(solve(broadcast, 1e6, 256, 0, 0, 2).r.reason, C::hops_need_torus_send_recv);
  const Out across = solve(send_recv, 1e6, 512, 256, 0, 2, 16, 16, 3.125e9);
  EXPECT_EQ(across.r.status, PointStatus::infeasible);
  EXPECT_EQ(across.r.reason, C::hops_need_torus_send_recv);
  // On a switched node send/recv stays alpha + S / the accelerator link.
  const Out switched = solve(send_recv, 1e9, 2, 0, 1e-6, 1, 0, 0);
  EXPECT_NEAR(switched.m[C::time_s], 1e-6 + 1e9 / kChipLink, 1e-15);
}

// Two v5e pods (200 GB/s per chip, 50 GB/s per link; 25 Gb/s of data-center network per chip):
// scatter on the root's pod (255/256 S over 200 GB/s), 256 chains of S / 256 at 3.125 GB/s, the
// all-gather on each pod.
TEST(TorusRooted, BroadcastOverTwoPods) {
  HardwareSpec hw;
  const double S = 1e10, dcn = 25e9 / 8;
  const TorusTopology pod = node_torus(16, 16, 0, 200e9);
  HierarchicalFabric f;
  f.gpus_per_node = 256;
  f.nics_per_node = 256;
  f.nic_bandwidth_bytes_per_s = dcn;
  const double expected = 2 * 255.0 / 256 * S / 200e9 + S / 256 / dcn;
  EXPECT_NEAR(torus_hierarchical_broadcast_s(S, 2, pod, f), expected, 1e-12);
  hw.accelerator_link_bandwidth_bytes_per_s = 200e9;
  PointInputs in;
  in.hardware = &hw;
  in.values[C::operation] = broadcast;
  in.values[C::message] = S;
  in.values[C::ranks] = 512;
  in.values[C::ranks_per_node] = 256;
  in.values[C::fabric_bandwidth] = dcn;
  in.values[C::bus_efficiency] = 1;
  in.values[C::torus_x] = 16;
  in.values[C::torus_y] = 16;
  std::vector<double> m(C::kMetricCount);
  ASSERT_EQ(C().evaluate(in, m).status, PointStatus::ok);
  EXPECT_NEAR(m[C::time_s], expected, 1e-12);
}

}  // namespace
}  // namespace dsx
