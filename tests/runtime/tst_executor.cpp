// The executor on its own: independent ops run at the same time, a failing op stops the step and its
// rendezvous, feeds stand in for nodes, variables are read safely, _Send/_Recv meet.
#include "clab/graph/AttrValues.h"
#include "clab/graph/OpRegistry.h"
#include "clab/runtime/Executor.h"
#include "clab/runtime/OpKernel.h"
#include "clab/runtime/Rendezvous.h"
#include "clab/runtime/ThreadPool.h"

#include <QtTest>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <map>
#include <mutex>
#include <thread>

using namespace clab;

namespace {

const std::string kTask = "/job:localhost/replica:0/task:0";
const std::string kCpu0 = kTask + "/device:CPU:0";

std::atomic<int> g_count_runs{0};

// Each TestMeet op waits until `parties` of them are running at once: if the executor ran
// independent ops one after another, the first would wait in vain (bounded) and fail.
std::mutex g_meet_mu;
std::condition_variable g_meet_cv;
int g_meet_arrived = 0;

class MeetKernel : public OpKernel {
 public:
  explicit MeetKernel(int64_t parties) : parties_(parties) {}
  bool IsExpensive() const override { return true; }
  void Compute(OpKernelContext* ctx) override {
    std::unique_lock<std::mutex> lock(g_meet_mu);
    ++g_meet_arrived;
    g_meet_cv.notify_all();
    if (!g_meet_cv.wait_for(lock, std::chrono::seconds(60), [this] { return g_meet_arrived >= parties_; })) {
      ctx->SetStatus(errors::DeadlineExceeded("only ", g_meet_arrived, " of ", parties_, " ops ran at once"));
      return;
    }
    ctx->set_output(0, Tensor::Scalar<float>(static_cast<float>(parties_)));
  }

 private:
  int64_t parties_;
};

void RegisterTestOps() {
  OpRegistry& registry = OpRegistry::Global();
  registry.Register("TestMeet")
      .Output("out: float")
      .Attr("parties: int")
      .Stateful()
      .Kernel("CPU", [](OpKernelConstruction& c) -> StatusOr<std::unique_ptr<OpKernel>> {
        int64_t parties = 0;
        CLAB_RETURN_IF_ERROR(c.GetAttr("parties", &parties));
        return std::unique_ptr<OpKernel>(std::make_unique<MeetKernel>(parties));
      });
  registry.Register("TestFail").Output("out: float").Stateful().Kernel("CPU", LambdaKernel([](OpKernelContext* ctx) {
                                                                         ctx->SetStatus(
                                                                             errors::InvalidArgument("boom"));
                                                                       }));
  registry.Register("TestCount")
      .Input("in: float")
      .Output("out: float")
      .Stateful()
      .Kernel("CPU", LambdaKernel([](OpKernelContext* ctx) {
                ++g_count_runs;
                ctx->set_output(0, ctx->input(0));
              }));
}

tensorflow::NodeDef NodeDefOf(const std::string& name, const std::string& op,
                              const std::vector<std::string>& inputs = {},
                              const std::map<std::string, tensorflow::AttrValue>& attrs = {}) {
  tensorflow::NodeDef node;
  node.set_name(name);
  node.set_op(op);
  node.set_device(kCpu0);
  for (const auto& input : inputs) node.add_input(input);
  for (const auto& [key, value] : attrs) (*node.mutable_attr())[key] = value;
  return node;
}

tensorflow::GraphDef GraphOf(const std::vector<tensorflow::NodeDef>& nodes) {
  tensorflow::GraphDef graph;
  for (const auto& node : nodes) *graph.add_node() = node;
  return graph;
}

// `type_attr`: "T" for _Send, "tensor_type" for _Recv (TensorFlow's names).
std::map<std::string, tensorflow::AttrValue> SendRecvAttrs(const std::string& tensor_name,
                                                           const std::string& type_attr = "T") {
  return {{type_attr, AttrOf(DT_FLOAT)},
          {"tensor_name", AttrOf(tensor_name)},
          {"send_device", AttrOf(kCpu0)},
          {"send_device_incarnation", AttrOf(int64_t{1})},
          {"recv_device", AttrOf(kCpu0)}};
}

}  // namespace

class TestExecutor : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void runsChainAndFetches();
  void independentOpsOverlap();
  void errorAbortsStepAndRendezvous();
  void feedStandsInForNode();
  void uninitializedVariableIsNamed();
  void sendAndRecvMeetAcrossExecutors();
  void unknownFetchIsRejectedAtCreate();
  void collectsStepStats();

 private:
  std::unique_ptr<DeviceMgr> devices_;
  Device* cpu_ = nullptr;
};

void TestExecutor::initTestCase() {
  RegisterTestOps();
  auto devices = DeviceMgr::CreateLocal(kTask, tensorflow::ConfigProto());
  QVERIFY2(devices.ok(), FormatStatus(devices.status()).c_str());
  devices_ = std::move(devices).value();
  cpu_ = devices_->host_cpu();
  QCOMPARE(cpu_->name(), kCpu0);
}

void TestExecutor::runsChainAndFetches() {
  Executor::Params params;
  params.graph =
      GraphOf({NodeDefOf("x", "Const", {}, {{"dtype", AttrOf(DT_FLOAT)}, {"value", AttrOf(Tensor::Scalar<float>(4))}}),
               NodeDefOf("y", "Identity", {"x"}, {{"T", AttrOf(DT_FLOAT)}}), NodeDefOf("z", "TestCount", {"y"})});
  params.device = cpu_;
  params.fetches = {"z:0", "x"};
  auto executor = Executor::Create(params);
  QVERIFY2(executor.ok(), FormatStatus(executor.status()).c_str());
  for (int step = 0; step < 3; ++step) {
    auto result = (*executor)->Run({});
    QVERIFY2(result.status.ok(), FormatStatus(result.status).c_str());
    QCOMPARE(result.fetches.size(), size_t{2});
    QCOMPARE(result.fetches[0].scalar<float>(), 4.0f);
    QCOMPARE(result.fetches[1].scalar<float>(), 4.0f);
  }
}

void TestExecutor::independentOpsOverlap() {
  ThreadPool pool(4);
  {
    std::lock_guard<std::mutex> lock(g_meet_mu);
    g_meet_arrived = 0;
  }
  const auto meet = [](const std::string& name) {
    return NodeDefOf(name, "TestMeet", {}, {{"parties", AttrOf(int64_t{3})}});
  };
  Executor::Params params;
  params.graph = GraphOf({meet("m1"), meet("m2"), meet("m3")});
  params.device = cpu_;
  params.fetches = {"m1", "m2", "m3"};
  params.thread_pool = &pool;
  auto executor = Executor::Create(params);
  QVERIFY2(executor.ok(), FormatStatus(executor.status()).c_str());
  auto result = (*executor)->Run({});
  QVERIFY2(result.status.ok(), FormatStatus(result.status).c_str());
  std::lock_guard<std::mutex> lock(g_meet_mu);
  QCOMPARE(g_meet_arrived, 3);
}

void TestExecutor::errorAbortsStepAndRendezvous() {
  g_count_runs = 0;
  Executor::Params params;
  params.graph = GraphOf({NodeDefOf("fail", "TestFail"), NodeDefOf("after", "TestCount", {"fail"})});
  params.device = cpu_;
  params.fetches = {"after"};
  auto executor = Executor::Create(params);
  QVERIFY(executor.ok());
  LocalRendezvous rendezvous;
  Executor::RunArgs args;
  args.rendezvous = &rendezvous;
  auto result = (*executor)->Run(std::move(args));
  QCOMPARE(result.status.code(), absl::StatusCode::kInvalidArgument);
  const std::string message(result.status.message());
  QVERIFY2(message.find("boom") != std::string::npos, message.c_str());
  QVERIFY2(message.find("{{node fail}}") != std::string::npos, message.c_str());
  QCOMPARE(g_count_runs.load(), 0);
  // Other partitions of the step waiting on this rendezvous learn the cause.
  Tensor ignored;
  const Status waiting = rendezvous.Recv("any;key", &ignored);
  QCOMPARE(waiting.code(), absl::StatusCode::kInvalidArgument);
  QVERIFY(std::string(waiting.message()).find("boom") != std::string::npos);
}

void TestExecutor::feedStandsInForNode() {
  Executor::Params params;
  params.graph = GraphOf({NodeDefOf("x", "Placeholder", {}, {{"dtype", AttrOf(DT_FLOAT)}}),
                          NodeDefOf("y", "Identity", {"x"}, {{"T", AttrOf(DT_FLOAT)}})});
  params.device = cpu_;
  params.feeds = {"x:0"};
  params.fetches = {"y:0"};
  auto executor = Executor::Create(params);
  QVERIFY2(executor.ok(), FormatStatus(executor.status()).c_str());
  Executor::RunArgs args;
  const Tensor fed = Tensor::Vector<float>({1, 2});
  args.feeds = {fed};
  auto result = (*executor)->Run(std::move(args));
  QVERIFY2(result.status.ok(), FormatStatus(result.status).c_str());
  QVERIFY(result.fetches[0].SharesBufferWith(fed));

  Executor::RunArgs wrong_type;
  wrong_type.feeds = {Tensor::Scalar<int32_t>(1)};
  QCOMPARE((*executor)->Run(std::move(wrong_type)).status.code(), absl::StatusCode::kInvalidArgument);
}

void TestExecutor::uninitializedVariableIsNamed() {
  Executor::Params params;
  params.graph = GraphOf(
      {NodeDefOf("weights", "VariableV2", {}, {{"dtype", AttrOf(DT_FLOAT)}, {"shape", AttrOf(PartialShape{2})}}),
       NodeDefOf("read", "Identity", {"weights"}, {{"T", AttrOf(DT_FLOAT)}})});
  params.device = cpu_;
  params.fetches = {"read"};
  auto executor = Executor::Create(params);
  QVERIFY2(executor.ok(), FormatStatus(executor.status()).c_str());
  auto result = (*executor)->Run({});
  QCOMPARE(result.status.code(), absl::StatusCode::kFailedPrecondition);
  const std::string message(result.status.message());
  QVERIFY2(message.find("Attempting to use uninitialized value weights") != std::string::npos, message.c_str());
  QVERIFY2(message.find("{{node read}}") != std::string::npos, message.c_str());
}

void TestExecutor::sendAndRecvMeetAcrossExecutors() {
  Executor::Params sender;
  sender.graph =
      GraphOf({NodeDefOf("c", "Const", {}, {{"dtype", AttrOf(DT_FLOAT)}, {"value", AttrOf(Tensor::Scalar<float>(5))}}),
               NodeDefOf("send", "_Send", {"c"}, SendRecvAttrs("edge_1_c:0"))});
  sender.device = cpu_;
  Executor::Params receiver;
  receiver.graph = GraphOf({NodeDefOf("recv", "_Recv", {}, SendRecvAttrs("edge_1_c:0", "tensor_type")),
                            NodeDefOf("out", "Identity", {"recv"}, {{"T", AttrOf(DT_FLOAT)}})});
  receiver.device = cpu_;
  receiver.fetches = {"out"};
  auto send_exec = Executor::Create(sender);
  auto recv_exec = Executor::Create(receiver);
  QVERIFY2(send_exec.ok(), FormatStatus(send_exec.status()).c_str());
  QVERIFY2(recv_exec.ok(), FormatStatus(recv_exec.status()).c_str());

  for (int step = 0; step < 3; ++step) {
    LocalRendezvous rendezvous;
    std::promise<Executor::Result> received;
    Executor::RunArgs recv_args;
    recv_args.rendezvous = &rendezvous;
    // The receiver starts first and must wait without holding a thread.
    (*recv_exec)->RunAsync(std::move(recv_args), [&](Executor::Result r) { received.set_value(std::move(r)); });
    Executor::RunArgs send_args;
    send_args.rendezvous = &rendezvous;
    auto sent = (*send_exec)->Run(std::move(send_args));
    QVERIFY(sent.status.ok());
    auto result = received.get_future().get();
    QVERIFY2(result.status.ok(), FormatStatus(result.status).c_str());
    QCOMPARE(result.fetches[0].scalar<float>(), 5.0f);
  }
}

void TestExecutor::unknownFetchIsRejectedAtCreate() {
  Executor::Params params;
  params.graph = GraphOf(
      {NodeDefOf("x", "Const", {}, {{"dtype", AttrOf(DT_FLOAT)}, {"value", AttrOf(Tensor::Scalar<float>(1))}})});
  params.device = cpu_;
  params.fetches = {"nope:0"};
  auto executor = Executor::Create(params);
  QCOMPARE(executor.status().code(), absl::StatusCode::kNotFound);
  params.fetches = {"x:1"};
  QCOMPARE(Executor::Create(params).status().code(), absl::StatusCode::kNotFound);
}

void TestExecutor::collectsStepStats() {
  Executor::Params params;
  params.graph =
      GraphOf({NodeDefOf("x", "Const", {}, {{"dtype", AttrOf(DT_FLOAT)}, {"value", AttrOf(Tensor::Scalar<float>(1))}}),
               NodeDefOf("y", "Identity", {"x"}, {{"T", AttrOf(DT_FLOAT)}})});
  params.device = cpu_;
  params.fetches = {"y"};
  auto executor = Executor::Create(params);
  QVERIFY(executor.ok());
  Executor::RunArgs args;
  args.collect_stats = true;
  auto result = (*executor)->Run(std::move(args));
  QVERIFY(result.status.ok());
  QCOMPARE(result.stats.device(), kCpu0);
  QCOMPARE(result.stats.node_stats_size(), 2);
  bool found = false;
  for (const auto& node : result.stats.node_stats()) {
    QVERIFY(node.all_start_micros() > 0);
    QVERIFY(node.op_end_rel_micros() >= node.op_start_rel_micros());
    QVERIFY(node.all_end_rel_micros() >= node.op_end_rel_micros());
    QVERIFY(node.thread_id() > 0);
    if (node.node_name() == "y") {
      QCOMPARE(node.timeline_label(), std::string("y = Identity(x)"));
      found = true;
    }
  }
  QVERIFY(found);
}

QTEST_APPLESS_MAIN(TestExecutor)
#include "tst_executor.moc"
