// A GraphDef file in text form (.pbtxt), as `clab run`, `clab graph show` and the studio
// read it: parsed, checked for ops ClusterLab lacks, built into the runtime's Graph and
// imported into a GraphBuilder, with the step's likely fetches guessed.
#include "FuzzFile.h"
#include "GraphChecks.h"
#include "formats/GraphFileReader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static clab::fuzz::FuzzFile file("graph.pbtxt");
  auto graph = clab::tools::GraphFileReader::ReadSupported(file.Write(data, size));
  if (graph.ok()) clab::fuzz::CheckGraph(*graph);
  return 0;
}
