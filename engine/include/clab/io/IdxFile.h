// IDX files, the format of the MNIST data sets: an n-dimensional array of one numeric type.
//
//   bytes 0-1   zero
//   byte  2     type code: 0x08 u8, 0x09 i8, 0x0B i16, 0x0C i32, 0x0D f32, 0x0E f64
//   byte  3     rank (number of dimensions), at least 1
//   then        one big-endian u32 per dimension
//   then        the values, row-major, big-endian
//
// A file may be gzip-compressed (MNIST ships as ".gz"): zlib recognises compressed input by
// its contents and reads plain files as they are. Writing compresses when the path ends in
// ".gz". Errors name the file and say what is wrong with it.
#pragma once

#include "clab/core/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace clab {

enum class IdxType : uint8_t {
  kUint8 = 0x08,
  kInt8 = 0x09,
  kInt16 = 0x0B,
  kInt32 = 0x0C,
  kFloat32 = 0x0D,
  kFloat64 = 0x0E,
};

// Bytes per value (0 for a code that is not an IdxType) and a short name ("u8", "f32").
int IdxTypeSize(IdxType type);
const char* IdxTypeName(IdxType type);

// An IDX array in memory; values are kept in the file's type, in host byte order.
class IdxArray {
 public:
  IdxArray() = default;
  // Zero-filled. Dimensions must be >= 0.
  IdxArray(IdxType type, std::vector<int64_t> dims);

  IdxType type() const { return type_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t NumElements() const;
  // The product of every dimension but the first: the size of one example.
  int64_t ElementsPerRow() const;

  // Value i (row-major) converted to double; Set converts back to the array's type (integer
  // types truncate toward zero, as a C++ cast does).
  double Value(int64_t i) const;
  void Set(int64_t i, double value);

  // Raw storage, IdxTypeSize(type()) bytes per value, host byte order.
  const std::vector<unsigned char>& bytes() const { return bytes_; }
  std::vector<unsigned char>& bytes() { return bytes_; }

 private:
  IdxType type_ = IdxType::kUint8;
  std::vector<int64_t> dims_;
  std::vector<unsigned char> bytes_;
};

// The header alone: what a shape function can learn without reading the values.
struct IdxHeader {
  IdxType type = IdxType::kUint8;
  std::vector<int64_t> dims;
};

StatusOr<IdxHeader> ReadIdxHeader(const std::string& path);
// `fd` >= 0: read that open file (from its start; it stays the caller's), `path` only names
// it in messages.
StatusOr<IdxArray> ReadIdxFile(const std::string& path, int fd = -1);
Status WriteIdxFile(const std::string& path, const IdxArray& array);

// True for paths ending in ".idx" or ".idx.gz" (the dataset op picks its reader by this),
// and for the MNIST names ("train-images.idx3-ubyte", "...-ubyte.gz").
bool IsIdxPath(const std::string& path);

}  // namespace clab
