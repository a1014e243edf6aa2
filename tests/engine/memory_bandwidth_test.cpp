// The memory_bandwidth solver: STREAM's byte counts and the time of one kernel.
#include "engine/solvers/memory_bandwidth.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "tests/engine/published_specs.hpp"

namespace dsx {
namespace {

using S = MemoryBandwidthSolver;

TEST(MemoryBandwidth, TriadMovesThreeArraysAtTheAchievedBandwidth) {
  const HardwareSpec hw = published::h100_sxm();
  PointInputs in;
  in.hardware = &hw;
  in.values[S::operation] = 3;  // triad a = b + q c: read b, c, write a
  in.values[S::bytes] = 1024.0 * 1024 * 1024;
  in.values[S::memory_efficiency] = 0.9;
  in.values[S::launch_overhead] = 5e-6;
  std::vector<double> m(S::kMetricCount);
  ASSERT_EQ(MemoryBandwidthSolver().evaluate(in, m).status, PointStatus::ok);
  // 3 x 1 GiB = 3,221,225,472 B at 0.9 x 3.35 TB/s = 1.0684 ms, plus 5 us.
  EXPECT_DOUBLE_EQ(m[S::bytes_moved], 3221225472.0);
  EXPECT_NEAR(m[S::time_s], 5e-6 + 3221225472.0 / (0.9 * 3.35e12), 1e-15);
  EXPECT_NEAR(m[S::achieved_bandwidth_bytes_per_s], 3221225472.0 / m[S::time_s], 1e-3);
  EXPECT_LT(m[S::peak_fraction], 0.9);
}

TEST(MemoryBandwidth, EachKernelCountsItsWords) {
  EXPECT_DOUBLE_EQ(stream_words_per_element(0), 2);  // copy
  EXPECT_DOUBLE_EQ(stream_words_per_element(1), 2);  // scale
  EXPECT_DOUBLE_EQ(stream_words_per_element(2), 3);  // add
  EXPECT_DOUBLE_EQ(stream_words_per_element(3), 3);  // triad
  EXPECT_DOUBLE_EQ(stream_words_per_element(4), 1);  // read
  EXPECT_DOUBLE_EQ(stream_words_per_element(5), 1);  // write
}

}  // namespace
}  // namespace dsx
