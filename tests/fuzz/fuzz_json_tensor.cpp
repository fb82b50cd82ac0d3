// A tensor typed as JSON (`clab run --feed x=[[1, 2]]`, the studio's feed editor), with the
// type inferred and with each of a few declared types.
#include "formats/JsonTensorParser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The first byte picks the declared type; the rest is the JSON text.
  static constexpr clab::DataType kTypes[] = {clab::DT_INVALID, clab::DT_FLOAT, clab::DT_DOUBLE, clab::DT_INT32,
                                              clab::DT_INT64,   clab::DT_BOOL,  clab::DT_STRING, clab::DT_UINT8};
  const clab::DataType dtype = kTypes[data[0] % (sizeof kTypes / sizeof kTypes[0])];
  auto tensor =
      clab::tools::JsonTensorParser::Parse(absl::string_view(reinterpret_cast<const char*>(data + 1), size - 1), dtype);
  if (tensor.ok()) (void)tensor->DebugString();
  return 0;
}
