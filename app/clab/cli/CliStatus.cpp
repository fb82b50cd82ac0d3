#include "cli/CliStatus.h"

#include <absl/strings/cord.h>

namespace clab::cli {
namespace {
constexpr absl::string_view kUsagePayloadUrl = "type.clusterlab/clab.cli.UsageError";
}  // namespace

Status UsageError(absl::string_view message) {
  Status status = errors::InvalidArgument(message);
  status.SetPayload(kUsagePayloadUrl, absl::Cord("usage"));
  return status;
}

bool IsUsageError(const Status& status) { return !status.ok() && status.GetPayload(kUsagePayloadUrl).has_value(); }

int ExitCodeFor(const Status& status) {
  if (status.ok()) return kExitOk;
  return IsUsageError(status) ? kExitUsageError : kExitRunError;
}

Status WithPrefix(const Status& status, absl::string_view prefix) {
  if (status.ok()) return status;
  Status prefixed(status.code(), absl::StrCat(prefix, status.message()));
  status.ForEachPayload([&](absl::string_view url, const absl::Cord& payload) { prefixed.SetPayload(url, payload); });
  return prefixed;
}

}  // namespace clab::cli
