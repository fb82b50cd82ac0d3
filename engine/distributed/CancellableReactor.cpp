#include "distributed/CancellableReactor.h"

#include "distributed/GrpcStatus.h"

namespace clab {

void CancellableReactor::FinishOnce(const Status& status) {
  if (finished_.exchange(true)) return;
  Finish(ToGrpcStatus(status));
}

}  // namespace clab
