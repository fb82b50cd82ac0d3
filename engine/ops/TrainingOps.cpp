// The update ops TensorFlow 1.x optimizers put in a graph (tf.train.GradientDescent-,
// Momentum-, Adam-, Adagrad- and RMSPropOptimizer): each updates a variable and its slot
// variables in place from a gradient and scalar hyper-parameters, with TensorFlow's
// formulas. The variables are locked together (in a fixed order, so concurrent updates
// cannot deadlock) and copied first when another tensor still shares their buffer. The
// Resource* forms (ResourceApplyAdam...) update resource variables named by handles.
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "clab/runtime/ResourceMgr.h"
#include "ops/ArrayOpsInternal.h"
#include "ops/ResourceHandles.h"

#include <algorithm>
#include <cmath>
#include <mutex>

namespace clab::array_internal {
namespace {

// One optimizer's update of element i. `slots[0]` is the variable, then its slot variables
// in input order; `s` the scalar inputs in input order (the gradient left out); `g` the
// gradient's element.
template <typename T>
using UpdateFn = void (*)(T* const* slots, const T* s, T g, int64_t i, bool nesterov);

template <typename T>
void GradientDescent(T* const* slots, const T* s, T g, int64_t i, bool) {
  slots[0][i] -= s[0] * g;  // alpha
}

template <typename T>
void Momentum(T* const* slots, const T* s, T g, int64_t i, bool nesterov) {
  const T lr = s[0], momentum = s[1];
  T& accum = slots[1][i];
  accum = accum * momentum + g;
  slots[0][i] -= nesterov ? g * lr + accum * momentum * lr : lr * accum;
}

template <typename T>
void Adam(T* const* slots, const T* s, T g, int64_t i, bool nesterov) {
  const T beta1_power = s[0], beta2_power = s[1], lr = s[2], beta1 = s[3], beta2 = s[4], epsilon = s[5];
  const T lr_t = lr * std::sqrt(T(1) - beta2_power) / (T(1) - beta1_power);
  T& m = slots[1][i];
  T& v = slots[2][i];
  m += (g - m) * (T(1) - beta1);
  v += (g * g - v) * (T(1) - beta2);
  const T step = nesterov ? m * beta1 + (T(1) - beta1) * g : m;
  slots[0][i] -= lr_t * step / (std::sqrt(v) + epsilon);
}

template <typename T>
void Adagrad(T* const* slots, const T* s, T g, int64_t i, bool) {
  T& accum = slots[1][i];
  accum += g * g;
  slots[0][i] -= s[0] * g / std::sqrt(accum);
}

template <typename T>
void RMSProp(T* const* slots, const T* s, T g, int64_t i, bool) {
  const T lr = s[0], rho = s[1], momentum = s[2], epsilon = s[3];
  T& ms = slots[1][i];
  T& mom = slots[2][i];
  ms += (g * g - ms) * (T(1) - rho);
  mom = mom * momentum + lr * g / std::sqrt(ms + epsilon);
  slots[0][i] -= mom;
}

struct ApplySpec {
  int num_slots;   // reference inputs first: the variable and its slots
  int grad_index;  // which input is the gradient
  UpdateFn<float> update_float;
  UpdateFn<double> update_double;
};

template <typename T>
void RunUpdate(OpKernelContext* ctx, const ApplySpec& spec, UpdateFn<T> update,
               const std::vector<std::shared_ptr<Variable>>& vars, const Tensor& grad) {
  std::vector<T> scalars;
  for (int k = spec.num_slots; k < ctx->num_inputs(); ++k) {
    if (k == spec.grad_index) continue;
    Tensor value;
    if (!ReadInput(ctx, k, &value)) return;
    if (value.NumElements() != 1)
      return FailInvalidArgument(ctx, "input ", k, " must be a scalar, not shape ", value.shape().DebugString());
    scalars.push_back(value.data<T>()[0]);
  }
  std::vector<T*> slots;
  for (const auto& var : vars) slots.push_back(var->value().data<T>());
  bool nesterov = false;
  GetNodeAttr(ctx->node(), "use_nesterov", &nesterov).IgnoreError();
  const T* g = grad.data<T>();
  for (int64_t i = 0, i_end = grad.NumElements(); i < i_end; ++i)
    update(slots.data(), scalars.data(), g[i], i, nesterov);
}

void ApplyCompute(OpKernelContext* ctx, const ApplySpec& spec, bool resource) {
  std::vector<std::shared_ptr<Variable>> vars;
  for (int k = 0; k < spec.num_slots; ++k) {
    if (resource) {
      vars.push_back(resource_handles::Lookup<Variable>(ctx, k, "resource variable"));
      if (!vars.back()) return;
      continue;
    }
    vars.push_back(ctx->input_ref(k));
    if (!vars.back())
      return FailInvalidArgument(ctx, ctx->node().op(), " needs a variable reference as input ", k, ", but '",
                                 InputNodeName(ctx->node(), k), "' gives a value");
  }
  Tensor grad;
  if (!ReadInput(ctx, spec.grad_index, &grad)) return;

  std::vector<std::mutex*> order;
  for (const auto& var : vars) order.push_back(&var->mu());
  std::sort(order.begin(), order.end());
  order.erase(std::unique(order.begin(), order.end()), order.end());
  std::vector<std::unique_lock<std::mutex>> locks;
  for (std::mutex* mu : order) locks.emplace_back(*mu);

  for (int k = 0; k < spec.num_slots; ++k) {
    Tensor& current = vars[static_cast<size_t>(k)]->value();
    const std::string name = InputNodeName(ctx->node(), k);
    if (!current.IsInitialized()) return ctx->SetStatus(UninitializedError(name, ctx->name()));
    if (current.shape() != grad.shape())
      return FailInvalidArgument(ctx, "'", name, "' has shape ", current.shape().DebugString(),
                                 " but the gradient has ", grad.shape().DebugString());
    if (current.dtype() != grad.dtype())
      return FailInvalidArgument(ctx, "'", name, "' is ", DataTypeName(current.dtype()), " but the gradient is ",
                                 DataTypeName(grad.dtype()));
    // Copy-on-write: a reader still holding the old buffer must not see the update.
    if (!OnlyVariableHolds(ctx, current, grad)) current = current.DeepCopy();
  }
  if (grad.dtype() == DT_FLOAT) {
    RunUpdate<float>(ctx, spec, spec.update_float, vars, grad);
  } else if (grad.dtype() == DT_DOUBLE) {
    RunUpdate<double>(ctx, spec, spec.update_double, vars, grad);
  } else {
    return FailInvalidArgument(ctx, ctx->node().op(), " has no kernel for ", DataTypeName(grad.dtype()));
  }
  if (!resource) ctx->set_output_ref(0, vars[0]);
}

Status VariableShapeOut(ShapeContext& c) {
  c.set_output(0, c.input_shape(0));
  return OkStatus();
}

// Registers the op and its Resource* form, whose variable inputs are resource handles and
// which has no output.
void RegisterApply(OpRegistry& registry, const char* name, std::vector<const char*> inputs, const ApplySpec& spec,
                   bool nesterov, const char* summary) {
  for (const bool resource : {false, true}) {
    OpDefBuilder op = registry.Register(resource ? std::string("Resource") + name : std::string(name));
    for (int k = 0; k < static_cast<int>(inputs.size()); ++k) {
      std::string input = inputs[static_cast<size_t>(k)];
      if (resource && k < spec.num_slots) input = input.substr(0, input.find(':')) + ": resource";
      op.Input(input);
    }
    if (!resource) op.Output("out: Ref(T)");
    op.Attr("T: {float, double}").Attr("use_locking: bool = false");
    if (nesterov) op.Attr("use_nesterov: bool = false");
    if (resource) op.Stateful();
    op.SetShapeFn(resource ? [](ShapeContext&) { return OkStatus(); } : ShapeFn(VariableShapeOut))
        .Kernel("CPU", LambdaKernel([spec, resource](OpKernelContext* ctx) { ApplyCompute(ctx, spec, resource); }))
        .Summary(summary)
        .Group("training");
  }
}

void RegisterTrainingOps(OpRegistry& registry) {
  RegisterApply(registry, "ApplyGradientDescent", {"var: Ref(T)", "alpha: T", "delta: T"},
                {1, 2, GradientDescent<float>, GradientDescent<double>}, false, "var -= alpha * delta.");
  RegisterApply(registry, "ApplyMomentum", {"var: Ref(T)", "accum: Ref(T)", "lr: T", "grad: T", "momentum: T"},
                {2, 3, Momentum<float>, Momentum<double>}, true,
                "accum = accum * momentum + grad; var -= lr * accum (or the Nesterov form).");
  RegisterApply(registry, "ApplyAdam",
                {"var: Ref(T)", "m: Ref(T)", "v: Ref(T)", "beta1_power: T", "beta2_power: T", "lr: T", "beta1: T",
                 "beta2: T", "epsilon: T", "grad: T"},
                {3, 9, Adam<float>, Adam<double>}, true, "One Adam step on var and its m and v slots.");
  RegisterApply(registry, "ApplyAdagrad", {"var: Ref(T)", "accum: Ref(T)", "lr: T", "grad: T"},
                {2, 3, Adagrad<float>, Adagrad<double>}, false, "accum += grad^2; var -= lr * grad / sqrt(accum).");
  RegisterApply(registry, "ApplyRMSProp",
                {"var: Ref(T)", "ms: Ref(T)", "mom: Ref(T)", "lr: T", "rho: T", "momentum: T", "epsilon: T", "grad: T"},
                {3, 7, RMSProp<float>, RMSProp<double>}, false, "One RMSProp step on var and its ms and mom slots.");
}

}  // namespace

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kTrainingOpFamily("training", RegisterTrainingOps);

}  // namespace clab::array_internal
