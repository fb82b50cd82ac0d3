// MinibatchDataset: an input pipeline inside the graph. Each run of the node yields the next
// minibatch of labelled examples (features float [batch_size, d], labels int32
// [batch_size]) from a CSV or IDX file (see clab/io/ExampleSet.h for the formats, the
// held-out split, sharding and scaling).
//
// State: the examples and the position in the stream live in a resource on the node's
// device, under (container, shared_name or the node's name), like a variable. The file is
// read when the node first runs, not when the graph is built; a session reset drops the
// resource, and the next run reads the file again and starts over.
//
// Order: the shard's examples are visited in epochs. With shuffle on, epoch e's order is a
// permutation (Fisher-Yates, its random numbers from Philox4x32-10 at counter (i, e) under a
// key mixed from seed and shard_index), so it depends only on (seed, shard_index, epoch):
// the same on every machine and every run. Epochs roll over without a gap: the minibatch
// that reaches the end of an epoch is completed from the start of the next, so no example
// is dropped and every minibatch is full. With shuffle off, every epoch is in file order.
//
// Runs of the node are serialised by a mutex: two steps running it at once each get their
// own minibatch.
#include "clab/core/TensorSize.h"
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/io/ExampleSet.h"
#include "clab/runtime/OpKernel.h"
#include "clab/runtime/ResourceMgr.h"
#include "ops/ArrayOpsInternal.h"
#include "ops/Philox.h"

#include <absl/strings/match.h>
#include <absl/strings/str_cat.h>

#include <algorithm>
#include <numeric>

namespace clab {
namespace {

using array_internal::NodeSuffix;

struct DatasetConfig {
  ExampleSetOptions source;
  int64_t batch_size = 1;
  int64_t seed = 0;
  bool shuffle = true;
  int64_t num_features = -1;  // declared; -1: whatever the file has

  // Everything that decides the stream, to catch two nodes sharing one resource with
  // different settings.
  std::string Signature() const {
    return absl::StrCat(
        "path=", source.path, " labels_path=", source.labels_path, " held_out_every=", source.held_out_every,
        " split=", source.held_out_split ? "held_out" : "train", " scale=", source.scale, " shard=", source.shard_index,
        "/", source.num_shards, " batch_size=", batch_size, " seed=", seed, " shuffle=", shuffle);
  }
};

class MinibatchDatasetState : public Resource {
 public:
  explicit MinibatchDatasetState(std::string signature) : signature_(std::move(signature)) {}

  const std::string& signature() const { return signature_; }
  std::mutex& mu() { return mu_; }

  // Guarded by mu().
  bool loaded() const { return loaded_; }
  const ExampleSet& examples() const { return examples_; }
  void Load(ExampleSet examples, uint64_t key, bool shuffle) {
    examples_ = std::move(examples);
    key_ = key;
    shuffle_ = shuffle;
    loaded_ = true;
    StartEpoch(0);
  }
  // The index (into examples()) of the next example in the stream.
  int64_t Next() {
    if (position_ == static_cast<int64_t>(order_.size())) StartEpoch(epoch_ + 1);
    return order_[static_cast<size_t>(position_++)];
  }

  std::string DebugString() const override { return absl::StrCat("MinibatchDataset state (", signature_, ")"); }

 private:
  void StartEpoch(int64_t epoch) {
    epoch_ = epoch;
    position_ = 0;
    order_.resize(static_cast<size_t>(examples_.num_examples));
    std::iota(order_.begin(), order_.end(), int64_t{0});
    if (!shuffle_) return;
    const auto e = static_cast<uint64_t>(epoch);
    for (uint64_t i = order_.size() - 1; i > 0 && i < order_.size(); --i) {
      const philox::PhiloxBlock block = philox::Philox4x32({static_cast<uint32_t>(i), static_cast<uint32_t>(i >> 32),
                                                            static_cast<uint32_t>(e), static_cast<uint32_t>(e >> 32)},
                                                           key_);
      const uint64_t bits = (uint64_t{block[0]} << 32) | block[1];
      // A uniform index in [0, i] by multiply-and-shift (bias below (i+1)/2^64).
      const auto j = static_cast<uint64_t>((static_cast<unsigned __int128>(bits) * (i + 1)) >> 64);
      std::swap(order_[i], order_[j]);
    }
  }

  const std::string signature_;
  std::mutex mu_;
  bool loaded_ = false;
  ExampleSet examples_;
  uint64_t key_ = 0;
  bool shuffle_ = true;
  std::vector<int64_t> order_;
  int64_t epoch_ = 0;
  int64_t position_ = 0;
};

Status ReadConfig(const tensorflow::NodeDef& node, DatasetConfig* config) {
  std::string split;
  CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "path", &config->source.path));
  CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "labels_path", &config->source.labels_path));
  CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "held_out_every", &config->source.held_out_every));
  CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "split", &split));
  CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "scale", &config->source.scale));
  CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "shard_index", &config->source.shard_index));
  CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "num_shards", &config->source.num_shards));
  CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "batch_size", &config->batch_size));
  CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "seed", &config->seed));
  CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "shuffle", &config->shuffle));
  CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "num_features", &config->num_features));
  config->source.held_out_split = split == "held_out";
  const auto& s = config->source;
  if (s.path.empty()) return errors::InvalidArgument("attr 'path' is empty: name a .csv(.gz) or .idx(.gz) file");
  if (config->batch_size < 1) return errors::InvalidArgument("attr 'batch_size' is ", config->batch_size, ", not >= 1");
  if (s.shard_index < 0 || s.shard_index >= s.num_shards)
    return errors::InvalidArgument("shard_index ", s.shard_index, " is not in [0, num_shards = ", s.num_shards, ")");
  if (s.held_out_every == 1)
    return errors::InvalidArgument("held_out_every 1 would hold out every example (use 0 to hold out none)");
  if (s.held_out_split && s.held_out_every == 0)
    return errors::InvalidArgument("split 'held_out' needs held_out_every >= 2 (0 holds nothing out)");
  return ValidateExampleScale(s.scale);
}

class MinibatchDatasetKernel : public OpKernel {
 public:
  MinibatchDatasetKernel(DatasetConfig config, std::string container, std::string name)
      : config_(std::move(config)), signature_(config_.Signature()), container_(std::move(container)),
        name_(std::move(name)) {}

  void Compute(OpKernelContext* ctx) override {
    // Looked up every run: a session reset clears the ResourceMgr.
    auto found = ctx->resource_mgr()->LookupOrCreate<MinibatchDatasetState>(
        container_, name_, [&] { return std::make_shared<MinibatchDatasetState>(signature_); });
    if (!found.ok()) return Fail(ctx, found.status());
    MinibatchDatasetState& state = **found;
    if (state.signature() != signature_)
      return Fail(ctx, errors::InvalidArgument("dataset '", name_, "' in container '", container_,
                                               "' already exists with other settings (", state.signature(),
                                               "), but node '", ctx->name(), "' has ", signature_));
    std::lock_guard<std::mutex> lock(state.mu());
    if (!state.loaded()) {
      Status loaded = Load(*ctx->device(), &state);
      // Reader errors name the file already; the op's own checks do not.
      if (!loaded.ok() && !absl::StrContains(loaded.message(), config_.source.path))
        loaded = Status(loaded.code(), absl::StrCat("'", config_.source.path, "': ", loaded.message()));
      if (!loaded.ok()) return Fail(ctx, loaded);
    }
    const ExampleSet& examples = state.examples();
    const int64_t d = examples.num_features;
    // A batch too big for this task fails the step before anything is allocated for it.
    if (auto size = TensorSize::ForAllocation(DT_FLOAT, {config_.batch_size, d}); !size.ok())
      return Fail(ctx, errors::Annotate(size.status(), absl::StrCat("batch_size ", config_.batch_size, ": ")));
    Tensor* features = ctx->allocate_output(0, DT_FLOAT, TensorShape({config_.batch_size, d}));
    Tensor* labels = ctx->allocate_output(1, DT_INT32, TensorShape({config_.batch_size}));
    if (features == nullptr || labels == nullptr) return;
    float* f = features->data<float>();
    int32_t* l = labels->data<int32_t>();
    for (int64_t b = 0; b < config_.batch_size; ++b) {
      const int64_t e = state.Next();
      std::copy_n(examples.features.data() + e * d, d, f + b * d);
      l[b] = examples.labels[static_cast<size_t>(e)];
    }
  }

 private:
  Status Load(const Device& device, MinibatchDatasetState* state) const {
    // A server reads only inside its task's directories.
    // The files are opened below the task's directories and read from those descriptors.
    ExampleSetOptions source = config_.source;
    CLAB_ASSIGN_OR_RETURN(const UniqueFd file, device.OpenForReading(source.path, "the dataset file"));
    source.fd = file.get();
    UniqueFd labels;
    if (!source.labels_path.empty()) {
      CLAB_ASSIGN_OR_RETURN(labels, device.OpenForReading(source.labels_path, "the labels file"));
      source.labels_fd = labels.get();
    }
    CLAB_ASSIGN_OR_RETURN(ExampleSet examples, LoadExampleSet(source));
    const auto& s = config_.source;
    if (config_.num_features >= 0 && examples.num_features != config_.num_features)
      return errors::InvalidArgument("the node declares num_features ", config_.num_features, ", but the file has ",
                                     examples.num_features, " features per example");
    if (examples.num_examples == 0)
      return errors::InvalidArgument("shard ", s.shard_index, " of ", s.num_shards, " of its ",
                                     s.held_out_split ? "held-out" : "training", " split has no examples");
    const uint64_t key =
        philox::Mix64(philox::Mix64(static_cast<uint64_t>(config_.seed)) ^ static_cast<uint64_t>(s.shard_index));
    state->Load(std::move(examples), key, config_.shuffle);
    return OkStatus();
  }

  // The message names the op, the node and the shared state, and ends with the node tag.
  void Fail(OpKernelContext* ctx, const Status& status) const {
    ctx->SetStatus(Status(status.code(), absl::StrCat("MinibatchDataset '", ctx->name(), "': ", status.message(),
                                                      NodeSuffix(ctx->name()))));
  }

  const DatasetConfig config_;
  const std::string signature_;
  const std::string container_;
  const std::string name_;
};

StatusOr<std::unique_ptr<OpKernel>> MakeMinibatchDatasetKernel(OpKernelConstruction& c) {
  DatasetConfig config;
  Status read = ReadConfig(c.node(), &config);
  if (!read.ok()) return errors::Annotate(read, absl::StrCat("MinibatchDataset '", c.name(), "': "));
  std::string container, shared_name;
  CLAB_RETURN_IF_ERROR(c.GetAttr("container", &container));
  CLAB_RETURN_IF_ERROR(c.GetAttr("shared_name", &shared_name));
  return std::unique_ptr<OpKernel>(std::make_unique<MinibatchDatasetKernel>(
      std::move(config), std::move(container), shared_name.empty() ? c.name() : shared_name));
}

// [batch_size, d]: d is num_features when declared, else read from the file's header when
// the file can be read where the graph is built, else unknown.
Status MinibatchDatasetShape(ShapeContext& c) {
  DatasetConfig config;
  Status read = ReadConfig(c.node(), &config);
  if (!read.ok()) return c.MakeError(std::string(read.message()));
  int64_t d = config.num_features;
  if (d < 0 && ShapeContext::MayReadFiles()) {
    StatusOr<int64_t> from_file = ReadExampleSetNumFeatures(config.source.path);
    if (from_file.ok()) d = *from_file;
  }
  c.set_output(0, PartialShape{config.batch_size, d});
  c.set_output(1, PartialShape{config.batch_size});
  return OkStatus();
}

}  // namespace

void RegisterDatasetOps(OpRegistry& registry) {
  registry.Register("MinibatchDataset")
      .Output("features: float")
      .Output("labels: int32")
      .Attr("path: string")
      .Attr("labels_path: string = ''")
      .Attr("batch_size: int >= 1")
      .Attr("seed: int = 0")
      .Attr("shuffle: bool = true")
      .Attr("shard_index: int = 0")
      .Attr("num_shards: int >= 1 = 1")
      .Attr("held_out_every: int >= 0 = 0")
      .Attr("split: {'train', 'held_out'} = 'train'")
      .Attr("scale: string = 'none'")
      .Attr("num_features: int = -1")
      .Attr("container: string = ''")
      .Attr("shared_name: string = ''")
      .SetShapeFn(MinibatchDatasetShape)
      .Kernel("CPU", MakeMinibatchDatasetKernel)
      .Stateful()
      .Summary("The next shuffled minibatch of labelled examples from a CSV or IDX file, for one shard")
      .Group("data");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kDatasetOpFamily("dataset", RegisterDatasetOps);

}  // namespace clab
