// A checkpoint (TensorFlow's V2 tensor bundle) as a restore reads it: the index (a sorted
// table of BundleEntryProtos) and the data file. The input is the index's length (4 bytes,
// little-endian), the index, then the data file's bytes.
#include "FuzzFile.h"
#include "clab/io/TensorBundle.h"

#include <algorithm>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static clab::fuzz::FuzzFile index("model.ckpt.index");
  static clab::fuzz::FuzzFile data_file("model.ckpt.data-00000-of-00001");
  if (size < 4) return 0;
  const size_t index_size = std::min<size_t>(size - 4, uint32_t{data[0]} | uint32_t{data[1]} << 8 |
                                                           uint32_t{data[2]} << 16 | uint32_t{data[3]} << 24);
  index.Write(data + 4, index_size);
  data_file.Write(data + 4 + index_size, size - 4 - index_size);
  const std::string prefix = index.dir() + "/model.ckpt";
  auto reader = clab::TensorBundleReader::Open(prefix);
  if (!reader.ok()) return 0;
  for (const clab::BundleEntryInfo& entry : reader->List()) {
    auto tensor = reader->Read(entry.name);
    if (tensor.ok()) (void)tensor->DebugString();
  }
  return 0;
}
