// A ClusterLab project (.clab, JSON) as the command line and the launchers read it, without
// Qt: the cluster, the program its workers run, the run settings, the project's own graph
// (if any) and the launch settings. The studio's document (ui/project/Project) reads the
// same file and keeps its launch section through LaunchSettings.
//
//   {"format": "clusterlab-project", "version": 1, "name": "Seed",
//    "cluster": {"ps": ["127.0.0.1:2223"], "worker": ["127.0.0.1:2222"]},
//    "program": "seed",
//    "run": {"last_step": 200, "faithful": false, "sync": false, "max_seconds": 0, "checkpoint_dir": "",
//            "save_checkpoint_steps": 0, "save_checkpoint_secs": 0},
//    "graph": "node { ... }",
//    "launch": {"method": "ssh", "hosts": {...}},
//    "security": {"tls_dir": "...", "token_file": "...", "insecure_listen_all": false}}
#pragma once

#include "clab/core/Status.h"
#include "clab/distributed/ClusterSpec.h"
#include "launch/project/LaunchSettings.h"
#include "launch/project/ProjectSecurity.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace clab::launch {

struct ProjectRun {
  int64_t last_step = 200;
  bool faithful = false;  // the seed program exactly as the tutorial wrote it
  bool sync = false;      // training programs: synchronous replicas
  int max_seconds = 0;
  std::string checkpoint_dir;
  // How often the chief checkpoints (both 0: TensorFlow's default of every 600 s; steps win
  // when both are set).
  int64_t save_checkpoint_steps = 0;
  int64_t save_checkpoint_secs = 0;
};

struct ProjectFile {
  std::string path;  // where it was read from
  std::string name = "Untitled";
  std::string program = "seed";
  ClusterSpec cluster;
  ProjectRun run;
  std::string graph;  // a text GraphDef, or empty for the program's own graph
  LaunchSettings launch;
  ProjectSecurity security;

  // What a project's workers can run: "seed" and the example training programs.
  static std::vector<std::string> Programs();

  // Errors name the file and the member at fault: "p.clab: cluster.ps[0]: 'h' is not host:port".
  static StatusOr<ProjectFile> Read(const std::string& path);
  // `where` prefixes errors (the file's path).
  static StatusOr<ProjectFile> FromJson(const nlohmann::json& json, const std::string& where);

  // "seed", "digits-mlp": a name for files and jobs made from the project (its file name
  // without ".clab", or its program).
  std::string Stem() const;
  // Every task as (job, index, host, port), jobs sorted, tasks by index.
  struct Task {
    std::string job;
    int index = 0;
    std::string host;
    int port = 0;
    std::string name() const;   // "/job:ps/replica:0/task:0"
    std::string label() const;  // "ps/0"
    std::string address() const;
  };
  std::vector<Task> Tasks() const;
};

// Replaces the cluster of the project file at `path`, keeping everything else as it is;
// written to a temporary file and renamed over the old one.
Status WriteProjectCluster(const std::string& path, const ClusterSpec& cluster);

}  // namespace clab::launch
