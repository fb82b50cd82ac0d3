// Random tensors: RandomUniform in [0, 1), RandomStandardNormal, and TruncatedNormal (a
// standard normal with values beyond two standard deviations drawn again).
//
// The numbers come from Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as
// 1, 2, 3", SC 2011), a counter-based generator: the value at a counter is a pure function
// of (key, counter), so any thread can produce any part of the output and the result does
// not depend on how the work is split. The key comes from the seed attrs; each run of a
// kernel takes the next range of counters, so repeated runs differ while the whole
// sequence repeats across processes for the same seeds. With seed = seed2 = 0 the key is
// drawn at random when the kernel is built, as TensorFlow does.
//
// Multinomial draws class indices from each row of logits (softmax probabilities; a
// non-finite logit has probability 0) by inverting the row's cumulative distribution at a
// uniform draw. RandomShuffle permutes a tensor along dimension 0 (Fisher-Yates).
#include "ops/MathOpsInternal.h"

#include "ops/ElementCopy.h"
#include "ops/Philox.h"

#include <absl/strings/str_cat.h>

#include <array>
#include <atomic>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>

namespace clab {
namespace math_internal {
namespace {

using philox::Mix64;
using philox::Philox4x32;
using philox::PhiloxBlock;

enum class Distribution { kUniform, kNormal, kTruncatedNormal };

// Uniform in [0, 1) from 24 (float) or 53 (double) random bits.
inline float UniformFloat(uint32_t bits) { return static_cast<float>(bits >> 8) * 0x1.0p-24f; }
inline double UniformDouble(uint32_t hi, uint32_t lo) {
  return static_cast<double>(((uint64_t{hi} << 32) | lo) >> 11) * 0x1.0p-53;
}

// Box-Muller: two uniforms to two independent standard normals. u1 is moved to (0, 1] so
// the logarithm stays finite.
template <typename T>
inline void BoxMuller(T u1, T u2, T* n1, T* n2) {
  const T radius = std::sqrt(T(-2) * std::log(T(1) - u1));
  const T angle = T(2) * std::numbers::pi_v<T> * u2;
  *n1 = radius * std::cos(angle);
  *n2 = radius * std::sin(angle);
}

// Values one Philox block yields: four floats or two doubles.
template <typename T>
constexpr int kValuesPerBlock = std::is_same_v<T, float> ? 4 : 2;

template <typename T, Distribution kDist>
void FillFromBlock(const PhiloxBlock& bits, T* values) {
  if constexpr (std::is_same_v<T, float>) {
    for (int i = 0; i < 4; ++i) values[i] = UniformFloat(bits[static_cast<size_t>(i)]);
    if constexpr (kDist != Distribution::kUniform) {
      BoxMuller(values[0], values[1], &values[0], &values[1]);
      BoxMuller(values[2], values[3], &values[2], &values[3]);
    }
  } else {
    values[0] = UniformDouble(bits[0], bits[1]);
    values[1] = UniformDouble(bits[2], bits[3]);
    if constexpr (kDist != Distribution::kUniform) BoxMuller(values[0], values[1], &values[0], &values[1]);
  }
}

// Beyond this many standard deviations TruncatedNormal draws again (TensorFlow's bound).
constexpr double kTruncationBound = 2.0;

// Output values [first, first + count) of group `group`, where a group is what one counter
// yields. TruncatedNormal redraws rejected values from further counters of the same group
// (the third counter word numbers the attempts), so groups stay independent of each other.
template <typename T, Distribution kDist>
void GenerateGroup(uint64_t key, uint64_t group, T* out, int count) {
  constexpr int kPerBlock = kValuesPerBlock<T>;
  T values[kPerBlock];
  PhiloxBlock counter = {static_cast<uint32_t>(group), static_cast<uint32_t>(group >> 32), 0u, 0u};
  if constexpr (kDist != Distribution::kTruncatedNormal) {
    FillFromBlock<T, kDist>(Philox4x32(counter, key), values);
    for (int i = 0; i < count; ++i) out[i] = values[i];
  } else {
    int filled = 0;
    // Each attempt keeps about 95% of its values; 2^32 attempts cannot all fail in practice.
    for (uint32_t attempt = 0; filled < count; ++attempt) {
      counter[2] = attempt;
      FillFromBlock<T, kDist>(Philox4x32(counter, key), values);
      for (int i = 0; i < kPerBlock && filled < count; ++i)
        if (std::abs(values[i]) < T(kTruncationBound)) out[filled++] = values[i];
    }
  }
}

template <typename T, Distribution kDist>
class RandomKernel : public OpKernel {
 public:
  explicit RandomKernel(uint64_t key) : key_(key) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape_tensor = ctx->input(0);
    if (shape_tensor.shape().rank() != 1) {
      ctx->SetStatus(KernelInvalidArgument(ctx, "shape must be a vector of int32 or int64, got shape ",
                                           shape_tensor.shape().DebugString()));
      return;
    }
    std::vector<int64_t> dims(static_cast<size_t>(shape_tensor.NumElements()));
    for (size_t i = 0; i < dims.size(); ++i)
      dims[i] = shape_tensor.dtype() == DT_INT64 ? shape_tensor.data<int64_t>()[i] : shape_tensor.data<int32_t>()[i];
    StatusOr<TensorShape> shape = TensorShape::FromDims(dims);
    if (!shape.ok()) {
      ctx->SetStatus(KernelInvalidArgument(ctx, "Invalid shape for a random tensor: ", shape.status().message()));
      return;
    }
    Tensor* output = ctx->allocate_output(0, DataTypeOf<T>::value, *shape);
    if (output == nullptr) return;
    const int64_t n = output->NumElements();
    constexpr int kPerBlock = kValuesPerBlock<T>;
    const int64_t groups = (n + kPerBlock - 1) / kPerBlock;
    // Later runs continue the sequence where this one stops.
    const uint64_t first_group = next_group_.fetch_add(static_cast<uint64_t>(groups), std::memory_order_relaxed);
    T* out = output->data<T>();
    const uint64_t key = key_;
    ParallelForRange(ctx, groups, kDist == Distribution::kUniform ? 20.0 : 60.0, [=](int64_t begin, int64_t end) {
      for (int64_t g = begin; g < end; ++g) {
        const int count = static_cast<int>(std::min<int64_t>(kPerBlock, n - g * kPerBlock));
        GenerateGroup<T, kDist>(key, first_group + static_cast<uint64_t>(g), out + g * kPerBlock, count);
      }
    });
  }

 private:
  const uint64_t key_;
  std::atomic<uint64_t> next_group_{0};
};

// The Philox key of a node's seed attrs: random when both are 0.
StatusOr<uint64_t> KeyFromSeeds(const OpKernelConstruction& construction) {
  int64_t seed = 0, seed2 = 0;
  CLAB_RETURN_IF_ERROR(construction.GetAttr("seed", &seed));
  CLAB_RETURN_IF_ERROR(construction.GetAttr("seed2", &seed2));
  if (seed == 0 && seed2 == 0) {
    std::random_device entropy;
    return (uint64_t{entropy()} << 32) ^ entropy();
  }
  return Mix64(Mix64(static_cast<uint64_t>(seed)) ^ static_cast<uint64_t>(seed2));
}

template <Distribution kDist>
StatusOr<std::unique_ptr<OpKernel>> MakeRandomKernel(OpKernelConstruction& construction) {
  CLAB_ASSIGN_OR_RETURN(const uint64_t key, KeyFromSeeds(construction));
  switch (construction.output_type(0)) {
    case DT_FLOAT: return std::unique_ptr<OpKernel>(new RandomKernel<float, kDist>(key));
    case DT_DOUBLE: return std::unique_ptr<OpKernel>(new RandomKernel<double, kDist>(key));
    default:
      return errors::InvalidArgument("Node '", construction.name(), "' (op ", construction.op().name,
                                     ") has no CPU kernel for dtype ", DataTypeName(construction.output_type(0)));
  }
}

// The output shape is the value of the shape input when it is a constant; otherwise its
// length, when known, gives the rank.
Status RandomShape(ShapeContext& ctx) {
  const PartialShape& shape_of_shape = ctx.input_shape(0);
  if (shape_of_shape.known_rank() && shape_of_shape.rank() != 1)
    return ctx.MakeError(absl::StrCat("Shape must be rank 1 but is rank ", shape_of_shape.rank()));
  if (const Tensor* value = ctx.input_constant(0); value != nullptr) {
    std::vector<int64_t> dims;
    for (int64_t i = 0, i_end = value->NumElements(); i < i_end; ++i) {
      const int64_t dim = value->dtype() == DT_INT64 ? value->data<int64_t>()[i] : value->data<int32_t>()[i];
      if (dim < 0) return ctx.MakeError(absl::StrCat("Dimension ", i, " of the shape is negative: ", dim));
      dims.push_back(dim);
    }
    ctx.set_output(0, PartialShape(std::move(dims)));
    return OkStatus();
  }
  if (shape_of_shape.known_rank() && shape_of_shape.dim(0) >= 0) {
    ctx.set_output(0, PartialShape::UnknownOfRank(static_cast<int>(shape_of_shape.dim(0))));
  } else {
    ctx.set_output(0, PartialShape::Unknown());
  }
  return OkStatus();
}

void RegisterRandom(OpRegistry& registry, const char* name, KernelFactory factory, const char* summary) {
  registry.Register(name)
      .Input("shape: T")
      .Output("output: dtype")
      .Attr("seed: int = 0")
      .Attr("seed2: int = 0")
      .Attr("dtype: {float, double}")
      .Attr("T: {int32, int64}")
      .SetShapeFn(RandomShape)
      .Kernel("CPU", std::move(factory))
      .Stateful()
      .Summary(summary)
      .Group("random");
}

// The uniform double in [0, 1) at `counter` of `key`.
inline double UniformAt(uint64_t key, uint64_t counter) {
  const PhiloxBlock bits =
      Philox4x32({static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32), 1u, 0u}, key);
  return UniformDouble(bits[0], bits[1]);
}

// ---- Multinomial ---------------------------------------------------------------------------

class MultinomialKernel : public OpKernel {
 public:
  MultinomialKernel(uint64_t key, DataType out_type) : key_(key), out_type_(out_type) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    const Tensor& num_samples_t = ctx->input(1);
    if (logits.shape().rank() != 2) {
      ctx->SetStatus(KernelInvalidArgument(ctx, "logits should be a matrix, got shape ", logits.shape().DebugString()));
      return;
    }
    if (num_samples_t.shape().rank() != 0) {
      ctx->SetStatus(KernelInvalidArgument(ctx, "num_samples should be a scalar, got shape ",
                                           num_samples_t.shape().DebugString()));
      return;
    }
    const int64_t num_samples = num_samples_t.data<int32_t>()[0];
    if (num_samples < 0) {
      ctx->SetStatus(KernelInvalidArgument(ctx, "num_samples should be nonnegative, got ", num_samples));
      return;
    }
    const int64_t rows = logits.shape().dim(0), classes = logits.shape().dim(1);
    if (classes <= 0 && rows > 0 && num_samples > 0) {
      ctx->SetStatus(KernelInvalidArgument(ctx, "num_classes should be positive, got ", classes));
      return;
    }
    std::vector<double> values(static_cast<size_t>(logits.NumElements()));
    bool numeric = true;
    CLAB_SWITCH_REAL_TYPES(logits.dtype(), T,
                           std::transform(logits.data<T>(), logits.data<T>() + values.size(), values.begin(),
                                          [](T v) { return static_cast<double>(v); }),
                           numeric = false);
    if (!numeric) {
      ctx->SetStatus(KernelInvalidArgument(ctx, "logits of type ", DataTypeName(logits.dtype()), " are not supported"));
      return;
    }
    Tensor* out = ctx->allocate_output(0, out_type_, TensorShape{rows, num_samples});
    if (out == nullptr || out->NumElements() == 0) return;
    const uint64_t first =
        next_counter_.fetch_add(static_cast<uint64_t>(rows * num_samples), std::memory_order_relaxed);
    const uint64_t key = key_;
    const bool int64_out = out_type_ == DT_INT64;
    ParallelForRange(ctx, rows, static_cast<double>(classes * 4 + num_samples * 40), [&](int64_t begin, int64_t end) {
      std::vector<double> cdf(static_cast<size_t>(classes));
      for (int64_t b = begin; b < end; ++b) {
        const double* row = values.data() + b * classes;
        double max = -std::numeric_limits<double>::infinity();
        for (int64_t i = 0; i < classes; ++i)
          if (std::isfinite(row[i])) max = std::max(max, row[i]);
        double total = 0;
        for (int64_t i = 0; i < classes; ++i) {
          total += std::isfinite(row[i]) ? std::exp(row[i] - max) : 0.0;
          cdf[static_cast<size_t>(i)] = total;
        }
        for (int64_t s = 0; s < num_samples; ++s) {
          const double target = UniformAt(key, first + static_cast<uint64_t>(b * num_samples + s)) * total;
          const int64_t drawn =
              std::min<int64_t>(std::upper_bound(cdf.begin(), cdf.end(), target) - cdf.begin(), classes - 1);
          if (int64_out) out->data<int64_t>()[b * num_samples + s] = drawn;
          else out->data<int32_t>()[b * num_samples + s] = static_cast<int32_t>(drawn);
        }
      }
    });
  }

 private:
  const uint64_t key_;
  const DataType out_type_;
  std::atomic<uint64_t> next_counter_{0};
};

StatusOr<std::unique_ptr<OpKernel>> MakeMultinomialKernel(OpKernelConstruction& construction) {
  CLAB_ASSIGN_OR_RETURN(const uint64_t key, KeyFromSeeds(construction));
  return std::unique_ptr<OpKernel>(new MultinomialKernel(key, construction.output_type(0)));
}

Status MultinomialShape(ShapeContext& ctx) {
  const PartialShape& logits = ctx.input_shape(0);
  if (logits.known_rank() && logits.rank() != 2)
    return ctx.MakeError(absl::StrCat("logits must be rank 2 but is rank ", logits.rank()));
  int64_t samples = -1;
  if (const Tensor* n = ctx.input_constant(1); n != nullptr && n->dtype() == DT_INT32 && n->NumElements() == 1)
    samples = n->data<int32_t>()[0];
  ctx.set_output(0, PartialShape({logits.known_rank() ? logits.dim(0) : -1, samples}));
  return OkStatus();
}

// ---- RandomShuffle -------------------------------------------------------------------------

class RandomShuffleKernel : public OpKernel {
 public:
  explicit RandomShuffleKernel(uint64_t key) : key_(key) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    if (value.shape().rank() == 0 || value.shape().dim(0) <= 1) {
      ctx->set_output(0, value);
      return;
    }
    const int64_t rows = value.shape().dim(0);
    const int64_t row_size = value.NumElements() / rows;
    // Fisher-Yates: position i swaps with a uniform j in [0, i].
    std::vector<int64_t> order(static_cast<size_t>(rows));
    for (int64_t i = 0; i < rows; ++i) order[static_cast<size_t>(i)] = i;
    const uint64_t first = next_counter_.fetch_add(static_cast<uint64_t>(rows), std::memory_order_relaxed);
    for (int64_t i = rows - 1; i > 0; --i) {
      const PhiloxBlock bits =
          Philox4x32({static_cast<uint32_t>(first + i), static_cast<uint32_t>((first + i) >> 32), 2u, 0u}, key_);
      const uint64_t r = (uint64_t{bits[0]} << 32) | bits[1];
      const auto j = static_cast<int64_t>((static_cast<unsigned __int128>(r) * static_cast<uint64_t>(i + 1)) >> 64);
      std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
    }
    Tensor* out = ctx->allocate_output(0, value.dtype(), value.shape());
    if (out == nullptr) return;
    for (int64_t i = 0; i < rows; ++i)
      array_internal::CopyElements(value, order[static_cast<size_t>(i)] * row_size, out, i * row_size, row_size);
  }

 private:
  const uint64_t key_;
  std::atomic<uint64_t> next_counter_{0};
};

StatusOr<std::unique_ptr<OpKernel>> MakeRandomShuffleKernel(OpKernelConstruction& construction) {
  CLAB_ASSIGN_OR_RETURN(const uint64_t key, KeyFromSeeds(construction));
  return std::unique_ptr<OpKernel>(new RandomShuffleKernel(key));
}

}  // namespace
}  // namespace math_internal

void RegisterRandomOps(OpRegistry& registry) {
  using namespace math_internal;
  RegisterRandom(registry, "RandomUniform", MakeRandomKernel<Distribution::kUniform>,
                 "Uniform values in [0, 1); seed = seed2 = 0 draws a new sequence each run of the program.");
  RegisterRandom(registry, "RandomStandardNormal", MakeRandomKernel<Distribution::kNormal>,
                 "Normal values with mean 0 and standard deviation 1.");
  RegisterRandom(registry, "TruncatedNormal", MakeRandomKernel<Distribution::kTruncatedNormal>,
                 "Standard normal values, redrawn where they fall beyond 2 standard deviations.");
  registry.Register("Multinomial")
      .Input("logits: T")
      .Input("num_samples: int32")
      .Output("output: output_dtype")
      .Attr("seed: int = 0")
      .Attr("seed2: int = 0")
      .Attr("T: {float, double, int32, int64}")
      .Attr("output_dtype: {int32, int64} = DT_INT64")
      .SetShapeFn(MultinomialShape)
      .Kernel("CPU", MakeMultinomialKernel)
      .Stateful()
      .Summary("num_samples class indices per row, drawn with probabilities softmax(logits).")
      .Group("random");
  registry.Register("RandomShuffle")
      .Input("value: T")
      .Output("output: T")
      .Attr("seed: int = 0")
      .Attr("seed2: int = 0")
      .Attr("T: type")
      .SetShapeFn(UnchangedShape)
      .Kernel("CPU", MakeRandomShuffleKernel)
      .Stateful()
      .Summary("The value with its slices along dimension 0 in a random order.")
      .Group("random");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kRandomOpFamily("random", RegisterRandomOps);

}  // namespace clab
