// The state behind a reader node (TextLineReaderV2, TFRecordReaderV2,
// FixedLengthRecordReaderV2, WholeFileReaderV2): the file it works on (a work item, a file
// name taken from a string queue) and where it stands in it. Each read gives the next
// record of the current file with its key ("file:line" for text lines, "file:offset" for
// TFRecords, "file:index" for fixed-length records, the file name for whole files); at a
// file's end the reader finishes the work item and wants the next one.
//
// Files are opened through the device (Device::OpenForReading), so a task started with
// --data_dir reads only beneath its data directories: any other path is PERMISSION_DENIED
// naming it, a missing file NOT_FOUND naming it.
#pragma once

#include "clab/core/Status.h"
#include "clab/runtime/ResourceMgr.h"

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>

namespace clab {

class Device;

class InputReader : public Resource {
 public:
  enum class Format { kTextLine, kTFRecord, kFixedLength, kWholeFile };
  struct Options {
    Format format = Format::kTextLine;
    std::string name;
    int64_t skip_header_lines = 0;                                                // text lines
    int64_t header_bytes = 0, record_bytes = 0, footer_bytes = 0, hop_bytes = 0;  // fixed length
  };

  explicit InputReader(Options options) : options_(std::move(options)) {}

  // Serialises the reads of the steps and threads that share the reader.
  std::mutex& mu() const { return mu_; }
  // The next record into key and value: true when there is one; false when the reader has
  // no work item left (the caller takes the next file name from the queue, AddWorkLocked,
  // and reads again). Errors name the file: opening it, a damaged TFRecord.
  StatusOr<bool> ReadLocked(const Device& device, std::string* key, std::string* value);
  void AddWorkLocked(std::string file) { pending_.push_back(std::move(file)); }

  int64_t records_produced() const;
  int64_t work_units_completed() const;
  std::string DebugString() const override;

 private:
  Status StartWorkLocked(const Device& device, std::string file);
  // The next record of the open file; false at its end.
  StatusOr<bool> NextRecordLocked(std::string* key, std::string* value);
  StatusOr<bool> NextTFRecordLocked(std::string* key, std::string* value);
  const char* KindName() const;

  const Options options_;
  mutable std::mutex mu_;
  std::deque<std::string> pending_;
  bool working_ = false;
  std::string file_;
  std::string content_;
  size_t position_ = 0;
  int64_t index_ = 0;  // records (lines) of the current file given so far
  int64_t records_produced_ = 0;
  int64_t work_units_completed_ = 0;
};

}  // namespace clab
