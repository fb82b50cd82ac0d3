// The update ops TensorFlow 1.x optimizers put in a graph (tf.train.GradientDescent-,
// Momentum-, Adam-, Adagrad- and RMSPropOptimizer): each updates a variable and its slot
// variables in place from a gradient and scalar hyper-parameters, with TensorFlow's
// formulas (also FTRL-Proximal and Adadelta). The Sparse* forms update only the rows their
// indices name. The variables are locked together (in a fixed order, so concurrent updates
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
#include <string_view>

namespace clab::array_internal {
namespace {

// One optimizer's update of element i. `slots[0]` is the variable, then its slot variables
// in input order; `s` the scalar inputs in input order (the gradient and indices left out);
// `g` the gradient's element; `flag` the op's bool attr (use_nesterov, update_slots).
template <typename T>
using UpdateFn = void (*)(T* const* slots, const T* s, T g, int64_t i, bool flag);

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
void Adagrad(T* const* slots, const T* s, T g, int64_t i, bool update_slots) {
  T& accum = slots[1][i];
  if (update_slots) accum += g * g;
  slots[0][i] -= s[0] * g / std::sqrt(accum);
}

// FTRL-Proximal (tf.train.FtrlOptimizer; the wide part of a wide-and-deep model):
//   new_accum = accum + g^2
//   linear += g - (new_accum^-p - accum^-p) / lr * var          (p = lr_power, usually -0.5)
//   var = |linear| > l1 ? (sign(linear) * l1 - linear) / (new_accum^-p / lr + 2 * l2) : 0
template <typename T>
T PowerOf(T accum, T lr_power) {
  return lr_power == T(-0.5) ? std::sqrt(accum) : std::pow(accum, -lr_power);
}

template <typename T>
void FtrlStep(T* const* slots, T lr, T l1, T l2, T lr_power, T g, T shrunk_g, int64_t i) {
  T& var = slots[0][i];
  T& accum = slots[1][i];
  T& linear = slots[2][i];
  const T new_accum = accum + g * g;
  linear += shrunk_g - (PowerOf(new_accum, lr_power) - PowerOf(accum, lr_power)) / lr * var;
  const T quadratic = PowerOf(new_accum, lr_power) / lr + T(2) * l2;
  const T sign = linear > T(0) ? T(1) : (linear < T(0) ? T(-1) : T(0));
  var = std::abs(linear) > l1 ? (sign * l1 - linear) / quadratic : T(0);
  accum = new_accum;
}

template <typename T>
void Ftrl(T* const* slots, const T* s, T g, int64_t i, bool) {
  FtrlStep(slots, s[0], s[1], s[2], s[3], g, g, i);  // lr, l1, l2, lr_power
}

// FtrlV2 adds l2_shrinkage, which pulls the gradient towards zero weights: g + 2 * l2s * var.
template <typename T>
void FtrlV2(T* const* slots, const T* s, T g, int64_t i, bool) {
  FtrlStep(slots, s[0], s[1], s[2], s[4], g, g + T(2) * s[3] * slots[0][i], i);  // lr, l1, l2, l2s, lr_power
}

template <typename T>
void Adadelta(T* const* slots, const T* s, T g, int64_t i, bool) {
  const T lr = s[0], rho = s[1], epsilon = s[2];
  T& accum = slots[1][i];
  T& accum_update = slots[2][i];
  accum = accum * rho + g * g * (T(1) - rho);
  const T update = std::sqrt(accum_update + epsilon) / std::sqrt(accum + epsilon) * g;
  slots[0][i] -= update * lr;
  accum_update = accum_update * rho + update * update * (T(1) - rho);
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
  int indices_index = -1;      // the Sparse* forms: which input holds the rows to update
  const char* flag_attr = "";  // the bool attr passed to the update, if the op has one
  bool flag_default = false;
};

// Where gradient element k goes in the variable: k itself (dense), or its row's place
// (sparse: the gradient is [len(indices)] + var.shape[1:]).
struct Placement {
  std::vector<int64_t> rows;  // empty: dense
  int64_t inner = 1;
  int64_t At(int64_t k) const { return rows.empty() ? k : rows[static_cast<size_t>(k / inner)] * inner + k % inner; }
};

template <typename T>
void RunUpdate(OpKernelContext* ctx, const ApplySpec& spec, UpdateFn<T> update,
               const std::vector<std::shared_ptr<Variable>>& vars, const Tensor& grad, const Placement& place) {
  std::vector<T> scalars;
  for (int k = spec.num_slots; k < ctx->num_inputs(); ++k) {
    if (k == spec.grad_index || k == spec.indices_index) continue;
    Tensor value;
    if (!ReadInput(ctx, k, &value)) return;
    if (value.NumElements() != 1)
      return FailInvalidArgument(ctx, "input ", k, " must be a scalar, not shape ", value.shape().DebugString());
    scalars.push_back(value.data<T>()[0]);
  }
  std::vector<T*> slots;
  for (const auto& var : vars) slots.push_back(var->value().data<T>());
  bool flag = spec.flag_default;
  if (*spec.flag_attr != '\0') GetNodeAttr(ctx->node(), spec.flag_attr, &flag).IgnoreError();
  const T* g = grad.data<T>();
  for (int64_t k = 0, k_end = grad.NumElements(); k < k_end; ++k)
    update(slots.data(), scalars.data(), g[k], place.At(k), flag);
}

// The gradient's shape against the variable's: equal (dense), or [len(indices)] +
// var.shape[1:] with every index a row of the variable (sparse). False with the status set.
bool PlaceGradient(OpKernelContext* ctx, const ApplySpec& spec, const Tensor& var, const std::string& name,
                   const Tensor& grad, Placement* place) {
  if (spec.indices_index < 0) {
    if (var.shape() == grad.shape()) return true;
    FailInvalidArgument(ctx, "'", name, "' has shape ", var.shape().DebugString(), " but the gradient has ",
                        grad.shape().DebugString());
    return false;
  }
  auto rows = ReadIndexVector(ctx->input(spec.indices_index));
  std::vector<int64_t> expected = var.shape().dims();
  if (!rows.ok() || ctx->input(spec.indices_index).shape().rank() != 1 || expected.empty()) {
    FailInvalidArgument(ctx, "indices must be an integer vector and '", name, "' at least a vector");
    return false;
  }
  expected[0] = static_cast<int64_t>(rows->size());
  if (!(grad.shape() == TensorShape(expected))) {
    FailInvalidArgument(ctx, "the gradient must have shape ", TensorShape(expected).DebugString(), " (one row of '",
                        name, "' per index), got ", grad.shape().DebugString());
    return false;
  }
  for (size_t k = 0; k < rows->size(); ++k)
    if ((*rows)[k] < 0 || (*rows)[k] >= var.shape().dim(0)) {
      FailInvalidArgument(ctx, "indices[", k, "] = ", (*rows)[k], " is not a row of '", name, "' (", var.shape().dim(0),
                          " rows)");
      return false;
    }
  place->rows = std::move(*rows);
  place->inner = var.shape().dim(0) == 0 ? 1 : var.NumElements() / var.shape().dim(0);
  return true;
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

  Placement place;
  for (int k = 0; k < spec.num_slots; ++k) {
    Tensor& current = vars[static_cast<size_t>(k)]->value();
    const std::string name = InputNodeName(ctx->node(), k);
    if (!current.IsInitialized()) return ctx->SetStatus(UninitializedError(name, ctx->name()));
    if (!PlaceGradient(ctx, spec, current, name, grad, &place)) return;
    if (current.dtype() != grad.dtype())
      return FailInvalidArgument(ctx, "'", name, "' is ", DataTypeName(current.dtype()), " but the gradient is ",
                                 DataTypeName(grad.dtype()));
    // Copy-on-write: a reader still holding the old buffer must not see the update.
    if (!OnlyVariableHolds(ctx, current, grad)) current = current.DeepCopy();
  }
  if (grad.dtype() == DT_FLOAT) {
    RunUpdate<float>(ctx, spec, spec.update_float, vars, grad, place);
  } else if (grad.dtype() == DT_DOUBLE) {
    RunUpdate<double>(ctx, spec, spec.update_double, vars, grad, place);
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
                   const char* summary) {
  for (const bool resource : {false, true}) {
    OpDefBuilder op = registry.Register(resource ? std::string("Resource") + name : std::string(name));
    for (int k = 0; k < static_cast<int>(inputs.size()); ++k) {
      std::string input = inputs[static_cast<size_t>(k)];
      if (resource && k < spec.num_slots) input = input.substr(0, input.find(':')) + ": resource";
      op.Input(input);
    }
    if (!resource) op.Output("out: Ref(T)");
    op.Attr("T: {float, double}").Attr("use_locking: bool = false");
    if (spec.indices_index >= 0) op.Attr("Tindices: {int32, int64}");
    if (std::string_view(spec.flag_attr) == "use_nesterov") op.Attr("use_nesterov: bool = false");
    if (std::string_view(spec.flag_attr) == "update_slots") op.Attr("update_slots: bool = true");
    if (resource) op.Stateful();
    op.SetShapeFn(resource ? [](ShapeContext&) { return OkStatus(); } : ShapeFn(VariableShapeOut))
        .Kernel("CPU", LambdaKernel([spec, resource](OpKernelContext* ctx) { ApplyCompute(ctx, spec, resource); }))
        .Summary(summary)
        .Group("training");
  }
}

ApplySpec Sparse(ApplySpec spec, int indices_index) {
  spec.indices_index = indices_index;
  return spec;
}

void RegisterTrainingOps(OpRegistry& registry) {
  const ApplySpec momentum{2, 3, Momentum<float>, Momentum<double>, -1, "use_nesterov", false};
  const ApplySpec adam{3, 9, Adam<float>, Adam<double>, -1, "use_nesterov", false};
  const ApplySpec adagrad{2, 3, Adagrad<float>, Adagrad<double>, -1, "update_slots", true};
  const ApplySpec rmsprop{3, 7, RMSProp<float>, RMSProp<double>};
  const ApplySpec ftrl{3, 3, Ftrl<float>, Ftrl<double>};
  const ApplySpec ftrl_v2{3, 3, FtrlV2<float>, FtrlV2<double>};
  const ApplySpec adadelta{3, 6, Adadelta<float>, Adadelta<double>};
  RegisterApply(registry, "ApplyGradientDescent", {"var: Ref(T)", "alpha: T", "delta: T"},
                {1, 2, GradientDescent<float>, GradientDescent<double>}, "var -= alpha * delta.");
  RegisterApply(registry, "ApplyMomentum", {"var: Ref(T)", "accum: Ref(T)", "lr: T", "grad: T", "momentum: T"},
                momentum, "accum = accum * momentum + grad; var -= lr * accum (or the Nesterov form).");
  RegisterApply(registry, "SparseApplyMomentum",
                {"var: Ref(T)", "accum: Ref(T)", "lr: T", "grad: T", "indices: Tindices", "momentum: T"},
                Sparse(momentum, 4), "ApplyMomentum on the rows of var and accum that indices name.");
  RegisterApply(registry, "ApplyAdam",
                {"var: Ref(T)", "m: Ref(T)", "v: Ref(T)", "beta1_power: T", "beta2_power: T", "lr: T", "beta1: T",
                 "beta2: T", "epsilon: T", "grad: T"},
                adam, "One Adam step on var and its m and v slots.");
  RegisterApply(registry, "ApplyAdagrad", {"var: Ref(T)", "accum: Ref(T)", "lr: T", "grad: T"}, adagrad,
                "accum += grad^2; var -= lr * grad / sqrt(accum).");
  RegisterApply(registry, "SparseApplyAdagrad",
                {"var: Ref(T)", "accum: Ref(T)", "lr: T", "grad: T", "indices: Tindices"}, Sparse(adagrad, 4),
                "ApplyAdagrad on the rows of var and accum that indices name.");
  RegisterApply(registry, "ApplyRMSProp",
                {"var: Ref(T)", "ms: Ref(T)", "mom: Ref(T)", "lr: T", "rho: T", "momentum: T", "epsilon: T", "grad: T"},
                rmsprop, "One RMSProp step on var and its ms and mom slots.");
  RegisterApply(registry, "SparseApplyRMSProp",
                {"var: Ref(T)", "ms: Ref(T)", "mom: Ref(T)", "lr: T", "rho: T", "momentum: T", "epsilon: T", "grad: T",
                 "indices: Tindices"},
                Sparse(rmsprop, 8), "ApplyRMSProp on the rows that indices name.");
  RegisterApply(registry, "ApplyFtrl",
                {"var: Ref(T)", "accum: Ref(T)", "linear: Ref(T)", "grad: T", "lr: T", "l1: T", "l2: T", "lr_power: T"},
                ftrl, "One FTRL-Proximal step on var and its accum and linear slots.");
  RegisterApply(registry, "SparseApplyFtrl",
                {"var: Ref(T)", "accum: Ref(T)", "linear: Ref(T)", "grad: T", "indices: Tindices", "lr: T", "l1: T",
                 "l2: T", "lr_power: T"},
                Sparse(ftrl, 4), "ApplyFtrl on the rows that indices name.");
  RegisterApply(registry, "ApplyFtrlV2",
                {"var: Ref(T)", "accum: Ref(T)", "linear: Ref(T)", "grad: T", "lr: T", "l1: T", "l2: T",
                 "l2_shrinkage: T", "lr_power: T"},
                ftrl_v2, "ApplyFtrl with l2_shrinkage.");
  RegisterApply(registry, "SparseApplyFtrlV2",
                {"var: Ref(T)", "accum: Ref(T)", "linear: Ref(T)", "grad: T", "indices: Tindices", "lr: T", "l1: T",
                 "l2: T", "l2_shrinkage: T", "lr_power: T"},
                Sparse(ftrl_v2, 4), "ApplyFtrlV2 on the rows that indices name.");
  RegisterApply(registry, "ApplyAdadelta",
                {"var: Ref(T)", "accum: Ref(T)", "accum_update: Ref(T)", "lr: T", "rho: T", "epsilon: T", "grad: T"},
                adadelta, "One Adadelta step on var and its accum and accum_update slots.");
  RegisterApply(registry, "SparseApplyAdadelta",
                {"var: Ref(T)", "accum: Ref(T)", "accum_update: Ref(T)", "lr: T", "rho: T", "epsilon: T", "grad: T",
                 "indices: Tindices"},
                Sparse(adadelta, 7), "ApplyAdadelta on the rows that indices name.");
}

}  // namespace

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kTrainingOpFamily("training", RegisterTrainingOps);

}  // namespace clab::array_internal
