// The collectives solver over several torus nodes (pod slices joined by a data-center network):
// all-gather, reduce-scatter and all-to-all hierarchical with the torus inside (engine/solvers/
// collectives.hpp), against hand calculations and Google's published TPU pod figures (Google Cloud
// TPU documentation, "TPU v6e" and "TPU v5e": 256 chips in a 2D torus, 800 / 400 GBps bidirectional
// ICI per chip over 4 ports; all-reduce bandwidth per pod 102.4 / 51.2 TB/s, bisection bandwidth per
// pod 3.2 / 1.6 TB/s; v5e data-center network 6.4 Tbps per pod, 25 Gb/s per chip).
#include <gtest/gtest.h>

#include <vector>

#include "engine/collectives.hpp"
#include "engine/solvers/collectives.hpp"

namespace dsx {
namespace {

using C = CollectivesSolver;
enum Op { all_reduce = 0, all_gather = 1, reduce_scatter = 2, all_to_all = 3 };

struct Out {
  std::vector<double> m = std::vector<double>(C::kMetricCount);
  PointResult r;
};

// A 16 x 16 pod of chips with `chip_link` one way per chip, `ranks` over pods of `per_node`.
Out pods(double chip_link, double op, double bytes, double ranks, double per_node, double fabric, double x = 16,
         double y = 16) {
  HardwareSpec hw;
  hw.accelerator_link_bandwidth_bytes_per_s = chip_link;
  PointInputs in;
  in.hardware = &hw;
  in.values[C::operation] = op;
  in.values[C::message] = bytes;
  in.values[C::ranks] = ranks;
  in.values[C::ranks_per_node] = per_node;
  in.values[C::intra_bandwidth] = 0;
  in.values[C::intra_latency] = 0;
  in.values[C::fabric_bandwidth] = fabric;
  in.values[C::fabric_latency] = 0;
  in.values[C::algorithm] = 0;
  in.values[C::bus_efficiency] = 1;
  in.values[C::torus_x] = x;
  in.values[C::torus_y] = y;
  in.values[C::torus_z] = 0;
  Out o;
  o.r = C().evaluate(in, o.m);
  return o;
}

constexpr double kV6e = 400e9, kV5e = 200e9;  // one way per chip
constexpr double kV5eDcn = 25e9 / 8;          // 25 Gb/s per chip

// Two v5e pods: the all-gather gathers S / 256 per chip over the 2 pods' data-center network (one
// step of S / 512 at 25 Gb/s), then S over the pod at half its all-reduce bandwidth: 255/256 S over
// 200 GB/s per chip, i.e. 256 x (255/256) S / t = 51.2 TB/s / 2.
TEST(CollectivesTorusNodes, AllGatherOverTwoV5ePods) {
  const double S = 1e10;
  const Out o = pods(kV5e, all_gather, S, 512, 256, kV5eDcn);
  ASSERT_EQ(o.r.status, PointStatus::ok);
  const double dcn_s = S / 512 / kV5eDcn;
  const double pod_s = 255.0 / 256 * S / kV5e;
  EXPECT_NEAR(o.m[C::time_s], dcn_s + pod_s, 1e-12 * (dcn_s + pod_s));
  EXPECT_NEAR(256 * 2 * (255.0 / 256) * S / (2 * pod_s), 51.2e12, 1e3);
  EXPECT_DOUBLE_EQ(o.m[C::link_bandwidth_bytes_per_s], kV5eDcn);
}

// The reduce-scatter is the mirror image, and the two halves make the hierarchical all-reduce.
TEST(CollectivesTorusNodes, ReduceScatterAndAllGatherAddUpToTheAllReduce) {
  const double S = 3e9;
  const Out rs = pods(kV6e, reduce_scatter, S, 1024, 256, 50e9);
  const Out ag = pods(kV6e, all_gather, S, 1024, 256, 50e9);
  const Out ar = pods(kV6e, all_reduce, S, 1024, 256, 50e9);
  ASSERT_EQ(rs.r.status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(rs.m[C::time_s], ag.m[C::time_s]);
  EXPECT_NEAR(rs.m[C::time_s] + ag.m[C::time_s], ar.m[C::time_s], 1e-12 * ar.m[C::time_s]);
  // Four pods, rings of S / 256 per chip at 50 GB/s: 3/4 S / 256 / 50 GB/s, plus 255/256 S / 400 GB/s.
  EXPECT_NEAR(rs.m[C::time_s], 0.75 * S / 256 / 50e9 + 255.0 / 256 * S / kV6e, 1e-15);
  EXPECT_DOUBLE_EQ(rs.m[C::link_bandwidth_bytes_per_s], 50e9);  // the fabric, below a 100 GB/s ICI link
}

// Two v6e pods, each chip sending S in all: S / 2 leaves the pod over the chip's fabric port while
// the pod carries an all-to-all of S / 2 per chip, whose 256 x S/8 bytes per direction cross the
// pod's 3.2 TB/s bisection. At 200 GB/s per port the bisection binds (S / 100 GB/s); at 25 Gb/s the
// data-center network does (S / 2 / 3.125 GB/s).
TEST(CollectivesTorusNodes, AllToAllOverTwoV6ePodsIsBoundByTheBisectionOrTheNetwork) {
  const double S = 1e8;
  const Out fast = pods(kV6e, all_to_all, S, 512, 256, 200e9);
  ASSERT_EQ(fast.r.status, PointStatus::ok);
  EXPECT_NEAR(fast.m[C::time_s], 256 * (S / 2) / 4 / 3.2e12, 1e-15);
  EXPECT_NEAR(fast.m[C::time_s], S / 100e9, 1e-15);
  const Out slow = pods(kV6e, all_to_all, S, 512, 256, kV5eDcn);
  EXPECT_NEAR(slow.m[C::time_s], S / 2 / kV5eDcn, 1e-12);
}

// 4 x 4 pods, 2 of them, 4 ranks per pod on a block of 4 (a 400 GB/s chip's 4 links at 100 GB/s):
// a row spanning a wrapped dimension, 3/4 S over 2 x 100 GB/s, as fast as a 2 x 2 block without
// wraparound (S/2 x 1/2 + S/2 x 1/2 x 1/2 over 100 GB/s in two lockstep phases), so the first of
// them; the network part 1/2 x S / 4 over 10 GB/s.
TEST(CollectivesTorusNodes, APartOfAPodIsItsBlock) {
  const double S = 1e9;
  const Out o = pods(400e9, all_gather, S, 8, 4, 10e9, 4, 4);
  ASSERT_EQ(o.r.status, PointStatus::ok);
  EXPECT_NEAR(o.m[C::time_s], 0.5 * S / 4 / 10e9 + (0.25 + 0.125) * S / 100e9, 1e-15);
}

// A switched node (no torus) keeps the flat ring at its slowest hop: 15/16 S over the fabric.
TEST(CollectivesTorusNodes, SwitchedNodesKeepTheFlatRing) {
  const double S = 1e9;
  const Out o = pods(450e9, all_gather, S, 16, 8, 50e9, 0, 0);
  ASSERT_EQ(o.r.status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(o.m[C::time_s], all_gather_s(S, 16, 50e9, 0));
}

}  // namespace
}  // namespace dsx
