// TFRecord framing (length, masked CRC32C, data, masked CRC32C), which event files and
// ClusterLab's own logs use: read to the end, then resumed from an offset the reader gave,
// as a reader tailing a live file does.
#include "FuzzFile.h"
#include "clab/io/RecordFile.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static clab::fuzz::FuzzFile file("records.tfrecord");
  file.Write(data, size);
  clab::RecordReader reader;
  if (!reader.Open(file.path()).ok()) std::abort();
  std::string record;
  uint64_t last_good = 0;
  int records = 0;
  clab::Status status;
  while ((status = reader.Read(&record)).ok()) {
    if (record.size() > size) std::abort();  // a record longer than the file
    last_good = reader.offset();
    ++records;
  }
  if (!reader.Seek(last_good).ok()) return 0;
  // From the offset after the last good record, the same error comes again.
  if (reader.Read(&record).code() != status.code()) std::abort();
  return 0;
}
