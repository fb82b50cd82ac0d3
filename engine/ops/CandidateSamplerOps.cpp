// LogUniformCandidateSampler, what tf.nn.nce_loss and sampled_softmax_loss draw their
// negative classes with (word2vec): num_sampled classes from [0, range_max) under the
// log-uniform (Zipfian) distribution
//   P(class) = (log(class + 2) - log(class + 1)) / log(range_max + 1),
// which favours small class ids (frequent words when the vocabulary is sorted by count).
// A draw is floor(exp(u * log(range_max + 1))) - 1 for u uniform in [0, 1).
//
// With unique, draws repeat until num_sampled distinct classes came up, and the expected
// count of a class is the chance it appears in those num_tries draws,
// -expm1(num_tries * log1p(-P)); without unique it is P * num_sampled. The op outputs the
// expected counts of the true classes and of the sampled ones, as TensorFlow's does.
//
// The generator is seeded from the seed attrs (a random seed when both are 0, as TensorFlow
// does) and advances from run to run.
#include "ops/MathOpsInternal.h"

#include "ops/Philox.h"

#include <cmath>
#include <mutex>
#include <random>
#include <set>

namespace clab {
namespace {

using math_internal::KernelInvalidArgument;

class LogUniformSamplerKernel : public OpKernel {
 public:
  LogUniformSamplerKernel(int64_t num_true, int64_t num_sampled, bool unique, int64_t range_max, uint64_t seed)
      : num_true_(num_true), num_sampled_(num_sampled), unique_(unique), range_max_(range_max), random_(seed) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& true_classes = ctx->input(0);
    if (true_classes.shape().rank() != 2 || true_classes.shape().dim(1) != num_true_) {
      ctx->SetStatus(KernelInvalidArgument(ctx, "true_classes must be a matrix [batch, num_true = ", num_true_,
                                           "], got ", true_classes.shape().DebugString()));
      return;
    }
    std::vector<int64_t> sampled;
    int64_t tries = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      std::uniform_real_distribution<double> uniform(0.0, 1.0);
      std::set<int64_t> seen;
      while (static_cast<int64_t>(sampled.size()) < num_sampled_) {
        const int64_t value = Draw(uniform(random_));
        ++tries;
        if (unique_ && !seen.insert(value).second) continue;
        sampled.push_back(value);
      }
    }
    Tensor* candidates = ctx->allocate_output(0, DT_INT64, TensorShape({num_sampled_}));
    Tensor* true_expected = ctx->allocate_output(1, DT_FLOAT, true_classes.shape());
    Tensor* sampled_expected = ctx->allocate_output(2, DT_FLOAT, TensorShape({num_sampled_}));
    if (candidates == nullptr || true_expected == nullptr || sampled_expected == nullptr) return;
    for (int64_t i = 0; i < num_sampled_; ++i) {
      candidates->data<int64_t>()[i] = sampled[static_cast<size_t>(i)];
      sampled_expected->data<float>()[i] = ExpectedCount(sampled[static_cast<size_t>(i)], tries);
    }
    for (int64_t i = 0; i < true_classes.NumElements(); ++i)
      true_expected->data<float>()[i] = ExpectedCount(true_classes.data<int64_t>()[i], tries);
  }

 private:
  int64_t Draw(double u) const {
    const int64_t value = static_cast<int64_t>(std::exp(u * std::log(static_cast<double>(range_max_) + 1))) - 1;
    return std::clamp<int64_t>(value, 0, range_max_ - 1);
  }

  double Probability(int64_t value) const {
    if (value < 0 || value >= range_max_) return 0;
    return (std::log(static_cast<double>(value) + 2) - std::log(static_cast<double>(value) + 1)) /
           std::log(static_cast<double>(range_max_) + 1);
  }

  float ExpectedCount(int64_t value, int64_t tries) const {
    const double p = Probability(value);
    if (!unique_ || tries == num_sampled_) return static_cast<float>(p * static_cast<double>(num_sampled_));
    return static_cast<float>(-std::expm1(static_cast<double>(tries) * std::log1p(-p)));
  }

  const int64_t num_true_, num_sampled_;
  const bool unique_;
  const int64_t range_max_;
  std::mutex mu_;
  std::mt19937_64 random_;
};

StatusOr<std::unique_ptr<OpKernel>> MakeLogUniformSamplerKernel(OpKernelConstruction& construction) {
  int64_t num_true = 1, num_sampled = 1, range_max = 1, seed = 0, seed2 = 0;
  bool unique = false;
  CLAB_RETURN_IF_ERROR(construction.GetAttr("num_true", &num_true));
  CLAB_RETURN_IF_ERROR(construction.GetAttr("num_sampled", &num_sampled));
  CLAB_RETURN_IF_ERROR(construction.GetAttr("unique", &unique));
  CLAB_RETURN_IF_ERROR(construction.GetAttr("range_max", &range_max));
  CLAB_RETURN_IF_ERROR(construction.GetAttr("seed", &seed));
  CLAB_RETURN_IF_ERROR(construction.GetAttr("seed2", &seed2));
  if (unique && num_sampled > range_max)
    return errors::InvalidArgument("Node '", construction.name(), "' (op ", construction.op().name,
                                   "): cannot draw num_sampled = ", num_sampled,
                                   " unique classes out of range_max = ", range_max);
  uint64_t key = 0;
  if (seed == 0 && seed2 == 0) {
    std::random_device device;
    key = (uint64_t{device()} << 32) | device();
  } else {
    key = philox::Mix64(static_cast<uint64_t>(seed) ^ philox::Mix64(static_cast<uint64_t>(seed2)));
  }
  return std::unique_ptr<OpKernel>(new LogUniformSamplerKernel(num_true, num_sampled, unique, range_max, key));
}

Status CandidateSamplerShape(ShapeContext& ctx) {
  int64_t num_true = 1, num_sampled = 1;
  CLAB_RETURN_IF_ERROR(ctx.GetAttr("num_true", &num_true));
  CLAB_RETURN_IF_ERROR(ctx.GetAttr("num_sampled", &num_sampled));
  const PartialShape& true_classes = ctx.input_shape(0);
  if (true_classes.known_rank() && true_classes.rank() != 2)
    return ctx.MakeError(absl::StrCat("true_classes must be rank 2 but is rank ", true_classes.rank()));
  const int64_t batch = true_classes.known_rank() ? true_classes.dim(0) : -1;
  ctx.set_output(0, PartialShape({num_sampled}));
  ctx.set_output(1, PartialShape({batch, num_true}));
  ctx.set_output(2, PartialShape({num_sampled}));
  return OkStatus();
}

}  // namespace

void RegisterCandidateSamplerOps(OpRegistry& registry) {
  registry.Register("LogUniformCandidateSampler")
      .Input("true_classes: int64")
      .Output("sampled_candidates: int64")
      .Output("true_expected_count: float")
      .Output("sampled_expected_count: float")
      .Attr("num_true: int >= 1")
      .Attr("num_sampled: int >= 1")
      .Attr("unique: bool")
      .Attr("range_max: int >= 1")
      .Attr("seed: int = 0")
      .Attr("seed2: int = 0")
      .Stateful()
      .SetShapeFn(CandidateSamplerShape)
      .Kernel("CPU", MakeLogUniformSamplerKernel)
      .Summary("Samples classes from [0, range_max) log-uniformly, with their expected counts.")
      .Group("random");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kCandidateSamplerOpFamily("candidate sampler", RegisterCandidateSamplerOps);

}  // namespace clab
