#include "clab/io/IdxFile.h"

#include <absl/strings/match.h>
#include <absl/strings/str_join.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <unistd.h>

namespace clab {
namespace {

constexpr size_t kPreambleBytes = 4;  // two zeros, the type code, the rank
// Larger arrays are taken as a damaged header rather than allocated.
constexpr int64_t kMaxDataBytes = int64_t{1} << 40;

struct GzCloser {
  void operator()(gzFile_s* file) const { ::gzclose(file); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

StatusOr<GzFile> Open(const std::string& path, const char* mode, int fd = -1) {
  errno = 0;
  GzFile file;
  if (fd >= 0) {
    // zlib closes what it is given: a duplicate, read from the start.
    const int own = ::dup(fd);
    if (own >= 0 && ::lseek(own, 0, SEEK_SET) == 0) file.reset(::gzdopen(own, mode));
    if (!file && own >= 0) ::close(own);
  } else {
    file.reset(::gzopen(path.c_str(), mode));
  }
  if (!file) {
    const char* why = errno != 0 ? std::strerror(errno) : "out of memory";
    if (mode[0] == 'r') return errors::NotFound("cannot read IDX file '", path, "': ", why);
    return errors::PermissionDenied("cannot write IDX file '", path, "': ", why);
  }
  return file;
}

// Up to `limit` bytes (all of the file when negative), decompressed.
StatusOr<std::string> ReadBytes(const std::string& path, int64_t limit, int fd = -1) {
  CLAB_ASSIGN_OR_RETURN(GzFile file, Open(path, "rb", fd));
  std::string data;
  char buffer[1 << 16];
  int n = 0;
  while (limit < 0 || static_cast<int64_t>(data.size()) < limit) {
    unsigned want = sizeof(buffer);
    if (limit >= 0) want = static_cast<unsigned>(std::min<int64_t>(want, limit - static_cast<int64_t>(data.size())));
    n = ::gzread(file.get(), buffer, want);
    if (n <= 0) break;
    data.append(buffer, static_cast<size_t>(n));
  }
  int error = Z_OK;
  const char* message = ::gzerror(file.get(), &error);
  if (n < 0 || (error != Z_OK && error != Z_STREAM_END))
    return errors::DataLoss("IDX file '", path, "' is damaged: ", message);
  return data;
}

uint32_t BigEndian32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

bool KnownType(uint8_t code) { return IdxTypeSize(static_cast<IdxType>(code)) > 0; }

std::string DimsText(const std::vector<int64_t>& dims) { return absl::StrJoin(dims, "*"); }

// Parses the header at the start of `bytes`; `*header_bytes` is its length.
Status ParseHeader(const std::string& path, const std::string& bytes, IdxHeader* header, size_t* header_bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() < kPreambleBytes)
    return errors::DataLoss("'", path, "' is not an IDX file: it has only ", bytes.size(),
                            " bytes (an IDX header starts with 4)");
  if (p[0] != 0 || p[1] != 0) {
    char magic[16];
    std::snprintf(magic, sizeof(magic), "0x%02X%02X%02X%02X", p[0], p[1], p[2], p[3]);
    return errors::InvalidArgument("'", path, "' is not an IDX file: it starts with ", magic,
                                   " (expected two zero bytes, a type code and a rank, e.g. 0x00000803)");
  }
  if (!KnownType(p[2])) {
    char code[8];
    std::snprintf(code, sizeof(code), "0x%02X", p[2]);
    return errors::InvalidArgument("'", path, "' has unknown IDX type code ", code,
                                   " (known: 0x08 u8, 0x09 i8, 0x0B i16, 0x0C i32, 0x0D f32, 0x0E f64)");
  }
  const int rank = p[3];
  if (rank == 0) return errors::InvalidArgument("'", path, "' declares rank 0: an IDX array needs a dimension");
  *header_bytes = kPreambleBytes + 4 * static_cast<size_t>(rank);
  if (bytes.size() < *header_bytes)
    return errors::DataLoss("'", path, "' is truncated: its header declares rank ", rank, ", which needs ",
                            *header_bytes, " header bytes, file has ", bytes.size());
  header->type = static_cast<IdxType>(p[2]);
  header->dims.clear();
  int64_t data_bytes = IdxTypeSize(header->type);
  for (int i = 0; i < rank; ++i) {
    const int64_t dim = BigEndian32(p + kPreambleBytes + 4 * static_cast<size_t>(i));
    header->dims.push_back(dim);
    if (dim != 0 && data_bytes > kMaxDataBytes / dim)
      return errors::InvalidArgument("'", path, "' declares dimensions ", DimsText(header->dims),
                                     "..., too large to be an IDX file's data (a damaged header?)");
    data_bytes *= dim;
  }
  return OkStatus();
}

}  // namespace

int IdxTypeSize(IdxType type) {
  switch (type) {
    case IdxType::kUint8:
    case IdxType::kInt8: return 1;
    case IdxType::kInt16: return 2;
    case IdxType::kInt32:
    case IdxType::kFloat32: return 4;
    case IdxType::kFloat64: return 8;
  }
  return 0;
}

const char* IdxTypeName(IdxType type) {
  switch (type) {
    case IdxType::kUint8: return "u8";
    case IdxType::kInt8: return "i8";
    case IdxType::kInt16: return "i16";
    case IdxType::kInt32: return "i32";
    case IdxType::kFloat32: return "f32";
    case IdxType::kFloat64: return "f64";
  }
  return "?";
}

IdxArray::IdxArray(IdxType type, std::vector<int64_t> dims) : type_(type), dims_(std::move(dims)) {
  bytes_.resize(static_cast<size_t>(NumElements() * IdxTypeSize(type_)));
}

int64_t IdxArray::NumElements() const {
  int64_t n = dims_.empty() ? 0 : 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

int64_t IdxArray::ElementsPerRow() const {
  int64_t n = 1;
  for (size_t i = 1; i < dims_.size(); ++i) n *= dims_[i];
  return n;
}

double IdxArray::Value(int64_t i) const {
  const unsigned char* p = bytes_.data() + i * IdxTypeSize(type_);
  auto load = [p]<typename T>(T) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return static_cast<double>(v);
  };
  switch (type_) {
    case IdxType::kUint8: return load(uint8_t{});
    case IdxType::kInt8: return load(int8_t{});
    case IdxType::kInt16: return load(int16_t{});
    case IdxType::kInt32: return load(int32_t{});
    case IdxType::kFloat32: return load(float{});
    case IdxType::kFloat64: return load(double{});
  }
  return 0;
}

void IdxArray::Set(int64_t i, double value) {
  unsigned char* p = bytes_.data() + i * IdxTypeSize(type_);
  auto store = [p, value]<typename T>(T) {
    const T v = static_cast<T>(value);
    std::memcpy(p, &v, sizeof(T));
  };
  switch (type_) {
    case IdxType::kUint8: return store(uint8_t{});
    case IdxType::kInt8: return store(int8_t{});
    case IdxType::kInt16: return store(int16_t{});
    case IdxType::kInt32: return store(int32_t{});
    case IdxType::kFloat32: return store(float{});
    case IdxType::kFloat64: return store(double{});
  }
}

StatusOr<IdxHeader> ReadIdxHeader(const std::string& path) {
  // The preamble first (it gives the rank), then the dimensions.
  CLAB_ASSIGN_OR_RETURN(std::string bytes, ReadBytes(path, 4 + 4 * 255));
  IdxHeader header;
  size_t header_bytes = 0;
  CLAB_RETURN_IF_ERROR(ParseHeader(path, bytes, &header, &header_bytes));
  return header;
}

StatusOr<IdxArray> ReadIdxFile(const std::string& path, int fd) {
  CLAB_ASSIGN_OR_RETURN(const std::string bytes, ReadBytes(path, -1, fd));
  IdxHeader header;
  size_t header_bytes = 0;
  CLAB_RETURN_IF_ERROR(ParseHeader(path, bytes, &header, &header_bytes));
  const size_t width = static_cast<size_t>(IdxTypeSize(header.type));
  const size_t available = bytes.size() - header_bytes;
  // The size the header declares, checked against the file before the array is allocated:
  // the dimensions' product may exceed memory, or overflow.
  size_t data_bytes = width;
  for (int64_t d : header.dims) {
    if (__builtin_mul_overflow(data_bytes, static_cast<size_t>(d), &data_bytes))
      return errors::DataLoss("'", path, "' is truncated: it expects ", DimsText(header.dims), " ",
                              IdxTypeName(header.type), " values, more than the ", available,
                              " bytes of data the file has");
  }
  if (available < data_bytes)
    return errors::DataLoss("'", path, "' is truncated: it expects ", DimsText(header.dims), " ",
                            IdxTypeName(header.type), " values (", data_bytes, " bytes of data), file has ", available);
  if (available > data_bytes)
    return errors::DataLoss("'", path, "' has ", available - data_bytes, " bytes after the ", data_bytes,
                            " bytes of data its header declares (", DimsText(header.dims), " ",
                            IdxTypeName(header.type), " values)");
  IdxArray array(header.type, header.dims);
  const unsigned char* from = reinterpret_cast<const unsigned char*>(bytes.data()) + header_bytes;
  unsigned char* to = array.bytes().data();
  if (data_bytes == 0) {
    // Nothing to copy (and no buffer to copy into).
  } else if (width == 1 || std::endian::native == std::endian::big) {
    std::memcpy(to, from, data_bytes);
  } else {
    for (size_t at = 0; at < data_bytes; at += width)
      for (size_t b = 0; b < width; ++b) to[at + b] = from[at + width - 1 - b];
  }
  return array;
}

Status WriteIdxFile(const std::string& path, const IdxArray& array) {
  if (array.dims().empty() || array.dims().size() > 255)
    return errors::InvalidArgument("cannot write IDX file '", path, "': rank ", array.dims().size(),
                                   " (IDX arrays have 1 to 255 dimensions)");
  std::string bytes = {0, 0, static_cast<char>(array.type()), static_cast<char>(array.dims().size())};
  for (int64_t dim : array.dims()) {
    if (dim < 0 || dim > int64_t{0xFFFFFFFF})
      return errors::InvalidArgument("cannot write IDX file '", path, "': dimension ", dim, " does not fit in 32 bits");
    for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back(static_cast<char>((dim >> shift) & 0xFF));
  }
  const size_t width = static_cast<size_t>(IdxTypeSize(array.type()));
  const size_t header_bytes = bytes.size();
  bytes.resize(header_bytes + array.bytes().size());
  for (size_t at = 0; at < array.bytes().size(); at += width)
    for (size_t b = 0; b < width; ++b)
      bytes[header_bytes + at + b] =
          static_cast<char>(array.bytes()[at + (std::endian::native == std::endian::big ? b : width - 1 - b)]);
  // "wb" with a ".gz" name compresses; "wbT" writes the bytes as they are.
  CLAB_ASSIGN_OR_RETURN(GzFile file, Open(path, absl::EndsWith(path, ".gz") ? "wb" : "wbT"));
  size_t written = 0;
  while (written < bytes.size()) {
    const unsigned chunk = static_cast<unsigned>(std::min<size_t>(bytes.size() - written, 1 << 20));
    const int n = ::gzwrite(file.get(), bytes.data() + written, chunk);
    if (n <= 0) {
      int error = Z_OK;
      return errors::DataLoss("cannot write IDX file '", path, "': ", ::gzerror(file.get(), &error));
    }
    written += static_cast<size_t>(n);
  }
  if (::gzclose(file.release()) != Z_OK) return errors::DataLoss("cannot write IDX file '", path, "': close failed");
  return OkStatus();
}

bool IsIdxPath(const std::string& path) {
  for (const char* ending : {".idx", ".idx.gz", "-ubyte", "-ubyte.gz"})
    if (absl::EndsWith(path, ending)) return true;
  return false;
}

}  // namespace clab
