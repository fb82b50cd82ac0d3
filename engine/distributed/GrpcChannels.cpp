#include "distributed/GrpcChannels.h"

#include "clab/distributed/ClusterAccess.h"
#include "distributed/GrpcCallbackQueue.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/server_builder.h>
#include <grpcpp/support/channel_arguments.h>

#include <algorithm>
#include <climits>
#include <string_view>

namespace clab {
namespace {

int ClampToInt(int64_t value) { return static_cast<int>(std::clamp<int64_t>(value, 0, INT_MAX)); }

std::string WithoutScheme(const std::string& address) {
  constexpr std::string_view kScheme = "grpc://";
  return std::string_view(address).substr(0, kScheme.size()) == kScheme ? address.substr(kScheme.size()) : address;
}

int64_t MessageLimit(const ChannelSettings& settings) {
  return settings.max_receive_message_bytes > 0 ? settings.max_receive_message_bytes
                                                : EffectiveAccess(settings)->max_message_bytes;
}

}  // namespace

std::shared_ptr<const ClusterAccess> EffectiveAccess(const ChannelSettings& settings) {
  return settings.access ? settings.access : DefaultClusterAccess();
}

grpc::ChannelArguments ClientChannelArguments(const ChannelSettings& settings) {
  grpc::ChannelArguments args;
  // Both ways: a message too large fails where it is sent, before it crosses the network.
  args.SetMaxReceiveMessageSize(ClampToInt(MessageLimit(settings)));
  args.SetMaxSendMessageSize(ClampToInt(MessageLimit(settings)));
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, settings.keepalive_time_ms);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, settings.keepalive_timeout_ms);
  // A ps between steps carries no calls, and that is exactly when its death must be seen.
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  // Cluster addresses are direct; a proxy from the environment would only add a hop or,
  // for loopback tasks, break them.
  args.SetInt(GRPC_ARG_ENABLE_HTTP_PROXY, 0);
  // A restarted task should be reachable again within about a second, not after gRPC's
  // default backoff of up to two minutes.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, std::min(settings.max_reconnect_backoff_ms, 100));
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, std::min(settings.max_reconnect_backoff_ms, 100));
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, settings.max_reconnect_backoff_ms);
  return args;
}

std::shared_ptr<grpc::Channel> CreateChannel(const std::string& address, const ChannelSettings& settings) {
  HoldGrpcCallbackQueue();
  return grpc::CreateCustomChannel(WithoutScheme(address), ClusterChannelCredentials(*EffectiveAccess(settings)),
                                   ClientChannelArguments(settings));
}

void ConfigureServerBuilder(grpc::ServerBuilder& builder, const ChannelSettings& settings) {
  builder.SetMaxReceiveMessageSize(ClampToInt(MessageLimit(settings)));
  builder.SetMaxSendMessageSize(ClampToInt(MessageLimit(settings)));
  // Clients ping every keepalive_time_ms even without calls; the default policy (at most
  // one ping per 5 minutes without data) would count those as abuse and close the link.
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
                             std::max(settings.keepalive_time_ms / 2, 1));
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
  // The server pings a client only while it has calls in flight: that is when a vanished
  // client's work must be cancelled. An idle client may not answer pings in time (a client
  // process without a server of its own polls an idle channel only every few seconds) and
  // must not lose its connection for it; ClusterLab's own channels ping the server between
  // steps themselves (ClientChannelArguments).
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, settings.keepalive_time_ms);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, settings.keepalive_timeout_ms);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 0);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
}

}  // namespace clab
