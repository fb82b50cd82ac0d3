// The worker's parts on their own: call cancellation, the step table's clean-up of steps
// nobody cleans up, the RecvTensor wire codec, and a worker that splits its partition over
// two local devices.
#include "TaskFixture.h"

#include "clab/graph/AttrValues.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/ops/Ops.h"
#include "distributed/LocalWorker.h"
#include "distributed/RecvTensorCodec.h"
#include "distributed/StepTable.h"
#include "tensorflow/worker.pb.h"

#include <absl/strings/match.h>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <thread>

using namespace clab;
using namespace clab::testing;
using namespace std::chrono_literals;

namespace {

std::string Dump(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  if (!buffer.Dump(&slices).ok()) return "";
  std::string bytes;
  for (const grpc::Slice& slice : slices) bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  return bytes;
}

grpc::ByteBuffer BufferOf(const std::string& bytes) {
  // Split in two so the decoder has to cross a slice boundary.
  const size_t half = bytes.size() / 2;
  grpc::Slice slices[2] = {grpc::Slice(bytes.data(), half), grpc::Slice(bytes.data() + half, bytes.size() - half)};
  return grpc::ByteBuffer(slices, 2);
}

}  // namespace

class WorkerInternalsTest : public QObject {
  Q_OBJECT

 private slots:
  void cancellationRunsEachCallbackOnce() {
    CallCancellation cancellation;
    std::atomic<int> first{0}, second{0}, removed{0};
    cancellation.Register([&] { ++first; });
    const int id = cancellation.Register([&] { ++removed; });
    cancellation.Register([&] { ++second; });
    cancellation.Deregister(id);
    QVERIFY(!cancellation.cancelled());
    cancellation.Cancel();
    cancellation.Cancel();
    QVERIFY(cancellation.cancelled());
    QCOMPARE(first.load(), 1);
    QCOMPARE(second.load(), 1);
    QCOMPARE(removed.load(), 0);
    // Too late to wait: runs at once.
    std::atomic<int> late{0};
    cancellation.Register([&] { ++late; });
    QCOMPARE(late.load(), 1);
  }

  void codecWritesProtoWireFormat_data() {
    // clang-format off
    QTest::addColumn<qint64>("elements");
    QTest::newRow("scalar-sized") << qint64(1);
    QTest::newRow("small") << qint64(100);
    QTest::newRow("zero-copy") << qint64(1 << 20);
    // clang-format on
  }
  void codecWritesProtoWireFormat() {
    QFETCH(qint64, elements);
    Tensor tensor(DT_FLOAT, TensorShape{elements});
    for (int64_t i = 0; i < elements; ++i) tensor.data<float>()[i] = static_cast<float>(i) + 0.25f;
    grpc::ByteBuffer encoded = EncodeRecvTensorResponse(tensor, false, 1234);
    // A plain protobuf reader sees an ordinary RecvTensorResponse.
    tensorflow::RecvTensorResponse parsed;
    QVERIFY(parsed.ParseFromString(Dump(encoded)));
    QCOMPARE(parsed.send_start_micros(), int64_t(1234));
    QVERIFY(!parsed.is_dead());
    auto from_proto = Tensor::FromProto(parsed.tensor());
    QVERIFY(from_proto.ok());
    QVERIFY(from_proto->Equals(tensor));
    // And the codec reads its own bytes back.
    Tensor decoded;
    bool is_dead = true;
    QVERIFY(DecodeRecvTensorResponse(&encoded, &decoded, &is_dead).ok());
    QVERIFY(!is_dead);
    QVERIFY(decoded.Equals(tensor));
    QVERIFY(!decoded.SharesBufferWith(tensor));
  }

  void zeroCopyReplyKeepsTensorAlive() {
    Tensor tensor(DT_FLOAT, TensorShape{4096});
    tensor.data<float>()[4095] = 42;
    grpc::ByteBuffer encoded = EncodeRecvTensorResponse(tensor, false, 0);
    QCOMPARE(tensor.BufferUseCount(), 2L);  // the reply's slice holds the buffer, not a copy
    tensor = Tensor();
    Tensor decoded;
    QVERIFY(DecodeRecvTensorResponse(&encoded, &decoded, nullptr).ok());
    QCOMPARE(decoded.data<float>()[4095], 42.0f);
  }

  void codecReadsOtherEncodings() {
    // Typed value fields (what another implementation may send), and strings.
    tensorflow::RecvTensorResponse typed;
    Tensor::Matrix<int32_t>({{1, 2}, {3, 4}}).AsProto(typed.mutable_tensor(), /*use_typed_fields=*/true);
    typed.set_is_dead(true);
    grpc::ByteBuffer buffer = BufferOf(typed.SerializeAsString());
    Tensor decoded;
    bool is_dead = false;
    QVERIFY(DecodeRecvTensorResponse(&buffer, &decoded, &is_dead).ok());
    QVERIFY(is_dead);
    QVERIFY(decoded.Equals(Tensor::Matrix<int32_t>({{1, 2}, {3, 4}})));

    grpc::ByteBuffer strings = EncodeRecvTensorResponse(Tensor::Vector<std::string>({"ab", "c"}), false, 0);
    QVERIFY(DecodeRecvTensorResponse(&strings, &decoded, nullptr).ok());
    QCOMPARE(decoded.data<std::string>()[1], std::string("c"));

    grpc::ByteBuffer garbage = BufferOf("\x0a\xff\xff\xff\x0f");
    QCOMPARE(DecodeRecvTensorResponse(&garbage, &decoded, nullptr).code(), absl::StatusCode::kDataLoss);
  }

  void abandonedStepIsAbortedAndDropped() {
    StepTable steps("/job:ps/replica:0/task:0", 100ms);
    auto step = steps.Acquire(7);
    QVERIFY(step.ok());
    std::atomic<bool> answered{false};
    Status recv_status;
    (*step)->RecvLocalAsync("k", [&](const Status& status, const Tensor&) {
      recv_status = status;
      answered = true;
    });
    steps.Release(7);
    step->reset();
    // A step that is running is never dropped, however long it runs.
    auto running = steps.Acquire(8);
    QVERIFY(running.ok());
    QTRY_VERIFY_WITH_TIMEOUT(answered.load(), 3000);
    QCOMPARE(recv_status.code(), absl::StatusCode::kAborted);
    QVERIFY(absl::StrContains(recv_status.message(), "abandoned"));
    QCOMPARE(steps.size(), size_t(1));
    steps.Release(8);
    QTRY_COMPARE_WITH_TIMEOUT(steps.size(), size_t(0), 3000);
  }

  // A run that leaves nothing in its step's rendezvous lets the worker forget the step by
  // itself (no CleanupGraph needed); one that leaves a tensor for a peer keeps it.
  void idleStepIsForgottenWhenItsRunsEnd() {
    StepTable steps("/job:ps/replica:0/task:0");
    auto idle = steps.Acquire(11);
    QVERIFY(idle.ok());
    steps.Release(11);
    QCOMPARE(steps.size(), size_t(0));
    QVERIFY(!(*idle)->abort_cause().ok());
    // Another run of the same step (the second part of a cut partition) starts afresh.
    auto again = steps.Acquire(11);
    QVERIFY(again.ok());
    QVERIFY(again->get() != idle->get());
    QVERIFY((*again)->abort_cause().ok());
    steps.Release(11);
    auto busy = steps.Acquire(12);
    QVERIFY(busy.ok());
    QVERIFY((*busy)->Send("a tensor for a peer", Tensor::Scalar<float>(1)).ok());
    steps.Release(12);
    QCOMPARE(steps.size(), size_t(1));
    QVERIFY((*busy)->abort_cause().ok());
    // Two runs in flight: the first to end keeps the step for the other.
    auto first = steps.Acquire(13);
    auto second = steps.Acquire(13);
    QVERIFY(first.ok() && second.ok());
    steps.Release(13);
    QCOMPARE(steps.size(), size_t(2));
    steps.Release(13);
    QCOMPARE(steps.size(), size_t(1));
  }

  // A peer's RecvTensor takes the step's rendezvous, then puts its waiter in. A run of the
  // step that ends in between must not find the rendezvous idle and forget (abort) the step
  // under it: the tensor comes from a later run (the second part of a cut partition). Two
  // ps and two workers on a slow link failed a step in a few runs out of ten that way ("Step
  // ... has finished on /job:ps/replica:0/task:1").
  void receiverBetweenAcquireAndWaitKeepsTheStep() {
    StepTable steps("/job:ps/replica:0/task:1");
    auto first_part = steps.Acquire(21);
    auto receiver = steps.Acquire(21);
    QVERIFY(first_part.ok() && receiver.ok());
    steps.Release(21);  // the first part's run ends before the receiver waits
    QCOMPARE(steps.size(), size_t(1));
    QVERIFY((*receiver)->abort_cause().ok());
    std::atomic<bool> answered{false};
    Status recv_status;
    float received = 0;
    (*receiver)->RecvLocalAsync("weights", [&](const Status& status, const Tensor& value) {
      recv_status = status;
      if (status.ok()) received = value.data<float>()[0];
      answered = true;
    });
    steps.Release(21);
    QCOMPARE(steps.size(), size_t(1));  // a waiter is in: kept
    auto second_part = steps.Acquire(21);
    QVERIFY(second_part.ok());
    QCOMPARE(second_part->get(), receiver->get());
    QVERIFY((*second_part)->Send("weights", Tensor::Scalar<float>(2.5f)).ok());
    QVERIFY(answered.load());
    QVERIFY2(recv_status.ok(), recv_status.ToString().c_str());
    QCOMPARE(received, 2.5f);
    steps.Release(21);
    QCOMPARE(steps.size(), size_t(0));  // all taken, nobody holds it: forgotten
  }

  void cleanedUpStepRefusesStragglers() {
    StepTable steps("/job:ps/replica:0/task:0");
    auto step = steps.Acquire(9);
    QVERIFY(step.ok());
    steps.Release(9);
    steps.Cleanup(9);
    QCOMPARE(steps.size(), size_t(0));
    QCOMPARE(steps.Acquire(9).status().code(), absl::StatusCode::kAborted);
    QVERIFY(!(*step)->abort_cause().ok());
  }

  // One task with two CPU devices: the worker splits the registered partition per device
  // and the devices exchange the tensor in memory.
  void partitionSpansTwoLocalDevices() {
    tensorflow::ConfigProto config;
    (*config.mutable_device_count())["CPU"] = 2;
    auto task = TaskFixture::Start("/job:localhost/replica:0/task:0", config);
    QVERIFY(task);
    QCOMPARE(task->devices->devices().size(), size_t(2));
    GraphBuilder g;
    Output w;
    {
      auto scope = g.WithDevice("/job:localhost/replica:0/task:0/device:CPU:1");
      w = ops::Const(g, Tensor::Matrix<int32_t>({{2}, {2}, {2}, {2}}), "w");
    }
    {
      auto scope = g.WithDevice("/job:localhost/replica:0/task:0/device:CPU:0");
      ops::MatMul(g, ops::Const(g, Tensor::Matrix<int32_t>({{1, 2, 3, 4}}), "x"), w, false, false, "MatMul");
    }
    QVERIFY(g.status().ok());

    LocalWorker local(task->worker.get());
    tensorflow::RegisterGraphRequest request;
    *request.mutable_graph_def() = g.graph_def();
    request.add_fetch("MatMul:0");
    tensorflow::RegisterGraphResponse registered;
    StatusWaiter register_done;
    local.RegisterGraphAsync(request, &registered, register_done.callback());
    const Status status = register_done.Wait();
    QVERIFY2(status.ok(), std::string(status.message()).c_str());

    for (int64_t step_id = 1; step_id <= 3; ++step_id) {
      tensorflow::RunGraphRequest run;
      run.set_graph_handle(registered.graph_handle());
      run.set_step_id(step_id);
      run.mutable_exec_opts()->set_record_timeline(true);
      tensorflow::RunGraphResponse response;
      StatusWaiter done;
      local.RunGraphAsync(run, &response, nullptr, done.callback());
      QVERIFY(done.Wait().ok());
      QCOMPARE(QString::fromStdString(Tensor::FromProto(response.recv(0).tensor())->DebugString()), QString("[[20]]"));
      QCOMPARE(response.step_stats().dev_stats_size(), 2);
      tensorflow::CleanupGraphRequest cleanup;
      cleanup.set_step_id(step_id);
      tensorflow::CleanupGraphResponse cleaned;
      StatusWaiter cleanup_done;
      local.CleanupGraphAsync(cleanup, &cleaned, cleanup_done.callback());
      QVERIFY(cleanup_done.Wait().ok());
    }
    QCOMPARE(task->worker->NumActiveSteps(), size_t(0));
  }

  void graphOnAnotherTaskIsRejected() {
    auto task = TaskFixture::Start("/job:ps/replica:0/task:0");
    QVERIFY(task);
    GraphBuilder g;
    {
      auto scope = g.WithDevice("/job:worker/replica:0/task:0/device:CPU:0");
      ops::Const(g, Tensor::Scalar<float>(1), "c");
    }
    tensorflow::RegisterGraphRequest request;
    *request.mutable_graph_def() = g.graph_def();
    tensorflow::RegisterGraphResponse response;
    const Status status = task->worker->RegisterGraph(request, &response);
    QCOMPARE(status.code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(absl::StrContains(status.message(), "not a device of this task"), std::string(status.message()).c_str());
  }
};

QTEST_APPLESS_MAIN(WorkerInternalsTest)
#include "tst_worker_internals.moc"
