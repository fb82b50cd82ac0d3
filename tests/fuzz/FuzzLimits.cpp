// Every fuzz target runs with the limits a task is started with, made small enough for
// libFuzzer's 2 GB memory ceiling and its time limit per input at -O0: one tensor at most 8 MiB (--max_tensor_bytes)
// and all live tensors together at most 256 MiB (--max_memory_bytes). An input that asks for more must be refused by
// those checks with an error, as a task would refuse it; one that gets past them shows up as libFuzzer's out-of-memory
// report.
#include "clab/core/MemoryBudget.h"
#include "clab/core/TensorSize.h"

#include <cstdint>

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  clab::TensorSize::SetMaxTensorBytes(uint64_t{8} << 20);
  clab::MemoryBudget::SetLimit(uint64_t{256} << 20);
  return 0;
}
