// `clab example graph`: one task of a cluster that runs a GraphDef file (the studio's edited
// graph, or one TensorFlow wrote) in a MonitoredTrainingSession, printing the step's tensors.
#pragma once

#include "cli/Command.h"
#include "cli/TaskProgramFlags.h"

#include <string>
#include <vector>

namespace clab::cli {

class ExampleGraphCommand : public Command {
 public:
  std::string name() const override { return "example graph"; }
  std::string summary() const override;
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  TaskProgramFlags task_flags_;
  std::string graph_path_;
  std::vector<std::string> fetches_;
  int64_t print_every_ = 1;
};

}  // namespace clab::cli
