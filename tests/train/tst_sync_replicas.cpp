// Synchronous replicas: the queue and accumulator ops they are built from, and training
// with SyncReplicasOptimizer in one process and across a ps and two workers over gRPC.
#include "StatusText.h"
#include "clab/distributed/ReplicaDeviceSetter.h"
#include "clab/distributed/Server.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/ops/Ops.h"
#include "clab/runtime/Session.h"
#include "clab/train/GlobalStep.h"
#include "clab/train/GradientDescentOptimizer.h"
#include "clab/train/MonitoredSession.h"
#include "clab/train/SyncReplicasOptimizer.h"
#include "clab/train/hooks/StopAtStepHook.h"

#include <QTcpServer>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

using namespace clab;
using clab::testing::StatusText;

namespace {

std::unique_ptr<Session> LocalSession(const GraphBuilder& g) {
  auto session = NewSession(SessionOptions());
  if (!session.ok() || !(*session)->Create(g.graph_def()).ok()) return nullptr;
  return std::move(session).value();
}

// Linear regression on fixed data (y = 3x + 2): the same full batch on every replica.
struct Regression {
  Output global_step;
  Output w, b;
  Output loss;
};

Regression BuildRegression(GraphBuilder& g) {
  Regression r;
  r.global_step = GetOrCreateGlobalStep(g);
  Output x = ops::Const(g, Tensor::Matrix<float>({{0}, {1}, {2}, {3}}), "x");
  Output y = ops::Const(g, Tensor::Matrix<float>({{2}, {5}, {8}, {11}}), "y");
  ops::Variable w = ops::MakeVariable(g, ops::Const(g, Tensor::Matrix<float>({{0.0f}})), "w");
  ops::Variable b = ops::MakeVariable(g, ops::Const(g, Tensor::Vector<float>({0.0f})), "b");
  r.w = w.var;
  r.b = b.var;
  Output prediction = ops::Add(g, ops::MatMul(g, x, w.read), b.read);
  r.loss = ops::Mean(g, ops::Square(g, ops::Sub(g, prediction, y)), ops::Const(g, Tensor::Vector<int32_t>({0, 1})),
                     false, "loss");
  return r;
}

// w after `steps` steps of plain gradient descent, in one process.
float PlainDescent(int steps) {
  GraphBuilder g;
  Regression r = BuildRegression(g);
  auto train = GradientDescentOptimizer(0.02).Minimize(g, r.loss, r.global_step);
  Output init = ops::GlobalVariablesInitializer(g);
  auto session = LocalSession(g);
  std::vector<Tensor> out;
  if (!train.ok() || !session || !session->Run({}, {}, {init.node()}, &out).ok()) return NAN;
  for (int i = 0; i < steps; ++i) session->Run({}, {}, {train->node()}, &out).IgnoreError();
  session->Run({}, {"w:0"}, {}, &out).IgnoreError();
  return out[0].data<float>()[0];
}

}  // namespace

class SyncReplicasTest : public QObject {
  Q_OBJECT

 private slots:
  void queueIsFirstInFirstOut() {
    GraphBuilder g;
    Output q = ops::FIFOQueue(g, {DT_INT64}, {PartialShape::Scalar()}, -1, "", "q");
    Output many = ops::QueueEnqueueMany(g, q, {ops::Const(g, Tensor::Vector<int64_t>({7, 8, 9}))}, "many");
    Output one = ops::QueueEnqueue(g, q, {ops::Const(g, Tensor::Scalar<int64_t>(10))}, "one");
    Output taken = ops::QueueDequeue(g, q, {DT_INT64}, "take").front();
    Output size = ops::QueueSize(g, q, "size");
    Output close = ops::QueueClose(g, q, false, "close");
    Output wrong = ops::QueueEnqueue(g, q, {ops::Const(g, Tensor::Scalar<float>(1))}, "wrong");
    auto session = LocalSession(g);
    QVERIFY(session);
    std::vector<Tensor> out;
    QVERIFY(session
                ->Run({}, {},
                      {
                          many.node(),
                      },
                      &out)
                .ok());
    QVERIFY(session->Run({}, {}, {one.node()}, &out).ok());
    QVERIFY(session->Run({}, {size.name()}, {}, &out).ok());
    QCOMPARE(out[0].scalar<int32_t>(), 4);
    for (int64_t expected : {7, 8, 9, 10}) {
      QVERIFY(session->Run({}, {taken.name()}, {}, &out).ok());
      QCOMPARE(out[0].scalar<int64_t>(), expected);
    }
    Status bad = session->Run({}, {}, {wrong.node()}, &out);
    QVERIFY(absl::IsInvalidArgument(bad));
    QVERIFY2(QString(StatusText(bad)).contains("FIFOQueue 'q' component 0 is int64, got float"), StatusText(bad));

    // A dequeue waits for an element; closing the queue releases a waiting one.
    auto waiting = std::async(std::launch::async, [&] {
      std::vector<Tensor> result;
      return session->Run({}, {taken.name()}, {}, &result);
    });
    QCOMPARE(waiting.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout);
    QVERIFY(session->Run({}, {}, {close.node()}, &out).ok());
    Status released = waiting.get();
    QVERIFY(absl::IsOutOfRange(released));
    QVERIFY2(QString(StatusText(released)).contains("FIFOQueue 'q' is closed and has insufficient elements"),
             StatusText(released));
  }

  void dequeueWaitsForAnEnqueue() {
    GraphBuilder g;
    Output q = ops::FIFOQueue(g, {DT_FLOAT, DT_INT32}, {}, 1, "", "pairs");
    Output put = ops::QueueEnqueue(
        g, q, {ops::Const(g, Tensor::Vector<float>({1.5f, 2.5f})), ops::Const(g, Tensor::Scalar<int32_t>(4))}, "put");
    std::vector<Output> taken = ops::QueueDequeue(g, q, {DT_FLOAT, DT_INT32}, "take");
    auto session = LocalSession(g);
    QVERIFY(session);
    auto waiting = std::async(std::launch::async, [&] {
      std::vector<Tensor> result;
      Status s = session->Run({}, {taken[0].name(), taken[1].name()}, {}, &result);
      return std::make_pair(s, result);
    });
    QCOMPARE(waiting.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout);
    std::vector<Tensor> out;
    QVERIFY(session->Run({}, {}, {put.node()}, &out).ok());
    auto [status, result] = waiting.get();
    QVERIFY2(status.ok(), StatusText(status));
    QCOMPARE(result[0].data<float>()[1], 2.5f);
    QCOMPARE(result[1].scalar<int32_t>(), 4);
  }

  void accumulatorAveragesAndDropsStaleGradients() {
    GraphBuilder g;
    Output acc = ops::ConditionalAccumulator(g, DT_FLOAT, PartialShape(std::vector<int64_t>{2}), "", "acc");
    Output step = ops::Placeholder(g, DT_INT64, PartialShape::Scalar(), "step");
    Output grad = ops::Placeholder(g, DT_FLOAT, PartialShape(std::vector<int64_t>{2}), "grad");
    Output apply = ops::AccumulatorApplyGradient(g, acc, step, grad, "apply");
    Output take = ops::AccumulatorTakeGradient(g, acc, ops::Const(g, Tensor::Scalar<int32_t>(2)), DT_FLOAT, "take");
    Output count = ops::AccumulatorNumAccumulated(g, acc, "count");
    Output set = ops::AccumulatorSetGlobalStep(g, acc, step, "set");
    Output cancel = g.AddNode("_AccumulatorCancelTakes", {acc}, {}, "cancel");
    auto session = LocalSession(g);
    QVERIFY(session);
    std::vector<Tensor> out;
    auto send = [&](int64_t local_step, std::vector<float> values) {
      return session->Run({{"step", Tensor::Scalar<int64_t>(local_step)}, {"grad", Tensor::Vector<float>(values)}}, {},
                          {apply.node()}, &out);
    };
    QVERIFY(send(0, {1, 2}).ok());
    QVERIFY(send(0, {3, 4}).ok());
    QVERIFY(session->Run({}, {take.name()}, {}, &out).ok());
    QCOMPARE(out[0].data<float>()[0], 2.0f);
    QCOMPARE(out[0].data<float>()[1], 3.0f);

    // The take moved the accumulator to step 1: a gradient from step 0 is stale.
    QVERIFY(send(0, {100, 100}).ok());
    QVERIFY(session->Run({}, {count.name()}, {}, &out).ok());
    QCOMPARE(out[0].scalar<int32_t>(), 0);
    QVERIFY(session->Run({{"step", Tensor::Scalar<int64_t>(5)}}, {}, {set.node()}, &out).ok());
    QVERIFY(send(4, {100, 100}).ok());
    QVERIFY(send(5, {1, 1}).ok());
    QVERIFY(session->Run({}, {count.name()}, {}, &out).ok());
    QCOMPARE(out[0].scalar<int32_t>(), 1);

    // A take waits for the second gradient; cancelling releases it with CANCELLED.
    auto waiting = std::async(std::launch::async, [&] {
      std::vector<Tensor> result;
      return session->Run({}, {take.name()}, {}, &result);
    });
    QCOMPARE(waiting.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout);
    QVERIFY(session->Run({}, {}, {cancel.node()}, &out).ok());
    Status released = waiting.get();
    QVERIFY2(absl::IsCancelled(released), StatusText(released));
    QVERIFY2(QString(StatusText(released)).contains("ConditionalAccumulator 'acc'"), StatusText(released));

    Status wrong = send(5, {1, 2, 3});
    QVERIFY(absl::IsInvalidArgument(wrong));
    QVERIFY2(QString(StatusText(wrong)).contains("expects gradients of shape [2], got [3]"), StatusText(wrong));
  }

  void globalStepIsRequired() {
    GraphBuilder g;
    Regression r = BuildRegression(g);
    SyncReplicasOptimizer sync(std::make_shared<GradientDescentOptimizer>(0.1), {.replicas_to_aggregate = 2});
    auto train = sync.Minimize(g, r.loss, Output());
    QVERIFY(absl::IsInvalidArgument(train.status()));
    QVERIFY(QString(StatusText(train.status())).contains("Global step is required to check staleness"));
    QVERIFY(absl::IsFailedPrecondition(sync.MakeSessionRunHook(true).status()));
  }

  void oneReplicaInProcessMatchesPlainDescent() {
    GraphBuilder g;
    Regression r = BuildRegression(g);
    SyncReplicasOptimizer sync(std::make_shared<GradientDescentOptimizer>(0.02), {.replicas_to_aggregate = 1});
    auto train = sync.Minimize(g, r.loss, r.global_step);
    QVERIFY2(train.ok(), StatusText(train.status()));
    auto hook = sync.MakeSessionRunHook(/*is_chief=*/true);
    QVERIFY(hook.ok());
    MonitoredTrainingSessionOptions options;
    options.log = std::make_shared<TrainingLog>("", false);
    options.hooks = {*hook, std::make_shared<StopAtStepHook>(StopAtStepHook::LastStep(40))};
    auto session = MonitoredTrainingSession(g, options);
    QVERIFY2(session.ok(), StatusText(session.status()));
    std::vector<Tensor> out;
    int runs = 0;
    while (!(*session)->should_stop()) {
      QVERIFY2(runs < 10000, "the session never said stop");
      Status s = (*session)->Run({train->node()}, {}, &out);
      QVERIFY2(s.ok(), StatusText(s));
      ++runs;
    }
    QVERIFY((*session)->raw_session()->Run({}, {"w:0", "global_step:0"}, {}, &out).ok());
    QCOMPARE(out[1].scalar<int64_t>(), int64_t(40));
    // The first token is handed out before any update, so the replica may run one step ahead
    // of the global step (its last gradient then waits in the accumulator).
    QVERIFY2(runs == 40 || runs == 41, qPrintable(QString::number(runs)));
    QCOMPARE(out[0].data<float>()[0], PlainDescent(40));
    QVERIFY((*session)->Close().ok());
  }

  void twoWorkersAggregateEveryStep() {
    QTcpServer ports[3];
    for (auto& port : ports) QVERIFY(port.listen(QHostAddress::LocalHost));
    const std::map<std::string, std::vector<std::string>> jobs = {
        {"ps", {"127.0.0.1:" + std::to_string(ports[0].serverPort())}},
        {"worker",
         {"127.0.0.1:" + std::to_string(ports[1].serverPort()), "127.0.0.1:" + std::to_string(ports[2].serverPort())}}};
    for (auto& port : ports) port.close();
    auto start = [&](const std::string& job, int index) {
      ServerOptions options;
      options.cluster = *ClusterSpec::FromDict(jobs);
      options.job_name = job;
      options.task_index = index;
      options.log = [](const std::string&) {};
      return Server::Create(options);
    };
    auto ps = start("ps", 0);
    auto w0 = start("worker", 0);
    auto w1 = start("worker", 1);
    QVERIFY(ps.ok() && w0.ok() && w1.ok());

    constexpr int kLastStep = 30;
    std::atomic<int> runs[2] = {0, 0};
    std::string errors[2];
    float final_w = NAN;
    int64_t final_step = -1;
    auto replica = [&](int index, const std::string& target) {
      GraphBuilder g;
      ReplicaDeviceSetterOptions setter_options;
      setter_options.worker_device = "/job:worker/task:" + std::to_string(index);
      setter_options.cluster = jobs;
      auto setter = ReplicaDeviceSetter(setter_options);
      std::string train;
      SyncReplicasOptimizer sync(std::make_shared<GradientDescentOptimizer>(0.02),
                                 {.replicas_to_aggregate = 2, .total_num_replicas = 2});
      {
        auto scope = g.WithDevice(*setter);
        Regression r = BuildRegression(g);
        auto op = sync.Minimize(g, r.loss, r.global_step);
        if (!op.ok()) return void(errors[index] = std::string(StatusText(op.status())));
        train = op->node();
      }
      MonitoredTrainingSessionOptions options;
      options.master = target;
      options.is_chief = index == 0;
      options.log = std::make_shared<TrainingLog>("", false);
      options.hooks = {*sync.MakeSessionRunHook(options.is_chief),
                       std::make_shared<StopAtStepHook>(StopAtStepHook::LastStep(kLastStep))};
      auto session = MonitoredTrainingSession(g, options);
      if (!session.ok()) return void(errors[index] = std::string(StatusText(session.status())));
      std::vector<Tensor> out;
      while (!(*session)->should_stop()) {
        if (runs[index] == 100000) return void(errors[index] = "the session never said stop");
        Status s = (*session)->Run({train}, {}, &out);
        if (absl::IsOutOfRange(s)) break;  // the chief closed the token queue: training is over
        if (!s.ok()) return void(errors[index] = std::string(StatusText(s)));
        ++runs[index];
      }
      if (index == 0 && (*session)->raw_session()->Run({}, {"w:0", "global_step:0"}, {}, &out).ok()) {
        final_w = out[0].data<float>()[0];
        final_step = out[1].scalar<int64_t>();
      }
      Status closed = (*session)->Close();
      if (!closed.ok()) errors[index] = std::string(StatusText(closed));
    };
    std::thread chief(replica, 0, (*w0)->target());
    std::thread other(replica, 1, (*w1)->target());
    chief.join();
    other.join();
    QVERIFY2(errors[0].empty(), errors[0].c_str());
    QVERIFY2(errors[1].empty(), errors[1].c_str());
    // One update per two gradients: the global step counts aggregated updates, and every
    // gradient was computed from the current parameters, so the mean of the replicas' (equal)
    // gradients reproduces plain gradient descent exactly.
    QCOMPARE(final_step, int64_t(kLastStep));
    QCOMPARE(final_w, PlainDescent(kLastStep));
    QVERIFY(runs[0] + runs[1] >= 2 * kLastStep);
    QVERIFY(runs[0] > 0 && runs[1] > 0);
  }
};

QTEST_GUILESS_MAIN(SyncReplicasTest)
#include "tst_sync_replicas.moc"
