// Layered left-to-right layout of a directed graph (a simple Sugiyama scheme): edges that
// close a cycle are set aside, each node goes to the layer after its furthest input (the
// longest path; inputs-only nodes such as constants move next to their first consumer),
// nodes are ordered within their layer by the mean position of their neighbours (a few
// sweeps each way), and layers are stacked in columns, so no two nodes overlap. Linear in
// the edges per sweep: a thousand nodes take a few milliseconds.
#pragma once

#include <QPointF>
#include <QRectF>
#include <QSizeF>

#include <utility>
#include <vector>

namespace clab::ui {

class GraphLayout {
 public:
  struct Options {
    double layer_gap = 70;  // between columns
    double node_gap = 28;   // between nodes of one column
    int sweeps = 4;
  };

  // The top-left corner of each node; `edges` are (source, destination) indices.
  static std::vector<QPointF> layered(const std::vector<QSizeF>& sizes, const std::vector<std::pair<int, int>>& edges,
                                      const Options& options);
  static std::vector<QPointF> layered(const std::vector<QSizeF>& sizes, const std::vector<std::pair<int, int>>& edges) {
    return layered(sizes, edges, Options());
  }

  // The top-left corner nearest `wanted` where a node of `size` overlaps none of `taken`
  // (keeping `gap` from each), searched outwards in rings.
  static QPointF freeSpot(const std::vector<QRectF>& taken, QPointF wanted, QSizeF size, double gap = 24);
};

}  // namespace clab::ui
