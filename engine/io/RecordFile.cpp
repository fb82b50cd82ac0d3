#include "clab/io/RecordFile.h"

#include "clab/io/Crc32c.h"

#include <cerrno>
#include <cstring>

#include <unistd.h>

namespace clab {
namespace {

void PutFixed64(char* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
void PutFixed32(char* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
uint64_t GetFixed64(const char* in) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(in[i]);
  return v;
}
uint32_t GetFixed32(const char* in) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(in[i]);
  return v;
}

Status SystemError(std::string_view what, const std::string& path) {
  return errors::Internal(what, " ", path, ": ", std::strerror(errno));
}

}  // namespace

RecordWriter::~RecordWriter() { Close().IgnoreError(); }

Status RecordWriter::Open(const std::string& path) {
  CLAB_RETURN_IF_ERROR(Close());
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) return SystemError("Cannot create", path);
  path_ = path;
  return OkStatus();
}

Status RecordWriter::Write(std::string_view record) {
  if (!file_) return errors::FailedPrecondition("Record file is not open");
  char header[12];
  PutFixed64(header, record.size());
  PutFixed32(header + 8, crc32c::Mask(crc32c::Value(header, 8)));
  char footer[4];
  PutFixed32(footer, crc32c::Mask(crc32c::Value(record)));
  if (std::fwrite(header, 1, sizeof(header), file_) != sizeof(header) ||
      std::fwrite(record.data(), 1, record.size(), file_) != record.size() ||
      std::fwrite(footer, 1, sizeof(footer), file_) != sizeof(footer))
    return SystemError("Cannot write to", path_);
  return OkStatus();
}

Status RecordWriter::Flush(bool sync) {
  if (!file_) return OkStatus();
  if (std::fflush(file_) != 0) return SystemError("Cannot flush", path_);
  if (sync && ::fsync(::fileno(file_)) != 0) return SystemError("Cannot sync", path_);
  return OkStatus();
}

Status RecordWriter::Close() {
  if (!file_) return OkStatus();
  const int rc = std::fclose(file_);
  file_ = nullptr;
  if (rc != 0) return SystemError("Cannot close", path_);
  return OkStatus();
}

RecordReader::~RecordReader() {
  if (file_) std::fclose(file_);
}

Status RecordReader::Open(const std::string& path) {
  if (file_) std::fclose(file_);
  file_ = std::fopen(path.c_str(), "rb");
  if (!file_) {
    if (errno == ENOENT) return errors::NotFound("No such file: ", path);
    return SystemError("Cannot open", path);
  }
  path_ = path;
  offset_ = 0;
  return OkStatus();
}

Status RecordReader::Seek(uint64_t offset) {
  if (!file_) return errors::FailedPrecondition("Record file is not open");
  if (std::fseek(file_, static_cast<long>(offset), SEEK_SET) != 0) return SystemError("Cannot seek in", path_);
  offset_ = offset;
  return OkStatus();
}

Status RecordReader::Read(std::string* record) {
  if (!file_) return errors::FailedPrecondition("Record file is not open");
  char header[12];
  const size_t got = std::fread(header, 1, sizeof(header), file_);
  if (got == 0 && std::feof(file_)) {
    std::clearerr(file_);
    return errors::OutOfRange("End of file ", path_);
  }
  auto truncated = [&] {
    std::clearerr(file_);
    std::fseek(file_, static_cast<long>(offset_), SEEK_SET);
    return errors::DataLoss("Truncated record in ", path_, " at byte ", offset_);
  };
  if (got != sizeof(header)) return truncated();
  if (crc32c::Unmask(GetFixed32(header + 8)) != crc32c::Value(header, 8))
    return errors::DataLoss("Corrupt record length in ", path_, " at byte ", offset_);
  const uint64_t length = GetFixed64(header);
  record->resize(length);
  char footer[4];
  if (std::fread(record->data(), 1, length, file_) != length || std::fread(footer, 1, 4, file_) != 4)
    return truncated();
  if (crc32c::Unmask(GetFixed32(footer)) != crc32c::Value(*record))
    return errors::DataLoss("Checksum mismatch for the record in ", path_, " at byte ", offset_);
  offset_ += sizeof(header) + length + sizeof(footer);
  return OkStatus();
}

}  // namespace clab
