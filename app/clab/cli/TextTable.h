// A plain-text table with a header row and columns padded to their widest cell, the way
// `kubectl get` and `docker ps` print: easy to read and easy to grep.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace clab::cli {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);

  // Rows shorter than the header are padded with empty cells.
  void AddRow(std::vector<std::string> cells);
  size_t num_rows() const { return rows_.size(); }

  // The last column is not padded, so lines carry no trailing blanks.
  void Print(std::ostream& out) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace clab::cli
