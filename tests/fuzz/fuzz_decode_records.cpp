// DecodeCSV and DecodeRaw on records from outside (lines a TextLineReader read, records of a
// fixed-length file): the first byte chooses the CSV's delimiter, quoting, NA value and
// selected columns and DecodeRaw's type and byte order; the rest, cut at newlines into at
// most four records, is decoded as CSV with an int32, a float, a required string and an int64
// column, and as a whole by DecodeRaw. Any input either decodes or fails its step with a
// status.
#include "KernelTestUtil.h"

#include <cstdlib>

using namespace clab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t choice = data[0];
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);

  std::vector<std::string> records;
  size_t start = 0;
  while (records.size() < 3) {
    const size_t newline = body.find('\n', start);
    if (newline == std::string::npos) break;
    records.push_back(body.substr(start, newline - start));
    start = newline + 1;
  }
  records.push_back(body.substr(start));

  const std::vector<DataType> types = {DT_INT32, DT_FLOAT, DT_STRING, DT_INT64};
  tensorflow::NodeDef csv = testing::MakeNode(
      "csv", "DecodeCSV", {"records", "d0", "d1", "d2", "d3"},
      {{"OUT_TYPE", AttrOf(types)},
       {"field_delim", AttrOf((choice & 1) ? ";" : ",")},
       {"use_quote_delim", AttrOf((choice & 2) != 0)},
       {"na_value", AttrOf((choice & 4) ? "NA" : "")},
       {"select_cols", AttrOf((choice & 8) ? std::vector<int64_t>{0, 2, 3, 5} : std::vector<int64_t>{})}});
  const std::vector<Tensor> csv_inputs = {Tensor::Vector<std::string>(records), Tensor::Vector<int32_t>({7}),
                                          Tensor::Vector<float>({0.5f}), Tensor::Vector<std::string>({}),
                                          Tensor::Vector<int64_t>({-1})};
  auto decoded = testing::RunKernel(csv, csv_inputs);
  if (decoded.ok() && decoded->size() != types.size()) std::abort();

  static const DataType kRawTypes[] = {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64, DT_UINT8};
  const DataType raw_type = kRawTypes[(choice >> 4) % 5];
  tensorflow::NodeDef raw = testing::MakeNode(
      "raw", "DecodeRaw", {"bytes"}, {{"out_type", AttrOf(raw_type)}, {"little_endian", AttrOf((choice & 128) != 0)}});
  auto bytes = testing::RunKernel(raw, {Tensor::Vector<std::string>(records)});
  if (bytes.ok() && bytes->size() != 1) std::abort();
  return 0;
}
