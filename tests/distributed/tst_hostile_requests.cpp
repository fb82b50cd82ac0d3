// Requests written to break a task, sent over real gRPC to a server of this process: feeds
// far bigger than their content or than the task's limit, ops asked for tensors beyond any
// memory, a constant whose byte count wraps, bytes that are no request at all, and a
// CreateSession whose client gives up. Each fails its one call with a status that names
// what is wrong; the task keeps serving the next request.
#include "ServerFixture.h"
#include "clab/core/MemoryBudget.h"
#include "clab/core/TensorSize.h"
#include "tensorflow/master.grpc.pb.h"

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <fstream>
#include <future>
#include <limits>

using namespace clab;
using namespace clab::testing;

namespace {

std::string Message(const grpc::Status& status) {
  return std::to_string(static_cast<int>(status.error_code())) + " " + status.error_message();
}

}  // namespace

class HostileRequestsTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    // A limit below this machine's memory, so that the checks and not the machine decide.
    TensorSize::SetMaxTensorBytes(uint64_t{256} << 20);
    QVERIFY(data_.isValid());
    csv_ = data_.filePath("rows.csv").toStdString();
    {
      std::ofstream out(csv_);
      out << "a,b,class\n1,2,0\n3,4,1\n";
    }
    // The ps is never started: only CreateSession's wait for it needs it.
    auto cluster =
        ClusterSpec::FromDict({{"worker", {LoopbackAddress(FreePort())}}, {"ps", {LoopbackAddress(FreePort())}}});
    QVERIFY(cluster.ok());
    auto server = StartServer(*cluster, "worker", 0, &log_, {data_.path().toStdString()});
    QVERIFY2(server.ok(), server.status().ToString().c_str());
    server_ = *std::move(server);
    QVERIFY(server_->Start().ok());
    channel_ = grpc::CreateChannel(*cluster->TaskAddress("worker", 0), grpc::InsecureChannelCredentials());
    stub_ = tensorflow::MasterService::NewStub(channel_);

    GraphBuilder g;
    ops::Identity(g, ops::Placeholder(g, DT_FLOAT, PartialShape::Unknown(), "x"), "y");
    ops::Identity(g, ops::Placeholder(g, DT_STRING, PartialShape::Unknown(), "s"), "t");
    ops::Fill(g, ops::Placeholder(g, DT_INT64, PartialShape{1}, "dims"), ops::Const(g, Tensor::Scalar<float>(1), "one"),
              "fill");
    ops::MinibatchDatasetOptions dataset;
    dataset.path = csv_;
    dataset.batch_size = 1000000000000;
    ops::MinibatchDataset(g, dataset, "batches");
    QVERIFY2(g.status().ok(), g.status().ToString().c_str());
    auto handle = CreateSession(g.graph_def());
    QVERIFY2(handle.ok(), handle.status().ToString().c_str());
    handle_ = *handle;
  }

  void cleanupTestCase() {
    stub_.reset();
    if (server_) server_->Stop().IgnoreError();
    TensorSize::SetMaxTensorBytes(0);
  }

  void feedBiggerThanItsContent() {
    tensorflow::TensorProto x;
    x.set_dtype(DT_FLOAT);
    x.mutable_tensor_shape()->add_dim()->set_size(1000000000000);
    x.set_tensor_content(std::string(4, '\0'));
    const grpc::Status status = RunStep("x", x, "y:0");
    QCOMPARE(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    QVERIFY2(status.error_message().find("'x") != std::string::npos, Message(status).c_str());
    QVERIFY2(status.error_message().find("needs 4000000000000 bytes of tensor_content, got 4") != std::string::npos,
             Message(status).c_str());
    StillServes();
  }

  void feedOverTheLimit() {
    tensorflow::TensorProto s;
    s.set_dtype(DT_STRING);
    s.mutable_tensor_shape()->add_dim()->set_size(1000000000);
    s.add_string_val("a");
    const grpc::Status status = RunStep("s", s, "t:0");
    QCOMPARE(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    QVERIFY2(status.error_message().find("max_tensor_bytes") != std::string::npos, Message(status).c_str());
    StillServes();
  }

  void opOutputOverTheLimit() {
    tensorflow::TensorProto dims;
    Tensor::Vector<int64_t>({1000000000000000}).AsProto(&dims);
    const grpc::Status status = RunStep("dims", dims, "fill:0");
    QCOMPARE(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    QVERIFY2(status.error_message().find("fill") != std::string::npos, Message(status).c_str());
    StillServes();
  }

  // Each tensor is under the per-tensor limit, but the task's memory limit is lower: the
  // step fails with RESOURCE_EXHAUSTED naming the op and the flag, and a step that fits runs.
  void stepOverTheTaskMemoryLimit() {
    MemoryBudget::SetLimit(uint64_t{64} << 20);
    tensorflow::TensorProto dims;
    Tensor::Vector<int64_t>({20000000}).AsProto(&dims);  // 80 MB of floats
    const grpc::Status status = RunStep("dims", dims, "fill:0");
    QCOMPARE(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    QVERIFY2(status.error_message().find("fill") != std::string::npos, Message(status).c_str());
    QVERIFY2(status.error_message().find("--max_memory_bytes") != std::string::npos, Message(status).c_str());
    Tensor::Vector<int64_t>({1000000}).AsProto(&dims);  // 4 MB fits
    const grpc::Status fits = RunStep("dims", dims, "fill:0");
    MemoryBudget::SetLimit(0);
    QVERIFY2(fits.ok(), Message(fits).c_str());
    StillServes();
  }

  void datasetBatchOverTheLimit() {
    tensorflow::RunStepRequest request;
    request.set_session_handle(handle_);
    request.add_fetch("batches:0");
    tensorflow::RunStepResponse response;
    grpc::ClientContext context;
    const grpc::Status status = stub_->RunStep(&context, request, &response);
    QCOMPARE(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    QVERIFY2(status.error_message().find("batch_size 1000000000000") != std::string::npos, Message(status).c_str());
    StillServes();
  }

  void constantWhoseSizeWraps() {
    tensorflow::GraphDef graph;
    tensorflow::NodeDef* node = graph.add_node();
    node->set_name("c");
    node->set_op("Const");
    (*node->mutable_attr())["dtype"].set_type(DT_FLOAT);
    tensorflow::TensorProto* value = (*node->mutable_attr())["value"].mutable_tensor();
    value->set_dtype(DT_FLOAT);
    value->mutable_tensor_shape()->add_dim()->set_size(int64_t{1} << 62);
    value->add_float_val(1);
    auto handle = CreateSession(graph);
    grpc::Status status;
    if (handle.ok()) {
      tensorflow::RunStepRequest request;
      request.set_session_handle(*handle);
      request.add_fetch("c:0");
      tensorflow::RunStepResponse response;
      grpc::ClientContext context;
      status = stub_->RunStep(&context, request, &response);
    } else {
      status =
          grpc::Status(static_cast<grpc::StatusCode>(handle.status().code()), std::string(handle.status().message()));
    }
    QCOMPARE(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    QVERIFY2(status.error_message().find("[4611686018427387904]") != std::string::npos, Message(status).c_str());
    StillServes();
  }

  void bytesThatAreNoRequest_data() {
    QTest::addColumn<QString>("method");
    QTest::addColumn<QString>("expected");
    QTest::newRow("master") << "/tensorflow.MasterService/RunStep"
                            << "RunStep: the request (6 bytes) is not a valid "
                               "tensorflow.RunStepRequest";
    QTest::newRow("worker") << "/tensorflow.WorkerService/RunGraph"
                            << "RunGraph: the request (6 bytes) is not a valid "
                               "tensorflow.RunGraphRequest";
    QTest::newRow("recv") << "/tensorflow.WorkerService/RecvTensor"
                          << "RecvTensor: the request is not";
  }
  void bytesThatAreNoRequest() {
    // A field whose length runs past the end: no protobuf parser accepts it. gRPC's typed
    // methods answered it with UNIMPLEMENTED and no message.
    QFETCH(QString, method);
    QFETCH(QString, expected);
    grpc::GenericStub generic(channel_);
    const std::string garbage = "\x0a\xff\xff\xff\xff\x0f";
    grpc::Slice slice(garbage);
    grpc::ByteBuffer request(&slice, 1);
    grpc::ByteBuffer response;
    grpc::ClientContext context;
    std::promise<grpc::Status> done;
    generic.UnaryCall(&context, method.toStdString(), grpc::StubOptions(), &request, &response,
                      [&done](grpc::Status status) { done.set_value(std::move(status)); });
    const grpc::Status status = done.get_future().get();
    QCOMPARE(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    QVERIFY2(status.error_message().find(expected.toStdString()) != std::string::npos, Message(status).c_str());
    StillServes();
  }

  // Timeouts from the client beyond what a clock can hold (here INT64_MAX ms): no timeout,
  // not a deadline that wrapped into the past, and no overflow on the way.
  void timeoutsBeyondAnyClock() {
    tensorflow::TensorProto x;
    Tensor::Vector<float>({1.5f}).AsProto(&x);
    tensorflow::RunStepRequest request;
    request.set_session_handle(handle_);
    tensorflow::NamedTensorProto* fed = request.add_feed();
    fed->set_name("x:0");
    *fed->mutable_tensor() = x;
    request.add_fetch("y:0");
    request.mutable_options()->set_timeout_in_ms(std::numeric_limits<int64_t>::max());
    tensorflow::RunStepResponse response;
    grpc::ClientContext context;
    const grpc::Status status = stub_->RunStep(&context, request, &response);
    QVERIFY2(status.ok(), Message(status).c_str());

    // A wait for tasks with no end that logs once in INT64_MAX ms: still ends with its client.
    tensorflow::CreateSessionRequest create;
    create.mutable_config()->mutable_clusterlab()->set_wait_for_tasks_ms(std::numeric_limits<int64_t>::max());
    create.mutable_config()->mutable_clusterlab()->set_wait_log_interval_ms(std::numeric_limits<int64_t>::max());
    tensorflow::CreateSessionResponse created;
    grpc::ClientContext waiting;
    waiting.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(300));
    const grpc::Status waited = stub_->CreateSession(&waiting, create, &created);
    QCOMPARE(waited.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
    StillServes();
  }

  // A client that opens sessions and never closes them: the master keeps at most 1024 open,
  // refuses the next with RESOURCE_EXHAUSTED, and takes new ones again once some are closed.
  void openSessionsAreCapped() {
    GraphBuilder g;
    ops::Const(g, Tensor::Scalar<float>(1), "c");
    std::vector<std::string> opened;
    Status refused;
    for (int i = 0; i < 1100 && refused.ok(); ++i) {
      auto handle = CreateSession(g.graph_def());
      if (handle.ok()) {
        opened.push_back(*handle);
      } else {
        refused = handle.status();
      }
    }
    QCOMPARE(refused.code(), absl::StatusCode::kResourceExhausted);
    QVERIFY2(std::string(refused.message()).find("already holds 1024 open sessions") != std::string::npos,
             std::string(refused.message()).c_str());
    QVERIFY2(opened.size() > 1000 && opened.size() <= 1024, std::to_string(opened.size()).c_str());
    StillServes();
    for (const std::string& handle : opened) {
      tensorflow::CloseSessionRequest close;
      close.set_session_handle(handle);
      tensorflow::CloseSessionResponse closed;
      grpc::ClientContext context;
      QVERIFY(stub_->CloseSession(&context, close, &closed).ok());
    }
    auto again = CreateSession(g.graph_def());
    QVERIFY2(again.ok(), std::string(again.status().message()).c_str());
  }

  void createSessionWaitEndsWithItsClient() {
    // The ps never comes up and the wait has no deadline: only the client going away ends it.
    tensorflow::CreateSessionRequest request;
    request.mutable_config()->mutable_clusterlab()->set_wait_for_tasks_ms(-1);
    request.mutable_config()->mutable_clusterlab()->set_wait_log_interval_ms(100);
    tensorflow::CreateSessionResponse response;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(500));
    const grpc::Status status = stub_->CreateSession(&context, request, &response);
    QCOMPARE(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
    QVERIFY2(log_.WaitFor("CreateSession was cancelled by its client", 60000), log_.All().c_str());
    StillServes();
  }

 private:
  StatusOr<std::string> CreateSession(const tensorflow::GraphDef& graph) {
    tensorflow::CreateSessionRequest request;
    *request.mutable_graph_def() = graph;
    request.mutable_config()->add_device_filters("/job:worker");
    tensorflow::CreateSessionResponse response;
    grpc::ClientContext context;
    const grpc::Status status = stub_->CreateSession(&context, request, &response);
    if (!status.ok()) return Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
    return response.session_handle();
  }

  grpc::Status RunStep(const std::string& feed, const tensorflow::TensorProto& value, const std::string& fetch) {
    tensorflow::RunStepRequest request;
    request.set_session_handle(handle_);
    tensorflow::NamedTensorProto* fed = request.add_feed();
    fed->set_name(feed + ":0");
    *fed->mutable_tensor() = value;
    request.add_fetch(fetch);
    tensorflow::RunStepResponse response;
    grpc::ClientContext context;
    return stub_->RunStep(&context, request, &response);
  }

  // An ordinary step right after: the task is still there and still right.
  void StillServes() {
    tensorflow::TensorProto x;
    Tensor::Vector<float>({1.5f, 2.5f}).AsProto(&x);
    tensorflow::RunStepRequest request;
    request.set_session_handle(handle_);
    tensorflow::NamedTensorProto* fed = request.add_feed();
    fed->set_name("x:0");
    *fed->mutable_tensor() = x;
    request.add_fetch("y:0");
    tensorflow::RunStepResponse response;
    grpc::ClientContext context;
    const grpc::Status status = stub_->RunStep(&context, request, &response);
    QVERIFY2(status.ok(), Message(status).c_str());
    QCOMPARE(response.tensor_size(), 1);
    auto y = Tensor::FromProto(response.tensor(0).tensor());
    QVERIFY(y.ok());
    QVERIFY(y->Equals(Tensor::Vector<float>({1.5f, 2.5f})));
  }

  QTemporaryDir data_;
  std::string csv_;
  LogCapture log_;
  std::unique_ptr<GrpcServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<tensorflow::MasterService::Stub> stub_;
  std::string handle_;
};

QTEST_APPLESS_MAIN(HostileRequestsTest)
#include "tst_hostile_requests.moc"
