// Tasks that act as separate hosts on this machine: each in a network namespace of its own,
// joined to a bridge (in a namespace of its own too) by a veth pair whose two ends are each
// limited by an htb qdisc to one rate, so that every task has a full-duplex NIC of that rate,
// as on a cluster where the network dominates. Each end queues its packets in one FIFO, as a
// NIC and a switch port do, and the flows through it share the rate as TCP shares a
// bottleneck. (A class per peer, each guaranteed its share of the rate and allowed to borrow
// the rest, shared it worse: two workers that each had the ps's link to themselves half the
// time got half the steps they get through a FIFO.) Addresses are 198.18.0.2, .3, ... (the
// benchmarking range); nothing is added to the root namespace, and everything is deleted when
// the object goes away. Namespace names carry "sim" and this process's id.
//
// Needs root (or CAP_NET_ADMIN) and iproute2's `ip` and `tc`.
#pragma once

#include "clab/core/Status.h"

#include <memory>
#include <string>
#include <vector>

namespace clab::cli {

class ShapedNetwork {
 public:
  // `rate_bits_per_second` 0: not limited.
  static StatusOr<std::unique_ptr<ShapedNetwork>> Create(int tasks, double rate_bits_per_second);
  ~ShapedNetwork();
  ShapedNetwork(const ShapedNetwork&) = delete;
  ShapedNetwork& operator=(const ShapedNetwork&) = delete;

  const std::string& Namespace(int task) const { return namespaces_[static_cast<size_t>(task)]; }
  std::string Address(int task) const;
  double rate_bits_per_second() const { return rate_; }

  // Deletes namespaces that an earlier run of a process no longer alive left behind.
  static void RemoveStale();
  // The path of iproute2's `ip` (on PATH, else /usr/sbin or /sbin).
  static std::string IpProgram();

 private:
  ShapedNetwork() = default;
  Status Run(const std::vector<std::string>& args);
  // Packets one direction of a NIC holds: 100 full frames are 60 ms at 20 Mbit/s, 12 ms at
  // 100 Mbit/s.
  static constexpr int kQueuePackets = 100;
  Status Shape(const std::string& ns, const std::string& device);

  std::string bridge_;
  std::vector<std::string> namespaces_;
  double rate_ = 0;
};

}  // namespace clab::cli
