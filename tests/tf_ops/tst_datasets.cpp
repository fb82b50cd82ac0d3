// tf.data graphs as TensorFlow 1.x writes them, run in a session: TensorSliceDataset ->
// MapDataset (a library function, with a captured input) -> ShuffleDataset ->
// BatchDatasetV2 -> RepeatDataset, read through IteratorV2 + MakeIterator or through a
// OneShotIterator whose dataset_factory builds the pipeline; every element, the
// OUT_OF_RANGE "End of sequence" at the end, shuffling that is the same for the same seeds,
// FilterDataset, FlatMapDataset, PaddedBatchDatasetV2, ShuffleAndRepeatDataset and the
// pass-through ops, and the errors for a function the library lacks
// or one taking the wrong number of arguments. The graphs are written by hand in the text
// format, following TensorFlow's GraphDef and FunctionDef.
#include "StatusText.h"
#include "clab/distributed/ClusterSpec.h"
#include "clab/distributed/Server.h"
#include "clab/graph/TextProto.h"
#include "clab/runtime/Session.h"
#include "formats/GraphRoles.h"
#include "formats/InputPipelines.h"

#include <QDir>
#include <QtTest/QtTest>

#include <absl/strings/match.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_replace.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace clab;
using clab::testing::StatusText;

namespace {

std::string Int64Const(const std::string& name, int64_t value) {
  return absl::StrCat("node { name: '", name, "' op: 'Const' attr { key: 'dtype' value { type: DT_INT64 } } ",
                      "attr { key: 'value' value { tensor { dtype: DT_INT64 tensor_shape { } int64_val: ", value,
                      " } } } }\n");
}

std::string BoolConst(const std::string& name, bool value) {
  return absl::StrCat("node { name: '", name, "' op: 'Const' attr { key: 'dtype' value { type: DT_BOOL } } ",
                      "attr { key: 'value' value { tensor { dtype: DT_BOOL tensor_shape { } bool_val: ",
                      value ? "true" : "false", " } } } }\n");
}

// 0, 1, ..., n-1 as an int64 vector.
std::string RangeConst(const std::string& name, int n) {
  std::string values;
  for (int i = 0; i < n; ++i) absl::StrAppend(&values, " int64_val: ", i);
  return absl::StrCat("node { name: '", name, "' op: 'Const' attr { key: 'dtype' value { type: DT_INT64 } } ",
                      "attr { key: 'value' value { tensor { dtype: DT_INT64 tensor_shape { dim { size: ", n, " } }",
                      values, " } } } }\n");
}

// The attrs of a dataset of int64 elements of the given shape text ("" scalar, "dim { size: -1 }").
std::string Types(const std::string& shape = "") {
  return absl::StrCat("attr { key: 'output_types' value { list { type: DT_INT64 } } } ",
                      "attr { key: 'output_shapes' value { list { shape { ", shape, " } } } } ");
}

// f(x, k) = x * k + 1, the 1 a constant of the body.
const char* kTimesPlusOne = R"(
  function {
    signature { name: 'times_plus_one'
                input_arg { name: 'x' type: DT_INT64 } input_arg { name: 'k' type: DT_INT64 }
                output_arg { name: 'y' type: DT_INT64 } }
    node_def { name: 'mul' op: 'Mul' input: 'x' input: 'k' attr { key: 'T' value { type: DT_INT64 } } }
    node_def { name: 'one' op: 'Const' attr { key: 'dtype' value { type: DT_INT64 } }
               attr { key: 'value' value { tensor { dtype: DT_INT64 tensor_shape { } int64_val: 1 } } } }
    node_def { name: 'add' op: 'Add' input: 'mul:z:0' input: 'one:output:0' attr { key: 'T' value { type: DT_INT64 } } }
    ret { key: 'y' value: 'add:z:0' }
  }
)";

// A predicate: x > 8.
const char* kGreaterThanEight = R"(
  function {
    signature { name: 'greater_than_eight' input_arg { name: 'x' type: DT_INT64 } output_arg { name: 'keep' type: DT_BOOL } }
    node_def { name: 'eight' op: 'Const' attr { key: 'dtype' value { type: DT_INT64 } }
               attr { key: 'value' value { tensor { dtype: DT_INT64 tensor_shape { } int64_val: 8 } } } }
    node_def { name: 'gt' op: 'Greater' input: 'x' input: 'eight:output:0' attr { key: 'T' value { type: DT_INT64 } } }
    ret { key: 'keep' value: 'gt:z:0' }
  }
)";

struct Pipeline {
  int n = 10;
  std::string map_function = "times_plus_one";
  bool shuffle = true;
  int64_t seed = 7, seed2 = 11;
  bool reshuffle = true;
  int64_t batch = 4;
  bool drop_remainder = false;
  int64_t repeat = 2;
  bool filter = false;
  bool fused_shuffle_repeat = false;  // ShuffleAndRepeatDataset(count) instead of RepeatDataset after batching
};

// values -> slices -> map -> [filter] -> [shuffle] -> batch -> repeat -> prefetch: nodes
// ending in a dataset named "dataset".
std::string PipelineNodes(const Pipeline& p) {
  std::string g = RangeConst("values", p.n) + Int64Const("k", 2) + Int64Const("buffer_size", 100) +
                  Int64Const("seed", p.seed) + Int64Const("seed2", p.seed2) + Int64Const("batch_size", p.batch) +
                  BoolConst("drop_remainder", p.drop_remainder) + Int64Const("count", p.repeat) +
                  Int64Const("prefetch_size", 1) + Int64Const("once", 1);
  absl::StrAppend(&g,
                  "node { name: 'slices' op: 'TensorSliceDataset' input: 'values' "
                  "attr { key: 'Toutput_types' value { list { type: DT_INT64 } } } "
                  "attr { key: 'output_shapes' value { list { shape { } } } } }\n");
  absl::StrAppend(&g, "node { name: 'map' op: 'MapDataset' input: 'slices' input: 'k' ",
                  "attr { key: 'f' value { func { name: '", p.map_function, "' } } } ",
                  "attr { key: 'Targuments' value { list { type: DT_INT64 } } } ", Types(), "}\n");
  std::string last = "map";
  if (p.filter) {
    absl::StrAppend(&g, "node { name: 'filter' op: 'FilterDataset' input: 'map' ",
                    "attr { key: 'predicate' value { func { name: 'greater_than_eight' } } } ",
                    "attr { key: 'Targuments' value { list { } } } ", Types(), "}\n");
    last = "filter";
  }
  if (p.fused_shuffle_repeat) {
    absl::StrAppend(&g, "node { name: 'shuffle' op: 'ShuffleAndRepeatDataset' input: '", last,
                    "' input: 'buffer_size' input: 'seed' input: 'seed2' input: 'count' ", Types(), "}\n");
    last = "shuffle";
  } else if (p.shuffle) {
    absl::StrAppend(&g, "node { name: 'shuffle' op: 'ShuffleDataset' input: '", last,
                    "' input: 'buffer_size' input: 'seed' input: 'seed2' ",
                    "attr { key: 'reshuffle_each_iteration' value { b: ", p.reshuffle ? "true" : "false", " } } ",
                    Types(), "}\n");
    last = "shuffle";
  }
  absl::StrAppend(&g, "node { name: 'batch' op: 'BatchDatasetV2' input: '", last,
                  "' input: 'batch_size' input: 'drop_remainder' ", Types("dim { size: -1 }"), "}\n");
  absl::StrAppend(&g, "node { name: 'repeat' op: 'RepeatDataset' input: 'batch' input: '",
                  p.fused_shuffle_repeat ? "once" : "count", "' ", Types("dim { size: -1 }"), "}\n");
  absl::StrAppend(&g, "node { name: 'dataset' op: 'PrefetchDataset' input: 'repeat' input: 'prefetch_size' ",
                  Types("dim { size: -1 }"), "}\n");
  return g;
}

std::string Library(const std::string& extra = "") {
  return absl::StrCat("library {", kTimesPlusOne, kGreaterThanEight, extra, "}\n");
}

// The pipeline read through IteratorV2 + MakeIterator ("make") and IteratorGetNext ("next").
std::string InitializableGraph(const Pipeline& p) {
  return PipelineNodes(p) +
         "node { name: 'iterator' op: 'IteratorV2' attr { key: 'shared_name' value { s: '' } } "
         "attr { key: 'container' value { s: '' } } " +
         Types("dim { size: -1 }") +
         "}\n"
         "node { name: 'make' op: 'MakeIterator' input: 'dataset' input: 'iterator' }\n"
         "node { name: 'next' op: 'IteratorGetNext' input: 'iterator' " +
         Types("dim { size: -1 }") + "}\n" + Library();
}

// The same pipeline built by a OneShotIterator's dataset_factory.
std::string OneShotGraph(const Pipeline& p) {
  std::string body = PipelineNodes(p);
  // Graph nodes become the factory's body: "node {" -> "node_def {", inputs to "node:output:0"
  // style (Const's output is "output", every dataset's "handle").
  body = absl::StrReplaceAll(body, {{"node {", "node_def {"}});
  for (const char* consts : {"values", "k", "buffer_size", "seed", "seed2", "batch_size", "drop_remainder", "count",
                             "prefetch_size", "once"})
    body = absl::StrReplaceAll(
        body, {{absl::StrCat("input: '", consts, "'"), absl::StrCat("input: '", consts, ":output:0'")}});
  for (const char* datasets : {"slices", "map", "filter", "shuffle", "batch", "repeat"})
    body = absl::StrReplaceAll(
        body, {{absl::StrCat("input: '", datasets, "'"), absl::StrCat("input: '", datasets, ":handle:0'")}});
  const std::string factory =
      absl::StrCat("function { signature { name: 'make_dataset' output_arg { name: 'dataset' type: DT_VARIANT } }\n",
                   body, "ret { key: 'dataset' value: 'dataset:handle:0' } }\n");
  return "node { name: 'iterator' op: 'OneShotIterator' "
         "attr { key: 'dataset_factory' value { func { name: 'make_dataset' } } } " +
         Types("dim { size: -1 }") +
         "}\n"
         "node { name: 'next' op: 'IteratorGetNext' input: 'iterator' " +
         Types("dim { size: -1 }") + "}\n" + Library(factory);
}

tensorflow::GraphDef Parse(const std::string& text) {
  tensorflow::GraphDef graph;
  Status parsed = ParseTextProto(text, "graph", &graph);
  if (!parsed.ok()) qFatal("%s", StatusText(parsed));
  return graph;
}

struct Batches {
  Status status;                             // of the run that ended the loop
  std::vector<std::vector<int64_t>> values;  // one per batch
};

// Runs `init` (if any) once, then "next:0" until it fails; `target` "" is this process.
Batches ReadAll(const std::string& text, const std::string& init, const std::string& target = "") {
  Batches out;
  SessionOptions options;
  options.target = target;
  auto session = NewSession(options);
  if (!session.ok()) {
    out.status = session.status();
    return out;
  }
  out.status = (*session)->Create(Parse(text));
  std::vector<Tensor> none;
  if (out.status.ok() && !init.empty()) out.status = (*session)->Run({}, {}, {init}, &none);
  for (int guard = 0; out.status.ok() && guard < 1000; ++guard) {
    std::vector<Tensor> fetched;
    out.status = (*session)->Run({}, {"next:0"}, {}, &fetched);
    if (!out.status.ok()) break;
    const Tensor& t = fetched[0];
    out.values.emplace_back(t.data<int64_t>(), t.data<int64_t>() + t.NumElements());
  }
  return out;
}

bool IsEndOfSequence(const Status& status) {
  return status.code() == absl::StatusCode::kOutOfRange &&
         std::string(status.message()).find("End of sequence") != std::string::npos;
}

// A loopback port nothing listens on now (bind port 0, read it, close).
int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

std::vector<int64_t> Sorted(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// slices of [0, 1, 2] -> `maps` MapDatasets ("map0", ...) calling `function` with k = 1
// -> IteratorV2 "iterator", "make", "next"; `library` the graph's library section.
std::string MapChain(int maps, const std::string& function, const std::string& library) {
  std::string text = RangeConst("values", 3) + Int64Const("k", 1) +
                     "node { name: 'slices' op: 'TensorSliceDataset' input: 'values' "
                     "attr { key: 'Toutput_types' value { list { type: DT_INT64 } } } "
                     "attr { key: 'output_shapes' value { list { shape { } } } } }\n";
  std::string last = "slices";
  for (int i = 0; i < maps; ++i) {
    const std::string name = absl::StrCat("map", i);
    absl::StrAppend(&text, "node { name: '", name, "' op: 'MapDataset' input: '", last, "' input: 'k' ",
                    "attr { key: 'f' value { func { name: '", function, "' } } } ",
                    "attr { key: 'Targuments' value { list { type: DT_INT64 } } } ", Types(), "}\n");
    last = name;
  }
  absl::StrAppend(&text,
                  "node { name: 'iterator' op: 'IteratorV2' attr { key: 'shared_name' value { s: '' } } "
                  "attr { key: 'container' value { s: '' } } ",
                  Types(), "}\n", "node { name: 'make' op: 'MakeIterator' input: '", last, "' input: 'iterator' }\n",
                  "node { name: 'next' op: 'IteratorGetNext' input: 'iterator' ", Types(), "}\n", library);
  return text;
}

// Threads of this process now (entries of /proc/self/task).
int ThreadCount() {
  return static_cast<int>(QDir("/proc/self/task").entryList(QDir::Dirs | QDir::NoDotAndDotDot).size());
}

}  // namespace

class DatasetsTest : public QObject {
  Q_OBJECT

 private slots:
  void inOrderWithRemainderThenEndOfSequence() {
    Pipeline p;
    p.shuffle = false;
    const Batches b = ReadAll(InitializableGraph(p), "make");
    QVERIFY2(IsEndOfSequence(b.status), StatusText(b.status));
    const std::vector<std::vector<int64_t>> epoch = {{1, 3, 5, 7}, {9, 11, 13, 15}, {17, 19}};
    QCOMPARE(b.values.size(), size_t{6});
    for (size_t i = 0; i < b.values.size(); ++i) QCOMPARE(b.values[i], epoch[i % 3]);
  }

  // No rows: the first get-next is the end, even repeated forever.
  void emptySlicesEndAtOnce() {
    Pipeline p;
    p.n = 0;
    p.repeat = -1;
    const Batches b = ReadAll(InitializableGraph(p), "make");
    QVERIFY2(IsEndOfSequence(b.status), StatusText(b.status));
    QVERIFY(b.values.empty());
  }

  void dropRemainderDropsTheLastBatch() {
    Pipeline p;
    p.shuffle = false;
    p.drop_remainder = true;
    const Batches b = ReadAll(InitializableGraph(p), "make");
    QVERIFY2(IsEndOfSequence(b.status), StatusText(b.status));
    QCOMPARE(b.values.size(), size_t{4});
    QCOMPARE(b.values[1], (std::vector<int64_t>{9, 11, 13, 15}));
    QCOMPARE(b.values[2], (std::vector<int64_t>{1, 3, 5, 7}));
  }

  void shuffleKeepsEveryElementAndIsDeterministic() {
    Pipeline p;
    const Batches a = ReadAll(InitializableGraph(p), "make");
    QVERIFY2(IsEndOfSequence(a.status), StatusText(a.status));
    QCOMPARE(a.values.size(), size_t{6});
    std::vector<int64_t> first, second;
    for (size_t i = 0; i < 3; ++i) first.insert(first.end(), a.values[i].begin(), a.values[i].end());
    for (size_t i = 3; i < 6; ++i) second.insert(second.end(), a.values[i].begin(), a.values[i].end());
    const std::vector<int64_t> all = {1, 3, 5, 7, 9, 11, 13, 15, 17, 19};
    QCOMPARE(Sorted(first), all);
    QCOMPARE(Sorted(second), all);
    QVERIFY(first != all);     // shuffled
    QVERIFY(first != second);  // reshuffled for the second epoch
    // The same seeds give the same order in another session.
    const Batches again = ReadAll(InitializableGraph(p), "make");
    QCOMPARE(again.values, a.values);
    // Other seeds, another order.
    Pipeline other = p;
    other.seed2 = 12;
    QVERIFY(ReadAll(InitializableGraph(other), "make").values != a.values);
    // Without reshuffling, both epochs have the first epoch's order.
    Pipeline same = p;
    same.reshuffle = false;
    const Batches s = ReadAll(InitializableGraph(same), "make");
    for (size_t i = 0; i < 3; ++i) QCOMPARE(s.values[i], s.values[i + 3]);
  }

  void shuffleAndRepeatReshufflesEachRepetition() {
    Pipeline p;
    p.fused_shuffle_repeat = true;
    const Batches b = ReadAll(InitializableGraph(p), "make");
    QVERIFY2(IsEndOfSequence(b.status), StatusText(b.status));
    std::vector<int64_t> all;
    for (const auto& batch : b.values) all.insert(all.end(), batch.begin(), batch.end());
    QCOMPARE(all.size(), size_t{20});  // two repetitions of 10, batched across the seam
    const std::vector<int64_t> first(all.begin(), all.begin() + 10), second(all.begin() + 10, all.end());
    QCOMPARE(Sorted(first), Sorted(second));
    QVERIFY(first != second);
    QCOMPARE(ReadAll(InitializableGraph(p), "make").values, b.values);
  }

  // Through a ps and a worker over gRPC: the captured k comes from the ps, the pipeline runs
  // on the worker, whose partition carries the function library.
  void runsOnAClusterWithTheLibrary() {
    const std::string ps = "127.0.0.1:" + std::to_string(FreePort());
    const std::string worker = "127.0.0.1:" + std::to_string(FreePort());
    auto cluster = ClusterSpec::FromDict({{"ps", {ps}}, {"worker", {worker}}});
    QVERIFY(cluster.ok());
    std::vector<std::unique_ptr<Server>> servers;
    for (const char* job : {"ps", "worker"}) {
      ServerOptions options;
      options.cluster = *cluster;
      options.job_name = job;
      auto server = Server::Create(options);
      QVERIFY2(server.ok(), StatusText(server.status()));
      servers.push_back(*std::move(server));
    }
    Pipeline p;
    p.shuffle = false;
    tensorflow::GraphDef graph = Parse(InitializableGraph(p));
    for (auto& node : *graph.mutable_node())
      node.set_device(node.name() == "k" ? "/job:ps/task:0" : "/job:worker/task:0");
    const Batches b = ReadAll(graph.DebugString(), "make", servers[1]->target());
    QVERIFY2(IsEndOfSequence(b.status), StatusText(b.status));
    QCOMPARE(b.values.size(), size_t{6});
    QCOMPARE(b.values[4], (std::vector<int64_t>{9, 11, 13, 15}));
    // A dataset cannot cross tasks: the map on the ps, its consumers on the worker.
    for (auto& node : *graph.mutable_node())
      if (node.name() == "map") node.set_device("/job:ps/task:0");
    const Batches split = ReadAll(graph.DebugString(), "make", servers[1]->target());
    QVERIFY(!split.status.ok());
    QVERIFY2(std::string(split.status.message()).find("variant tensor") != std::string::npos, StatusText(split.status));
    for (auto& server : servers) QVERIFY(server->Stop().ok());
  }

  void makeIteratorStartsOver() {
    Pipeline p;
    p.shuffle = false;
    p.repeat = 1;
    auto session = NewSession(SessionOptions());
    QVERIFY2((*session)->Create(Parse(InitializableGraph(p))).ok(), "create");
    std::vector<Tensor> out;
    Status before = (*session)->Run({}, {"next:0"}, {}, &out);
    QCOMPARE(before.code(), absl::StatusCode::kFailedPrecondition);
    QVERIFY2(std::string(before.message()).find("MakeIterator") != std::string::npos, StatusText(before));
    for (int round = 0; round < 2; ++round) {
      QVERIFY((*session)->Run({}, {}, {"make"}, &out).ok());
      QVERIFY((*session)->Run({}, {"next:0"}, {}, &out).ok());
      QCOMPARE(out[0].data<int64_t>()[0], int64_t{1});
    }
  }

  void oneShotIteratorBuildsItsDatasetOnce() {
    Pipeline p;
    p.shuffle = false;
    const Batches b = ReadAll(OneShotGraph(p), "");
    QVERIFY2(IsEndOfSequence(b.status), StatusText(b.status));
    QCOMPARE(b.values.size(), size_t{6});
    QCOMPARE(b.values[0], (std::vector<int64_t>{1, 3, 5, 7}));
    QCOMPARE(b.values[5], (std::vector<int64_t>{17, 19}));
    // Shuffled inside the factory: the same elements, the same order for the same seeds.
    Pipeline s;
    const Batches shuffled = ReadAll(OneShotGraph(s), "");
    QVERIFY2(IsEndOfSequence(shuffled.status), StatusText(shuffled.status));
    QCOMPARE(shuffled.values, ReadAll(InitializableGraph(s), "make").values);
  }

  void filterKeepsWhatThePredicateAccepts() {
    Pipeline p;
    p.shuffle = false;
    p.filter = true;
    p.repeat = 1;
    const Batches b = ReadAll(InitializableGraph(p), "make");
    QVERIFY2(IsEndOfSequence(b.status), StatusText(b.status));
    QCOMPARE(b.values, (std::vector<std::vector<int64_t>>{{9, 11, 13, 15}, {17, 19}}));
  }

  void flatMapChainsTheDatasetsItsFunctionMakes() {
    const std::string text = absl::StrCat(
        "node { name: 'rows' op: 'Const' attr { key: 'dtype' value { type: DT_INT64 } } attr { key: 'value' value { "
        "tensor { dtype: DT_INT64 tensor_shape { dim { size: 3 } dim { size: 2 } } int64_val: 0 int64_val: 1 "
        "int64_val: 2 int64_val: 3 int64_val: 4 int64_val: 5 } } } }\n",
        Int64Const("batch_size", 4), BoolConst("drop_remainder", false),
        "node { name: 'slices' op: 'TensorSliceDataset' input: 'rows' "
        "attr { key: 'Toutput_types' value { list { type: DT_INT64 } } } "
        "attr { key: 'output_shapes' value { list { shape { dim { size: 2 } } } } } }\n",
        "node { name: 'flat' op: 'FlatMapDataset' input: 'slices' attr { key: 'f' value { func { name: 'slices_of' } } } "
        "attr { key: 'Targuments' value { list { } } } ",
        Types(), "}\n",
        "node { name: 'batch' op: 'BatchDatasetV2' input: 'flat' input: 'batch_size' input: 'drop_remainder' ",
        Types("dim { size: -1 }"), "}\n",
        "node { name: 'iterator' op: 'IteratorV2' attr { key: 'shared_name' value { s: '' } } "
        "attr { key: 'container' value { s: '' } } ",
        Types("dim { size: -1 }"), "}\n", "node { name: 'make' op: 'MakeIterator' input: 'batch' input: 'iterator' }\n",
        "node { name: 'next' op: 'IteratorGetNext' input: 'iterator' ", Types("dim { size: -1 }"), "}\n",
        "library { function { signature { name: 'slices_of' input_arg { name: 'x' type: DT_INT64 } "
        "output_arg { name: 'dataset' type: DT_VARIANT } } "
        "node_def { name: 'ts' op: 'TensorSliceDataset' input: 'x' "
        "attr { key: 'Toutput_types' value { list { type: DT_INT64 } } } "
        "attr { key: 'output_shapes' value { list { shape { } } } } } "
        "ret { key: 'dataset' value: 'ts:handle:0' } } }\n");
    const Batches b = ReadAll(text, "make");
    QVERIFY2(IsEndOfSequence(b.status), StatusText(b.status));
    QCOMPARE(b.values, (std::vector<std::vector<int64_t>>{{0, 1, 2, 3}, {4, 5}}));
  }

  // A map function runs on the thread of the kernel that calls it: a graph that
  // instantiates hundreds of functions (here 300 chained maps) costs no thread per function.
  void manyMapFunctionsCostNoThreads() {
    constexpr int kMaps = 300;
    const std::string text = MapChain(kMaps, "times_plus_one", Library());
    auto session = NewSession(SessionOptions());
    QVERIFY2(session.ok(), StatusText(session.status()));
    QVERIFY2((*session)->Create(Parse(text)).ok(), "create");
    std::vector<Tensor> out;
    // The process's pools start on first use: count from after one ordinary step.
    QVERIFY((*session)->Run({}, {"values:0"}, {}, &out).ok());
    const int before = ThreadCount();
    Status made = (*session)->Run({}, {}, {"make"}, &out);
    QVERIFY2(made.ok(), StatusText(made));
    for (int64_t x = 0; x < 3; ++x) {
      Status next = (*session)->Run({}, {"next:0"}, {}, &out);
      QVERIFY2(next.ok(), StatusText(next));
      QCOMPARE(out[0].data<int64_t>()[0], x + kMaps);  // x * 1 + 1, kMaps times
    }
    const int during = ThreadCount();
    QVERIFY2(during - before < 8,
             qPrintable(QString("%1 threads before, %2 with %3 map functions").arg(before).arg(during).arg(kMaps)));
  }

  // A chain of datasets longer than kMaxDatasetNesting would overflow the stack when read:
  // the dataset past the limit is refused, naming its node.
  void datasetsNestedTooDeepAreRefused() {
    const std::string text = MapChain(1000, "times_plus_one", Library());
    auto session = NewSession(SessionOptions());
    QVERIFY2(session.ok(), StatusText(session.status()));
    QVERIFY2((*session)->Create(Parse(text)).ok(), "create");
    std::vector<Tensor> out;
    const Status made = (*session)->Run({}, {}, {"make"}, &out);
    QCOMPARE(made.code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(absl::StrContains(made.message(), "map999"), StatusText(made));
    QVERIFY2(absl::StrContains(made.message(), "nested 1000 datasets deep"), StatusText(made));
    // One level less is read.
    const Batches b = ReadAll(MapChain(999, "times_plus_one", Library()), "make");
    QVERIFY2(IsEndOfSequence(b.status), StatusText(b.status));
    QCOMPARE(b.values.size(), size_t{3});
  }

  // A dataset factory that makes a OneShotIterator of itself: instantiating it would
  // recurse without end. The error names the cycle.
  void functionThatCallsItselfIsRefused() {
    const std::string text = absl::StrCat(
        "node { name: 'iterator' op: 'OneShotIterator' attr { key: 'dataset_factory' value { func { name: 'again' } } } ",
        Types(), "}\n", "node { name: 'next' op: 'IteratorGetNext' input: 'iterator' ", Types(), "}\n",
        "library { function { signature { name: 'again' output_arg { name: 'dataset' type: DT_VARIANT } }\n",
        "node_def { name: 'inner' op: 'OneShotIterator' attr { key: 'dataset_factory' value { func { name: 'again' } } "
        "} ",
        Types(), "}\n", "node_def { name: 'values' op: 'Const' input: '^inner' ",
        "attr { key: 'dtype' value { type: DT_INT64 } } attr { key: 'value' value { tensor { dtype: DT_INT64 ",
        "tensor_shape { dim { size: 1 } } int64_val: 1 } } } }\n",
        "node_def { name: 'ts' op: 'TensorSliceDataset' input: 'values:output:0' ",
        "attr { key: 'Toutput_types' value { list { type: DT_INT64 } } } ",
        "attr { key: 'output_shapes' value { list { shape { } } } } }\n",
        "ret { key: 'dataset' value: 'ts:handle:0' } } }\n");
    const Batches b = ReadAll(text, "");
    QCOMPARE(b.status.code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(absl::StrContains(b.status.message(), "calls itself: again -> again"), StatusText(b.status));
  }

  // Functions each mapping with the next, 70 deep: refused past 64, naming the first and last.
  void functionsNestedTooDeepAreRefused() {
    constexpr int kLevels = 70;
    std::string library = "library {\n";
    for (int i = 0; i < kLevels; ++i) {
      absl::StrAppend(&library, "function { signature { name: 'level", i, "' input_arg { name: 'x' type: DT_INT64 } ",
                      "output_arg { name: 'y' type: DT_INT64 } }\n");
      if (i + 1 < kLevels) {
        // Builds (and drops) a map with the next level before returning x.
        absl::StrAppend(&library, "node_def { name: 'ts' op: 'TensorDataset' input: 'x' ",
                        "attr { key: 'Toutput_types' value { list { type: DT_INT64 } } } ",
                        "attr { key: 'output_shapes' value { list { shape { } } } } }\n",
                        "node_def { name: 'm' op: 'MapDataset' input: 'ts:handle:0' ",
                        "attr { key: 'f' value { func { name: 'level", i + 1, "' } } } ",
                        "attr { key: 'Targuments' value { list { } } } ", Types(), "}\n",
                        "node_def { name: 'y' op: 'Identity' input: 'x' input: '^m' ",
                        "attr { key: 'T' value { type: DT_INT64 } } }\n", "ret { key: 'y' value: 'y:output:0' } }\n");
      } else {
        absl::StrAppend(&library, "ret { key: 'y' value: 'x' } }\n");
      }
    }
    library += "}\n";
    const std::string text = absl::StrReplaceAll(MapChain(1, "level0", library),
                                                 {{"attr { key: 'Targuments' value { list { type: DT_INT64 } } }",
                                                   "attr { key: 'Targuments' value { list { } } }"},
                                                  {"input: 'slices' input: 'k'", "input: 'slices'"}});
    const Batches b = ReadAll(text, "make");
    QCOMPARE(b.status.code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(absl::StrContains(b.status.message(), "nested inside 64 other functions: level0 -> ... -> level63"),
             StatusText(b.status));
  }

  void paddedBatchPadsToTheLongestElement() {
    // Element i is range(x_i) for x = [1, 3, 2]: lengths differ, so batches pad with -1.
    const std::string text = absl::StrCat(
        "node { name: 'lengths' op: 'Const' attr { key: 'dtype' value { type: DT_INT64 } } attr { key: 'value' value { "
        "tensor { dtype: DT_INT64 tensor_shape { dim { size: 3 } } int64_val: 1 int64_val: 3 int64_val: 2 } } } }\n",
        Int64Const("batch_size", 2), Int64Const("padding", -1), BoolConst("drop_remainder", false),
        "node { name: 'unknown_length' op: 'Const' attr { key: 'dtype' value { type: DT_INT64 } } attr { key: 'value' "
        "value { tensor { dtype: DT_INT64 tensor_shape { dim { size: 1 } } int64_val: -1 } } } }\n",
        "node { name: 'slices' op: 'TensorSliceDataset' input: 'lengths' "
        "attr { key: 'Toutput_types' value { list { type: DT_INT64 } } } "
        "attr { key: 'output_shapes' value { list { shape { } } } } }\n",
        "node { name: 'ranges' op: 'MapDataset' input: 'slices' attr { key: 'f' value { func { name: 'range_to' } } } "
        "attr { key: 'Targuments' value { list { } } } ",
        Types("dim { size: -1 }"), "}\n",
        "node { name: 'batch' op: 'PaddedBatchDatasetV2' input: 'ranges' input: 'batch_size' input: 'unknown_length' "
        "input: 'padding' input: 'drop_remainder' attr { key: 'Toutput_types' value { list { type: DT_INT64 } } } "
        "attr { key: 'output_shapes' value { list { shape { dim { size: -1 } dim { size: -1 } } } } } "
        "attr { key: 'N' value { i: 1 } } }\n",
        "node { name: 'iterator' op: 'IteratorV2' attr { key: 'shared_name' value { s: '' } } "
        "attr { key: 'container' value { s: '' } } ",
        Types("dim { size: -1 } dim { size: -1 }"), "}\n",
        "node { name: 'make' op: 'MakeIterator' input: 'batch' input: 'iterator' }\n",
        "node { name: 'next' op: 'IteratorGetNext' input: 'iterator' ", Types("dim { size: -1 } dim { size: -1 }"),
        "}\n",
        "library { function { signature { name: 'range_to' input_arg { name: 'x' type: DT_INT64 } "
        "output_arg { name: 'y' type: DT_INT64 } } "
        "node_def { name: 'zero' op: 'Const' attr { key: 'dtype' value { type: DT_INT64 } } attr { key: 'value' value "
        "{ tensor { dtype: DT_INT64 tensor_shape { } int64_val: 0 } } } } "
        "node_def { name: 'one' op: 'Const' attr { key: 'dtype' value { type: DT_INT64 } } attr { key: 'value' value "
        "{ tensor { dtype: DT_INT64 tensor_shape { } int64_val: 1 } } } } "
        "node_def { name: 'range' op: 'Range' input: 'zero:output:0' input: 'x' input: 'one:output:0' "
        "attr { key: 'Tidx' value { type: DT_INT64 } } } "
        "ret { key: 'y' value: 'range:output:0' } } }\n");
    Batches b;
    auto session = NewSession(SessionOptions());
    b.status = (*session)->Create(Parse(text));
    std::vector<Tensor> fetched;
    if (b.status.ok()) b.status = (*session)->Run({}, {}, {"make"}, &fetched);
    std::vector<std::vector<int64_t>> shapes;
    while (b.status.ok()) {
      b.status = (*session)->Run({}, {"next:0"}, {}, &fetched);
      if (!b.status.ok()) break;
      b.values.emplace_back(fetched[0].data<int64_t>(), fetched[0].data<int64_t>() + fetched[0].NumElements());
      shapes.push_back(fetched[0].shape().dims());
    }
    QVERIFY2(IsEndOfSequence(b.status), StatusText(b.status));
    QCOMPARE(shapes, (std::vector<std::vector<int64_t>>{{2, 3}, {1, 2}}));
    QCOMPARE(b.values, (std::vector<std::vector<int64_t>>{{0, -1, -1, 0, 1, 2}, {0, 1}}));
  }

  void unknownFunctionIsNamedWithItsNode() {
    Pipeline p;
    p.map_function = "no_such_function";
    const Batches b = ReadAll(InitializableGraph(p), "make");
    QCOMPARE(b.status.code(), absl::StatusCode::kInvalidArgument);
    const std::string message(b.status.message());
    QVERIFY2(message.find("'map'") != std::string::npos, message.c_str());
    QVERIFY2(message.find("'no_such_function'") != std::string::npos, message.c_str());
    QVERIFY2(message.find("times_plus_one") != std::string::npos, message.c_str());  // what the library has
  }

  void wrongArgumentCountIsNamed() {
    Pipeline p;
    p.map_function = "greater_than_eight";  // takes 1 argument; the map passes x and k
    p.shuffle = false;
    const Batches b = ReadAll(InitializableGraph(p), "make");
    QVERIFY(!b.status.ok());
    const std::string message(b.status.message());
    QVERIFY2(message.find("greater_than_eight") != std::string::npos, message.c_str());
    QVERIFY2(message.find("'map'") != std::string::npos, message.c_str());
  }

  void badBodyReferenceIsNamed() {
    std::string text = InitializableGraph(Pipeline());
    text = absl::StrReplaceAll(text, {{"'add:z:0'", "'add:sum:0'"}});
    const Batches b = ReadAll(text, "make");
    QVERIFY(!b.status.ok());
    const std::string message(b.status.message());
    QVERIFY2(message.find("times_plus_one") != std::string::npos && message.find("add:sum:0") != std::string::npos,
             message.c_str());
  }

  // `clab run --feed_random` keeps a pipeline built from constants and starts its iterator;
  // one that needs a fed value (or a file) is cut at IteratorGetNext as before.
  void runnablePipelinesAreKeptOthersCut() {
    tensorflow::MetaGraphDef meta;
    *meta.mutable_graph_def() = Parse(InitializableGraph(Pipeline()));
    tools::GraphRoles roles(meta);
    QVERIFY(roles.FeedPointsFor({"next"}).empty());
    QCOMPARE(roles.PipelineInitializers({"next"}), std::vector<std::string>{"make"});
    std::string why;
    QVERIFY2(tools::InputPipelines(meta.graph_def()).Runs("next", &why), why.c_str());

    tensorflow::MetaGraphDef one_shot;
    *one_shot.mutable_graph_def() = Parse(OneShotGraph(Pipeline()));
    QVERIFY(tools::GraphRoles(one_shot).FeedPointsFor({"next"}).empty());
    QVERIFY(tools::GraphRoles(one_shot).PipelineInitializers({"next"}).empty());

    // The slices' values fed instead of constant: the pipeline is cut.
    tensorflow::MetaGraphDef fed = meta;
    for (auto& node : *fed.mutable_graph_def()->mutable_node()) {
      if (node.name() != "values") continue;
      node.set_op("Placeholder");
      node.mutable_attr()->erase("value");
    }
    QVERIFY(!tools::InputPipelines(fed.graph_def()).Runs("next", &why));
    QVERIFY2(why.find("placeholder 'values'") != std::string::npos, why.c_str());
    const auto points = tools::GraphRoles(fed).FeedPointsFor({"next"});
    QCOMPARE(points.size(), size_t{1});
    QCOMPARE(points[0].node, std::string("next"));
    QVERIFY(tools::GraphRoles(fed).PipelineInitializers({"next"}).empty());

    // A library function with an op that reads files: cut.
    tensorflow::MetaGraphDef reads = meta;
    auto* body = reads.mutable_graph_def()->mutable_library()->mutable_function(0)->add_node_def();
    body->set_name("lines");
    body->set_op("TextLineDataset");
    why.clear();
    QVERIFY(!tools::InputPipelines(reads.graph_def()).Runs("next", &why));
    QVERIFY2(why.find("TextLineDataset") != std::string::npos, why.c_str());
  }
};

QTEST_GUILESS_MAIN(DatasetsTest)
#include "tst_datasets.moc"
