#include "engine/collectives.hpp"

#include <gtest/gtest.h>

namespace dsx {
namespace {

// Issue 4 check: ring all-reduce = 2 (N-1)/N x S / B + 2 (N-1) alpha. 1 GB over 8 GPUs on H100
// NVLink one-way 450 GB/s with alpha = 0.5 us: 1.75 x 1e9 / 450e9 + 14 x 0.5e-6.
TEST(Collectives, RingAllReduceHandCalculation) {
  EXPECT_NEAR(ring_all_reduce_s(1e9, 8, 450e9, 0.5e-6), 1.75 / 450.0 + 7e-6, 1e-15);
  EXPECT_NEAR(ring_all_reduce_s(1e9, 8, 450e9, 0.5e-6), 3.8959e-3, 1e-7);
  EXPECT_DOUBLE_EQ(ring_all_reduce_s(1e9, 1, 450e9, 0.5e-6), 0.0);
  // Feeding the bidirectional 900 GB/s would halve the bandwidth term (mlsysim 6.7).
  EXPECT_GT(ring_all_reduce_s(1e9, 8, 450e9, 0) / ring_all_reduce_s(1e9, 8, 900e9, 0), 1.999);
}

// Patarasuk & Yuan: ring all-reduce = reduce-scatter + all-gather.
TEST(Collectives, AllReduceIsReduceScatterPlusAllGather) {
  const double s = 3e8, n = 16, b = 50e9, a = 5e-6;
  EXPECT_NEAR(ring_all_reduce_s(s, n, b, a), reduce_scatter_s(s, n, b, a) + all_gather_s(s, n, b, a), 1e-15);
  EXPECT_NEAR(reduce_scatter_s(s, n, b, a), 15.0 / 16.0 * s / b + 15 * a, 1e-15);
  EXPECT_NEAR(all_to_all_s(s, n, b, a), 15.0 / 16.0 * s / b + 15 * a, 1e-15);
}

// The tree wins for small messages (latency), the ring for large ones (bandwidth).
TEST(Collectives, TreeVersusRingCrossover) {
  const double n = 64, b = 50e9, a = 5e-6;
  EXPECT_NEAR(tree_all_reduce_s(1e3, n, b, a), 12 * (a + 1e3 / b), 1e-15);
  EXPECT_LT(tree_all_reduce_s(1e3, n, b, a), ring_all_reduce_s(1e3, n, b, a));
  EXPECT_GT(tree_all_reduce_s(1e9, n, b, a), ring_all_reduce_s(1e9, n, b, a));
  EXPECT_NEAR(tree_all_reduce_s(1e3, 5, b, a), 6 * (a + 1e3 / b), 1e-15);  // ceil(log2 5) = 3
}

TEST(Collectives, HierarchicalBeatsFlatRingOverNics) {
  HierarchicalFabric f;
  f.gpus_per_node = 8;
  f.intra_bandwidth_bytes_per_s = 450e9;
  f.intra_alpha_s = 0.5e-6;
  f.nic_bandwidth_bytes_per_s = 50e9;  // IB NDR 400 Gb/s
  f.nics_per_node = 8;
  f.inter_alpha_s = 5e-6;
  EXPECT_DOUBLE_EQ(inter_node_ring_bandwidth_bytes_per_s(f), 50e9);
  const double s = 2e9, nodes = 16;
  const double expected = 2 * (7.0 / 8.0 * s / 450e9 + 7 * 0.5e-6) + ring_all_reduce_s(s / 8, nodes, 50e9, 5e-6);
  EXPECT_NEAR(hierarchical_all_reduce_s(s, nodes, f), expected, 1e-12);
  EXPECT_LT(hierarchical_all_reduce_s(s, nodes, f), ring_all_reduce_s(s, nodes * 8, 50e9, 5e-6));
  // Oversubscription 2:1 and one shared NIC slow the inter-node part.
  const double base = hierarchical_all_reduce_s(s, nodes, f);
  f.oversubscription = 2;
  EXPECT_GT(hierarchical_all_reduce_s(s, nodes, f), base);
  f.oversubscription = 1;
  f.nics_per_node = 1;
  EXPECT_DOUBLE_EQ(inter_node_ring_bandwidth_bytes_per_s(f), 50e9 / 8);
  EXPECT_DOUBLE_EQ(point_to_point_s(1e6, 50e9, 5e-6), 5e-6 + 2e-5);
}

}  // namespace
}  // namespace dsx
