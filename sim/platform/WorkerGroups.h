// Many identical workers simulated as a few groups. A worker that has a host of its own made
// from the platform's template is like every other such worker; past `max_workers` of them,
// they are dealt into max_workers groups of nearly equal size (sizes differ by at most one),
// and each group is simulated as one worker whose host has the group's cores and NIC capacity
// and whose messages and work are the group's: the members step together. The flows of equal
// groups share a ps's NIC as their members' flows would, and their work shares its cores.
// Each member's result is its group's.
#pragma once

#include "platform/PlatformSpec.h"

namespace clab::sim {

// `bound` unchanged when it has at most `max_workers` such workers.
BoundPlatform GroupIdenticalWorkers(const BoundPlatform& bound, const PlatformSpec& spec, int max_workers);

}  // namespace clab::sim
