// What the simulator reads from a ClusterLab project (.clab, JSON): the cluster's jobs and
// their task counts, the program its workers run (or the graph edited in the studio), the
// run settings that change a step (synchronous replicas) and the platform section, if any.
// Read without Qt, so that `clab simulate` and the studio share one reading of the format;
// the studio's own project class writes it.
#pragma once

#include "clab/core/Status.h"
#include "platform/PlatformSpec.h"

#include <map>
#include <optional>
#include <string>

namespace clab::sim {

struct SimProject {
  std::string path;  // for messages
  std::string name;
  std::string program = "seed";
  std::map<std::string, int> tasks;  // job -> number of tasks
  bool sync = false;
  std::string graph;  // a text GraphDef (the studio's edited graph), or empty
  std::optional<PlatformSpec> platform;

  // Errors name the file and the field: "p.clab: cluster.ps: wants a non-empty list".
  static StatusOr<SimProject> Load(const std::string& path);
  static StatusOr<SimProject> FromJsonText(const std::string& text, const std::string& origin);
};

}  // namespace clab::sim
