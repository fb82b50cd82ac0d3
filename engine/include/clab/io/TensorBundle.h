// Checkpoint files for a prefix P: "P.index" (a sorted table: "" -> BundleHeaderProto, each
// tensor name -> BundleEntryProto) and "P.data-00000-of-00001" (the tensors' bytes in key
// order). TensorFlow's V2 layout, so its tools can read them. Both files are written to
// temporary names, synced and renamed, so a crash never leaves a half-written checkpoint
// under the final name; every tensor carries a CRC32C, checked on read.
#pragma once

#include "clab/core/FileInDirectory.h"
#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "tensorflow/tensor_bundle.pb.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace clab {

Status WriteTensorBundle(const std::string& prefix, const std::map<std::string, Tensor>& tensors);
// The same into an open directory: `at.name` is the prefix's last component there, and
// `at.path` the prefix for messages. Files are created there with openat (O_EXCL |
// O_NOFOLLOW) and renamed with renameat, so nothing is written anywhere else.
Status WriteTensorBundleAt(const FileInDirectory& at, const std::map<std::string, Tensor>& tensors);

struct BundleEntryInfo {
  std::string name;
  DataType dtype = DT_INVALID;
  TensorShape shape;
  int64_t bytes = 0;
};

class TensorBundleReader {
 public:
  // Reads and checks the index. NOT_FOUND when P.index is missing; DATA_LOSS naming the file
  // when it is corrupt or truncated.
  static StatusOr<TensorBundleReader> Open(const std::string& prefix);
  // From an open directory (see WriteTensorBundleAt): the index and the data files are
  // opened in it, never by their whole path.
  static StatusOr<TensorBundleReader> OpenAt(const FileInDirectory& at);

  std::vector<BundleEntryInfo> List() const;  // sorted by name
  bool Contains(const std::string& name) const { return entries_.count(name) > 0; }
  // NOT_FOUND "Key w not found in checkpoint P"; DATA_LOSS on a size or checksum mismatch.
  StatusOr<Tensor> Read(const std::string& name) const;
  const std::string& prefix() const { return prefix_; }
  int64_t data_bytes() const { return data_bytes_; }

 private:
  std::string prefix_;
  std::shared_ptr<const UniqueFd> dir_;  // the directory the files are opened in
  std::string name_;                     // the prefix's last component there
  std::map<std::string, tensorflow::BundleEntryProto> entries_;
  int num_shards_ = 1;
  int64_t data_bytes_ = 0;
};

// "P.data-00000-of-00001"
std::string BundleDataFile(const std::string& prefix, int shard = 0, int num_shards = 1);

}  // namespace clab
