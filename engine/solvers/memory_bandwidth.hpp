// Solver "memory_bandwidth": one STREAM-style kernel over arrays in the accelerator's memory, the
// measurement that tells how much of the datasheet bandwidth a streaming kernel achieves.
//
// Kernels and the bytes they count per element (McCalpin, "Memory Bandwidth and Machine Balance in
// Current High Performance Computers", IEEE TCCA Newsletter, 1995; the convention STREAM and its GPU
// port BabelStream, Deakin et al., "GPU-STREAM v2.0", PMBS 2016, report): copy c = a and scale
// b = q c move 2 words (one read, one write), add c = a + b and triad a = b + q c move 3 (two reads,
// one write), read (a dot-like sum) moves 1, write (a fill) moves 1. `bytes` is the size of ONE array;
// bytes_moved = words per element x bytes.
//
// Time = launch_overhead + bytes_moved / (memory_efficiency x peak bandwidth): a fixed cost per
// kernel (launch and the ramp of an almost empty machine, visible for small arrays) plus a stream at
// the achieved fraction of the datasheet bandwidth. Both default to the ideal (1 and 0 s): the
// calibration profile (studies/catalog/calibration/default.yaml) replaces them with what published
// measurements imply, so an uncalibrated prediction is the datasheet's roofline.
#pragma once

#include "engine/solver.hpp"

namespace dsx {

class MemoryBandwidthSolver final : public TabledSolver {
 public:
  enum Param : std::size_t { hardware, operation, bytes, memory_efficiency, launch_overhead, kParamCount };
  enum Metric : std::size_t {
    time_s,
    achieved_bandwidth_bytes_per_s,
    peak_bandwidth_bytes_per_s,
    peak_fraction,
    bytes_moved,
    kMetricCount
  };
  enum Reason : std::uint8_t { no_memory_bandwidth };

  MemoryBandwidthSolver();
  PointResult evaluate(const PointInputs& in, std::span<double> out) const override;
};

// Words read and written per array element by a STREAM kernel, by the operation's index.
double stream_words_per_element(std::size_t operation);

}  // namespace dsx
