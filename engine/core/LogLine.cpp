#include "core/LogLine.h"

#include <cstdio>

namespace clab {

void WriteLogLine(const LogCallback& log, const std::string& line) {
  if (log) return log(line);
  std::fputs((line + "\n").c_str(), stdout);
  std::fflush(stdout);
}

}  // namespace clab
