// A cluster of ps and worker tasks on free 127.0.0.1 ports, in the forms the tests need:
// `--cluster` text for `clab` processes, a job -> addresses dict for replica_device_setter,
// and grpc:// targets for clients.
#pragma once

#include "TaskProcess.h"

#include <QString>
#include <QStringList>

#include <map>
#include <string>
#include <vector>

namespace clab::testing {

struct LoopbackCluster {
  std::vector<int> ports;
  int num_ps = 1;
  int num_workers = 1;

  static LoopbackCluster Make(int ps, int workers) { return LoopbackCluster{FreePorts(ps + workers), ps, workers}; }

  std::string address(const std::string& job, int task) const {
    const int index = job == "ps" ? task : num_ps + task;
    return "127.0.0.1:" + std::to_string(ports[static_cast<size_t>(index)]);
  }
  // "ps=127.0.0.1:1;worker=127.0.0.1:2,127.0.0.1:3" for --cluster
  QString spec() const {
    QStringList ps, workers;
    for (int i = 0; i < num_ps; ++i) ps << QString::fromStdString(address("ps", i));
    for (int i = 0; i < num_workers; ++i) workers << QString::fromStdString(address("worker", i));
    return "ps=" + ps.join(",") + ";worker=" + workers.join(",");
  }
  std::map<std::string, std::vector<std::string>> dict() const {
    std::map<std::string, std::vector<std::string>> jobs;
    for (int i = 0; i < num_ps; ++i) jobs["ps"].push_back(address("ps", i));
    for (int i = 0; i < num_workers; ++i) jobs["worker"].push_back(address("worker", i));
    return jobs;
  }
  std::string target(int worker) const { return "grpc://" + address("worker", worker); }
  std::string target(const std::string& job, int task) const { return "grpc://" + address(job, task); }
};

}  // namespace clab::testing
