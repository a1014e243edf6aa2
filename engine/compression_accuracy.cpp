#include "engine/compression_accuracy.hpp"

namespace dsx {

const PublishedAccuracy* find_published_accuracy(std::span<const PublishedAccuracy> rows,
                                                 const CompressionSetting& setting, AccuracyMetric metric) {
  for (const PublishedAccuracy& row : rows) {
    if (row.metric == metric && row.setting == setting) return &row;
  }
  return nullptr;
}

const PublishedAccuracy* find_published_baseline(std::span<const PublishedAccuracy> rows, AccuracyMetric metric) {
  for (const PublishedAccuracy& row : rows) {
    if (row.metric == metric) return &row;
  }
  return nullptr;
}

}  // namespace dsx
