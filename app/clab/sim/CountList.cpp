#include "sim/CountList.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_split.h>

namespace clab::cli {

StatusOr<std::vector<int>> ParseCountList(const std::string& flag, const std::string& text, int minimum, int maximum) {
  std::vector<int> counts;
  bool continuing = false;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    if (item == "..." || item == "\xe2\x80\xa6") {
      if (counts.size() < 2 || continuing)
        return errors::InvalidArgument("--", flag, " '", text, "': '...' needs two counts before it");
      continuing = true;
      continue;
    }
    int n = 0;
    if (!absl::SimpleAtoi(item, &n) || n < minimum || n > maximum)
      return errors::InvalidArgument("--", flag, " '", text, "': '", item, "' is not a count from ", minimum, " to ",
                                     maximum);
    if (continuing) {
      const int a = counts[counts.size() - 2], b = counts.back();
      const bool doubling =
          a > 0 && b % a == 0 && b / a > 1 && (counts.size() < 3 || b - a != a - counts[counts.size() - 3]);
      for (long next = doubling ? static_cast<long>(b) * (b / a) : 2L * b - a; next < n && next > b;
           next = doubling ? next * (b / a) : next + (b - a))
        counts.push_back(static_cast<int>(next));
      continuing = false;
    }
    counts.push_back(n);
  }
  if (continuing) return errors::InvalidArgument("--", flag, " '", text, "': '...' needs a last count after it");
  if (counts.empty()) return errors::InvalidArgument("--", flag, ": no counts given");
  return counts;
}

}  // namespace clab::cli
