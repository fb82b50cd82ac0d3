// Builders for the pieces of a model nobody wants to drag together node by node, each an
// edit of a whole GraphDef (the graph editor applies the result as one undo step): a global
// step, a dense layer, a loss, an optimizer with its gradients and apply ops. They build
// with the engine's own ops, gradients and optimizers, so the nodes are exactly those a
// program would get. When the graph has an initialiser named "init", it is kept up to date
// with the new variables (as if tf.global_variables_initializer() were called again).
#pragma once

#include "clab/core/Status.h"
#include "tensorflow/graph.pb.h"

#include <QString>
#include <QStringList>

namespace clab::ui {

struct BuildResult {
  tensorflow::GraphDef graph;
  QString output;       // the main new node ("dense/Relu", "loss", "train", "global_step")
  QString description;  // for the undo history ("Add dense layer dense (8 units, relu)")
};

class GraphBuilders {
 public:
  static QStringList activations() { return {"none", "relu", "sigmoid", "tanh"}; }
  static QStringList losses() { return {"sparse softmax cross-entropy", "mean squared error"}; }
  static QStringList optimizers() { return {"GradientDescent", "Momentum", "Adagrad", "RMSProp", "Adam"}; }

  // The int64 scalar variable "global_step" (with its initialiser and read), if missing.
  static StatusOr<BuildResult> addGlobalStep(const tensorflow::GraphDef& graph);
  // activation(input . W + b) in name scope `name`, W of [input's last dimension, units]
  // drawn Glorot-uniform in the graph (RandomUniform, seed from the layer's name), b zeros.
  // INVALID_ARGUMENT when the input's last dimension is not known.
  static StatusOr<BuildResult> addDense(const tensorflow::GraphDef& graph, const QString& input, int units,
                                        const QString& activation, const QString& name);
  // The mean over the batch of the loss between `predictions` and `labels`, named "loss"
  // (or loss_1...): sparse softmax cross-entropy (logits and int class ids) or mean squared
  // error (predictions and targets of the same shape).
  static StatusOr<BuildResult> addLoss(const tensorflow::GraphDef& graph, const QString& kind,
                                       const QString& predictions, const QString& labels);
  // optimizer.minimize(loss, global_step): gradients on the loss's side, apply ops and slots
  // with each variable, the global step made when missing; the train op is named "train".
  static StatusOr<BuildResult> addOptimizer(const tensorflow::GraphDef& graph, const QString& kind,
                                            double learning_rate, const QString& loss);
};

}  // namespace clab::ui
