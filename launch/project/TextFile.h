// Whole text files, as the launchers read and write them: a file is written to a temporary
// name beside it and renamed over the old one, so that a reader (or a crash) never sees a
// half-written project, batch script, manifest or launch record.
#pragma once

#include "clab/core/Status.h"

#include <string>

namespace clab::launch {

// NOT_FOUND / UNAVAILABLE naming the path and the system's reason.
StatusOr<std::string> ReadTextFile(const std::string& path);
// `mode` is the new file's permission bits (0755 for a script).
Status WriteTextFile(const std::string& path, const std::string& text, unsigned mode = 0644);

}  // namespace clab::launch
