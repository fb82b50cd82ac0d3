#include "clab/core/TerminationSignal.h"
#include "clab/distributed/Server.h"

#include <thread>

namespace clab {

Status JoinUntilTerminationSignal(Server& server, const std::function<void(const char* signal_name)>& on_signal,
                                  const std::function<void()>& on_ready) {
  TerminationSignal signal;
  if (on_ready) on_ready();
  std::thread stopper([&] {
    const int number = signal.Wait();
    if (number == 0) return;  // the server stopped some other way
    if (on_signal) on_signal(TerminationSignal::Name(number));
    server.Stop().IgnoreError();
  });
  const Status joined = server.Join();
  signal.Cancel();
  stopper.join();
  return joined;
}

}  // namespace clab
