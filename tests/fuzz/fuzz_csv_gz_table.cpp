// A gzip-compressed CSV table (".csv.gz"): the decompression in front of the CSV reader.
#include "FuzzFile.h"
#include "clab/io/CsvTable.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static clab::fuzz::FuzzFile file("table.csv.gz");
  auto table = clab::ReadCsvTable(file.Write(data, size));
  if (!table.ok()) return 0;
  for (const std::vector<double>& row : table->rows)
    if (row.size() != table->columns.size()) std::abort();
  return 0;
}
