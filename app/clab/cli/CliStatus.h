// How command outcomes become exit codes and messages.
//
// Usage errors (the command line itself is wrong) exit with 2; every other failure exits
// with 1. Both travel as Status values; a usage error is an INVALID_ARGUMENT carrying a
// marker payload, so that errors can pass through helpers without losing their kind.
#pragma once

#include "clab/core/Status.h"

#include <absl/strings/string_view.h>

namespace clab::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitRunError = 1;
inline constexpr int kExitUsageError = 2;

Status UsageError(absl::string_view message);
bool IsUsageError(const Status& status);

// The exit code a finished command reports for `status`.
int ExitCodeFor(const Status& status);

// `status` with `prefix` put before its message; code and payloads are kept.
Status WithPrefix(const Status& status, absl::string_view prefix);

}  // namespace clab::cli
