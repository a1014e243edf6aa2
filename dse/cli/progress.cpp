#include "dse/cli/progress.hpp"

#include <fmt/core.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cmath>
#include <string>

#include "output/format.hpp"

namespace dsx::cli {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kTerminalPeriod = std::chrono::milliseconds(200);
constexpr auto kLogPeriod = std::chrono::seconds(5);
constexpr double kRateSmoothing = 0.3;  // weight of the newest sample in the rate average

int terminal_width() {
  winsize w{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
  return 100;
}

}  // namespace

std::string format_hms(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--:--";
  const auto s = static_cast<std::uint64_t>(seconds + 0.5);
  return fmt::format("{:02}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
}

ProgressReporter::ProgressReporter(const SweepProgress& progress, std::uint64_t total, std::uint64_t already_done,
                                   bool terminal)
    : progress_(progress),
      total_(total),
      already_done_(already_done),
      terminal_(terminal),
      start_(Clock::now()),
      last_sample_time_(start_),
      thread_([this] { run(); }) {}

ProgressReporter::~ProgressReporter() { stop(); }

void ProgressReporter::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  draw(true);
}

void ProgressReporter::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, terminal_ ? std::chrono::duration_cast<std::chrono::milliseconds>(kTerminalPeriod)
                                         : std::chrono::duration_cast<std::chrono::milliseconds>(kLogPeriod),
                         [this] { return stopping_; })) {
    draw(false);
  }
}

void ProgressReporter::draw(bool final) {
  const auto now = Clock::now();
  const std::uint64_t done_now = progress_.points_done.load(std::memory_order_relaxed);
  const double dt = std::chrono::duration<double>(now - last_sample_time_).count();
  if (dt > 0 && done_now >= last_sample_points_) {
    const double sample = static_cast<double>(done_now - last_sample_points_) / dt;
    rate_points_per_s_ = rate_points_per_s_ == 0 ? sample : kRateSmoothing * sample + (1 - kRateSmoothing) * rate_points_per_s_;
  }
  last_sample_time_ = now;
  last_sample_points_ = done_now;
  const std::uint64_t done = std::min(total_, already_done_ + done_now);
  const double fraction = total_ > 0 ? static_cast<double>(done) / static_cast<double>(total_) : 1.0;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double eta = rate_points_per_s_ > 0 ? static_cast<double>(total_ - done) / rate_points_per_s_ : -1;
  const std::string status = fmt::format(
      "{:5.1f}%  {}/{}  {}  elapsed {}  ETA {}", 100.0 * fraction, format_grouped(static_cast<double>(done)),
      format_grouped(static_cast<double>(total_)), format_si(rate_points_per_s_, "points/s"), format_hms(elapsed),
      final ? format_hms(0) : format_hms(eta));
  if (!terminal_) {
    if (!final) fmt::print(stderr, "progress: {}\n", status);
    return;
  }
  const int width = std::max(10, std::min(40, terminal_width() - static_cast<int>(status.size()) - 4));
  const int filled = static_cast<int>(fraction * width);
  fmt::print(stderr, "\r[{}{}] {}\033[K{}", std::string(static_cast<std::size_t>(filled), '#'),
             std::string(static_cast<std::size_t>(width - filled), '.'), status, final ? "\n" : "");
}

}  // namespace dsx::cli
