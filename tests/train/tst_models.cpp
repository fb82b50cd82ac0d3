// Real learning on the shipped data sets: softmax regression on Iris, a 64-32-10 MLP and a
// small CNN (3x3 convolution, ReLU, 2x2 max pooling, dense) on the handwritten digits reach
// at least 90% held-out accuracy; a seeded run is bit-identical run to run; the MLP trained
// by two workers against one ps (between-graph replication, each worker on its own shard,
// fed or read by a MinibatchDataset op in its graph; asynchronously or as synchronous
// replicas) and the CNN trained asynchronously the same way learn as well.
#include "StatusText.h"

#include "clab/distributed/ReplicaDeviceSetter.h"
#include "clab/distributed/Server.h"
#include "clab/ops/Ops.h"
#include "exampledata/ExampleDataPath.h"
#include "examplegraphs/RegressionGraph.h"
#include "examplegraphs/TrainingInputs.h"
#include "models/Classifier.h"
#include "models/ClusterTraining.h"

#include <QTcpServer>
#include <QtTest>

#include <chrono>
#include <cstring>
#include <filesystem>

using namespace clab;
using namespace clab::examples;
using namespace clab::testing;

namespace {

struct LocalRun {
  double loss = 0;
  double accuracy = 0;
  std::vector<float> weights;  // the first layer's weights after training
  double steps_per_second = 0;
};

StatusOr<LocalRun> TrainLocally(const ClassificationData& data, const std::vector<int>& hidden, double rate,
                                int64_t steps, int batch, uint64_t seed, const tools::ConvLayer& conv = {}) {
  GraphBuilder g;
  CLAB_ASSIGN_OR_RETURN(tools::ClassifierGraph model,
                        tools::BuildClassifier(g, data.num_features, hidden, data.num_classes, rate, seed, conv));
  const Output init = ops::GlobalVariablesInitializer(g);
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(SessionOptions()));
  CLAB_RETURN_IF_ERROR(session->Create(g.graph_def()));
  std::vector<Tensor> out;
  CLAB_RETURN_IF_ERROR(session->Run({}, {}, {init.node()}, &out));
  LocalRun run;
  const auto start = std::chrono::steady_clock::now();
  CLAB_ASSIGN_OR_RETURN(run.loss, Train(*session, model, data.train, steps, batch, seed));
  run.steps_per_second =
      static_cast<double>(steps) / std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CLAB_ASSIGN_OR_RETURN(run.accuracy, Accuracy(*session, model, data.held_out));
  const std::string first = conv.filters > 0 ? "conv1/weights:0"
                            : hidden.empty() ? "logits/weights:0"
                                             : "hidden1/weights:0";
  CLAB_RETURN_IF_ERROR(session->Run({}, {first}, {}, &out));
  run.weights.assign(out[0].data<float>(), out[0].data<float>() + out[0].NumElements());
  return run;
}

}  // namespace

class ModelsTest : public QObject {
  Q_OBJECT

 private slots:
  void linearRegressionFitsTheLine() {
    GraphBuilder g;
    auto model = tools::BuildLinearRegression(g, 32, 0.1, 5);
    QVERIFY2(model.ok(), StatusText(model.status()));
    Output init = ops::GlobalVariablesInitializer(g);
    auto session = NewSession(SessionOptions());
    QVERIFY((*session)->Create(g.graph_def()).ok());
    std::vector<Tensor> out;
    QVERIFY((*session)->Run({}, {}, {init.node()}, &out).ok());
    for (int i = 0; i < 600; ++i) QVERIFY((*session)->Run({}, {}, {model->train.node()}, &out).ok());
    QVERIFY((*session)->Run({}, {"w:0", "b:0"}, {}, &out).ok());
    qInfo("linear regression: w = %.4f, b = %.4f", out[0].data<float>()[0], out[1].data<float>()[0]);
    QVERIFY(std::abs(out[0].data<float>()[0] - tools::kRegressionSlope) < 0.05);
    QVERIFY(std::abs(out[1].data<float>()[0] - tools::kRegressionIntercept) < 0.05);
  }

  void softmaxRegressionOnIris() {
    auto data = LoadClassificationCsv(tools::ExampleDataPath("iris.csv"));
    QVERIFY2(data.ok(), StatusText(data.status()));
    QCOMPARE(data->train.size() + data->held_out.size(), int64_t(150));
    QCOMPARE(data->num_classes, 3);
    auto run = TrainLocally(*data, {}, 0.1, 600, 16, 1);
    QVERIFY2(run.ok(), StatusText(run.status()));
    qInfo("iris softmax regression: loss %.4f, held-out accuracy %.3f", run->loss, run->accuracy);
    QVERIFY(run->accuracy >= 0.9);
  }

  void mlpOnDigitsIsAccurateAndDeterministic() {
    auto data = LoadClassificationCsv(tools::ExampleDataPath("digits.csv.gz"));
    QVERIFY2(data.ok(), StatusText(data.status()));
    QCOMPARE(data->num_features, 64);
    QCOMPARE(data->num_classes, 10);
    auto first = TrainLocally(*data, {32}, 0.1, 1500, 32, 7);
    QVERIFY2(first.ok(), StatusText(first.status()));
    qInfo("digits MLP 64-32-10: loss %.4f, held-out accuracy %.3f", first->loss, first->accuracy);
    QVERIFY(first->accuracy >= 0.9);
    auto second = TrainLocally(*data, {32}, 0.1, 1500, 32, 7);
    QVERIFY(second.ok());
    QCOMPARE(second->weights.size(), first->weights.size());
    QVERIFY2(std::memcmp(first->weights.data(), second->weights.data(), first->weights.size() * sizeof(float)) == 0,
             "the same seed gave different weights");
  }

  // The in-graph input pipeline serves exactly the rows LoadClassificationCsv gives each
  // shard, scaled the same way, bit for bit.
  void datasetOpServesEachShardsRows() {
    auto data = LoadClassificationCsv(tools::ExampleDataPath("digits.csv.gz"));
    QVERIFY2(data.ok(), StatusText(data.status()));
    for (int shard = 0; shard < 2; ++shard) {
      const Examples expected = Shard(data->train, shard, 2);
      GraphBuilder g;
      ops::MinibatchDatasetOptions options = tools::TrainingDataset(
          tools::ExampleDataPath("digits.csv.gz"), data->num_features, static_cast<int>(expected.size()), shard, 2, 1);
      options.shuffle = false;  // file order, as Shard keeps it
      const ops::Minibatch inputs = tools::ClassifierInputs(g, options);
      QCOMPARE(g.ShapeOf(inputs.features), (PartialShape{expected.size(), 64}));
      auto session = NewSession(SessionOptions());
      QVERIFY(session.ok() && (*session)->Create(g.graph_def()).ok());
      std::vector<Tensor> out;
      const Status run = (*session)->Run({}, {inputs.features.name(), inputs.labels.name()}, {}, &out);
      QVERIFY2(run.ok(), StatusText(run));
      QVERIFY(out[0].shape() == expected.features.shape());
      QVERIFY(std::memcmp(out[0].raw_data(), expected.features.raw_data(), expected.features.TotalBytes()) == 0);
      QVERIFY(std::memcmp(out[1].raw_data(), expected.labels.raw_data(), expected.labels.TotalBytes()) == 0);
    }
  }

  void mlpTrainedByTwoWorkersAgainstOnePs_data() {
    // clang-format off
    QTest::addColumn<bool>("dataset_op");
    QTest::addColumn<bool>("sync");
    QTest::addColumn<int>("steps");
    QTest::newRow("asynchronous, minibatches fed") << false << false << 1600;
    QTest::newRow("asynchronous, minibatches from a MinibatchDataset op") << true << false << 1600;
    // Each synchronous global step is the mean of both workers' minibatches.
    QTest::newRow("synchronous replicas") << false << true << 800;
    // clang-format on
  }
  void mlpTrainedByTwoWorkersAgainstOnePs() {
    QFETCH(bool, dataset_op);
    QFETCH(bool, sync);
    QFETCH(int, steps);
    ClusterTrainingOptions options;
    options.hidden = {32};
    options.total_steps = steps;
    options.sync = sync;
    if (dataset_op) options.data_path = tools::ExampleDataPath("digits.csv.gz");
    TrainOnOnePsAndTwoWorkers(options, "MLP");
  }

  void cnnOnDigits() {
    auto data = LoadClassificationCsv(tools::ExampleDataPath("digits.csv.gz"));
    QVERIFY2(data.ok(), StatusText(data.status()));
    auto run = TrainLocally(*data, {}, 0.1, 800, 32, 7, tools::DigitsConvLayer());
    QVERIFY2(run.ok(), StatusText(run.status()));
    qInfo("digits CNN (3x3 conv to 16, max-pool, dense): loss %.4f, held-out accuracy %.3f, %.0f steps/s", run->loss,
          run->accuracy, run->steps_per_second);
    QVERIFY(run->accuracy >= 0.9);
  }

  void cnnTrainedByTwoWorkersAgainstOnePs() {
    ClusterTrainingOptions options;
    options.hidden = {};
    options.conv = tools::DigitsConvLayer();
    options.total_steps = 1000;
    TrainOnOnePsAndTwoWorkers(options, "CNN");
  }

 private:
  // Between-graph replication on servers in this process: `options` with the cluster filled in.
  void TrainOnOnePsAndTwoWorkers(ClusterTrainingOptions options, const char* what) {
    auto data = LoadClassificationCsv(tools::ExampleDataPath("digits.csv.gz"));
    QVERIFY(data.ok());
    QTcpServer p0, p1, p2;
    QVERIFY(p0.listen(QHostAddress::LocalHost) && p1.listen(QHostAddress::LocalHost) &&
            p2.listen(QHostAddress::LocalHost));
    const std::map<std::string, std::vector<std::string>> jobs = {
        {"ps", {"127.0.0.1:" + std::to_string(p0.serverPort())}},
        {"worker", {"127.0.0.1:" + std::to_string(p1.serverPort()), "127.0.0.1:" + std::to_string(p2.serverPort())}}};
    p0.close();
    p1.close();
    p2.close();
    std::vector<std::unique_ptr<Server>> servers;
    for (const auto& [job, index] : std::vector<std::pair<std::string, int>>{{"ps", 0}, {"worker", 0}, {"worker", 1}}) {
      ServerOptions server_options;
      server_options.cluster = *ClusterSpec::FromDict(jobs);
      server_options.job_name = job;
      server_options.task_index = index;
      server_options.log = [](const std::string&) {};
      // The workers' dataset ops read the shipped data set.
      if (!options.data_path.empty())
        server_options.data_dirs = {std::filesystem::path(options.data_path).parent_path().string()};
      auto server = Server::Create(server_options);
      QVERIFY2(server.ok(), StatusText(server.status()));
      servers.push_back(*std::move(server));
    }
    options.cluster = jobs;
    options.worker_servers = {servers[1].get(), servers[2].get()};
    auto result = TrainOnCluster(*data, options);
    QVERIFY2(result.ok(), StatusText(result.status()));
    qInfo("digits %s, 1 ps + 2 %s workers%s: held-out accuracy %.3f (%.0f global steps/s)", what,
          options.sync ? "synchronous" : "asynchronous",
          options.data_path.empty() ? "" : " reading their shards in the graph", result->held_out_accuracy,
          static_cast<double>(result->steps) / result->seconds);
    QVERIFY(result->held_out_accuracy >= 0.9);
  }
};

QTEST_GUILESS_MAIN(ModelsTest)
#include "tst_models.moc"
