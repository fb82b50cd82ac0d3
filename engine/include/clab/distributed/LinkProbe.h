// A bare gRPC call to a task's server (clab.ProbeService), on the same kind of channel the
// runtime uses between tasks: the floor a distributed step is measured against. Echo sends
// `bytes` and gets them back; Fetch asks for `bytes` and receives them.
//
//   auto probe = clab::LinkProbe::Connect("127.0.0.1:2223");
//   probe->Echo(16);             // one round trip with 16 bytes each way
#pragma once

#include "clab/core/Status.h"

#include <cstdint>
#include <memory>
#include <string>

namespace clab {

class LinkProbe {
 public:
  // `address` is "host:port" or "grpc://host:port"; nothing is sent yet.
  static StatusOr<std::unique_ptr<LinkProbe>> Connect(const std::string& address);
  virtual ~LinkProbe() = default;

  // UNAVAILABLE naming the address when the task does not answer within `timeout_ms`.
  virtual Status Echo(int64_t bytes, int timeout_ms = 10000) = 0;
  virtual Status Fetch(int64_t bytes, int timeout_ms = 10000) = 0;
};

}  // namespace clab
