#include "dse/results.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace dsx {
namespace {

ResultTable two_metric_table() {
  ResultTable t;
  t.axis_names = {"batch"};
  t.metric_names = {"a", "b"};
  for (int r = 0; r < 3; ++r) {
    t.point_index.push_back(static_cast<std::uint64_t>(r));
    t.axis_labels.push_back(std::to_string(r));
    t.status.push_back(PointStatus::ok);
    t.status_detail.emplace_back();
    t.metrics.push_back(10.0 * r + 1);
    t.metrics.push_back(10.0 * r + 2);
  }
  return t;
}

TEST(ResultTable, AppendedColumnsWidenEveryRowInPlace) {
  ResultTable t = two_metric_table();
  t.metrics.reserve(t.rows() * 5);
  const double* storage = t.metrics.data();
  const std::vector<std::string> added = {"c", "d", "e"};
  t.append_metric_columns(added);
  EXPECT_EQ(t.metric_names, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  ASSERT_EQ(t.metrics.size(), 15u);
  EXPECT_EQ(t.metrics.data(), storage);  // the reserved room was used, nothing copied elsewhere
  for (std::size_t r = 0; r < 3; ++r) {
    EXPECT_EQ(t.metric(r, 0), 10.0 * static_cast<double>(r) + 1);
    EXPECT_EQ(t.metric(r, 1), 10.0 * static_cast<double>(r) + 2);
    for (std::size_t m = 2; m < 5; ++m) EXPECT_TRUE(std::isnan(t.metric(r, m))) << r << " " << m;
  }
  // Without room it still widens correctly, through a reallocation.
  ResultTable u = two_metric_table();
  u.metrics.shrink_to_fit();
  u.append_metric_columns(added);
  EXPECT_EQ(u.metric(2, 1), 22.0);
  EXPECT_TRUE(std::isnan(u.metric(2, 2)));
}

TEST(ResultTable, KeptColumnsCloseUpInPlace) {
  ResultTable t = two_metric_table();
  const std::vector<std::string> added = {"c", "d"};
  t.append_metric_columns(added);
  for (std::size_t r = 0; r < 3; ++r) t.metrics[r * 4 + 3] = 100.0 + static_cast<double>(r);
  const std::vector<std::size_t> keep = {0, 3};
  t.keep_metric_columns(keep);
  EXPECT_EQ(t.metric_names, (std::vector<std::string>{"a", "d"}));
  EXPECT_EQ(t.metrics, (std::vector<double>{1, 100, 11, 101, 21, 102}));
  EXPECT_THROW(t.keep_metric_columns(std::vector<std::size_t>{1, 0}), std::logic_error);
  EXPECT_THROW(t.keep_metric_columns(std::vector<std::size_t>{2}), std::logic_error);
  t.metrics.pop_back();
  EXPECT_THROW(t.append_metric_columns(added), std::logic_error);
}

}  // namespace
}  // namespace dsx
