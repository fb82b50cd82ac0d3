// ClusterLab's gRPC channel and server settings, in one place so that every channel between
// tasks behaves the same: a dead peer or a cut link is noticed within a few seconds (HTTP/2
// keepalive pings, allowed by the server's ping policy), large tensors fit (the message
// limit, ClusterAccess::max_message_bytes; larger messages fail with RESOURCE_EXHAUSTED), a
// restarted peer is reconnected quickly, no HTTP proxy from the environment ever gets in
// between, and a protected cluster's channels use TLS and carry its token.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace grpc {
class Channel;
class ChannelArguments;
class ServerBuilder;
}  // namespace grpc

namespace clab {

class TrafficMeter;
struct ClusterAccess;

struct ChannelSettings {
  // TLS, token and message limit; unset: the process's default (DefaultClusterAccess()).
  std::shared_ptr<const ClusterAccess> access;
  // Largest message a channel or server accepts; 0: the access's max_message_bytes.
  int64_t max_receive_message_bytes = 0;
  // A ping every keepalive_time_ms; no answer within keepalive_timeout_ms closes the link,
  // which fails the calls on it with UNAVAILABLE.
  int keepalive_time_ms = 1000;
  int keepalive_timeout_ms = 2000;
  // Upper bound of the wait between reconnection attempts to a peer that went away.
  int max_reconnect_backoff_ms = 1000;
  // Where workers reached over these channels count the bytes of their calls (unset: not
  // counted).
  std::shared_ptr<TrafficMeter> traffic;
};

grpc::ChannelArguments ClientChannelArguments(const ChannelSettings& settings = {});

// The access the settings name, else the process's default.
std::shared_ptr<const ClusterAccess> EffectiveAccess(const ChannelSettings& settings);

// A channel to "host:port" (a leading "grpc://" is accepted and dropped), with TLS and the
// token when the access is secured.
std::shared_ptr<grpc::Channel> CreateChannel(const std::string& address, const ChannelSettings& settings = {});

// The server side of the same policy: accepts the clients' frequent pings (gRPC's default
// would answer them with GOAWAY "too_many_pings"), pings clients itself while they have
// calls in flight, so a vanished client's calls are cancelled (never idle clients, which
// may answer late and must keep their connection), and sets the message limits.
void ConfigureServerBuilder(grpc::ServerBuilder& builder, const ChannelSettings& settings = {});

}  // namespace clab
