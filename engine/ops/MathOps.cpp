// The math op family (MatMul, element-wise arithmetic, reductions) and the parallel-for
// shared by the math, nn and random kernels.
#include "ops/MathOpsInternal.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>

namespace clab {
namespace math_internal {
namespace {

// Blocks smaller than this waste more on hand-off than they gain.
constexpr double kMinCyclesPerBlock = 16 * 1024;
// More blocks than threads evens out threads that start late or run slower.
constexpr int64_t kBlocksPerThread = 4;

struct ParallelForState {
  int64_t num_blocks = 0;
  std::atomic<int64_t> next_block{0};
  std::atomic<int64_t> blocks_done{0};
  std::mutex mu;
  std::condition_variable all_done;
};

// Claims and runs blocks until none are left. `fn` is only touched after a successful claim,
// and the caller of ParallelForOnPool outlives every claimed block, so a helper that starts
// after all the work is gone never uses a dangling `fn`.
void RunBlocks(ParallelForState& state, int64_t total, int64_t block_size,
               const std::function<void(int64_t, int64_t)>* fn) {
  for (;;) {
    const int64_t block = state.next_block.fetch_add(1, std::memory_order_relaxed);
    if (block >= state.num_blocks) return;
    const int64_t begin = block * block_size;
    (*fn)(begin, std::min(total, begin + block_size));
    if (state.blocks_done.fetch_add(1, std::memory_order_acq_rel) + 1 == state.num_blocks) {
      std::lock_guard<std::mutex> lock(state.mu);
      state.all_done.notify_all();
    }
  }
}

}  // namespace

void ParallelForOnPool(const Eigen::ThreadPoolDevice& device, int64_t total, double cycles_per_unit,
                       const std::function<void(int64_t, int64_t)>& fn) {
  const int64_t threads = std::max(1, device.numThreads());
  const auto min_units = static_cast<int64_t>(kMinCyclesPerBlock / std::max(cycles_per_unit, 1e-3)) + 1;
  const int64_t wanted_blocks = threads * kBlocksPerThread;
  const int64_t block_size = std::max(min_units, (total + wanted_blocks - 1) / wanted_blocks);
  const int64_t num_blocks = (total + block_size - 1) / block_size;
  if (num_blocks <= 1) {
    fn(0, total);
    return;
  }

  auto state = std::make_shared<ParallelForState>();
  state->num_blocks = num_blocks;
  const int64_t helpers = std::min(threads, num_blocks) - 1;
  const std::function<void(int64_t, int64_t)>* shared_fn = &fn;
  for (int64_t i = 0; i < helpers; ++i) {
    device.getPool()->Schedule(
        [state, total, block_size, shared_fn] { RunBlocks(*state, total, block_size, shared_fn); });
  }
  RunBlocks(*state, total, block_size, shared_fn);
  std::unique_lock<std::mutex> lock(state->mu);
  state->all_done.wait(lock, [&] { return state->blocks_done.load(std::memory_order_acquire) == state->num_blocks; });
}

std::string NodeSuffix(const std::string& node_name) { return absl::StrCat("\n\t [[{{node ", node_name, "}}]]"); }

Status UnchangedShape(ShapeContext& ctx) {
  ctx.set_output(0, ctx.input_shape(0));
  return OkStatus();
}

}  // namespace math_internal

void RegisterMathOps(OpRegistry& registry) {
  math_internal::RegisterMatMulOp(registry);
  math_internal::RegisterBinaryMathOps(registry);
  math_internal::RegisterUnaryMathOps(registry);
  math_internal::RegisterReductionOps(registry);
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kMathOpFamily("math", RegisterMathOps);

}  // namespace clab
