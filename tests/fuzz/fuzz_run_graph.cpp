// RunGraph requests as the worker service hands them to the worker: the request a master
// sends for each step of a registered partition (feeds, delivered tensors, options). The
// graph handle "graph" stands for the handle the worker gave the registered partition (a
// new one in every process); any other handle is one the worker does not know.
#include "InProcessTask.h"

#include <future>

namespace {

struct RunGraphTarget {
  clab::fuzz::InProcessTask task;
  std::string graph_handle;

  RunGraphTarget() {
    tensorflow::RegisterGraphRequest request;
    *request.mutable_graph_def() = clab::fuzz::InProcessTask::Graph(/*on_cpu=*/true);
    request.add_feed("x:0");
    request.add_fetch("y:0");
    request.add_fetch("c:0");
    tensorflow::RegisterGraphResponse response;
    if (auto status = task.worker()->RegisterGraph(request, &response); !status.ok())
      clab::fuzz::InProcessTask::Fail(status);
    graph_handle = response.graph_handle();
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static RunGraphTarget target;
  tensorflow::RunGraphRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return 0;
  if (request.graph_handle() == "graph") request.set_graph_handle(target.graph_handle);
  tensorflow::RunGraphResponse response;
  clab::CallCancellation cancellation;
  std::promise<clab::Status> done;
  target.task.worker()->RunGraphAsync(request, &response, &cancellation,
                                      [&done](const clab::Status& status) { done.set_value(status); });
  (void)done.get_future().get();
  // The master's CleanupGraph ends every step, run or not.
  tensorflow::CleanupGraphRequest cleanup;
  cleanup.set_step_id(request.step_id());
  target.task.worker()->CleanupGraph(cleanup);
  return 0;
}
