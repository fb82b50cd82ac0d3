// `clab run` on a graph with an input pipeline and queue runners, as a TF 1.x program saves
// it (a .meta whose "queue_runners" collection names the enqueue, close and cancel ops):
// with --data_dir the runners really read the files beneath it (and a file outside it is
// PERMISSION_DENIED naming the path); with --feed_random and no data the pipeline is cut
// and its output generated.
#include "ClabProcess.h"
#include "clab/graph/AttrValues.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/ops/Ops.h"
#include "clab/train/MetaGraphExport.h"
#include "clab/train/QueueRunners.h"

#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <fstream>

using namespace clab;

namespace {

using Attrs = std::map<std::string, tensorflow::AttrValue>;

Output Queue(GraphBuilder& g, const std::string& name, DataType type, int64_t capacity) {
  tensorflow::AttrValue shapes;
  *shapes.mutable_list()->add_shape() = AttrOf(PartialShape::Scalar()).shape();
  return g.AddNode(
      "FIFOQueueV2", {},
      {{"component_types", AttrOf(std::vector<DataType>{type})}, {"capacity", AttrOf(capacity)}, {"shapes", shapes}},
      name);
}

Output Close(GraphBuilder& g, const Output& queue, const std::string& name, bool cancel) {
  return g.AddNode("QueueCloseV2", {queue}, {{"cancel_pending_enqueues", AttrOf(cancel)}}, name);
}

// string_input_producer(files, num_epochs=1) -> TextLineReader -> DecodeCSV -> batch queue
// -> dequeue_up_to(2) named "next" -> Identity "values"; "init" fills the file names' source queue once.
void WriteGraph(const std::string& path, const std::vector<std::string>& files) {
  GraphBuilder g;
  const Output source = Queue(g, "source", DT_STRING, 8);
  const Output fill = g.AddNode("QueueEnqueueManyV2", {source, ops::Const(g, Tensor::Vector<std::string>(files))},
                                {{"Tcomponents", AttrOf(std::vector<DataType>{DT_STRING})}}, "source/fill");
  g.AddNode("QueueCloseV2", {source, fill.control()}, {{"cancel_pending_enqueues", AttrOf(false)}}, "init");
  const Output names = Queue(g, "input_producer", DT_STRING, 2);
  const Output take = g.AddNode("QueueDequeueV2", {source},
                                {{"component_types", AttrOf(std::vector<DataType>{DT_STRING})}}, "source/take");
  g.AddNode("QueueEnqueueV2", {names, take}, {{"Tcomponents", AttrOf(std::vector<DataType>{DT_STRING})}},
            "input_producer/enqueue");
  Close(g, names, "input_producer/close", false);
  Close(g, names, "input_producer/cancel", true);
  const Output reader = g.AddNode("TextLineReaderV2", {}, {}, "reader");
  g.AddNode("ReaderReadV2", {reader, names}, {}, "read");
  const Output value = g.AddNode("DecodeCSV", {Output("read", 1), ops::Const(g, Tensor::Vector<int32_t>({}))},
                                 {{"OUT_TYPE", AttrOf(std::vector<DataType>{DT_INT32})}}, "csv");
  const Output batch = Queue(g, "batch", DT_INT32, 4);
  g.AddNode("QueueEnqueueV2", {batch, value}, {{"Tcomponents", AttrOf(std::vector<DataType>{DT_INT32})}},
            "batch/enqueue");
  Close(g, batch, "batch/close", false);
  Close(g, batch, "batch/cancel", true);
  g.AddNode("QueueDequeueUpToV2", {batch, ops::Const(g, Tensor::Scalar<int32_t>(2))},
            {{"component_types", AttrOf(std::vector<DataType>{DT_INT32})}}, "next");
  g.AddNode("Identity", {Output("next", 0)}, {{"T", AttrOf(DT_INT32)}}, "values");
  for (const char* queue : {"input_producer", "batch"}) {
    tensorflow::QueueRunnerDef runner;
    runner.set_queue_name(queue);
    runner.add_enqueue_op_name(std::string(queue) + "/enqueue");
    runner.set_close_op_name(std::string(queue) + "/close");
    runner.set_cancel_op_name(std::string(queue) + "/cancel");
    QueueRunners::AddToGraph(g, runner);
  }
  QVERIFY(g.status().ok());
  std::ofstream out(path, std::ios::binary);
  out << ExportMetaGraph(g, nullptr).SerializeAsString();
}

}  // namespace

class ClabRunPipelineTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QVERIFY(QDir().mkpath(dir_.filePath("data")));
    QVERIFY(ClabProcess::writeFile(dir_.filePath("data/a.csv"), "11\n12\n13\n"));
    QVERIFY(ClabProcess::writeFile(dir_.filePath("outside.csv"), "99\n"));
  }

  void readsTheFilesBeneathDataDir() {
    const QString graph = dir_.filePath("inside.meta");
    WriteGraph(graph.toStdString(), {dir_.filePath("data/a.csv").toStdString()});
    const ProgramResult r = ClabProcess::clab({"run", "--graph", graph, "--init", "init", "--fetch", "next", "--steps",
                                               "2", "--data_dir", dir_.filePath("data")});
    QVERIFY2(r.finished && r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("queue runners: 2 started"), qPrintable(r.out));
    const QStringList lines = r.outLines();
    QVERIFY2(lines.contains("[11 12]") && lines.contains("[13]"), qPrintable(r.out));
  }

  void fileOutsideDataDirIsDenied() {
    const QString graph = dir_.filePath("outside.meta");
    const QString outside = dir_.filePath("data/../outside.csv");
    WriteGraph(graph.toStdString(), {outside.toStdString()});
    const ProgramResult r = ClabProcess::clab(
        {"run", "--graph", graph, "--init", "init", "--fetch", "next", "--data_dir", dir_.filePath("data")});
    QVERIFY2(r.finished && r.exitCode != 0, qPrintable(r.out + r.err));
    QVERIFY2(r.err.contains("PERMISSION_DENIED") && r.err.contains(outside), qPrintable(r.err));
  }

  void feedRandomCutsThePipelineWithoutData() {
    // The step reads the pipeline's output ("values" of "next"), which is generated.
    const QString graph = dir_.filePath("absent.meta");
    WriteGraph(graph.toStdString(), {dir_.filePath("no/such.csv").toStdString()});
    const ProgramResult r =
        ClabProcess::clab({"run", "--graph", graph, "--init", "init", "--fetch", "values", "--feed_random"});
    QVERIFY2(r.finished && r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY2(!r.out.contains("queue runners"), qPrintable(r.out));
  }

 private:
  QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(ClabRunPipelineTest)
#include "tst_clab_run_pipeline.moc"
