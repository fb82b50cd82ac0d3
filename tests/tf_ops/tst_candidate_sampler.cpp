// LogUniformCandidateSampler: draws lie in [0, range_max) and follow the log-uniform law
// (frequencies of 40000 seeded draws against (log(c + 2) - log(c + 1)) / log(range_max + 1),
// worked out here); unique draws are distinct and their expected counts all come from one
// number of tries; without unique the expected count is P * num_sampled; fixed seeds repeat.
#include "KernelTestUtil.h"
#include "clab/graph/AttrValues.h"

#include <QtTest/QtTest>

#include <cmath>
#include <set>

using namespace clab;
using namespace clab::testing;

namespace {

tensorflow::NodeDef Sampler(int64_t num_true, int64_t num_sampled, bool unique, int64_t range_max, int64_t seed) {
  return MakeNode("sampler", "LogUniformCandidateSampler", {"true_classes"},
                  {{"num_true", AttrOf(num_true)},
                   {"num_sampled", AttrOf(num_sampled)},
                   {"unique", AttrOf(unique)},
                   {"range_max", AttrOf(range_max)},
                   {"seed", AttrOf(seed)},
                   {"seed2", AttrOf(int64_t{5})}});
}

double LogUniform(int64_t c, int64_t range_max) {
  return (std::log(c + 2.0) - std::log(c + 1.0)) / std::log(range_max + 1.0);
}

}  // namespace

class CandidateSamplerTest : public QObject {
  Q_OBJECT

 private slots:
  void drawsFollowTheLogUniformLaw() {
    const int64_t range_max = 10, n = 40000;
    auto out = RunKernel(Sampler(2, n, false, range_max, 3), {Tensor::Matrix<int64_t>({{0, 9}, {3, 4}})});
    QVERIFY2(out.ok(), std::string(out.status().message()).c_str());
    QCOMPARE((*out)[0].shape(), TensorShape({n}));
    std::vector<int64_t> counts(range_max, 0);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t c = (*out)[0].data<int64_t>()[i];
      QVERIFY(c >= 0 && c < range_max);
      ++counts[static_cast<size_t>(c)];
    }
    for (int64_t c = 0; c < range_max; ++c) {
      const double expected = LogUniform(c, range_max) * n;
      // Five standard deviations of a binomial count.
      QVERIFY2(
          std::abs(counts[static_cast<size_t>(c)] - expected) < 5 * std::sqrt(expected),
          qPrintable(
              QString("class %1: %2 draws, expected %3").arg(c).arg(counts[static_cast<size_t>(c)]).arg(expected)));
    }
    // Without unique: P * num_sampled.
    QCOMPARE((*out)[1].shape(), TensorShape({2, 2}));
    const int64_t true_classes[] = {0, 9, 3, 4};
    for (int i = 0; i < 4; ++i)
      QVERIFY(std::abs((*out)[1].data<float>()[i] - LogUniform(true_classes[i], range_max) * n) <= 1e-3 * n);
  }

  void uniqueDrawsAndTheirExpectedCounts() {
    const int64_t range_max = 20, k = 8;
    auto out = RunKernel(Sampler(1, k, true, range_max, 11), {Tensor::Matrix<int64_t>({{2}, {19}})});
    QVERIFY2(out.ok(), std::string(out.status().message()).c_str());
    const std::set<int64_t> distinct((*out)[0].data<int64_t>(), (*out)[0].data<int64_t>() + k);
    QCOMPARE(static_cast<int64_t>(distinct.size()), k);
    // The number of tries, from the first sampled class's expected count; every other count
    // must follow from the same number.
    const int64_t first = (*out)[0].data<int64_t>()[0];
    const double p = LogUniform(first, range_max);
    const double count = (*out)[2].data<float>()[0];
    const double tries = count == p * k ? k : std::log1p(-count) / std::log1p(-p);
    QVERIFY2(std::abs(tries - std::round(tries)) < 1e-3 && std::round(tries) >= k, qPrintable(QString::number(tries)));
    auto expected = [&](int64_t c) {
      return std::round(tries) == k ? LogUniform(c, range_max) * k
                                    : -std::expm1(std::round(tries) * std::log1p(-LogUniform(c, range_max)));
    };
    for (int64_t i = 0; i < k; ++i)
      QVERIFY(std::abs((*out)[2].data<float>()[i] - expected((*out)[0].data<int64_t>()[i])) < 1e-5);
    QVERIFY(std::abs((*out)[1].data<float>()[0] - expected(2)) < 1e-5);
    QVERIFY(std::abs((*out)[1].data<float>()[1] - expected(19)) < 1e-5);
  }

  void fixedSeedsRepeat() {
    const Tensor classes = Tensor::Matrix<int64_t>({{1}});
    auto a = RunKernel(Sampler(1, 16, false, 1000, 42), {classes});
    auto b = RunKernel(Sampler(1, 16, false, 1000, 42), {classes});
    auto c = RunKernel(Sampler(1, 16, false, 1000, 43), {classes});
    QVERIFY(a.ok() && b.ok() && c.ok());
    QVERIFY((*a)[0].Equals((*b)[0]));
    QVERIFY(!(*a)[0].Equals((*c)[0]));
  }

  void badInputIsRefused() {
    auto too_many = RunKernel(Sampler(1, 30, true, 20, 1), {Tensor::Matrix<int64_t>({{1}})});
    QVERIFY(!too_many.ok());
    QVERIFY2(std::string(too_many.status().message()).find("30 unique classes out of range_max = 20") !=
                 std::string::npos,
             std::string(too_many.status().message()).c_str());
    auto wrong_shape = RunKernel(Sampler(2, 3, false, 20, 1), {Tensor::Matrix<int64_t>({{1}})});
    QVERIFY(!wrong_shape.ok());
    QVERIFY2(std::string(wrong_shape.status().message()).find("num_true = 2") != std::string::npos,
             std::string(wrong_shape.status().message()).c_str());
  }
};

QTEST_GUILESS_MAIN(CandidateSamplerTest)
#include "tst_candidate_sampler.moc"
