// The ClusterLab side of `clab bench step`: a ps task in its own process (`clab server`)
// holding x and w of the seed program and one float32 variable per pull size, and the
// worker's server with a session on its in-process master in this process, as the seed
// program's worker runs it. Step() runs the seed program's MatMul; Pull(n) fetches
// Identity(v) of the n-element variable on the worker.
#pragma once

#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "clab/distributed/Server.h"
#include "clab/runtime/Session.h"
#include "launch/process/ChildProcess.h"

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace clab::cli {

class StepCluster {
 public:
  // Starts the ps with `clab_program`, the worker's server here, and initialises the variables.
  static StatusOr<std::unique_ptr<StepCluster>> Start(const std::string& clab_program,
                                                      const std::vector<int64_t>& pull_sizes);
  ~StepCluster();

  pid_t ps_pid() const { return ps_->pid(); }
  const std::string& ps_address() const { return ps_address_; }

  Status Step();
  Status Pull(int64_t elements);

  // Closes the session and the worker's server, then stops the ps; the ps's exit status.
  StatusOr<int> Stop();

 private:
  StepCluster() = default;

  std::unique_ptr<launch::ChildProcess> ps_;
  std::string ps_address_;
  std::unique_ptr<Server> worker_;
  std::unique_ptr<Session> session_;
  std::string seed_product_;
  std::map<int64_t, std::string> pulls_;  // elements -> fetch name
  std::vector<Tensor> outputs_;
  bool stopped_ = false;
};

}  // namespace clab::cli
