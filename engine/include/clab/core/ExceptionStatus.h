// Turns the exception being handled into a Status, so that code which runs work it does not
// control (kernels, request handlers) fails the one call and keeps the process serving.
#pragma once

#include "clab/core/Status.h"

#include <string_view>

namespace clab {

// Call only inside a catch block. A TensorAllocationError keeps its status; any other
// failed allocation is RESOURCE_EXHAUSTED; std::invalid_argument, std::out_of_range and
// std::length_error (a conversion or a size that failed) are INVALID_ARGUMENT; anything else
// is INTERNAL. `where` ("node 'x'", "RunStep request") leads the message, with the
// exception's own text after it.
Status CurrentExceptionStatus(std::string_view where);

}  // namespace clab
