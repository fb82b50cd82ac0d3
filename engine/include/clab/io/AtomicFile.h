// Writing a whole file so that a reader sees either the old file or the complete new one:
// the bytes go to a temporary file beside it, which is flushed and then renamed over it.
#pragma once

#include "clab/core/Status.h"

#include <string>
#include <string_view>

namespace clab {

// INTERNAL names the path that could not be written or renamed.
Status WriteFileAtomically(const std::string& path, std::string_view bytes);

}  // namespace clab
