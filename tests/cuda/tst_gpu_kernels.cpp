// Every GPU kernel of the CUDA plugin against the CPU kernel of the same op on the same
// inputs (or, for an op without a CPU kernel, a value computed here). Exits with 77, which
// CTest reports as skipped, when the plugin or a GPU is not available.
#include "KernelTestUtil.h"

#include "clab/graph/GraphBuilder.h"
#include "clab/ops/Ops.h"
#include "clab/runtime/DirectSession.h"

#include <QtTest>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>

using namespace clab;
using namespace clab::testing;

Q_DECLARE_METATYPE(clab::DataType)
Q_DECLARE_METATYPE(clab::TensorShape)

namespace {

constexpr const char* kTask = "/job:localhost/replica:0/task:0";

QString Q(const Status& s) { return QString::fromStdString(FormatStatus(s)); }

// Values in [lo, hi) from a fixed seed, so a failure reproduces.
Tensor Random(DataType dtype, const TensorShape& shape, double lo, double hi, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  Tensor t(dtype, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (dtype == DT_FLOAT) t.data<float>()[i] = static_cast<float>(dist(gen));
    else t.data<double>()[i] = dist(gen);
  }
  return t;
}

double At(const Tensor& t, int64_t i) { return t.dtype() == DT_FLOAT ? t.data<float>()[i] : t.data<double>()[i]; }

// Same shape and |got - want| <= atol + rtol * |want| everywhere; `why` names the first
// element that is not.
bool Close(const Tensor& got, const Tensor& want, double rtol, double atol, QString* why) {
  if (got.dtype() != want.dtype() || got.shape() != want.shape()) {
    *why =
        QString("got %1 %2, want %3 %4")
            .arg(QString::fromStdString(DataTypeName(got.dtype())), QString::fromStdString(got.shape().DebugString()),
                 QString::fromStdString(DataTypeName(want.dtype())),
                 QString::fromStdString(want.shape().DebugString()));
    return false;
  }
  for (int64_t i = 0; i < got.NumElements(); ++i) {
    const double g = At(got, i), w = At(want, i);
    if (std::isnan(g) && std::isnan(w)) continue;
    if (!(std::fabs(g - w) <= atol + rtol * std::fabs(w))) {
      *why = QString("element %1: got %2, want %3").arg(i).arg(g, 0, 'g', 17).arg(w, 0, 'g', 17);
      return false;
    }
  }
  return true;
}

// The values an op must produce, computed here for ops that have no CPU kernel yet.
std::function<double(double)> UnaryReference(const std::string& op) {
  if (op == "Neg") return [](double x) { return -x; };
  if (op == "Square") return [](double x) { return x * x; };
  if (op == "Sqrt") return [](double x) { return std::sqrt(x); };
  if (op == "Exp") return [](double x) { return std::exp(x); };
  if (op == "Log") return [](double x) { return std::log(x); };
  if (op == "Relu") return [](double x) { return x > 0 ? x : 0.0; };
  if (op == "Sigmoid") return [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
  return [](double x) { return std::tanh(x); };
}

std::function<double(double, double)> BinaryReference(const std::string& op) {
  if (op == "Sub") return [](double a, double b) { return a - b; };
  if (op == "Mul") return [](double a, double b) { return a * b; };
  if (op == "RealDiv") return [](double a, double b) { return a / b; };
  return [](double a, double b) { return a + b; };
}

void Set(Tensor& t, int64_t i, double v) {
  if (t.dtype() == DT_FLOAT) t.data<float>()[i] = static_cast<float>(v);
  else t.data<double>()[i] = v;
}

}  // namespace

class GpuKernelsTest : public QObject {
  Q_OBJECT

 private:
  std::unique_ptr<DeviceMgr> devices_;
  Device* cpu_ = nullptr;
  Device* gpu_ = nullptr;
  int local_references_ = 0;

  // Runs `node` on the GPU with `inputs` copied to device memory first (unless
  // `keep_on_host`), checks that every output lives in device memory and returns them
  // copied back to the host.
  StatusOr<std::vector<Tensor>> RunOnGpu(const tensorflow::NodeDef& node, const std::vector<Tensor>& inputs,
                                         bool keep_on_host = false) {
    std::vector<Tensor> device_inputs;
    for (const Tensor& t : inputs) {
      if (keep_on_host) {
        device_inputs.push_back(t);
        continue;
      }
      Tensor d;
      CLAB_RETURN_IF_ERROR(gpu_->CopyHostToDevice(t, &d));
      if (d.OnHost()) return errors::Internal("CopyHostToDevice left the tensor in host memory");
      device_inputs.push_back(d);
    }
    CLAB_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, RunKernel(node, device_inputs, gpu_));
    std::vector<Tensor> host;
    for (const Tensor& out : outputs) {
      if (out.NumElements() > 0 && out.OnHost())
        return errors::Internal("GPU kernel ", node.op(), " returned a tensor in host memory");
      Tensor h;
      CLAB_RETURN_IF_ERROR(gpu_->CopyDeviceToHost(out, &h));
      host.push_back(h);
    }
    return host;
  }

  // The CPU kernel's output 0, or `fallback()` where the op has no CPU kernel.
  Tensor Reference(const tensorflow::NodeDef& node, const std::vector<Tensor>& inputs,
                   const std::function<Tensor()>& fallback) {
    const OpDef* op = OpRegistry::Global().Find(node.op());
    if (op == nullptr || !op->HasKernel("CPU")) {
      ++local_references_;
      return fallback();
    }
    auto out = RunKernel(node, inputs, cpu_);
    if (!out.ok()) {
      QTest::qFail(qPrintable("CPU kernel failed: " + Q(out.status())), __FILE__, __LINE__);
      return Tensor();
    }
    return (*out)[0];
  }

  void Compare(const tensorflow::NodeDef& node, const std::vector<Tensor>& inputs, const Tensor& want, double rtol,
               double atol) {
    auto got = RunOnGpu(node, inputs);
    QVERIFY2(got.ok(), qPrintable(Q(got.status())));
    QString why;
    QVERIFY2(Close((*got)[0], want, rtol, atol, &why), qPrintable(QString::fromStdString(node.op()) + ": " + why));
  }

  static double Rtol(DataType dtype) { return dtype == DT_FLOAT ? 2e-6 : 1e-14; }

 private slots:
  void initTestCase() {
    const auto& notes = LoadDevicePlugins();
    auto made = DeviceMgr::CreateLocal(kTask, tensorflow::ConfigProto());
    QVERIFY2(made.ok(), qPrintable(Q(made.status())));
    devices_ = std::move(made).value();
    cpu_ = devices_->host_cpu();
    for (Device* d : devices_->devices())
      if (d->type() == "GPU" && gpu_ == nullptr) gpu_ = d;
    if (gpu_ == nullptr) {
      std::fprintf(stderr, "SKIP tst_gpu_kernels: no GPU device was created, so there is nothing to test.\n");
      for (const auto& note : notes) std::fprintf(stderr, "  device plugins: %s\n", note.c_str());
      std::fprintf(stderr, "  (a machine without an NVIDIA GPU and driver reports no GPU; that is normal)\n");
      std::exit(77);
    }
    qInfo("testing %s: %s", gpu_->name().c_str(), gpu_->description().c_str());
    QVERIFY(!gpu_->allocator()->OnHost());
  }

  void cleanupTestCase() {
    if (local_references_ > 0)
      qInfo("%d case(s) compared with values computed by the test: their ops have no CPU kernel", local_references_);
  }

  void unaryMatchesCpu_data() {
    // clang-format off
    QTest::addColumn<QString>("op");
    QTest::addColumn<DataType>("dtype");
    QTest::addColumn<TensorShape>("shape");
    const char* ops[] = {"Neg", "Square", "Sqrt", "Exp", "Log", "Relu", "Sigmoid", "Tanh"};
    const std::pair<const char*, DataType> types[] = {{"float", DT_FLOAT}, {"double", DT_DOUBLE}};
    const std::pair<const char*, TensorShape> shapes[] = {
        {"scalar", TensorShape{}}, {"3x5", TensorShape{3, 5}}, {"empty", TensorShape{0, 4}},
        {"257x1031", TensorShape{257, 1031}}};
    for (const char* op : ops)
      for (const auto& [tname, dtype] : types)
        for (const auto& [sname, shape] : shapes)
          QTest::newRow(qPrintable(QString("%1 %2 %3").arg(op, tname, sname))) << QString(op) << dtype << shape;
    // clang-format on
  }
  void unaryMatchesCpu() {
    QFETCH(QString, op);
    QFETCH(DataType, dtype);
    QFETCH(TensorShape, shape);
    const std::string name = op.toStdString();
    const bool positive = name == "Sqrt" || name == "Log";
    const Tensor x = Random(dtype, shape, positive ? 0.01 : -4.0, 4.0, 7);
    const auto node = MakeNode(name, name, {"x"}, {{"T", AttrOf(dtype)}});
    const Tensor want = Reference(node, {x}, [&] {
      Tensor y(dtype, shape);
      const auto fn = UnaryReference(name);
      for (int64_t i = 0; i < y.NumElements(); ++i) Set(y, i, fn(At(x, i)));
      return y;
    });
    // Transcendentals on the GPU and in libm may differ by a few ulps.
    Compare(node, {x}, want, 4 * Rtol(dtype), dtype == DT_FLOAT ? 1e-7 : 1e-15);
  }

  void binaryMatchesCpu_data() {
    // clang-format off
    QTest::addColumn<QString>("op");
    QTest::addColumn<DataType>("dtype");
    QTest::addColumn<TensorShape>("shapeX");
    QTest::addColumn<TensorShape>("shapeY");
    const char* ops[] = {"Add", "AddV2", "Sub", "Mul", "RealDiv"};
    const std::pair<const char*, DataType> types[] = {{"float", DT_FLOAT}, {"double", DT_DOUBLE}};
    struct Case {
      const char* name;
      TensorShape x, y;
    };
    const Case cases[] = {{"same 4x7", {4, 7}, {4, 7}},
                          {"scalar and tensor", {}, {3, 5}},
                          {"tensor and scalar", {6}, {}},
                          {"1x1 and 3x4", {1, 1}, {3, 4}},
                          {"3x4 and 1", {3, 4}, {1}},
                          {"both scalars", {}, {}},
                          {"empty", {0, 3}, {0, 3}},
                          {"large", {300001}, {300001}}};
    for (const char* op : ops)
      for (const auto& [tname, dtype] : types)
        for (const Case& c : cases)
          QTest::newRow(qPrintable(QString("%1 %2 %3").arg(op, tname, c.name))) << QString(op) << dtype << c.x << c.y;
    // clang-format on
  }
  void binaryMatchesCpu() {
    QFETCH(QString, op);
    QFETCH(DataType, dtype);
    QFETCH(TensorShape, shapeX);
    QFETCH(TensorShape, shapeY);
    const std::string name = op.toStdString();
    const Tensor x = Random(dtype, shapeX, -3.0, 3.0, 11);
    // Divisors away from zero keep RealDiv well conditioned.
    const Tensor y = Random(dtype, shapeY, name == "RealDiv" ? 0.5 : -3.0, 3.0, 13);
    const auto node = MakeNode(name, name, {"x", "y"}, {{"T", AttrOf(dtype)}});
    const Tensor want = Reference(node, {x, y}, [&] {
      const TensorShape& out_shape = x.NumElements() == 1 && x.shape().rank() <= y.shape().rank() ? shapeY : shapeX;
      Tensor z(dtype, out_shape);
      const auto fn = BinaryReference(name);
      for (int64_t i = 0; i < z.NumElements(); ++i)
        Set(z, i, fn(At(x, x.NumElements() == 1 ? 0 : i), At(y, y.NumElements() == 1 ? 0 : i)));
      return z;
    });
    Compare(node, {x, y}, want, Rtol(dtype), 0);
  }

  void binaryBroadcastOtherThanScalarIsUnimplemented() {
    const auto node = MakeNode("add", "AddV2", {"x", "y"}, {{"T", AttrOf(DT_FLOAT)}});
    auto out = RunOnGpu(node, {Random(DT_FLOAT, {2, 3}, 0, 1, 1), Random(DT_FLOAT, {3}, 0, 1, 2)});
    QVERIFY(!out.ok());
    QCOMPARE(out.status().code(), absl::StatusCode::kUnimplemented);
    const std::string message(out.status().message());
    QVERIFY2(message.find("[2,3]") != std::string::npos && message.find("[3]") != std::string::npos, message.c_str());

    auto bad = RunOnGpu(node, {Random(DT_FLOAT, {2, 3}, 0, 1, 1), Random(DT_FLOAT, {4}, 0, 1, 2)});
    QCOMPARE(bad.status().code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(std::string(bad.status().message()).find("Incompatible shapes: [2,3] vs. [4]") != std::string::npos,
             std::string(bad.status().message()).c_str());
  }

  void integerTypesStayOnTheCpu() {
    const auto node = MakeNode("add", "AddV2", {"x", "y"}, {{"T", AttrOf(DT_INT32)}});
    auto out = RunOnGpu(node, {Tensor::Vector<int32_t>({1, 2}), Tensor::Vector<int32_t>({3, 4})});
    QVERIFY(!out.ok());
    QCOMPARE(out.status().code(), absl::StatusCode::kUnimplemented);
  }

  void matMulMatchesCpu_data() {
    // clang-format off
    QTest::addColumn<DataType>("dtype");
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("k");
    QTest::addColumn<int>("n");
    QTest::addColumn<bool>("transposeA");
    QTest::addColumn<bool>("transposeB");
    const std::pair<const char*, DataType> types[] = {{"float", DT_FLOAT}, {"double", DT_DOUBLE}};
    const int sizes[][3] = {{1, 4, 1}, {3, 5, 7}, {64, 128, 33}, {129, 257, 65}, {2, 0, 3}, {0, 4, 5}};
    for (const auto& [tname, dtype] : types)
      for (const auto& s : sizes)
        for (int t = 0; t < 4; ++t)
          QTest::newRow(qPrintable(QString("%1 %2x%3x%4 ta=%5 tb=%6")
                                       .arg(tname)
                                       .arg(s[0]).arg(s[1]).arg(s[2])
                                       .arg(t & 1).arg((t >> 1) & 1)))
              << dtype << s[0] << s[1] << s[2] << bool(t & 1) << bool(t & 2);
    // clang-format on
  }
  void matMulMatchesCpu() {
    QFETCH(DataType, dtype);
    QFETCH(int, m);
    QFETCH(int, k);
    QFETCH(int, n);
    QFETCH(bool, transposeA);
    QFETCH(bool, transposeB);
    const Tensor a = Random(dtype, transposeA ? TensorShape{k, m} : TensorShape{m, k}, -1, 1, 3);
    const Tensor b = Random(dtype, transposeB ? TensorShape{n, k} : TensorShape{k, n}, -1, 1, 5);
    const auto node =
        MakeNode("mm", "MatMul", {"a", "b"},
                 {{"T", AttrOf(dtype)}, {"transpose_a", AttrOf(transposeA)}, {"transpose_b", AttrOf(transposeB)}});
    const Tensor want = Reference(node, {a, b}, [&] {
      Tensor c(dtype, TensorShape{m, n});
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
          double sum = 0;
          for (int p = 0; p < k; ++p)
            sum += At(a, transposeA ? p * m + i : i * k + p) * At(b, transposeB ? j * k + p : p * n + j);
          Set(c, i * n + j, sum);
        }
      return c;
    });
    // Sums of k products of values in [-1, 1]: rounding grows with k and summation order.
    const double eps = dtype == DT_FLOAT ? 1e-6 : 1e-15;
    Compare(node, {a, b}, want, 8 * eps, 8 * eps * (k + 1));
  }

  void matMulOfTheSeedProgramIsExact() {
    const auto node = MakeNode("MatMul", "MatMul", {"x", "w"}, {{"T", AttrOf(DT_FLOAT)}});
    auto out = RunOnGpu(node, {Tensor::Matrix<float>({{1, 2, 3, 4}}), Tensor::Matrix<float>({{2}, {2}, {2}, {2}})});
    QVERIFY2(out.ok(), qPrintable(Q(out.status())));
    QVERIFY((*out)[0].Equals(Tensor::Matrix<float>({{20}})));
  }

  void matMulRejectsMismatchedShapes() {
    const auto node = MakeNode("mm", "MatMul", {"a", "b"}, {{"T", AttrOf(DT_FLOAT)}});
    auto out = RunOnGpu(node, {Random(DT_FLOAT, {2, 3}, 0, 1, 1), Random(DT_FLOAT, {4, 5}, 0, 1, 2)});
    QCOMPARE(out.status().code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(std::string(out.status().message()).find("Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]") !=
                 std::string::npos,
             std::string(out.status().message()).c_str());
    auto vector = RunOnGpu(node, {Random(DT_FLOAT, {3}, 0, 1, 1), Random(DT_FLOAT, {3, 1}, 0, 1, 2)});
    QCOMPARE(vector.status().code(), absl::StatusCode::kInvalidArgument);
  }

  void constIsCopiedToTheDeviceOnce() {
    const Tensor value = Tensor::Matrix<double>({{1.5, -2}, {3, 4.25}});
    const auto node = MakeNode("c", "Const", {}, {{"dtype", AttrOf(DT_DOUBLE)}, {"value", AttrOf(value)}});
    auto out = RunOnGpu(node, {});
    QVERIFY2(out.ok(), qPrintable(Q(out.status())));
    QVERIFY((*out)[0].Equals(value));
  }

  void identityForwardsDeviceBuffers() {
    const auto node = MakeNode("id", "Identity", {"x"}, {{"T", AttrOf(DT_FLOAT)}});
    Tensor on_gpu;
    QVERIFY(gpu_->CopyHostToDevice(Tensor::Vector<float>({1, 2, 3}), &on_gpu).ok());
    auto out = RunKernel(node, {on_gpu}, gpu_);
    QVERIFY2(out.ok(), qPrintable(Q(out.status())));
    QVERIFY((*out)[0].SharesBufferWith(on_gpu));
  }

  void hostInputsAreCopiedToTheDevice() {
    // A fed tensor may reach a GPU kernel in host memory; the kernel must not hand that
    // pointer to CUDA.
    const auto add = MakeNode("add", "AddV2", {"x", "y"}, {{"T", AttrOf(DT_FLOAT)}});
    auto sum = RunOnGpu(add, {Tensor::Vector<float>({1, 2}), Tensor::Vector<float>({10, 20})}, true);
    QVERIFY2(sum.ok(), qPrintable(Q(sum.status())));
    QVERIFY((*sum)[0].Equals(Tensor::Vector<float>({11, 22})));
    const auto id = MakeNode("id", "Identity", {"x"}, {{"T", AttrOf(DT_FLOAT)}});
    auto same = RunOnGpu(id, {Tensor::Vector<float>({5, 6})}, true);
    QVERIFY2(same.ok(), qPrintable(Q(same.status())));
    QVERIFY((*same)[0].Equals(Tensor::Vector<float>({5, 6})));
  }

  void allocatorReusesFreedBlocks() {
    void* first = nullptr;
    {
      Tensor t(DT_FLOAT, TensorShape{1024, 1024}, gpu_->allocator());
      first = t.raw_data();
    }
    Tensor again(DT_FLOAT, TensorShape{1024, 1024}, gpu_->allocator());
    QCOMPARE(again.raw_data(), first);
  }

  void sessionRunsTheSeedMatMulOnTheGpu() {
    GraphBuilder g;
    auto x = ops::Const(g, Tensor::Matrix<float>({{1, 2, 3, 4}}), "x");
    auto w = ops::Const(g, Tensor::Matrix<float>({{2}, {2}, {2}, {2}}), "w");
    {
      auto scope = g.WithDevice("/gpu:0");
      ops::Relu(g, ops::MatMul(g, x, w), "y");
    }
    QVERIFY2(g.status().ok(), qPrintable(Q(g.status())));
    SessionOptions options;
    options.config.set_log_device_placement(true);
    auto session = NewDirectSession(options);
    QVERIFY2(session.ok(), qPrintable(Q(session.status())));
    QVERIFY((*session)->Create(g.graph_def()).ok());
    std::vector<Tensor> out;
    const Status status = (*session)->Run({}, {"y:0"}, {}, &out);
    QVERIFY2(status.ok(), qPrintable(Q(status)));
    QVERIFY(out[0].OnHost());
    QVERIFY(out[0].Equals(Tensor::Matrix<float>({{20}})));
  }
};

QTEST_APPLESS_MAIN(GpuKernelsTest)
#include "tst_gpu_kernels.moc"
