// An immutable sorted key -> value file in the LevelDB table layout that TensorFlow uses for
// checkpoint indexes: prefix-compressed data blocks with restart points, each followed by a
// type byte and a masked CRC32C, an index block, an empty metaindex block and a 48-byte
// footer ending in the magic number 0xdb4775248b80fb57.
#pragma once

#include "clab/core/Status.h"

#include <map>
#include <string>

namespace clab {

// Keys must be added in strictly increasing byte order.
class SortedTableBuilder {
 public:
  explicit SortedTableBuilder(size_t block_size = 256 * 1024, int restart_interval = 16);
  Status Add(std::string_view key, std::string_view value);
  // The whole file's bytes.
  std::string Finish();

 private:
  void FlushBlock();
  std::string EncodeBlock(std::string* block, std::vector<uint32_t>* restarts);

  size_t block_size_;
  int restart_interval_;
  std::string file_;
  std::string block_;
  std::vector<uint32_t> restarts_;
  int entries_since_restart_ = 0;
  std::string last_key_;
  bool has_last_key_ = false;
  std::string index_block_;
  std::vector<uint32_t> index_restarts_;
};

// Reads a whole table into memory (checkpoint indexes are small). DATA_LOSS names `what`
// (the file) and the part that is corrupt.
Status ReadSortedTable(std::string_view bytes, const std::string& what, std::map<std::string, std::string>* entries);

}  // namespace clab
