#include "formats/NpyFile.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_join.h>
#include <absl/strings/str_split.h>
#include <absl/strings/strip.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

namespace clab::tools {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

struct Descr {
  const char* code;
  DataType dtype;
};
constexpr Descr kDescrs[] = {{"<f4", DT_FLOAT}, {"<f8", DT_DOUBLE}, {"<i4", DT_INT32},
                             {"<i8", DT_INT64}, {"|b1", DT_BOOL},   {"|u1", DT_UINT8}};

// The value of 'key' in the header's Python dict literal, as text.
std::string DictValue(const std::string& header, const std::string& key) {
  const size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) return "";
  size_t start = header.find(':', at);
  if (start == std::string::npos) return "";
  ++start;
  while (start < header.size() && header[start] == ' ') ++start;
  size_t end = start;
  if (header[start] == '(') {
    end = header.find(')', start);
    return end == std::string::npos ? "" : header.substr(start, end - start + 1);
  }
  while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
  return header.substr(start, end - start);
}

}  // namespace

StatusOr<Tensor> NpyFile::Parse(const std::string& bytes, const std::string& where) {
  if (bytes.size() < 10 || bytes.compare(0, 6, kMagic) != 0)
    return errors::InvalidArgument(where, ": not a .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len, header_at;
  if (major == 1) {
    header_len =
        static_cast<unsigned char>(bytes[8]) | (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    header_at = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return errors::InvalidArgument(where, ": truncated .npy header");
    header_len = 0;
    for (int i = 3; i >= 0; --i) header_len = (header_len << 8) | static_cast<unsigned char>(bytes[8 + i]);
    header_at = 12;
  } else {
    return errors::InvalidArgument(where, ": .npy format version ", major, " is not supported");
  }
  if (bytes.size() < header_at + header_len) return errors::InvalidArgument(where, ": truncated .npy header");
  const std::string header = bytes.substr(header_at, header_len);
  std::string descr(absl::StripSuffix(absl::StripPrefix(DictValue(header, "descr"), "'"), "'"));
  if (descr == "<b1" || descr == "=b1") descr = "|b1";
  DataType dtype = DT_INVALID;
  for (const Descr& d : kDescrs)
    if (descr == d.code) dtype = d.dtype;
  if (dtype == DT_INVALID)
    return errors::InvalidArgument(where, ": element type '", descr,
                                   "' is not supported (float32, float64, int32, int64, bool, uint8, little-endian)");
  if (DictValue(header, "fortran_order") != "False")
    return errors::InvalidArgument(where, ": Fortran-ordered arrays are not supported; save with C order");
  std::string shape_text = DictValue(header, "shape");
  if (shape_text.size() < 2) return errors::InvalidArgument(where, ": no shape in the .npy header");
  std::vector<int64_t> dims;
  for (absl::string_view part :
       absl::StrSplit(shape_text.substr(1, shape_text.size() - 2), ',', absl::SkipWhitespace())) {
    int64_t dim;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(part), &dim) || dim < 0)
      return errors::InvalidArgument(where, ": bad shape ", shape_text, " in the .npy header");
    dims.push_back(dim);
  }
  Tensor tensor(dtype, TensorShape(dims));
  const size_t data_at = header_at + header_len;
  if (bytes.size() - data_at != tensor.TotalBytes())
    return errors::InvalidArgument(where, ": holds ", bytes.size() - data_at, " bytes of data, shape ", shape_text,
                                   " of ", descr, " needs ", tensor.TotalBytes());
  if (tensor.TotalBytes() > 0) std::memcpy(tensor.raw_data(), bytes.data() + data_at, tensor.TotalBytes());
  return tensor;
}

StatusOr<Tensor> NpyFile::Read(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return errors::NotFound("cannot read '", path, "'");
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return Parse(bytes.str(), path);
}

Status NpyFile::Write(const std::string& path, const Tensor& tensor) {
  const char* code = nullptr;
  for (const Descr& d : kDescrs)
    if (d.dtype == tensor.dtype()) code = d.code;
  if (code == nullptr)
    return errors::InvalidArgument("cannot write a ", DataTypeName(tensor.dtype()), " tensor as .npy");
  // numpy's own spelling: "()", "(3,)", "(2, 3)".
  std::vector<std::string> dims;
  for (int64_t dim : tensor.shape().dims()) dims.push_back(std::to_string(dim));
  std::string shape = "(" + absl::StrJoin(dims, ", ") + (dims.size() == 1 ? ",)" : ")");
  std::string header = std::string("{'descr': '") + code + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Data starts on a 64-byte boundary; the header ends with a newline.
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string bytes(kMagic, 6);
  bytes += '\x01';
  bytes += '\x00';
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  bytes += header;
  bytes.append(static_cast<const char*>(tensor.raw_data()), tensor.TotalBytes());
  const std::string temp = path + ".tmp";
  {
    std::ofstream file(temp, std::ios::binary | std::ios::trunc);
    if (!file || !file.write(bytes.data(), static_cast<std::streamsize>(bytes.size())))
      return errors::Internal("cannot write '", temp, "'");
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0)
    return errors::Internal("cannot rename '", temp, "' to '", path, "'");
  return OkStatus();
}

}  // namespace clab::tools
