// The ops tf.train.Saver puts in a graph, on ClusterLab's checkpoint files (TensorFlow's V2
// bundle: P.index and P.data-00000-of-00001): SaveV2 writes named tensors under a prefix,
// RestoreV2 reads them back, and a sharded saver's ShardedFilename, StringJoin and
// MergeV2Checkpoints name per-device temporary shards and merge them into one checkpoint.
// A checkpoint a TensorFlow Saver graph writes here is read by ClusterLab's own Saver and
// `clab ckpt`, and the other way round. Tensor slices (partitioned variables) are refused.
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/io/TensorBundle.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"

#include <absl/strings/str_format.h>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <map>

namespace clab::array_internal {
namespace {

Status ScalarOutputs(ShapeContext& c) {
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, PartialShape::Scalar());
  return OkStatus();
}

bool ReadScalarString(OpKernelContext* ctx, int i, const char* what, std::string* value) {
  const Tensor& t = ctx->input(i);
  if (t.dtype() != DT_STRING || t.NumElements() != 1) {
    FailInvalidArgument(ctx, what, " must be a single string, not a tensor of shape ", t.shape().DebugString());
    return false;
  }
  *value = t.data<std::string>()[0];
  return true;
}

// The names and (empty) slice specs of a SaveV2/RestoreV2, checked against `count` tensors.
bool ReadNames(OpKernelContext* ctx, int64_t count, std::vector<std::string>* names) {
  const Tensor& names_t = ctx->input(1);
  const Tensor& slices_t = ctx->input(2);
  if (names_t.NumElements() != count || slices_t.NumElements() != count) {
    FailInvalidArgument(ctx, "tensor_names has ", names_t.NumElements(), " names and shape_and_slices ",
                        slices_t.NumElements(), " entries for ", count, " tensors");
    return false;
  }
  for (int64_t k = 0; k < count; ++k) {
    const std::string& slice = slices_t.data<std::string>()[k];
    if (!slice.empty()) {
      ctx->SetStatus(errors::Unimplemented("Tensor '", names_t.data<std::string>()[k], "' is saved as slice '", slice,
                                           "' (a partitioned variable); ClusterLab saves whole tensors only",
                                           NodeSuffix(ctx->name())));
      return false;
    }
    names->push_back(names_t.data<std::string>()[k]);
  }
  return true;
}

// The directory of a checkpoint's prefix, opened (below the task's directories on a
// server, made first when `create`), and the prefix's name in it: the bundle's files are
// then created, read, renamed and removed there alone. False (with the status set) when the
// prefix lies outside.
bool OpenBundleDir(OpKernelContext* ctx, const char* what, const std::string& prefix, bool create,
                   FileInDirectory* at) {
  auto opened = ctx->device()->OpenDirectoryOf(prefix, what, create);
  if (!opened.ok()) {
    ctx->SetStatus(Status(opened.status().code(), clab::StrCat(opened.status().message(), NodeSuffix(ctx->name()))));
    return false;
  }
  *at = *std::move(opened);
  return true;
}

void SaveV2Compute(OpKernelContext* ctx) {
  std::string prefix;
  if (!ReadScalarString(ctx, 0, "prefix", &prefix)) return;
  const int64_t count = ctx->num_inputs() - 3;
  std::vector<std::string> names;
  if (!ReadNames(ctx, count, &names)) return;
  std::map<std::string, Tensor> tensors;
  for (int64_t k = 0; k < count; ++k) {
    Tensor value;
    if (!ReadInput(ctx, static_cast<int>(k + 3), &value)) return;
    if (!tensors.emplace(names[static_cast<size_t>(k)], value).second)
      return FailInvalidArgument(ctx, "tensor name '", names[static_cast<size_t>(k)], "' is given twice");
  }
  FileInDirectory at;
  if (!OpenBundleDir(ctx, "the checkpoint", prefix, true, &at)) return;
  if (Status written = WriteTensorBundleAt(at, tensors); !written.ok())
    ctx->SetStatus(Status(written.code(), clab::StrCat(written.message(), NodeSuffix(ctx->name()))));
}

void RestoreV2Compute(OpKernelContext* ctx) {
  std::string prefix;
  if (!ReadScalarString(ctx, 0, "prefix", &prefix)) return;
  FileInDirectory at;
  if (!OpenBundleDir(ctx, "the checkpoint", prefix, false, &at)) return;
  std::vector<std::string> names;
  if (!ReadNames(ctx, ctx->num_outputs(), &names)) return;
  std::vector<DataType> dtypes;
  if (Status s = GetNodeAttr(ctx->node(), "dtypes", &dtypes); !s.ok()) return FailInvalidArgument(ctx, s.message());
  auto reader = TensorBundleReader::OpenAt(at);
  if (!reader.ok())
    return ctx->SetStatus(
        Status(reader.status().code(), clab::StrCat(reader.status().message(), NodeSuffix(ctx->name()))));
  for (size_t k = 0; k < names.size(); ++k) {
    auto value = reader->Read(names[k]);
    if (!value.ok())
      return ctx->SetStatus(
          Status(value.status().code(), clab::StrCat(value.status().message(), NodeSuffix(ctx->name()))));
    if (value->dtype() != dtypes[k])
      return FailInvalidArgument(ctx, "tensor '", names[k], "' in checkpoint ", prefix, " is ",
                                 DataTypeName(value->dtype()), ", the graph restores it as ", DataTypeName(dtypes[k]));
    ctx->set_output(static_cast<int>(k), std::move(value).value());
  }
}

void MergeV2CheckpointsCompute(OpKernelContext* ctx) {
  const Tensor& sources = ctx->input(0);
  std::string destination;
  if (!ReadScalarString(ctx, 1, "destination_prefix", &destination)) return;
  FileInDirectory destination_at;
  if (!OpenBundleDir(ctx, "the merged checkpoint", destination, true, &destination_at)) return;
  std::vector<FileInDirectory> source_ats;
  for (int64_t k = 0, k_end = sources.NumElements(); k < k_end; ++k) {
    FileInDirectory at;
    if (!OpenBundleDir(ctx, "the checkpoint shard", sources.data<std::string>()[k], false, &at)) return;
    source_ats.push_back(std::move(at));
  }
  bool delete_old_dirs = true;
  GetNodeAttr(ctx->node(), "delete_old_dirs", &delete_old_dirs).IgnoreError();
  std::map<std::string, Tensor> merged;
  for (const FileInDirectory& source : source_ats) {
    auto reader = TensorBundleReader::OpenAt(source);
    if (!reader.ok()) return ctx->SetStatus(reader.status());
    for (const BundleEntryInfo& entry : reader->List()) {
      auto value = reader->Read(entry.name);
      if (!value.ok()) return ctx->SetStatus(value.status());
      if (!merged.emplace(entry.name, std::move(value).value()).second)
        return FailInvalidArgument(ctx, "tensor '", entry.name, "' is in more than one shard (", source.path, ")");
    }
  }
  if (Status written = WriteTensorBundleAt(destination_at, merged); !written.ok()) return ctx->SetStatus(written);
  for (size_t k = 0; k < source_ats.size(); ++k) {
    const FileInDirectory& source = source_ats[k];
    if (source.path == destination_at.path) continue;
    const int dir = source.dir->get();
    ::unlinkat(dir, (source.name + ".index").c_str(), 0);
    ::unlinkat(dir, BundleDataFile(source.name).c_str(), 0);
    // The shards' temporary folder goes once empty, as TensorFlow's merge leaves no trace:
    // removed by its name in its own parent, opened the same confined way.
    if (!delete_old_dirs) continue;
    const std::string folder =
        std::filesystem::path(sources.data<std::string>()[static_cast<int64_t>(k)]).parent_path().string();
    if (folder.empty()) continue;
    auto parent = ctx->device()->OpenDirectoryOf(folder, "the checkpoint shard's folder", false);
    if (parent.ok()) ::unlinkat(parent->dir->get(), parent->name.c_str(), AT_REMOVEDIR);
  }
}

void ShardedFilenameCompute(OpKernelContext* ctx) {
  std::string basename;
  if (!ReadScalarString(ctx, 0, "basename", &basename)) return;
  const int32_t shard = ctx->input(1).scalar<int32_t>();
  const int32_t num_shards = ctx->input(2).scalar<int32_t>();
  if (shard < 0 || num_shards <= 0 || shard >= num_shards)
    return FailInvalidArgument(ctx, "shard ", shard, " of ", num_shards, " shards is out of range");
  Tensor out(DT_STRING, TensorShape{});
  out.data<std::string>()[0] = absl::StrFormat("%s-%05d-of-%05d", basename, shard, num_shards);
  ctx->set_output(0, std::move(out));
}

// StringJoin: element-wise over inputs of one shape, scalars repeated.
Status StringJoinShape(ShapeContext& c) {
  PartialShape out = PartialShape::Scalar();
  for (int i = 0; i < c.num_inputs(); ++i) {
    const PartialShape& s = c.input_shape(i);
    if (s.known_rank() && s.rank() == 0) continue;
    auto merged = out.rank() == 0 ? StatusOr<PartialShape>(s) : out.MergeWith(s);
    if (!merged.ok()) return c.MakeError(std::string(merged.status().message()));
    out = *merged;
  }
  c.set_output(0, out);
  return OkStatus();
}

void StringJoinCompute(OpKernelContext* ctx) {
  std::string separator;
  GetNodeAttr(ctx->node(), "separator", &separator).IgnoreError();
  TensorShape shape;
  for (int i = 0; i < ctx->num_inputs(); ++i) {
    const TensorShape& s = ctx->input(i).shape();
    if (s.rank() == 0) continue;
    if (shape.rank() > 0 && !(shape == s))
      return FailInvalidArgument(ctx, "inputs must be scalars or of one shape, not ", shape.DebugString(), " and ",
                                 s.DebugString());
    shape = s;
  }
  Tensor out(DT_STRING, shape);
  for (int64_t k = 0, k_end = out.NumElements(); k < k_end; ++k) {
    std::string joined;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const Tensor& in = ctx->input(i);
      if (i > 0) joined += separator;
      joined += in.data<std::string>()[in.shape().rank() == 0 ? 0 : k];
    }
    out.data<std::string>()[k] = std::move(joined);
  }
  ctx->set_output(0, std::move(out));
}

void RegisterSaverOps(OpRegistry& registry) {
  registry.Register("SaveV2")
      .Input("prefix: string")
      .Input("tensor_names: string")
      .Input("shape_and_slices: string")
      .Input("tensors: dtypes")
      .Attr("dtypes: list(type)")
      .Stateful()
      .SetShapeFn([](ShapeContext&) { return OkStatus(); })
      .Kernel("CPU", LambdaKernel(SaveV2Compute))
      .Summary("Writes the named tensors to a checkpoint (P.index, P.data-*) under prefix.")
      .Group("saver");
  registry.Register("RestoreV2")
      .Input("prefix: string")
      .Input("tensor_names: string")
      .Input("shape_and_slices: string")
      .Output("tensors: dtypes")
      .Attr("dtypes: list(type)")
      .Stateful()
      .Kernel("CPU", LambdaKernel(RestoreV2Compute))
      .Summary("Reads the named tensors from the checkpoint under prefix.")
      .Group("saver");
  registry.Register("MergeV2Checkpoints")
      .Input("checkpoint_prefixes: string")
      .Input("destination_prefix: string")
      .Attr("delete_old_dirs: bool = true")
      .Stateful()
      .SetShapeFn([](ShapeContext&) { return OkStatus(); })
      .Kernel("CPU", LambdaKernel(MergeV2CheckpointsCompute))
      .Summary("Merges the shards a sharded saver wrote into one checkpoint and deletes them.")
      .Group("saver");
  registry.Register("ShardedFilename")
      .Input("basename: string")
      .Input("shard: int32")
      .Input("num_shards: int32")
      .Output("filename: string")
      .SetShapeFn(ScalarOutputs)
      .Kernel("CPU", LambdaKernel(ShardedFilenameCompute, /*expensive=*/false))
      .Summary("basename-SSSSS-of-NNNNN, the name of one shard.")
      .Group("saver");
  registry.Register("StringJoin")
      .Input("inputs: N * string")
      .Output("output: string")
      .Attr("N: int >= 1")
      .Attr("separator: string = ''")
      .SetShapeFn(StringJoinShape)
      .Kernel("CPU", LambdaKernel(StringJoinCompute, /*expensive=*/false))
      .Summary("Joins strings element-wise with a separator; scalars repeat.")
      .Group("string");
}

}  // namespace

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kSaverOpFamily("saver", RegisterSaverOps);

}  // namespace clab::array_internal
