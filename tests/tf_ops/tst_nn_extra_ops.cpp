// Ops whose results are random or written as protocol buffers, run in a session:
// Multinomial (the draws follow softmax(logits) for a fixed seed, the same again for the same
// seeds, never a class of probability 0), RandomShuffle (a permutation of the rows),
// CountUpTo (the values before each increment, then OUT_OF_RANGE at the limit),
// HistogramSummary (the Summary's statistics and buckets hold every value once) and
// ImageSummary (tags as TensorFlow names them; each PNG is read back here with zlib's
// inflate, its chunks' CRCs checked, and its pixels compared with the scaling rules).
#include "StatusText.h"
#include "clab/graph/AttrValues.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/ops/Ops.h"
#include "clab/runtime/Session.h"
#include "tensorflow/summary.pb.h"

#include <zlib.h>
#include <QtTest/QtTest>

#include <cfloat>
#include <cmath>
#include <limits>
#include <map>
#include <set>

using namespace clab;
using clab::testing::StatusText;

namespace {

using AttrMap = std::map<std::string, tensorflow::AttrValue>;

std::vector<Tensor> RunGraph(const GraphBuilder& g, const std::vector<std::string>& fetches, Status* status) {
  auto session = NewSession(SessionOptions());
  std::vector<Tensor> out;
  *status = (*session)->Create(g.graph_def());
  if (status->ok()) *status = (*session)->Run({}, fetches, {}, &out);
  return out;
}

uint32_t BigEndian32(const std::string& s, size_t at) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(s[at + i]);
  return v;
}

struct DecodedPng {
  uint32_t width = 0, height = 0;
  int colour_type = -1;
  std::vector<uint8_t> pixels;  // row-major, filter bytes removed
  std::string error;
};

// Reads a PNG of 8-bit samples written without row filters (filter type 0 on every row):
// the signature, each chunk's CRC, IHDR, and the inflated IDAT data.
DecodedPng DecodePng(const std::string& png) {
  DecodedPng out;
  if (png.size() < 8 || png.compare(0, 8, std::string("\x89PNG\r\n\x1a\n", 8)) != 0) {
    out.error = "no PNG signature";
    return out;
  }
  std::string idat;
  size_t at = 8;
  bool ended = false;
  while (at + 12 <= png.size() && !ended) {
    const uint32_t length = BigEndian32(png, at);
    const std::string type = png.substr(at + 4, 4);
    if (at + 12 + length > png.size()) {
      out.error = "chunk " + type + " runs past the end";
      return out;
    }
    const std::string data = png.substr(at + 8, length);
    const uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(png.data() + at + 4), length + 4);
    if (crc != BigEndian32(png, at + 8 + length)) {
      out.error = "bad CRC in chunk " + type;
      return out;
    }
    if (type == "IHDR") {
      out.width = BigEndian32(data, 0);
      out.height = BigEndian32(data, 4);
      if (data[8] != 8) out.error = "bit depth is not 8";
      out.colour_type = data[9];
    } else if (type == "IDAT") {
      idat += data;
    } else if (type == "IEND") {
      ended = true;
    }
    at += 12 + length;
  }
  if (!ended) out.error = "no IEND chunk";
  const int channels = out.colour_type == 0 ? 1 : out.colour_type == 4 ? 2 : out.colour_type == 2 ? 3 : 4;
  const size_t row = out.width * static_cast<size_t>(channels);
  std::vector<uint8_t> raw((row + 1) * out.height);
  uLongf raw_size = raw.size();
  if (uncompress(raw.data(), &raw_size, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) != Z_OK ||
      raw_size != raw.size()) {
    out.error = "IDAT does not inflate to the image's size";
    return out;
  }
  for (uint32_t y = 0; y < out.height; ++y) {
    if (raw[y * (row + 1)] != 0) out.error = "a row uses a filter";
    out.pixels.insert(out.pixels.end(), raw.begin() + y * (row + 1) + 1, raw.begin() + (y + 1) * (row + 1));
  }
  return out;
}

}  // namespace

class NnExtraOpsTest : public QObject {
  Q_OBJECT

 private slots:
  void multinomialFollowsSoftmax() {
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<std::vector<float>> logits = {{0.0f, 1.0f, 2.0f, -inf}, {3.0f, 0.0f, 0.0f, 0.0f}};
    constexpr int kDraws = 20000;
    auto draw = [&](int64_t seed, DataType out_type, Status* status) {
      GraphBuilder g;
      g.AddNode("Multinomial",
                {ops::Const(g, Tensor::Matrix<float>(logits)), ops::Const(g, Tensor::Scalar<int32_t>(kDraws))},
                {{"seed", AttrOf(seed)}, {"seed2", AttrOf(int64_t{11})}, {"output_dtype", AttrOf(out_type)}}, "draws");
      return RunGraph(g, {"draws"}, status);
    };
    Status status;
    const std::vector<Tensor> first = draw(7, DT_INT64, &status);
    QVERIFY2(status.ok(), StatusText(status));
    QCOMPARE(first[0].shape(), TensorShape({2, kDraws}));
    // The same seeds give the same draws in a new session; other seeds others.
    QVERIFY(draw(7, DT_INT64, &status)[0].Equals(first[0]));
    QVERIFY(!draw(8, DT_INT64, &status)[0].Equals(first[0]));
    const std::vector<Tensor> as_int32 = draw(7, DT_INT32, &status);
    QVERIFY2(status.ok(), StatusText(status));
    QCOMPARE(as_int32[0].dtype(), DT_INT32);
    for (size_t row = 0; row < logits.size(); ++row) {
      std::vector<double> expected;
      double total = 0;
      for (float l : logits[row]) total += std::isfinite(l) ? std::exp(l) : 0.0;
      for (float l : logits[row]) expected.push_back(std::isfinite(l) ? std::exp(l) / total : 0.0);
      std::vector<int> counts(logits[row].size(), 0);
      for (int s = 0; s < kDraws; ++s) {
        const int64_t c = first[0].data<int64_t>()[row * kDraws + s];
        QVERIFY(c >= 0 && c < static_cast<int64_t>(counts.size()));
        ++counts[static_cast<size_t>(c)];
        QCOMPARE(static_cast<int64_t>(as_int32[0].data<int32_t>()[row * kDraws + s]), c);
      }
      for (size_t c = 0; c < counts.size(); ++c) {
        const double frequency = static_cast<double>(counts[c]) / kDraws;
        // About 6 standard deviations of a frequency from 20000 draws.
        QVERIFY2(
            std::abs(frequency - expected[c]) < 0.02,
            qPrintable(
                QString("row %1 class %2: %3 drawn, %4 expected").arg(row).arg(c).arg(frequency).arg(expected[c])));
      }
      if (row == 0) QCOMPARE(counts[3], 0);  // logit -inf: probability 0
    }
  }

  void multinomialRejectsBadLogits() {
    GraphBuilder g;
    g.AddNode("Multinomial", {ops::Const(g, Tensor::Vector<float>({1, 2})), ops::Const(g, Tensor::Scalar<int32_t>(3))},
              {}, "draws");
    Status status;
    RunGraph(g, {"draws"}, &status);
    QVERIFY(!status.ok());
    QVERIFY2(std::string(status.message()).find("draws") != std::string::npos, StatusText(status));
  }

  void randomShuffleIsAPermutationOfRows() {
    constexpr int kRows = 12;
    std::vector<int32_t> values;
    for (int r = 0; r < kRows; ++r) values.insert(values.end(), {r, 100 + r});
    auto shuffle = [&](Status* status) {
      GraphBuilder g;
      g.AddNode("RandomShuffle", {ops::Const(g, Tensor::FromVector<int32_t>(values, TensorShape({kRows, 2})))},
                {{"seed", AttrOf(int64_t{3})}, {"seed2", AttrOf(int64_t{5})}}, "shuffled");
      g.AddNode("RandomShuffle", {ops::Const(g, Tensor::Scalar<int32_t>(9))}, {}, "scalar");
      return RunGraph(g, {"shuffled", "scalar"}, status);
    };
    Status status;
    const std::vector<Tensor> out = shuffle(&status);
    QVERIFY2(status.ok(), StatusText(status));
    QCOMPARE(out[0].shape(), TensorShape({kRows, 2}));
    std::set<int32_t> rows;
    bool moved = false;
    for (int r = 0; r < kRows; ++r) {
      const int32_t first = out[0].data<int32_t>()[2 * r];
      QCOMPARE(out[0].data<int32_t>()[2 * r + 1], 100 + first);  // rows move whole
      rows.insert(first);
      moved |= first != r;
    }
    QCOMPARE(static_cast<int>(rows.size()), kRows);
    QCOMPARE(*rows.begin(), 0);
    QCOMPARE(*rows.rbegin(), kRows - 1);
    QVERIFY(moved);
    QCOMPARE(out[1].scalar<int32_t>(), 9);
    QVERIFY(shuffle(&status)[0].Equals(out[0]));  // fixed seeds: the same order again
  }

  void countUpToStopsAtTheLimit() {
    GraphBuilder g;
    const Output v = ops::VariableV2(g, PartialShape({}), DT_INT32, "counter");
    ops::Assign(g, v, ops::Const(g, Tensor::Scalar<int32_t>(0)), "init");
    g.AddNode("CountUpTo", {v}, {{"limit", AttrOf(int64_t{3})}}, "count");
    const Output read = g.AddNode("Identity", {v}, {}, "read");
    QVERIFY2(g.status().ok(), StatusText(g.status()));
    auto session = NewSession(SessionOptions());
    QVERIFY((*session)->Create(g.graph_def()).ok());
    std::vector<Tensor> out;
    QVERIFY((*session)->Run({}, {}, {"init"}, &out).ok());
    for (int expected = 0; expected < 3; ++expected) {
      const Status s = (*session)->Run({}, {"count"}, {}, &out);
      QVERIFY2(s.ok(), StatusText(s));
      QCOMPARE(out[0].scalar<int32_t>(), expected);
    }
    const Status s = (*session)->Run({}, {"count"}, {}, &out);
    QCOMPARE(s.code(), absl::StatusCode::kOutOfRange);
    QVERIFY2(std::string(s.message()).find("Reached limit of 3") != std::string::npos, StatusText(s));
    QVERIFY((*session)->Run({}, {read.name()}, {}, &out).ok());
    QCOMPARE(out[0].scalar<int32_t>(), 3);
  }

  void histogramSummaryHoldsEveryValue() {
    const std::vector<float> values = {-1.5f, 0.0f, 0.5f, 2.0f, 2.0f, 1e-13f, 3e5f, -2e-3f};
    GraphBuilder g;
    g.AddNode("HistogramSummary",
              {ops::Const(g, Tensor::Scalar<std::string>("weights")),
               ops::Const(g, Tensor::FromVector<float>(values, TensorShape({2, 4})))},
              {}, "histogram");
    Status status;
    const std::vector<Tensor> out = RunGraph(g, {"histogram"}, &status);
    QVERIFY2(status.ok(), StatusText(status));
    tensorflow::Summary summary;
    QVERIFY(summary.ParseFromString(out[0].scalar<std::string>()));
    QCOMPARE(summary.value_size(), 1);
    QCOMPARE(summary.value(0).tag(), std::string("weights"));
    QVERIFY(summary.value(0).has_histo());
    const tensorflow::HistogramProto& h = summary.value(0).histo();
    double sum = 0, sum_squares = 0;
    for (float v : values) {
      sum += v;
      sum_squares += static_cast<double>(v) * v;
    }
    QCOMPARE(h.min(), -1.5);
    QCOMPARE(h.max(), static_cast<double>(3e5f));
    QCOMPARE(h.num(), static_cast<double>(values.size()));
    QVERIFY(std::abs(h.sum() - sum) < 1e-9 * std::abs(sum));
    QVERIFY(std::abs(h.sum_squares() - sum_squares) < 1e-9 * sum_squares);
    QCOMPARE(h.bucket_size(), h.bucket_limit_size());
    // Buckets cover [previous limit, limit), from -DBL_MAX up; each value lies in exactly one
    // and the counts agree.
    double previous = -DBL_MAX, total = 0;
    for (int i = 0; i < h.bucket_size(); ++i) {
      QVERIFY(h.bucket_limit(i) > previous || i == 0);
      int inside = 0;
      for (float v : values) inside += v >= previous && v < h.bucket_limit(i);
      QCOMPARE(h.bucket(i), static_cast<double>(inside));
      total += h.bucket(i);
      previous = h.bucket_limit(i);
    }
    QCOMPARE(total, static_cast<double>(values.size()));
    QCOMPARE(h.bucket_limit(h.bucket_size() - 1), DBL_MAX);
    // TensorFlow's boundaries: 0.5 falls below 1e-12 * 1.1^k for the first k where that
    // exceeds it, and the two 2.0s share the bucket ending at the first such limit above 2.
    double limit_of_half = 1e-12;
    while (limit_of_half <= 0.5) limit_of_half *= 1.1;
    bool found = false;
    for (int i = 0; i < h.bucket_size(); ++i)
      if (h.bucket(i) == 1 && std::abs(h.bucket_limit(i) - limit_of_half) < 1e-12 * limit_of_half) found = true;
    QVERIFY(found);

    GraphBuilder bad;
    bad.AddNode("HistogramSummary",
                {ops::Const(bad, Tensor::Scalar<std::string>("w")),
                 ops::Const(bad, Tensor::Vector<float>({1.0f, std::nanf("")}))},
                {}, "histogram");
    RunGraph(bad, {"histogram"}, &status);
    QCOMPARE(status.code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(std::string(status.message()).find("Nan in summary histogram for: histogram") != std::string::npos,
             StatusText(status));
  }

  void imageSummaryWritesPngs() {
    // Three 2x3 RGB images; max_images 2 keeps the first two.
    const float nan = std::nanf("");
    std::vector<float> pixels = {// image 0: all >= 0, max 4: scaled by 255 / 4
                                 0, 1, 2, 3, 4, 0.5f, 1, 1, 1, 2, 2, 2, 4, 4, 4, 0, 0, 0,
                                 // image 1: negatives: 128 + v * 127 / 2; one pixel with a NaN gets bad_color
                                 -2, 0, 2, 1, -1, 0.5f, nan, 0, 0, 0, 0, 0, 2, 2, 2, -2, -2, -2,
                                 // image 2: not written
                                 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};
    GraphBuilder g;
    g.AddNode("ImageSummary",
              {ops::Const(g, Tensor::Scalar<std::string>("input")),
               ops::Const(g, Tensor::FromVector<float>(pixels, TensorShape({3, 2, 3, 3})))},
              {{"max_images", AttrOf(int64_t{2})}}, "images");
    std::vector<uint8_t> grey = {0, 10, 20, 30, 40, 50, 60, 70};
    g.AddNode("ImageSummary",
              {ops::Const(g, Tensor::Scalar<std::string>("grey")),
               ops::Const(g, Tensor::FromVector<uint8_t>(grey, TensorShape({1, 2, 4, 1})))},
              {{"max_images", AttrOf(int64_t{1})}}, "grey_images");
    Status status;
    const std::vector<Tensor> out = RunGraph(g, {"images", "grey_images"}, &status);
    QVERIFY2(status.ok(), StatusText(status));

    tensorflow::Summary summary;
    QVERIFY(summary.ParseFromString(out[0].scalar<std::string>()));
    QCOMPARE(summary.value_size(), 2);
    auto expected_byte = [&](int image, int at) -> int {
      const float v = pixels[static_cast<size_t>(image * 18 + at)];
      if (image == 0) return static_cast<int>(v * (255.0f / 4.0f));
      const int pixel = at / 3;
      if (pixel == 2) return at % 3 == 0 ? 255 : 0;  // bad_color (255, 0, 0, 255)
      return static_cast<int>(v * (127.0f / 2.0f) + 128.0f);
    };
    for (int i = 0; i < 2; ++i) {
      const auto& value = summary.value(i);
      QCOMPARE(value.tag(), "input/image/" + std::to_string(i));
      QVERIFY(value.has_image());
      QCOMPARE(value.image().height(), 2);
      QCOMPARE(value.image().width(), 3);
      QCOMPARE(value.image().colorspace(), 3);
      const DecodedPng png = DecodePng(value.image().encoded_image_string());
      QVERIFY2(png.error.empty(), png.error.c_str());
      QCOMPARE(png.width, 3u);
      QCOMPARE(png.height, 2u);
      QCOMPARE(png.colour_type, 2);  // RGB
      QCOMPARE(png.pixels.size(), size_t{18});
      for (int at = 0; at < 18; ++at)
        QVERIFY2(png.pixels[static_cast<size_t>(at)] == expected_byte(i, at),
                 qPrintable(QString("image %1 byte %2: %3, expected %4")
                                .arg(i)
                                .arg(at)
                                .arg(png.pixels[static_cast<size_t>(at)])
                                .arg(expected_byte(i, at))));
    }

    tensorflow::Summary grey_summary;
    QVERIFY(grey_summary.ParseFromString(out[1].scalar<std::string>()));
    QCOMPARE(grey_summary.value_size(), 1);
    QCOMPARE(grey_summary.value(0).tag(), std::string("grey/image"));  // max_images 1: no index
    const DecodedPng png = DecodePng(grey_summary.value(0).image().encoded_image_string());
    QVERIFY2(png.error.empty(), png.error.c_str());
    QCOMPARE(png.colour_type, 0);
    QCOMPARE(png.pixels, grey);  // uint8 images are written unchanged
  }

  void imageSummaryRejectsBadShapes() {
    GraphBuilder g;
    g.AddNode("ImageSummary",
              {ops::Const(g, Tensor::Scalar<std::string>("x")),
               ops::Const(g, Tensor::FromVector<float>(std::vector<float>(8, 1.0f), TensorShape({1, 2, 2, 2})))},
              {}, "images");
    Status status;
    RunGraph(g, {"images"}, &status);
    QVERIFY(!status.ok());
    QVERIFY2(std::string(status.message()).find("last dim 1, 3, or 4") != std::string::npos, StatusText(status));
  }
};

QTEST_GUILESS_MAIN(NnExtraOpsTest)
#include "tst_nn_extra_ops.moc"
