// MinibatchDataset in a session: batch shapes (static and run time), deterministic shuffled
// order per seed, shards that split the training split exactly, epochs that visit every
// example once and roll over without a gap, held-out examples kept out, scaling, IDX
// sources, concurrent runs, shared state, and errors that name the node, the file and the
// line.
//
// The generated CSV files carry each example's row number as feature 0, so a minibatch
// says exactly which examples it holds.
#include "StatusText.h"

#include "clab/io/IdxFile.h"
#include "clab/ops/Ops.h"
#include "clab/runtime/Session.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <fstream>
#include <functional>
#include <numeric>
#include <set>
#include <thread>

using namespace clab;
using namespace clab::testing;

namespace {

// Rows: id, id * 10, class (id % 3).
std::string WriteIdCsv(const QTemporaryDir& dir, int rows, const std::string& name = "ids.csv") {
  const std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
  std::ofstream out(path);
  out << "id,tens,class\n";
  for (int i = 0; i < rows; ++i) out << i << "," << i * 10 << "," << i % 3 << "\n";
  return path;
}

// Rows 0..n-1 that held_out_every = k keeps for training.
std::vector<int> TrainingRows(int n, int k) {
  std::vector<int> rows;
  for (int i = 0; i < n; ++i)
    if (k == 0 || i % k != k - 1) rows.push_back(i);
  return rows;
}

struct Pipeline {
  GraphBuilder g;
  ops::Minibatch batch;
  std::unique_ptr<Session> session;
};

std::unique_ptr<Pipeline> Build(const ops::MinibatchDatasetOptions& options) {
  auto p = std::make_unique<Pipeline>();
  p->batch = ops::MinibatchDataset(p->g, options, "data");
  if (!p->g.status().ok()) qFatal("building failed: %s", StatusText(p->g.status()));
  auto session = NewSession(SessionOptions());
  if (!session.ok() || !(*session)->Create(p->g.graph_def()).ok()) qFatal("no session");
  p->session = *std::move(session);
  return p;
}

struct Batch {
  Tensor features, labels;
  std::vector<int> ids() const {  // feature 0 of each example
    std::vector<int> out;
    const int64_t d = features.shape().dim(1);
    for (int64_t r = 0; r < features.shape().dim(0); ++r)
      out.push_back(static_cast<int>(features.data<float>()[r * d]));
    return out;
  }
};

StatusOr<Batch> Next(Pipeline& p) {
  std::vector<Tensor> out;
  CLAB_RETURN_IF_ERROR(p.session->Run({}, {p.batch.features.name(), p.batch.labels.name()}, {}, &out));
  return Batch{out[0], out[1]};
}

// The ids of `runs` minibatches, in order.
std::vector<int> Stream(Pipeline& p, int runs) {
  std::vector<int> ids;
  for (int r = 0; r < runs; ++r) {
    auto batch = Next(p);
    if (!batch.ok()) qFatal("run failed: %s", StatusText(batch.status()));
    for (int id : batch->ids()) ids.push_back(id);
  }
  return ids;
}

bool Contains(const Status& status, const std::string& text) {
  return std::string(status.message()).find(text) != std::string::npos;
}

}  // namespace

class MinibatchDatasetTest : public QObject {
  Q_OBJECT

 private slots:
  void batchesHaveTheDeclaredShapes() {
    QTemporaryDir dir;
    ops::MinibatchDatasetOptions options;
    options.path = WriteIdCsv(dir, 20);
    options.batch_size = 8;
    auto p = Build(options);
    QCOMPARE(p->g.ShapeOf(p->batch.features), (PartialShape{8, 2}));  // read from the header
    QCOMPARE(p->g.ShapeOf(p->batch.labels), (PartialShape{8}));
    QCOMPARE(p->g.TypeOf(p->batch.features), DT_FLOAT);
    QCOMPARE(p->g.TypeOf(p->batch.labels), DT_INT32);
    for (int run = 0; run < 4; ++run) {  // 32 examples: the stream passes the end of epoch 0
      auto batch = Next(*p);
      QVERIFY2(batch.ok(), StatusText(batch.status()));
      QCOMPARE(batch->features.shape(), TensorShape({8, 2}));
      QCOMPARE(batch->labels.shape(), TensorShape({8}));
      const std::vector<int> ids = batch->ids();
      for (int64_t r = 0; r < 8; ++r) {
        const int id = ids[static_cast<size_t>(r)];
        QCOMPARE(batch->features.data<float>()[r * 2 + 1], static_cast<float>(id * 10));
        QCOMPARE(batch->labels.data<int32_t>()[r], id % 3);
      }
    }
  }

  void featureCountUnknownUntilDeclared() {
    GraphBuilder g;
    ops::MinibatchDatasetOptions options;
    options.path = "/nonexistent/data.csv";
    options.batch_size = 4;
    const ops::Minibatch unknown = ops::MinibatchDataset(g, options);
    QCOMPARE(g.ShapeOf(unknown.features), (PartialShape{4, -1}));
    options.num_features = 7;
    const ops::Minibatch declared = ops::MinibatchDataset(g, options);
    QCOMPARE(g.ShapeOf(declared.features), (PartialShape{4, 7}));
    QVERIFY2(g.status().ok(), StatusText(g.status()));
  }

  void sameSeedSameSequenceOtherSeedDiffers() {
    QTemporaryDir dir;
    ops::MinibatchDatasetOptions options;
    options.path = WriteIdCsv(dir, 50);
    options.batch_size = 7;
    options.seed = 42;
    const std::vector<int> first = Stream(*Build(options), 20);
    const std::vector<int> second = Stream(*Build(options), 20);
    QCOMPARE(first, second);
    options.seed = 43;
    const std::vector<int> other = Stream(*Build(options), 20);
    QVERIFY(other != first);
    std::vector<int> in_order(50);
    std::iota(in_order.begin(), in_order.end(), 0);
    QVERIFY(std::vector<int>(first.begin(), first.begin() + 50) != in_order);  // shuffled
    options.shuffle = false;
    QCOMPARE(Stream(*Build(options), 1), (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
  }

  // Every epoch is a permutation of the shard; consecutive epochs are in different orders;
  // minibatches span the boundary between epochs.
  void epochsVisitEveryExampleOnce() {
    QTemporaryDir dir;
    ops::MinibatchDatasetOptions options;
    options.path = WriteIdCsv(dir, 43);
    options.batch_size = 10;
    options.seed = 5;
    const std::vector<int> stream = Stream(*Build(options), 13);  // 130 = 3 epochs of 43, and 1
    std::vector<int> all(43);
    std::iota(all.begin(), all.end(), 0);
    std::vector<std::vector<int>> epochs;
    for (int e = 0; e < 3; ++e) {
      std::vector<int> epoch(stream.begin() + e * 43, stream.begin() + (e + 1) * 43);
      epochs.push_back(epoch);
      std::sort(epoch.begin(), epoch.end());
      QCOMPARE(epoch, all);
    }
    QVERIFY(epochs[0] != epochs[1] && epochs[1] != epochs[2]);
  }

  void shardsSplitTheTrainingSplitAndSkipHeldOut() {
    QTemporaryDir dir;
    const int n = 53, k = 5;
    const std::vector<int> training = TrainingRows(n, k);  // 43 rows
    ops::MinibatchDatasetOptions options;
    options.path = WriteIdCsv(dir, n);
    options.held_out_every = k;
    options.num_shards = 2;
    options.seed = 9;
    std::vector<int> seen;
    for (int shard = 0; shard < 2; ++shard) {
      options.shard_index = shard;
      const int size = shard == 0 ? 22 : 21;
      options.batch_size = size;  // one run is one epoch of the shard
      std::vector<int> ids = Stream(*Build(options), 1);
      std::sort(ids.begin(), ids.end());
      QCOMPARE(std::set<int>(ids.begin(), ids.end()).size(), size_t(size));
      // Shard s holds the training split's j-th example for j % 2 == s.
      std::vector<int> expected;
      for (size_t j = static_cast<size_t>(shard); j < training.size(); j += 2) expected.push_back(training[j]);
      QCOMPARE(ids, expected);
      seen.insert(seen.end(), ids.begin(), ids.end());
    }
    std::sort(seen.begin(), seen.end());
    QCOMPARE(seen, training);  // disjoint, together the whole training split
    for (int id : seen) QVERIFY(id % k != k - 1);
  }

  void heldOutSplitHoldsOnlyHeldOutExamples() {
    QTemporaryDir dir;
    ops::MinibatchDatasetOptions options;
    options.path = WriteIdCsv(dir, 23);
    options.held_out_every = 5;
    options.split = "held_out";
    options.shuffle = false;
    options.batch_size = 4;
    QCOMPARE(Stream(*Build(options), 2), (std::vector<int>{4, 9, 14, 19, 4, 9, 14, 19}));
  }

  // Standardised with the training split's mean and (population) deviation, held-out rows
  // included; "divide:X" divides.
  void scalesFeatures() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("s.csv").toStdString();
    {
      std::ofstream out(path);
      out << "a,b,c,class\n1,5,2,0\n3,5,4,1\n100,5,0,0\n";  // row 2 is held out (k = 3)
    }
    ops::MinibatchDatasetOptions options;
    options.path = path;
    options.held_out_every = 3;
    options.scale = "standardize";
    options.shuffle = false;
    options.batch_size = 2;
    auto train = Next(*Build(options));
    QVERIFY2(train.ok(), StatusText(train.status()));
    // a: mean 2, deviation 1; b: constant, deviation 1; c: mean 3, deviation 1.
    const std::vector<float> expected = {-1, 0, -1, 1, 0, 1};
    QCOMPARE(std::vector<float>(train->features.data<float>(), train->features.data<float>() + 6), expected);
    options.split = "held_out";
    options.batch_size = 1;
    auto held = Next(*Build(options));
    QVERIFY2(held.ok(), StatusText(held.status()));
    QCOMPARE(std::vector<float>(held->features.data<float>(), held->features.data<float>() + 3),
             (std::vector<float>{98, 0, -3}));
    options.scale = "divide:4";
    auto divided = Next(*Build(options));
    QVERIFY2(divided.ok(), StatusText(divided.status()));
    QCOMPARE(divided->features.data<float>()[0], 25.0f);
  }

  void readsIdxFeaturesAndLabels() {
    QTemporaryDir dir;
    IdxArray images(IdxType::kUint8, {6, 2, 3});
    IdxArray labels(IdxType::kUint8, {6});
    for (int64_t i = 0; i < images.NumElements(); ++i) images.Set(i, static_cast<double>(i * 5));
    for (int64_t i = 0; i < 6; ++i) labels.Set(i, static_cast<double>(9 - i));
    ops::MinibatchDatasetOptions options;
    options.path = dir.filePath("images.idx.gz").toStdString();
    options.labels_path = dir.filePath("labels.idx").toStdString();
    QVERIFY(WriteIdxFile(options.path, images).ok());
    QVERIFY(WriteIdxFile(options.labels_path, labels).ok());
    options.scale = "divide:255";
    options.shuffle = false;
    options.batch_size = 6;
    auto p = Build(options);
    QCOMPARE(p->g.ShapeOf(p->batch.features), (PartialShape{6, 6}));  // 2x3 flattened
    auto batch = Next(*p);
    QVERIFY2(batch.ok(), StatusText(batch.status()));
    QCOMPARE(batch->features.shape(), TensorShape({6, 6}));
    for (int64_t i = 0; i < 36; ++i) QCOMPARE(batch->features.data<float>()[i], static_cast<float>(i * 5 / 255.0));
    for (int64_t i = 0; i < 6; ++i) QCOMPARE(batch->labels.data<int32_t>()[i], static_cast<int32_t>(9 - i));

    options.labels_path.clear();
    auto missing_labels = Next(*Build(options));
    QVERIFY(!missing_labels.ok());
    QVERIFY2(Contains(missing_labels.status(), "labels_path"), StatusText(missing_labels.status()));
  }

  // Two steps running the node at once take different examples: one epoch between them.
  void concurrentRunsShareOneStream() {
    QTemporaryDir dir;
    ops::MinibatchDatasetOptions options;
    options.path = WriteIdCsv(dir, 40);
    options.batch_size = 2;
    auto p = Build(options);
    std::vector<int> ids[2];
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t) threads.emplace_back([&, t] { ids[t] = Stream(*p, 10); });
    for (auto& thread : threads) thread.join();
    std::vector<int> all = ids[0];
    all.insert(all.end(), ids[1].begin(), ids[1].end());
    std::sort(all.begin(), all.end());
    std::vector<int> expected(40);
    std::iota(expected.begin(), expected.end(), 0);
    QCOMPARE(all, expected);
  }

  // Two nodes naming the same shared_name read one stream; different settings under one
  // name are an error that names both.
  void sharedNameSharesTheStream() {
    QTemporaryDir dir;
    GraphBuilder g;
    ops::MinibatchDatasetOptions options;
    options.path = WriteIdCsv(dir, 10);
    options.batch_size = 5;
    options.shared_name = "ids";
    const ops::Minibatch a = ops::MinibatchDataset(g, options, "a");
    const ops::Minibatch b = ops::MinibatchDataset(g, options, "b");
    options.seed = 1;
    const ops::Minibatch c = ops::MinibatchDataset(g, options, "c");
    auto session = NewSession(SessionOptions());
    QVERIFY((*session)->Create(g.graph_def()).ok());
    std::vector<Tensor> out;
    std::set<float> ids;
    for (const auto& batch : {a, b}) {
      QVERIFY((*session)->Run({}, {batch.features.name()}, {}, &out).ok());
      for (int r = 0; r < 5; ++r) ids.insert(out[0].data<float>()[r * 2]);
    }
    QCOMPARE(ids.size(), size_t(10));
    Status conflict = (*session)->Run({}, {c.features.name()}, {}, &out);
    QCOMPARE(conflict.code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Contains(conflict, "'c'") && Contains(conflict, "other settings"), StatusText(conflict));
  }

  void csvParseErrorNamesNodeFileAndLine() {
    QTemporaryDir dir;
    ops::MinibatchDatasetOptions options;
    options.path = dir.filePath("bad.csv").toStdString();
    {
      std::ofstream out(options.path);
      out << "a,b,class\n1,2,0\n3,oops,1\n";
    }
    auto batch = Next(*Build(options));
    QVERIFY(!batch.ok());
    QVERIFY2(Contains(batch.status(), options.path + ":3:"), StatusText(batch.status()));
    QVERIFY2(Contains(batch.status(), "'oops'"), StatusText(batch.status()));
    QVERIFY2(Contains(batch.status(), "MinibatchDataset 'data'"), StatusText(batch.status()));
  }

  void missingFileNamesNodeAndPath() {
    ops::MinibatchDatasetOptions options;
    options.path = "/nonexistent/digits.csv.gz";
    auto p = Build(options);
    for (int attempt = 0; attempt < 2; ++attempt) {  // a failed load is tried again next run
      auto batch = Next(*p);
      QCOMPARE(batch.status().code(), absl::StatusCode::kNotFound);
      QVERIFY2(Contains(batch.status(), "/nonexistent/digits.csv.gz"), StatusText(batch.status()));
      QVERIFY2(Contains(batch.status(), "{{node data}}"), StatusText(batch.status()));
    }
  }

  void badLabelsAndEmptyShardsAreNamed() {
    QTemporaryDir dir;
    ops::MinibatchDatasetOptions options;
    options.path = dir.filePath("labels.csv").toStdString();
    {
      std::ofstream out(options.path);
      out << "a,class\n1,0\n2,1.5\n";
    }
    auto batch = Next(*Build(options));
    QVERIFY(!batch.ok());
    QVERIFY2(Contains(batch.status(), "example 2: class '1.5' is not a whole number"), StatusText(batch.status()));

    options.path = WriteIdCsv(dir, 2);
    options.num_shards = 3;
    options.shard_index = 2;
    batch = Next(*Build(options));
    QVERIFY(!batch.ok());
    QVERIFY2(Contains(batch.status(), "shard 2 of 3 of its training split has no examples"),
             StatusText(batch.status()));
  }

  void declaredFeatureCountIsChecked() {
    QTemporaryDir dir;
    ops::MinibatchDatasetOptions options;
    options.path = WriteIdCsv(dir, 4);
    options.num_features = 5;
    auto p = Build(options);
    QCOMPARE(p->g.ShapeOf(p->batch.features), (PartialShape{32, 5}));
    auto batch = Next(*p);
    QVERIFY(!batch.ok());
    QVERIFY2(Contains(batch.status(), "'" + options.path + "': the node declares num_features 5, but the file has 2"),
             StatusText(batch.status()));
  }

  void badAttrsFailWhenBuilding() {
    for (const auto& change : std::vector<std::function<void(ops::MinibatchDatasetOptions&)>>{
             [](auto& o) { o.shard_index = 2; }, [](auto& o) { o.scale = "normalise"; },
             [](auto& o) { o.split = "held_out"; }, [](auto& o) { o.split = "test"; },
             [](auto& o) { o.batch_size = 0; }}) {
      GraphBuilder g;
      ops::MinibatchDatasetOptions options;
      options.path = "x.csv";
      options.num_shards = 2;
      change(options);
      ops::MinibatchDataset(g, options, "data");
      QVERIFY(!g.status().ok());
      QVERIFY2(Contains(g.status(), "data"), StatusText(g.status()));
    }
  }
};

QTEST_GUILESS_MAIN(MinibatchDatasetTest)
#include "tst_minibatch_dataset.moc"
