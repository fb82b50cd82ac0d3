#include "clab/io/SortedTable.h"

#include "clab/io/Crc32c.h"

namespace clab {
namespace {

constexpr uint64_t kTableMagic = 0xdb4775248b80fb57ull;
constexpr size_t kFooterSize = 48;
constexpr size_t kBlockTrailerSize = 5;

void PutFixed32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void PutFixed64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}
uint32_t GetFixed32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}
uint64_t GetFixed64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}
bool GetVarint(std::string_view* in, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift <= 63 && !in->empty(); shift += 7) {
    const uint8_t byte = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    *v |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return true;
  }
  return false;
}

struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;
  void EncodeTo(std::string* out) const {
    PutVarint(out, offset);
    PutVarint(out, size);
  }
  bool DecodeFrom(std::string_view* in) { return GetVarint(in, &offset) && GetVarint(in, &size); }
};

void AppendEntry(std::string* block, std::string_view last_key, bool restart, std::string_view key,
                 std::string_view value) {
  size_t shared = 0;
  if (!restart)
    while (shared < last_key.size() && shared < key.size() && last_key[shared] == key[shared]) ++shared;
  PutVarint(block, shared);
  PutVarint(block, key.size() - shared);
  PutVarint(block, value.size());
  block->append(key.substr(shared));
  block->append(value);
}

// Appends `contents` and its trailer to `file`; returns where it went.
BlockHandle WriteBlock(std::string* file, const std::string& contents) {
  BlockHandle handle{file->size(), contents.size()};
  file->append(contents);
  const char type = 0;  // no compression
  file->push_back(type);
  uint32_t crc = crc32c::Extend(crc32c::Value(contents), &type, 1);
  PutFixed32(file, crc32c::Mask(crc));
  return handle;
}

Status ReadBlock(std::string_view file, const BlockHandle& handle, const std::string& what, std::string_view* out) {
  // Offset and size are varints from the file: compared by subtraction, so that no sum wraps.
  if (handle.offset > file.size() || handle.size > file.size() - handle.offset ||
      kBlockTrailerSize > file.size() - handle.offset - handle.size)
    return errors::DataLoss(what, ": a block at byte ", handle.offset, " runs past the end of the file");
  const std::string_view contents = file.substr(handle.offset, handle.size);
  const char* trailer = file.data() + handle.offset + handle.size;
  if (trailer[0] != 0) return errors::DataLoss(what, ": compressed blocks are not supported");
  const uint32_t crc = crc32c::Extend(crc32c::Value(contents), trailer, 1);
  if (crc32c::Unmask(GetFixed32(trailer + 1)) != crc)
    return errors::DataLoss(what, ": checksum mismatch in the block at byte ", handle.offset);
  *out = contents;
  return OkStatus();
}

Status ParseBlock(std::string_view block, const std::string& what,
                  std::vector<std::pair<std::string, std::string>>* entries) {
  if (block.size() < 4) return errors::DataLoss(what, ": block too small");
  const uint32_t num_restarts = GetFixed32(block.data() + block.size() - 4);
  if ((static_cast<uint64_t>(num_restarts) + 1) * 4 > block.size())
    return errors::DataLoss(what, ": bad restart count in a block");
  std::string_view data = block.substr(0, block.size() - (num_restarts + 1) * 4);
  std::string key;
  while (!data.empty()) {
    uint64_t shared, non_shared, value_size;
    if (!GetVarint(&data, &shared) || !GetVarint(&data, &non_shared) || !GetVarint(&data, &value_size) ||
        shared > key.size() || non_shared + value_size > data.size())
      return errors::DataLoss(what, ": corrupt entry in a block");
    key.resize(shared);
    key.append(data.substr(0, non_shared));
    data.remove_prefix(non_shared);
    entries->emplace_back(key, std::string(data.substr(0, value_size)));
    data.remove_prefix(value_size);
  }
  return OkStatus();
}

}  // namespace

SortedTableBuilder::SortedTableBuilder(size_t block_size, int restart_interval)
    : block_size_(block_size), restart_interval_(restart_interval) {}

Status SortedTableBuilder::Add(std::string_view key, std::string_view value) {
  if (has_last_key_ && key <= std::string_view(last_key_))
    return errors::InvalidArgument("Table keys must increase: '", key, "' after '", last_key_, "'");
  const bool restart = block_.empty() || entries_since_restart_ == restart_interval_;
  if (restart) {
    restarts_.push_back(static_cast<uint32_t>(block_.size()));
    entries_since_restart_ = 0;
  }
  AppendEntry(&block_, block_.empty() ? std::string_view() : std::string_view(last_key_), restart, key, value);
  ++entries_since_restart_;
  last_key_.assign(key.data(), key.size());
  has_last_key_ = true;
  if (block_.size() >= block_size_) FlushBlock();
  return OkStatus();
}

std::string SortedTableBuilder::EncodeBlock(std::string* block, std::vector<uint32_t>* restarts) {
  if (restarts->empty()) restarts->push_back(0);
  std::string out = std::move(*block);
  for (uint32_t r : *restarts) PutFixed32(&out, r);
  PutFixed32(&out, static_cast<uint32_t>(restarts->size()));
  block->clear();
  restarts->clear();
  return out;
}

void SortedTableBuilder::FlushBlock() {
  if (block_.empty()) return;
  const BlockHandle handle = WriteBlock(&file_, EncodeBlock(&block_, &restarts_));
  entries_since_restart_ = 0;
  // The index maps the block's last key to the block; a reader scans blocks in order.
  std::string encoded;
  handle.EncodeTo(&encoded);
  // Every index entry is a restart point (LevelDB's own index uses an interval of 1).
  index_restarts_.push_back(static_cast<uint32_t>(index_block_.size()));
  AppendEntry(&index_block_, {}, /*restart=*/true, last_key_, encoded);
}

std::string SortedTableBuilder::Finish() {
  FlushBlock();
  std::string empty_block;
  std::vector<uint32_t> empty_restarts;
  const BlockHandle metaindex = WriteBlock(&file_, EncodeBlock(&empty_block, &empty_restarts));
  const BlockHandle index = WriteBlock(&file_, EncodeBlock(&index_block_, &index_restarts_));
  std::string footer;
  metaindex.EncodeTo(&footer);
  index.EncodeTo(&footer);
  footer.resize(kFooterSize - 8, '\0');
  PutFixed64(&footer, kTableMagic);
  file_.append(footer);
  return std::move(file_);
}

Status ReadSortedTable(std::string_view bytes, const std::string& what, std::map<std::string, std::string>* entries) {
  if (bytes.size() < kFooterSize)
    return errors::DataLoss(what, " is truncated: ", bytes.size(), " bytes is smaller than a table footer");
  const char* footer = bytes.data() + bytes.size() - kFooterSize;
  if (GetFixed64(footer + kFooterSize - 8) != kTableMagic)
    return errors::DataLoss(what, " is not a checkpoint index (bad magic number; truncated or overwritten?)");
  std::string_view handles(footer, kFooterSize - 8);
  BlockHandle metaindex, index;
  if (!metaindex.DecodeFrom(&handles) || !index.DecodeFrom(&handles)) return errors::DataLoss(what, ": corrupt footer");
  std::string_view index_block;
  CLAB_RETURN_IF_ERROR(ReadBlock(bytes, index, what, &index_block));
  std::vector<std::pair<std::string, std::string>> index_entries;
  CLAB_RETURN_IF_ERROR(ParseBlock(index_block, what, &index_entries));
  for (const auto& [last_key, encoded] : index_entries) {
    std::string_view in = encoded;
    BlockHandle handle;
    if (!handle.DecodeFrom(&in)) return errors::DataLoss(what, ": corrupt index entry");
    std::string_view block;
    CLAB_RETURN_IF_ERROR(ReadBlock(bytes, handle, what, &block));
    std::vector<std::pair<std::string, std::string>> block_entries;
    CLAB_RETURN_IF_ERROR(ParseBlock(block, what, &block_entries));
    for (auto& [k, v] : block_entries) (*entries)[k] = std::move(v);
  }
  return OkStatus();
}

}  // namespace clab
