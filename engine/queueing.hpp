// M/M/c queueing: Poisson arrivals at rate lambda, c identical servers with exponential service of
// rate mu each, first-come first-served (Kleinrock 1975, Queueing Systems Vol. 1, section 3.5;
// Harchol-Balter 2013, Performance Modeling and Design of Computer Systems, chapter 14).
//
//   offered load a = lambda / mu, utilization rho = a / c (stable only when rho < 1)
//   Erlang C  P_wait = [a^c / c! / (1 - rho)] / [sum_{k<c} a^k / k! + a^c / c! / (1 - rho)]
//   waiting time tail  P(W > t) = P_wait exp(-(c mu - lambda) t)
//   so the q-quantile of the wait is 0 when P_wait <= 1 - q, else ln(P_wait / (1 - q)) / (c mu - lambda)
//   mean wait E[W] = P_wait / (c mu - lambda)
// Erlang C is evaluated with the Erlang B recursion B(k) = a B(k-1) / (k + a B(k-1)), B(0) = 1, taken
// on its inverse (1/B(k) = 1 + (k/a) / B(k-1), no division in the loop), and C = B / (1 - rho (1 - B)):
// exact, no factorials, no allocation (c up to ~1e6). A wait probability below 1e-30 is returned as 0.
// Unlike mlsysim's TailLatencyModel (shared/reference mlsysim-models 6.12) no Kingman factor is
// applied to quantiles and an unstable queue reports its true rho = lambda / (c mu).
//
// M/G/1: Poisson arrivals, one server, service times of mean E[S] and coefficient of variation
// cv = sd(S) / E[S] (M/D/1 is cv = 0, M/M/1 cv = 1). The mean wait is the Pollaczek-Khinchine
// formula (Kleinrock 1975, Queueing Systems Vol. 1, chapter 5; Harchol-Balter 2013, chapter 23):
//   E[W] = lambda E[S^2] / (2 (1 - rho)) = rho E[S] (1 + cv^2) / (2 (1 - rho)),  rho = lambda E[S]
// and P(W > 0) = rho exactly (an arrival waits when the server is busy, which by PASTA it is a share
// rho of the time; Wolff, "Poisson Arrivals See Time Averages", Operations Research 30(2), 1982).
// The waiting-time distribution has no closed form for general service (for M/D/1 it is Crommelin's
// alternating series, Crommelin, "Delay probability formulae when the holding times are constant",
// P.O. Elect. Engrs. J. 25, 1932, which cancels catastrophically at the tails of a loaded queue).
// Tails use the exponential approximation: P(W > t) = rho exp(-rho t / E[W]), an atom 1 - rho at
// zero and an exponential of mean E[W] / rho given a wait, so the mean is exact and M/M/1 is
// reproduced exactly; heavy-traffic theory says the conditional wait tends to an exponential
// (Kingman, "The single server queue in heavy traffic", Proc. Cambridge Phil. Soc. 57(4), 1961).
// Against Crommelin's exact M/D/1 series (D = 1) the p99 wait is high by 28 % at rho 0.3, 17 % at 0.5,
// 9 % at 0.7, 6 % at 0.8, 3 % at 0.9 and 1 % at 0.95; the median is low by 23 % at rho 0.7, 8 % at 0.8
// and 2 % at 0.9 (tests/engine/queueing_test.cpp checks rho 0.8 and 0.9). The approximation errs
// towards the conservative side at the p99 of a lightly loaded queue.
#pragma once

namespace dsx {

struct MmcResult {
  double utilization = 0;        // rho = lambda / (c mu); >= 1 means unstable
  bool stable = false;
  double wait_probability = 0;   // Erlang C; 1 when unstable
  double mean_wait_s = 0;        // +inf when unstable
};

// Erlang C probability that an arrival waits; servers >= 1, offered_load = lambda / mu >= 0.
double erlang_c(double servers, double offered_load);

MmcResult mmc_queue(double arrival_rate_per_s, double service_rate_per_s, double servers);

// The q-quantile (0 < q < 1) of the waiting time in queue; +inf when the queue is unstable.
double mmc_wait_quantile_s(double arrival_rate_per_s, double service_rate_per_s, double servers, double q);
// The same from an already solved queue (no second Erlang C evaluation).
double mmc_wait_quantile_s(const MmcResult& queue, double arrival_rate_per_s, double service_rate_per_s,
                           double servers, double q);

struct Mg1Result {
  double utilization = 0;       // rho = lambda E[S]; >= 1 means unstable
  bool stable = false;
  double wait_probability = 0;  // rho; 1 when unstable
  double mean_wait_s = 0;       // Pollaczek-Khinchine; +inf when unstable
};

Mg1Result mg1_queue(double arrival_rate_per_s, double mean_service_s, double service_cv);

// The q-quantile (0 < q < 1) of the wait under the exponential tail approximation above; +inf when
// the queue is unstable.
double mg1_wait_quantile_s(const Mg1Result& queue, double q);

// Closed-loop serving: N clients each hold one request and send the next as soon as the last one's
// final token arrives, so the replica always holds exactly N requests (NVIDIA NIM for LLMs
// Benchmarking Guide, "Parameters": "at any time, the system has exactly N requests"; AIPerf and
// genai-perf --concurrency, vLLM benchmark_serving --max-concurrency at an unbounded request rate).
// The engine runs one iteration at a time over every running sequence (Orca: Yu et al., "Orca: A
// Distributed Serving System for Transformer-Based Generative Models", OSDI 2022, iteration-level
// scheduling). A waiting prompt's prefill, whole or in `prefill_iterations` chunks, shares its
// iterations with the running sequences' decode tokens, which gain a token in each (TensorRT-LLM's
// in-flight batching: "sequences in the context phase can be processed together with sequences in the
// generation phase", nvidia.github.io/TensorRT-LLM/features/paged-attention-ifb-scheduler.html;
// Agrawal et al., "Taming Throughput-Latency Tradeoff in LLM Inference with Sarathi-Serve", OSDI 2024,
// chunked prefills in stall-free hybrid batches; vLLM's docs, quoted in vllm-project/vllm#7874: "Once
// chunked prefill is enabled, the policy is changed to prioritize decode requests").
// Step times are affine in the decodes b they carry (a memory-bound step reads the weights once and
// each sequence's KV cache): a decode step d(b) through d(1) and d(B), a prefill iteration
// p(b) = p(0) + b (p(B) - p(0)) / B, B = min(N, slots). A closed network of one FCFS station, the
// prefill, and a delay station, the O - 1 decode tokens; its mean-value analysis (Reiser & Lavenberg,
// "Mean-Value Analysis of Closed Multichain Queuing Networks", JACM 27(2), 1980; the arrival theorem:
// a request arriving at population n sees the network at n - 1) for n = 1 .. B, X(0) = Q(0) = D(0) = 0:
//   D = X(n-1) (O - 1) ITL(n-1)        the sequences decoding at population n - 1, which an arriving
//                                      prompt's iterations carry; a decoding sequence runs beside them
//   P = k p(D), U = X(n-1) P           one prompt's k iterations; the engine's time share in them
//   TTFT(n) = P (1 + Q(n-1)) - U P / 2 + [n > 1] (1 - U) i(max(1, D)) / 2
//     (the prompts queued ahead, the one in service half done: a deterministic prefill's residual,
//     and a decode iteration i in progress, half done, whenever the engine is not prefilling)
//   ITL(n) = d(1 + D) / (1 - X(n) k (p(1 + D) - d(1 + D)) (n-1) / n)
//     (the others' prefill iterations each take p where a decode step takes d, and still give a token)
//   X(n) = n / (TTFT(n) + (O - 1) ITL(n))   (Little's law over the whole cycle, zero think time)
//   Q(n) = X(n) TTFT(n)
// X(n) and ITL(n) are one quadratic, solved for its smaller root. N = 1 gives the batch-1 latency
// (TTFT = k p(0), ITL = d(1)). Beyond `slots` running sequences (the engine's batch limit) the replica
// stays full, X = X(slots), and the other clients wait for a slot: by Little's law a request's whole
// time is N / X, its ITL is ITL(slots), and its TTFT takes the rest (the NIM guide: "some requests will
// have to wait in a queue ... an increase in Time-to-first-Token"). O(min(N, slots)) arithmetic, no
// allocation.
struct ClosedLoopSteps {
  double prefill_iterations = 1;            // k: chunks of one prompt; 1 unchunked
  double prefill_iteration_alone_s = 0;     // p(0): one of them with no decode beside it
  double prefill_iteration_full_s = 0;      // p(B): one of them carrying B decode tokens
  double decode_token_one_s = 0;            // d(1): time per output token of a lone sequence
  double decode_token_full_s = 0;           // d(B): the same at B running sequences
  double decode_iteration_full_s = 0;       // i(B): one decode iteration at B (d(B) x its tokens)
};

struct ClosedLoopServing {
  double ttft_s = 0;
  double itl_s = 0;
  double requests_per_s = 0;
  double prefill_utilization = 0;  // X k p: the engine's time share spent in prefill iterations
  double decoding_sequences = 0;   // D at the last population: the mean batch a decode step carries less one
};

ClosedLoopServing closed_loop_serving(double clients, double slots, const ClosedLoopSteps& steps, double output_tokens);

}  // namespace dsx
