// A file named by an open directory and its name in that directory: what the checkpoint and
// dataset code opens, creates, renames and removes with the *at() calls, so that nothing
// that happens to the path above the directory after it was opened changes which file that is.
#pragma once

#include "clab/core/UniqueFd.h"

#include <memory>
#include <string>

namespace clab {

struct FileInDirectory {
  std::shared_ptr<const UniqueFd> dir;  // the directory, opened
  std::string name;                     // one component: no '/'
  std::string path;                     // the whole path, for messages
};

}  // namespace clab
