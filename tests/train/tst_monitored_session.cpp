// Monitored sessions in one process: restore after a restart continues from the saved step,
// a damaged newest checkpoint falls back to the previous good one, what a killed save left
// goes with the next save, event files are written.
#include "clab/io/EventFileWriter.h"
#include "clab/io/TensorBundle.h"
#include "clab/ops/Ops.h"
#include "clab/train/CheckpointState.h"
#include "clab/train/GlobalStep.h"
#include "clab/train/MonitoredSession.h"
#include "clab/train/SummaryWriterCache.h"
#include "clab/train/hooks/SmallHooks.h"
#include "clab/train/hooks/StopAtStepHook.h"
#include "tensorflow/meta_graph.pb.h"

#include <absl/strings/match.h>
#include <google/protobuf/text_format.h>

#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace clab;

namespace {

struct Model {
  GraphBuilder g;
  Output train;
  Model() {
    Output gs = GetOrCreateGlobalStep(g);
    auto w = ops::MakeVariable(g, ops::Const(g, Tensor::Scalar<float>(0.f)), "w");
    auto bump = ops::AssignAdd(g, w.var, ops::Const(g, Tensor::Scalar<float>(0.5f)), "bump");
    auto deps = g.WithControlDependencies({bump.control()});
    train = IncrementGlobalStep(g, gs, "train");
  }
};

MonitoredTrainingSessionOptions Options(const std::string& dir, int64_t last_step) {
  MonitoredTrainingSessionOptions o;
  o.log = std::make_shared<TrainingLog>("", false);
  o.checkpoint_dir = dir;
  o.save_checkpoint_steps = 10;
  o.hooks.push_back(std::make_shared<StopAtStepHook>(StopAtStepHook::LastStep(last_step)));
  return o;
}

// The runs until the session says stop; -1 on an error or when it never does.
int64_t TrainToEnd(MonitoredSession& s, const std::string& train) {
  std::vector<Tensor> out;
  int64_t runs = 0;
  while (!s.should_stop()) {
    if (runs == 100000 || !s.Run({train}, {}, &out).ok()) return -1;
    ++runs;
  }
  return runs;
}

// Trains the model to step 20 in `dir` (checkpoints at 10 and 20) and returns the newest
// checkpoint, which must be model.ckpt-20.
StatusOr<std::string> TrainTo20(const std::string& dir) {
  {
    Model m;
    CLAB_ASSIGN_OR_RETURN(auto s, MonitoredTrainingSession(m.g, Options(dir, 20)));
    if (TrainToEnd(*s, m.train.node()) != 20) return errors::Internal("training did not stop at step 20");
    CLAB_RETURN_IF_ERROR(s->Close());
  }
  CLAB_ASSIGN_OR_RETURN(std::string latest, LatestCheckpoint(dir));
  if (!absl::EndsWith(latest, "model.ckpt-20")) return errors::Internal("the newest checkpoint is ", latest);
  return latest;
}

}  // namespace

class MonitoredSessionTest : public QObject {
  Q_OBJECT

 private slots:
  void cleanup() { ClearSummaryWriters(); }

  void restoreContinuesFromSavedStep() {
    QTemporaryDir dir;
    {
      Model m;
      auto s = MonitoredTrainingSession(m.g, Options(dir.path().toStdString(), 25));
      QVERIFY2(s.ok(), s.status().ToString().c_str());
      QCOMPARE(TrainToEnd(**s, m.train.node()), int64_t(25));
      QVERIFY((*s)->Close().ok());
    }
    // A new process would build the same graph; the chief restores step 25 and w = 12.5.
    Model m;
    auto s = MonitoredTrainingSession(m.g, Options(dir.path().toStdString(), 40));
    QVERIFY(s.ok());
    auto step = ReadGlobalStep(*(*s)->raw_session(), "global_step/read:0");
    QVERIFY(step.ok());
    QCOMPARE(*step, int64_t(25));
    std::vector<Tensor> w;
    QVERIFY((*s)->raw_session()->Run({}, {"w:0"}, {}, &w).ok());
    QCOMPARE(w[0].scalar<float>(), 12.5f);
    QCOMPARE(TrainToEnd(**s, m.train.node()), int64_t(15));
    QVERIFY((*s)->Close().ok());
  }

  void damagedNewestCheckpointFallsBack_data() {
    QTest::addColumn<QString>("damage");
    QTest::newRow("truncated data file") << "data";
    // Block handles near 2^64 whose end wraps around: once an uncaught out_of_range.
    QTest::newRow("index footer past the end") << "footer";
  }
  void damagedNewestCheckpointFallsBack() {
    QFETCH(QString, damage);
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    auto latest = TrainTo20(d);
    QVERIFY2(latest.ok(), latest.status().ToString().c_str());
    if (damage == "data") {
      std::filesystem::resize_file(BundleDataFile(*latest), 3);
    } else {
      const std::string index = *latest + ".index";
      std::fstream f(index, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(std::filesystem::file_size(index) - 48));
      const char handles[] = "\xf0\xff\xff\xff\xff\xff\xff\xff\xff\x01\x20\xf0\xff\xff\xff\xff\xff\xff\xff\xff\x01\x20";
      f.write(handles, sizeof(handles) - 1);
    }

    Model m;
    auto o = Options(d, 30);
    std::vector<std::string> warnings;
    o.log->AddSink([&](const TaskEvent& e) {
      if (e.has_log() && e.log().level() == static_cast<int>(LogLevel::kWarning)) warnings.push_back(e.log().text());
    });
    auto s = MonitoredTrainingSession(m.g, o);
    QVERIFY2(s.ok(), s.status().ToString().c_str());
    QCOMPARE(warnings.size(), size_t(1));
    QVERIFY(QString::fromStdString(warnings[0]).contains("model.ckpt-20"));
    QVERIFY(QString::fromStdString(warnings[0]).contains("DATA_LOSS"));
    auto step = ReadGlobalStep(*(*s)->raw_session(), "global_step/read:0");
    QCOMPARE(*step, int64_t(10));  // the previous good checkpoint
    // No checkpoint file was lost: the damaged one is still there for inspection.
    QVERIFY(std::filesystem::exists(*latest + ".index"));
  }

  // A chief killed in the middle of a save leaves temporary files, or a whole checkpoint the
  // state file never named; the restarted chief's next save removes them (and nothing of
  // anyone else's), and it does not save again the checkpoint it has just restored.
  void leftoversOfAKilledSaveGoWithTheNextSave() {
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    auto latest = TrainTo20(d);
    QVERIFY2(latest.ok(), latest.status().ToString().c_str());
    const std::filesystem::path root(d);
    const std::vector<std::string> leftovers = {
        "model.ckpt-27.data-00000-of-00001.tempstate0123456789abcdef", "model.ckpt-27.index.tempstatefedcba9876543210",
        "checkpoint.tmp1234567890", "model.ckpt-25.data-00000-of-00001", "model.ckpt-25.index"};
    std::filesystem::copy_file(BundleDataFile(*latest), root / leftovers[3]);
    std::filesystem::copy_file(*latest + ".index", root / leftovers[4]);
    for (size_t i = 0; i < 3; ++i) std::ofstream(root / leftovers[i]) << "half a save";
    std::ofstream(root / "notes.txt") << "someone else's";
    std::ofstream(root / "model.ckpt-best") << "someone else's";
    const auto restored_index = std::filesystem::last_write_time(*latest + ".index");

    Model m;
    auto s = MonitoredTrainingSession(m.g, Options(d, 30));
    QVERIFY2(s.ok(), s.status().ToString().c_str());
    QCOMPARE(*ReadGlobalStep(*(*s)->raw_session(), "global_step/read:0"), int64_t(20));
    // Restored, not saved again: the files of model.ckpt-20 are the ones written before.
    QVERIFY(std::filesystem::last_write_time(*latest + ".index") == restored_index);
    for (const std::string& name : leftovers) QVERIFY2(std::filesystem::exists(root / name), name.c_str());
    QCOMPARE(TrainToEnd(**s, m.train.node()), int64_t(10));
    QVERIFY((*s)->Close().ok());

    for (const std::string& name : leftovers) QVERIFY2(!std::filesystem::exists(root / name), name.c_str());
    QVERIFY(std::filesystem::exists(root / "notes.txt"));
    QVERIFY(std::filesystem::exists(root / "model.ckpt-best"));
    auto listed = CheckpointsNewestFirst(d);
    QVERIFY(listed.ok());
    for (const std::string& prefix : *listed) {
      QVERIFY2(std::filesystem::exists(prefix + ".index"), prefix.c_str());
      QVERIFY2(std::filesystem::exists(BundleDataFile(prefix)), prefix.c_str());
    }
    QVERIFY(absl::EndsWith(listed->front(), "model.ckpt-30"));
  }

  void damagedNewestCheckpointStopsWhenAskedTo() {
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    auto latest = TrainTo20(d);
    QVERIFY2(latest.ok(), latest.status().ToString().c_str());
    std::filesystem::resize_file(BundleDataFile(*latest), 3);
    Model m;
    auto o = Options(d, 30);
    o.on_damaged_checkpoint = MonitoredTrainingSessionOptions::OnDamagedCheckpoint::kFail;
    auto s = MonitoredTrainingSession(m.g, o);
    QVERIFY(!s.ok());
    QVERIFY2(absl::IsDataLoss(s.status()), s.status().ToString().c_str());
    QVERIFY(QString::fromStdString(std::string(s.status().message())).contains("model.ckpt-20"));
  }

  // A relative checkpoint directory: the state file names checkpoints relative to it, as
  // TensorFlow's Saver writes it, so the paths resolve from the directory itself.
  void relativeCheckpointDirectoryRestores() {
    QTemporaryDir dir;
    struct WorkingDirectory {
      std::filesystem::path before = std::filesystem::current_path();
      explicit WorkingDirectory(const std::string& to) { std::filesystem::current_path(to); }
      ~WorkingDirectory() { std::filesystem::current_path(before); }
    } in_dir(dir.path().toStdString());
    {
      Model m;
      auto s = MonitoredTrainingSession(m.g, Options("run_rel", 20));
      QVERIFY(s.ok());
      QCOMPARE(TrainToEnd(**s, m.train.node()), int64_t(20));
      QVERIFY((*s)->Close().ok());
    }
    QFile state("run_rel/checkpoint");
    QVERIFY(state.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(state.readAll());
    QVERIFY2(text.contains("model_checkpoint_path: \"model.ckpt-20\""), qPrintable(text));
    QVERIFY2(!text.contains("run_rel/"), qPrintable(text));
    auto latest = LatestCheckpoint("run_rel");
    QVERIFY2(latest.ok(), latest.status().ToString().c_str());
    QCOMPARE(*latest, std::string("run_rel/model.ckpt-20"));
    Model m;
    auto s = MonitoredTrainingSession(m.g, Options("run_rel", 30));
    QVERIFY(s.ok());
    QCOMPARE(*ReadGlobalStep(*(*s)->raw_session(), "global_step/read:0"), int64_t(20));
    QVERIFY((*s)->Close().ok());
    // A state file in the older form (paths as given to the saver, "run_rel/model.ckpt-N")
    // still reads.
    tensorflow::CheckpointState old;
    old.set_model_checkpoint_path("run_rel/model.ckpt-20");
    old.add_all_model_checkpoint_paths("run_rel/model.ckpt-20");
    std::string old_text;
    google::protobuf::TextFormat::PrintToString(old, &old_text);
    QFile rewrite("run_rel/checkpoint");
    QVERIFY(rewrite.open(QIODevice::WriteOnly | QIODevice::Truncate));
    rewrite.write(QByteArray::fromStdString(old_text));
    rewrite.close();
    auto again = LatestCheckpoint("run_rel");
    QVERIFY2(again.ok(), again.status().ToString().c_str());
    QCOMPARE(*again, std::string("run_rel/model.ckpt-20"));
  }

  void eventFilesHoldStepRateAndCheckpoints() {
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    Model m;
    auto o = Options(d, 30);
    o.log_step_count_steps = 10;
    o.summary_scalars = {{"w", "w:0"}};
    o.save_summaries_steps = 10;
    auto s = MonitoredTrainingSession(m.g, o);
    QVERIFY(s.ok());
    QCOMPARE(TrainToEnd(**s, m.train.node()), int64_t(30));
    QVERIFY((*s)->Close().ok());
    ClearSummaryWriters();
    std::string events_path;
    for (const auto& e : std::filesystem::directory_iterator(d))
      if (e.path().filename().string().rfind("events.out.tfevents.", 0) == 0) events_path = e.path().string();
    QVERIFY(!events_path.empty());
    QVERIFY(std::filesystem::exists(std::filesystem::path(d) / "graph.pbtxt"));
    std::vector<tensorflow::Event> events;
    QVERIFY(ReadEventFile(events_path, &events).ok());
    int rates = 0, checkpoints = 0, w_scalars = 0, starts = 0, graphs = 0, meta_graphs = 0;
    for (const auto& e : events) {
      if (!e.graph_def().empty()) ++graphs;
      if (!e.meta_graph_def().empty()) ++meta_graphs;
      if (e.has_session_log() && e.session_log().status() == tensorflow::SessionLog::CHECKPOINT) ++checkpoints;
      if (e.has_session_log() && e.session_log().status() == tensorflow::SessionLog::START) ++starts;
      for (const auto& v : e.summary().value()) {
        if (v.tag() == "global_step/sec") ++rates;
        if (v.tag() == "w") ++w_scalars;
      }
    }
    QCOMPARE(events.front().file_version(), std::string("brain.Event:2"));
    QVERIFY(rates >= 2);
    QCOMPARE(checkpoints, 4);  // 0, 10, 20, 30
    QCOMPARE(starts, 1);
    QVERIFY(w_scalars >= 3);
    // The graph view's events: the graph, and the meta graph whose "summaries" collection
    // names the ScalarSummary node the scalar came from.
    QCOMPARE(graphs, 1);
    QCOMPARE(meta_graphs, 1);
    tensorflow::MetaGraphDef meta;
    for (const auto& e : events)
      if (!e.meta_graph_def().empty()) QVERIFY(meta.ParseFromString(e.meta_graph_def()));
    QCOMPARE(meta.collection_def().at("summaries").node_list().value(0), std::string("w_1:0"));
  }
};

QTEST_APPLESS_MAIN(MonitoredSessionTest)
#include "tst_monitored_session.moc"
