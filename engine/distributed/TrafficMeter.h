// Bytes this task sent to and received from each peer task in the calls it made (RunGraph,
// RecvTensor, RegisterGraph), counted from the messages' sizes. A server publishes the
// totals as TrafficEvents every second, and the studio draws them on the cluster's links.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace clab {

class TrafficMeter {
 public:
  struct Totals {
    int64_t sent = 0;
    int64_t received = 0;
    bool operator==(const Totals& other) const { return sent == other.sent && received == other.received; }
  };

  void Add(const std::string& peer, int64_t sent, int64_t received) {
    std::lock_guard<std::mutex> lock(mu_);
    Totals& totals = peers_[peer];
    totals.sent += sent;
    totals.received += received;
  }
  std::map<std::string, Totals> Snapshot() const {
    std::lock_guard<std::mutex> lock(mu_);
    return peers_;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, Totals> peers_;
};

}  // namespace clab
