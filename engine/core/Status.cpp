#include "clab/core/Status.h"

namespace clab {

std::string FormatStatus(const Status& status) {
  if (status.ok()) return "OK";
  return absl::StrCat(absl::StatusCodeToString(status.code()), ": ", status.message());
}

namespace errors {
Status Annotate(const Status& status, std::string_view context) {
  if (status.ok()) return status;
  return Status(status.code(), StrCat(context, status.message()));
}
}  // namespace errors

}  // namespace clab
