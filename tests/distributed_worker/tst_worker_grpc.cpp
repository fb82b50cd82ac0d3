// Two tasks in one process, each a Worker behind its own gRPC server on loopback: a ps that
// holds a variable and a worker whose MatMul receives the variable's value through
// _Send/_Recv and RecvTensor, driven the way a master drives them.
#include "TaskFixture.h"

#include "clab/compile/Partition.h"
#include "clab/compile/Placer.h"
#include "clab/graph/AttrValues.h"
#include "clab/graph/Graph.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/graph/Prune.h"
#include "clab/ops/Ops.h"
#include "clab/runtime/Rendezvous.h"
#include "distributed/GrpcRemoteWorker.h"
#include "distributed/LocalWorker.h"

#include <absl/strings/match.h>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <random>
#include <thread>

using namespace clab;
using namespace clab::testing;
using namespace std::chrono_literals;

namespace {

constexpr char kPs[] = "/job:ps/replica:0/task:0";
constexpr char kWorker[] = "/job:worker/replica:0/task:0";
constexpr char kSession[] = "0123456789abcdef";

std::string Cpu(const std::string& task) { return task + "/device:CPU:0"; }

int64_t NewStepId() {
  static std::mt19937_64 random{std::random_device{}()};
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  return static_cast<int64_t>((random() & ((uint64_t{1} << 56) - 1)) | (uint64_t{1} << 56));
}

tensorflow::NodeDef RecvNode(const std::string& name, const std::string& tensor_name, const std::string& from,
                             uint64_t from_incarnation, const std::string& to) {
  tensorflow::NodeDef node;
  node.set_name(name);
  node.set_op("_Recv");
  node.set_device(to);
  auto& attr = *node.mutable_attr();
  attr["tensor_type"] = AttrOf(DT_FLOAT);  // TensorFlow's name of _Recv's type
  attr["tensor_name"] = AttrOf(tensor_name);
  attr["send_device"] = AttrOf(from);
  attr["send_device_incarnation"] = AttrOf(static_cast<int64_t>(from_incarnation));
  attr["recv_device"] = AttrOf(to);
  return node;
}

tensorflow::NodeDef SendNode(const std::string& name, const std::string& input, const std::string& tensor_name,
                             const std::string& from, uint64_t from_incarnation, const std::string& to) {
  tensorflow::NodeDef node = RecvNode(name, tensor_name, from, from_incarnation, to);
  node.set_op("_Send");
  node.mutable_attr()->erase("tensor_type");
  (*node.mutable_attr())["T"] = AttrOf(DT_FLOAT);
  node.set_device(from);
  node.add_input(input);
  return node;
}

tensorflow::NodeDef IdentityNode(const std::string& name, const std::string& input, const std::string& device) {
  tensorflow::NodeDef node;
  node.set_name(name);
  node.set_op("Identity");
  node.set_device(device);
  node.add_input(input);
  (*node.mutable_attr())["T"] = AttrOf(DT_FLOAT);
  return node;
}

tensorflow::NodeDef ConstNode(const std::string& name, const Tensor& value, const std::string& device) {
  tensorflow::NodeDef node;
  node.set_name(name);
  node.set_op("Const");
  node.set_device(device);
  (*node.mutable_attr())["dtype"] = AttrOf(value.dtype());
  (*node.mutable_attr())["value"] = AttrOf(value);
  return node;
}

}  // namespace

class WorkerGrpcTest : public QObject {
  Q_OBJECT

 private:
  std::unique_ptr<TaskFixture> ps_;
  std::unique_ptr<TaskFixture> worker_;
  ClusterSpec cluster_;
  // The master's view: both tasks over gRPC.
  std::unique_ptr<GrpcWorkerCache> master_view_;
  tensorflow::GraphDef seed_graph_;

  WorkerInterface* Remote(const std::string& task) { return *master_view_->GetWorker(task); }

  tensorflow::CreateWorkerSessionRequest SessionRequest(const std::string& job) const {
    tensorflow::CreateWorkerSessionRequest request;
    request.set_session_handle(kSession);
    *request.mutable_server_def()->mutable_cluster() = cluster_.ToClusterDef();
    request.mutable_server_def()->set_job_name(job);
    request.mutable_server_def()->set_task_index(0);
    return request;
  }

  // What the master does for one signature: prune, place, split per task.
  std::map<std::string, tensorflow::GraphDef> PartitionsFor(const std::vector<std::string>& fetches,
                                                            const std::vector<std::string>& targets) {
    tensorflow::GraphDef pruned;
    Status pruned_status = PruneGraph(seed_graph_, {}, fetches, targets, &pruned);
    if (!pruned_status.ok()) qFatal("%s", std::string(pruned_status.message()).c_str());
    auto graph = Graph::FromGraphDef(pruned);
    if (!graph.ok()) qFatal("%s", std::string(graph.status().message()).c_str());
    std::vector<AvailableDevice> available = {{Cpu(kWorker), "CPU"}, {Cpu(kPs), "CPU"}};
    PlacerOptions placer;
    placer.log = [](const std::string&) {};
    Status placed = PlaceGraph(graph->get(), available, placer);
    if (!placed.ok()) qFatal("%s", std::string(placed.message()).c_str());
    PartitionOptions options;
    options.partition_of = [](const std::string& device) { return device.substr(0, device.find("/device:")); };
    options.incarnation_of = [this](const std::string& device) {
      return device.rfind(kPs, 0) == 0 ? ps_->cpu()->incarnation() : worker_->cpu()->incarnation();
    };
    std::map<std::string, tensorflow::GraphDef> partitions;
    Status partitioned = PartitionGraph(**graph, options, &partitions);
    if (!partitioned.ok()) qFatal("%s", std::string(partitioned.message()).c_str());
    return partitions;
  }

  StatusOr<std::string> Register(const std::string& task, const tensorflow::GraphDef& graph,
                                 const std::vector<std::string>& fetches = {},
                                 const std::vector<std::string>& targets = {}) {
    tensorflow::RegisterGraphRequest request;
    request.set_session_handle(kSession);
    *request.mutable_graph_def() = graph;
    for (const auto& fetch : fetches) request.add_fetch(fetch);
    for (const auto& target : targets) request.add_target(target);
    tensorflow::RegisterGraphResponse response;
    StatusWaiter waiter;
    Remote(task)->RegisterGraphAsync(request, &response, waiter.callback());
    CLAB_RETURN_IF_ERROR(waiter.Wait());
    return response.graph_handle();
  }

  // Starts one RunGraph; the caller keeps `request` and `response` until it completes.
  void StartRun(const std::string& task, tensorflow::RunGraphRequest* request, const std::string& graph_handle,
                int64_t step_id, tensorflow::RunGraphResponse* response, StatusWaiter& waiter,
                CallCancellation* cancellation = nullptr) {
    request->set_session_handle(kSession);
    request->set_graph_handle(graph_handle);
    request->set_step_id(step_id);
    Remote(task)->RunGraphAsync(*request, response, cancellation, waiter.callback());
  }

  void Cleanup(int64_t step_id) {
    for (const char* task : {kPs, kWorker}) {
      tensorflow::CleanupGraphRequest request;
      request.set_step_id(step_id);
      tensorflow::CleanupGraphResponse response;
      StatusWaiter waiter;
      Remote(task)->CleanupGraphAsync(request, &response, waiter.callback());
      QVERIFY(waiter.Wait().ok());
    }
  }

  static tensorflow::GraphDef BuildSeedGraph() {
    GraphBuilder g;
    ops::Variable w;
    {
      auto scope = g.WithDevice(Cpu(kPs));
      w = ops::MakeVariable(g, ops::Const(g, Tensor::Matrix<int32_t>({{2}, {2}, {2}, {2}}), "w_init"), "w");
    }
    {
      auto scope = g.WithDevice(Cpu(kWorker));
      ops::MatMul(g, ops::Const(g, Tensor::Matrix<int32_t>({{1, 2, 3, 4}}), "x"), w.read, false, false, "MatMul");
    }
    if (!g.status().ok()) qFatal("%s", std::string(g.status().message()).c_str());
    return g.graph_def();
  }

 private slots:
  void initTestCase() {
    ps_ = TaskFixture::Start(kPs);
    worker_ = TaskFixture::Start(kWorker);
    QVERIFY(ps_ && worker_);
    auto cluster = ClusterSpec::FromDict({{"ps", {ps_->address()}}, {"worker", {worker_->address()}}});
    QVERIFY(cluster.ok());
    cluster_ = *cluster;
    master_view_ = std::make_unique<GrpcWorkerCache>(cluster_, "", nullptr);
    for (const char* job : {"ps", "worker"}) {
      tensorflow::CreateWorkerSessionResponse response;
      StatusWaiter waiter;
      auto request = SessionRequest(job);
      Remote(std::string("/job:") + job + "/replica:0/task:0")
          ->CreateWorkerSessionAsync(request, &response, waiter.callback());
      QVERIFY2(waiter.Wait().ok(), job);
    }
    seed_graph_ = BuildSeedGraph();

    // Initialise the variable on the ps: a partition of its own.
    auto init = PartitionsFor({}, {"w/Assign"});
    QCOMPARE(init.size(), size_t(1));
    auto handle = Register(kPs, init.at(kPs), {}, {"w/Assign"});
    QVERIFY2(handle.ok(), std::string(handle.status().message()).c_str());
    tensorflow::RunGraphRequest request;
    tensorflow::RunGraphResponse response;
    StatusWaiter waiter;
    const int64_t step = NewStepId();
    StartRun(kPs, &request, *handle, step, &response, waiter);
    QVERIFY(waiter.Wait().ok());
    Cleanup(step);
  }

  void cleanupTestCase() {
    master_view_.reset();
    worker_.reset();
    ps_.reset();
  }

  void getStatusListsDevicesWithIncarnations() {
    tensorflow::GetStatusRequest request;
    tensorflow::GetStatusResponse response;
    QVERIFY(Remote(kPs)->GetStatus(request, &response, 5000).ok());
    QVERIFY(response.device_attributes_size() >= 1);
    QCOMPARE(QString::fromStdString(response.device_attributes(0).name()), QString::fromStdString(Cpu(kPs)));
    QCOMPARE(response.device_attributes(0).incarnation(), ps_->cpu()->incarnation());
  }

  void matMulReceivesVariableFromPs() {
    auto partitions = PartitionsFor({"MatMul:0"}, {});
    QCOMPARE(partitions.size(), size_t(2));
    auto ps_handle = Register(kPs, partitions.at(kPs));
    auto worker_handle = Register(kWorker, partitions.at(kWorker), {"MatMul:0"});
    QVERIFY2(ps_handle.ok(), std::string(ps_handle.status().message()).c_str());
    QVERIFY2(worker_handle.ok(), std::string(worker_handle.status().message()).c_str());

    for (int step = 0; step < 20; ++step) {
      const int64_t step_id = NewStepId();
      tensorflow::RunGraphRequest ps_request, worker_request;
      tensorflow::RunGraphResponse ps_response, worker_response;
      StatusWaiter ps_done, worker_done;
      // The worker first on odd steps: its RecvTensor may reach the ps before the ps's own
      // RunGraph, and the step must work either way.
      if (step % 2) StartRun(kWorker, &worker_request, *worker_handle, step_id, &worker_response, worker_done);
      StartRun(kPs, &ps_request, *ps_handle, step_id, &ps_response, ps_done);
      if (!(step % 2)) StartRun(kWorker, &worker_request, *worker_handle, step_id, &worker_response, worker_done);
      const Status ps_status = ps_done.Wait();
      const Status worker_status = worker_done.Wait();
      QVERIFY2(ps_status.ok(), std::string(ps_status.message()).c_str());
      QVERIFY2(worker_status.ok(), std::string(worker_status.message()).c_str());
      QCOMPARE(worker_response.recv_size(), 1);
      QCOMPARE(QString::fromStdString(worker_response.recv(0).name()), QString("MatMul:0"));
      auto value = Tensor::FromProto(worker_response.recv(0).tensor());
      QVERIFY(value.ok());
      QCOMPARE(QString::fromStdString(value->DebugString()), QString("[[20]]"));
      Cleanup(step_id);
    }
    QCOMPARE(ps_->worker->NumActiveSteps(), size_t(0));
    QCOMPARE(worker_->worker->NumActiveSteps(), size_t(0));
  }

  void recvWithStaleIncarnationIsAborted() {
    RendezvousKey key{Cpu(kPs), ps_->cpu()->incarnation() + 1, Cpu(kWorker), "edge_1_w/read:0"};
    tensorflow::RecvTensorRequest request;
    request.set_step_id(NewStepId());
    request.set_rendezvous_key(key.ToString());
    Tensor value;
    StatusWaiter waiter;
    Remote(kPs)->RecvTensorValueAsync(request, &value, nullptr, nullptr, waiter.callback());
    const Status status = waiter.Wait(5s);
    QCOMPARE(status.code(), absl::StatusCode::kAborted);
    QVERIFY2(absl::StrContains(status.message(), "RecvTensor expects a different device incarnation"),
             std::string(status.message()).c_str());
    QVERIFY(absl::StrContains(status.message(), "probably restarted"));
  }

  void malformedKeyIsInvalidArgument_data() {
    // clang-format off
    QTest::addColumn<QString>("key");
    QTest::newRow("garbage") << "garbage";
    QTest::newRow("four parts") << QString::fromStdString(Cpu(kPs) + ";01;" + Cpu(kWorker) + ";x");
    QTest::newRow("bad incarnation") << QString::fromStdString(Cpu(kPs) + ";zz;" + Cpu(kWorker) + ";x;0:0");
    QTest::newRow("partial device") << QString::fromStdString("/job:ps;01;" + Cpu(kWorker) + ";x;0:0");
    // clang-format on
  }
  void malformedKeyIsInvalidArgument() {
    QFETCH(QString, key);
    tensorflow::RecvTensorRequest request;
    request.set_step_id(NewStepId());
    request.set_rendezvous_key(key.toStdString());
    tensorflow::RecvTensorResponse response;
    StatusWaiter waiter;
    Remote(kPs)->RecvTensorAsync(request, &response, nullptr, waiter.callback());
    const Status status = waiter.Wait(5s);
    QCOMPARE(status.code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(absl::StrContains(status.message(), "Invalid rendezvous key"), std::string(status.message()).c_str());
    QVERIFY2(absl::StrContains(status.message(), ps_->address()), "the message names the peer's address");
  }

  void unknownHandlesAreAborted() {
    {
      tensorflow::RunGraphRequest request;
      tensorflow::RunGraphResponse response;
      StatusWaiter waiter;
      StartRun(kWorker, &request, "00000000deadbeef", NewStepId(), &response, waiter);
      const Status status = waiter.Wait(5s);
      QCOMPARE(status.code(), absl::StatusCode::kAborted);
      QVERIFY2(absl::StrContains(status.message(), "restarted"), std::string(status.message()).c_str());
    }
    {
      tensorflow::RunGraphRequest request;
      request.set_session_handle("feedfacefeedface");
      request.set_graph_handle("00000000deadbeef");
      request.set_step_id(NewStepId());
      request.set_store_errors_in_response_body(true);
      tensorflow::RunGraphResponse response;
      StatusWaiter waiter;
      Remote(kWorker)->RunGraphAsync(request, &response, nullptr, waiter.callback());
      QVERIFY(waiter.Wait(5s).ok());
      QCOMPARE(response.status_code(), int(absl::StatusCode::kAborted));
      QVERIFY(absl::StrContains(response.status_error_message(), "Session handle is not found"));
    }
  }

  // The ps's part of the step waits for a tensor the worker never sends, and the worker
  // waits for the ps's answer. Cancelling the ps's RunGraph must end the worker's step too,
  // promptly, instead of leaving its RecvTensor waiting.
  void cancelledStepFailsPeersWaitingRecv() {
    const uint64_t ps_incarnation = ps_->cpu()->incarnation();
    const uint64_t worker_incarnation = worker_->cpu()->incarnation();
    tensorflow::GraphDef ps_graph;
    *ps_graph.add_node() = RecvNode("never", "edge_never", Cpu(kWorker), worker_incarnation, Cpu(kPs));
    *ps_graph.add_node() = SendNode("answer", "never", "edge_answer", Cpu(kPs), ps_incarnation, Cpu(kWorker));
    tensorflow::GraphDef worker_graph;
    *worker_graph.add_node() = RecvNode("answer", "edge_answer", Cpu(kPs), ps_incarnation, Cpu(kWorker));
    *worker_graph.add_node() = IdentityNode("out", "answer", Cpu(kWorker));
    auto ps_handle = Register(kPs, ps_graph);
    auto worker_handle = Register(kWorker, worker_graph, {"out:0"});
    QVERIFY2(ps_handle.ok(), std::string(ps_handle.status().message()).c_str());
    QVERIFY2(worker_handle.ok(), std::string(worker_handle.status().message()).c_str());

    const int64_t step_id = NewStepId();
    tensorflow::RunGraphRequest ps_request, worker_request;
    tensorflow::RunGraphResponse ps_response, worker_response;
    StatusWaiter ps_done, worker_done;
    CallCancellation cancel_ps;
    StartRun(kPs, &ps_request, *ps_handle, step_id, &ps_response, ps_done, &cancel_ps);
    StartRun(kWorker, &worker_request, *worker_handle, step_id, &worker_response, worker_done);
    // Both parts run, and neither can finish by itself.
    QTRY_VERIFY_WITH_TIMEOUT(ps_->worker->NumRunsInFlight() == 1 && worker_->worker->NumRunsInFlight() == 1, 30000);
    QVERIFY(!ps_done.Ready());
    QVERIFY(!worker_done.Ready());

    cancel_ps.Cancel();
    // Without the cancellation reaching the peer, its step would wait for the abandoned-step
    // timeout (60 s), beyond these waits.
    const Status ps_status = ps_done.Wait(30s);
    const Status worker_status = worker_done.Wait(30s);
    QCOMPARE(ps_status.code(), absl::StatusCode::kCancelled);
    QVERIFY2(worker_status.code() == absl::StatusCode::kCancelled, std::string(worker_status.message()).c_str());
    Cleanup(step_id);
  }

  void cancelledRunGraphEndsAtOnce() {
    auto partitions = PartitionsFor({"MatMul:0"}, {});
    auto worker_handle = Register(kWorker, partitions.at(kWorker), {"MatMul:0"});
    QVERIFY(worker_handle.ok());
    // The ps never runs this step: the worker's _Recv waits until cancelled.
    const int64_t step_id = NewStepId();
    tensorflow::RunGraphRequest request;
    tensorflow::RunGraphResponse response;
    StatusWaiter done;
    CallCancellation cancellation;
    StartRun(kWorker, &request, *worker_handle, step_id, &response, done, &cancellation);
    // The worker's part runs and its RecvTensor has reached the ps (which holds the step).
    QTRY_VERIFY_WITH_TIMEOUT(worker_->worker->NumRunsInFlight() == 1 && ps_->worker->NumActiveSteps() == 1, 30000);
    QVERIFY(!done.Ready());
    cancellation.Cancel();
    QCOMPARE(done.Wait().code(), absl::StatusCode::kCancelled);
    // The ps learns of it through the cancelled RecvTensor, a message of its own on the
    // connection that arrives after the client side is done: wait for it there (the run
    // started below would otherwise race it and could finish first).
    QTRY_VERIFY_WITH_TIMEOUT(!ps_->worker->StepAbortStatus(step_id).ok(), 30000);
    // Its part of the step then fails too.
    auto ps_handle = Register(kPs, partitions.at(kPs));
    QVERIFY(ps_handle.ok());
    tensorflow::RunGraphRequest ps_request;
    tensorflow::RunGraphResponse ps_response;
    StatusWaiter ps_done;
    StartRun(kPs, &ps_request, *ps_handle, step_id, &ps_response, ps_done);
    QCOMPARE(ps_done.Wait().code(), absl::StatusCode::kCancelled);
    Cleanup(step_id);
  }

  void largeTensorCrossesIntact() {
    constexpr int64_t kCount = 1 << 20;
    Tensor big(DT_FLOAT, TensorShape{kCount});
    for (int64_t i = 0; i < kCount; ++i) big.data<float>()[i] = static_cast<float>(i) * 0.5f - 7.0f;
    tensorflow::GraphDef ps_graph;
    *ps_graph.add_node() = ConstNode("big", big, Cpu(kPs));
    *ps_graph.add_node() = SendNode("big/_send", "big", "edge_big", Cpu(kPs), ps_->cpu()->incarnation(), Cpu(kWorker));
    tensorflow::GraphDef worker_graph;
    *worker_graph.add_node() = RecvNode("big/_recv", "edge_big", Cpu(kPs), ps_->cpu()->incarnation(), Cpu(kWorker));
    *worker_graph.add_node() = IdentityNode("got", "big/_recv", Cpu(kWorker));
    auto ps_handle = Register(kPs, ps_graph);
    auto worker_handle = Register(kWorker, worker_graph, {"got:0"});
    QVERIFY(ps_handle.ok() && worker_handle.ok());

    for (int round = 0; round < 3; ++round) {
      const int64_t step_id = NewStepId();
      tensorflow::RunGraphRequest ps_request, worker_request;
      tensorflow::RunGraphResponse ps_response, worker_response;
      StatusWaiter ps_done, worker_done;
      const auto start = std::chrono::steady_clock::now();
      StartRun(kWorker, &worker_request, *worker_handle, step_id, &worker_response, worker_done);
      StartRun(kPs, &ps_request, *ps_handle, step_id, &ps_response, ps_done);
      QVERIFY(ps_done.Wait().ok());
      const Status status = worker_done.Wait();
      QVERIFY2(status.ok(), std::string(status.message()).c_str());
      const auto micros =
          std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
      qInfo("4 MiB step (RecvTensor + RunGraph fetch): %lld us", static_cast<long long>(micros.count()));
      auto got = Tensor::FromProto(worker_response.recv(0).tensor());
      QVERIFY(got.ok());
      QVERIFY(got->Equals(big));
      Cleanup(step_id);
    }
  }

  void oversizedReplyIsResourceExhausted() {
    constexpr int64_t kCount = 1 << 20;
    Tensor big(DT_FLOAT, TensorShape{kCount});
    for (int64_t i = 0; i < kCount; ++i) big.data<float>()[i] = static_cast<float>(i % 1000);
    tensorflow::GraphDef ps_graph;
    *ps_graph.add_node() = ConstNode("big", big, Cpu(kPs));
    *ps_graph.add_node() = SendNode("big/_send", "big", "edge_big", Cpu(kPs), ps_->cpu()->incarnation(), Cpu(kWorker));
    auto ps_handle = Register(kPs, ps_graph);
    QVERIFY(ps_handle.ok());
    const int64_t step_id = NewStepId();
    tensorflow::RunGraphRequest ps_request;
    tensorflow::RunGraphResponse ps_response;
    StatusWaiter ps_done;
    StartRun(kPs, &ps_request, *ps_handle, step_id, &ps_response, ps_done);
    QVERIFY(ps_done.Wait().ok());

    RendezvousKey key{Cpu(kPs), ps_->cpu()->incarnation(), Cpu(kWorker), "edge_big"};
    tensorflow::RecvTensorRequest request;
    request.set_step_id(step_id);
    request.set_rendezvous_key(key.ToString());
    ChannelSettings small;
    small.max_receive_message_bytes = 1 << 20;
    GrpcRemoteWorker limited(kPs, ps_->address(), CreateChannel(ps_->address(), small));
    Tensor value;
    StatusWaiter waiter;
    limited.RecvTensorValueAsync(request, &value, nullptr, nullptr, waiter.callback());
    const Status status = waiter.Wait(10s);
    QCOMPARE(status.code(), absl::StatusCode::kResourceExhausted);
    QVERIFY2(absl::StrContains(status.message(), ps_->address()), std::string(status.message()).c_str());
    Cleanup(step_id);
  }

  // A master in the worker's own process reaches that worker directly.
  void ownTaskIsCalledInProcess() {
    GrpcWorkerCache cache(cluster_, kWorker, worker_->worker.get());
    auto own = cache.GetWorker("/job:worker/task:0");
    QVERIFY(own.ok());
    QVERIFY(dynamic_cast<LocalWorker*>(*own) != nullptr);
    auto other = cache.GetWorker(kPs);
    QVERIFY(other.ok());
    QVERIFY(dynamic_cast<GrpcRemoteWorker*>(*other) != nullptr);
    QCOMPARE(*cache.GetWorker(kPs), *other);
    QCOMPARE(cache.GetWorker("/job:chief/task:0").status().code(), absl::StatusCode::kNotFound);
    QCOMPARE(QString::fromStdString(cache.AddressOf(kPs)), QString::fromStdString(ps_->address()));

    auto partitions = PartitionsFor({"MatMul:0"}, {});
    auto ps_handle = Register(kPs, partitions.at(kPs));
    QVERIFY(ps_handle.ok());
    tensorflow::RegisterGraphRequest register_request;
    register_request.set_session_handle(kSession);
    *register_request.mutable_graph_def() = partitions.at(kWorker);
    register_request.add_fetch("MatMul:0");
    tensorflow::RegisterGraphResponse register_response;
    StatusWaiter registered;
    (*own)->RegisterGraphAsync(register_request, &register_response, registered.callback());
    QVERIFY(registered.Wait().ok());

    const int64_t step_id = NewStepId();
    tensorflow::RunGraphRequest ps_request, worker_request;
    tensorflow::RunGraphResponse ps_response, worker_response;
    StatusWaiter ps_done, worker_done;
    StartRun(kPs, &ps_request, *ps_handle, step_id, &ps_response, ps_done);
    worker_request.set_session_handle(kSession);
    worker_request.set_graph_handle(register_response.graph_handle());
    worker_request.set_step_id(step_id);
    (*own)->RunGraphAsync(worker_request, &worker_response, nullptr, worker_done.callback());
    QVERIFY(ps_done.Wait().ok());
    QVERIFY(worker_done.Wait().ok());
    QCOMPARE(QString::fromStdString(Tensor::FromProto(worker_response.recv(0).tensor())->DebugString()),
             QString("[[20]]"));
    Cleanup(step_id);
  }
};

QTEST_APPLESS_MAIN(WorkerGrpcTest)
#include "tst_worker_grpc.moc"
