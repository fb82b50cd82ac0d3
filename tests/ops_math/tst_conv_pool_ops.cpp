// Conv2D, its two backprops, MaxPool and MaxPoolGrad against hand-computed values and
// against direct loops written out here (every padding, stride and type), the same with and
// without the thread pool; SoftmaxCrossEntropyWithLogits, LogSoftmax and Shape; the shape
// functions, and the errors that name the node and the shapes.
#include "MathTestUtil.h"

Q_DECLARE_METATYPE(tensorflow::AttrValue)

using namespace clab;
using namespace clab::testing;

namespace {

using AttrMap = std::map<std::string, tensorflow::AttrValue>;

tensorflow::NodeDef ConvNode(const std::string& op, DataType type, std::vector<int64_t> strides,
                             const std::string& padding, AttrMap extra = {}) {
  std::vector<std::string> inputs =
      op == "Conv2D" ? std::vector<std::string>{"input", "filter"} : std::vector<std::string>{"a", "b", "out_backprop"};
  AttrMap attrs = {{"T", AttrOf(type)}, {"strides", AttrOf(strides)}, {"padding", AttrOf(padding)}};
  for (auto& [key, value] : extra) attrs[key] = value;
  return MakeNode("c", op, inputs, attrs);
}

tensorflow::NodeDef PoolNode(const std::string& op, DataType type, std::vector<int64_t> ksize,
                             std::vector<int64_t> strides, const std::string& padding, AttrMap extra = {}) {
  std::vector<std::string> inputs =
      op == "MaxPool" ? std::vector<std::string>{"x"} : std::vector<std::string>{"x", "y", "grad"};
  AttrMap attrs = {
      {"T", AttrOf(type)}, {"ksize", AttrOf(ksize)}, {"strides", AttrOf(strides)}, {"padding", AttrOf(padding)}};
  for (auto& [key, value] : extra) attrs[key] = value;
  return MakeNode("p", op, inputs, attrs);
}

Tensor Sizes(const TensorShape& shape) {
  std::vector<int32_t> dims(shape.dims().begin(), shape.dims().end());
  return Tensor::Vector<int32_t>(dims);
}

// Output size and leading padding of one dimension, written out from the definitions.
void Window(int64_t in, int64_t k, int64_t s, bool same, int64_t* out, int64_t* pad) {
  *out = same ? (in + s - 1) / s : (in - k) / s + 1;
  *pad = same ? std::max<int64_t>(0, (*out - 1) * s + k - in) / 2 : 0;
}

// The convolution and both its gradients by direct loops over every (output, tap) pair.
struct DirectConv {
  Tensor output, d_input, d_filter;
};
DirectConv Convolve(const Tensor& x, const Tensor& f, const Tensor* d_out, int64_t s, bool same) {
  const int64_t n = x.shape().dim(0), h = x.shape().dim(1), w = x.shape().dim(2), ci = x.shape().dim(3);
  const int64_t kh = f.shape().dim(0), kw = f.shape().dim(1), co = f.shape().dim(3);
  int64_t oh, ow, pt, pl;
  Window(h, kh, s, same, &oh, &pt);
  Window(w, kw, s, same, &ow, &pl);
  DirectConv r{Tensor(DT_DOUBLE, TensorShape({n, oh, ow, co})), Tensor(DT_DOUBLE, x.shape()),
               Tensor(DT_DOUBLE, f.shape())};
  for (Tensor* t : {&r.output, &r.d_input, &r.d_filter}) std::fill_n(t->data<double>(), t->NumElements(), 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox)
        for (int64_t ky = 0; ky < kh; ++ky)
          for (int64_t kx = 0; kx < kw; ++kx) {
            const int64_t iy = oy * s - pt + ky, ix = ox * s - pl + kx;
            if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
            for (int64_t c = 0; c < ci; ++c)
              for (int64_t o = 0; o < co; ++o) {
                const int64_t xi = ((b * h + iy) * w + ix) * ci + c, fi = ((ky * kw + kx) * ci + c) * co + o;
                const int64_t yi = ((b * oh + oy) * ow + ox) * co + o;
                r.output.data<double>()[yi] += x.data<double>()[xi] * f.data<double>()[fi];
                if (d_out == nullptr) continue;
                r.d_input.data<double>()[xi] += d_out->data<double>()[yi] * f.data<double>()[fi];
                r.d_filter.data<double>()[fi] += d_out->data<double>()[yi] * x.data<double>()[xi];
              }
          }
  return r;
}

QString ShapeError(const tensorflow::NodeDef& node, std::vector<PartialShape> inputs) {
  auto shapes = InferShapes(node, std::move(inputs));
  return shapes.ok() ? QString("no error") : Q(shapes.status());
}

QString KernelError(const tensorflow::NodeDef& node, const std::vector<Tensor>& inputs) {
  auto out = RunKernel(node, inputs);
  return out.ok() ? QString("no error") : Q(out.status());
}

#define EXPECT_CONTAINS(text, part) \
  QVERIFY2((text).contains(part), qPrintable(QString("'%1' does not contain '%2'").arg(text, part)))

}  // namespace

class ConvPoolOpsTest : public QObject {
  Q_OBJECT

 private slots:
  void conv2DHandComputed() {
    // 1..9 in a 3x3 image, a 2x2 filter of ones: each output sums a 2x2 window. SAME pads
    // one row and column after the image (the smaller half, 0, goes before).
    const Tensor image = Tensor::Vector<float>({1, 2, 3, 4, 5, 6, 7, 8, 9}).Reshaped(TensorShape({1, 3, 3, 1})).value();
    const Tensor ones = Tensor::Vector<float>({1, 1, 1, 1}).Reshaped(TensorShape({2, 2, 1, 1})).value();
    EXPECT_TENSOR(RunOne(ConvNode("Conv2D", DT_FLOAT, {1, 1, 1, 1}, "VALID"), {image, ones}),
                  Tensor::Vector<float>({12, 16, 24, 28}).Reshaped(TensorShape({1, 2, 2, 1})).value());
    EXPECT_TENSOR(
        RunOne(ConvNode("Conv2D", DT_FLOAT, {1, 1, 1, 1}, "SAME"), {image, ones}),
        Tensor::Vector<float>({12, 16, 9, 24, 28, 15, 15, 17, 9}).Reshaped(TensorShape({1, 3, 3, 1})).value());
    EXPECT_TENSOR(RunOne(ConvNode("Conv2D", DT_FLOAT, {1, 2, 2, 1}, "SAME"), {image, ones}),
                  Tensor::Vector<float>({12, 9, 15, 9}).Reshaped(TensorShape({1, 2, 2, 1})).value());
  }

  void conv2DMatchesDirectLoops_data() {
    // clang-format off
    QTest::addColumn<TensorShape>("input");
    QTest::addColumn<TensorShape>("filter");
    QTest::addColumn<int>("stride");
    QTest::addColumn<bool>("same");
    QTest::newRow("VALID 3x3") << TensorShape({2, 6, 5, 3}) << TensorShape({3, 3, 3, 4}) << 1 << false;
    QTest::newRow("SAME 3x3") << TensorShape({2, 6, 5, 3}) << TensorShape({3, 3, 3, 4}) << 1 << true;
    QTest::newRow("VALID stride 2") << TensorShape({3, 7, 8, 2}) << TensorShape({3, 2, 2, 5}) << 2 << false;
    QTest::newRow("SAME stride 2") << TensorShape({3, 7, 8, 2}) << TensorShape({3, 2, 2, 5}) << 2 << true;
    QTest::newRow("SAME 4x4 stride 3") << TensorShape({1, 9, 10, 1}) << TensorShape({4, 4, 1, 2}) << 3 << true;
    QTest::newRow("1x1") << TensorShape({2, 3, 3, 4}) << TensorShape({1, 1, 4, 3}) << 1 << false;
    // Large enough to be split across the pool and into several image groups.
    QTest::newRow("large batch") << TensorShape({300, 12, 12, 3}) << TensorShape({3, 3, 3, 8}) << 1 << true;
    // clang-format on
  }
  void conv2DMatchesDirectLoops() {
    QFETCH(TensorShape, input);
    QFETCH(TensorShape, filter);
    QFETCH(int, stride);
    QFETCH(bool, same);
    const Tensor x = TestData(input, -2, 2, 1), f = TestData(filter, -1, 1, 2);
    const DirectConv shapes_only = Convolve(x, f, nullptr, stride, same);
    const Tensor d_out = TestData(shapes_only.output.shape(), -1, 1, 3);
    const DirectConv want = Convolve(x, f, &d_out, stride, same);
    const std::vector<int64_t> strides = {1, stride, stride, 1};
    const std::string padding = same ? "SAME" : "VALID";
    for (Device* device : {static_cast<Device*>(nullptr), SingleThreadedDevice()}) {
      EXPECT_CLOSE(RunOne(ConvNode("Conv2D", DT_DOUBLE, strides, padding), {x, f}, device), want.output, 1e-12, 1e-12);
      EXPECT_CLOSE(
          RunOne(ConvNode("Conv2DBackpropInput", DT_DOUBLE, strides, padding), {Sizes(input), f, d_out}, device),
          want.d_input, 1e-12, 1e-12);
      EXPECT_CLOSE(
          RunOne(ConvNode("Conv2DBackpropFilter", DT_DOUBLE, strides, padding), {x, Sizes(filter), d_out}, device),
          want.d_filter, 1e-12, 1e-11);
    }
    // float: the same within float's precision, and identical with or without threads.
    const Tensor xf = CastTensor<float, double>(x), ff = CastTensor<float, double>(f);
    const Tensor pooled = RunOne(ConvNode("Conv2D", DT_FLOAT, strides, padding), {xf, ff});
    const Tensor want_f = CastTensor<float, double>(want.output);
    EXPECT_CLOSE(pooled, want_f, 1e-4, 1e-4);
    EXPECT_TENSOR(pooled, RunOne(ConvNode("Conv2D", DT_FLOAT, strides, padding), {xf, ff}, SingleThreadedDevice()));
    const Tensor d_out_f = CastTensor<float, double>(d_out);
    const Tensor d_filter =
        RunOne(ConvNode("Conv2DBackpropFilter", DT_FLOAT, strides, padding), {xf, Sizes(filter), d_out_f});
    EXPECT_TENSOR(d_filter, RunOne(ConvNode("Conv2DBackpropFilter", DT_FLOAT, strides, padding),
                                   {xf, Sizes(filter), d_out_f}, SingleThreadedDevice()));
  }

  void conv2DExplicitPaddingMatchesSame() {
    // One row and column of zeros on every side around a 3x3 filter is SAME padding.
    const Tensor x = TestData(TensorShape({2, 5, 6, 2}), -1, 1, 4), f = TestData(TensorShape({3, 3, 2, 3}), -1, 1, 5);
    const AttrMap explicit_pads = {{"explicit_paddings", AttrOf(std::vector<int64_t>{0, 0, 1, 1, 1, 1, 0, 0})}};
    EXPECT_CLOSE(RunOne(ConvNode("Conv2D", DT_DOUBLE, {1, 1, 1, 1}, "EXPLICIT", explicit_pads), {x, f}),
                 RunOne(ConvNode("Conv2D", DT_DOUBLE, {1, 1, 1, 1}, "SAME"), {x, f}), 1e-15, 1e-15);
  }

  void conv2DErrorsNameTheNodeAndShapes() {
    const Tensor x = TestData(TensorShape({1, 5, 5, 3}), -1, 1), f = TestData(TensorShape({3, 3, 2, 4}), -1, 1);
    const QString depth = KernelError(ConvNode("Conv2D", DT_DOUBLE, {1, 1, 1, 1}, "SAME"), {x, f});
    EXPECT_CONTAINS(depth,
                    "INVALID_ARGUMENT: Conv2D: input depth 3 does not match the filter's in_channels 2: "
                    "input [1,5,5,3], filter [3,3,2,4]");
    EXPECT_CONTAINS(depth, "{{node c}}");
    const QString rank =
        KernelError(ConvNode("Conv2D", DT_DOUBLE, {1, 1, 1, 1}, "SAME"), {TestData(TensorShape({5, 5, 3}), -1, 1), f});
    EXPECT_CONTAINS(rank, "input must be 4-dimensional (NHWC), got shape [5,5,3]");
    const QString small = KernelError(ConvNode("Conv2D", DT_DOUBLE, {1, 1, 1, 1}, "VALID"),
                                      {TestData(TensorShape({1, 1, 1, 2}), -1, 1), f});
    EXPECT_CONTAINS(small,
                    "Computed output size would be negative: -1 [input_size: 1, effective_filter_size: 3, stride: 1]");
    const QString backprop =
        KernelError(ConvNode("Conv2DBackpropInput", DT_DOUBLE, {1, 1, 1, 1}, "SAME"),
                    {Sizes(TensorShape({1, 5, 5, 2})), f, TestData(TensorShape({1, 4, 4, 4}), -1, 1)});
    EXPECT_CONTAINS(backprop,
                    "out_backprop [1,4,4,4] does not match the output [1,5,5,4] of input [1,5,5,2] "
                    "convolved by filter [3,3,2,4]");

    EXPECT_CONTAINS(ShapeError(ConvNode("Conv2D", DT_FLOAT, {1, 1, 1, 1}, "SAME"),
                               {PartialShape{-1, 5, 5, 3}, PartialShape{3, 3, 2, 4}}),
                    "input depth 3 does not match the filter's in_channels 2 for 'c' (op: 'Conv2D') with input shapes: "
                    "[?,5,5,3], [3,3,2,4].");
    EXPECT_CONTAINS(
        ShapeError(ConvNode("Conv2D", DT_FLOAT, {1, 1, 1, 1}, "SAME"),
                   {PartialShape{5, 5, 3}, PartialShape{3, 3, 3, 4}}),
        "input (NHWC) must be rank 4 but is rank 3 for 'c' (op: 'Conv2D') with input shapes: [5,5,3], [3,3,3,4].");
  }

  void conv2DRejectsWhatItDoesNotSupport_data() {
    // clang-format off
    QTest::addColumn<QString>("attr");
    QTest::addColumn<tensorflow::AttrValue>("value");
    QTest::addColumn<QString>("message");
    QTest::newRow("NCHW") << "data_format" << AttrOf("NCHW")
                          << "data_format 'NCHW' is not supported: the CPU kernels take NHWC images only";
    QTest::newRow("dilations") << "dilations" << AttrOf(std::vector<int64_t>{1, 2, 2, 1})
                               << "dilations other than 1 are not supported, got [1, 2, 2, 1]";
    QTest::newRow("batch stride") << "strides" << AttrOf(std::vector<int64_t>{2, 1, 1, 1})
                                  << "strides in the batch and depth dimensions must be 1, got [2, 1, 1, 1]";
    QTest::newRow("three strides") << "strides" << AttrOf(std::vector<int64_t>{1, 1, 1})
                                   << "strides must specify 4 dimensions (N, H, W, C), got [1, 1, 1]";
    QTest::newRow("explicit without EXPLICIT") << "explicit_paddings" << AttrOf(std::vector<int64_t>{0, 0, 1, 1, 1, 1, 0, 0})
                                               << "explicit_paddings must be empty unless padding is EXPLICIT, got [0, 0, 1, 1, 1, 1, 0, 0]";
    // clang-format on
  }
  void conv2DRejectsWhatItDoesNotSupport() {
    QFETCH(QString, attr);
    QFETCH(tensorflow::AttrValue, value);
    QFETCH(QString, message);
    const tensorflow::NodeDef node = ConvNode("Conv2D", DT_FLOAT, {1, 1, 1, 1}, "SAME", {{attr.toStdString(), value}});
    const QString kernel =
        KernelError(node, {Tensor(DT_FLOAT, TensorShape({1, 4, 4, 1})), Tensor(DT_FLOAT, TensorShape({2, 2, 1, 1}))});
    EXPECT_CONTAINS(kernel, "Node 'c' (op Conv2D): " + message);
    EXPECT_CONTAINS(ShapeError(node, {PartialShape{1, 4, 4, 1}, PartialShape{2, 2, 1, 1}}),
                    message + QString(" for 'c'"));
  }

  void conv2DShapes_data() {
    // clang-format off
    QTest::addColumn<PartialShape>("input");
    QTest::addColumn<PartialShape>("filter");
    QTest::addColumn<int>("stride");
    QTest::addColumn<QString>("padding");
    QTest::addColumn<PartialShape>("out");
    QTest::newRow("digits") << PartialShape{-1, 8, 8, 1} << PartialShape{3, 3, 1, 16} << 1 << "SAME" << PartialShape{-1, 8, 8, 16};
    QTest::newRow("VALID stride 2") << PartialShape{2, 7, 7, 3} << PartialShape{3, 3, 3, 4} << 2 << "VALID" << PartialShape{2, 3, 3, 4};
    QTest::newRow("SAME stride 2") << PartialShape{2, 7, 7, 3} << PartialShape{3, 3, 3, 4} << 2 << "SAME" << PartialShape{2, 4, 4, 4};
    QTest::newRow("unknown width") << PartialShape{2, 7, -1, 3} << PartialShape{3, 3, 3, 4} << 1 << "VALID" << PartialShape{2, 5, -1, 4};
    QTest::newRow("unknown filter") << PartialShape{2, 7, 7, 3} << PartialShape() << 1 << "SAME" << PartialShape{2, -1, -1, -1};
    // clang-format on
  }
  void conv2DShapes() {
    QFETCH(PartialShape, input);
    QFETCH(PartialShape, filter);
    QFETCH(int, stride);
    QFETCH(QString, padding);
    QFETCH(PartialShape, out);
    QCOMPARE(OutputShape(ConvNode("Conv2D", DT_FLOAT, {1, stride, stride, 1}, padding.toStdString()), {input, filter}),
             out);
  }

  void backpropShapesComeFromTheSizes() {
    const Tensor sizes = Sizes(TensorShape({5, 8, 8, 1}));
    QCOMPARE(OutputShape(ConvNode("Conv2DBackpropInput", DT_FLOAT, {1, 1, 1, 1}, "SAME"),
                         {PartialShape{4}, PartialShape{3, 3, 1, 16}, PartialShape{-1, 8, 8, 16}}, {&sizes}),
             PartialShape({5, 8, 8, 1}));
    QCOMPARE(OutputShape(ConvNode("Conv2DBackpropInput", DT_FLOAT, {1, 1, 1, 1}, "SAME"),
                         {PartialShape{4}, PartialShape{3, 3, 1, 16}, PartialShape{-1, 8, 8, 16}}),
             PartialShape::UnknownOfRank(4));
    const Tensor filter_sizes = Sizes(TensorShape({3, 3, 1, 16}));
    QCOMPARE(OutputShape(ConvNode("Conv2DBackpropFilter", DT_FLOAT, {1, 1, 1, 1}, "SAME"),
                         {PartialShape{-1, 8, 8, 1}, PartialShape{4}, PartialShape{-1, 8, 8, 16}},
                         {nullptr, &filter_sizes}),
             PartialShape({3, 3, 1, 16}));
  }

  void maxPoolHandComputed() {
    // 0..15 in a 4x4 image: 2x2 windows, stride 2, keep the bottom-right of each.
    std::vector<float> values(16);
    for (int i = 0; i < 16; ++i) values[static_cast<size_t>(i)] = static_cast<float>(i);
    const Tensor image = Tensor::Vector<float>(values).Reshaped(TensorShape({1, 4, 4, 1})).value();
    EXPECT_TENSOR(RunOne(PoolNode("MaxPool", DT_FLOAT, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"), {image}),
                  Tensor::Vector<float>({5, 7, 13, 15}).Reshaped(TensorShape({1, 2, 2, 1})).value());
    // 3x3 windows, stride 2, SAME on 4x4: the padding (after the image) never wins, even
    // against negative values.
    const Tensor negative =
        Tensor::Vector<float>({-1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12, -13, -14, -15, -16})
            .Reshaped(TensorShape({1, 4, 4, 1}))
            .value();
    EXPECT_TENSOR(RunOne(PoolNode("MaxPool", DT_FLOAT, {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME"), {negative}),
                  Tensor::Vector<float>({-1, -3, -9, -11}).Reshaped(TensorShape({1, 2, 2, 1})).value());
  }

  void maxPoolGradGoesToTheFirstMaximum() {
    // Two channels: channel 0 is constant (every window ties: the top-left element takes
    // the gradient), channel 1 has its maximum at the bottom-right of each window.
    std::vector<double> values;
    for (int i = 0; i < 16; ++i) {
      values.push_back(7.0);
      values.push_back(static_cast<double>(i));
    }
    const Tensor image = Tensor::Vector<double>(values).Reshaped(TensorShape({1, 4, 4, 2})).value();
    const tensorflow::NodeDef pool = PoolNode("MaxPool", DT_DOUBLE, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
    const Tensor pooled = RunOne(pool, {image});
    const Tensor grad =
        Tensor::Vector<double>({1, 10, 2, 20, 3, 30, 4, 40}).Reshaped(TensorShape({1, 2, 2, 2})).value();
    const Tensor d =
        RunOne(PoolNode("MaxPoolGrad", DT_DOUBLE, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"), {image, pooled, grad});
    std::vector<double> want(32, 0.0);
    auto at = [](int y, int x, int c) { return static_cast<size_t>((y * 4 + x) * 2 + c); };
    want[at(0, 0, 0)] = 1, want[at(0, 2, 0)] = 2, want[at(2, 0, 0)] = 3, want[at(2, 2, 0)] = 4;
    want[at(1, 1, 1)] = 10, want[at(1, 3, 1)] = 20, want[at(3, 1, 1)] = 30, want[at(3, 3, 1)] = 40;
    EXPECT_TENSOR(d, Tensor::Vector<double>(want).Reshaped(TensorShape({1, 4, 4, 2})).value());
  }

  void maxPoolGradSumsOverlappingWindows() {
    // 3x3 windows with stride 1 on a 1-D ramp: the largest element is every window's max.
    const Tensor image = Tensor::Vector<float>({1, 2, 3, 4}).Reshaped(TensorShape({1, 1, 4, 1})).value();
    const tensorflow::NodeDef pool = PoolNode("MaxPool", DT_FLOAT, {1, 1, 3, 1}, {1, 1, 1, 1}, "SAME");
    const Tensor pooled = RunOne(pool, {image});
    EXPECT_TENSOR(pooled, Tensor::Vector<float>({2, 3, 4, 4}).Reshaped(TensorShape({1, 1, 4, 1})).value());
    const Tensor grad = Tensor::Vector<float>({1, 1, 1, 1}).Reshaped(TensorShape({1, 1, 4, 1})).value();
    EXPECT_TENSOR(RunOne(PoolNode("MaxPoolGrad", DT_FLOAT, {1, 1, 3, 1}, {1, 1, 1, 1}, "SAME"), {image, pooled, grad}),
                  Tensor::Vector<float>({0, 1, 1, 2}).Reshaped(TensorShape({1, 1, 4, 1})).value());
  }

  void maxPoolLargeMatchesSingleThreaded() {
    const Tensor x = CastTensor<float, double>(TestData(TensorShape({200, 16, 16, 8}), -1, 1, 9));
    const tensorflow::NodeDef pool = PoolNode("MaxPool", DT_FLOAT, {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME");
    const Tensor pooled = RunOne(pool, {x});
    EXPECT_TENSOR(pooled, RunOne(pool, {x}, SingleThreadedDevice()));
    const Tensor grad = CastTensor<float, double>(TestData(pooled.shape(), -1, 1, 10));
    const tensorflow::NodeDef backprop = PoolNode("MaxPoolGrad", DT_FLOAT, {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME");
    EXPECT_TENSOR(RunOne(backprop, {x, pooled, grad}), RunOne(backprop, {x, pooled, grad}, SingleThreadedDevice()));
  }

  void maxPoolShapesAndErrors() {
    QCOMPARE(
        OutputShape(PoolNode("MaxPool", DT_FLOAT, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"), {PartialShape{-1, 8, 8, 16}}),
        PartialShape({-1, 4, 4, 16}));
    QCOMPARE(OutputShape(PoolNode("MaxPool", DT_FLOAT, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME"), {PartialShape{3, 5, 5, 2}}),
             PartialShape({3, 3, 3, 2}));
    EXPECT_CONTAINS(
        ShapeError(PoolNode("MaxPool", DT_FLOAT, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"), {PartialShape{8, 8}}),
        "input (NHWC) must be rank 4 but is rank 2 for 'p' (op: 'MaxPool') with input shapes: [8,8].");
    EXPECT_CONTAINS(
        ShapeError(PoolNode("MaxPool", DT_FLOAT, {2, 2, 2, 1}, {1, 2, 2, 1}, "VALID"), {PartialShape{1, 8, 8, 1}}),
        "pooling over the batch or depth dimension is not supported: ksize [2, 2, 2, 1]");
    EXPECT_CONTAINS(KernelError(PoolNode("MaxPool", DT_FLOAT, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID",
                                         {{"data_format", AttrOf("NCHW")}}),
                                {Tensor(DT_FLOAT, TensorShape({1, 1, 4, 4}))}),
                    "Node 'p' (op MaxPool): data_format 'NCHW' is not supported");
    const Tensor x(DT_FLOAT, TensorShape({1, 4, 4, 1}));
    EXPECT_CONTAINS(
        KernelError(PoolNode("MaxPoolGrad", DT_FLOAT, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"),
                    {x, Tensor(DT_FLOAT, TensorShape({1, 2, 2, 1})), Tensor(DT_FLOAT, TensorShape({1, 3, 3, 1}))}),
        "MaxPoolGrad: grad [1,3,3,1] does not match the output [1,2,2,1] of pooling orig_input [1,4,4,1]");
  }

  void softmaxCrossEntropyWithLogits() {
    // softmax([0, ln 3]) = [1/4, 3/4]; labels [1/2, 1/2]: loss -(ln 1/4 + ln 3/4) / 2.
    const Tensor logits = Tensor::Matrix<double>({{0, std::log(3.0)}, {5, 5}});
    const Tensor labels = Tensor::Matrix<double>({{0.5, 0.5}, {1, 0}});
    auto out = RunKernel(BinaryNode("SoftmaxCrossEntropyWithLogits", DT_DOUBLE), {logits, labels});
    QVERIFY2(out.ok(), qPrintable(Q(out.status())));
    EXPECT_CLOSE((*out)[0], Tensor::Vector<double>({-(std::log(0.25) + std::log(0.75)) / 2, std::log(2.0)}), 1e-15, 0);
    EXPECT_CLOSE((*out)[1], Tensor::Matrix<double>({{-0.25, 0.25}, {-0.5, 0.5}}), 1e-15, 1e-16);
    const QString mismatch = KernelError(BinaryNode("SoftmaxCrossEntropyWithLogits", DT_DOUBLE),
                                         {logits, Tensor::Matrix<double>({{1, 0, 0}, {0, 1, 0}})});
    EXPECT_CONTAINS(mismatch, "logits_size=[2,2] labels_size=[2,3]");
    EXPECT_CONTAINS(
        ShapeError(BinaryNode("SoftmaxCrossEntropyWithLogits", DT_FLOAT), {PartialShape{-1, 10}, PartialShape{-1, 9}}),
        "logits and labels must be the same size: logits_size=[?,10] labels_size=[?,9] for "
        "'SoftmaxCrossEntropyWithLogits'");
    QCOMPARE(OutputShape(BinaryNode("SoftmaxCrossEntropyWithLogits", DT_FLOAT),
                         {PartialShape{-1, 10}, PartialShape{32, -1}}),
             PartialShape({32}));
  }

  void logSoftmax() {
    const Tensor logits = Tensor::Matrix<double>({{0, std::log(3.0)}, {-1000, 0}});
    EXPECT_CLOSE(RunOne(UnaryNode("LogSoftmax", DT_DOUBLE), {logits}),
                 Tensor::Matrix<double>({{std::log(0.25), std::log(0.75)}, {-1000, 0}}), 1e-15, 1e-15);
  }

  void shapeOp() {
    const Tensor x(DT_FLOAT, TensorShape({2, 3, 4}));
    EXPECT_TENSOR(RunOne(MakeNode("s", "Shape", {"x"}, {{"T", AttrOf(DT_FLOAT)}}), {x}),
                  Tensor::Vector<int32_t>({2, 3, 4}));
    EXPECT_TENSOR(RunOne(MakeNode("s", "Shape", {"x"}, {{"T", AttrOf(DT_FLOAT)}, {"out_type", AttrOf(DT_INT64)}}), {x}),
                  Tensor::Vector<int64_t>({2, 3, 4}));
    QCOMPARE(OutputShape(MakeNode("s", "Shape", {"x"}, {{"T", AttrOf(DT_FLOAT)}}), {PartialShape{-1, 8}}),
             PartialShape({2}));
  }
};

QTEST_APPLESS_MAIN(ConvPoolOpsTest)
#include "tst_conv_pool_ops.moc"
