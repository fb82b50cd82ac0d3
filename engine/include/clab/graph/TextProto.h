// Reads a protobuf message in text format (a .pbtxt graph, a checkpoint state file) with a
// nesting limit: protobuf's text parser recurses once per nested message and has no limit
// of its own, so a few thousand nested braces would overflow the stack.
#pragma once

#include "clab/core/Status.h"

#include <google/protobuf/message.h>

#include <string_view>

namespace clab {

// Deeper than any GraphDef (attr values, tensors and shapes nest about eight deep).
inline constexpr int kMaxTextProtoNesting = 100;

// INVALID_ARGUMENT "<what>:<line>:<column>: <protobuf's message>" for the first error; a text
// nested deeper than the limit says so ("exceeded the configured recursion limit of 100").
// With `allow_unknown_fields`, fields the message type does not have are skipped.
Status ParseTextProto(std::string_view text, std::string_view what, google::protobuf::Message* message,
                      bool allow_unknown_fields = false);

}  // namespace clab
