// The master's answers to TensorFlow's calls beyond RunStep, on the master itself (no TensorFlow
// material needed; tests/tf_protocol drives the same over the wire with TensorFlow's own
// messages): partial runs, callables, and Reset, with TensorFlow's status codes.
#include "ServerFixture.h"
#include "StatusText.h"

#include "distributed/Master.h"

#include <QtTest>

#include <future>
#include <optional>

using namespace clab;
using namespace clab::testing;

namespace {

struct Cluster {
  int ps_port = FreePort();
  int worker_port = FreePort();
  ClusterSpec spec() const {
    return *ClusterSpec::FromDict({{"ps", {LoopbackAddress(ps_port)}}, {"worker", {LoopbackAddress(worker_port)}}});
  }
};

// x, y, c placeholders; r1 = x + y; r2 = r1 * c.
tensorflow::GraphDef ModelGraph() {
  GraphBuilder g;
  Output x = ops::Placeholder(g, DT_FLOAT, PartialShape(), "x");
  Output y = ops::Placeholder(g, DT_FLOAT, PartialShape(), "y");
  Output c = ops::Placeholder(g, DT_FLOAT, PartialShape(), "c");
  Output r1 = ops::Add(g, x, y, "r1");
  ops::Mul(g, r1, c, "r2");
  return g.graph_def();
}

tensorflow::NamedTensorProto Fed(const std::string& name, float value) {
  tensorflow::NamedTensorProto fed;
  fed.set_name(name);
  Tensor::Scalar<float>(value).AsProto(fed.mutable_tensor());
  return fed;
}

float ValueOf(const tensorflow::TensorProto& proto) {
  StatusOr<Tensor> tensor = Tensor::FromProto(proto);
  return tensor.ok() ? *tensor->data<float>() : -1.0f;
}

bool Mentions(const Status& status, const std::string& text) {
  return std::string(status.message()).find(text) != std::string::npos;
}

}  // namespace

class MasterProtocolTest : public QObject {
  Q_OBJECT

 private slots:
  void init();
  void cleanup();
  void partialRunsFollowTensorFlowsRules();
  void callablesRunByHandle();
  void resetDropsSessionsWithAborted();

 private:
  Master* master() { return (**worker_)->master(); }
  std::string CreateSession();

  Cluster cluster_;
  std::optional<StatusOr<std::unique_ptr<GrpcServer>>> ps_, worker_;
};

void MasterProtocolTest::init() {
  cluster_ = Cluster();
  ps_.emplace(StartServer(cluster_.spec(), "ps", 0));
  worker_.emplace(StartServer(cluster_.spec(), "worker", 0));
  QVERIFY2(ps_->ok() && worker_->ok(), "servers start");
}

void MasterProtocolTest::cleanup() {
  worker_.reset();
  ps_.reset();
}

std::string MasterProtocolTest::CreateSession() {
  tensorflow::CreateSessionRequest create;
  *create.mutable_graph_def() = ModelGraph();
  tensorflow::CreateSessionResponse created;
  const Status status = master()->CreateSession(create, &created);
  return status.ok() ? created.session_handle() : "";
}

void MasterProtocolTest::partialRunsFollowTensorFlowsRules() {
  const std::string session = CreateSession();
  QVERIFY(!session.empty());
  tensorflow::PartialRunSetupRequest setup;
  setup.set_session_handle(session);
  for (const char* feed : {"x:0", "y:0", "c:0"}) setup.add_feed(feed);
  for (const char* fetch : {"r1:0", "r2:0"}) setup.add_fetch(fetch);
  tensorflow::PartialRunSetupResponse handle;
  QVERIFY(master()->PartialRunSetup(setup, &handle).ok());
  QCOMPARE(handle.partial_run_handle(), std::string("0"));  // numbered as TensorFlow numbers them

  auto call = [&](std::vector<tensorflow::NamedTensorProto> feeds, std::vector<std::string> fetches,
                  tensorflow::RunStepResponse* response) {
    tensorflow::RunStepRequest request;
    request.set_session_handle(session);
    request.set_partial_run_handle(handle.partial_run_handle());
    for (auto& feed : feeds) *request.add_feed() = feed;
    for (auto& fetch : fetches) request.add_fetch(fetch);
    return master()->RunStep(request, response);
  };
  tensorflow::RunStepResponse response;
  QVERIFY(call({Fed("x:0", 1), Fed("y:0", 2)}, {"r1:0"}, &response).ok());
  QCOMPARE(ValueOf(response.tensor(0).tensor()), 3.0f);

  Status status = call({}, {"r2:0"}, &response);
  QCOMPARE(status.code(), absl::StatusCode::kInvalidArgument);
  QVERIFY2(Mentions(status, "can't be computed from the feeds that have been fed so far"), StatusText(status));
  status = call({Fed("x:0", 5)}, {}, &response);
  QCOMPARE(status.code(), absl::StatusCode::kInvalidArgument);
  QVERIFY2(Mentions(status, "The feed x:0 has already been fed."), StatusText(status));
  status = call({}, {"r1:0"}, &response);
  QVERIFY2(Mentions(status, "The fetch r1:0 has already been fetched."), StatusText(status));
  status = call({Fed("z:0", 5)}, {}, &response);
  QVERIFY2(Mentions(status, "The feed z:0 was not specified in partial_run_setup."), StatusText(status));

  // Feeding alone runs nothing; the last call completes the run.
  QVERIFY(call({Fed("c:0", 4)}, {}, &response).ok());
  tensorflow::RunStepResponse last;
  QVERIFY(call({}, {"r2:0"}, &last).ok());
  QCOMPARE(ValueOf(last.tensor(0).tensor()), 12.0f);
  status = call({}, {"r2:0"}, &response);
  QCOMPARE(status.code(), absl::StatusCode::kInvalidArgument);
  QVERIFY2(Mentions(status, "Must run PartialRunSetup before performing partial runs"), StatusText(status));

  setup.clear_fetch();
  setup.add_fetch("nope:0");
  QCOMPARE(master()->PartialRunSetup(setup, &handle).code(), absl::StatusCode::kNotFound);
}

void MasterProtocolTest::callablesRunByHandle() {
  const std::string session = CreateSession();
  QVERIFY(!session.empty());
  tensorflow::MakeCallableRequest make;
  make.set_session_handle(session);
  make.mutable_options()->add_feed("x:0");
  make.mutable_options()->add_feed("y:0");
  make.mutable_options()->add_fetch("r1:0");
  tensorflow::MakeCallableResponse made;
  QVERIFY(master()->MakeCallable(make, &made).ok());
  QCOMPARE(made.handle(), int64_t{0});

  auto run = [&](int64_t handle, std::vector<float> feeds, tensorflow::RunCallableResponse* response) {
    tensorflow::RunCallableRequest request;
    request.set_session_handle(session);
    request.set_handle(handle);
    for (float feed : feeds) Tensor::Scalar<float>(feed).AsProto(request.add_feed());
    std::promise<Status> finished;
    master()->RunCallableAsync(request, response, [&](const Status& status) { finished.set_value(status); });
    return finished.get_future().get();
  };
  tensorflow::RunCallableResponse response;
  QVERIFY(run(made.handle(), {5, 6}, &response).ok());
  QCOMPARE(response.fetch_size(), 1);
  QCOMPARE(ValueOf(response.fetch(0)), 11.0f);
  QCOMPARE(run(made.handle(), {5}, &response).code(), absl::StatusCode::kInvalidArgument);
  Status status = run(7, {5, 6}, &response);
  QVERIFY2(Mentions(status, "No such callable handle: 7"), StatusText(status));

  tensorflow::ReleaseCallableRequest release;
  release.set_session_handle(session);
  release.set_handle(made.handle());
  QVERIFY(master()->ReleaseCallable(release).ok());
  QVERIFY(master()->ReleaseCallable(release).ok());  // again: no error, as in TensorFlow
  status = run(made.handle(), {5, 6}, &response);
  QCOMPARE(status.code(), absl::StatusCode::kInvalidArgument);
  QVERIFY2(Mentions(status, "Attempted to run callable after handle was released: 0"), StatusText(status));

  make.mutable_options()->add_tensor_connection()->set_from_tensor("r1:0");
  QCOMPARE(master()->MakeCallable(make, &made).code(), absl::StatusCode::kUnimplemented);
}

void MasterProtocolTest::resetDropsSessionsWithAborted() {
  const std::string session = CreateSession();
  QVERIFY(!session.empty());
  QVERIFY(master()->Reset(tensorflow::ResetRequest()).ok());
  tensorflow::RunStepRequest run;
  run.set_session_handle(session);
  *run.add_feed() = Fed("x:0", 1);
  *run.add_feed() = Fed("y:0", 2);
  run.add_fetch("r1:0");
  tensorflow::RunStepResponse response;
  // ABORTED, which a monitored session recovers from (FAILED_PRECONDITION would stop it).
  const Status status = master()->RunStep(run, &response);
  QCOMPARE(status.code(), absl::StatusCode::kAborted);
  QVERIFY2(Mentions(status, "Session " + session + " is not found"), StatusText(status));
  tensorflow::ListDevicesRequest list;
  list.set_session_handle(session);
  tensorflow::ListDevicesResponse devices;
  QCOMPARE(master()->ListDevices(list, &devices).code(), absl::StatusCode::kInvalidArgument);
}

QTEST_GUILESS_MAIN(MasterProtocolTest)
#include "tst_master_protocol.moc"
