#include "clab/train/Optimizer.h"

#include "clab/graph/AttrValues.h"
#include "clab/graph/Graph.h"
#include "clab/graph/GraphKeys.h"
#include "clab/ops/Ops.h"
#include "clab/train/GlobalStep.h"
#include "clab/train/Gradients.h"

namespace clab {

Output Optimizer::Scalar(GraphBuilder& g, DataType dtype, double value, std::string_view name) {
  return BaseType(dtype) == DT_DOUBLE ? ops::Const(g, Tensor::Scalar<double>(value), name)
                                      : ops::Const(g, Tensor::Scalar<float>(static_cast<float>(value)), name);
}

StatusOr<Output> Optimizer::Slot(GraphBuilder& g, const Output& var, const std::string& slot, double initial) {
  const tensorflow::NodeDef* node = g.FindNode(var.node());
  if (node == nullptr) return errors::NotFound("variable '", var.node(), "' is not in the graph");
  PartialShape shape;
  DataType dtype = DT_INVALID;
  CLAB_RETURN_IF_ERROR(GetNodeAttr(*node, "shape", &shape));
  CLAB_RETURN_IF_ERROR(GetNodeAttr(*node, "dtype", &dtype));
  if (!shape.IsFullyDefined())
    return errors::FailedPrecondition("the slot '", slot, "' of '", var.node(), "' needs the variable's full shape");
  Tensor value(dtype, shape.AsTensorShape());
  for (int64_t i = 0, i_end = value.NumElements(); i < i_end; ++i) {
    if (dtype == DT_DOUBLE) value.data<double>()[i] = initial;
    else value.data<float>()[i] = static_cast<float>(initial);
  }
  auto scope = g.WithoutDevice();
  auto colocate = g.ColocateWith(var);
  ops::Variable variable =
      ops::MakeVariable(g, ops::Const(g, value, var.node() + "/" + slot + "/initial_value"), var.node() + "/" + slot,
                        /*trainable=*/false);
  return variable.var;
}

StatusOr<Output> Optimizer::ApplySparse(GraphBuilder& g, const Output& var, const Output& values, const Output& indices,
                                        const Output& rows) {
  return ApplyDense(g, var, ops::UnsortedSegmentSum(g, values, indices, rows, var.node() + "/sparse_to_dense"));
}

StatusOr<std::vector<std::pair<Output, Output>>> Optimizer::ComputeGradients(GraphBuilder& g, const Output& loss,
                                                                             std::vector<std::string> variables) {
  if (variables.empty()) variables = g.Collection(GraphKeys::kTrainableVariables);
  std::vector<Output> xs;
  for (const std::string& variable : variables) xs.emplace_back(variable, 0);
  CLAB_ASSIGN_OR_RETURN(std::vector<Output> grads, Gradients(g, loss, xs));
  std::vector<std::pair<Output, Output>> pairs;
  for (size_t i = 0; i < xs.size(); ++i) pairs.emplace_back(grads[i], xs[i]);
  bool any = false;
  for (const auto& [grad, var] : pairs) any |= grad.valid();
  if (!any)
    return errors::FailedPrecondition("No gradients for any variable: the loss '", loss.name(),
                                      "' does not depend on any of ", variables.size(), " trainable variables");
  return pairs;
}

StatusOr<Output> Optimizer::Minimize(GraphBuilder& g, const Output& loss, const std::optional<Output>& global_step,
                                     std::vector<std::string> variables, std::string_view name) {
  CLAB_ASSIGN_OR_RETURN(auto pairs, ComputeGradients(g, loss, std::move(variables)));
  return ApplyGradients(g, pairs, global_step, name);
}

StatusOr<Output> Optimizer::ApplyGradients(GraphBuilder& g,
                                           const std::vector<std::pair<Output, Output>>& grads_and_vars,
                                           const std::optional<Output>& global_step, std::string_view name) {
  std::vector<Output> updates;
  {
    auto scope = g.WithNameScope(this->name());
    bool prepared = false;
    for (const auto& [grad, var] : grads_and_vars) {
      if (!grad.valid()) continue;  // the loss does not depend on this variable
      if (!prepared) {
        CLAB_RETURN_IF_ERROR(Prepare(g, var));
        prepared = true;
      }
      auto colocate = g.ColocateWith(var);
      // Gather's gradient arrives as UnsortedSegmentSum(values, indices, rows) built on the
      // worker; its inputs are the sparse gradient, and that node is then never run.
      const tensorflow::NodeDef* grad_node = g.FindNode(grad.node());
      Output update;
      if (grad_node != nullptr && grad_node->op() == "UnsortedSegmentSum" && grad_node->input_size() >= 3) {
        std::vector<Output> sparse;
        for (int i = 0; i < 3; ++i) {
          CLAB_ASSIGN_OR_RETURN(TensorId id, TensorId::Parse(grad_node->input(i)));
          sparse.emplace_back(id.node, id.index);
        }
        CLAB_ASSIGN_OR_RETURN(update, ApplySparse(g, var, sparse[0], sparse[1], sparse[2]));
      } else {
        CLAB_ASSIGN_OR_RETURN(update, ApplyDense(g, var, grad));
      }
      updates.push_back(update.control());
    }
    if (updates.empty()) return errors::FailedPrecondition("ApplyGradients: no gradient to apply");
    auto after = g.WithControlDependencies(updates);
    CLAB_ASSIGN_OR_RETURN(Output extra, Finish(g, updates));
    if (extra.valid()) updates.push_back(extra.control());
  }
  std::vector<Output> done = updates;
  if (global_step) {
    auto after_updates = g.WithControlDependencies(updates);
    done = {IncrementGlobalStep(g, *global_step).control()};
  }
  Output train = ops::NoOp(g, done, name);
  CLAB_RETURN_IF_ERROR(g.status());
  g.AddToCollection(GraphKeys::kTrainOp, train.node());
  return train;
}

}  // namespace clab
