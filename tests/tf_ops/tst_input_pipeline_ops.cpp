// TF 1.x input pipelines built with the graph builder as tf.train's Python writes them:
// a FIFOQueueV2 of file names (string_input_producer), TextLineReaderV2 and TFRecordReaderV2
// reading files written here, DecodeCSV, ParseSingleExample on tf.Example records built with
// the protobuf classes, batching with QueueEnqueueManyV2 / QueueDequeueManyV2 /
// QueueDequeueUpToV2, a RandomShuffleQueueV2 with fixed seeds, closed-queue semantics,
// DecodeRaw's endianness, queue runners started and stopped by a monitored session (the
// input read to its end; an endless producer stopped without a hang; a failing runner's
// error reaching the step), and readers confined to a task's --data_dir.
#include "StatusText.h"
#include "clab/distributed/Server.h"
#include "clab/graph/AttrValues.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/io/RecordFile.h"
#include "clab/ops/Ops.h"
#include "clab/runtime/Session.h"
#include "clab/train/MetaGraphExport.h"
#include "clab/train/MonitoredSession.h"
#include "clab/train/QueueRunners.h"
#include "tensorflow/example.pb.h"

#include <absl/strings/match.h>

#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <algorithm>
#include <fstream>
#include <numeric>

using namespace clab;
using clab::testing::StatusText;

namespace {

using Attrs = std::map<std::string, tensorflow::AttrValue>;

tensorflow::AttrValue ShapeList(const std::vector<PartialShape>& shapes) {
  tensorflow::AttrValue value;
  auto* list = value.mutable_list();
  for (const auto& shape : shapes) *list->add_shape() = AttrOf(shape).shape();
  return value;
}

Output Queue(GraphBuilder& g, const std::string& name, std::vector<DataType> types, int64_t capacity,
             std::vector<PartialShape> shapes = {}, Attrs extra = {}, const char* op = "FIFOQueueV2") {
  extra["component_types"] = AttrOf(types);
  extra["capacity"] = AttrOf(capacity);
  extra["shapes"] = ShapeList(shapes);
  return g.AddNode(op, {}, extra, name);
}

std::vector<DataType> TypesOf(GraphBuilder& g, const std::vector<Output>& values) {
  std::vector<DataType> types;
  for (const Output& v : values) types.push_back(g.TypeOf(v));
  return types;
}

Output Enqueue(GraphBuilder& g, const Output& queue, std::vector<Output> values, const std::string& name,
               bool many = false) {
  const Attrs attrs = {{"Tcomponents", AttrOf(TypesOf(g, values))}};
  values.insert(values.begin(), queue);
  return g.AddNode(many ? "QueueEnqueueManyV2" : "QueueEnqueueV2", values, attrs, name);
}

Output Dequeue(GraphBuilder& g, const Output& queue, std::vector<DataType> types, const std::string& name,
               int32_t n = -1, const char* op = "QueueDequeueManyV2") {
  std::vector<Output> inputs = {queue};
  if (n >= 0) inputs.push_back(ops::Const(g, Tensor::Scalar<int32_t>(n)));
  return g.AddNode(n >= 0 ? op : "QueueDequeueV2", inputs, {{"component_types", AttrOf(types)}}, name);
}

Output Close(GraphBuilder& g, const Output& queue, const std::string& name, bool cancel = false) {
  return g.AddNode("QueueCloseV2", {queue}, {{"cancel_pending_enqueues", AttrOf(cancel)}}, name);
}

Output Strings(GraphBuilder& g, std::vector<std::string> values) {
  return ops::Const(g, Tensor::Vector<std::string>(values));
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string ExampleBytes(std::vector<float> x, std::vector<int64_t> tags) {
  tensorflow::Example example;
  auto& features = *example.mutable_features()->mutable_feature();
  for (float v : x) features["x"].mutable_float_list()->add_value(v);
  for (int64_t t : tags) features["tags"].mutable_int64_list()->add_value(t);
  return example.SerializeAsString();
}

struct Local {
  std::unique_ptr<Session> session;
  Status status;
};

Local Open(const GraphBuilder& g, const std::string& target = "") {
  Local local;
  SessionOptions options;
  options.target = target;
  auto session = NewSession(options);
  if (!session.ok()) {
    local.status = session.status();
    return local;
  }
  local.session = std::move(session).value();
  local.status = local.session->Create(g.graph_def());
  return local;
}

// A file-name queue filled once and closed (string_input_producer with num_epochs=1), a
// reader of `reader_op` taking names from it, and its ReaderReadV2 "read".
// `shared` names the queue and the reader apart from other graphs on the same task.
void ReadPipeline(GraphBuilder& g, const std::vector<std::string>& files, const char* reader_op, Attrs reader = {},
                  const std::string& shared = "") {
  if (!shared.empty()) reader["shared_name"] = AttrOf(shared + "/reader");
  const Output names = Queue(g, "input_producer", {DT_STRING}, 32, {},
                             shared.empty() ? Attrs{} : Attrs{{"shared_name", AttrOf(shared + "/names")}});
  const Output fill = Enqueue(g, names, {Strings(g, files)}, "input_producer/enqueue", true);
  g.AddNode("QueueCloseV2", {names, fill.control()}, {{"cancel_pending_enqueues", AttrOf(false)}},
            "input_producer/fill_and_close");
  const Output handle = g.AddNode(reader_op, {}, reader, "reader");
  g.AddNode("ReaderReadV2", {handle, names}, {}, "read");
}

}  // namespace

class InputPipelineOpsTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QVERIFY(dir_.isValid()); }

  void textLinesThroughDecodeCsv() {
    const std::string a = Path("a.csv"), b = Path("b.csv");
    WriteFile(a, "id,name,score\n1,ann,0.5\n2,\"b,o\"\"b\",\r\n");
    WriteFile(b, "id,name,score\n3,,NA\n");
    GraphBuilder g;
    ReadPipeline(g, {a, b}, "TextLineReaderV2", {{"skip_header_lines", AttrOf(int64_t{1})}});
    const Attrs csv = {{"OUT_TYPE", AttrOf(std::vector<DataType>{DT_INT32, DT_STRING, DT_FLOAT})},
                       {"na_value", AttrOf("NA")}};
    g.AddNode("DecodeCSV",
              {Output("read", 1), ops::Const(g, Tensor::Vector<int32_t>({})),
               ops::Const(g, Tensor::Vector<std::string>({"?"})), ops::Const(g, Tensor::Vector<float>({-1.0f}))},
              csv, "csv");
    QVERIFY2(g.status().ok(), StatusText(g.status()));
    Local s = Open(g);
    QVERIFY2(s.status.ok(), StatusText(s.status));
    std::vector<Tensor> out;
    QVERIFY(s.session->Run({}, {}, {"input_producer/fill_and_close"}, &out).ok());
    const std::vector<std::tuple<std::string, int32_t, std::string, float>> expected = {
        {a + ":2", 1, "ann", 0.5f}, {a + ":3", 2, "b,o\"b", -1.0f}, {b + ":2", 3, "?", -1.0f}};
    for (const auto& [key, id, name, score] : expected) {
      Status st = s.session->Run({}, {"read:0", "csv:0", "csv:1", "csv:2"}, {}, &out);
      QVERIFY2(st.ok(), StatusText(st));
      QCOMPARE(out[0].scalar<std::string>(), key);
      QCOMPARE(out[1].scalar<int32_t>(), id);
      QCOMPARE(out[2].scalar<std::string>(), name);
      QCOMPARE(out[3].scalar<float>(), score);
    }
    // Both files read and the name queue closed: the end of the input.
    Status end = s.session->Run({}, {"read:1"}, {}, &out);
    QCOMPARE(end.code(), absl::StatusCode::kOutOfRange);
    QVERIFY2(absl::StrContains(end.message(), "is closed and has insufficient elements"), StatusText(end));
  }

  // ReaderReadUpToV2 of more records than a file holds: every line of a 300,000-line file in
  // one step (read in a loop: lines already in the reader do not nest a call each), then
  // what the next file has, and OUT_OF_RANGE once the names are done.
  void readUpToManyRecords() {
    const std::string big = Path("big.txt"), small = Path("small.txt");
    {
      std::ofstream out(big);
      for (int i = 0; i < 300000; ++i) out << i << '\n';
    }
    WriteFile(small, "last\n");
    GraphBuilder g;
    ReadPipeline(g, {big, small}, "TextLineReaderV2");
    g.AddNode("ReaderReadUpToV2",
              {Output("reader"), Output("input_producer"), ops::Const(g, Tensor::Scalar<int64_t>(1000000))}, {},
              "read_many");
    QVERIFY2(g.status().ok(), StatusText(g.status()));
    Local s = Open(g);
    QVERIFY2(s.status.ok(), StatusText(s.status));
    std::vector<Tensor> out;
    QVERIFY(s.session->Run({}, {}, {"input_producer/fill_and_close"}, &out).ok());
    Status st = s.session->Run({}, {"read_many:0", "read_many:1"}, {}, &out);
    QVERIFY2(st.ok(), StatusText(st));
    QCOMPARE(out[1].NumElements(), int64_t{300001});
    QCOMPARE(out[1].data<std::string>()[0], std::string("0"));
    QCOMPARE(out[1].data<std::string>()[299999], std::string("299999"));
    QCOMPARE(out[1].data<std::string>()[300000], std::string("last"));
    QCOMPARE(s.session->Run({}, {"read_many:0"}, {}, &out).code(), absl::StatusCode::kOutOfRange);
  }

  void decodeCsvErrors_data() {
    QTest::addColumn<QString>("record");
    QTest::addColumn<QString>("message");
    QTest::newRow("too few fields") << "1"
                                    << "expect 2 fields but have 1 in record 0";
    QTest::newRow("required missing") << ",2"
                                      << "field 0 is required but missing in record 0";
    QTest::newRow("not a number") << "x,2"
                                  << "field 0 in record 0: 'x' is not a valid int32";
    QTest::newRow("open quote") << "\"1,2"
                                << "record 0: a quoted field is not closed";
  }
  void decodeCsvErrors() {
    QFETCH(QString, record);
    QFETCH(QString, message);
    GraphBuilder g;
    g.AddNode("DecodeCSV",
              {Strings(g, {record.toStdString()}), ops::Const(g, Tensor::Vector<int32_t>({})),
               ops::Const(g, Tensor::Vector<int32_t>({0}))},
              {{"OUT_TYPE", AttrOf(std::vector<DataType>{DT_INT32, DT_INT32})}}, "csv");
    Local s = Open(g);
    QVERIFY2(s.status.ok(), StatusText(s.status));
    std::vector<Tensor> out;
    Status st = s.session->Run({}, {"csv:0"}, {}, &out);
    QCOMPARE(st.code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(absl::StrContains(st.message(), message.toStdString()), StatusText(st));
  }

  void tfRecordsThroughParseSingleExample() {
    const std::string path = Path("examples.tfrecord");
    {
      RecordWriter writer;
      QVERIFY(writer.Open(path).ok());
      QVERIFY(writer.Write(ExampleBytes({1, 2}, {7, 8, 9})).ok());
      QVERIFY(writer.Write(ExampleBytes({3, 4}, {})).ok());
      QVERIFY(writer.Close().ok());
    }
    GraphBuilder g;
    ReadPipeline(g, {path}, "TFRecordReaderV2");
    const Attrs parse = {{"num_sparse", AttrOf(int64_t{1})},
                         {"sparse_keys", AttrOf(std::vector<std::string>{"tags"})},
                         {"dense_keys", AttrOf(std::vector<std::string>{"x"})},
                         {"sparse_types", AttrOf(std::vector<DataType>{DT_INT64})},
                         {"Tdense", AttrOf(std::vector<DataType>{DT_FLOAT})},
                         {"dense_shapes", ShapeList({PartialShape({2})})}};
    g.AddNode("ParseSingleExample", {Output("read", 1), ops::Const(g, Tensor::Vector<float>({}))}, parse, "parse");
    QVERIFY2(g.status().ok(), StatusText(g.status()));
    QCOMPARE(g.ShapeOf(Output("parse", 3)).DebugString(), PartialShape({2}).DebugString());
    Local s = Open(g);
    QVERIFY2(s.status.ok(), StatusText(s.status));
    std::vector<Tensor> out;
    QVERIFY(s.session->Run({}, {}, {"input_producer/fill_and_close"}, &out).ok());
    Status st = s.session->Run({}, {"read:0", "parse:0", "parse:1", "parse:2", "parse:3"}, {}, &out);
    QVERIFY2(st.ok(), StatusText(st));
    QCOMPARE(out[0].scalar<std::string>(), path + ":0");
    QVERIFY2(out[1].Equals(Tensor::Matrix<int64_t>({{0}, {1}, {2}})), out[1].DebugString().c_str());
    QVERIFY(out[2].Equals(Tensor::Vector<int64_t>({7, 8, 9})));
    QVERIFY(out[3].Equals(Tensor::Vector<int64_t>({3})));
    QVERIFY(out[4].Equals(Tensor::Vector<float>({1, 2})));
    st = s.session->Run({}, {"parse:1", "parse:2", "parse:3"}, {}, &out);
    QVERIFY2(st.ok(), StatusText(st));
    QCOMPARE(out[0].NumElements(), int64_t{0});
    QVERIFY(out[1].Equals(Tensor::Vector<int64_t>({0})));
    QVERIFY(out[2].Equals(Tensor::Vector<float>({3, 4})));
    QCOMPARE(s.session->Run({}, {"read:0"}, {}, &out).code(), absl::StatusCode::kOutOfRange);
  }

  void damagedTFRecordIsDataLoss() {
    const std::string path = Path("damaged.tfrecord");
    {
      RecordWriter writer;
      QVERIFY(writer.Open(path).ok());
      QVERIFY(writer.Write("a record").ok());
      QVERIFY(writer.Close().ok());
    }
    {
      std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
      file.seekp(14);
      file.put('X');
    }
    GraphBuilder g;
    ReadPipeline(g, {path}, "TFRecordReaderV2");
    Local s = Open(g);
    QVERIFY2(s.status.ok(), StatusText(s.status));
    std::vector<Tensor> out;
    QVERIFY(s.session->Run({}, {}, {"input_producer/fill_and_close"}, &out).ok());
    Status st = s.session->Run({}, {"read:1"}, {}, &out);
    QCOMPARE(st.code(), absl::StatusCode::kDataLoss);
    QVERIFY2(absl::StrContains(st.message(), path), StatusText(st));
  }

  void batchingAndClosedQueues() {
    GraphBuilder g;
    const Output q = Queue(g, "batch", {DT_INT32, DT_STRING}, 100, {PartialShape({2}), PartialShape::Scalar()});
    Enqueue(g, q,
            {ops::Const(g, Tensor::Matrix<int32_t>({{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}})),
             Strings(g, {"a", "b", "c", "d", "e"})},
            "fill", true);
    Close(g, q, "close");
    Dequeue(g, q, {DT_INT32, DT_STRING}, "take3", 3);
    Dequeue(g, q, {DT_INT32, DT_STRING}, "upto3", 3, "QueueDequeueUpToV2");
    Dequeue(g, q, {DT_INT32, DT_STRING}, "one");
    g.AddNode("QueueSizeV2", {q}, {}, "size");
    Enqueue(g, q, {ops::Const(g, Tensor::Vector<int32_t>({9, 9})), ops::Const(g, Tensor::Scalar<std::string>("z"))},
            "late");
    QVERIFY2(g.status().ok(), StatusText(g.status()));
    Local s = Open(g);
    QVERIFY2(s.status.ok(), StatusText(s.status));
    std::vector<Tensor> out;
    QVERIFY(s.session->Run({}, {}, {"fill"}, &out).ok());
    Status st = s.session->Run({}, {"take3:0", "take3:1"}, {}, &out);
    QVERIFY2(st.ok(), StatusText(st));
    QVERIFY(out[0].Equals(Tensor::Matrix<int32_t>({{0, 0}, {1, 1}, {2, 2}})));
    QVERIFY(out[1].Equals(Tensor::Vector<std::string>({"a", "b", "c"})));
    QVERIFY(s.session->Run({}, {}, {"close"}, &out).ok());
    // Closed with 2 left: a dequeue of 3 fails and leaves them; up-to takes them.
    st = s.session->Run({}, {"take3:0"}, {}, &out);
    QCOMPARE(st.code(), absl::StatusCode::kOutOfRange);
    QVERIFY2(absl::StrContains(st.message(), "FIFOQueue 'batch' is closed and has insufficient elements (requested 3"),
             StatusText(st));
    QVERIFY(s.session->Run({}, {"size:0"}, {}, &out).ok());
    QCOMPARE(out[0].scalar<int32_t>(), 2);
    st = s.session->Run({}, {"upto3:0", "upto3:1"}, {}, &out);
    QVERIFY2(st.ok(), StatusText(st));
    QVERIFY(out[0].Equals(Tensor::Matrix<int32_t>({{3, 3}, {4, 4}})));
    QVERIFY(out[1].Equals(Tensor::Vector<std::string>({"d", "e"})));
    QCOMPARE(s.session->Run({}, {"one:0"}, {}, &out).code(), absl::StatusCode::kOutOfRange);
    QCOMPARE(s.session->Run({}, {"upto3:0"}, {}, &out).code(), absl::StatusCode::kOutOfRange);
    QCOMPARE(s.session->Run({}, {}, {"late"}, &out).code(), absl::StatusCode::kCancelled);
  }

  // A step waiting on a queue that nothing fills ends at its timeout (its rendezvous is
  // aborted, which ends the wait), and the queue goes on: what the next enqueue brings is
  // dequeued, and a batch dequeue that was cut short put back what it had taken.
  void waitsEndWithTheStep() {
    GraphBuilder g;
    const Output q = Queue(g, "waits", {DT_INT32}, 10, {PartialShape::Scalar()});
    Dequeue(g, q, {DT_INT32}, "one");
    Dequeue(g, q, {DT_INT32}, "two", 2);
    Enqueue(g, q, {ops::Const(g, Tensor::Scalar<int32_t>(7))}, "put");
    g.AddNode("QueueSizeV2", {q}, {}, "size");
    QVERIFY2(g.status().ok(), StatusText(g.status()));
    Local s = Open(g);
    QVERIFY2(s.status.ok(), StatusText(s.status));
    tensorflow::RunOptions options;
    options.set_timeout_in_ms(100);
    std::vector<Tensor> out;
    Status st = s.session->Run(options, {}, {"one:0"}, {}, &out, nullptr);
    QCOMPARE(st.code(), absl::StatusCode::kDeadlineExceeded);
    QVERIFY(s.session->Run({}, {}, {"put"}, &out).ok());
    st = s.session->Run(options, {}, {"two:0"}, {}, &out, nullptr);
    QCOMPARE(st.code(), absl::StatusCode::kDeadlineExceeded);
    QVERIFY(s.session->Run({}, {"size:0"}, {}, &out).ok());
    QCOMPARE(out[0].scalar<int32_t>(), 1);
    st = s.session->Run({}, {"one:0"}, {}, &out);
    QVERIFY2(st.ok(), StatusText(st));
    QCOMPARE(out[0].scalar<int32_t>(), 7);
  }

  void randomShuffleIsSeeded() {
    auto shuffled = [](int64_t seed, std::vector<int32_t>* order, int32_t* left) {
      GraphBuilder g;
      const Output q =
          Queue(g, "shuffle", {DT_INT32}, 20, {PartialShape::Scalar()},
                {{"min_after_dequeue", AttrOf(int64_t{2})}, {"seed", AttrOf(seed)}, {"seed2", AttrOf(int64_t{3})}},
                "RandomShuffleQueueV2");
      std::vector<int32_t> values(10);
      std::iota(values.begin(), values.end(), 0);
      Enqueue(g, q, {ops::Const(g, Tensor::Vector<int32_t>(values))}, "fill", true);
      Dequeue(g, q, {DT_INT32}, "take8", 8);
      g.AddNode("QueueSizeV2", {q}, {}, "size");
      Local s = Open(g);
      QVERIFY2(s.status.ok(), StatusText(s.status));
      std::vector<Tensor> out;
      QVERIFY(s.session->Run({}, {}, {"fill"}, &out).ok());
      // 8 of 10 may go while the queue is open: min_after_dequeue keeps 2.
      Status st = s.session->Run({}, {"take8:0"}, {}, &out);
      QVERIFY2(st.ok(), StatusText(st));
      order->assign(out[0].data<int32_t>(), out[0].data<int32_t>() + 8);
      QVERIFY(s.session->Run({}, {"size:0"}, {}, &out).ok());
      *left = out[0].scalar<int32_t>();
    };
    std::vector<int32_t> first, second, other;
    int32_t left = 0;
    shuffled(7, &first, &left);
    QCOMPARE(left, 2);
    shuffled(7, &second, &left);
    QCOMPARE(first, second);
    shuffled(8, &other, &left);
    QVERIFY(first != other);
    std::vector<int32_t> sorted = first;
    std::sort(sorted.begin(), sorted.end());
    QVERIFY(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
    std::vector<int32_t> in_order(8);
    std::iota(in_order.begin(), in_order.end(), 0);
    QVERIFY(first != in_order);
  }

  void decodeRawEndianness() {
    GraphBuilder g;
    const Output bytes = Strings(
        g, {std::string("\x01\x00\x00\x00\x02\x01\x00\x00", 8), std::string("\xff\xff\xff\xff\x00\x00\x00\x80", 8)});
    g.AddNode("DecodeRaw", {bytes}, {{"out_type", AttrOf(DT_INT32)}, {"little_endian", AttrOf(true)}}, "little");
    g.AddNode("DecodeRaw", {bytes}, {{"out_type", AttrOf(DT_INT32)}, {"little_endian", AttrOf(false)}}, "big");
    g.AddNode("DecodeRaw", {bytes}, {{"out_type", AttrOf(DT_UINT8)}}, "bytes");
    g.AddNode("DecodeRaw", {Strings(g, {"abc"})}, {{"out_type", AttrOf(DT_FLOAT)}}, "uneven");
    QVERIFY2(g.status().ok(), StatusText(g.status()));
    Local s = Open(g);
    QVERIFY2(s.status.ok(), StatusText(s.status));
    std::vector<Tensor> out;
    Status st = s.session->Run({}, {"little:0", "big:0", "bytes:0"}, {}, &out);
    QVERIFY2(st.ok(), StatusText(st));
    QVERIFY2(out[0].Equals(Tensor::Matrix<int32_t>({{1, 258}, {-1, INT32_MIN}})), out[0].DebugString().c_str());
    QVERIFY2(out[1].Equals(Tensor::Matrix<int32_t>({{16777216, 33619968}, {-1, 128}})), out[1].DebugString().c_str());
    QCOMPARE(out[2].shape().DebugString(), TensorShape({2, 8}).DebugString());
    st = s.session->Run({}, {"uneven:0"}, {}, &out);
    QCOMPARE(st.code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(absl::StrContains(st.message(), "length 3 that is not a multiple of 4"), StatusText(st));
  }

  void queueRunnersReadToTheEnd() {
    std::vector<std::string> files;
    std::multiset<int32_t> written;
    for (int f = 0; f < 3; ++f) {
      files.push_back(Path("part-" + std::to_string(f) + ".csv"));
      std::string text;
      for (int r = 0; r < 5; ++r) {
        text += std::to_string(f * 10 + r) + "\n";
        written.insert(f * 10 + r);
      }
      WriteFile(files.back(), text);
    }
    GraphBuilder g;
    // The file names come from a queue that the init op fills and closes, so the name
    // runner ends with OUT_OF_RANGE once they are all taken (one epoch).
    const Output source = Queue(g, "source", {DT_STRING}, 10);
    const Output fill = Enqueue(g, source, {Strings(g, files)}, "source/fill", true);
    g.AddNode("QueueCloseV2", {source, fill.control()}, {{"cancel_pending_enqueues", AttrOf(false)}}, "init_input");
    const Output names = Queue(g, "names", {DT_STRING}, 2);
    Enqueue(g, names, {Dequeue(g, source, {DT_STRING}, "source/take")}, "names/enqueue");
    Close(g, names, "names/close");
    Close(g, names, "names/cancel", true);
    const Output reader = g.AddNode("TextLineReaderV2", {}, {}, "reader");
    const Output read = g.AddNode("ReaderReadV2", {reader, names}, {}, "read");
    const Output value = g.AddNode("DecodeCSV", {Output("read", 1), ops::Const(g, Tensor::Vector<int32_t>({}))},
                                   {{"OUT_TYPE", AttrOf(std::vector<DataType>{DT_INT32})}}, "csv");
    const Output batch = Queue(g, "batch", {DT_INT32}, 4, {PartialShape::Scalar()});
    Enqueue(g, batch, {value}, "batch/enqueue");
    Close(g, batch, "batch/close");
    Close(g, batch, "batch/cancel", true);
    Dequeue(g, batch, {DT_INT32}, "next", 4, "QueueDequeueUpToV2");
    tensorflow::QueueRunnerDef name_runner, batch_runner;
    name_runner.set_queue_name("names");
    name_runner.add_enqueue_op_name("names/enqueue");
    name_runner.set_close_op_name("names/close");
    name_runner.set_cancel_op_name("names/cancel");
    batch_runner.set_queue_name("batch");
    batch_runner.add_enqueue_op_name("batch/enqueue");
    batch_runner.add_enqueue_op_name("batch/enqueue");  // two threads share the reader
    batch_runner.set_close_op_name("batch/close");
    batch_runner.set_cancel_op_name("batch/cancel");
    QueueRunners::AddToGraph(g, name_runner);
    QueueRunners::AddToGraph(g, batch_runner);
    QVERIFY2(g.status().ok(), StatusText(g.status()));
    // The runners travel in a MetaGraphDef's "queue_runners" collection.
    auto exported = QueueRunners::FromMetaGraph(ExportMetaGraph(g, nullptr));
    QVERIFY2(exported.ok(), StatusText(exported.status()));
    QCOMPARE(exported->size(), size_t{2});
    QCOMPARE(exported->at(1).enqueue_op_name_size(), 2);

    MonitoredTrainingSessionOptions options;
    options.log = std::make_shared<TrainingLog>("", /*print=*/false);
    options.scaffold.init_op = "init_input";
    auto ms = MonitoredTrainingSession(g, options);
    QVERIFY2(ms.ok(), StatusText(ms.status()));
    std::multiset<int32_t> read_back;
    Status st;
    std::vector<Tensor> out;
    while ((st = (*ms)->Run({"next:0"}, {}, &out)).ok())
      for (int64_t i = 0; i < out[0].NumElements(); ++i) read_back.insert(out[0].data<int32_t>()[i]);
    QCOMPARE(st.code(), absl::StatusCode::kOutOfRange);
    QVERIFY((*ms)->should_stop());
    QCOMPARE(read_back, written);
    QVERIFY2((*ms)->Close().ok(), "close");
  }

  void endlessRunnersStopAtClose() {
    const std::string file = Path("endless.csv");
    WriteFile(file, "1\n2\n");
    GraphBuilder g;
    // string_input_producer without num_epochs: the names are enqueued for ever.
    const Output names = Queue(g, "names", {DT_STRING}, 4);
    Enqueue(g, names, {Strings(g, {file, file})}, "names/enqueue", true);
    Close(g, names, "names/close");
    Close(g, names, "names/cancel", true);
    const Output reader = g.AddNode("TextLineReaderV2", {}, {}, "reader");
    g.AddNode("ReaderReadV2", {reader, names}, {}, "read");
    const Output batch = Queue(g, "batch", {DT_STRING}, 3, {PartialShape::Scalar()});
    Enqueue(g, batch, {Output("read", 1)}, "batch/enqueue");
    Close(g, batch, "batch/close");
    Close(g, batch, "batch/cancel", true);
    Dequeue(g, batch, {DT_STRING}, "next", 2);
    for (const char* queue : {"names", "batch"}) {
      tensorflow::QueueRunnerDef runner;
      runner.set_queue_name(queue);
      runner.add_enqueue_op_name(StrCat(queue, "/enqueue"));
      runner.set_close_op_name(StrCat(queue, "/close"));
      runner.set_cancel_op_name(StrCat(queue, "/cancel"));
      QueueRunners::AddToGraph(g, runner);
    }
    MonitoredTrainingSessionOptions options;
    options.log = std::make_shared<TrainingLog>("", /*print=*/false);
    auto ms = MonitoredTrainingSession(g, options);
    QVERIFY2(ms.ok(), StatusText(ms.status()));
    std::vector<Tensor> out;
    for (int step = 0; step < 5; ++step) {
      Status st = (*ms)->Run({"next:0"}, {}, &out);
      QVERIFY2(st.ok(), StatusText(st));
      QVERIFY(out[0].Equals(Tensor::Vector<std::string>({"1", "2"})));
    }
    // The runners wait on full queues; closing cancels them and joins their threads.
    QVERIFY((*ms)->Close().ok());
  }

  void failingRunnerReachesTheStep() {
    GraphBuilder g;
    const Output names = Queue(g, "names", {DT_STRING}, 4);
    Enqueue(g, names, {Strings(g, {Path("missing.csv")})}, "names/enqueue", true);
    Close(g, names, "names/cancel", true);
    const Output reader = g.AddNode("TextLineReaderV2", {}, {}, "reader");
    g.AddNode("ReaderReadV2", {reader, names}, {}, "read");
    const Output batch = Queue(g, "batch", {DT_STRING}, 3, {PartialShape::Scalar()});
    Enqueue(g, batch, {Output("read", 1)}, "batch/enqueue");
    Close(g, batch, "batch/cancel", true);
    Dequeue(g, batch, {DT_STRING}, "next", 2);
    for (const char* queue : {"names", "batch"}) {
      tensorflow::QueueRunnerDef runner;
      runner.set_queue_name(queue);
      runner.add_enqueue_op_name(StrCat(queue, "/enqueue"));
      runner.set_cancel_op_name(StrCat(queue, "/cancel"));
      QueueRunners::AddToGraph(g, runner);
    }
    MonitoredTrainingSessionOptions options;
    options.log = std::make_shared<TrainingLog>("", /*print=*/false);
    auto ms = MonitoredTrainingSession(g, options);
    QVERIFY2(ms.ok(), StatusText(ms.status()));
    std::vector<Tensor> out;
    Status st = (*ms)->Run({"next:0"}, {}, &out);
    QCOMPARE(st.code(), absl::StatusCode::kNotFound);
    QVERIFY2(absl::StrContains(st.message(), "missing.csv"), StatusText(st));
    QVERIFY2(absl::StrContains(st.message(), "queue runner of 'batch'"), StatusText(st));
    (*ms)->Close().IgnoreError();
  }

  void readersStayInTheDataDir() {
    const std::string data = Path("data");
    QVERIFY(QDir().mkpath(QString::fromStdString(data)));
    WriteFile(data + "/in.csv", "1\n");
    WriteFile(Path("outside.csv"), "secret\n");
    auto cluster = ClusterSpec::FromDict({{"localhost", {"127.0.0.1:0"}}});
    QVERIFY2(cluster.ok(), StatusText(cluster.status()));
    ServerOptions options;
    options.cluster = *cluster;
    options.job_name = "localhost";
    options.data_dirs = {data};
    options.log = [](const std::string&) {};
    auto server = Server::Create(options);
    QVERIFY2(server.ok(), StatusText(server.status()));
    const std::vector<std::pair<std::string, absl::StatusCode>> cases = {
        {data + "/in.csv", absl::StatusCode::kOk},
        {data + "/../outside.csv", absl::StatusCode::kPermissionDenied},
        {Path("outside.csv"), absl::StatusCode::kPermissionDenied},
        {data + "/absent.csv", absl::StatusCode::kNotFound}};
    int run = 0;
    for (const auto& [file, code] : cases) {
      GraphBuilder g;
      ReadPipeline(g, {file}, "TextLineReaderV2", {}, StrCat("run", ++run));
      Local s = Open(g, (*server)->target());
      QVERIFY2(s.status.ok(), StatusText(s.status));
      std::vector<Tensor> out;
      Status st = s.session->Run({}, {}, {"input_producer/fill_and_close"}, &out);
      QVERIFY2(st.ok(), StatusText(st));
      st = s.session->Run({}, {"read:1"}, {}, &out);
      QVERIFY2(st.code() == code, (file + ": " + StatusText(st)).c_str());
      if (code == absl::StatusCode::kOk) QCOMPARE(out[0].scalar<std::string>(), std::string("1"));
      else QVERIFY2(absl::StrContains(st.message(), file), StatusText(st));
      QVERIFY(s.session->Close().ok());
    }
    QVERIFY((*server)->Stop().ok());
  }

 private:
  std::string Path(const std::string& name) const { return dir_.filePath(QString::fromStdString(name)).toStdString(); }
  QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(InputPipelineOpsTest)
#include "tst_input_pipeline_ops.moc"
