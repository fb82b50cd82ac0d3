// The client side of `clab bench step`'s floor: plain synchronous calls to a FloorService
// (bench/FloorService) on a channel with default settings apart from the message size
// limit, each call checking that the bytes it asked for came back.
#pragma once

#include "bench/floor.grpc.pb.h"
#include "clab/core/Status.h"

#include <cstdint>
#include <memory>
#include <string>

namespace clab::cli {

class FloorClient {
 public:
  // `address` is "127.0.0.1:PORT"; nothing is sent yet.
  explicit FloorClient(const std::string& address);

  // One round trip with `bytes` bytes each way.
  Status Echo(int64_t bytes);
  // One request for `bytes` bytes and the reply carrying them.
  Status Fetch(int64_t bytes);

 private:
  const std::string address_;
  std::unique_ptr<bench::FloorService::Stub> stub_;
  bench::FloorEcho echo_;
  bench::FloorFetchRequest fetch_;
};

}  // namespace clab::cli
