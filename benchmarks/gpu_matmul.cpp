// float32 MatMul GFLOP/s on the GPU: the ClusterLab kernel (built from the op registry for a
// GPU device of the CUDA plugin, inputs already in device memory, so no host<->device copy
// is timed) against cuBLAS called directly in the same process, on the same GPU, with the
// same operands. The two are interleaved so a clock or thermal change hits both. Prints a
// table and one JSON line; exits 77 where there is no GPU.
//
//   gpu_matmul [--sizes=512,1024,...] [--min-seconds=0.2] [--rounds=3]
#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "clab/graph/AttrValues.h"
#include "clab/graph/OpRegistry.h"
#include "clab/runtime/Device.h"
#include "clab/runtime/OpKernel.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace clab;

namespace {

constexpr int kSkip = 77;

struct Options {
  std::vector<int> sizes = {512, 1024, 2048, 4096, 8192};
  double min_seconds = 0.2;  // per timed measurement
  int rounds = 3;            // interleaved measurements per path; the median is reported
};

Options ParseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--sizes=", 0) == 0) {
      o.sizes.clear();
      std::string list = arg.substr(8);
      for (size_t pos = 0; pos < list.size();) {
        size_t comma = list.find(',', pos);
        if (comma == std::string::npos) comma = list.size();
        o.sizes.push_back(std::atoi(list.substr(pos, comma - pos).c_str()));
        pos = comma + 1;
      }
    } else if (arg.rfind("--min-seconds=", 0) == 0) {
      o.min_seconds = std::atof(arg.c_str() + 14);
    } else if (arg.rfind("--rounds=", 0) == 0) {
      o.rounds = std::max(1, std::atoi(arg.c_str() + 9));
    } else {
      std::fprintf(stderr, "usage: %s [--sizes=512,1024,...] [--min-seconds=0.2] [--rounds=3]\n", argv[0]);
      std::exit(2);
    }
  }
  return o;
}

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "gpu_matmul: %s\n", what.c_str());
  std::exit(1);
}
void Check(const Status& s, const char* what) {
  if (!s.ok()) Die(std::string(what) + ": " + FormatStatus(s));
}
void Check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) Die(std::string(what) + ": " + cudaGetErrorString(e));
}
void Check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) Die(std::string(what) + ": " + cublasGetStatusString(s));
}

// Cheap deterministic values in [-1, 1): generating 2 x 8192^2 floats with <random> would
// take longer than the measurements.
Tensor RandomMatrix(int n, uint32_t seed) {
  Tensor t(DT_FLOAT, TensorShape{n, n});
  float* p = t.data<float>();
  uint32_t state = seed * 2654435761u + 1;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    state = state * 1664525u + 1013904223u;
    p[i] = static_cast<float>(state >> 8) * (2.0f / 16777216.0f) - 1.0f;
  }
  return t;
}

// Runs `step` until `min_seconds` have passed (after one untimed warm-up call) and returns
// seconds per call; `sync` waits for the GPU so queued work is counted.
double SecondsPerCall(const std::function<void()>& step, const std::function<void()>& sync, double min_seconds) {
  using Clock = std::chrono::steady_clock;
  step();
  sync();
  int64_t calls = 1;
  for (;;) {
    const auto start = Clock::now();
    for (int64_t i = 0; i < calls; ++i) step();
    sync();
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if (elapsed >= min_seconds) return elapsed / static_cast<double>(calls);
    calls = elapsed <= 0 ? calls * 10
                         : std::max<int64_t>(calls + 1, static_cast<int64_t>(calls * min_seconds * 1.2 / elapsed));
  }
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Row {
  int n;
  double clab_gflops;
  double cublas_gflops;
  double max_abs_diff;
};

}  // namespace

int main(int argc, char** argv) {
  const Options options = ParseArgs(argc, argv);

  const auto& notes = LoadDevicePlugins();
  auto made = DeviceMgr::CreateLocal("/job:localhost/replica:0/task:0", tensorflow::ConfigProto());
  Check(made.status(), "creating devices");
  Device* gpu = nullptr;
  for (Device* d : (*made)->devices())
    if (d->type() == "GPU" && !gpu) gpu = d;
  if (!gpu) {
    std::fprintf(stderr, "gpu_matmul: no GPU device, nothing to measure (skipped).\n");
    for (const auto& note : notes) std::fprintf(stderr, "  device plugins: %s\n", note.c_str());
    return kSkip;
  }

  // The ClusterLab kernel, built exactly as an executor builds it.
  tensorflow::NodeDef node;
  node.set_name("MatMul");
  node.set_op("MatMul");
  node.add_input("a");
  node.add_input("b");
  (*node.mutable_attr())["T"] = AttrOf(DT_FLOAT);
  auto op = OpRegistry::Global().LookUp("MatMul");
  Check(op.status(), "looking up MatMul");
  Check(AddDefaultsAndValidate(**op, &node), "validating the MatMul node");
  std::vector<DataType> in_types, out_types;
  Check(InOutTypesForNode(node, **op, &in_types, &out_types), "MatMul types");
  auto factory = (*op)->kernels.find("GPU");
  if (factory == (*op)->kernels.end()) Die("MatMul has no GPU kernel although a GPU device exists");
  OpKernelConstruction construction(node, **op, gpu, in_types, out_types);
  auto kernel_or = factory->second(construction);
  Check(kernel_or.status(), "building the GPU MatMul kernel");
  std::unique_ptr<OpKernel> kernel = std::move(kernel_or).value();

  // cuBLAS on its own, with this program's CUDA runtime and stream.
  int cuda_device = 0;
  Check(cudaSetDevice(cuda_device), "cudaSetDevice");
  cudaStream_t stream;
  Check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  cublasHandle_t handle;
  Check(cublasCreate(&handle), "cublasCreate");
  Check(cublasSetStream(handle, stream), "cublasSetStream");

  std::printf("MatMul float32 on %s\n  (%s)\n", gpu->name().c_str(), gpu->description().c_str());
  std::printf("%8s %16s %16s %8s %12s %12s\n", "n", "ClusterLab GF/s", "cuBLAS GF/s", "ratio", "ms/matmul",
              "max|diff|");

  std::vector<Row> rows;
  for (int n : options.sizes) {
    if (n <= 0) continue;
    const Tensor host_a = RandomMatrix(n, 1), host_b = RandomMatrix(n, 2);
    Tensor dev_a, dev_b;
    Check(gpu->CopyHostToDevice(host_a, &dev_a), "copying A");
    Check(gpu->CopyHostToDevice(host_b, &dev_b), "copying B");
    Check(gpu->Sync(), "sync");

    const size_t bytes = static_cast<size_t>(n) * n * sizeof(float);
    float *a = nullptr, *b = nullptr, *c = nullptr;
    Check(cudaMalloc(reinterpret_cast<void**>(&a), bytes), "cudaMalloc A");
    Check(cudaMalloc(reinterpret_cast<void**>(&b), bytes), "cudaMalloc B");
    Check(cudaMalloc(reinterpret_cast<void**>(&c), bytes), "cudaMalloc C");
    Check(cudaMemcpy(a, host_a.raw_data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy A");
    Check(cudaMemcpy(b, host_b.raw_data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy B");

    Tensor last_output;
    StepInfo step;
    auto clab_step = [&] {
      std::vector<EdgeValue> inputs(2);
      inputs[0].tensor = dev_a;
      inputs[1].tensor = dev_b;
      OpKernelContext ctx(node, gpu, step, std::move(inputs), 1);
      kernel->Compute(&ctx);
      Check(ctx.status(), "ClusterLab MatMul");
      last_output = ctx.outputs()[0].tensor;
    };
    auto clab_sync = [&] { Check(gpu->Sync(), "sync"); };
    // Row-major C = A B is column-major C^T = B^T A^T: the same call the plugin makes.
    const float one = 1.0f, zero = 0.0f;
    auto cublas_step = [&] {
      Check(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero, c, n), "cublasSgemm");
    };
    auto cublas_sync = [&] { Check(cudaStreamSynchronize(stream), "cudaStreamSynchronize"); };

    std::vector<double> clab_times, cublas_times;
    for (int r = 0; r < options.rounds; ++r) {
      clab_times.push_back(SecondsPerCall(clab_step, clab_sync, options.min_seconds));
      cublas_times.push_back(SecondsPerCall(cublas_step, cublas_sync, options.min_seconds));
    }

    // Both paths must agree: same library, same operands.
    Tensor clab_host;
    Check(gpu->CopyDeviceToHost(last_output, &clab_host), "copying C back");
    std::vector<float> direct(static_cast<size_t>(n) * n);
    Check(cudaMemcpy(direct.data(), c, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy C");
    double max_diff = 0;
    for (size_t i = 0; i < direct.size(); ++i)
      max_diff = std::max(max_diff, static_cast<double>(std::fabs(direct[i] - clab_host.data<float>()[i])));

    const double flops = 2.0 * n * n * static_cast<double>(n);
    const double t_clab = Median(clab_times), t_cublas = Median(cublas_times);
    Row row{n, flops / t_clab / 1e9, flops / t_cublas / 1e9, max_diff};
    rows.push_back(row);
    std::printf("%8d %16.1f %16.1f %8.3f %12.3f %12.3g\n", n, row.clab_gflops, row.cublas_gflops,
                row.clab_gflops / row.cublas_gflops, t_clab * 1e3, max_diff);
    std::fflush(stdout);

    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
  }

  std::string json = "{\"benchmark\":\"gpu_matmul\",\"dtype\":\"float32\",\"device\":\"" + gpu->name() +
                     "\",\"rounds\":" + std::to_string(options.rounds) + ",\"results\":[";
  for (size_t i = 0; i < rows.size(); ++i) {
    char item[256];
    std::snprintf(item, sizeof(item),
                  "%s{\"n\":%d,\"clab_gflops\":%.1f,\"cublas_gflops\":%.1f,\"ratio\":%.4f,\"max_abs_diff\":%.3g}",
                  i ? "," : "", rows[i].n, rows[i].clab_gflops, rows[i].cublas_gflops,
                  rows[i].clab_gflops / rows[i].cublas_gflops, rows[i].max_abs_diff);
    json += item;
  }
  json += "]}";
  std::printf("%s\n", json.c_str());

  cublasDestroy(handle);
  cudaStreamDestroy(stream);
  return 0;
}
