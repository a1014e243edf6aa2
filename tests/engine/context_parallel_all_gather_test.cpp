// The all-gather form of context parallelism (cp_comm: all_gather; Llama Team, "The Llama 3 Herd of
// Models", arXiv:2407.21783, section 3.3.2: K and V all-gathered, then attention for the local query
// chunk, the all-gather exposed in the critical path; Transformer Engine's cp_comm_type "all_gather")
// against the default ring (p2p), by hand: on a switched node a ring all-gather of the cp chunks,
// on a torus node the bidirectional ring of the cp ranks' strided group, none of it hidden.
#include <gtest/gtest.h>

#include <vector>

#include "engine/collectives.hpp"
#include "engine/model_builders.hpp"
#include "engine/solvers/training.hpp"
#include "tests/engine/published_specs.hpp"
#include "tests/engine/solver_inputs.hpp"

namespace dsx {
namespace {

using P = TrainingSolver::Param;
using M = TrainingSolver::Metric;

class ContextParallelAllGather : public ::testing::Test {
 protected:
  const TrainingSolver solver;
  const HardwareSpec hw = published::h100_sxm();
  // Llama 3 70B: 80 layers, d_model 8,192, 8 KV heads of 128, seq_len 2,048.
  const PreparedModel llama70b = prepare_model(
      build_architecture("transformer", {published::kLlama3_70b.begin(), published::kLlama3_70b.end()}));
  // Llama 3 8B: 32 layers, 8 KV heads of 128.
  const PreparedModel llama8b = published::llama3(32, 4096, 32, 14336);
  std::vector<double> out = std::vector<double>(TrainingSolver::kMetricCount);

  PointInputs point(const PreparedModel& model, double tp, double pp, double cp, double comm) const {
    PointInputs in;
    in.hardware = &hw;
    in.model = &model;
    set_defaults(solver, in);
    in.values[P::tp] = tp;
    in.values[P::pp] = pp;
    in.values[P::cp] = cp;
    in.values[P::cp_comm] = comm;
    return in;
  }
};

// TP 4 x CP 2 inside an 8-GPU node: the ring hides behind attention, the all-gather of the two
// chunks (1 chunk over 450 GB/s, one 0.5 us step) is paid 3 times per layer and micro-batch
// (forward, backward K/V and the gradients' reduce-scatter), 20 layers per stage, 32 micro-batches.
TEST_F(ContextParallelAllGather, IsNotHiddenBehindAttention) {
  ASSERT_EQ(solver.evaluate(point(llama70b, 4, 4, 2, 0), out).status, PointStatus::ok);
  EXPECT_DOUBLE_EQ(out[M::cp_comm_s], 0);
  const std::vector<double> ring = out;
  ASSERT_EQ(solver.evaluate(point(llama70b, 4, 4, 2, 1), out).status, PointStatus::ok);
  // One chunk: b s / cp = 1,024 tokens x 2 x (8 KV heads / TP 4) x 128 x 2 B.
  const double chunk = 1024.0 * 2 * 2 * 128 * 2;
  EXPECT_DOUBLE_EQ(chunk, 1048576);
  const double gather = chunk / 450e9 + 0.5e-6;
  EXPECT_NEAR(gather, all_gather_s(2 * chunk, 2, 450e9, 0.5e-6), 1e-18);
  EXPECT_DOUBLE_EQ(out[M::microbatches], 32);
  EXPECT_NEAR(out[M::cp_comm_s], 3 * 20 * 32 * gather, 1e-12);
  EXPECT_NEAR(out[M::step_time_s] - ring[M::step_time_s], out[M::cp_comm_s], 1e-9);
}

// Llama 3 8B, TP 4 x CP 4 on a 16 x 16 torus of H100-class chips (450 GB/s one way per chip, links
// of 112.5 GB/s): the 16 chips of a TP x CP group are a wrapped line of 16 (its all-reduce ties a
// 4 x 4 block's and comes first), the cp ranks 4 apart a wrapped ring of 4 whose hops cross 4 links
// shared by 4 interleaved rings (112.5 / 4 GB/s each way), so the ring runs both directions at 2 x
// 28.125 GB/s: 3/4 x 4 chunks / 56.25 GB/s + 3 hops of 0.5 us per exchange.
TEST_F(ContextParallelAllGather, RunsBothDirectionsOfATorusRing) {
  PointInputs in = point(llama8b, 4, 1, 4, 1);
  in.values[P::gpus] = 64;
  in.values[P::gpus_per_node] = 256;
  in.values[P::micro_batch] = 1;
  in.values[P::global_batch] = 16;
  in.values[P::torus_x] = 16;
  in.values[P::torus_y] = 16;
  ASSERT_EQ(solver.evaluate(in, out).status, PointStatus::ok);
  // b s / cp = 512 tokens x 2 x (8 / 4) x 128 x 2 B.
  const double chunk = 512.0 * 2 * 2 * 128 * 2;
  const double gather = 0.75 * 4 * chunk / (2 * 112.5e9 / 4) + 3 * 0.5e-6;
  const double layers = 32, exchanges = in.values[P::recompute] >= 2 ? 4 : 3;
  EXPECT_NEAR(out[M::cp_comm_s], exchanges * layers * out[M::microbatches] * gather, 1e-12);
}

}  // namespace
}  // namespace dsx
