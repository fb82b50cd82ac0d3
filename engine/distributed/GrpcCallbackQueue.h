// gRPC's callback API (the servers' reactors, the channels' callback calls) runs on one
// completion queue that gRPC 1.51 creates when the first callback user appears and shuts down
// when the last one goes. A process that makes and drops servers and channels over and over
// (the studio's step walkthrough, tests, a task that reconnects) can then shut that queue down
// while another user starts it again, and gRPC aborts on the queue's reference count. Holding
// one user for the life of the process keeps the queue up from its first use on.
#pragma once

namespace clab {

// Idempotent and thread-safe; call before making a gRPC server or channel.
void HoldGrpcCallbackQueue();

}  // namespace clab
