// Counts given as a list on the command line: "1,2,4,8", and with "..." to continue a
// sequence up to its last value: geometric when the counts before it multiply by a whole
// factor ("1,2,4,...,1000": 1, 2, 4, 8, ..., 512, 1000), arithmetic when three of them add
// the same ("10,20,30,...,60").
#pragma once

#include "clab/core/Status.h"

#include <string>
#include <vector>

namespace clab::cli {

// INVALID_ARGUMENT naming the flag and the bad item.
StatusOr<std::vector<int>> ParseCountList(const std::string& flag, const std::string& text, int minimum, int maximum);

}  // namespace clab::cli
