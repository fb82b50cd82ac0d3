// What is at a task's address, asked before its event stream is opened and after it closes,
// so that the studio can say why a task cannot be watched: the address is not host:port or
// its host has no address, nothing listens on the port (connection refused), nothing
// answers at all (host down, port filtered), or something accepts the connection but does
// not answer HTTP/2's handshake (not a gRPC server). A server that speaks gRPC but has no
// ClusterLab event stream is found when the stream's call returns UNIMPLEMENTED.
#pragma once

#include <QString>

#include <atomic>
#include <chrono>
#include <string>

namespace clab::ui {

enum class WatchProblem {
  kNone,
  kBadAddress,     // not host:port, or the host name does not resolve
  kRefused,        // nothing listens on the port
  kNoAnswer,       // the connection is neither accepted nor refused (host down, filtered)
  kNotGrpc,        // something accepts connections but does not speak HTTP/2 (gRPC)
  kNotClusterLab,  // a gRPC server without ClusterLab's event stream (UNIMPLEMENTED)
  kTensorFlow,     // a TensorFlow server: it answers GetStatus, but has no event stream
};

struct ProbeResult {
  WatchProblem problem = WatchProblem::kNone;
  std::string detail;  // what happened, in English, for the console and tooltips
};

class TaskProbe {
 public:
  // Connects to `address` ("host:port") and, unless `tls` (the TLS handshake is gRPC's to
  // do), sends HTTP/2's connection preface and waits for the server's SETTINGS frame. Each
  // wait is at most `timeout`, cut short when `stopping` becomes true.
  static ProbeResult check(const std::string& address, bool tls, const std::atomic<bool>& stopping,
                           std::chrono::milliseconds timeout = std::chrono::milliseconds(2000));
};

// A stable English name for logs and tests ("refused", "not grpc").
QString WatchProblemName(WatchProblem problem);

}  // namespace clab::ui
