// Fault trials: the seed program trains on real `clab` processes on loopback (one ps, a chief
// that checkpoints every few steps, one more worker), and the ps, the chief and the other
// worker are each killed with SIGKILL at random steps, ten rounds each in a shuffled order,
// and started again with the same command, as a user or the studio would. After each kill:
//  - training resumes: the global step passes the step of the kill, and a restarted worker
//    runs steps again; 30 s without that is a hang (a bound that only detects failure);
//  - every checkpoint the `checkpoint` state file names reads back whole (every tensor, CRC);
//  - a file left by the kill (a temporary file of an interrupted save, a checkpoint the state
//    file does not name) is gone after the saves that follow.
// At the end the chief is started once more to finish at a last step, and the directory holds
// exactly the checkpoints the state file names.
//
// Kills come from a seeded generator; the seed is printed, and CLAB_FAULT_SEED=<seed> replays
// the same order of victims and the same target steps (where within a step a kill lands
// depends on timing). CLAB_FAULT_ROUNDS=<n> sets the rounds per task (10).
#include "CheckpointDirCheck.h"
#include "LoopbackCluster.h"
#include "StatusText.h"
#include "TaskProcess.h"

#include "clab/graph/GraphBuilder.h"
#include "clab/runtime/Session.h"
#include "clab/train/GlobalStep.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <random>
#include <thread>

using namespace clab;
using namespace clab::testing;

namespace {

constexpr int kSaveEverySteps = 40;
constexpr int kHangMs = 30000;
constexpr int kMaxToKeep = 5;  // the Saver's default
constexpr int64_t kNoEnd = 1000000000;

// Reads the global step from the ps, as a watcher would: a session of its own on the ps alone
// (device filters) whose graph holds only the global step, which it never initialises. After
// an error (the ps down, the step not restored yet) the next read starts a new session.
class GlobalStepProbe {
 public:
  explicit GlobalStepProbe(std::string ps_target) : target_(std::move(ps_target)) {
    GraphBuilder g;
    auto scope = g.WithDevice("/job:ps/task:0");
    read_ = GlobalStepReadTensor(GetOrCreateGlobalStep(g));
    graph_ = g.graph_def();
  }
  StatusOr<int64_t> Read() {
    if (!session_) {
      SessionOptions options;
      options.target = target_;
      options.config.add_device_filters("/job:ps");
      options.config.mutable_clusterlab()->set_wait_for_tasks_ms(500);
      CLAB_ASSIGN_OR_RETURN(session_, NewSession(options));
      if (Status created = session_->Create(graph_); !created.ok()) {
        session_.reset();
        return created;
      }
    }
    std::vector<Tensor> out;
    if (Status s = session_->Run({}, {read_}, {}, &out); !s.ok()) {
      session_.reset();
      return s;
    }
    return out.at(0).scalar<int64_t>();
  }

 private:
  std::string target_;
  std::string read_;
  tensorflow::GraphDef graph_;
  std::unique_ptr<Session> session_;
};

enum class Victim { kPs, kChief, kWorker };

const char* NameOf(Victim victim) {
  switch (victim) {
    case Victim::kPs: return "ps/0";
    case Victim::kChief: return "worker/0 (chief)";
    case Victim::kWorker: return "worker/1";
  }
  return "?";
}

// The step in "…/model.ckpt-<step>", or -1.
int64_t StepOf(const std::string& prefix) {
  const size_t dash = prefix.rfind('-');
  if (dash == std::string::npos) return -1;
  bool ok = false;
  const qint64 step = QString::fromStdString(prefix.substr(dash + 1)).toLongLong(&ok);
  return ok ? step : -1;
}

QStringList Sorted(const QSet<QString>& set) {
  QStringList list(set.begin(), set.end());
  list.sort();
  return list;
}

// The cluster's three tasks as processes, the global step as the ps holds it, and the
// chief's checkpoint directory.
class SeedTraining {
 public:
  SeedTraining(const LoopbackCluster& cluster, QString dir)
      : cluster_(cluster), dir_(std::move(dir)), probe_(cluster.target("ps", 0)) {}

  void start(Victim task, int64_t last_step = kNoEnd) {
    auto& slot = process(task);
    if (task == Victim::kPs) {
      slot = TaskProcess::Server(cluster_.spec(), "ps", 0);
      return;
    }
    const int index = task == Victim::kChief ? 0 : 1;
    QStringList args{"example",      "seed",
                     "--cluster",    cluster_.spec(),
                     "--job_name",   "worker",
                     "--task_index", QString::number(index),
                     "--last_step",  QString::number(last_step)};
    if (task == Victim::kChief)
      args << "--checkpoint_dir" << dir_ << "--save_checkpoint_steps" << QString::number(kSaveEverySteps);
    slot = std::make_unique<TaskProcess>("clab", args);
  }
  void kill(Victim task) { process(task)->killHard(); }
  TaskProcess& task(Victim task) { return *process(task); }

  // Waits until `done` holds, reading the global step and the tasks' output meanwhile; false
  // after `timeout_ms`.
  bool waitUntil(const std::function<bool()>& done, int timeout_ms = kHangMs) {
    QElapsedTimer timer;
    timer.start();
    for (;;) {
      poll();
      if (done()) return true;
      if (timer.elapsed() > timeout_ms) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  void poll() {
    QCoreApplication::processEvents();
    for (auto* slot : {&ps_, &chief_, &worker_})
      if (*slot) (*slot)->drain();
    StatusOr<int64_t> step = probe_.Read();
    if (step.ok()) {
      step_ = *step;
      probe_error_.clear();
    } else {
      probe_error_ = FormatStatus(step.status());
    }
  }
  // The last global step read from the ps.
  int64_t step() const { return step_; }
  // The newest checkpoint the state file names, or "".
  std::string newestCheckpoint() const {
    auto state = ReadCheckpointState(dir_.toStdString());
    return state.ok() ? state->model_checkpoint_path() : std::string();
  }

  // A failure's message (QtTest shortens long messages, so the details go to stderr): the
  // step, the checkpoint files and the tail of every task's output.
  QString describe(const QString& what) {
    QStringList files = QDir(dir_).entryList(QDir::Files);
    const qsizetype events = files.size();
    files.removeIf([](const QString& name) { return name.startsWith("events.out.tfevents."); });
    QString text = QString("%1\nglobal step %2 (last probe error: %3)\ncheckpoint dir %4: %5 (and %6 event files)\n")
                       .arg(what)
                       .arg(step_)
                       .arg(probe_error_.empty() ? "none" : QString::fromStdString(probe_error_), dir_, files.join(" "))
                       .arg(events - files.size());
    for (Victim task : {Victim::kPs, Victim::kChief, Victim::kWorker}) {
      if (!process(task)) continue;
      QString tail = process(task)->output().right(4000);
      tail.replace("[[20]]\n", "");  // the seed's line per step says nothing here
      const bool running = process(task)->running();
      text += QString("--- %1 (%2) ---\n%3\n")
                  .arg(NameOf(task), running ? QString("running")
                                             : QString("ended with %1: %2")
                                                   .arg(process(task)->waitForExit(0))
                                                   .arg(process(task)->errorString()))
                  .arg(tail);
    }
    std::fprintf(stderr, "%s\n", qPrintable(text));
    return what;
  }

 private:
  std::unique_ptr<TaskProcess>& process(Victim task) {
    return task == Victim::kPs ? ps_ : task == Victim::kChief ? chief_ : worker_;
  }

  const LoopbackCluster cluster_;
  const QString dir_;
  GlobalStepProbe probe_;
  std::unique_ptr<TaskProcess> ps_, chief_, worker_;
  int64_t step_ = -1;
  std::string probe_error_;
};

}  // namespace

// QVERIFY2 builds its message even when the check passes; a failure's description (which
// lists the directory and every task's output) is built only when the check fails.
#define VERIFY_OR_DESCRIBE(statement, what)          \
  do {                                               \
    if (!(statement)) QFAIL(qPrintable(fail(what))); \
  } while (false)

class FaultTrialsTest : public QObject {
  Q_OBJECT

 private slots:
  void tasksKilledAtRandomStepsAreRestartedAndTrainingResumes();
};

void FaultTrialsTest::tasksKilledAtRandomStepsAreRestartedAndTrainingResumes() {
  const QByteArray seed_text = qgetenv("CLAB_FAULT_SEED");
  const uint64_t seed = seed_text.isEmpty() ? std::random_device{}() : seed_text.toULongLong();
  const int rounds =
      qEnvironmentVariableIsSet("CLAB_FAULT_ROUNDS") ? qEnvironmentVariableIntValue("CLAB_FAULT_ROUNDS") : 10;
  qInfo("fault trials: seed %llu, %d rounds per task (CLAB_FAULT_SEED=%llu replays them)",
        static_cast<unsigned long long>(seed), rounds, static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  std::vector<Victim> order;
  for (int i = 0; i < rounds; ++i) order.insert(order.end(), {Victim::kPs, Victim::kChief, Victim::kWorker});
  std::shuffle(order.begin(), order.end(), rng);

  QElapsedTimer total;
  total.start();
  QTemporaryDir dir;
  const std::string ckpt_dir = dir.path().toStdString();
  const LoopbackCluster cluster = LoopbackCluster::Make(1, 2);
  SeedTraining run(cluster, dir.path());
  const QString replay = QString(" [replay: CLAB_FAULT_SEED=%1]").arg(seed);
  auto fail = [&](const QString& what) { return run.describe(what + replay); };

  run.start(Victim::kPs);
  VERIFY_OR_DESCRIBE(run.task(Victim::kPs).waitUntilServing(), "the ps did not start");
  run.start(Victim::kChief);
  run.start(Victim::kWorker);
  VERIFY_OR_DESCRIBE(run.waitUntil([&] { return run.step() > 0 && !run.newestCheckpoint().empty(); }),
                     "training did not start");

  qint64 slowest_resume_ms = 0;
  int chief_kills_mid_save = 0;  // the chief killed with a save's files not yet (all) named
  for (size_t round = 0; round < order.size(); ++round) {
    const Victim victim = order[round];
    const int64_t target = run.step() + std::uniform_int_distribution<int>(1, 3 * kSaveEverySteps)(rng);
    VERIFY_OR_DESCRIBE(run.waitUntil([&] { return run.step() >= target; }),
                       QString("round %1: training stalled before step %2").arg(round + 1).arg(target));
    const int64_t killed_at = run.step();
    run.kill(victim);
    const QSet<QString> left_by_kill = UnclaimedCheckpointFiles(ckpt_dir);
    if (victim == Victim::kChief && !left_by_kill.isEmpty()) ++chief_kills_mid_save;
    QElapsedTimer resume;
    resume.start();
    run.start(victim);

    // Training resumes: the global step passes the step of the kill, and a restarted worker
    // runs steps itself (the seed prints [[20]] per step).
    VERIFY_OR_DESCRIBE(run.waitUntil([&] {
      return run.step() > killed_at && (victim == Victim::kPs || run.task(victim).output().contains("[[20]]"));
    }),
                       QString("round %1: %2 killed at step %3: training did not pass that step within %4 s")
                           .arg(round + 1)
                           .arg(NameOf(victim))
                           .arg(killed_at)
                           .arg(kHangMs / 1000));
    slowest_resume_ms = std::max(slowest_resume_ms, resume.elapsed());
    const qint64 resume_ms = resume.elapsed();

    // A save after the kill (the newest checkpoint is past its step), then two more: files
    // the kill left must be gone in both listings. A file of a save in progress shows in one
    // listing at most.
    VERIFY_OR_DESCRIBE(
        run.waitUntil([&] { return StepOf(run.newestCheckpoint()) > killed_at; }),
        QString("round %1: no checkpoint past step %2 within %3 s").arg(round + 1).arg(killed_at).arg(kHangMs / 1000));
    QSet<QString> still_there = left_by_kill;
    for (int save = 0; save < 2; ++save) {
      const std::string newest = run.newestCheckpoint();
      VERIFY_OR_DESCRIBE(run.waitUntil([&] { return run.newestCheckpoint() != newest; }),
                         QString("round %1: the chief saved nothing after %2 within %3 s")
                             .arg(round + 1)
                             .arg(QString::fromStdString(newest))
                             .arg(kHangMs / 1000));
      auto read = ReadBackListedCheckpoints(ckpt_dir);
      VERIFY_OR_DESCRIBE(read.ok(), QString("round %1: a listed checkpoint does not read back: %2")
                                        .arg(round + 1)
                                        .arg(StatusText(read.status())));
      VERIFY_OR_DESCRIBE(!read->empty() && static_cast<int>(read->size()) <= kMaxToKeep,
                         QString("round %1: %2 checkpoints listed").arg(round + 1).arg(read->size()));
      still_there &= UnclaimedCheckpointFiles(ckpt_dir);
    }
    VERIFY_OR_DESCRIBE(still_there.isEmpty(),
                       QString("round %1: %2 killed at step %3 left files that the next saves did not remove: %4")
                           .arg(round + 1)
                           .arg(NameOf(victim))
                           .arg(killed_at)
                           .arg(Sorted(still_there).join(", ")));
    QString restored = "-";
    if (victim != Victim::kWorker) {
      const QString chief = run.task(Victim::kChief).output();
      const qsizetype at = chief.lastIndexOf("Restoring parameters from ");
      if (at >= 0) restored = QFileInfo(chief.mid(at).section('\n', 0, 0).section(' ', 3)).fileName();
    }
    qInfo(
        "round %2d: killed %-16s at step %6lld; restored %-17s past it again after %5lld ms; unclaimed files at the kill: %s",
        int(round + 1), NameOf(victim), static_cast<long long>(killed_at), qPrintable(restored + ";"),
        static_cast<long long>(resume_ms),
        left_by_kill.isEmpty() ? "nothing" : qPrintable(Sorted(left_by_kill).join(", ")));
  }

  // The end of the run: the other worker goes, the chief is started once more to finish at a
  // last step past the current one; it restores, trains, saves and exits cleanly.
  run.kill(Victim::kWorker);
  run.kill(Victim::kChief);
  run.poll();
  const int64_t last_step = run.step() + 2 * kSaveEverySteps;
  run.start(Victim::kChief, last_step);
  const int exit_code = run.task(Victim::kChief).waitForExit(kHangMs);
  VERIFY_OR_DESCRIBE(exit_code == 0, QString("the last chief exited with %1").arg(exit_code));
  VERIFY_OR_DESCRIBE(run.task(Victim::kChief).output().contains(QString("Stopped at global step %1").arg(last_step)),
                     "the last chief did not stop at its last step");
  auto read = ReadBackListedCheckpoints(ckpt_dir);
  VERIFY_OR_DESCRIBE(read.ok(), StatusText(read.status()));
  VERIFY_OR_DESCRIBE(!read->empty() && static_cast<int>(read->size()) <= kMaxToKeep,
                     QString("%1 checkpoints listed").arg(read->size()));
  QCOMPARE(StepOf(read->front()), last_step);
  auto newest = TensorBundleReader::Open(read->front());
  QVERIFY2(newest.ok(), StatusText(newest.status()));
  auto saved_step = newest->Read("global_step");
  QVERIFY2(saved_step.ok(), StatusText(saved_step.status()));
  QCOMPARE(saved_step->scalar<int64_t>(), last_step);
  const QSet<QString> unclaimed = UnclaimedCheckpointFiles(ckpt_dir);
  VERIFY_OR_DESCRIBE(unclaimed.isEmpty(), "files no checkpoint claims: " + Sorted(unclaimed).join(", "));
  QCOMPARE(run.task(Victim::kPs).terminate(), 0);
  qInfo(
      "fault trials: %d kills, %d of the chief in the middle of a save; training passed the step of each kill "
      "within %lld ms; finished at step %lld; %lld s in all (seed %llu)",
      static_cast<int>(order.size()), chief_kills_mid_save, static_cast<long long>(slowest_resume_ms),
      static_cast<long long>(last_step), static_cast<long long>(total.elapsed() / 1000),
      static_cast<unsigned long long>(seed));
}

QTEST_GUILESS_MAIN(FaultTrialsTest)
#include "tst_fault_trials.moc"
