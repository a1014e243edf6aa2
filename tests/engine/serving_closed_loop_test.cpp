// The serving solver's closed loop (`clients`, engine/queueing.hpp closed_loop_serving): a benchmark's
// fixed concurrency on Llama-3-8B on one H100, against the open-loop solver's own step times.
#include "tests/engine/serving_features_fixture.hpp"

namespace dsx::serving_features {
namespace {

class ServingClosedLoop : public ServingFeatures {
 protected:
  PointInputs closed(double clients, double batch = 0) const {
    PointInputs in = point(llama8b, batch);
    in.values[P::clients] = clients;
    return in;
  }
};

TEST_F(ServingClosedLoop, OneClientIsTheBatchOneLatency) {
  const auto open = run(point(llama8b, 1));
  const auto one = run(closed(1));
  EXPECT_EQ(one[M::batch_used], 1);
  EXPECT_EQ(one[M::ttft_s], open[M::ttft_s]);
  // A lone request's decode steps wait for no other prompt.
  EXPECT_EQ(one[M::itl_s], open[M::decode_step_s]);
  EXPECT_DOUBLE_EQ(one[M::e2e_latency_s], open[M::ttft_s] + 255 * open[M::decode_step_s]);
  EXPECT_DOUBLE_EQ(one[M::tokens_per_s], 256 / one[M::e2e_latency_s]);
  EXPECT_DOUBLE_EQ(one[M::concurrency], 1);
}

TEST_F(ServingClosedLoop, FiveClientsShareTheStepsOfTheirBatch) {
  const auto one = run(closed(1));
  const auto open = run(point(llama8b, 5));
  const auto five = run(closed(5));
  EXPECT_EQ(five[M::batch_used], 5);
  EXPECT_EQ(five[M::decode_step_s], open[M::decode_step_s]);
  // Little's law: five requests in the system.
  EXPECT_NEAR(five[M::concurrency], 5, 1e-12);
  // A prompt now waits for the others' prompts and the decode step in progress.
  EXPECT_GT(five[M::ttft_s], one[M::ttft_s]);
  // A decode step carries the other clients' tokens, and the others' prefills slow it...
  EXPECT_GT(five[M::itl_s], one[M::itl_s]);
  // ...by less than if every other prompt's whole prefill stopped the decodes of the full batch, since
  // a prefill iteration gives them their token and the batch decoding is smaller than five.
  const double others_prefill_share = five[M::requests_per_s] * one[M::ttft_s] * 4 / 5;
  EXPECT_LT(five[M::itl_s], open[M::decode_step_s] / (1 - others_prefill_share));
}

TEST_F(ServingClosedLoop, ChunkedPrefillSpansItsChunks) {
  PointInputs chunked = closed(1);
  chunked.values[P::prefill_chunk_tokens] = 512;
  const auto one = run(chunked);
  EXPECT_EQ(one[M::prefill_chunks], 4);
  // Four iterations each stream the weights and read the earlier chunks' KV: longer than one prefill.
  EXPECT_GT(one[M::ttft_s], run(closed(1))[M::ttft_s]);
  EXPECT_EQ(one[M::itl_s], run(closed(1))[M::itl_s]);
  chunked.values[P::clients] = 16;
  const auto sixteen = run(chunked);
  EXPECT_NEAR(sixteen[M::concurrency], 16, 1e-9);
  EXPECT_GT(sixteen[M::itl_s], one[M::itl_s]);
}

TEST_F(ServingClosedLoop, ManyClientsSaturateAtTheBatchLimit) {
  const auto limit = run(closed(0, 0));  // open loop at max_batch
  const double slots = limit[M::max_batch];
  const auto full = run(closed(slots));
  const auto many = run(closed(4 * slots));
  EXPECT_EQ(many[M::batch_used], slots);
  EXPECT_EQ(many[M::tokens_per_s], full[M::tokens_per_s]);
  EXPECT_EQ(many[M::itl_s], full[M::itl_s]);
  EXPECT_NEAR(many[M::e2e_latency_s], 4 * full[M::e2e_latency_s], 1e-9 * many[M::e2e_latency_s]);
  // batch caps the running sequences below what the cache holds.
  const auto capped = run(closed(50, 8));
  EXPECT_EQ(capped[M::batch_used], 8);
  EXPECT_NEAR(capped[M::tokens_per_s], run(closed(8, 8))[M::tokens_per_s], 1e-9 * capped[M::tokens_per_s]);
}

TEST_F(ServingClosedLoop, ExcludesWhatItDoesNotModel) {
  PointInputs statics = closed(4);
  statics.values[P::batching] = 1;
  EXPECT_EQ(result(statics).reason, ServingSolver::closed_loop_needs_colocated);
  PointInputs disaggregated = closed(4);
  disaggregated.values[P::disaggregated] = 1;
  EXPECT_EQ(result(disaggregated).reason, ServingSolver::closed_loop_needs_colocated);
  PointInputs both = closed(4);
  both.values[P::arrival_rate] = 1;
  EXPECT_EQ(result(both).reason, ServingSolver::closed_and_open_loop);
}

}  // namespace
}  // namespace dsx::serving_features
