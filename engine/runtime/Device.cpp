#include "clab/runtime/Device.h"

#include "clab/runtime/FileAccess.h"

#include <fcntl.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>

namespace clab {
namespace {

// A fresh random 64-bit value per device; never 0, which peers read as "unknown".
uint64_t NewIncarnation() {
  static std::mutex mu;
  static std::mt19937_64 engine{[] {
    std::random_device seed;
    return (static_cast<uint64_t>(seed()) << 32) ^ seed();
  }()};
  std::lock_guard<std::mutex> lock(mu);
  uint64_t value = 0;
  while (value == 0) value = engine();
  return value;
}

Status CheckSameLayout(const Tensor& from, const Tensor& to) {
  if (from.dtype() != to.dtype() || from.shape() != to.shape())
    return errors::InvalidArgument("Cannot copy a ", DataTypeName(from.dtype()), " tensor of shape ",
                                   from.shape().DebugString(), " into a ", DataTypeName(to.dtype()),
                                   " tensor of shape ", to.shape().DebugString());
  return OkStatus();
}

// Host-to-host copy; strings are objects, not bytes.
void CopyHostBytes(const Tensor& from, Tensor* to) {
  if (from.dtype() == DT_STRING || from.dtype() == tensorflow::DT_RESOURCE) {
    const std::string* src = from.data<std::string>();
    std::string* dst = to->data<std::string>();
    for (int64_t i = 0, i_end = from.NumElements(); i < i_end; ++i) dst[i] = src[i];
    return;
  }
  if (from.TotalBytes() > 0) std::memcpy(to->raw_data(), from.raw_data(), from.TotalBytes());
}

}  // namespace

Device::Device(std::string full_name, std::string type, std::string description)
    : name_(std::move(full_name)), type_(std::move(type)), description_(std::move(description)),
      incarnation_(NewIncarnation()) {
  // A device is only ever built from a canonical name; a bad one leaves the parsed form
  // empty, which no spec but the empty one matches.
  if (auto parsed = DeviceName::Parse(name_); parsed.ok()) parsed_ = *std::move(parsed);
}

Device::~Device() = default;

tensorflow::DeviceAttributes Device::attributes() const {
  tensorflow::DeviceAttributes attrs;
  attrs.set_name(name_);
  attrs.set_device_type(type_);
  // TensorFlow reports 256 MiB for host devices; GPUs override through their description.
  if (type_ == "CPU") attrs.set_memory_limit(int64_t{256} << 20);
  attrs.set_incarnation(incarnation_);
  attrs.set_physical_device_desc(description_);
  return attrs;
}

StatusOr<UniqueFd> Device::OpenForReading(const std::string& path, std::string_view what) const {
  if (file_access_) return file_access_->OpenForReading(path, what);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errors::NotFound("cannot open ", what, " '", path, "': ", std::strerror(errno));
  return UniqueFd(fd);
}

StatusOr<FileInDirectory> Device::OpenDirectoryOf(const std::string& path, std::string_view what, bool create) const {
  if (file_access_) return file_access_->OpenDirectoryOf(path, what, create);
  const std::filesystem::path given(path);
  if (given.filename().empty()) return errors::InvalidArgument(what, " '", path, "' names a directory, not a file");
  const std::string dir = given.has_parent_path() ? given.parent_path().string() : ".";
  if (create) {
    std::error_code ignored;
    std::filesystem::create_directories(dir, ignored);
  }
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errors::NotFound("cannot open the directory of ", what, " '", path, "': ", std::strerror(errno));
  FileInDirectory file;
  file.dir = std::make_shared<const UniqueFd>(fd);
  file.name = given.filename().string();
  file.path = path;
  return file;
}

Status Device::CopyHostToDevice(const Tensor& host, Tensor* device_tensor) {
  CLAB_RETURN_IF_ERROR(CheckSameLayout(host, *device_tensor));
  if (!device_tensor->OnHost()) return errors::Unimplemented("Device ", name_, " cannot copy into non-host memory");
  CopyHostBytes(host, device_tensor);
  return OkStatus();
}

Status Device::CopyDeviceToHost(const Tensor& device_tensor, Tensor* host) {
  CLAB_RETURN_IF_ERROR(CheckSameLayout(device_tensor, *host));
  if (!device_tensor.OnHost()) return errors::Unimplemented("Device ", name_, " cannot copy from non-host memory");
  CopyHostBytes(device_tensor, host);
  return OkStatus();
}

}  // namespace clab
