// The threads a master gives blocking calls: at most the cap run at once, the next call is
// refused with RESOURCE_EXHAUSTED naming it (its work never runs), a place frees when a call
// ends, and the owner waits for running calls before it goes.
#include "distributed/CallThreads.h"

#include <QtTest>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace clab;

class CallThreadsTest : public QObject {
  Q_OBJECT

 private slots:
  void capRefusesTheNextCallUntilOneEnds() {
    std::mutex mu;
    std::condition_variable cv;
    bool release = false;
    std::atomic<int> ran{0};
    auto blocking = [&] {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return release; });
      ++ran;
    };
    CallThreads threads(2);
    QVERIFY(threads.Start("first", blocking).ok());
    QVERIFY(threads.Start("second", blocking).ok());
    QCOMPARE(threads.running(), 2);
    bool third_ran = false;
    const Status refused = threads.Start("CreateSession", [&] { third_ran = true; });
    QCOMPARE(refused.code(), absl::StatusCode::kResourceExhausted);
    QVERIFY2(std::string(refused.message()).find("CreateSession: 2 calls already run") == 0,
             std::string(refused.message()).c_str());
    {
      std::lock_guard<std::mutex> lock(mu);
      release = true;
    }
    cv.notify_all();
    threads.WaitIdle();
    QCOMPARE(ran.load(), 2);
    QVERIFY(!third_ran);
    QCOMPARE(threads.running(), 0);
    std::atomic<bool> again{false};
    QVERIFY(threads.Start("after", [&] { again = true; }).ok());
    threads.WaitIdle();
    QVERIFY(again.load());
  }

  void ownerWaitsForRunningCalls() {
    std::atomic<bool> finished{false};
    {
      CallThreads threads;
      QVERIFY(threads
                  .Start("slow",
                         [&] {
                           std::this_thread::sleep_for(std::chrono::milliseconds(100));
                           finished = true;
                         })
                  .ok());
    }
    QVERIFY(finished.load());
  }
};

QTEST_APPLESS_MAIN(CallThreadsTest)
#include "tst_call_threads.moc"
