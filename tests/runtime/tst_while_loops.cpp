// While loops as TensorFlow 1.x writes them (Enter, Merge, LoopCond, Switch, Exit,
// NextIteration), run in execution frames: a counter, a tensor accumulated with a loop
// invariant (an is_constant Enter), a loop nested in another, a forward loop pushing onto a
// stack and a second loop popping it (as TensorFlow's gradient loops do), a loop that runs no
// iteration, a loop inside the branch of a cond not taken, every parallel_iterations from one
// up; malformed loops are errors naming the node when the step is planned; a loop that never
// ends stops at the step's deadline, when its step is cancelled or when another partition
// failed the step; a loop split across devices is an error. Values are computed by hand.
#include "StatusText.h"
#include "clab/runtime/Device.h"
#include "clab/runtime/Executor.h"
#include "clab/runtime/Rendezvous.h"
#include "clab/runtime/Session.h"

#include <google/protobuf/text_format.h>
#include <QtTest/QtTest>

#include <atomic>
#include <functional>
#include <thread>

using namespace clab;
using clab::testing::StatusText;

namespace {

using Names = std::vector<std::string>;

std::string TypeAttr(const char* key, const char* type) {
  return std::string("attr { key: '") + key + "' value { type: " + type + " } } ";
}

// Builds a GraphDef node by node from text, and while loops the way tf.while_loop lays them out.
class LoopGraph {
 public:
  std::string Add(const std::string& name, const std::string& op, const Names& inputs, const std::string& attrs) {
    std::string text = "name: '" + name + "' op: '" + op + "' ";
    for (const std::string& input : inputs) text += "input: '" + input + "' ";
    text += attrs;
    tensorflow::NodeDef* node = graph_.add_node();
    if (!google::protobuf::TextFormat::ParseFromString(text, node)) qFatal("bad node text: %s", text.c_str());
    return name;
  }

  // An int32 scalar, or a float vector; `after` gives it a control input (a loop's constants
  // hang on the loop's pivot so that they run in its frame).
  std::string Int(const std::string& name, int value, const std::string& after = "") {
    return Add(name, "Const", after.empty() ? Names{} : Names{"^" + after},
               TypeAttr("dtype", "DT_INT32") +
                   "attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { } "
                   "int_val: " +
                   std::to_string(value) + " } } }");
  }
  std::string Floats(const std::string& name, const std::vector<float>& values) {
    std::string vals;
    for (float v : values) vals += "float_val: " + std::to_string(v) + " ";
    return Add(name, "Const", {},
               TypeAttr("dtype", "DT_FLOAT") +
                   "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { "
                   "dim { size: " +
                   std::to_string(values.size()) + " } } " + vals + "} } }");
  }
  std::string Binary(const std::string& name, const std::string& op, const std::string& a, const std::string& b,
                     const char* type = "DT_INT32") {
    return Add(name, op, {a, b}, TypeAttr("T", type));
  }
  std::string Enter(const std::string& name, const std::string& input, const std::string& frame, bool constant,
                    const char* type = "DT_INT32", int parallel = 10) {
    return Add(name, "Enter", {input},
               TypeAttr("T", type) + "attr { key: 'frame_name' value { s: '" + frame + "' } } " +
                   "attr { key: 'is_constant' value { b: " + (constant ? "true" : "false") + " } } " +
                   "attr { key: 'parallel_iterations' value { i: " + std::to_string(parallel) + " } }");
  }

  // tf.while_loop(cond, body, inits): Enter and Merge per loop variable, LoopCond on cond's
  // value, Switch per variable to Exit (false) or Identity (true) and body, NextIteration back
  // to the Merge. Returns the Exit nodes.
  Names While(const std::string& frame, const Names& inits, const std::vector<const char*>& types,
              const std::function<std::string(const Names&)>& cond, const std::function<Names(const Names&)>& body,
              int parallel = 10) {
    Names merges, idents, exits;
    for (size_t k = 0; k < inits.size(); ++k) {
      const std::string v = frame + "/v" + std::to_string(k);
      Enter(v + "/enter", inits[k], frame, false, types[k], parallel);
      merges.push_back(Add(v + "/merge", "Merge", {v + "/enter", v + "/next"},
                           TypeAttr("T", types[k]) + "attr { key: 'N' value { i: 2 } }"));
    }
    const std::string pred = Add(frame + "/cond", "LoopCond", {cond(merges)}, "");
    for (size_t k = 0; k < inits.size(); ++k) {
      const std::string v = frame + "/v" + std::to_string(k);
      Add(v + "/switch", "Switch", {merges[k], pred}, TypeAttr("T", types[k]));
      exits.push_back(Add(v + "/exit", "Exit", {v + "/switch:0"}, TypeAttr("T", types[k])));
      idents.push_back(Add(v + "/ident", "Identity", {v + "/switch:1"}, TypeAttr("T", types[k])));
    }
    const Names next = body(idents);
    for (size_t k = 0; k < inits.size(); ++k) {
      const std::string v = frame + "/v" + std::to_string(k);
      Add(v + "/next", "NextIteration", {next[k]}, TypeAttr("T", types[k]));
    }
    return exits;
  }

  // A counter loop: while i < limit: i += 1, from `start`.
  Names Counter(const std::string& frame, const std::string& start, int limit, int parallel = 10) {
    return While(
        frame, {start}, {"DT_INT32"},
        [&](const Names& v) { return Binary(frame + "/less", "Less", v[0], Int(frame + "/limit", limit, v[0])); },
        [&](const Names& v) { return Names{Binary(frame + "/add", "Add", v[0], Int(frame + "/one", 1, v[0]))}; },
        parallel);
  }

  const tensorflow::GraphDef& graph() const { return graph_; }

 private:
  tensorflow::GraphDef graph_;
};

struct Run {
  Status status;
  std::vector<Tensor> out;
};

Run RunGraph(const tensorflow::GraphDef& graph, const Names& fetches, int64_t timeout_ms = 0) {
  Run run;
  auto session = NewSession(SessionOptions());
  if (!session.ok()) return {session.status(), {}};
  run.status = (*session)->Create(graph);
  tensorflow::RunOptions options;
  options.set_timeout_in_ms(timeout_ms);
  if (run.status.ok()) run.status = (*session)->Run(options, {}, fetches, {}, &run.out, nullptr);
  return run;
}

bool Contains(const Status& status, const std::string& text) {
  return std::string(status.message()).find(text) != std::string::npos;
}

}  // namespace

class WhileLoopsTest : public QObject {
  Q_OBJECT

 private slots:
  void counterCountsToTen_data() {
    QTest::addColumn<int>("parallel");
    for (int parallel : {1, 2, 3, 10, 32}) QTest::addRow("parallel_iterations=%d", parallel) << parallel;
  }
  void counterCountsToTen() {
    QFETCH(int, parallel);
    LoopGraph g;
    const Names exits = g.Counter("count", g.Int("zero", 0), 10, parallel);
    Run r = RunGraph(g.graph(), exits);
    QVERIFY2(r.status.ok(), StatusText(r.status));
    QCOMPARE(r.out[0].scalar<int32_t>(), 10);
  }

  // acc = [0, 0, 0]; for i in range(4): acc = acc + x * 1.5, x = [1, 2, 3] entered once as
  // a loop invariant: [6, 12, 18]; i ends at 4.
  void accumulatesWithAConstantEnter() {
    LoopGraph g;
    const std::string x = g.Floats("x", {1, 2, 3});
    const std::string scale = g.Floats("scale", {1.5f, 1.5f, 1.5f});
    const Names exits = g.While(
        "acc", {g.Int("zero", 0), g.Floats("acc0", {0, 0, 0})}, {"DT_INT32", "DT_FLOAT"},
        [&](const Names& v) { return g.Binary("acc/less", "Less", v[0], g.Int("acc/limit", 4, v[0])); },
        [&](const Names& v) {
          const std::string xin = g.Enter("acc/x", x, "acc", true, "DT_FLOAT");
          const std::string sin = g.Enter("acc/scale", scale, "acc", true, "DT_FLOAT");
          const std::string term = g.Binary("acc/term", "Mul", xin, sin, "DT_FLOAT");
          return Names{g.Binary("acc/inc", "Add", v[0], g.Int("acc/one", 1, v[0])),
                       g.Binary("acc/sum", "Add", v[1], term, "DT_FLOAT")};
        });
    Run r = RunGraph(g.graph(), exits);
    QVERIFY2(r.status.ok(), StatusText(r.status));
    QCOMPARE(r.out[0].scalar<int32_t>(), 4);
    QVERIFY2(r.out[1].Equals(Tensor::Vector<float>({6, 12, 18})), r.out[1].DebugString().c_str());
  }

  // for i in range(3): for j in range(4): total += i + 1  ->  4 * (1 + 2 + 3) = 24; the inner
  // frame is made anew in each outer iteration.
  void nestedLoops() {
    LoopGraph g;
    const Names exits = g.While(
        "outer", {g.Int("zero", 0), g.Int("total0", 0)}, {"DT_INT32", "DT_INT32"},
        [&](const Names& v) { return g.Binary("outer/less", "Less", v[0], g.Int("outer/limit", 3, v[0])); },
        [&](const Names& v) {
          const std::string next_i = g.Binary("outer/inc", "Add", v[0], g.Int("outer/one", 1, v[0]));
          const std::string step = g.Enter("inner/step", next_i, "inner", true);
          const Names inner = g.While(
              "inner", {g.Int("outer/j0", 0, v[0]), v[1]}, {"DT_INT32", "DT_INT32"},
              [&](const Names& w) { return g.Binary("inner/less", "Less", w[0], g.Int("inner/limit", 4, w[0])); },
              [&](const Names& w) {
                return Names{g.Binary("inner/inc", "Add", w[0], g.Int("inner/one", 1, w[0])),
                             g.Binary("inner/sum", "Add", w[1], step)};
              });
          return Names{next_i, inner[1]};
        });
    Run r = RunGraph(g.graph(), exits);
    QVERIFY2(r.status.ok(), StatusText(r.status));
    QCOMPARE(r.out[0].scalar<int32_t>(), 3);
    QCOMPARE(r.out[1].scalar<int32_t>(), 24);
  }

  // The forward loop pushes i * i (i = 0..3) onto a stack made outside it; a second loop,
  // started after the first by a control edge, pops four times: acc = acc * 10 + pop, so
  // the pops come back last-in first-out: 9, 4, 1, 0 -> 9410.
  void stackPushedAndPoppedByTwoLoops() {
    LoopGraph g;
    const std::string stack = g.Add("stack", "StackV2", {g.Int("max", -1)},
                                    TypeAttr("elem_type", "DT_INT32") + "attr { key: 'stack_name' value { s: 'fw' } }");
    const Names forward = g.While(
        "fw", {g.Int("zero", 0)}, {"DT_INT32"},
        [&](const Names& v) { return g.Binary("fw/less", "Less", v[0], g.Int("fw/limit", 4, v[0])); },
        [&](const Names& v) {
          const std::string handle = g.Enter("fw/handle", stack, "fw", true, "DT_RESOURCE");
          const std::string square = g.Binary("fw/square", "Mul", v[0], v[0]);
          g.Add("fw/push", "StackPushV2", {handle, square}, TypeAttr("T", "DT_INT32"));
          return Names{g.Add("fw/inc", "Add", {v[0], g.Int("fw/one", 1, v[0]), "^fw/push"}, TypeAttr("T", "DT_INT32"))};
        });
    const std::string start = g.Int("bw/count0", 0, forward[0]);
    const Names backward = g.While(
        "bw", {start, g.Int("acc0", 0)}, {"DT_INT32", "DT_INT32"},
        [&](const Names& v) { return g.Binary("bw/less", "Less", v[0], g.Int("bw/limit", 4, v[0])); },
        [&](const Names& v) {
          const std::string handle = g.Enter("bw/handle", stack, "bw", true, "DT_RESOURCE");
          const std::string popped =
              g.Add("bw/pop", "StackPopV2", {handle, "^" + v[0]}, TypeAttr("elem_type", "DT_INT32"));
          const std::string shifted = g.Binary("bw/shift", "Mul", v[1], g.Int("bw/ten", 10, v[0]));
          return Names{g.Binary("bw/inc", "Add", v[0], g.Int("bw/one", 1, v[0])),
                       g.Binary("bw/acc", "Add", shifted, popped)};
        },
        1);
    Run r = RunGraph(g.graph(), {forward[0], backward[1]});
    QVERIFY2(r.status.ok(), StatusText(r.status));
    QCOMPARE(r.out[0].scalar<int32_t>(), 4);
    QCOMPARE(r.out[1].scalar<int32_t>(), 9410);
  }

  // The condition is false at once: the body never runs and the Exit passes the start value.
  void zeroIterations() {
    LoopGraph g;
    const Names exits = g.Counter("none", g.Int("start", 5), 0);
    Run r = RunGraph(g.graph(), exits);
    QVERIFY2(r.status.ok(), StatusText(r.status));
    QCOMPARE(r.out[0].scalar<int32_t>(), 5);
  }

  // A loop on the branch of a cond not taken is dead as a whole: its Exit reaches the cond's
  // Merge dead, and the Merge passes the other branch's value.
  void loopInsideTheBranchNotTaken() {
    LoopGraph g;
    g.Add("pred", "Const", {},
          TypeAttr("dtype", "DT_BOOL") +
              "attr { key: 'value' value { tensor { dtype: DT_BOOL tensor_shape { } "
              "bool_val: false } } }");
    g.Add("sw", "Switch", {g.Int("seven", 7), "pred"}, TypeAttr("T", "DT_INT32"));
    const Names exits = g.Counter("dead", "sw:1", 10);
    g.Add("other", "Identity", {"sw:0"}, TypeAttr("T", "DT_INT32"));
    g.Add("joined", "Merge", {exits[0], "other"}, TypeAttr("T", "DT_INT32") + "attr { key: 'N' value { i: 2 } }");
    Run r = RunGraph(g.graph(), {"joined:0", "joined:1"});
    QVERIFY2(r.status.ok(), StatusText(r.status));
    QCOMPARE(r.out[0].scalar<int32_t>(), 7);
    QCOMPARE(r.out[1].scalar<int32_t>(), 1);
  }

  void malformedLoopsNameTheNode_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("node");
    QTest::addColumn<QString>("says");
    QTest::addRow("exit without enter") << 0 << "lost_exit"
                                        << "outside every while loop";
    QTest::addRow("mismatched frame names") << 1 << "mixed"
                                            << "two execution frames";
    QTest::addRow("next iteration not feeding a merge") << 2 << "bad_next"
                                                        << "must feed a Merge";
    QTest::addRow("next iteration outside a loop") << 3 << "stray_next"
                                                   << "outside every while loop";
    QTest::addRow("fetch inside a loop") << 4 << "count/add"
                                         << "fetch the value that leaves";
  }
  void malformedLoopsNameTheNode() {
    QFETCH(int, kind);
    QFETCH(QString, node);
    QFETCH(QString, says);
    LoopGraph g;
    Names fetches;
    if (kind == 0) {
      fetches = {g.Add("lost_exit", "Exit", {g.Int("zero", 0)}, TypeAttr("T", "DT_INT32"))};
    } else if (kind == 1) {
      g.Enter("a", g.Int("one", 1), "frame_a", true);
      g.Enter("b", g.Int("two", 2), "frame_b", true);
      fetches = {g.Binary("mixed", "Add", "a", "b")};
    } else if (kind == 2) {
      const std::string enter = g.Enter("enter", g.Int("zero", 0), "loop", false);
      g.Add("bad_next", "NextIteration", {g.Add("body", "Identity", {enter}, TypeAttr("T", "DT_INT32"))},
            TypeAttr("T", "DT_INT32"));
      g.Binary("sink", "Add", "bad_next", enter);
      fetches = {g.Add("out", "Exit", {"sink"}, TypeAttr("T", "DT_INT32"))};
    } else if (kind == 3) {
      fetches = {g.Add("stray_next", "NextIteration", {g.Int("zero", 0)}, TypeAttr("T", "DT_INT32"))};
    } else {
      g.Counter("count", g.Int("zero", 0), 10);
      fetches = {"count/add"};
    }
    Run r = RunGraph(g.graph(), fetches, /*timeout_ms=*/60000);
    QVERIFY(!r.status.ok());
    QCOMPARE(r.status.code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Contains(r.status, "'" + node.toStdString() + "'"), StatusText(r.status));
    QVERIFY2(Contains(r.status, says.toStdString()), StatusText(r.status));
  }

  // while true: i += 1, stopped by the step's deadline.
  void infiniteLoopStopsAtTheDeadline() {
    LoopGraph g;
    const Names exits = InfiniteLoop(g);
    Run r = RunGraph(g.graph(), exits, /*timeout_ms=*/200);
    QCOMPARE(r.status.code(), absl::StatusCode::kDeadlineExceeded);
  }

  // The same loop under an executor whose step is cancelled: it stops before its next
  // iteration and says which loop it stopped.
  void infiniteLoopStopsWhenCancelled() {
    LoopGraph g;
    const Names exits = InfiniteLoop(g);
    auto devices = DeviceMgr::CreateLocal("/job:localhost/replica:0/task:0", tensorflow::ConfigProto());
    QVERIFY2(devices.ok(), StatusText(devices.status()));
    Executor::Params params;
    params.graph = g.graph();
    params.device = (*devices)->host_cpu();
    params.fetches = {exits[0] + ":0"};
    auto executor = Executor::Create(params);
    QVERIFY2(executor.ok(), StatusText(executor.status()));
    std::atomic<bool> cancelled{true};
    Executor::RunArgs args;
    args.cancelled = &cancelled;
    Executor::Result result = (*executor)->Run(std::move(args));
    QCOMPARE(result.status.code(), absl::StatusCode::kCancelled);
    QVERIFY2(Contains(result.status, "'forever'"), StatusText(result.status));
  }

  // Another partition of the step failed (its rendezvous is aborted): the loop stops with
  // that failure instead of running on.
  void infiniteLoopStopsWhenTheRendezvousAborts() {
    LoopGraph g;
    const Names exits = InfiniteLoop(g);
    auto devices = DeviceMgr::CreateLocal("/job:localhost/replica:0/task:0", tensorflow::ConfigProto());
    QVERIFY2(devices.ok(), StatusText(devices.status()));
    Executor::Params params;
    params.graph = g.graph();
    params.device = (*devices)->host_cpu();
    params.fetches = {exits[0] + ":0"};
    auto executor = Executor::Create(params);
    QVERIFY2(executor.ok(), StatusText(executor.status()));
    LocalRendezvous rendezvous;
    rendezvous.StartAbort(errors::Unavailable("the other partition's task went away"));
    Executor::RunArgs args;
    args.rendezvous = &rendezvous;
    Executor::Result result = (*executor)->Run(std::move(args));
    QCOMPARE(result.status.code(), absl::StatusCode::kUnavailable);
    QVERIFY2(Contains(result.status, "went away"), StatusText(result.status));
  }

  // A loop must run on one device: a body node placed on another device is an error at
  // plan time naming a node, not a step that never ends.
  void loopSplitAcrossDevicesIsAnError() {
    LoopGraph g;
    const Names exits = g.Counter("count", g.Int("zero", 0), 10);
    tensorflow::GraphDef graph = g.graph();
    for (tensorflow::NodeDef& node : *graph.mutable_node())
      if (node.name() == "count/add") node.set_device("/job:localhost/replica:0/task:0/device:CPU:1");
    SessionOptions options;
    (*options.config.mutable_device_count())["CPU"] = 2;
    auto session = NewSession(options);
    QVERIFY(session.ok());
    QVERIFY((*session)->Create(graph).ok());
    tensorflow::RunOptions run_options;
    run_options.set_timeout_in_ms(60000);
    std::vector<Tensor> out;
    const Status status = (*session)->Run(run_options, {}, exits, {}, &out, nullptr);
    QCOMPARE(status.code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Contains(status, "'count/"), StatusText(status));
    QVERIFY2(Contains(status, "all its nodes are on one device"), StatusText(status));
  }

  // Loops of the same plan run again and again, and in parallel steps, with the same result.
  void repeatedAndConcurrentSteps() {
    LoopGraph g;
    const Names exits = g.Counter("count", g.Int("zero", 0), 25, 4);
    auto session = NewSession(SessionOptions());
    QVERIFY(session.ok());
    QVERIFY((*session)->Create(g.graph()).ok());
    std::vector<std::thread> threads;
    std::atomic<int> good{0};
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < 20; ++i) {
          std::vector<Tensor> out;
          if ((*session)->Run({}, exits, {}, &out).ok() && out[0].scalar<int32_t>() == 25) ++good;
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    QCOMPARE(good.load(), 80);
  }

 private:
  static Names InfiniteLoop(LoopGraph& g) {
    return g.While(
        "forever", {g.Int("zero", 0)}, {"DT_INT32"},
        [&](const Names& v) {
          return g.Add("forever/true", "Const", {"^" + v[0]},
                       TypeAttr("dtype", "DT_BOOL") +
                           "attr { key: 'value' value { tensor { dtype: DT_BOOL "
                           "tensor_shape { } bool_val: true } } }");
        },
        [&](const Names& v) { return Names{g.Binary("forever/add", "Add", v[0], g.Int("forever/one", 1, v[0]))}; });
  }
};

QTEST_GUILESS_MAIN(WhileLoopsTest)
#include "tst_while_loops.moc"
