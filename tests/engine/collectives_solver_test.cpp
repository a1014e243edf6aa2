// The collectives solver: nccl-tests' bus bandwidth convention on the alpha-beta costs of
// engine/collectives.hpp, inside one node and over several.
#include "engine/solvers/collectives.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "engine/collectives.hpp"
#include "tests/engine/published_specs.hpp"

namespace dsx {
namespace {

using C = CollectivesSolver;

struct Out {
  std::vector<double> m = std::vector<double>(C::kMetricCount);
  PointResult r;
};

Out run(double op, double bytes, double ranks, double per_node = 0, double fabric = 0, double algorithm = 0) {
  static const HardwareSpec hw = published::h100_sxm();  // NVLink 4: 450 GB/s one-way
  PointInputs in;
  in.hardware = &hw;
  in.values[C::operation] = op;
  in.values[C::message] = bytes;
  in.values[C::ranks] = ranks;
  in.values[C::ranks_per_node] = per_node;
  in.values[C::intra_bandwidth] = 0;
  in.values[C::intra_latency] = 0.5e-6;
  in.values[C::fabric_bandwidth] = fabric;
  in.values[C::fabric_latency] = 5e-6;
  in.values[C::algorithm] = algorithm;
  in.values[C::bus_efficiency] = 1;
  Out o;
  o.r = CollectivesSolver().evaluate(in, o.m);
  return o;
}

TEST(CollectivesSolver, ALargeRingAllReduceHasTheLinkAsBusBandwidth) {
  // 8 GiB over 8 GPUs: t = 2 x 7/8 x 8 GiB / 450 GB/s + 14 x 0.5 us = 33.4123 ms; algbw = S / t =
  // 257.09 GB/s; busbw = algbw x 2 x 7/8 = 449.9 GB/s, the one-way NVLink bandwidth.
  const double S = 8.0 * 1024 * 1024 * 1024;
  const Out o = run(0, S, 8);
  ASSERT_EQ(o.r.status, PointStatus::ok);
  EXPECT_NEAR(o.m[C::time_s], 1.75 * S / 450e9 + 14 * 0.5e-6, 1e-12);
  EXPECT_DOUBLE_EQ(o.m[C::bus_factor], 1.75);
  EXPECT_NEAR(o.m[C::bus_bandwidth_bytes_per_s], 450e9, 450e9 * 1e-3);
  EXPECT_DOUBLE_EQ(o.m[C::tree_chosen], 0);
}

TEST(CollectivesSolver, ATinyAllReduceGoesByTree) {
  // 8 B: ring 14 x 0.5 us = 7 us; tree 2 x ceil(log2 8) x (0.5 us + 8 B / 450 GB/s) = 3.0 us.
  const Out o = run(0, 8, 8);
  EXPECT_DOUBLE_EQ(o.m[C::tree_chosen], 1);
  EXPECT_NEAR(o.m[C::time_s], 6 * (0.5e-6 + 8 / 450e9), 1e-15);
}

TEST(CollectivesSolver, AllGatherAndBroadcastUseTheirOwnFactors) {
  const double S = 1e9;
  const Out ag = run(1, S, 8);
  EXPECT_NEAR(ag.m[C::time_s], 7.0 / 8 * S / 450e9 + 7 * 0.5e-6, 1e-15);
  EXPECT_DOUBLE_EQ(ag.m[C::bus_factor], 7.0 / 8);
  const Out bc = run(4, S, 8);
  EXPECT_NEAR(bc.m[C::time_s], S / 450e9 + 7 * 0.5e-6, 1e-15);
  EXPECT_DOUBLE_EQ(bc.m[C::bus_factor], 1);
}

TEST(CollectivesSolver, AcrossNodesTheAllReduceIsHierarchical) {
  // 16 GPUs in 2 nodes of 8, 50 GB/s fabric ports: the engine's hierarchical all-reduce.
  const Out o = run(0, 1e9, 16, 8, 50e9);
  ASSERT_EQ(o.r.status, PointStatus::ok);
  HierarchicalFabric f;
  f.gpus_per_node = 8;
  f.intra_bandwidth_bytes_per_s = 450e9;
  f.intra_alpha_s = 0.5e-6;
  f.nic_bandwidth_bytes_per_s = 50e9;
  f.nics_per_node = 8;
  f.inter_alpha_s = 5e-6;
  EXPECT_DOUBLE_EQ(o.m[C::time_s], hierarchical_all_reduce_s(1e9, 2, f));
}

TEST(CollectivesSolver, ImpossibleLayoutsAreInfeasible) {
  EXPECT_EQ(run(0, 1e6, 12, 8, 50e9).r.reason, C::ranks_per_node_must_divide);
  EXPECT_EQ(run(0, 1e6, 16, 8, 0).r.reason, C::needs_fabric);
}

}  // namespace
}  // namespace dsx

namespace dsx {
namespace {

// A 4 x 4 torus node of H100-class chips (450 GB/s one way per chip, over 4 links: 112.5 GB/s each).
Out on_torus(double op, double bytes, double ranks, double per_node = 0) {
  static const HardwareSpec hw = published::h100_sxm();
  PointInputs in;
  in.hardware = &hw;
  in.values[C::operation] = op;
  in.values[C::message] = bytes;
  in.values[C::ranks] = ranks;
  in.values[C::ranks_per_node] = per_node;
  in.values[C::intra_latency] = 0.5e-6;
  in.values[C::fabric_latency] = 5e-6;
  in.values[C::bus_efficiency] = 1;
  in.values[C::torus_x] = 4;
  in.values[C::torus_y] = 4;
  Out o;
  o.r = CollectivesSolver().evaluate(in, o.m);
  return o;
}

TEST(CollectivesSolver, OnATorusNodeTheAllReduceIsTheTwoDimensionalRing) {
  // Two dimensions of 4 wrapped, 2 x 112.5 GB/s each: reduce-scatter 15/16 S / 450 GB/s in 2 phases
  // of 3 hops; the all-reduce twice that.
  const double S = 1e9;
  const Out o = on_torus(0, S, 16);
  ASSERT_EQ(o.r.status, PointStatus::ok);
  EXPECT_NEAR(o.m[C::time_s], 2 * 15.0 / 16 * S / 450e9 + 12 * 0.5e-6, 1e-12);
  EXPECT_DOUBLE_EQ(o.m[C::link_bandwidth_bytes_per_s], 112.5e9);
  EXPECT_DOUBLE_EQ(o.m[C::tree_chosen], 0);
}

TEST(CollectivesSolver, OnATorusNodeTheAllToAllIsBoundByTheBisection) {
  // A cut of the 4 x 4 torus has 2 x 4 links of 112.5 GB/s (900 GB/s); 16 x S / 4 bytes cross it.
  const double S = 1e8;
  const Out o = on_torus(3, S, 16);
  ASSERT_EQ(o.r.status, PointStatus::ok);
  EXPECT_NEAR(o.m[C::time_s], 4 * S / 900e9 + 15 * 0.5e-6, 1e-12);
  EXPECT_GT(o.m[C::time_s], run(3, S, 16).m[C::time_s]);
  EXPECT_EQ(on_torus(3, S, 32, 32).r.status, PointStatus::infeasible);
}

}  // namespace
}  // namespace dsx
