// A numeric table from a CSV file (optionally gzip-compressed, by the ".gz" ending): a
// header line of column names, then one row of numbers per line. What the example models
// train on (resources/data). Errors name the file and line.
#pragma once

#include "clab/core/Status.h"

#include <string>
#include <vector>

namespace clab {

struct CsvTable {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> rows;  // every row has columns.size() values
};

// `fd` >= 0: read that open file (from its start; it stays the caller's), `path` only names
// it in messages.
StatusOr<CsvTable> ReadCsvTable(const std::string& path, int fd = -1);

}  // namespace clab
