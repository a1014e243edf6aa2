#include "engine/queueing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dsx {

double erlang_c(double servers, double offered_load) {
  const double rho = offered_load / servers;
  if (rho >= 1.0) return 1.0;
  if (offered_load <= 0) return 0.0;
  // Erlang B by its recursion on the inverse, 1/B_k = 1 + (k / a) / B_(k-1): one multiply-add a step
  // instead of a division. Past k > a the inverse only grows; once it passes 2^100 the wait
  // probability is below 1e-30 and is returned as 0.
  const double inverse_load = 1.0 / offered_load;
  double inverse_erlang_b = 1.0;
  const auto c = static_cast<long>(servers);
  for (long k = 1; k <= c; ++k) {
    const double k_over_load = static_cast<double>(k) * inverse_load;
    inverse_erlang_b = 1.0 + k_over_load * inverse_erlang_b;
    if (k_over_load > 1.0 && inverse_erlang_b > 0x1p100) return 0.0;
  }
  // C = B / (1 - rho (1 - B)) = 1 / (1/B (1 - rho) + rho).
  return 1.0 / (inverse_erlang_b * (1.0 - rho) + rho);
}

MmcResult mmc_queue(double arrival_rate_per_s, double service_rate_per_s, double servers) {
  MmcResult r;
  const double capacity = servers * service_rate_per_s;
  r.utilization = capacity > 0 ? arrival_rate_per_s / capacity : std::numeric_limits<double>::infinity();
  r.stable = r.utilization < 1.0;
  if (!r.stable) {
    r.wait_probability = 1.0;
    r.mean_wait_s = std::numeric_limits<double>::infinity();
    return r;
  }
  r.wait_probability = erlang_c(servers, arrival_rate_per_s / service_rate_per_s);
  r.mean_wait_s = r.wait_probability / (capacity - arrival_rate_per_s);
  return r;
}

double mmc_wait_quantile_s(double arrival_rate_per_s, double service_rate_per_s, double servers, double q) {
  return mmc_wait_quantile_s(mmc_queue(arrival_rate_per_s, service_rate_per_s, servers), arrival_rate_per_s,
                             service_rate_per_s, servers, q);
}

double mmc_wait_quantile_s(const MmcResult& r, double arrival_rate_per_s, double service_rate_per_s,
                           double servers, double q) {
  if (!r.stable) return std::numeric_limits<double>::infinity();
  if (r.wait_probability <= 1.0 - q) return 0.0;
  return std::log(r.wait_probability / (1.0 - q)) / (servers * service_rate_per_s - arrival_rate_per_s);
}

Mg1Result mg1_queue(double arrival_rate_per_s, double mean_service_s, double service_cv) {
  Mg1Result r;
  r.utilization = arrival_rate_per_s * mean_service_s;
  r.stable = r.utilization < 1.0;
  if (!r.stable) {
    r.wait_probability = 1.0;
    r.mean_wait_s = std::numeric_limits<double>::infinity();
    return r;
  }
  r.wait_probability = r.utilization;
  r.mean_wait_s = r.utilization * mean_service_s * (1.0 + service_cv * service_cv) / (2.0 * (1.0 - r.utilization));
  return r;
}

double mg1_wait_quantile_s(const Mg1Result& r, double q) {
  if (!r.stable) return std::numeric_limits<double>::infinity();
  if (r.wait_probability <= 1.0 - q) return 0.0;
  return r.mean_wait_s / r.wait_probability * std::log(r.wait_probability / (1.0 - q));
}

ClosedLoopServing closed_loop_serving(double clients, double slots, const ClosedLoopSteps& steps, double output_tokens) {
  const double running = std::min(clients, slots);
  const double k = steps.prefill_iterations;
  const double p0 = steps.prefill_iteration_alone_s;
  const double p_per_decode = running > 0 ? (steps.prefill_iteration_full_s - p0) / running : 0.0;
  const double d1 = steps.decode_token_one_s;
  const double d_per_decode = running > 1 ? (steps.decode_token_full_s - d1) / (running - 1) : 0.0;
  const double iteration_per_token =
      steps.decode_token_full_s > 0 ? steps.decode_iteration_full_s / steps.decode_token_full_s : 1.0;
  const double decode_tokens = output_tokens - 1;
  ClosedLoopServing r;
  double queued = 0;
  double decoding = 0;
  for (double n = 1; n <= running; ++n) {
    const double beside = 1 + decoding;
    const double d = d1 + d_per_decode * decoding;
    const double d_in_progress = d1 + d_per_decode * std::max(0.0, decoding - 1);
    const double prompt_s = k * (p0 + p_per_decode * decoding);
    const double busy = r.requests_per_s * prompt_s;
    const double ttft = prompt_s * (1 + queued) - busy * prompt_s / 2 +
                        (n > 1 ? (1 - busy) * d_in_progress * iteration_per_token / 2 : 0.0);
    // A decoding sequence loses, per other prompt, k iterations' excess over a decode step.
    const double stall_s = std::max(0.0, k * (p0 + p_per_decode * beside - d)) * (n - 1) / n;
    // X (ttft + decode_s / (1 - X c)) = n: c X^2 ttft - (ttft + decode_s + n c) X + n = 0, smaller root.
    const double decode_s = decode_tokens * d;
    const double sum = ttft + decode_s + n * stall_s;
    const double x = 2 * n / (sum + std::sqrt(std::max(0.0, sum * sum - 4 * ttft * stall_s * n)));
    r.requests_per_s = x;
    r.ttft_s = ttft;
    r.itl_s = output_tokens > 1 ? d / (1 - x * stall_s) : d;
    r.prefill_utilization = x * prompt_s;
    queued = x * ttft;
    decoding = x * decode_tokens * r.itl_s;
  }
  r.decoding_sequences = decoding;
  if (clients > running) r.ttft_s = clients / r.requests_per_s - decode_tokens * r.itl_s;
  return r;
}

}  // namespace dsx
