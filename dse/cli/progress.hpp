// Progress of a sweep on stderr: on a terminal a bar redrawn a few times a second
//   [########............]  41.2%  412,000/1,000,000  8.1M points/s  elapsed 00:00:05  ETA 00:00:07
// and, when stderr is not a terminal (a log file overnight), one plain line every few seconds.
// It reads the sweep's relaxed counter from its own thread, so the sweep never waits on it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "dse/sweep.hpp"

namespace dsx::cli {

class ProgressReporter {
 public:
  ProgressReporter(const SweepProgress& progress, std::uint64_t total, std::uint64_t already_done, bool terminal);
  ~ProgressReporter();
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;

  // Stops the display thread and leaves the terminal on a fresh line.
  void stop();

 private:
  void run();
  void draw(bool final);

  const SweepProgress& progress_;
  std::uint64_t total_;
  std::uint64_t already_done_;
  bool terminal_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_sample_time_;
  std::uint64_t last_sample_points_ = 0;
  double rate_points_per_s_ = 0;  // exponentially weighted
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

// "01:02:03" (hours may exceed 24); "--:--:--" for a negative or non-finite duration.
std::string format_hms(double seconds);

}  // namespace dsx::cli
