#include "graph/GraphBuilders.h"

#include "clab/graph/Graph.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/graph/GraphImport.h"
#include "clab/graph/GraphKeys.h"
#include "clab/ops/Ops.h"
#include "clab/train/AdagradOptimizer.h"
#include "clab/train/AdamOptimizer.h"
#include "clab/train/GlobalStep.h"
#include "clab/train/GradientDescentOptimizer.h"
#include "clab/train/MomentumOptimizer.h"
#include "clab/train/RMSPropOptimizer.h"

#include <QCoreApplication>
#include <cmath>
#include <functional>
#include <memory>
#include <set>

namespace clab::ui {
namespace {

QString Q(const std::string& s) { return QString::fromStdString(s); }

// The graph in a builder, `build` run on it, the result with "init" brought up to date.
StatusOr<BuildResult> Build(const tensorflow::GraphDef& graph,
                            const std::function<StatusOr<Output>(GraphBuilder&)>& build, const QString& description) {
  GraphBuilder g;
  CLAB_RETURN_IF_ERROR(ImportGraphDef(graph, &g));
  CLAB_ASSIGN_OR_RETURN(const Output output, build(g));
  CLAB_RETURN_IF_ERROR(g.status());
  BuildResult result;
  result.graph = g.graph_def();
  result.output = Q(output.node());
  result.description = description;
  // tf.global_variables_initializer() runs every variable's initialiser: "init" gets the new ones.
  tensorflow::NodeDef* init = nullptr;
  for (auto& node : *result.graph.mutable_node())
    if (node.name() == "init" && node.op() == "NoOp") init = &node;
  if (init) {
    std::set<std::string> inputs(init->input().begin(), init->input().end());
    for (const std::string& variable : g.Collection(GraphKeys::kGlobalVariables)) {
      const std::string control = "^" + variable + "/Assign";
      if (g.FindNode(variable + "/Assign") && !inputs.count(control)) init->add_input(control);
    }
  }
  return result;
}

StatusOr<Output> Tensor0(GraphBuilder& g, const QString& name, const char* role) {
  const std::string text = name.trimmed().toStdString();
  CLAB_ASSIGN_OR_RETURN(const TensorId id, TensorId::Parse(text));
  if (!g.FindNode(id.node)) return errors::NotFound(role, " '", text, "' is not in the graph");
  if (static_cast<size_t>(id.index) >= g.Outputs(id.node).size())
    return errors::InvalidArgument(role, " '", text, "': node '", id.node, "' has ", g.Outputs(id.node).size(),
                                   " output(s)");
  return Output(id.node, id.index);
}

std::unique_ptr<Optimizer> MakeOptimizer(const QString& kind, double rate) {
  if (kind == "GradientDescent") return std::make_unique<GradientDescentOptimizer>(rate);
  if (kind == "Momentum") return std::make_unique<MomentumOptimizer>(rate, 0.9);
  if (kind == "Adagrad") return std::make_unique<AdagradOptimizer>(rate);
  if (kind == "RMSProp") return std::make_unique<RMSPropOptimizer>(rate);
  if (kind == "Adam") return std::make_unique<AdamOptimizer>(rate);
  return nullptr;
}

}  // namespace

StatusOr<BuildResult> GraphBuilders::addGlobalStep(const tensorflow::GraphDef& graph) {
  return Build(
      graph, [](GraphBuilder& g) -> StatusOr<Output> { return GetOrCreateGlobalStep(g); },
      QCoreApplication::translate("clab::ui::GraphBuilders", "Add the global step"));
}

StatusOr<BuildResult> GraphBuilders::addDense(const tensorflow::GraphDef& graph, const QString& input, int units,
                                              const QString& activation, const QString& name) {
  if (units < 1) return errors::InvalidArgument("a dense layer needs at least one unit, not ", units);
  if (!activations().contains(activation))
    return errors::InvalidArgument("unknown activation '", activation.toStdString(), "' (want ",
                                   activations().join(", ").toStdString(), ")");
  const QString scope_name = name.trimmed().isEmpty() ? QStringLiteral("dense") : name.trimmed();
  return Build(
      graph,
      [&](GraphBuilder& g) -> StatusOr<Output> {
        CLAB_ASSIGN_OR_RETURN(const Output x, Tensor0(g, input, "the layer's input"));
        const DataType dtype = BaseType(g.TypeOf(x));
        if (dtype != DT_FLOAT && dtype != DT_DOUBLE)
          return errors::InvalidArgument("the layer's input '", x.name(), "' is ", DataTypeName(dtype),
                                         "; a dense layer wants float or double (Cast it first)");
        const PartialShape shape = g.ShapeOf(x);
        if (shape.rank() < 1 || shape.dim(shape.rank() - 1) < 0)
          return errors::InvalidArgument("the layer's input '", x.name(),
                                         "' must have a known last dimension (its shape: ", shape.DebugString(), ")");
        const int64_t fan_in = shape.dim(shape.rank() - 1);
        auto scope = g.WithNameScope(scope_name.toStdString());
        // Glorot uniform, as tf.layers.dense: U(-limit, limit), limit = sqrt(6 / (in + out)).
        const double limit = std::sqrt(6.0 / static_cast<double>(fan_in + units));
        const auto scalar = [&](double v) {
          return dtype == DT_DOUBLE ? ops::Const(g, Tensor::Scalar<double>(v))
                                    : ops::Const(g, Tensor::Scalar<float>(static_cast<float>(v)));
        };
        const int64_t seed = static_cast<int64_t>(std::hash<std::string>()(g.CurrentNameScope()) & 0x7fffffff);
        Output uniform = ops::RandomUniform(g, ops::Const(g, Tensor::Vector<int64_t>({fan_in, units})), dtype, seed, 0,
                                            "kernel/Initializer/random_uniform");
        Output initial =
            ops::Add(g, ops::Mul(g, ops::Sub(g, ops::Mul(g, uniform, scalar(2.0)), scalar(1.0)), scalar(limit)),
                     ops::Const(g, Tensor(dtype, TensorShape({fan_in, units}))), "kernel/initial_value");
        const ops::Variable kernel = ops::MakeVariable(g, initial, "kernel");
        const ops::Variable bias =
            ops::MakeVariable(g, ops::Const(g, Tensor(dtype, TensorShape({units})), "bias/initial_value"), "bias");
        Output y = ops::BiasAdd(g, ops::MatMul(g, x, kernel.read), bias.read);
        if (activation == "relu") y = ops::Relu(g, y);
        if (activation == "sigmoid") y = ops::Sigmoid(g, y);
        if (activation == "tanh") y = ops::Tanh(g, y);
        return y;
      },
      QCoreApplication::translate("clab::ui::GraphBuilders", "Add dense layer %1 (%2 units, %3)")
          .arg(scope_name)
          .arg(units)
          .arg(activation));
}

StatusOr<BuildResult> GraphBuilders::addLoss(const tensorflow::GraphDef& graph, const QString& kind,
                                             const QString& predictions, const QString& labels) {
  if (!losses().contains(kind))
    return errors::InvalidArgument("unknown loss '", kind.toStdString(), "' (want ", losses().join(", ").toStdString(),
                                   ")");
  return Build(
      graph,
      [&](GraphBuilder& g) -> StatusOr<Output> {
        CLAB_ASSIGN_OR_RETURN(const Output p,
                              Tensor0(g, predictions, kind == "mean squared error" ? "the predictions" : "the logits"));
        CLAB_ASSIGN_OR_RETURN(const Output y, Tensor0(g, labels, "the labels"));
        const Output all_axes = ops::Const(g, Tensor::Vector<int32_t>({0}));
        if (kind == "mean squared error") {
          const Output squared = ops::Square(g, ops::Sub(g, p, y));
          // Mean over every element: flatten, then average.
          const Output flat = ops::Reshape(g, squared, ops::Const(g, Tensor::Vector<int32_t>({-1})));
          return ops::Mean(g, flat, all_axes, false, "loss");
        }
        if (!IsIntegerType(BaseType(g.TypeOf(y))))
          return errors::InvalidArgument("sparse softmax cross-entropy wants integer class ids as labels; '", y.name(),
                                         "' is ", DataTypeName(BaseType(g.TypeOf(y))));
        const Output per_example = ops::SparseSoftmaxCrossEntropyWithLogits(g, p, y, "xent");
        return ops::Mean(g, per_example, all_axes, false, "loss");
      },
      QCoreApplication::translate("clab::ui::GraphBuilders", "Add loss (%1)").arg(kind));
}

StatusOr<BuildResult> GraphBuilders::addOptimizer(const tensorflow::GraphDef& graph, const QString& kind,
                                                  double learning_rate, const QString& loss) {
  std::unique_ptr<Optimizer> optimizer = MakeOptimizer(kind, learning_rate);
  if (!optimizer)
    return errors::InvalidArgument("unknown optimizer '", kind.toStdString(), "' (want ",
                                   optimizers().join(", ").toStdString(), ")");
  if (!(learning_rate > 0)) return errors::InvalidArgument("the learning rate must be above 0, not ", learning_rate);
  return Build(
      graph,
      [&](GraphBuilder& g) -> StatusOr<Output> {
        CLAB_ASSIGN_OR_RETURN(const Output l, Tensor0(g, loss, "the loss"));
        const Output global_step = GetOrCreateGlobalStep(g);
        return optimizer->Minimize(g, l, global_step);
      },
      QCoreApplication::translate("clab::ui::GraphBuilders", "Add optimizer %1 (learning rate %2)")
          .arg(kind)
          .arg(learning_rate));
}

}  // namespace clab::ui
