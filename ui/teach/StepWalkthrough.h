// One distributed step of a graph, taken apart the way the master does it, for the teaching
// mode: the engine's compile pipeline (clab/compile/CompileStep.h), which the master uses
// too, prunes to what the step needs, places every node on a task's device and cuts the
// graph into one partition per task (edges that cross tasks become _Send/_Recv pairs); then
// the step runs for real on a private cluster of in-process servers (one per task of the
// project, on free 127.0.0.1 ports) with full tracing, so the run phase replays what each
// device actually did and when.
//
//   auto walk = StepWalkthrough::build(graph, project_tasks, {"MatMul"}, {}, {"init"});
//   walk->pruned;       // nodes the step does not run
//   walk->transfers;    // what crosses tasks, with bytes
//   walk->executed;     // node by node, as they finished, with their devices
//   walk->result;       // "MatMul = [[20]]"
#pragma once

#include "clab/core/Status.h"
#include "tensorflow/graph.pb.h"
#include "tensorflow/step_stats.pb.h"

#include <QHash>
#include <QList>
#include <QMap>
#include <QStringList>

namespace clab::ui {

// A tensor that crosses from one task to another: a _Send in the producing task's
// partition and the _Recv it meets in the consumer's.
struct WalkTransfer {
  QString producer;       // the node whose output travels ("x/read", or a pack node)
  QString tensor;         // "x/read:0"
  QString send_node;      // the _Send in the sender's partition
  QString recv_node;      // the _Recv in the receiver's partition
  QStringList consumers;  // nodes of the receiver that read it (after the pair)
  QString from_task;      // "/job:ps/replica:0/task:0"
  QString to_task;
  qint64 bytes = -1;   // from the inferred shape; -1 when the shape is not fully known
  QStringList packed;  // the tensors a _PackTensors node carries, else empty
  // The graph's own edges this pair stands for: (source node, destination node).
  QList<QPair<QString, QString>> edges;
};

// One node as the step ran it (times in microseconds from the step's first node).
struct WalkExecution {
  QString node;
  QString op;
  QString device;  // full device name
  qint64 start_us = 0;
  qint64 end_us = 0;
  int step = 0;        // which traced step (0-based)
  QStringList inputs;  // the nodes whose outputs it read (from the trace's label)
  bool isTransfer() const;
};

struct WalkPartition {
  QString task;
  QStringList nodes;  // as registered: the task's nodes plus its _Send/_Recv (and pack) nodes
};

class StepWalkthrough {
 public:
  // `tasks`: the cluster's tasks (job -> addresses, in task order). `fetches` and `targets`
  // are what the step runs (a fetched node without outputs, a train op, runs as a target); `init` nodes run once before
  // it (e.g. "init"). Placeholders the step needs are fed with zeros of their declared shape (unknown dimensions as 1),
  // and said so in `fed`. `steps` traced steps are run after `init`.
  static StatusOr<StepWalkthrough> build(const tensorflow::GraphDef& graph, const QMap<QString, QStringList>& tasks,
                                         const QStringList& fetches, const QStringList& targets,
                                         const QStringList& init, int steps = 3);

  // Only the master's part (prune, place, partition): what placement alone implies.
  static StatusOr<StepWalkthrough> plan(const tensorflow::GraphDef& graph, const QMap<QString, QStringList>& tasks,
                                        const QStringList& fetches, const QStringList& targets);
  // Runs the planned step for real (after `init`), `steps` times with tracing.
  Status run(const tensorflow::GraphDef& graph, const QMap<QString, QStringList>& tasks, int steps);

  // What a step of `graph` most likely runs: the nodes nothing consumes, other than the
  // initialiser ("init"), save/restore nodes and what only they need. The initialiser:
  // "init" when the graph has it, else every variable's "<variable>/Assign".
  static QStringList guessFetches(const tensorflow::GraphDef& graph);
  static QStringList guessInit(const tensorflow::GraphDef& graph);

  QStringList fetches;
  QStringList targets;
  QStringList init;
  int total_nodes = 0;
  QStringList kept;                  // prune: nodes the step needs
  QStringList pruned;                // prune: nodes it does not run
  QHash<QString, QString> assigned;  // place: node -> device
  QStringList task_names;            // every task, in the project's order
  QString session_task;              // where the client's session runs (worker 0)
  QList<WalkPartition> partitions;   // partition: one per task that runs something
  QList<WalkTransfer> transfers;
  QList<WalkExecution> executed;            // run: every traced step, in the order nodes finished
  QStringList fed;                          // "x (1x64 zeros)"
  QStringList result;                       // "MatMul = [[20]]", one per fetch, for the last step
  tensorflow::StepStats stats;              // the last step's trace
  QList<tensorflow::StepStats> step_stats;  // every traced step's

  // The task part of a device name ("/job:ps/replica:0/task:0").
  static QString taskOf(const QString& device);
  // Bytes of every transfer together.
  qint64 transferBytes() const;
  // The executions of one traced step (the last when -1).
  QList<WalkExecution> executionsOf(int step = -1) const;
};

}  // namespace clab::ui
