// RegisterGraph requests as a master sends them: a partition's GraphDef with its feeds and
// fetches, split per device and built into executors on the worker. A registered graph is
// deregistered again, so that every input starts from the same worker.
#include "InProcessTask.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static clab::fuzz::InProcessTask task;
  tensorflow::RegisterGraphRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return 0;
  tensorflow::RegisterGraphResponse response;
  if (!task.worker()->RegisterGraph(request, &response).ok()) return 0;
  tensorflow::DeregisterGraphRequest deregister;
  deregister.set_session_handle(request.session_handle());
  deregister.set_graph_handle(response.graph_handle());
  if (!task.worker()->DeregisterGraph(deregister).ok()) std::abort();
  return 0;
}
