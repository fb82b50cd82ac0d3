#include "clab/core/JsonNesting.h"

namespace clab {

Status CheckJsonNesting(std::string_view text, std::string_view what, int max_depth) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  size_t line = 1, column = 0;
  for (char c : text) {
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
    }
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth)
        return errors::InvalidArgument(what, ": JSON nested more than ", max_depth, " levels deep (line ", line,
                                       ", column ", column, ")");
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return OkStatus();
}

}  // namespace clab
