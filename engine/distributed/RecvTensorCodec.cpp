#include "distributed/RecvTensorCodec.h"
#include "core/BoolBytes.h"

#include "clab/core/TensorAllocation.h"
#include "clab/core/TensorSize.h"

#include "tensorflow/worker.pb.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>
#include <grpcpp/support/proto_buffer_reader.h>
#include <grpcpp/support/slice.h>

#include <optional>
#include <string>

namespace clab {
namespace {

using google::protobuf::internal::WireFormatLite;

// Field numbers of RecvTensorResponse and TensorProto (tensorflow/worker.proto, tensor.proto).
constexpr int kResponseTensor = 1;
constexpr int kResponseIsDead = 2;
constexpr int kResponseSendStartMicros = 3;
constexpr int kTensorDtype = 1;
constexpr int kTensorShape = 2;
constexpr int kTensorContent = 4;

// Below this, one plain serialization is cheaper than slice bookkeeping.
constexpr size_t kZeroCopyMinBytes = 1024;

void AppendVarint(std::string* out, uint64_t value) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>(value | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

void AppendTag(std::string* out, int field, WireFormatLite::WireType type) {
  AppendVarint(out, WireFormatLite::MakeTag(field, type));
}

grpc::ByteBuffer SerializePlain(const Tensor& tensor, bool is_dead, int64_t send_start_micros) {
  tensorflow::RecvTensorResponse response;
  tensor.AsProto(response.mutable_tensor());
  response.set_is_dead(is_dead);
  response.set_send_start_micros(send_start_micros);
  grpc::Slice slice(response.SerializeAsString());
  return grpc::ByteBuffer(&slice, 1);
}

// The slice's reference to the tensor: gRPC may hold the bytes after the call returned.
void ReleaseTensor(void* tensor) { delete static_cast<Tensor*>(tensor); }

Status Malformed(std::string_view what) { return errors::DataLoss("Malformed RecvTensorResponse: ", what); }

// The fast path's view of a TensorProto: dtype, shape and tensor_content read directly.
// Returns nullopt when the proto uses other fields (typed values), so the caller parses it
// the ordinary way.
StatusOr<std::optional<Tensor>> DecodeTensorFast(google::protobuf::io::CodedInputStream& in) {
  DataType dtype = DT_INVALID;
  std::optional<TensorShape> shape;
  std::optional<Tensor> tensor;
  while (uint32_t tag = in.ReadTag()) {
    const int field = WireFormatLite::GetTagFieldNumber(tag);
    const auto type = WireFormatLite::GetTagWireType(tag);
    // A dtype or shape after the content, or a second shape (protobuf merges the two),
    // changes what the content means: the ordinary parse decides.
    if ((field == kTensorDtype || field == kTensorShape) && (tensor || (field == kTensorShape && shape)))
      return std::optional<Tensor>();
    if (field == kTensorDtype && type == WireFormatLite::WIRETYPE_VARINT) {
      uint64_t value = 0;
      if (!in.ReadVarint64(&value)) return Malformed("truncated dtype");
      dtype = static_cast<DataType>(value);
    } else if (field == kTensorShape && type == WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      uint32_t length = 0;
      std::string bytes;
      if (!in.ReadVarint32(&length) || !in.ReadString(&bytes, static_cast<int>(length)))
        return Malformed("truncated shape");
      tensorflow::TensorShapeProto proto;
      if (!proto.ParseFromString(bytes)) return Malformed("bad shape");
      CLAB_ASSIGN_OR_RETURN(TensorShape parsed, TensorShape::FromProto(proto));
      shape = std::move(parsed);
    } else if (field == kTensorContent && type == WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      // Content before its dtype and shape is valid protobuf, just not what we can stream.
      if (!shape || DataTypeSize(dtype) == 0 || tensor) return std::optional<Tensor>();
      uint32_t length = 0;
      if (!in.ReadVarint32(&length)) return Malformed("truncated tensor_content");
      // The size is checked against the content before the tensor's memory is reserved.
      StatusOr<TensorSize> size = TensorSize::Of(dtype, shape->dims());
      if (!size.ok()) return errors::Annotate(size.status(), "Malformed RecvTensorResponse: ");
      if (length != size->bytes)
        return errors::DataLoss("RecvTensorResponse carries ", length, " bytes for a ", DataTypeName(dtype),
                                " tensor of shape ", shape->DebugString(), ", which needs ", size->bytes);
      CLAB_ASSIGN_OR_RETURN(Tensor value, AllocateTensor(dtype, *shape));
      if (!in.ReadRaw(value.raw_data(), static_cast<int>(length))) return Malformed("truncated tensor_content");
      NormalizeBoolBytes(&value);
      tensor = std::move(value);
    } else if (field == 3 && type == WireFormatLite::WIRETYPE_VARINT) {
      uint64_t ignored = 0;
      if (!in.ReadVarint64(&ignored)) return Malformed("truncated version_number");
    } else {
      return std::optional<Tensor>();
    }
  }
  if (!tensor) {
    // No content: an empty tensor (proto3 leaves the empty bytes field out) or typed fields.
    if (!shape || DataTypeSize(dtype) == 0) return std::optional<Tensor>();
    StatusOr<TensorSize> size = TensorSize::Of(dtype, shape->dims());
    if (!size.ok()) return errors::Annotate(size.status(), "Malformed RecvTensorResponse: ");
    if (size->bytes != 0) return std::optional<Tensor>();
    CLAB_ASSIGN_OR_RETURN(Tensor value, AllocateTensor(dtype, *shape));
    tensor = std::move(value);
  }
  return tensor;
}

// Reads the response's top-level fields; nullopt asks for the ordinary parse.
StatusOr<bool> DecodeFast(grpc::ByteBuffer* buffer, Tensor* tensor, bool* is_dead) {
  grpc::ProtoBufferReader reader(buffer);
  if (!reader.status().ok()) return Malformed(reader.status().error_message());
  google::protobuf::io::CodedInputStream in(&reader);
  bool have_tensor = false;
  while (uint32_t tag = in.ReadTag()) {
    const int field = WireFormatLite::GetTagFieldNumber(tag);
    const auto type = WireFormatLite::GetTagWireType(tag);
    if (field == kResponseTensor && type == WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      uint32_t length = 0;
      if (!in.ReadVarint32(&length)) return Malformed("truncated tensor");
      const auto limit = in.PushLimit(static_cast<int>(length));
      CLAB_ASSIGN_OR_RETURN(std::optional<Tensor> decoded, DecodeTensorFast(in));
      if (!decoded || have_tensor) return false;
      if (!in.ConsumedEntireMessage() || in.BytesUntilLimit() != 0) return Malformed("truncated tensor");
      in.PopLimit(limit);
      *tensor = std::move(*decoded);
      have_tensor = true;
    } else if (field == kResponseIsDead && type == WireFormatLite::WIRETYPE_VARINT) {
      uint64_t value = 0;
      if (!in.ReadVarint64(&value)) return Malformed("truncated is_dead");
      if (is_dead) *is_dead = value != 0;
    } else if (!WireFormatLite::SkipField(&in, tag)) {
      return Malformed("truncated field");
    }
  }
  if (!in.ConsumedEntireMessage()) return Malformed("bad tag");
  return have_tensor;
}

}  // namespace

grpc::ByteBuffer EncodeRecvTensorResponse(const Tensor& tensor, bool is_dead, int64_t send_start_micros) {
  const size_t content_bytes = tensor.TotalBytes();
  if (DataTypeSize(tensor.dtype()) == 0 || !tensor.OnHost() || content_bytes < kZeroCopyMinBytes)
    return SerializePlain(tensor, is_dead, send_start_micros);

  std::string shape_bytes;
  {
    tensorflow::TensorShapeProto shape;
    tensor.shape().AsProto(&shape);
    shape_bytes = shape.SerializeAsString();
  }
  // TensorProto without its content bytes: dtype, shape, then the content's tag and length.
  std::string tensor_header;
  AppendTag(&tensor_header, kTensorDtype, WireFormatLite::WIRETYPE_VARINT);
  AppendVarint(&tensor_header, static_cast<uint64_t>(tensor.dtype()));
  AppendTag(&tensor_header, kTensorShape, WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  AppendVarint(&tensor_header, shape_bytes.size());
  tensor_header += shape_bytes;
  AppendTag(&tensor_header, kTensorContent, WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  AppendVarint(&tensor_header, content_bytes);

  std::string head;
  AppendTag(&head, kResponseTensor, WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  AppendVarint(&head, tensor_header.size() + content_bytes);
  head += tensor_header;

  std::string tail;
  if (is_dead) {
    AppendTag(&tail, kResponseIsDead, WireFormatLite::WIRETYPE_VARINT);
    AppendVarint(&tail, 1);
  }
  if (send_start_micros != 0) {
    AppendTag(&tail, kResponseSendStartMicros, WireFormatLite::WIRETYPE_VARINT);
    AppendVarint(&tail, static_cast<uint64_t>(send_start_micros));
  }

  auto* keep_alive = new Tensor(tensor);
  grpc::Slice slices[3] = {
      grpc::Slice(head),
      grpc::Slice(const_cast<void*>(keep_alive->raw_data()), content_bytes, &ReleaseTensor, keep_alive),
      grpc::Slice(tail),
  };
  return grpc::ByteBuffer(slices, tail.empty() ? 2 : 3);
}

Status DecodeRecvTensorResponse(grpc::ByteBuffer* buffer, Tensor* tensor, bool* is_dead) {
  if (is_dead) *is_dead = false;
  CLAB_ASSIGN_OR_RETURN(bool decoded, DecodeFast(buffer, tensor, is_dead));
  if (decoded) return OkStatus();

  // Typed value fields, strings, or an unusual field order: the ordinary way.
  tensorflow::RecvTensorResponse response;
  grpc::ProtoBufferReader reader(buffer);
  if (!response.ParseFromZeroCopyStream(&reader)) return Malformed("not a RecvTensorResponse");
  if (is_dead) *is_dead = response.is_dead();
  CLAB_ASSIGN_OR_RETURN(*tensor, Tensor::FromProto(response.tensor()));
  return OkStatus();
}

}  // namespace clab
