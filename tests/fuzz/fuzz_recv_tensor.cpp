// RecvTensor requests as a peer sends them (step id and rendezvous key), handed to the
// worker as its service does. With the first input byte odd, the step has the tensor the
// key names already (a _Send ran): the reply is encoded as the service sends it and must
// decode to that tensor; otherwise the receive waits until the step is cleaned up. The
// incarnation "0000000000000000" in a key stands for the CPU's (a new one in every
// process), so that seeds can name this task's device.
#include "InProcessTask.h"
#include "distributed/RecvTensorCodec.h"

#include <grpcpp/support/byte_buffer.h>

#include <cstdlib>
#include <future>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static clab::fuzz::InProcessTask task;
  if (size == 0) return 0;
  const bool sent_first = data[0] & 1;
  tensorflow::RecvTensorRequest request;
  if (!request.ParseFromArray(data + 1, static_cast<int>(size - 1))) return 0;
  std::string key = request.rendezvous_key();
  char incarnation[17];
  std::snprintf(incarnation, sizeof incarnation, "%016llx", static_cast<unsigned long long>(task.cpu()->incarnation()));
  for (size_t at = key.find("0000000000000000"); at != std::string::npos; at = key.find("0000000000000000", at + 16))
    key.replace(at, 16, incarnation);

  const clab::Tensor sent = clab::Tensor::Vector<float>({1.5f, -2.0f, 3.25f});
  if (sent_first) (void)task.worker()->DeliverTensor(request.step_id(), key, sent);
  clab::CallCancellation cancellation;
  std::promise<void> done;
  task.worker()->RecvTensorValueAsync(request.step_id(), key, &cancellation,
                                      [&](const clab::Status& status, const clab::Tensor& value) {
                                        if (status.ok()) {
                                          grpc::ByteBuffer encoded = clab::EncodeRecvTensorResponse(value, false, 0);
                                          clab::Tensor decoded;
                                          bool is_dead = true;
                                          if (!clab::DecodeRecvTensorResponse(&encoded, &decoded, &is_dead).ok() ||
                                              is_dead || decoded.DebugString() != sent.DebugString())
                                            std::abort();
                                        }
                                        done.set_value();
                                      });
  tensorflow::CleanupGraphRequest cleanup;
  cleanup.set_step_id(request.step_id());
  task.worker()->CleanupGraph(cleanup);
  done.get_future().wait();
  return 0;
}
