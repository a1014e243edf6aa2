// The compact laws of seeds/003 (Appendix "Machine Foundations", sections "Amdahl's Law and
// Gustafson's Law", "Little's Law", "The Training Time Equation", "Bandwidth vs. Latency" and the
// "Scaling Rules" table of "Numbers to Know").
//
//   Amdahl (Amdahl 1967, strong scaling):      speedup(n) = 1 / (s + (1 - s) / n), limit 1 / s
//   Gustafson (Gustafson 1988, weak scaling):  scaled speedup(n) = n - s (n - 1)
//   Little (Little 1961):                      L = lambda x W
//   Training time:                             T = 6 P D / (N X U)
//   Transfer time:                             T = latency + size / bandwidth
//   Element-wise roofline placement:           intensity = ops per element / ((reads + writes) x bytes)
//
// Seed examples these reproduce (tests/engine/laws_test.cpp): s = 0.05 gives 5.93x at n = 8 and a
// 20x cap (Amdahl), 7.65x at 8 and 950.05x at 1,000 (Gustafson); 1,000 QPS x 50 ms = 50 requests in
// flight, 24 GB / 1 GB = 24 concurrent requests and 24 / 50 ms = 480 QPS; 1B parameters on 20B
// tokens on one A100 (312 TFLOP/s) at 40% MFU = 961,538 s; 1 kB over 10 Gbit/s = 0.8 us of
// serialisation behind a 10 ms latency, 1 GB = 800 ms + 10 ms = 810 ms.
//
// Memory and FLOP rules of thumb (seeds/003 "Scaling Rules"): inference weights = parameters x bytes
// per element (fp16 2, int8 1); mixed-precision Adam training = 16 bytes per parameter, which is fp16
// weights 2 + fp16 gradients 2 + fp32 master weights 4 + fp32 momentum 4 + fp32 variance 4
// (Rajbhandari et al., "ZeRO", SC 2020, section 3.1: 2 + 2 + 12 bytes); forward FLOPs = 2 per
// parameter per token; training FLOPs = 6 x parameters x tokens.
#pragma once

namespace dsx {

// Amdahl's law. serial_fraction in [0, 1], processors >= 1.
double amdahl_speedup(double serial_fraction, double processors);
// The n -> infinity limit 1 / s (infinity when s = 0).
double amdahl_limit(double serial_fraction);
// Gustafson's scaled speedup.
double gustafson_speedup(double serial_fraction, double processors);

// Little's law: average number in the system = arrival rate x time in the system.
double littles_law_in_flight(double arrival_rate_per_s, double latency_s);
// Requests that fit side by side in `capacity_bytes` at `bytes_per_request` each (whole requests).
double max_concurrent_requests(double capacity_bytes, double bytes_per_request);
// The arrival rate `concurrency` requests in flight can sustain at `latency_s` each: L / W.
double littles_law_max_rate_per_s(double concurrency, double latency_s);

inline constexpr double kTrainingFlopsPerParamToken = 6.0;   // forward 2 + backward 4
inline constexpr double kForwardFlopsPerParamToken = 2.0;
inline constexpr double kAdamMixedPrecisionBytesPerParam = 16.0;

double training_flops(double parameters, double tokens);
// T = 6 P D / (N X U): `peak_flops_per_s` is X, one accelerator's peak; `mfu` is U.
double training_time_s(double parameters, double tokens, double accelerators, double peak_flops_per_s,
                       double mfu);

// T = latency + size / bandwidth.
double transfer_time_s(double latency_s, double size_bytes, double bandwidth_bytes_per_s);

// Roofline intensity of an element-wise op that reads `reads` and writes `writes` elements of
// `bytes_per_element` each per `ops_per_element` operations (ReLU: 1 op, 1 read, 1 write).
double elementwise_intensity_flop_per_byte(double ops_per_element, double reads, double writes,
                                           double bytes_per_element);

}  // namespace dsx
