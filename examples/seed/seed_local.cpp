// The seed program in C++, in one process: what the tutorial's worker computes, without the
// ps/worker cluster (seed_distributed.cpp is the distributed version; `clab demo` runs it).
// Each block carries the Python line it stands for, so the two can be read side by side.
//
// Build and run:  ninja seed_local && ./bin/seed_local      prints [[20]] once per step.

#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/ops/Ops.h"
#include "clab/runtime/Session.h"

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <vector>

namespace {

// The tutorial loops until StopAtStepHook(last_step=200) says stop, but nothing in its
// graph increments the global step, so it never stops. A local example runs a few steps.
constexpr int kSteps = 3;

int Fail(const clab::Status& status) {
  std::cerr << "seed_local: " << clab::FormatStatus(status) << "\n";
  return EXIT_FAILURE;
}

}  // namespace

int main() {
  clab::GraphBuilder g;

  // x = tf.Variable([[1, 2, 3, 4]])
  clab::Output x_initial = clab::ops::Const(g, clab::Tensor::Matrix<int32_t>({{1, 2, 3, 4}}), "x/initial_value");
  clab::ops::Variable x = clab::ops::MakeVariable(g, x_initial, "x");

  // w = tf.Variable([[2], [2], [2], [2]])
  clab::Output w_initial = clab::ops::Const(g, clab::Tensor::Matrix<int32_t>({{2}, {2}, {2}, {2}}), "w/initial_value");
  clab::ops::Variable w = clab::ops::MakeVariable(g, w_initial, "w");

  // mat = tf.matmul(x, w)
  clab::Output mat = clab::ops::MatMul(g, x.read, w.read);

  // MonitoredTrainingSession's scaffold runs tf.global_variables_initializer() for the chief;
  // a plain session is given the initializer explicitly.
  clab::Output init = clab::ops::GlobalVariablesInitializer(g);

  // The builder records the first error instead of failing each call: check once.
  if (!g.status().ok()) return Fail(g.status());

  // config=tf.ConfigProto(log_device_placement=True)
  clab::SessionOptions options;
  options.config.set_log_device_placement(true);

  // with tf.train.MonitoredTrainingSession(master=..., is_chief=True, config=...) as mon_sess:
  // (master "" = run in this process)
  auto session_or = clab::NewSession(options);
  if (!session_or.ok()) return Fail(session_or.status());
  std::unique_ptr<clab::Session> mon_sess = std::move(session_or).value();
  if (auto status = mon_sess->Create(g.graph_def()); !status.ok()) return Fail(status);

  std::vector<clab::Tensor> outputs;
  if (auto status = mon_sess->Run({}, {}, {init.node()}, &outputs); !status.ok()) return Fail(status);

  // while not mon_sess.should_stop():
  for (int step = 0; step < kSteps; ++step) {
    //   print(mon_sess.run(mat))
    if (auto status = mon_sess->Run({}, {mat.name()}, {}, &outputs); !status.ok()) return Fail(status);
    std::cout << outputs[0].DebugString() << std::endl;
  }

  // Leaving the `with` block closes the session.
  if (auto status = mon_sess->Close(); !status.ok()) return Fail(status);
  return EXIT_SUCCESS;
}
