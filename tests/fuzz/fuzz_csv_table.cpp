// A numeric CSV table (header of column names, then rows of numbers), as the example
// models read their data sets.
#include "FuzzFile.h"
#include "clab/io/CsvTable.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static clab::fuzz::FuzzFile file("table.csv");
  auto table = clab::ReadCsvTable(file.Write(data, size));
  if (!table.ok()) return 0;
  for (const std::vector<double>& row : table->rows)
    if (row.size() != table->columns.size()) std::abort();
  return 0;
}
