// File access from graphs a client sends: a task reads and writes files only inside the
// directories it was started with (its data directories and its checkpoint directory). Each
// graph is built here and sent over real gRPC to servers of this process (the master's own
// task and a second task it reaches through the worker service): a dataset file or a
// checkpoint outside those directories, named outright, reached through "..", or through a
// symbolic link, fails its step with PERMISSION_DENIED naming the path and the allowed
// directories; inside, everything works. The check and the open are one: a directory on the
// way swapped for a symbolic link to the outside while files are opened, again and again on
// another thread, never lets a read or a write reach the outside, with openat2 and with the
// component-by-component fallback.
#include "ServerFixture.h"
#include "clab/graph/AttrValues.h"
#include "clab/graph/Graph.h"
#include "clab/graph/ShapeContext.h"
#include "clab/io/CsvTable.h"
#include "clab/io/TensorBundle.h"
#include "clab/runtime/FileAccess.h"
#include "clab/runtime/OpenBeneath.h"
#include "distributed/GrpcSession.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <stdio.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

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

  // Opened through the allowed directory's descriptor, in both ways: a link out and ".."
  // are refused by the open itself, not only by the check before it.
  void openBeneathRefusesWaysOut_data() {
    QTest::addColumn<bool>("openat2");
    QTest::addRow("openat2") << true;
    QTest::addRow("component by component") << false;
  }
  void openBeneathRefusesWaysOut() {
    QFETCH(bool, openat2);
    if (openat2 && !beneath::KernelHasOpenat2()) QSKIP("this kernel has no openat2");
    beneath::UseOpenat2(openat2);
    const UniqueFd root(::open(data_.c_str(), O_RDONLY | O_DIRECTORY));
    QVERIFY(root.valid());
    const int inside = beneath::Open(root.get(), "rows.csv", O_RDONLY);
    QVERIFY2(inside >= 0, std::strerror(-inside));
    ::close(inside);
    for (const char* way_out :
         {"link.csv", "linkdir/secret.csv", "../outside/secret.csv", "sub/../../outside/secret.csv"}) {
      const int fd = beneath::Open(root.get(), way_out, O_RDONLY);
      if (fd >= 0) ::close(fd);
      QVERIFY2(fd == -EXDEV || fd == -ELOOP, way_out);
    }
    QVERIFY(beneath::OpenDirectory(root.get(), "linkdir/made", true) < 0);
    QVERIFY(!fs::exists(outside_ + "/made"));

    auto access = FileAccess::Create({data_}, ckpt_);
    QVERIFY(access.ok());
    for (const std::string& path :
         {data_ + "/link.csv", data_ + "/linkdir/secret.csv", data_ + "/../outside/secret.csv"}) {
      auto opened = access->OpenForReading(path, "the dataset file");
      QCOMPARE(opened.status().code(), absl::StatusCode::kPermissionDenied);
      QVERIFY2(std::string(opened.status().message()).find("the dataset file '" + path + "'") != std::string::npos,
               std::string(opened.status().message()).c_str());
    }
    QCOMPARE(access->OpenDirectoryOf(ckpt_ + "/linkdir/model.ckpt-1", "the checkpoint", true).status().code(),
             absl::StatusCode::kPermissionDenied);
    QCOMPARE(access->OpenForReading(data_ + "/missing.csv", "the dataset file").status().code(),
             absl::StatusCode::kNotFound);
    QCOMPARE(access->OpenForReading(data_ + "/sub", "the dataset file").status().code(),
             absl::StatusCode::kInvalidArgument);
    beneath::UseOpenat2(true);
  }

  // A directory on the way is exchanged with a symbolic link to the outside (one atomic
  // renameat2 after the other, on another thread) while the dataset file under it is
  // opened and read, and a checkpoint written under a second one, many times. Whatever the
  // timing, no read returns the outside file's rows and no file appears outside; each
  // attempt either reads the inside file or is refused.
  void swappedDirectoryNeverLeadsOutside_data() { openBeneathRefusesWaysOut_data(); }
  void swappedDirectoryNeverLeadsOutside() {
    QFETCH(bool, openat2);
    if (openat2 && !beneath::KernelHasOpenat2()) QSKIP("this kernel has no openat2");
    beneath::UseOpenat2(openat2);
    const std::string tag = openat2 ? "o2" : "cc";
    const std::string race = data_ + "/race-" + tag, wrace = ckpt_ + "/race-" + tag;
    const std::string far = outside_ + "/race-" + tag, wfar = outside_ + "/wrace-" + tag;
    for (const std::string& dir : {race + "/a", wrace + "/a", far, wfar}) fs::create_directories(dir);
    WriteFile(race + "/a/rows.csv", "a,b,class\n1,2,0\n");
    WriteFile(far + "/rows.csv", "a,b,class\n7,7,1\n");
    fs::create_directory_symlink(far, race + "/b");
    fs::create_directory_symlink(wfar, wrace + "/b");
    auto access = FileAccess::Create({data_}, ckpt_);
    QVERIFY(access.ok());

    // Stopped and joined however the test ends.
    struct Swapper {
      std::atomic<bool> stop{false};
      std::atomic<long> swaps{0};
      std::thread thread;
      ~Swapper() {
        stop = true;
        if (thread.joinable()) thread.join();
      }
    } swapper;
    std::atomic<long>& swaps = swapper.swaps;
    swapper.thread = std::thread([&] {
      for (long round = 0; !swapper.stop.load(); ++round) {
        for (const std::string& dir : {race, wrace})
          if (::renameat2(AT_FDCWD, (dir + "/a").c_str(), AT_FDCWD, (dir + "/b").c_str(), RENAME_EXCHANGE) == 0)
            ++swaps;
        // Some states last a little, so that checks pass before a swap as well as after.
        if (round % 3 != 0) std::this_thread::sleep_for(std::chrono::microseconds(20));
      }
    });
    const std::string path = race + "/a/rows.csv";
    int read_inside = 0, refused = 0, named_outside = 0;
    for (int i = 0; i < 4000; ++i) {
      // What opening the checked name would have done (the way before): counted, not used.
      if (auto checked = access->Resolve(path, "the dataset file"); checked.ok()) {
        std::ifstream by_name(*checked);
        std::string header, row;
        std::getline(by_name, header);
        std::getline(by_name, row);
        if (row.rfind("7,", 0) == 0) ++named_outside;
      }
      auto opened = access->OpenForReading(path, "the dataset file");
      if (!opened.ok()) {
        const auto code = opened.status().code();
        QVERIFY2(code == absl::StatusCode::kPermissionDenied || code == absl::StatusCode::kNotFound,
                 opened.status().ToString().c_str());
        ++refused;
        continue;
      }
      auto table = ReadCsvTable(path, opened->get());
      QVERIFY2(table.ok(), table.status().ToString().c_str());
      QCOMPARE(table->rows.size(), size_t{1});
      QCOMPARE(table->rows[0][0], 1.0);  // never the outside file's 7
      ++read_inside;
    }
    int written = 0;
    for (int i = 0; i < 400; ++i) {
      auto at = access->OpenDirectoryOf(wrace + "/a/model.ckpt-" + std::to_string(i), "the checkpoint", true);
      if (!at.ok()) {
        // Refused; a link met and gone again in the same instant reads as a missing directory.
        const auto code = at.status().code();
        QVERIFY2(code == absl::StatusCode::kPermissionDenied || code == absl::StatusCode::kNotFound,
                 at.status().ToString().c_str());
        continue;
      }
      QVERIFY(WriteTensorBundleAt(*at, {{"w", Tensor::Scalar<float>(1)}}).ok());
      ++written;
    }
    swapper.stop = true;
    swapper.thread.join();
    QVERIFY2(fs::is_empty(wfar), "a checkpoint file was written outside");
    qInfo(
        "%s: %ld swaps; %d reads of the inside file, %d refused; opening the checked name instead would have read "
        "the outside file %d times; %d checkpoints written inside",
        openat2 ? "openat2" : "component by component", swaps.load(), read_inside, refused, named_outside, written);
    QVERIFY(swaps.load() > 0);
    beneath::UseOpenat2(true);
  }

  // A task compiling a client's graph infers shapes without reading the files a node
  // names (the dataset's header): only the op, confined, opens them.
  void shapeFunctionsReadNoFileOfAClient() {
    GraphBuilder g;
    ops::MinibatchDatasetOptions dataset;
    dataset.path = outside_ + "/secret.csv";
    dataset.batch_size = 2;
    ops::MinibatchDataset(g, dataset, "outside_batches");
    QVERIFY2(g.status().ok(), g.status().ToString().c_str());
    auto graph = Graph::FromGraphDef(g.graph_def());
    QVERIFY2(graph.ok(), graph.status().ToString().c_str());
    std::map<std::string, std::vector<PartialShape>> shapes;
    QVERIFY(InferGraphShapes(**graph, &shapes).ok());
    QCOMPARE(shapes["outside_batches"][0], (PartialShape{2, 2}));  // a program's own graph: read
    {
      ShapeContext::FilesOff no_files;
      shapes.clear();
      QVERIFY(InferGraphShapes(**graph, &shapes).ok());
    }
    QCOMPARE(shapes["outside_batches"][0], (PartialShape{2, -1}));
    QVERIFY(ShapeContext::MayReadFiles());
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
