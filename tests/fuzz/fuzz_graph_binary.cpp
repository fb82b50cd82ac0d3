// A GraphDef file in binary form (.pb): the same path through the reader as a text file,
// with seeds in protobuf's wire format, so that mutations start from binary graphs.
#include "FuzzFile.h"
#include "GraphChecks.h"
#include "formats/GraphFileReader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static clab::fuzz::FuzzFile file("graph.pb");
  auto graph = clab::tools::GraphFileReader::ReadSupported(file.Write(data, size));
  if (graph.ok()) clab::fuzz::CheckGraph(*graph);
  return 0;
}
