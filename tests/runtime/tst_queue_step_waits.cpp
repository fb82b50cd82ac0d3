// A queue's waits made for a step (ops/TensorQueue): they end with the step's abort, and
// once a wait has ended its step may be gone at once (the node that waited completes, the
// step ends, its rendezvous is freed), so the queue must not touch the step after that. The
// race that did (an enqueue on another thread completing a dequeue between the dequeue's
// unlock and its registering an abort listener on the step) is played many times over; the
// sanitizer build reports any access to a freed step.
#include "clab/runtime/Rendezvous.h"
#include "ops/TensorQueue.h"

#include <QtTest>

#include <atomic>
#include <future>
#include <thread>

using namespace clab;

namespace {

std::shared_ptr<TensorQueue> FloatQueue() {
  TensorQueue::Options options;
  options.name = "q";
  options.types = {DT_FLOAT};
  return std::make_shared<TensorQueue>(options);
}

}  // namespace

class QueueStepWaitsTest : public QObject {
  Q_OBJECT

 private slots:
  void aStepFreedAsItsDequeueEndsIsNotTouched() {
    auto queue = FloatQueue();
    for (int round = 0; round < 3000; ++round) {
      // The step of the dequeue: freed by the dequeue's completion, as a finished step is.
      auto* step = new LocalRendezvous;
      std::promise<Status> dequeued;
      std::atomic<bool> go{false};
      std::thread producer([&] {
        while (!go.load(std::memory_order_acquire)) {
        }
        queue->EnqueueAsync({{Tensor::Scalar<float>(static_cast<float>(round))}}, [](const Status&) {});
      });
      go.store(true, std::memory_order_release);
      queue->DequeueAsync(
          1, false,
          [&dequeued, step](const Status& status, std::vector<TensorQueue::Tuple>) {
            delete step;
            dequeued.set_value(status);
          },
          step);
      producer.join();
      const Status status = dequeued.get_future().get();
      QVERIFY2(status.ok(), std::string(status.message()).c_str());
    }
    QCOMPARE(queue->size(), int64_t{0});
  }

  void aStepAbortedBeforeTheWaitEndsIt() {
    auto queue = FloatQueue();
    LocalRendezvous step;
    step.StartAbort(errors::Cancelled("RunGraph of step 7 was cancelled"));
    Status heard;
    bool called = false;
    queue->DequeueAsync(
        1, false,
        [&](const Status& status, std::vector<TensorQueue::Tuple>) {
          called = true;
          heard = status;
        },
        &step);
    QVERIFY(called);
    QCOMPARE(heard.code(), absl::StatusCode::kCancelled);
    // The wait is gone: a later element stays for the next dequeue.
    queue->EnqueueAsync({{Tensor::Scalar<float>(1)}}, [](const Status&) {});
    QCOMPARE(queue->size(), int64_t{1});
  }

  void aStepAbortedDuringTheWaitEndsIt() {
    auto queue = FloatQueue();
    LocalRendezvous step;
    Status heard;
    int calls = 0;
    queue->DequeueAsync(
        1, false,
        [&](const Status& status, std::vector<TensorQueue::Tuple>) {
          ++calls;
          heard = status;
        },
        &step);
    QCOMPARE(calls, 0);
    step.StartAbort(errors::Aborted("another partition failed"));
    QCOMPARE(calls, 1);
    QCOMPARE(heard.code(), absl::StatusCode::kAborted);
    queue->EnqueueAsync({{Tensor::Scalar<float>(1)}}, [](const Status&) {});
    QCOMPARE(queue->size(), int64_t{1});
    QCOMPARE(calls, 1);
  }
};

QTEST_GUILESS_MAIN(QueueStepWaitsTest)
#include "tst_queue_step_waits.moc"
