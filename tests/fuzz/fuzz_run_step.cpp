// RunStep requests as the master service hands them to the master: a client's feeds,
// fetches, targets and options against a session holding a small graph, each new
// signature compiled into a plan (prune, place, partition, register) and run. The session
// handle "session" stands for the session made at start (a new handle in every process).
#include "InProcessTask.h"

#include <future>

namespace {

struct RunStepTarget {
  clab::fuzz::InProcessTask task;
  std::string session_handle;

  RunStepTarget() {
    tensorflow::CreateSessionRequest request;
    *request.mutable_graph_def() = clab::fuzz::InProcessTask::Graph(/*on_cpu=*/false);
    tensorflow::CreateSessionResponse response;
    if (auto status = task.master()->CreateSession(request, &response); !status.ok())
      clab::fuzz::InProcessTask::Fail(status);
    session_handle = response.session_handle();
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static RunStepTarget target;
  tensorflow::RunStepRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return 0;
  if (request.session_handle() == "session") request.set_session_handle(target.session_handle);
  tensorflow::RunStepResponse response;
  std::promise<clab::Status> done;
  target.task.master()->RunStepAsync(request, &response,
                                     [&done](const clab::Status& status) { done.set_value(status); });
  (void)done.get_future().get();
  return 0;
}
