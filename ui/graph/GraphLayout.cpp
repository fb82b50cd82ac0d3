#include "graph/GraphLayout.h"

#include <QLineF>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <queue>

namespace clab::ui {

std::vector<QPointF> GraphLayout::layered(const std::vector<QSizeF>& sizes,
                                          const std::vector<std::pair<int, int>>& edges, const Options& options) {
  const int n = static_cast<int>(sizes.size());
  std::vector<QPointF> positions(static_cast<size_t>(n));
  if (n == 0) return positions;
  std::vector<std::vector<int>> succ(static_cast<size_t>(n)), pred(static_cast<size_t>(n));
  for (const auto& [src, dst] : edges) {
    if (src < 0 || dst < 0 || src >= n || dst >= n || src == dst) continue;
    succ[static_cast<size_t>(src)].push_back(dst);
    pred[static_cast<size_t>(dst)].push_back(src);
  }

  // A total order: Kahn's, and when only cycles are left, the remaining node with the
  // fewest waiting inputs (lowest index on ties) goes next.
  std::vector<int> waiting(static_cast<size_t>(n));
  for (int v = 0; v < n; ++v) waiting[static_cast<size_t>(v)] = static_cast<int>(pred[static_cast<size_t>(v)].size());
  std::vector<int> rank(static_cast<size_t>(n), -1);
  std::vector<int> order;
  order.reserve(static_cast<size_t>(n));
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (int v = 0; v < n; ++v)
    if (waiting[static_cast<size_t>(v)] == 0) ready.push(v);
  auto take = [&](int v) {
    rank[static_cast<size_t>(v)] = static_cast<int>(order.size());
    order.push_back(v);
    for (int w : succ[static_cast<size_t>(v)])
      if (rank[static_cast<size_t>(w)] < 0 && --waiting[static_cast<size_t>(w)] == 0) ready.push(w);
  };
  while (static_cast<int>(order.size()) < n) {
    if (ready.empty()) {
      int best = -1;
      for (int v = 0; v < n; ++v)
        if (rank[static_cast<size_t>(v)] < 0 &&
            (best < 0 || waiting[static_cast<size_t>(v)] < waiting[static_cast<size_t>(best)]))
          best = v;
      waiting[static_cast<size_t>(best)] = 0;
      ready.push(best);
    }
    const int v = ready.top();
    ready.pop();
    if (rank[static_cast<size_t>(v)] < 0) take(v);
  }
  auto forward = [&](int u, int v) { return rank[static_cast<size_t>(u)] < rank[static_cast<size_t>(v)]; };

  // Layers: the longest path from a source; sources then move up to just before their
  // nearest consumer.
  std::vector<int> layer(static_cast<size_t>(n), 0);
  for (int v : order)
    for (int u : pred[static_cast<size_t>(v)])
      if (forward(u, v))
        layer[static_cast<size_t>(v)] = std::max(layer[static_cast<size_t>(v)], layer[static_cast<size_t>(u)] + 1);
  for (int v = 0; v < n; ++v) {
    bool source = true;
    for (int u : pred[static_cast<size_t>(v)]) source &= !forward(u, v);
    int nearest = -1;
    for (int w : succ[static_cast<size_t>(v)])
      if (forward(v, w))
        nearest = nearest < 0 ? layer[static_cast<size_t>(w)] : std::min(nearest, layer[static_cast<size_t>(w)]);
    if (source && nearest > 0) layer[static_cast<size_t>(v)] = nearest - 1;
  }
  const int layers = *std::max_element(layer.begin(), layer.end()) + 1;
  std::vector<std::vector<int>> columns(static_cast<size_t>(layers));
  for (int v : order) columns[static_cast<size_t>(layer[static_cast<size_t>(v)])].push_back(v);

  // Ordering within layers: barycentres of the neighbours' positions, sweeping right then
  // left.
  std::vector<double> position(static_cast<size_t>(n), 0);
  auto number = [&](const std::vector<int>& column) {
    for (size_t i = 0; i < column.size(); ++i) position[static_cast<size_t>(column[i])] = static_cast<double>(i);
  };
  for (const auto& column : columns) number(column);
  std::vector<double> key(static_cast<size_t>(n), 0);
  auto reorder = [&](std::vector<int>& column, bool by_inputs) {
    for (int v : column) {
      const auto& neighbours = by_inputs ? pred[static_cast<size_t>(v)] : succ[static_cast<size_t>(v)];
      double sum = 0;
      int count = 0;
      for (int w : neighbours) {
        sum += position[static_cast<size_t>(w)];
        ++count;
      }
      key[static_cast<size_t>(v)] = count > 0 ? sum / count : position[static_cast<size_t>(v)];
    }
    std::stable_sort(column.begin(), column.end(),
                     [&](int a, int b) { return key[static_cast<size_t>(a)] < key[static_cast<size_t>(b)]; });
    number(column);
  };
  for (int sweep = 0; sweep < options.sweeps; ++sweep) {
    for (int l = 1; l < layers; ++l) reorder(columns[static_cast<size_t>(l)], true);
    for (int l = layers - 2; l >= 0; --l) reorder(columns[static_cast<size_t>(l)], false);
  }

  // Coordinates: columns left to right, each centred on y = 0.
  double x = 0;
  for (const auto& column : columns) {
    double width = 0, height = 0;
    for (int v : column) {
      width = std::max(width, sizes[static_cast<size_t>(v)].width());
      height += sizes[static_cast<size_t>(v)].height();
    }
    height += options.node_gap * static_cast<double>(std::max<size_t>(column.size(), 1) - 1);
    double y = -height / 2;
    for (int v : column) {
      const QSizeF& size = sizes[static_cast<size_t>(v)];
      positions[static_cast<size_t>(v)] = QPointF(x + (width - size.width()) / 2, y);
      y += size.height() + options.node_gap;
    }
    x += width + options.layer_gap;
  }
  return positions;
}

QPointF GraphLayout::freeSpot(const std::vector<QRectF>& taken, QPointF wanted, QSizeF size, double gap) {
  auto free = [&](QPointF at) {
    const QRectF box = QRectF(at, size).adjusted(-gap, -gap, gap, gap);
    for (const QRectF& other : taken)
      if (box.intersects(other)) return false;
    return true;
  };
  if (free(wanted)) return wanted;
  // Rings of a grid a fraction of the node's size: the nearest free cell of the first ring
  // that has one.
  const double step_x = std::max(20.0, size.width() / 4), step_y = std::max(20.0, size.height() / 4);
  for (int ring = 1; ring <= 200; ++ring) {
    QPointF best;
    double best_distance = -1;
    for (int i = -ring; i <= ring; ++i)
      for (int j = -ring; j <= ring; ++j) {
        if (std::max(std::abs(i), std::abs(j)) != ring) continue;
        const QPointF at = wanted + QPointF(i * step_x, j * step_y);
        const double distance = QLineF(wanted, at).length();
        if ((best_distance < 0 || distance < best_distance) && free(at)) {
          best = at;
          best_distance = distance;
        }
      }
    if (best_distance >= 0) return best;
  }
  // Beyond everything, to the right.
  double right = wanted.x();
  for (const QRectF& other : taken) right = std::max(right, other.right() + gap);
  return {right + gap, wanted.y()};
}

}  // namespace clab::ui
