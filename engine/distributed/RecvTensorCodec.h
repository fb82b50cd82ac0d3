// RecvTensorResponse on the wire without copying tensor bytes through a protobuf `bytes`
// field: the encoder writes the few header fields itself and hands gRPC the tensor's own
// buffer as one slice (kept alive until gRPC lets go of it); the decoder reads the header
// and copies the content once, from the received slices into a new tensor. Both speak
// exactly the proto's wire format, so either end may be a plain protobuf implementation.
#pragma once

#include "clab/core/Status.h"
#include "clab/core/Tensor.h"

#include <grpcpp/support/byte_buffer.h>

#include <cstdint>

namespace clab {

grpc::ByteBuffer EncodeRecvTensorResponse(const Tensor& tensor, bool is_dead, int64_t send_start_micros);

// Parses RecvTensorResponse bytes into `tensor` (tensor_content or typed value fields).
// DATA_LOSS when the bytes are not a valid response or disagree with the tensor's shape.
Status DecodeRecvTensorResponse(grpc::ByteBuffer* buffer, Tensor* tensor, bool* is_dead);

}  // namespace clab
