// TFRecord files: each record is
//   uint64 length | uint32 masked_crc32c(length) | data | uint32 masked_crc32c(data)
// little-endian. Event files and ClusterLab's own logs use this framing.
#pragma once

#include "clab/core/Status.h"

#include <cstdint>
#include <cstdio>
#include <string>

namespace clab {

class RecordWriter {
 public:
  RecordWriter() = default;
  ~RecordWriter();
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;

  // Creates (truncates) `path`. Errors name the path and the system's reason.
  Status Open(const std::string& path);
  Status Write(std::string_view record);
  // Pushes buffered records to the operating system (and, with `sync`, to the disk).
  Status Flush(bool sync = false);
  Status Close();
  bool is_open() const { return file_ != nullptr; }
  const std::string& path() const { return path_; }

 private:
  std::FILE* file_ = nullptr;
  std::string path_;
};

class RecordReader {
 public:
  RecordReader() = default;
  ~RecordReader();
  RecordReader(const RecordReader&) = delete;
  RecordReader& operator=(const RecordReader&) = delete;

  Status Open(const std::string& path);
  // OUT_OF_RANGE at a clean end of file; DATA_LOSS naming the file and the byte offset for a
  // corrupt length, a bad checksum or a record cut short (a file still being written ends
  // like that: callers tailing a live file may retry later from offset()).
  Status Read(std::string* record);
  uint64_t offset() const { return offset_; }
  // Continues from a byte offset given by an earlier offset().
  Status Seek(uint64_t offset);

 private:
  std::FILE* file_ = nullptr;
  std::string path_;
  uint64_t offset_ = 0;
};

}  // namespace clab
