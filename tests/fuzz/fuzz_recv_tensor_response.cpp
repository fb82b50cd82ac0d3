// A RecvTensor reply as a peer's bytes arrive (RecvTensorResponse wire format, decoded
// straight into a tensor across gRPC's slices). The first input byte says into how many
// slices the rest is cut, as the network may cut it; a reply that decodes must match what
// protobuf itself makes of the bytes.
#include "clab/core/Tensor.h"
#include "distributed/RecvTensorCodec.h"
#include "tensorflow/worker.pb.h"

#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/slice.h>

#include <cstdlib>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t pieces = 1 + data[0] % 4;
  const uint8_t* bytes = data + 1;
  const size_t length = size - 1;
  std::vector<grpc::Slice> slices;
  for (size_t i = 0; i < pieces; ++i) {
    const size_t begin = length * i / pieces, end = length * (i + 1) / pieces;
    slices.emplace_back(bytes + begin, end - begin);
  }
  grpc::ByteBuffer buffer(slices.data(), slices.size());
  clab::Tensor tensor;
  bool is_dead = false;
  if (!clab::DecodeRecvTensorResponse(&buffer, &tensor, &is_dead).ok()) return 0;
  tensorflow::RecvTensorResponse parsed;
  if (!parsed.ParseFromArray(bytes, static_cast<int>(length))) return 0;
  auto expected = clab::Tensor::FromProto(parsed.tensor());
  if (expected.ok() && (expected->dtype() != tensor.dtype() || expected->shape() != tensor.shape())) std::abort();
  return 0;
}
