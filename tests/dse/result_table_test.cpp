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
    t.push_label(std::to_string(r));
    t.status.push_back(PointStatus::ok);
    t.push_detail("");
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

TEST(ResultTable, LabelsAndDetailsAreHeldOnceAndReadBackAsText) {
  ResultTable t;
  t.axis_names = {"hardware", "batch"};
  t.metric_names = {"a"};
  const char* hardware[] = {"h100_sxm", "a100_80gb_sxm", "h100_sxm"};
  for (std::size_t r = 0; r < 300; ++r) {
    t.point_index.push_back(r);
    t.push_labels({hardware[r % 3], std::to_string(1 << (r % 4))});
    t.status.push_back(r % 2 == 0 ? PointStatus::ok : PointStatus::infeasible);
    t.push_detail(r % 2 == 0 ? "" : "does not fit in memory");
    t.metrics.push_back(static_cast<double>(r));
  }
  ASSERT_EQ(t.axis_texts.size(), 2u);
  EXPECT_EQ(t.axis_texts[0].size(), 2u);  // distinct labels, however many rows
  EXPECT_EQ(t.axis_texts[1].size(), 4u);
  EXPECT_EQ(t.detail_texts.size(), 2u);
  for (std::size_t r = 0; r < 300; ++r) {
    EXPECT_EQ(t.label(r, 0), hardware[r % 3]);
    EXPECT_EQ(t.label(r, 1), std::to_string(1 << (r % 4)));
    EXPECT_EQ(t.detail(r), r % 2 == 0 ? "" : "does not fit in memory");
  }
  t.set_detail(0, "constraint 'c': x > 1");
  EXPECT_EQ(t.detail(0), "constraint 'c': x > 1");
  EXPECT_EQ(t.detail(2), "");

  // A copy row by row has its own codes and the same texts.
  ResultTable u;
  u.axis_names = t.axis_names;
  u.metric_names = t.metric_names;
  for (std::size_t r = 299; r-- > 0;) u.append_row(t, r);
  ASSERT_EQ(u.rows(), 299u);
  EXPECT_EQ(u.label(0, 0), t.label(298, 0));
  EXPECT_EQ(u.label(0, 1), t.label(298, 1));
  EXPECT_EQ(u.detail(298), t.detail(0));
  EXPECT_EQ(u.metric(0, 0), 298.0);

  // Cleared rows keep the texts and the room.
  const void* codes = t.axis_codes[0].data();
  t.clear_rows();
  EXPECT_EQ(t.rows(), 0u);
  EXPECT_EQ(t.axis_texts[0].size(), 2u);
  t.point_index.push_back(0);
  t.push_labels({"h100_sxm", "8"});
  EXPECT_EQ(t.axis_codes[0].data(), codes);
  EXPECT_EQ(t.axis_code(0, 0), 0u);  // h100_sxm was the first text of its axis
}

TEST(CodeColumn, WidensOnlyAsFarAsItsLargestCodeAndKeepsEveryCode) {
  CodeColumn c;
  std::vector<std::uint32_t> want;
  for (std::uint32_t v = 0; v < 256; ++v) {
    c.push_back(v);
    want.push_back(v);
  }
  EXPECT_EQ(c.width(), 1u);
  EXPECT_EQ(c.heap_bytes(), 256u);
  c.push_back(256);
  want.push_back(256);
  EXPECT_EQ(c.width(), 2u);
  c.set(3, 70000);
  want[3] = 70000;
  EXPECT_EQ(c.width(), 4u);
  EXPECT_EQ(c.codes(), want);
  c.clear();
  EXPECT_TRUE(c.empty());
  c.push_back(1);
  EXPECT_EQ(c.width(), 4u);  // a refilled column keeps its width and room
  EXPECT_EQ(c[0], 1u);
}

TEST(ResultTable, AnAxisTakesTheBytesItsLabelCountNeeds) {
  ResultTable t;
  t.axis_names = {"few", "many"};
  for (int r = 0; r < 300; ++r) {
    t.point_index.push_back(static_cast<std::uint64_t>(r));
    t.push_labels({r % 2 == 0 ? "even" : "odd", std::to_string(r)});
    t.status.push_back(PointStatus::ok);
    t.push_detail("");
  }
  EXPECT_TRUE(t.columns_agree());
  EXPECT_EQ(t.axis_codes[0].width(), 1u);
  EXPECT_EQ(t.axis_codes[1].width(), 2u);  // 300 labels
  EXPECT_EQ(t.detail_codes.width(), 1u);
  for (int r = 0; r < 300; ++r) {
    ASSERT_EQ(t.label(static_cast<std::size_t>(r), 0), r % 2 == 0 ? "even" : "odd");
    ASSERT_EQ(t.label(static_cast<std::size_t>(r), 1), std::to_string(r));
  }
  t.status.pop_back();
  EXPECT_FALSE(t.columns_agree());
}

TEST(TextDictionary, PushKeepsTheCallersOrderAndCodeFindsTheFirst) {
  TextDictionary d;
  EXPECT_EQ(d.push("1 us"), 0u);
  EXPECT_EQ(d.push("2 us"), 1u);
  EXPECT_EQ(d.push("1 us"), 2u);  // a repeated label keeps its own position
  EXPECT_EQ(d.code("1 us"), 0u);
  EXPECT_EQ(d.code("3 us"), 3u);
  EXPECT_EQ(d.text(2), "1 us");
  EXPECT_EQ(d.size(), 4u);
}

}  // namespace
}  // namespace dsx
