// The base of tf.train's optimizers: Minimize(loss) computes the gradients of the loss with
// respect to the trainable variables (on the workers, next to the forward ops) and hands
// each (variable, gradient) pair to the optimizer's update rule, which builds its ops
// colocated with the variable, so they run on the variable's ps together with any slot
// variables they keep (momentum, squared-gradient averages). With a global step, the step
// is incremented after every update, in the same run.
#pragma once

#include "clab/core/Status.h"
#include "clab/graph/GraphBuilder.h"

#include <optional>
#include <string>
#include <vector>

namespace clab {

class Optimizer {
 public:
  virtual ~Optimizer() = default;

  // The train op (a NoOp named `name`). `variables` empty: the "trainable_variables"
  // collection. FAILED_PRECONDITION when no variable gets a gradient from `loss`.
  StatusOr<Output> Minimize(GraphBuilder& graph, const Output& loss, const std::optional<Output>& global_step = {},
                            std::vector<std::string> variables = {}, std::string_view name = "train");
  // The updates for given gradients (invalid ones are skipped), then the global step.
  StatusOr<Output> ApplyGradients(GraphBuilder& graph, const std::vector<std::pair<Output, Output>>& grads_and_vars,
                                  const std::optional<Output>& global_step = {}, std::string_view name = "train");

  virtual std::string name() const = 0;

  // tf's compute_gradients: (gradient, variable) for each of `variables` (empty: the
  // "trainable_variables" collection), an invalid gradient where the loss does not depend on
  // it. FAILED_PRECONDITION when no variable gets one.
  static StatusOr<std::vector<std::pair<Output, Output>>> ComputeGradients(GraphBuilder& graph, const Output& loss,
                                                                           std::vector<std::string> variables = {});

 protected:
  // The ops that apply `grad` to `var`; called inside a scope colocated with `var`. Returns
  // the op (or tensor) whose completion means the variable is updated.
  virtual StatusOr<Output> ApplyDense(GraphBuilder& graph, const Output& var, const Output& grad) = 0;
  // A sparse gradient: `values` for the rows `indices` of `var` (a repeated row adds up), of
  // `rows` rows in all. Called, colocated with the variable, for the gradient of a Gather
  // (an embedding lookup), so only the values and indices travel to the ps. The default sums
  // them into a dense gradient there and calls ApplyDense; optimizers that can touch only
  // those rows override it.
  virtual StatusOr<Output> ApplySparse(GraphBuilder& graph, const Output& var, const Output& values,
                                       const Output& indices, const Output& rows);
  // Called once after every ApplyDense, with control dependencies on all of them (Adam's
  // beta powers). Returns the extra op, or an invalid Output.
  virtual StatusOr<Output> Finish(GraphBuilder& graph, const std::vector<Output>& updates) { return Output(); }
  // Before the first ApplyDense; `first_var` is where non-slot state lives.
  virtual Status Prepare(GraphBuilder& graph, const Output& first_var) { return OkStatus(); }

  // A scalar constant of the gradient's type.
  static Output Scalar(GraphBuilder& graph, DataType dtype, double value, std::string_view name = "");
  // A slot variable ("<var>/<slot>") shaped like `var`, starting at `initial`, colocated
  // with it and not trainable.
  static StatusOr<Output> Slot(GraphBuilder& graph, const Output& var, const std::string& slot, double initial);
};

}  // namespace clab
