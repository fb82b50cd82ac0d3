#include "ops/InputReader.h"

#include "clab/io/Crc32c.h"
#include "clab/runtime/Device.h"

#include <unistd.h>
#include <cerrno>
#include <cstring>

namespace clab {
namespace {

uint64_t LittleEndian64(const char* p) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(p[i]);
  return value;
}

uint32_t LittleEndian32(const char* p) {
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(p[i]);
  return value;
}

}  // namespace

const char* InputReader::KindName() const {
  switch (options_.format) {
    case Format::kTextLine: return "TextLineReader";
    case Format::kTFRecord: return "TFRecordReader";
    case Format::kFixedLength: return "FixedLengthRecordReader";
    case Format::kWholeFile: return "WholeFileReader";
  }
  return "Reader";
}

std::string InputReader::DebugString() const { return StrCat(KindName(), " '", options_.name, "'"); }

int64_t InputReader::records_produced() const {
  std::lock_guard<std::mutex> lock(mu_);
  return records_produced_;
}

int64_t InputReader::work_units_completed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return work_units_completed_;
}

Status InputReader::StartWorkLocked(const Device& device, std::string file) {
  CLAB_ASSIGN_OR_RETURN(UniqueFd fd,
                        device.OpenForReading(file, StrCat("the file ", KindName(), " '", options_.name, "' reads")));
  std::string content;
  char buffer[1 << 16];
  while (true) {
    const ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return errors::DataLoss("cannot read '", file, "': ", std::strerror(errno));
    if (got == 0) break;
    content.append(buffer, static_cast<size_t>(got));
  }
  file_ = std::move(file);
  content_ = std::move(content);
  position_ = 0;
  index_ = 0;
  working_ = true;
  if (options_.format == Format::kTextLine) {
    for (int64_t skipped = 0; skipped < options_.skip_header_lines && position_ < content_.size(); ++skipped) {
      const size_t end = content_.find('\n', position_);
      position_ = end == std::string::npos ? content_.size() : end + 1;
      ++index_;
    }
  } else if (options_.format == Format::kFixedLength) {
    position_ = static_cast<size_t>(options_.header_bytes);
  }
  return OkStatus();
}

StatusOr<bool> InputReader::ReadLocked(const Device& device, std::string* key, std::string* value) {
  while (true) {
    if (working_) {
      CLAB_ASSIGN_OR_RETURN(const bool got, NextRecordLocked(key, value));
      if (got) {
        ++records_produced_;
        return true;
      }
      working_ = false;
      content_.clear();
      ++work_units_completed_;
    }
    if (pending_.empty()) return false;
    std::string next = std::move(pending_.front());
    pending_.pop_front();
    CLAB_RETURN_IF_ERROR(StartWorkLocked(device, std::move(next)));
  }
}

StatusOr<bool> InputReader::NextRecordLocked(std::string* key, std::string* value) {
  switch (options_.format) {
    case Format::kTextLine: {
      if (position_ >= content_.size()) return false;
      size_t end = content_.find('\n', position_);
      const size_t next = end == std::string::npos ? content_.size() : end + 1;
      if (end == std::string::npos) end = content_.size();
      if (end > position_ && content_[end - 1] == '\r') --end;
      *value = content_.substr(position_, end - position_);
      position_ = next;
      ++index_;
      *key = StrCat(file_, ":", index_);
      return true;
    }
    case Format::kTFRecord: return NextTFRecordLocked(key, value);
    case Format::kFixedLength: {
      const size_t record = static_cast<size_t>(options_.record_bytes);
      const size_t footer = static_cast<size_t>(options_.footer_bytes);
      if (content_.size() < footer || position_ + record > content_.size() - footer) return false;
      *value = content_.substr(position_, record);
      *key = StrCat(file_, ":", index_);
      ++index_;
      position_ += options_.hop_bytes > 0 ? static_cast<size_t>(options_.hop_bytes) : record;
      return true;
    }
    case Format::kWholeFile: {
      if (index_ > 0) return false;
      *value = std::move(content_);
      *key = file_;
      ++index_;
      return true;
    }
  }
  return false;
}

StatusOr<bool> InputReader::NextTFRecordLocked(std::string* key, std::string* value) {
  if (position_ >= content_.size()) return false;
  const size_t at = position_;
  if (content_.size() - at < 12)
    return errors::DataLoss("truncated record at byte ", at, " of TFRecord file '", file_, "'");
  const char* header = content_.data() + at;
  if (crc32c::Unmask(LittleEndian32(header + 8)) != crc32c::Value(header, 8))
    return errors::DataLoss("corrupted record at byte ", at, " of TFRecord file '", file_,
                            "': the length's checksum does not match");
  const uint64_t length = LittleEndian64(header);
  if (length > content_.size() - at - 12 || content_.size() - at - 12 - length < 4)
    return errors::DataLoss("truncated record at byte ", at, " of TFRecord file '", file_, "' (", length,
                            " bytes announced)");
  const char* data = header + 12;
  if (crc32c::Unmask(LittleEndian32(data + length)) != crc32c::Value(data, length))
    return errors::DataLoss("corrupted record at byte ", at, " of TFRecord file '", file_,
                            "': the data's checksum does not match");
  *value = std::string(data, length);
  *key = StrCat(file_, ":", at);
  position_ = at + 12 + length + 4;
  ++index_;
  return true;
}

}  // namespace clab
