#define EIGEN_USE_THREADS

#include "bench/ComputeBenchmark.h"

#include "bench/CostMeter.h"
#include "bench/Median.h"
#include "bench/PlainEigenMlp.h"
#include "clab/ops/Ops.h"
#include "clab/runtime/Session.h"
#include "clab/runtime/ThreadPool.h"
#include "exampledata/ExampleDataPath.h"
#include "models/Classifier.h"
#include "models/MinibatchSampler.h"

#include <absl/strings/str_format.h>
#include <unsupported/Eigen/CXX11/Tensor>
#include <unsupported/Eigen/CXX11/ThreadPool>

#include <algorithm>
#include <chrono>
#include <random>

namespace clab::cli {
namespace {

// Wall time, CPU time and context switches per step of the stretch since `meter` started
// (this process only, which getrusage always reads).
ComputeSide PerStep(const CostMeter& meter, int64_t steps) {
  const StepCost cost = meter.PerStep(steps).value_or(StepCost{});
  return ComputeSide{cost.wall_us, cost.cpu_us, cost.context_switches};
}

ComputeSide MedianSide(const std::vector<ComputeSide>& sides) {
  std::vector<double> wall, cpu, switches;
  for (const ComputeSide& side : sides) {
    wall.push_back(side.micros);
    cpu.push_back(side.cpu_micros);
    switches.push_back(side.context_switches);
  }
  return ComputeSide{Median(wall), Median(cpu), Median(switches)};
}

// Runs `engine` and `floor` for `rounds` rounds, alternating which goes first.
template <typename Engine, typename Floor>
Status Interleave(int rounds, Engine&& engine, Floor&& floor, std::vector<ComputeSide>* engine_sides,
                  std::vector<ComputeSide>* floor_sides) {
  for (int round = 0; round < rounds; ++round) {
    if (round % 2 == 0) {
      CLAB_ASSIGN_OR_RETURN(ComputeSide e, engine());
      engine_sides->push_back(e);
      floor_sides->push_back(floor());
    } else {
      floor_sides->push_back(floor());
      CLAB_ASSIGN_OR_RETURN(ComputeSide e, engine());
      engine_sides->push_back(e);
    }
  }
  return OkStatus();
}

StatusOr<ComputeRow> MlpRow(const ComputeBenchmarkOptions& options) {
  CLAB_ASSIGN_OR_RETURN(const examples::ClassificationData data,
                        examples::LoadClassificationCsv(tools::ExampleDataPath("digits.csv.gz")));
  // The same minibatches for both sides, drawn once: neither side pays for sampling.
  constexpr int kBatch = 32;
  constexpr int kBatches = 64;
  examples::MinibatchSampler sampler(data.train, kBatch, 107);
  std::vector<examples::Examples> batches;
  std::vector<PlainEigenMlp::Matrix> plain_x;
  std::vector<std::vector<int32_t>> plain_labels;
  for (int i = 0; i < kBatches; ++i) {
    batches.push_back(sampler.Next());
    const examples::Examples& b = batches.back();
    plain_x.push_back(Eigen::Map<const PlainEigenMlp::Matrix>(b.features.data<float>(), kBatch, data.num_features));
    plain_labels.emplace_back(b.labels.data<int32_t>(), b.labels.data<int32_t>() + kBatch);
  }

  GraphBuilder g;
  CLAB_ASSIGN_OR_RETURN(const tools::ClassifierGraph model,
                        tools::BuildClassifier(g, data.num_features, {options.hidden}, data.num_classes, 0.1, 7));
  const Output init = ops::GlobalVariablesInitializer(g);
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(SessionOptions()));
  CLAB_RETURN_IF_ERROR(session->Create(g.graph_def()));
  std::vector<Tensor> out;
  CLAB_RETURN_IF_ERROR(session->Run({}, {}, {init.node()}, &out));
  const std::string features = model.features.name(), labels = model.labels.name(), loss = model.loss.name();
  const std::string train = model.train.node();

  PlainEigenMlp plain(data.num_features, options.hidden, data.num_classes, 0.1f, 7);
  float plain_loss = 0;
  const int64_t steps = options.mlp_steps;
  auto engine = [&]() -> StatusOr<ComputeSide> {
    CostMeter meter;
    for (int64_t s = 0; s < steps; ++s) {
      const examples::Examples& b = batches[static_cast<size_t>(s % kBatches)];
      CLAB_RETURN_IF_ERROR(session->Run({{features, b.features}, {labels, b.labels}}, {loss}, {train}, &out));
    }
    return PerStep(meter, steps);
  };
  auto floor = [&]() {
    CostMeter meter;
    for (int64_t s = 0; s < steps; ++s)
      plain_loss +=
          plain.Step(plain_x[static_cast<size_t>(s % kBatches)], plain_labels[static_cast<size_t>(s % kBatches)]);
    return PerStep(meter, steps);
  };
  std::vector<ComputeSide> engine_sides, floor_sides;
  CLAB_RETURN_IF_ERROR(Interleave(options.rounds, engine, floor, &engine_sides, &floor_sides));
  if (!std::isfinite(plain_loss) || !std::isfinite(out[0].scalar<float>()))
    return errors::Internal("the MLP's loss is not finite");
  ComputeRow row;
  row.name = absl::StrFormat("mlp step 64-%d-10 b32", options.hidden);
  row.engine = MedianSide(engine_sides);
  row.floor = MedianSide(floor_sides);
  row.target_ratio = 0.5;
  return row;
}

StatusOr<ComputeRow> MatMulRow(const ComputeBenchmarkOptions& options) {
  const int64_t n = options.matmul_size;
  Tensor a(DT_FLOAT, TensorShape({n, n})), b(DT_FLOAT, TensorShape({n, n}));
  std::mt19937 random(5);
  std::uniform_real_distribution<float> uniform(-1, 1);
  for (int64_t i = 0; i < n * n; ++i) {
    a.data<float>()[i] = uniform(random);
    b.data<float>()[i] = uniform(random);
  }
  GraphBuilder g;
  ops::MatMul(g, ops::Placeholder(g, DT_FLOAT, PartialShape{n, n}, "a"),
              ops::Placeholder(g, DT_FLOAT, PartialShape{n, n}, "b"), false, false, "product");
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(SessionOptions()));
  CLAB_RETURN_IF_ERROR(session->Create(g.graph_def()));
  std::vector<Tensor> out;

  // The floor: Eigen's own contraction of the same row-major buffers on a pool as large as
  // the engine's.
  const int threads = ThreadPool::Default()->num_threads();
  Eigen::ThreadPool pool(threads);
  Eigen::ThreadPoolDevice device(&pool, threads);
  using Map = Eigen::TensorMap<Eigen::Tensor<const float, 2, Eigen::RowMajor>>;
  Eigen::Tensor<float, 2, Eigen::RowMajor> product(n, n);
  const Eigen::array<Eigen::IndexPair<int>, 1> dims = {Eigen::IndexPair<int>(1, 0)};
  const Map ma(a.data<float>(), n, n), mb(b.data<float>(), n, n);

  const int repeats = options.matmul_repeats;
  auto engine = [&]() -> StatusOr<ComputeSide> {
    CostMeter meter;
    for (int r = 0; r < repeats; ++r) CLAB_RETURN_IF_ERROR(session->Run({{"a", a}, {"b", b}}, {"product"}, {}, &out));
    return PerStep(meter, repeats);
  };
  auto floor = [&]() {
    CostMeter meter;
    for (int r = 0; r < repeats; ++r) product.device(device) = ma.contract(mb, dims);
    return PerStep(meter, repeats);
  };
  std::vector<ComputeSide> engine_sides, floor_sides;
  CLAB_RETURN_IF_ERROR(Interleave(options.rounds, engine, floor, &engine_sides, &floor_sides));
  // Both computed the same product.
  const float engine_corner = out[0].data<float>()[n * n - 1], floor_corner = product(n - 1, n - 1);
  if (std::abs(engine_corner - floor_corner) > 1e-2f * std::max(1.0f, std::abs(floor_corner)))
    return errors::Internal("MatMul and Eigen disagree: ", engine_corner, " vs ", floor_corner);
  ComputeRow row;
  row.name = absl::StrFormat("matmul %d^3 f32, %d threads", n, threads);
  row.engine = MedianSide(engine_sides);
  row.floor = MedianSide(floor_sides);
  const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  row.gflops = flops / row.engine.micros / 1e3;
  row.floor_gflops = flops / row.floor.micros / 1e3;
  row.target_ratio = 0.9;
  return row;
}

}  // namespace

StatusOr<std::vector<ComputeRow>> RunComputeBenchmark(const ComputeBenchmarkOptions& options) {
  std::vector<ComputeRow> rows;
  CLAB_ASSIGN_OR_RETURN(ComputeRow mlp, MlpRow(options));
  if (options.progress) options.progress(absl::StrFormat("  %s: %.1f us per step", mlp.name, mlp.engine.micros));
  rows.push_back(std::move(mlp));
  if (options.matmul_size > 0) {
    CLAB_ASSIGN_OR_RETURN(ComputeRow matmul, MatMulRow(options));
    if (options.progress) options.progress(absl::StrFormat("  %s: %.1f GFLOP/s", matmul.name, matmul.gflops));
    rows.push_back(std::move(matmul));
  }
  return rows;
}

std::string FormatComputeTable(const std::vector<ComputeRow>& rows) {
  std::string table = absl::StrFormat("%-30s %12s %12s %8s %8s %11s %11s %9s %9s\n", "", "clab us", "floor us", "ratio",
                                      "target", "clab cpu", "floor cpu", "clab cs", "floor cs");
  for (const ComputeRow& row : rows) {
    const double ratio = row.floor.micros / row.engine.micros;  // > 1: faster than the floor
    table += absl::StrFormat("%-30s %12.1f %12.1f %7.2fx %7.2fx %9.1fus %9.1fus %9.2f %9.2f\n", row.name,
                             row.engine.micros, row.floor.micros, ratio, row.target_ratio, row.engine.cpu_micros,
                             row.floor.cpu_micros, row.engine.context_switches, row.floor.context_switches);
    if (row.gflops > 0) table += absl::StrFormat("%-30s %12.1f %12.1f   GFLOP/s\n", "", row.gflops, row.floor_gflops);
  }
  table += "ratio: floor time / ClusterLab time (1.00x: as fast as the floor); cs: context switches per step.\n";
  return table;
}

}  // namespace clab::cli
