#include "dse/pareto.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

namespace dsx {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// The definition, checked pairwise: O(n^2 k).
std::vector<std::size_t> brute_force_front(const std::vector<double>& values,
                                           const std::vector<Direction>& dirs,
                                           const std::vector<std::uint8_t>& feasible) {
  const std::size_t k = dirs.size();
  const std::size_t n = values.size() / k;
  auto takes_part = [&](std::size_t r) {
    if (!feasible.empty() && feasible[r] == 0) return false;
    for (std::size_t j = 0; j < k; ++j) {
      if (std::isnan(values[r * k + j])) return false;
    }
    return true;
  };
  auto better = [&](double a, double b, Direction d) { return d == Direction::minimize ? a < b : a > b; };
  std::vector<std::size_t> front;
  for (std::size_t b = 0; b < n; ++b) {
    if (!takes_part(b)) continue;
    bool dominated = false;
    for (std::size_t a = 0; a < n && !dominated; ++a) {
      if (a == b || !takes_part(a)) continue;
      bool no_worse = true;
      bool strictly = false;
      for (std::size_t j = 0; j < k; ++j) {
        const double va = values[a * k + j];
        const double vb = values[b * k + j];
        if (better(vb, va, dirs[j])) no_worse = false;
        if (better(va, vb, dirs[j])) strictly = true;
      }
      dominated = no_worse && strictly;
    }
    if (!dominated) front.push_back(b);
  }
  return front;
}

struct Case {
  std::vector<double> values;
  std::vector<Direction> dirs;
  std::vector<std::uint8_t> feasible;
};

// Random rows; `levels` > 0 draws each objective from that many integer values, which makes ties
// and exact duplicates common.
Case random_case(std::mt19937_64& rng, std::size_t n, std::size_t k, int levels) {
  Case c;
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_int_distribution<int> level(0, std::max(levels - 1, 0));
  std::uniform_int_distribution<int> percent(0, 99);
  for (std::size_t j = 0; j < k; ++j) {
    c.dirs.push_back(percent(rng) < 50 ? Direction::minimize : Direction::maximize);
  }
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t j = 0; j < k; ++j) {
      double v = levels > 0 ? level(rng) : unit(rng);
      const int p = percent(rng);
      if (p < 2) v = kNaN;
      else if (p < 3) v = kInf;
      else if (p < 4) v = -kInf;
      c.values.push_back(v);
    }
    c.feasible.push_back(percent(rng) < 85 ? 1 : 0);
  }
  // Copy a few rows verbatim so that exact duplicates appear for continuous values too.
  for (std::size_t d = 0; d < n / 10; ++d) {
    const std::size_t from = rng() % n;
    const std::size_t to = rng() % n;
    std::copy_n(c.values.begin() + static_cast<std::ptrdiff_t>(from * k), k,
                c.values.begin() + static_cast<std::ptrdiff_t>(to * k));
  }
  return c;
}

TEST(ParetoTest, MatchesBruteForceOnRandomData) {
  std::mt19937_64 rng(20240611);
  std::size_t checked = 0;
  for (const std::size_t k : {1u, 2u, 3u, 4u}) {
    for (const int levels : {0, 3, 6}) {
      for (const std::size_t n : {0u, 1u, 2u, 5u, 40u, 300u}) {
        for (int trial = 0; trial < 4; ++trial) {
          const Case c = random_case(rng, n, k, levels);
          const auto want = brute_force_front(c.values, c.dirs, c.feasible);
          EXPECT_EQ(pareto_front(c.values, c.dirs, c.feasible), want)
              << "k=" << k << " levels=" << levels << " n=" << n << " trial=" << trial;
          std::vector<std::uint8_t> all;
          EXPECT_EQ(pareto_front(c.values, c.dirs, all), brute_force_front(c.values, c.dirs, all))
              << "all feasible, k=" << k << " levels=" << levels << " n=" << n;
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 4u * 3u * 6u * 4u);
}

TEST(ParetoTest, IndependentOfRowOrder) {
  std::mt19937_64 rng(7);
  for (const std::size_t k : {2u, 3u}) {
    const std::size_t n = 500;
    const Case c = random_case(rng, n, k, 4);
    const auto front = pareto_front(c.values, c.dirs, c.feasible);
    std::vector<std::size_t> perm(n);
    std::iota(perm.begin(), perm.end(), std::size_t{0});
    std::shuffle(perm.begin(), perm.end(), rng);
    Case shuffled;
    shuffled.dirs = c.dirs;
    for (std::size_t i = 0; i < n; ++i) {  // row i of shuffled is row perm[i] of c
      for (std::size_t j = 0; j < k; ++j) shuffled.values.push_back(c.values[perm[i] * k + j]);
      shuffled.feasible.push_back(c.feasible[perm[i]]);
    }
    std::vector<std::size_t> mapped;
    for (const std::size_t r : pareto_front(shuffled.values, shuffled.dirs, shuffled.feasible)) {
      mapped.push_back(perm[r]);
    }
    std::sort(mapped.begin(), mapped.end());
    EXPECT_EQ(mapped, front) << "k=" << k;
  }
}

// A constant extra objective changes no dominance relation, so the k = 2 sweep, the k = 3 sweep
// and the general method (k = 4) must agree, at a size where the brute force would be slow.
TEST(ParetoTest, SweepsAgreeWithGeneralMethodOnLargeInput) {
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const std::size_t n = 100'000;
  std::vector<double> two;
  std::vector<double> three;
  std::vector<double> four;
  for (std::size_t r = 0; r < n; ++r) {
    // Rounded to a grid so that the front has ties in each coordinate.
    const double a = std::round(unit(rng) * 2000) / 2000;
    const double b = std::round((1 - a) * unit(rng) * 2000) / 2000;
    two.insert(two.end(), {a, b});
    three.insert(three.end(), {a, 5.0, b});
    four.insert(four.end(), {a, b, 5.0, -1.0});
  }
  const std::vector<Direction> d2 = {Direction::minimize, Direction::minimize};
  const std::vector<Direction> d3 = {Direction::minimize, Direction::maximize, Direction::minimize};
  const std::vector<Direction> d4 = {Direction::minimize, Direction::minimize, Direction::maximize,
                                     Direction::minimize};
  const auto front = pareto_front(two, d2);
  EXPECT_FALSE(front.empty());
  EXPECT_EQ(pareto_front(three, d3), front);
  EXPECT_EQ(pareto_front(four, d4), front);
}

// Integer points with a + b + c = S dominate each other nowhere (q <= p with equal sums forces
// q = p), and any integer point with a larger sum lies above one of them, so the front of the
// union is exactly the plane: a large front for the k = 3 sweep.
TEST(ParetoTest, ThreeObjectiveSweepKeepsALargeFront) {
  const int sum = 300;
  std::vector<std::array<double, 3>> points;
  for (int i = 0; i <= sum; ++i) {
    for (int j = 0; i + j <= sum; ++j) points.push_back({double(i), double(j), double(sum - i - j)});
  }
  const std::size_t plane = points.size();
  EXPECT_EQ(plane, std::size_t((sum + 1) * (sum + 2) / 2));
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int> coord(0, sum);
  while (points.size() < plane + 50'000) {
    const std::array<double, 3> p = {double(coord(rng)), double(coord(rng)), double(coord(rng))};
    if (p[0] + p[1] + p[2] > sum) points.push_back(p);
  }
  std::vector<std::size_t> perm(points.size());
  std::iota(perm.begin(), perm.end(), std::size_t{0});
  std::shuffle(perm.begin(), perm.end(), rng);
  std::vector<double> values;
  std::vector<std::size_t> want;
  for (std::size_t r = 0; r < perm.size(); ++r) {
    const auto& p = points[perm[r]];
    values.insert(values.end(), {p[0], -p[1], p[2]});  // the second objective maximised
    if (perm[r] < plane) want.push_back(r);
  }
  const std::vector<Direction> dirs = {Direction::minimize, Direction::maximize, Direction::minimize};
  EXPECT_EQ(pareto_front(values, dirs), want);
}

TEST(ParetoTest, SmallCasesByDefinition) {
  const std::vector<Direction> minmin = {Direction::minimize, Direction::minimize};
  EXPECT_TRUE(pareto_front(std::vector<double>{}, minmin).empty());
  EXPECT_EQ(pareto_front(std::vector<double>{3, 4}, minmin), (std::vector<std::size_t>{0}));
  const std::vector<std::uint8_t> none = {0};
  EXPECT_TRUE(pareto_front(std::vector<double>{3, 4}, minmin, none).empty());
  EXPECT_TRUE(pareto_front(std::vector<double>{kNaN, 4}, minmin).empty());

  // (1,1) twice and (2,0): the twins do not dominate each other and neither dominates (2,0);
  // (2,1) is dominated by (2,0) (same first, better second) and (3,3) by all of them.
  const std::vector<double> v = {1, 1, 2, 1, 1, 1, 3, 3, 2, 0};
  EXPECT_EQ(pareto_front(v, minmin), (std::vector<std::size_t>{0, 2, 4}));
  // Maximising the second objective: nothing beats (3,3) on it and nothing beats the twins on the
  // first; (2,1) and (2,0) lose to the twins.
  const std::vector<Direction> minmax = {Direction::minimize, Direction::maximize};
  EXPECT_EQ(pareto_front(v, minmax), (std::vector<std::size_t>{0, 2, 3}));
  // Infeasible rows neither appear nor dominate. Without the twins, under min/min (2,0) beats
  // (2,1) and (3,3); under min/max (2,1) beats (2,0) and (3,3) keeps the best second objective.
  const std::vector<std::uint8_t> feasible = {0, 1, 0, 1, 1};
  EXPECT_EQ(pareto_front(v, minmin, feasible), (std::vector<std::size_t>{4}));
  EXPECT_EQ(pareto_front(v, minmax, feasible), (std::vector<std::size_t>{1, 3}));
}

TEST(ParetoTest, SingleObjectiveKeepsEveryBestRow) {
  const std::vector<Direction> max = {Direction::maximize};
  EXPECT_EQ(pareto_front(std::vector<double>{1, 5, 2, 5, kNaN}, max), (std::vector<std::size_t>{1, 3}));
}

TEST(ParetoTest, InfinitiesAreOrdinaryValues) {
  const std::vector<Direction> minmin = {Direction::minimize, Direction::minimize};
  // (-inf, 5) has the best first objective; (0, -inf) the best second; (1, 1) loses to (0, -inf).
  const std::vector<double> v = {-kInf, 5, 0, -kInf, 1, 1, kInf, -kInf};
  EXPECT_EQ(pareto_front(v, minmin), (std::vector<std::size_t>{0, 1}));
}

TEST(ParetoTest, RejectsInconsistentSizes) {
  const std::vector<Direction> minmin = {Direction::minimize, Direction::minimize};
  EXPECT_THROW(pareto_front(std::vector<double>{1, 2, 3}, minmin), std::invalid_argument);
  const std::vector<std::uint8_t> flags = {1, 1};
  EXPECT_THROW(pareto_front(std::vector<double>{1, 2}, minmin, flags), std::invalid_argument);
  EXPECT_THROW(pareto_front(std::vector<double>{1, 2}, std::vector<Direction>{}), std::invalid_argument);
}

ResultTable table_for_front() {
  ResultTable t;
  t.axis_names = {"hardware"};
  t.metric_names = {"latency_s", "cost_usd", "tokens_per_s"};
  const double rows[][3] = {{1.0, 4.0, 10}, {2.0, 2.0, 30}, {4.0, 1.0, 20}, {0.5, 0.5, 50}, {3.0, 3.0, 5}};
  const PointStatus status[] = {PointStatus::ok, PointStatus::ok, PointStatus::ok, PointStatus::infeasible,
                                PointStatus::ok};
  for (std::size_t r = 0; r < 5; ++r) {
    t.point_index.push_back(10 * r + 3);
    t.push_label("hw" + std::to_string(r));
    t.status.push_back(status[r]);
    t.push_detail(status[r] == PointStatus::ok ? "" : "does not fit");
    t.metrics.insert(t.metrics.end(), rows[r], rows[r] + 3);
  }
  return t;
}

TEST(ParetoTest, FrontOfAResultTable) {
  const ResultTable t = table_for_front();
  std::vector<Objective> objectives(2);
  objectives[0].metric = "latency_s";
  objectives[1].metric = "cost_usd";
  // Row 3 would dominate all, but it is infeasible; row 4 (3,3) is dominated by row 1 (2,2).
  const auto front = pareto_front(t, objectives);
  EXPECT_EQ(front, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(point_indices_of(t, front), (std::vector<std::uint64_t>{3, 13, 23}));
  const std::vector<std::uint64_t> points = {23, 3};
  EXPECT_EQ(rows_of_points(t, points), (std::vector<std::size_t>{2, 0}));
  const std::vector<std::uint64_t> absent = {4};
  EXPECT_THROW(rows_of_points(t, absent), std::invalid_argument);

  objectives[1].metric = "tokens_per_s";
  objectives[1].direction = Direction::maximize;
  EXPECT_EQ(pareto_front(t, objectives), (std::vector<std::size_t>{0, 1}));

  objectives[1].metric = "cost_dollars";
  try {
    pareto_front(t, objectives);
    FAIL() << "should have thrown";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cost_dollars"), std::string::npos) << what;
    EXPECT_NE(what.find("cost_usd"), std::string::npos) << what;
  }
}

// Knee by the definition in dse/pareto.hpp: normalise each objective over the front to [0, 1],
// distance to the line n1 + n2 = 1 is (1 - n1 - n2) / sqrt(2).
TEST(ParetoTest, KneeIsFarthestFromTheLineThroughTheExtremes) {
  const std::vector<Direction> minmin = {Direction::minimize, Direction::minimize};
  // Extremes (0, 10) and (10, 0); (2, 2) normalises to (0.2, 0.2), (6, 1) to (0.6, 0.1).
  const std::vector<double> v = {0, 10, 2, 2, 6, 1, 10, 0};
  const std::vector<std::size_t> front = {0, 1, 2, 3};
  ASSERT_EQ(pareto_front(v, minmin), front);
  const auto knee = knee_point(v, minmin, front);
  ASSERT_TRUE(knee.has_value());
  EXPECT_EQ(knee->row, 1u);
  EXPECT_DOUBLE_EQ(knee->distance, (1 - 0.2 - 0.2) / std::sqrt(2.0));

  // Rescaling one objective and flipping the other's direction changes nothing.
  std::vector<double> w;
  for (std::size_t r = 0; r < 4; ++r) w.insert(w.end(), {1000 * v[2 * r], -v[2 * r + 1]});
  const std::vector<Direction> minmax = {Direction::minimize, Direction::maximize};
  ASSERT_EQ(pareto_front(w, minmax), front);
  const auto same = knee_point(w, minmax, front);
  ASSERT_TRUE(same.has_value());
  EXPECT_EQ(same->row, 1u);
  EXPECT_DOUBLE_EQ(same->distance, knee->distance);
}

TEST(ParetoTest, KneeTiesGoToTheLowestRow) {
  const std::vector<Direction> minmin = {Direction::minimize, Direction::minimize};
  // (0.5, 0.25) and (0.25, 0.5) are both 0.25 / sqrt(2) from the line (exact in binary).
  const std::vector<double> v = {1, 0, 0.5, 0.25, 0.25, 0.5, 0, 1};
  const std::vector<std::size_t> front = {3, 2, 1, 0};
  const auto knee = knee_point(v, minmin, front);
  ASSERT_TRUE(knee.has_value());
  EXPECT_EQ(knee->row, 1u);
  EXPECT_EQ(knee->distance, 0.25 / std::sqrt(2.0));
}

TEST(ParetoTest, KneeOfDegenerateFronts) {
  const std::vector<Direction> minmin = {Direction::minimize, Direction::minimize};
  const std::vector<double> v = {3, 4, 1, 9, kInf, 0};
  EXPECT_FALSE(knee_point(v, minmin, std::vector<std::size_t>{}).has_value());
  // One row: both objectives are constant over the front and rescale to 0.
  const auto single = knee_point(v, minmin, std::vector<std::size_t>{0});
  ASSERT_TRUE(single.has_value());
  EXPECT_EQ(single->row, 0u);
  EXPECT_EQ(single->distance, 1 / std::sqrt(2.0));
  // Two rows lie on the line joining them.
  const auto pair = knee_point(v, minmin, std::vector<std::size_t>{1, 0});
  ASSERT_TRUE(pair.has_value());
  EXPECT_EQ(pair->row, 0u);
  EXPECT_EQ(pair->distance, 0.0);
  EXPECT_FALSE(knee_point(v, minmin, std::vector<std::size_t>{0, 2}).has_value());
  // A concave front lies behind the line: the middle row has negative distance.
  const std::vector<double> concave = {0, 1, 0.75, 0.75, 1, 0};
  const auto c = knee_point(concave, minmin, std::vector<std::size_t>{0, 1, 2});
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->row, 0u);
  EXPECT_EQ(c->distance, 0.0);
  EXPECT_THROW(knee_point(v, std::vector<Direction>{Direction::minimize}, std::vector<std::size_t>{0}),
               std::invalid_argument);
  EXPECT_THROW(knee_point(v, minmin, std::vector<std::size_t>{3}), std::invalid_argument);
}

TEST(ParetoTest, KneeOfAResultTableReportsTableRows) {
  const ResultTable t = table_for_front();
  std::vector<Objective> objectives(2);
  objectives[0].metric = "latency_s";
  objectives[1].metric = "cost_usd";
  const auto front = pareto_front(t, objectives);  // rows 0, 1, 2: (1,4), (2,2), (4,1)
  // Normalised over the front: (0, 1), (1/3, 1/3), (1, 0).
  const auto knee = knee_point(t, objectives, front);
  ASSERT_TRUE(knee.has_value());
  EXPECT_EQ(knee->row, 1u);
  EXPECT_DOUBLE_EQ(knee->distance, (1 - 2.0 / 3.0) / std::sqrt(2.0));
  const std::vector<std::size_t> reversed(front.rbegin(), front.rend());
  EXPECT_EQ(knee_point(t, objectives, reversed)->row, 1u);
}

}  // namespace
}  // namespace dsx
