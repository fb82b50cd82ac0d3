#include "clab/io/TensorBundle.h"

#include "clab/core/TensorAllocation.h"
#include "clab/core/TensorSize.h"

#include "clab/io/Crc32c.h"
#include "clab/io/SortedTable.h"
#include "core/BoolBytes.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace clab {
namespace {

// Creates `name` in `dir` (never through a symbolic link, never over a file already there).
Status WriteFileDurably(int dir, const std::string& name, const std::string& shown,
                        const std::vector<std::string_view>& pieces) {
  const int fd = ::openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return errors::Internal("Cannot create ", shown, ": ", std::strerror(errno));
  for (std::string_view piece : pieces) {
    while (!piece.empty()) {
      const ssize_t n = ::write(fd, piece.data(), piece.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        const int err = errno;
        ::close(fd);
        return errors::Internal("Cannot write ", shown, ": ", std::strerror(err));
      }
      piece.remove_prefix(static_cast<size_t>(n));
    }
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) return errors::Internal("Cannot sync ", shown, ": ", std::strerror(errno));
  return OkStatus();
}

// The directory of a prefix named by path, opened as it is (no confinement: the program's own files).
StatusOr<FileInDirectory> PlainLocation(const std::string& prefix) {
  const std::filesystem::path given(prefix);
  const std::string dir = given.has_parent_path() ? given.parent_path().string() : ".";
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errors::NotFound("cannot open ", dir, ": ", std::strerror(errno));
  FileInDirectory at;
  at.dir = std::make_shared<const UniqueFd>(fd);
  at.name = given.filename().string();
  at.path = prefix;
  return at;
}

std::string TempSuffix() {
  static thread_local std::mt19937_64 rng(std::random_device{}());
  char buf[32];
  std::snprintf(buf, sizeof(buf), ".tempstate%016llx", static_cast<unsigned long long>(rng()));
  return buf;
}

// The entry's shape, size and place in the data file must agree before anything is read.
Status CheckEntry(const tensorflow::BundleEntryProto& entry, const std::string& name, const std::string& index_path) {
  auto damaged = [&](const auto&... why) {
    return errors::DataLoss(index_path, ": the entry for '", name, "' is damaged: ", why...);
  };
  StatusOr<TensorShape> shape = TensorShape::FromProto(entry.shape());
  if (!shape.ok()) return damaged(shape.status().message());
  StatusOr<TensorSize> size = TensorSize::Of(entry.dtype(), shape->dims());
  if (!size.ok()) return damaged(size.status().message());
  if (entry.size() < 0 || entry.offset() < 0)
    return damaged("negative offset ", entry.offset(), " or size ", entry.size());
  if (IsSupportedDataType(entry.dtype()) && entry.dtype() != DT_STRING &&
      static_cast<uint64_t>(entry.size()) != size->bytes)
    return damaged(entry.size(), " bytes, but a ", DataTypeName(entry.dtype()), " tensor of shape ",
                   shape->DebugString(), " has ", size->bytes);
  int64_t end = 0;
  if (__builtin_add_overflow(entry.offset(), entry.size(), &end))
    return damaged("offset ", entry.offset(), " plus size ", entry.size(), " overflows");
  if (entry.shard_id() < 0) return damaged("negative shard ", entry.shard_id());
  return OkStatus();
}

}  // namespace

std::string BundleDataFile(const std::string& prefix, int shard, int num_shards) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), ".data-%05d-of-%05d", shard, num_shards);
  return prefix + buf;
}

Status WriteTensorBundle(const std::string& prefix, const std::map<std::string, Tensor>& tensors) {
  StatusOr<FileInDirectory> at = PlainLocation(prefix);
  if (!at.ok()) return errors::Internal("Cannot write checkpoint ", prefix, ": its directory cannot be opened");
  return WriteTensorBundleAt(*at, tensors);
}

Status WriteTensorBundleAt(const FileInDirectory& at, const std::map<std::string, Tensor>& tensors) {
  if (!at.dir || !at.dir->valid() || at.name.empty() || at.name.find('/') != std::string::npos)
    return errors::InvalidArgument("Checkpoint ", at.path, ": no directory and name to write it at");
  SortedTableBuilder table;
  tensorflow::BundleHeaderProto header;
  header.set_num_shards(1);
  header.set_endianness(tensorflow::BundleHeaderProto::LITTLE);
  header.mutable_version()->set_producer(1);
  CLAB_RETURN_IF_ERROR(table.Add("", header.SerializeAsString()));

  std::vector<std::string_view> data_pieces;
  int64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    if (name.empty()) return errors::InvalidArgument("A checkpoint tensor needs a non-empty name");
    if (!tensor.IsInitialized() || tensor.dtype() == DT_STRING || !tensor.OnHost())
      return errors::Unimplemented("Cannot save tensor '", name, "' of dtype ", DataTypeName(tensor.dtype()),
                                   ": only numeric host tensors are checkpointed");
    const std::string_view bytes(static_cast<const char*>(tensor.raw_data()), tensor.TotalBytes());
    tensorflow::BundleEntryProto entry;
    entry.set_dtype(tensor.dtype());
    tensor.shape().AsProto(entry.mutable_shape());
    entry.set_shard_id(0);
    entry.set_offset(offset);
    entry.set_size(static_cast<int64_t>(bytes.size()));
    entry.set_crc32c(crc32c::Mask(crc32c::Value(bytes)));
    CLAB_RETURN_IF_ERROR(table.Add(name, entry.SerializeAsString()));
    data_pieces.push_back(bytes);
    offset += static_cast<int64_t>(bytes.size());
  }
  const std::string index = table.Finish();

  // Data first, index last: a checkpoint exists only once its index has its final name.
  const int dir = at.dir->get();
  const std::string data_name = BundleDataFile(at.name);
  const std::string index_name = at.name + ".index";
  const std::string data_tmp = data_name + TempSuffix();
  const std::string index_tmp = index_name + TempSuffix();
  const std::string prefix = at.path;
  Status s = WriteFileDurably(dir, data_tmp, BundleDataFile(prefix) + " (temporary)", data_pieces);
  if (s.ok()) s = WriteFileDurably(dir, index_tmp, prefix + ".index (temporary)", {index});
  if (s.ok() && ::renameat(dir, data_tmp.c_str(), dir, data_name.c_str()) != 0)
    s = errors::Internal("Cannot rename ", data_tmp, " to ", BundleDataFile(prefix), ": ", std::strerror(errno));
  if (s.ok() && ::renameat(dir, index_tmp.c_str(), dir, index_name.c_str()) != 0)
    s = errors::Internal("Cannot rename ", index_tmp, " to ", prefix, ".index: ", std::strerror(errno));
  if (!s.ok()) {
    ::unlinkat(dir, data_tmp.c_str(), 0);
    ::unlinkat(dir, index_tmp.c_str(), 0);
    return s;
  }
  ::fsync(dir);
  return OkStatus();
}

StatusOr<TensorBundleReader> TensorBundleReader::Open(const std::string& prefix) {
  StatusOr<FileInDirectory> at = PlainLocation(prefix);
  if (!at.ok()) return errors::NotFound("No checkpoint at ", prefix, " (its directory cannot be opened)");
  return OpenAt(*at);
}

StatusOr<TensorBundleReader> TensorBundleReader::OpenAt(const FileInDirectory& at) {
  const std::string& prefix = at.path;
  const std::string index_path = prefix + ".index";
  if (!at.dir || !at.dir->valid() || at.name.empty() || at.name.find('/') != std::string::npos)
    return errors::InvalidArgument("Checkpoint ", prefix, ": no directory and name to read it at");
  std::string bytes;
  {
    const int fd = ::openat(at.dir->get(), (at.name + ".index").c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return errors::NotFound("No checkpoint at ", prefix, " (", index_path, " does not exist)");
    UniqueFd index(fd);
    char buffer[1 << 16];
    for (;;) {
      const ssize_t n = ::read(fd, buffer, sizeof(buffer));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return errors::DataLoss("Cannot read ", index_path, ": ", std::strerror(errno));
      if (n == 0) break;
      bytes.append(buffer, static_cast<size_t>(n));
    }
  }
  std::map<std::string, std::string> raw;
  CLAB_RETURN_IF_ERROR(ReadSortedTable(bytes, index_path, &raw));
  auto header_it = raw.find("");
  tensorflow::BundleHeaderProto header;
  if (header_it == raw.end() || !header.ParseFromString(header_it->second))
    return errors::DataLoss(index_path, " has no valid header entry");
  if (header.endianness() != tensorflow::BundleHeaderProto::LITTLE)
    return errors::Unimplemented(index_path, " was written on a big-endian machine");
  TensorBundleReader reader;
  reader.prefix_ = prefix;
  reader.dir_ = at.dir;
  reader.name_ = at.name;
  reader.num_shards_ = header.num_shards();
  if (reader.num_shards_ < 1 || reader.num_shards_ > 99999)
    return errors::DataLoss(index_path, " has a damaged header: ", reader.num_shards_, " shards");
  for (auto& [name, value] : raw) {
    if (name.empty()) continue;
    tensorflow::BundleEntryProto entry;
    if (!entry.ParseFromString(value)) return errors::DataLoss(index_path, ": the entry for '", name, "' is corrupt");
    CLAB_RETURN_IF_ERROR(CheckEntry(entry, name, index_path));
    if (__builtin_add_overflow(reader.data_bytes_, entry.size(), &reader.data_bytes_))
      return errors::DataLoss(index_path, ": the sizes of its tensors add up to more than 2^63 bytes");
    reader.entries_.emplace(name, std::move(entry));
  }
  return reader;
}

std::vector<BundleEntryInfo> TensorBundleReader::List() const {
  std::vector<BundleEntryInfo> out;
  for (const auto& [name, entry] : entries_) {
    BundleEntryInfo info;
    info.name = name;
    info.dtype = entry.dtype();
    auto shape = TensorShape::FromProto(entry.shape());
    if (shape.ok()) info.shape = *shape;
    info.bytes = entry.size();
    out.push_back(std::move(info));
  }
  return out;
}

StatusOr<Tensor> TensorBundleReader::Read(const std::string& name) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) return errors::NotFound("Key ", name, " not found in checkpoint ", prefix_);
  const auto& entry = it->second;
  CLAB_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromProto(entry.shape()));
  if (!IsSupportedDataType(entry.dtype()) || entry.dtype() == DT_STRING)
    return errors::Unimplemented("Checkpoint ", prefix_, " holds '", name, "' as ", DataTypeName(entry.dtype()),
                                 ", which cannot be restored");
  // Open checked the entry's size against its shape; the data file must hold it before
  // memory is reserved for it.
  if (entry.shard_id() >= num_shards_)
    return errors::DataLoss("Checkpoint ", prefix_, ": '", name, "' is in shard ", entry.shard_id(), " of ",
                            num_shards_);
  const std::string path = BundleDataFile(prefix_, entry.shard_id(), num_shards_);
  const int fd = ::openat(dir_->get(), BundleDataFile(name_, entry.shard_id(), num_shards_).c_str(),
                          O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errors::DataLoss("Checkpoint data file ", path, " cannot be opened: ", std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0 || entry.offset() > info.st_size || entry.size() > info.st_size - entry.offset()) {
    ::close(fd);
    return errors::DataLoss("Checkpoint data file ", path, " is truncated: '", name, "' needs bytes ", entry.offset(),
                            "..", entry.offset() + entry.size(), " of ", static_cast<int64_t>(info.st_size));
  }
  StatusOr<Tensor> allocated = AllocateTensor(entry.dtype(), shape);
  if (!allocated.ok()) {
    ::close(fd);
    return errors::Annotate(allocated.status(), StrCat("Checkpoint ", prefix_, ": '", name, "': "));
  }
  Tensor tensor = *std::move(allocated);
  size_t done = 0;
  auto* out = static_cast<char*>(tensor.raw_data());
  while (done < tensor.TotalBytes()) {
    const ssize_t n = ::pread(fd, out + done, tensor.TotalBytes() - done, entry.offset() + static_cast<off_t>(done));
    if (n <= 0) {
      ::close(fd);
      return errors::DataLoss("Checkpoint data file ", path, " is truncated: '", name, "' needs bytes ", entry.offset(),
                              "..", entry.offset() + entry.size());
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  if (crc32c::Mask(crc32c::Value(out, tensor.TotalBytes())) != entry.crc32c())
    return errors::DataLoss("Checksum mismatch for '", name, "' in ", path, ": the checkpoint is corrupt");
  NormalizeBoolBytes(&tensor);
  return tensor;
}

}  // namespace clab
