#include "dse/shard.hpp"

#include <charconv>

namespace dsx {

namespace {

constexpr std::uint64_t kMaxShards = 1U << 20U;

std::optional<std::uint64_t> whole_number(std::string_view text) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

}  // namespace

std::string ShardSpec::text() const { return std::to_string(index) + "/" + std::to_string(count); }

std::optional<ShardSpec> parse_shard(std::string_view text, std::string& problem) {
  const auto slash = text.find('/');
  const auto i = slash == std::string_view::npos ? std::nullopt : whole_number(text.substr(0, slash));
  const auto n = slash == std::string_view::npos ? std::nullopt : whole_number(text.substr(slash + 1));
  if (!i || !n) {
    problem = "expected I/N, the shard's index and the number of shards, such as 0/64";
    return std::nullopt;
  }
  if (*n < 1 || *n > kMaxShards) {
    problem = "the number of shards must be between 1 and " + std::to_string(kMaxShards);
    return std::nullopt;
  }
  if (*i >= *n) {
    problem = "the shard index must be below the number of shards (0 to " + std::to_string(*n - 1) + ")";
    return std::nullopt;
  }
  return ShardSpec{*i, *n};
}

PointRange shard_range(const ShardSpec& shard, std::uint64_t grid_points) {
  // floor(T i / N) without overflow: T = q N + r, so T i / N = q i + r i / N with r i < 2^40.
  const std::uint64_t q = grid_points / shard.count, r = grid_points % shard.count;
  const auto at = [&](std::uint64_t i) { return q * i + r * i / shard.count; };
  return {at(shard.index), at(shard.index + 1)};
}

}  // namespace dsx
