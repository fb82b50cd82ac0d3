#include "commands/DemoCommand.h"

#include "cli/CliStatus.h"
#include "cli/FlagParser.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/ops/Ops.h"
#include "clab/runtime/Session.h"
#include "seed/SeedGraph.h"

#include <absl/strings/str_cat.h>

#include <ostream>

namespace clab::cli {

std::string DemoCommand::description() const {
  return "Builds the graph of the seed tutorial with the C++ API:\n"
         "  x = [[1, 2, 3, 4]]   w = tf.Variable([[2], [2], [2], [2]])   mat = tf.matmul(x, w)\n"
         "then runs it in a local session with log_device_placement=True: the placement lines\n"
         "name the device of every node, and each step prints [[20]].";
}

void DemoCommand::DeclareFlags(FlagParser& flags) {
  flags.AddInt("steps", "N", "how many steps to run", &steps_, 1);
}

Status DemoCommand::Run(std::ostream& out) {
  GraphBuilder g;
  const examples::SeedGraph seed = examples::BuildSeedGraph(g);
  const Output init = ops::GlobalVariablesInitializer(g);
  if (!g.status().ok()) return WithPrefix(g.status(), "building the seed graph failed: ");

  out << "The seed program: x = [[1, 2, 3, 4]], w = [[2], [2], [2], [2]], mat = matmul(x, w),\n"
      << "in one local session with log_device_placement=True.\n"
      << std::endl;

  SessionOptions options;
  options.config.set_log_device_placement(true);
  auto session_or = NewSession(options);
  if (!session_or.ok()) return WithPrefix(session_or.status(), "cannot start a local session: ");
  std::unique_ptr<Session> session = std::move(session_or).value();
  CLAB_RETURN_IF_ERROR(WithPrefix(session->Create(g.graph_def()), "creating the session failed: "));

  std::vector<Tensor> outputs;
  CLAB_RETURN_IF_ERROR(WithPrefix(session->Run({}, {}, {init.node()}, &outputs), "initialising w failed: "));
  for (int64_t step = 1; step <= steps_; ++step) {
    CLAB_RETURN_IF_ERROR(
        WithPrefix(session->Run({}, {seed.product.name()}, {}, &outputs), absl::StrCat("step ", step, " failed: ")));
    out << outputs[0].DebugString() << std::endl;
  }
  CLAB_RETURN_IF_ERROR(session->Close());

  out << "\nThis ran in one process. The distributed demo (a ps task holding w, a worker\n"
      << "computing MatMul, real gRPC servers on this machine) is coming and will replace it.\n";
  return OkStatus();
}

}  // namespace clab::cli
