#include "launch/slurm/SlurmTasksPerNode.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_split.h>

#include <regex>

namespace clab::launch {

StatusOr<std::vector<int>> ExpandTasksPerNode(const std::string& tasks_per_node) {
  static const std::regex part_form(R"(([0-9]+)(\(x([0-9]+)\))?)");
  std::vector<int> counts;
  for (const absl::string_view part : absl::StrSplit(tasks_per_node, ',')) {
    std::cmatch match;
    int tasks = 0, repeats = 1;
    const bool ok = std::regex_match(part.begin(), part.end(), match, part_form) &&
                    absl::SimpleAtoi(match.str(1), &tasks) &&
                    (!match[3].matched || absl::SimpleAtoi(match.str(3), &repeats));
    if (!ok || repeats < 1 || repeats > 100000)
      return errors::InvalidArgument("the tasks per node '", tasks_per_node, "' are not valid: '", part,
                                     "' is not N or N(xR)");
    counts.insert(counts.end(), static_cast<size_t>(repeats), tasks);
  }
  return counts;
}

}  // namespace clab::launch
