// Status values of the engine: absl::Status with TensorFlow's canonical codes, plus helpers
// that build messages from pieces and propagate errors.
#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <absl/strings/str_cat.h>

#include <string>
#include <string_view>
#include <type_traits>

namespace clab {

namespace internal {
// Debian's Abseil is built with its own string_view type, so absl::StrCat does not take a
// std::string_view; route those through absl's type. Everything else passes unchanged.
template <typename T>
decltype(auto) ToAlphaNum(const T& value) {
  if constexpr (std::is_convertible_v<const T&, std::string_view> && !std::is_convertible_v<const T&, const char*> &&
                !std::is_same_v<T, std::string>) {
    const std::string_view view = value;
    return absl::string_view(view.data(), view.size());
  } else {
    return (value);
  }
}
}  // namespace internal

// absl::StrCat that also accepts std::string_view. Use it everywhere in the engine.
template <typename... Args>
std::string StrCat(const Args&... args) {
  return absl::StrCat(internal::ToAlphaNum(args)...);
}

using Status = absl::Status;
template <typename T>
using StatusOr = absl::StatusOr<T>;

inline Status OkStatus() { return absl::OkStatus(); }

// "INVALID_ARGUMENT: message", the form the command line and logs print.
std::string FormatStatus(const Status& status);

namespace errors {
#define CLAB_DEFINE_ERROR(Name, absl_fn)           \
  template <typename... Args>                      \
  Status Name(const Args&... args) {               \
    return absl::absl_fn(::clab::StrCat(args...)); \
  }
CLAB_DEFINE_ERROR(InvalidArgument, InvalidArgumentError)
CLAB_DEFINE_ERROR(NotFound, NotFoundError)
CLAB_DEFINE_ERROR(AlreadyExists, AlreadyExistsError)
CLAB_DEFINE_ERROR(FailedPrecondition, FailedPreconditionError)
CLAB_DEFINE_ERROR(Unimplemented, UnimplementedError)
CLAB_DEFINE_ERROR(Internal, InternalError)
CLAB_DEFINE_ERROR(Unavailable, UnavailableError)
CLAB_DEFINE_ERROR(Aborted, AbortedError)
CLAB_DEFINE_ERROR(DeadlineExceeded, DeadlineExceededError)
CLAB_DEFINE_ERROR(ResourceExhausted, ResourceExhaustedError)
CLAB_DEFINE_ERROR(OutOfRange, OutOfRangeError)
CLAB_DEFINE_ERROR(DataLoss, DataLossError)
CLAB_DEFINE_ERROR(Cancelled, CancelledError)
CLAB_DEFINE_ERROR(Unknown, UnknownError)
CLAB_DEFINE_ERROR(PermissionDenied, PermissionDeniedError)
#undef CLAB_DEFINE_ERROR

// Returns `status` with `context` prepended to its message, keeping the code.
Status Annotate(const Status& status, std::string_view context);
}  // namespace errors

}  // namespace clab

#define CLAB_CONCAT_INNER(a, b) a##b
#define CLAB_CONCAT(a, b) CLAB_CONCAT_INNER(a, b)

#define CLAB_RETURN_IF_ERROR(expr)               \
  do {                                           \
    ::clab::Status clab_status_ = (expr);        \
    if (!clab_status_.ok()) return clab_status_; \
  } while (0)

#define CLAB_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()

#define CLAB_ASSIGN_OR_RETURN(lhs, expr) CLAB_ASSIGN_OR_RETURN_IMPL(CLAB_CONCAT(clab_statusor_, __LINE__), lhs, expr)
