#include "clab/io/CsvTable.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_split.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>

#include <unistd.h>

namespace clab {
namespace {

// The whole file, decompressed when it is gzip (zlib reads plain files as they are).
StatusOr<std::string> ReadAll(const std::string& path, int fd) {
  gzFile file = nullptr;
  if (fd >= 0) {
    // zlib closes what it is given: a duplicate, read from the start.
    const int own = ::dup(fd);
    if (own >= 0 && ::lseek(own, 0, SEEK_SET) == 0) file = ::gzdopen(own, "rb");
    if (file == nullptr && own >= 0) ::close(own);
  } else {
    file = ::gzopen(path.c_str(), "rb");
  }
  if (file == nullptr) return errors::NotFound("cannot read '", path, "': ", std::strerror(errno));
  std::string text;
  char buffer[1 << 16];
  int n = 0;
  while ((n = ::gzread(file, buffer, sizeof(buffer))) > 0) text.append(buffer, static_cast<size_t>(n));
  int error = Z_OK;
  const std::string message = ::gzerror(file, &error);  // zlib's text is gone once the file is closed
  ::gzclose(file);
  if (n < 0 || (error != Z_OK && error != Z_STREAM_END)) return errors::DataLoss("'", path, "' is damaged: ", message);
  return text;
}

}  // namespace

StatusOr<CsvTable> ReadCsvTable(const std::string& path, int fd) {
  CLAB_ASSIGN_OR_RETURN(const std::string text, ReadAll(path, fd));
  CsvTable table;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    std::vector<absl::string_view> cells = absl::StrSplit(line, ',');
    if (table.columns.empty()) {
      for (absl::string_view cell : cells) table.columns.emplace_back(cell);
      continue;
    }
    if (cells.size() != table.columns.size())
      return errors::InvalidArgument(path, ":", line_number, ": ", cells.size(), " values, expected ",
                                     table.columns.size(), " (one per column)");
    std::vector<double> row(cells.size());
    for (size_t i = 0; i < cells.size(); ++i) {
      if (!absl::SimpleAtod(cells[i], &row[i]))
        return errors::InvalidArgument(path, ":", line_number, ": column '", table.columns[i], "': '",
                                       std::string(cells[i]), "' is not a number");
    }
    table.rows.push_back(std::move(row));
  }
  if (table.columns.empty()) return errors::InvalidArgument("'", path, "' is empty: expected a header line");
  return table;
}

}  // namespace clab
