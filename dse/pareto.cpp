#include "dse/pareto.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>

namespace dsx {

namespace {

// Rows that take part, with objectives turned into "smaller is better" (maximised ones negated,
// which is exact), stored contiguously.
struct Oriented {
  std::size_t k = 0;
  std::vector<double> values;     // rows x k
  std::vector<std::size_t> rows;  // original row of each
  const double* at(std::size_t i) const { return values.data() + i * k; }
};

Oriented orient(std::span<const double> values, std::span<const Direction> directions,
                std::span<const std::uint8_t> feasible) {
  const std::size_t k = directions.size();
  if (k == 0) throw std::invalid_argument("pareto_front: no objectives");
  if (values.size() % k != 0) {
    throw std::invalid_argument("pareto_front: " + std::to_string(values.size()) +
                                " values is not a whole number of rows of " + std::to_string(k));
  }
  const std::size_t n = values.size() / k;
  if (!feasible.empty() && feasible.size() != n) {
    throw std::invalid_argument("pareto_front: " + std::to_string(feasible.size()) +
                                " feasibility flags for " + std::to_string(n) + " rows");
  }
  Oriented o;
  o.k = k;
  o.values.reserve(values.size());
  o.rows.reserve(n);
  for (std::size_t r = 0; r < n; ++r) {
    if (!feasible.empty() && feasible[r] == 0) continue;
    const double* v = values.data() + r * k;
    if (std::any_of(v, v + k, [](double x) { return std::isnan(x); })) continue;
    for (std::size_t j = 0; j < k; ++j) {
      o.values.push_back(directions[j] == Direction::maximize ? -v[j] : v[j]);
    }
    o.rows.push_back(r);
  }
  return o;
}

std::vector<std::size_t> front_2d(const Oriented& o) {
  // Positions in `o` sorted by (a, b, row): 4 bytes a row where a copy of the values would take 24
  // (o.rows ascend, so the position orders ties as the row does).
  if (o.rows.size() > std::numeric_limits<std::uint32_t>::max()) throw std::length_error("pareto_front: too many rows");
  std::vector<std::uint32_t> order(o.rows.size());
  std::iota(order.begin(), order.end(), std::uint32_t{0});
  const auto a = [&](std::uint32_t i) { return o.at(i)[0]; };
  const auto b = [&](std::uint32_t i) { return o.at(i)[1]; };
  std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
    if (a(x) != a(y)) return a(x) < a(y);
    if (b(x) != b(y)) return b(x) < b(y);
    return x < y;
  });

  std::vector<std::size_t> front;
  bool have_best = false;
  double best_b = 0;  // smallest second objective among rows with a strictly smaller first one
  for (std::size_t i = 0; i < order.size();) {
    std::size_t end = i + 1;
    while (end < order.size() && a(order[end]) == a(order[i])) ++end;
    const double group_b = b(order[i]);  // the group is sorted by b: its best comes first
    if (!have_best || group_b < best_b) {
      for (std::size_t j = i; j < end && b(order[j]) == group_b; ++j) front.push_back(o.rows[order[j]]);
      best_b = group_b;
      have_best = true;
    }
    i = end;
  }
  std::sort(front.begin(), front.end());
  return front;
}

std::vector<std::size_t> front_3d(const Oriented& o) {
  struct Item {
    double a;
    double b;
    double c;
    std::size_t row;
  };
  std::vector<Item> items(o.rows.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    items[i] = {o.at(i)[0], o.at(i)[1], o.at(i)[2], o.rows[i]};
  }
  std::sort(items.begin(), items.end(), [](const Item& x, const Item& y) {
    if (x.a != y.a) return x.a < y.a;
    if (x.b != y.b) return x.b < y.b;
    if (x.c != y.c) return x.c < y.c;
    return x.row < y.row;
  });

  // The (b, c) staircase of every row with a strictly smaller first objective: keys b ascending,
  // values c strictly descending, so the entry at or below b holds the least c among keys <= b.
  std::map<double, double> stair;
  auto covered = [&](double b, double c) {
    auto it = stair.upper_bound(b);
    if (it == stair.begin()) return false;
    return std::prev(it)->second <= c;
  };
  auto add = [&](double b, double c) {
    if (covered(b, c)) return;
    auto it = stair.lower_bound(b);
    while (it != stair.end() && it->second >= c) it = stair.erase(it);
    stair.emplace(b, c);
  };

  std::vector<std::size_t> front;
  for (std::size_t i = 0; i < items.size();) {
    std::size_t group_end = i + 1;
    while (group_end < items.size() && items[group_end].a == items[i].a) ++group_end;
    // Within the group (equal a) a row is dominated by one with no larger b and c, not both equal:
    // the two-objective sweep over (b, c). Across groups, by a staircase entry no larger in b and c.
    bool have_best = false;
    double best_c = 0;
    for (std::size_t s = i; s < group_end;) {
      std::size_t end = s + 1;
      while (end < group_end && items[end].b == items[s].b) ++end;
      const double sub_c = items[s].c;
      if ((!have_best || sub_c < best_c) && !covered(items[s].b, sub_c)) {
        for (std::size_t j = s; j < end && items[j].c == sub_c; ++j) front.push_back(items[j].row);
      }
      if (!have_best || sub_c < best_c) best_c = sub_c;
      have_best = true;
      s = end;
    }
    for (std::size_t s = i; s < group_end; ++s) add(items[s].b, items[s].c);
    i = group_end;
  }
  std::sort(front.begin(), front.end());
  return front;
}

std::vector<std::size_t> front_general(const Oriented& o) {
  const std::size_t k = o.k;
  std::vector<std::size_t> order(o.rows.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    const double* a = o.at(x);
    const double* b = o.at(y);
    for (std::size_t j = 0; j < k; ++j) {
      if (a[j] != b[j]) return a[j] < b[j];
    }
    return o.rows[x] < o.rows[y];
  });

  std::vector<std::size_t> front;  // positions in `o`, in sorted order
  bool previous_kept = false;
  for (std::size_t s = 0; s < order.size(); ++s) {
    const double* p = o.at(order[s]);
    if (s > 0 && std::equal(p, p + k, o.at(order[s - 1]))) {
      // An exact duplicate shares its twin's fate: equal rows do not dominate each other.
      if (previous_kept) front.push_back(order[s]);
      continue;
    }
    // Every front row sorts before p and differs from it, so it dominates p exactly when it is
    // no worse everywhere; objective 0 is no worse by the sort order.
    bool dominated = false;
    for (const std::size_t f : front) {
      const double* q = o.at(f);
      std::size_t j = 1;
      while (j < k && q[j] <= p[j]) ++j;
      if (j == k) {
        dominated = true;
        break;
      }
    }
    previous_kept = !dominated;
    if (!dominated) front.push_back(order[s]);
  }
  std::vector<std::size_t> rows(front.size());
  for (std::size_t i = 0; i < front.size(); ++i) rows[i] = o.rows[front[i]];
  std::sort(rows.begin(), rows.end());
  return rows;
}

struct ObjectiveMatrix {
  std::vector<double> values;
  std::vector<Direction> directions;
};

ObjectiveMatrix objective_matrix(const ResultTable& table, std::span<const Objective> objectives,
                                 std::span<const std::size_t> only_rows, bool all_rows) {
  std::vector<std::size_t> columns;
  ObjectiveMatrix m;
  for (const Objective& obj : objectives) {
    const int c = table.metric_column(obj.metric);
    if (c < 0) {
      std::string names;
      for (const auto& n : table.metric_names) names += (names.empty() ? "" : ", ") + n;
      throw std::invalid_argument("objective metric '" + obj.metric +
                                  "' is not a column of the results (metrics: " + names + ")");
    }
    columns.push_back(static_cast<std::size_t>(c));
    m.directions.push_back(obj.direction);
  }
  const std::size_t n = all_rows ? table.rows() : only_rows.size();
  m.values.reserve(n * columns.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t row = all_rows ? i : only_rows[i];
    if (row >= table.rows()) throw std::invalid_argument("row " + std::to_string(row) + " is not in the table");
    for (const std::size_t c : columns) m.values.push_back(table.metric(row, c));
  }
  return m;
}

}  // namespace

std::vector<std::size_t> pareto_front(std::span<const double> values,
                                      std::span<const Direction> directions,
                                      std::span<const std::uint8_t> feasible) {
  const Oriented o = orient(values, directions, feasible);
  switch (o.k) {
    case 2: return front_2d(o);
    case 3: return front_3d(o);
    default: return front_general(o);
  }
}

std::vector<std::size_t> pareto_front(const ResultTable& table, std::span<const Objective> objectives) {
  const ObjectiveMatrix m = objective_matrix(table, objectives, {}, true);
  std::vector<std::uint8_t> feasible(table.rows());
  for (std::size_t r = 0; r < table.rows(); ++r) feasible[r] = table.status[r] == PointStatus::ok ? 1 : 0;
  return pareto_front(m.values, m.directions, feasible);
}

std::optional<Knee> knee_point(std::span<const double> values, std::span<const Direction> directions,
                               std::span<const std::size_t> front_rows) {
  if (directions.size() != 2) {
    throw std::invalid_argument("knee_point: needs exactly 2 objectives, got " +
                                std::to_string(directions.size()));
  }
  if (values.size() % 2 != 0) throw std::invalid_argument("knee_point: odd number of values");
  const std::size_t n = values.size() / 2;
  if (front_rows.empty()) return std::nullopt;

  double lo[2] = {0, 0};
  double hi[2] = {0, 0};
  for (std::size_t i = 0; i < front_rows.size(); ++i) {
    const std::size_t r = front_rows[i];
    if (r >= n) throw std::invalid_argument("knee_point: row " + std::to_string(r) + " out of range");
    for (int j = 0; j < 2; ++j) {
      const double v = values[r * 2 + static_cast<std::size_t>(j)];
      if (!std::isfinite(v)) return std::nullopt;
      const double oriented = directions[static_cast<std::size_t>(j)] == Direction::maximize ? -v : v;
      if (i == 0 || oriented < lo[j]) lo[j] = oriented;
      if (i == 0 || oriented > hi[j]) hi[j] = oriented;
    }
  }

  std::optional<Knee> best;
  for (const std::size_t r : front_rows) {
    double normalised[2];
    for (int j = 0; j < 2; ++j) {
      const double v = values[r * 2 + static_cast<std::size_t>(j)];
      const double oriented = directions[static_cast<std::size_t>(j)] == Direction::maximize ? -v : v;
      const double range = hi[j] - lo[j];
      normalised[j] = range > 0 ? (oriented - lo[j]) / range : 0.0;
    }
    const double distance = (1.0 - normalised[0] - normalised[1]) / std::sqrt(2.0);
    if (!best || distance > best->distance || (distance == best->distance && r < best->row)) {
      best = Knee{r, distance};
    }
  }
  return best;
}

std::optional<Knee> knee_point(const ResultTable& table, std::span<const Objective> objectives,
                               std::span<const std::size_t> front_rows) {
  // Ascending, so that the lowest local index of a tie is also the lowest table row.
  std::vector<std::size_t> rows(front_rows.begin(), front_rows.end());
  std::sort(rows.begin(), rows.end());
  const ObjectiveMatrix m = objective_matrix(table, objectives, rows, false);
  std::vector<std::size_t> local(rows.size());
  std::iota(local.begin(), local.end(), std::size_t{0});
  std::optional<Knee> knee = knee_point(m.values, m.directions, local);
  if (knee) knee->row = rows[knee->row];
  return knee;
}

std::vector<std::uint64_t> point_indices_of(const ResultTable& table, std::span<const std::size_t> rows) {
  std::vector<std::uint64_t> out;
  out.reserve(rows.size());
  for (const std::size_t r : rows) {
    if (r >= table.rows()) throw std::invalid_argument("row " + std::to_string(r) + " is not in the table");
    out.push_back(table.point_index[r]);
  }
  return out;
}

std::vector<std::size_t> rows_of_points(const ResultTable& table, std::span<const std::uint64_t> points) {
  std::vector<std::size_t> out;
  out.reserve(points.size());
  for (const std::uint64_t p : points) {
    const auto it = std::lower_bound(table.point_index.begin(), table.point_index.end(), p);
    if (it == table.point_index.end() || *it != p) {
      throw std::invalid_argument("point " + std::to_string(p) + " is not in the results");
    }
    out.push_back(static_cast<std::size_t>(it - table.point_index.begin()));
  }
  return out;
}

}  // namespace dsx
