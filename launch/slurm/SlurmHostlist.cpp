#include "launch/slurm/SlurmHostlist.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_split.h>

namespace clab::launch {
namespace {

constexpr int64_t kMaxHosts = 100000;

bool AllDigits(const std::string& text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
}

// The parts of the list: split at commas outside brackets.
StatusOr<std::vector<std::string>> SplitParts(const std::string& hostlist) {
  std::vector<std::string> parts;
  std::string current;
  bool in_brackets = false;
  for (char c : hostlist) {
    if (c == '[') {
      if (in_brackets) return errors::InvalidArgument("a '[' inside a range");
      in_brackets = true;
    } else if (c == ']') {
      if (!in_brackets) return errors::InvalidArgument("a ']' without its '['");
      in_brackets = false;
    } else if (c == ',' && !in_brackets) {
      if (current.empty()) return errors::InvalidArgument("an empty host name");
      parts.push_back(std::move(current));
      current.clear();
      continue;
    }
    current += c;
  }
  if (in_brackets) return errors::InvalidArgument("a '[' that is not closed");
  if (current.empty()) return errors::InvalidArgument("an empty host name");
  parts.push_back(std::move(current));
  return parts;
}

// "1-3,5" after "n" and before "" -> n1 n2 n3 n5, each number as wide as the range's
// first number was written ("01-10" -> 01 ... 10).
Status ExpandRanges(const std::string& prefix, const std::string& ranges, const std::string& suffix,
                    std::vector<std::string>* hosts) {
  for (const absl::string_view range : absl::StrSplit(ranges, ',')) {
    std::vector<std::string> bounds = absl::StrSplit(range, '-');
    if (bounds.size() == 1) bounds.push_back(bounds[0]);
    int64_t low = 0, high = 0;
    if (bounds.size() != 2 || !AllDigits(bounds[0]) || !AllDigits(bounds[1]) || !absl::SimpleAtoi(bounds[0], &low) ||
        !absl::SimpleAtoi(bounds[1], &high))
      return errors::InvalidArgument("'", range, "' is not a number or a range of numbers (like 3 or 1-4)");
    if (high < low) return errors::InvalidArgument("the range '", range, "' runs backwards");
    if (high - low >= kMaxHosts) return errors::InvalidArgument("the range '", range, "' is too long");
    const size_t width = bounds[0].size();
    for (int64_t i = low; i <= high; ++i) {
      std::string number = std::to_string(i);
      if (number.size() < width) number.insert(0, width - number.size(), '0');
      hosts->push_back(absl::StrCat(prefix, number, suffix));
    }
  }
  return OkStatus();
}

StatusOr<std::vector<std::string>> Expand(const std::string& hostlist) {
  CLAB_ASSIGN_OR_RETURN(const std::vector<std::string> parts, SplitParts(hostlist));
  std::vector<std::string> hosts;
  for (const std::string& part : parts) {
    const size_t open = part.find('[');
    if (open == std::string::npos) {
      hosts.push_back(part);
      continue;
    }
    const size_t close = part.find(']', open);
    if (part.find('[', close) != std::string::npos)
      return errors::InvalidArgument("'", part, "' has more than one range");
    CLAB_RETURN_IF_ERROR(
        ExpandRanges(part.substr(0, open), part.substr(open + 1, close - open - 1), part.substr(close + 1), &hosts));
    if (static_cast<int64_t>(hosts.size()) > kMaxHosts)
      return errors::InvalidArgument("more than ", kMaxHosts, " hosts");
  }
  return hosts;
}

}  // namespace

StatusOr<std::vector<std::string>> ExpandHostlist(const std::string& hostlist) {
  auto hosts = Expand(hostlist);
  if (!hosts.ok())
    return errors::InvalidArgument("the host list '", hostlist, "' is not valid: ", hosts.status().message());
  return hosts;
}

}  // namespace clab::launch
