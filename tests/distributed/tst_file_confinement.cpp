// File access from graphs a client sends: a task reads and writes files only inside the
// directories it was started with (its data directories and its checkpoint directory). Each
// graph is built here and sent over real gRPC to servers of this process (the master's own
// task and a second task it reaches through the worker service): a dataset file or a
// checkpoint outside those directories, named outright, reached through "..", or through a
// symbolic link, fails its step with PERMISSION_DENIED naming the path and the allowed
// directories; inside, everything works.
#include "ServerFixture.h"
#include "clab/graph/AttrValues.h"
#include "clab/io/TensorBundle.h"
#include "clab/runtime/FileAccess.h"
#include "distributed/GrpcSession.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace clab;
using namespace clab::testing;

namespace {

namespace fs = std::filesystem;

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

}  // namespace

class FileConfinementTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(root_.isValid());
    const fs::path root = fs::canonical(root_.path().toStdString());
    data_ = (root / "data").string();
    ckpt_ = (root / "ckpt").string();
    outside_ = (root / "outside").string();
    for (const std::string& dir : {data_, ckpt_, outside_, data_ + "/sub", data_ + "-evil"})
      fs::create_directories(dir);
    WriteFile(data_ + "/rows.csv", "a,b,class\n1,2,0\n3,4,1\n");
    WriteFile(outside_ + "/secret.csv", "a,b,class\n7,7,1\n7,7,0\n");
    WriteFile(data_ + "-evil/rows.csv", "a,b,class\n7,7,1\n7,7,0\n");
    fs::create_symlink(outside_ + "/secret.csv", data_ + "/link.csv");
    fs::create_directory_symlink(outside_, data_ + "/linkdir");
    fs::create_directory_symlink(outside_, ckpt_ + "/linkdir");
    // A checkpoint outside, as a task's user might have one.
    QVERIFY(WriteTensorBundle(outside_ + "/model.ckpt-1", {{"w", Tensor::Scalar<float>(42)}}).ok());

    auto cluster =
        ClusterSpec::FromDict({{"worker", {LoopbackAddress(FreePort())}}, {"ps", {LoopbackAddress(FreePort())}}});
    QVERIFY(cluster.ok());
    for (const std::string job : {"worker", "ps"}) {
      ServerOptions options;
      options.cluster = *cluster;
      options.job_name = job;
      options.data_dirs = {data_};
      options.checkpoint_dir = ckpt_;
      auto server = GrpcServer::Create(options, [](const std::string&) {});
      QVERIFY2(server.ok(), server.status().ToString().c_str());
      servers_.push_back(*std::move(server));
    }
    target_ = servers_.front()->target();
  }

  void cleanupTestCase() {
    for (auto& server : servers_) server->Stop().IgnoreError();
  }

  void datasetFiles_data() {
    QTest::addColumn<QString>("device");
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("allowed");
    const QString data = QString::fromStdString(data_), outside = QString::fromStdString(outside_);
    // Relative paths resolve against the task's working directory, as they always have.
    const QString relative = QDir::current().relativeFilePath(data + "/rows.csv");
    for (const char* device : {"/job:worker/task:0", "/job:ps/task:0"}) {
      auto row = [&](const char* what, const QString& path, bool allowed) {
        QTest::addRow("%s, %s", device + 5, what) << QString(device) << path << allowed;
      };
      row("inside", data + "/rows.csv", true);
      row("inside, relative", relative, true);
      row("inside, '..' that stays inside", data + "/sub/../rows.csv", true);
      row("'..' out of the data directory", data + "/../outside/secret.csv", false);
      row("absolute path outside", outside + "/secret.csv", false);
      row("a system file", "/etc/passwd", false);
      row("a symbolic link to a file outside", data + "/link.csv", false);
      row("through a linked directory", data + "/linkdir/secret.csv", false);
      row("a directory whose name only starts alike", data + "-evil/rows.csv", false);
    }
  }
  void datasetFiles() {
    QFETCH(QString, device);
    QFETCH(QString, path);
    QFETCH(bool, allowed);
    // Datasets live on their task like variables: a fresh name per row.
    const std::string name = "batches_" + std::to_string(++datasets_);
    GraphBuilder g;
    {
      auto scope = g.WithDevice(device.toStdString());
      ops::MinibatchDatasetOptions dataset;
      dataset.path = path.toStdString();
      dataset.batch_size = 2;
      dataset.shuffle = false;
      ops::MinibatchDataset(g, dataset, name);
    }
    QVERIFY2(g.status().ok(), g.status().ToString().c_str());
    std::vector<Tensor> out;
    const Status run = RunGraph(g, {}, {name + ":1"}, &out);
    if (allowed) {
      QVERIFY2(run.ok(), run.ToString().c_str());
      QVERIFY(out[0].Equals(Tensor::Vector<int32_t>({0, 1})));
      return;
    }
    QCOMPARE(run.code(), absl::StatusCode::kPermissionDenied);
    const std::string message(run.message());
    QVERIFY2(message.find("the dataset file '" + path.toStdString() + "'") != std::string::npos, message.c_str());
    QVERIFY2(message.find("outside the directories this task may use: " + data_ + ", " + ckpt_) != std::string::npos,
             message.c_str());
    QVERIFY2(message.find(name) != std::string::npos, message.c_str());
  }

  void checkpoints_data() {
    QTest::addColumn<QString>("device");
    QTest::addColumn<QString>("prefix");
    QTest::addColumn<bool>("allowed");
    const QString ckpt = QString::fromStdString(ckpt_), outside = QString::fromStdString(outside_);
    for (const char* device : {"/job:worker/task:0", "/job:ps/task:0"}) {
      auto row = [&](const char* what, const QString& prefix, bool allowed) {
        QTest::addRow("%s, %s", device + 5, what) << QString(device) << prefix << allowed;
      };
      row("in the checkpoint directory", ckpt + "/" + (device + 5) + "/model.ckpt-7", true);
      row("'..' out of it", ckpt + "/../outside/model.ckpt-7", false);
      row("absolute path outside", outside + "/model.ckpt-7", false);
      row("through a linked directory", ckpt + "/linkdir/model.ckpt-7", false);
    }
  }
  // SaveV2 writes and RestoreV2 reads back inside; outside, neither touches a file.
  void checkpoints() {
    QFETCH(QString, device);
    QFETCH(QString, prefix);
    QFETCH(bool, allowed);
    GraphBuilder g;
    {
      auto scope = g.WithDevice(device.toStdString());
      const Output path = ops::Placeholder(g, DT_STRING, PartialShape::Scalar(), "prefix");
      const Output names = ops::Const(g, Tensor::Vector<std::string>({"w"}), "names");
      const Output slices = ops::Const(g, Tensor::Vector<std::string>({""}), "slices");
      const Output value = ops::Const(g, Tensor::Scalar<float>(3), "value");
      g.AddNode("SaveV2", {path, names, slices, value}, {{"dtypes", AttrOf(std::vector<DataType>{DT_FLOAT})}}, "save");
      g.AddNode("RestoreV2", {path, names, slices}, {{"dtypes", AttrOf(std::vector<DataType>{DT_FLOAT})}}, "restore");
    }
    QVERIFY2(g.status().ok(), g.status().ToString().c_str());
    const FeedList feeds{{"prefix", Tensor::Scalar<std::string>(prefix.toStdString())}};
    const Status saved = RunGraph(g, feeds, {}, nullptr, {"save"});
    std::vector<Tensor> restored;
    const Status read = RunGraph(g, feeds, {"restore:0"}, &restored);
    if (allowed) {
      QVERIFY2(saved.ok(), saved.ToString().c_str());
      QVERIFY2(read.ok(), read.ToString().c_str());
      QVERIFY(restored[0].Equals(Tensor::Scalar<float>(3)));
      return;
    }
    for (const Status& status : {saved, read}) {
      QCOMPARE(status.code(), absl::StatusCode::kPermissionDenied);
      const std::string message(status.message());
      QVERIFY2(message.find("the checkpoint '" + prefix.toStdString() + "'") != std::string::npos, message.c_str());
      QVERIFY2(message.find(data_ + ", " + ckpt_) != std::string::npos, message.c_str());
    }
    QVERIFY(!fs::exists(outside_ + "/model.ckpt-7.index"));
  }

  // The checkpoint a task's user keeps elsewhere is not the client's to read.
  void restoringFromOutsideIsRefused() {
    GraphBuilder g;
    const Output names = ops::Const(g, Tensor::Vector<std::string>({"w"}), "names");
    const Output slices = ops::Const(g, Tensor::Vector<std::string>({""}), "slices");
    const Output path = ops::Const(g, Tensor::Scalar<std::string>(ckpt_ + "/../outside/model.ckpt-1"), "prefix");
    g.AddNode("RestoreV2", {path, names, slices}, {{"dtypes", AttrOf(std::vector<DataType>{DT_FLOAT})}}, "restore");
    std::vector<Tensor> out;
    const Status read = RunGraph(g, {}, {"restore:0"}, &out);
    QCOMPARE(read.code(), absl::StatusCode::kPermissionDenied);
  }

  // The task keeps serving: an allowed step still runs after the refusals.
  void stillServes() {
    GraphBuilder g;
    ops::MinibatchDatasetOptions dataset;
    dataset.path = data_ + "/rows.csv";
    dataset.batch_size = 1;
    const std::string name = "batches_" + std::to_string(++datasets_);
    ops::MinibatchDataset(g, dataset, name);
    std::vector<Tensor> out;
    const Status run = RunGraph(g, {}, {name + ":0"}, &out);
    QVERIFY2(run.ok(), run.ToString().c_str());
  }

  // Without a data directory the working directory is the data directory; the checkpoint
  // directory comes on top; paths compare by whole components.
  void defaultsAndResolution() {
    auto plain = FileAccess::Create({});
    QVERIFY(plain.ok());
    const std::string cwd = fs::canonical(fs::current_path()).string();
    QCOMPARE(plain->roots(), std::vector<std::string>{cwd});
    QVERIFY(plain->Resolve("here.csv", "the file").ok());
    QCOMPARE(*plain->Resolve("here.csv", "the file"), cwd + "/here.csv");
    QCOMPARE(plain->Resolve(data_ + "/rows.csv", "the file").status().code(), absl::StatusCode::kPermissionDenied);

    auto with_checkpoints = FileAccess::Create({}, ckpt_);
    QVERIFY(with_checkpoints.ok());
    QCOMPARE(with_checkpoints->roots(), (std::vector<std::string>{cwd, ckpt_}));
    QVERIFY(with_checkpoints->Resolve(ckpt_ + "/model.ckpt-1", "the checkpoint").ok());
    QVERIFY(with_checkpoints->Resolve(ckpt_, "the checkpoint").ok());

    QCOMPARE(FileAccess::Create({""}).status().code(), absl::StatusCode::kInvalidArgument);
    auto data = FileAccess::Create({data_ + "/"});
    QVERIFY(data.ok());
    QVERIFY(data->Resolve(data_ + "/rows.csv", "f").ok());
    QVERIFY(!data->Resolve(data_ + "-evil/rows.csv", "f").ok());
    QVERIFY(!data->Resolve(std::string("rows.csv\0/x", 10), "f").ok());
  }

 private:
  // A fresh session over gRPC (never the in-process shortcut) on the worker's master.
  Status RunGraph(const GraphBuilder& g, const FeedList& feeds, const std::vector<std::string>& fetches,
                  std::vector<Tensor>* outputs, const std::vector<std::string>& targets = {}) {
    SessionOptions options;
    options.target = target_;
    CLAB_ASSIGN_OR_RETURN(std::unique_ptr<GrpcSession> session, GrpcSession::Open(options, false));
    CLAB_RETURN_IF_ERROR(session->Create(g.graph_def()));
    std::vector<Tensor> ignored;
    const Status run = session->Run(feeds, fetches, targets, outputs ? outputs : &ignored);
    session->Close().IgnoreError();
    return run;
  }

  QTemporaryDir root_;
  std::string data_, ckpt_, outside_;
  std::vector<std::unique_ptr<GrpcServer>> servers_;
  std::string target_;
  int datasets_ = 0;
};

QTEST_APPLESS_MAIN(FileConfinementTest)
#include "tst_file_confinement.moc"
