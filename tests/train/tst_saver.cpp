// The Saver's graph is tf.train.Saver's: running save/control_dependency with save/Const fed
// writes a checkpoint with SaveV2, running save/restore_all restores it with RestoreV2, and
// the Saver's own Save and Restore (which feed save/RestoreV2's outputs) agree with both.
// Each checkpoint of a monitored session gets its MetaGraphDef, deleted with it.
#include "clab/graph/GraphKeys.h"
#include "clab/graph/GraphVersions.h"
#include "clab/io/TensorBundle.h"
#include "clab/ops/Ops.h"
#include "clab/train/CheckpointState.h"
#include "clab/train/GlobalStep.h"
#include "clab/train/MetaGraphExport.h"
#include "clab/train/MonitoredSession.h"
#include "clab/train/Saver.h"
#include "clab/train/SummaryWriterCache.h"
#include "clab/train/hooks/StopAtStepHook.h"

#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace clab;

namespace {

struct TwoVariables {
  GraphBuilder g;
  Output set_w, set_b;
  TwoVariables() {
    auto w = ops::MakeVariable(g, ops::Const(g, Tensor::Vector<float>({1.f, 2.f})), "w");
    auto b = ops::MakeVariable(g, ops::Const(g, Tensor::Scalar<int64_t>(5)), "b");
    set_w = ops::Assign(g, w.var, ops::Const(g, Tensor::Vector<float>({-1.f, -2.f})), "set_w");
    set_b = ops::Assign(g, b.var, ops::Const(g, Tensor::Scalar<int64_t>(-5)), "set_b");
    ops::GlobalVariablesInitializer(g, "init");
  }
};

std::vector<float> ReadW(Session& s) {
  std::vector<Tensor> out;
  if (!s.Run({}, {"w:0"}, {}, &out).ok()) return {};
  return {out[0].data<float>()[0], out[0].data<float>()[1]};
}

int64_t ReadB(Session& s) {
  std::vector<Tensor> out;
  if (!s.Run({}, {"b:0"}, {}, &out).ok()) return 0;
  return out[0].scalar<int64_t>();
}

const tensorflow::NodeDef* Find(const tensorflow::GraphDef& g, const std::string& name) {
  for (const auto& n : g.node())
    if (n.name() == name) return &n;
  return nullptr;
}

}  // namespace

class SaverTest : public QObject {
  Q_OBJECT

 private slots:
  void cleanup() { ClearSummaryWriters(); }

  void graphHasTensorFlowsSaverNodes() {
    TwoVariables m;
    auto saver = Saver::Build(m.g);
    QVERIFY2(saver.ok(), saver.status().ToString().c_str());
    const tensorflow::SaverDef def = saver->saver_def();
    QCOMPARE(def.filename_tensor_name(), std::string("save/Const:0"));
    QCOMPARE(def.save_tensor_name(), std::string("save/control_dependency:0"));
    QCOMPARE(def.restore_op_name(), std::string("save/restore_all"));
    QCOMPARE(def.version(), 2);
    const tensorflow::GraphDef& g = m.g.graph_def();
    QCOMPARE(g.versions().producer(), kGraphDefProducer);
    for (const char* name :
         {"save/filename/input", "save/filename", "save/Const", "save/SaveV2/tensor_names",
          "save/SaveV2/shape_and_slices", "save/SaveV2", "save/control_dependency", "save/RestoreV2/tensor_names",
          "save/RestoreV2/shape_and_slices", "save/RestoreV2", "save/Assign", "save/Assign_1", "save/restore_all"})
      QVERIFY2(Find(g, name) != nullptr, name);
    QCOMPARE(Find(g, "save/SaveV2")->op(), std::string("SaveV2"));
    QCOMPARE(Find(g, "save/RestoreV2")->op(), std::string("RestoreV2"));
    QCOMPARE(Find(g, "save/Assign_1")->input(1), std::string("save/RestoreV2:1"));
    for (const auto& n : g.node()) QVERIFY2(n.op() != "Placeholder", n.name().c_str());
  }

  // What a TensorFlow program does with the graph: feed save/Const, run the saver's nodes.
  void saveAndRestoreAllRunInTheGraph() {
    QTemporaryDir tmp;
    const std::string prefix = tmp.filePath("graph_saved/model.ckpt-1").toStdString();
    std::filesystem::create_directories(tmp.filePath("graph_saved").toStdString());
    TwoVariables m;
    auto saver = Saver::Build(m.g);
    QVERIFY(saver.ok());
    auto session = NewSession(SessionOptions{});
    QVERIFY(session.ok());
    QVERIFY((*session)->Create(m.g.graph_def()).ok());
    std::vector<Tensor> out;
    QVERIFY((*session)->Run({}, {}, {"init"}, &out).ok());
    const FeedList feed_prefix = {{"save/Const:0", Tensor::Scalar<std::string>(prefix)}};
    Status saved = (*session)->Run(feed_prefix, {"save/control_dependency:0"}, {}, &out);
    QVERIFY2(saved.ok(), saved.ToString().c_str());
    QCOMPARE(out[0].scalar<std::string>(), prefix);
    QVERIFY(std::filesystem::exists(prefix + ".index"));
    QVERIFY((*session)->Run({}, {}, {"set_w", "set_b"}, &out).ok());
    QCOMPARE(ReadB(**session), int64_t{-5});
    Status restored = (*session)->Run(feed_prefix, {}, {"save/restore_all"}, &out);
    QVERIFY2(restored.ok(), restored.ToString().c_str());
    QCOMPARE(ReadW(**session), (std::vector<float>{1.f, 2.f}));
    QCOMPARE(ReadB(**session), int64_t{5});

    // The Saver's own restore (values read here, fed as RestoreV2's outputs) reads the file
    // SaveV2 wrote, and restore_all reads the file the Saver's own Save wrote.
    QVERIFY((*session)->Run({}, {}, {"set_w", "set_b"}, &out).ok());
    Status own_restore = saver->Restore(**session, prefix);
    QVERIFY2(own_restore.ok(), own_restore.ToString().c_str());
    QCOMPARE(ReadW(**session), (std::vector<float>{1.f, 2.f}));
    QVERIFY((*session)->Run({}, {}, {"set_w", "set_b"}, &out).ok());
    auto own = saver->Save(**session, tmp.filePath("own/model.ckpt").toStdString(), 7);
    QVERIFY2(own.ok(), own.status().ToString().c_str());
    QVERIFY((*session)->Run({}, {}, {"init"}, &out).ok());
    QVERIFY(
        (*session)->Run({{"save/Const:0", Tensor::Scalar<std::string>(*own)}}, {}, {"save/restore_all"}, &out).ok());
    QCOMPARE(ReadW(**session), (std::vector<float>{-1.f, -2.f}));
    QCOMPARE(ReadB(**session), int64_t{-5});
  }

  void metaGraphBesideEachCheckpointAndDeletedWithIt() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    GraphBuilder g;
    Output gs = GetOrCreateGlobalStep(g);
    auto w = ops::MakeVariable(g, ops::Const(g, Tensor::Scalar<float>(0.f)), "w");
    auto bump = ops::AssignAdd(g, w.var, ops::Const(g, Tensor::Scalar<float>(0.5f)), "bump");
    Output train;
    {
      auto deps = g.WithControlDependencies({bump.control()});
      train = IncrementGlobalStep(g, gs, "train");
    }
    g.AddToCollection(GraphKeys::kTrainOp, train.node());
    MonitoredTrainingSessionOptions o;
    o.log = std::make_shared<TrainingLog>("", false);
    o.checkpoint_dir = dir;
    o.save_checkpoint_steps = 1;
    o.hooks.push_back(std::make_shared<StopAtStepHook>(StopAtStepHook::LastStep(8)));
    {
      auto s = MonitoredTrainingSession(g, o);
      QVERIFY2(s.ok(), s.status().ToString().c_str());
      std::vector<Tensor> out;
      while (!(*s)->should_stop()) QVERIFY((*s)->Run({train.node()}, {}, &out).ok());
      QVERIFY((*s)->Close().ok());
    }
    auto kept = CheckpointsNewestFirst(dir);
    QVERIFY(kept.ok());
    QCOMPARE(kept->size(), size_t{5});  // max_to_keep
    for (const std::string& prefix : *kept) QVERIFY2(std::filesystem::exists(prefix + ".meta"), prefix.c_str());
    for (int step : {0, 1, 2, 3}) {
      const std::string old = (std::filesystem::path(dir) / StrCat("model.ckpt-", step)).string();
      QVERIFY2(!std::filesystem::exists(old + ".meta"), old.c_str());
      QVERIFY2(!std::filesystem::exists(old + ".index"), old.c_str());
    }
    std::ifstream in(kept->front() + ".meta", std::ios::binary);
    tensorflow::MetaGraphDef meta;
    QVERIFY(meta.ParseFromIstream(&in));
    QCOMPARE(meta.graph_def().versions().producer(), kGraphDefProducer);
    QCOMPARE(meta.saver_def().restore_op_name(), std::string("save/restore_all"));
    QVERIFY(Find(meta.graph_def(), "save/restore_all") != nullptr);
    QVERIFY(meta.meta_info_def().stripped_op_list().op_size() > 0);
    const auto& collections = meta.collection_def();
    QVERIFY(collections.count("variables"));
    QVERIFY(collections.count("trainable_variables"));
    QVERIFY(collections.count("global_step"));
    QCOMPARE(collections.at("train_op").node_list().value(0), train.node());
    QCOMPARE(collections.at("variables").bytes_list().value_size(), 2);  // global_step and w
    tensorflow::VariableDefProto var;
    QVERIFY(var.ParseFromString(collections.at("trainable_variables").bytes_list().value(0)));
    QCOMPARE(var.variable_name(), std::string("w:0"));
    QCOMPARE(var.initializer_name(), std::string("w/Assign"));
    QCOMPARE(var.snapshot_name(), std::string("w/read:0"));
    QVERIFY(var.trainable());
    QVERIFY(Find(meta.graph_def(), var.initial_value_name().substr(0, var.initial_value_name().find(':'))));
  }
};

QTEST_APPLESS_MAIN(SaverTest)
#include "tst_saver.moc"
