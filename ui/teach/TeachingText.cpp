#include "teach/TeachingText.h"

#include <QSet>

namespace clab::ui {
namespace {

QString List(const QStringList& items, int most = 8) {
  QStringList shown = items.mid(0, most);
  for (QString& s : shown) s = "<code>" + s.toHtmlEscaped() + "</code>";
  QString text = shown.join(", ");
  if (items.size() > most) text += QStringLiteral(", … (+%1)").arg(items.size() - most);
  return text;
}

QString Paragraph(const QString& text) { return "<p>" + text + "</p>"; }

}  // namespace

QString TeachingText::shortTask(const QString& task) {
  QString s = task;
  return s.replace("/replica:0", "");
}

QString TeachingText::bytes(qint64 bytes) {
  if (bytes < 0) return tr("? B");
  if (bytes < 1024) return tr("%1 B").arg(bytes);
  if (bytes < 1024 * 1024) return tr("%1 KB").arg(bytes / 1024.0, 0, 'f', 1);
  return tr("%1 MB").arg(bytes / (1024.0 * 1024.0), 0, 'f', 1);
}

QString TeachingText::phaseName(TeachingPhase phase) {
  switch (phase) {
    case TeachingPhase::kPrune: return tr("1. Prune");
    case TeachingPhase::kPlace: return tr("2. Place");
    case TeachingPhase::kPartition: return tr("3. Partition");
    case TeachingPhase::kRegister: return tr("4. Register");
    case TeachingPhase::kRun: return tr("5. Run");
    case TeachingPhase::kDone: return tr("Done");
  }
  return {};
}

QString TeachingText::explainPhase(TeachingPhase phase, const StepWalkthrough& walk) {
  QString html = "<h3>" + phaseName(phase).toHtmlEscaped() + "</h3>";
  switch (phase) {
    case TeachingPhase::kPrune:
      html += Paragraph(tr("The client calls <i>session.run</i> and asks for %1. The master, which lives in the "
                           "server of the client's own task, first keeps only the nodes those results need.")
                            .arg(List(walk.fetches + walk.targets)));
      html += Paragraph(tr("%1 of the graph's %2 nodes are needed. The %3 greyed out are not run in this step, "
                           "for example the initialiser, which the chief ran once before the first step.")
                            .arg(walk.kept.size())
                            .arg(walk.total_nodes)
                            .arg(walk.pruned.size()));
      break;
    case TeachingPhase::kPlace: {
      html +=
          Paragraph(tr("The placer gives every kept node exactly one device. A node that asked for a device "
                       "gets it; variables were put on the parameter servers (ps) by "
                       "<i>replica_device_setter</i>; everything else runs on the worker that owns the "
                       "session. Nodes now have the colour of their task."));
      QMap<QString, int> per_task;
      for (const QString& node : walk.kept) per_task[StepWalkthrough::taskOf(walk.assigned.value(node))]++;
      QStringList lines;
      for (auto it = per_task.begin(); it != per_task.end(); ++it)
        lines << tr("%1: %n node(s)", nullptr, it.value()).arg(shortTask(it.key()).toHtmlEscaped());
      html += Paragraph(lines.join("<br>"));
      html +=
          Paragraph(tr("A ps only stores variables and applies updates to them; it never runs the model. "
                       "That is why a ps task just calls <i>server.join()</i> and waits."));
      break;
    }
    case TeachingPhase::kPartition: {
      html +=
          Paragraph(tr("The graph is cut into one partition per task. Every edge that crosses from one task "
                       "to another becomes a pair of nodes: a <b>_Send</b> on the producing task and a "
                       "<b>_Recv</b> on the consuming one, which meet under the same rendezvous key. The "
                       "dashed orange edges are those pairs."));
      QStringList lines;
      for (const WalkTransfer& t : walk.transfers) {
        QString what =
            t.packed.isEmpty() ? t.tensor : tr("%1 packed tensors (%2)").arg(t.packed.size()).arg(t.packed.join(", "));
        lines << tr("%1 → %2: %3, %4")
                     .arg(shortTask(t.from_task).toHtmlEscaped(), shortTask(t.to_task).toHtmlEscaped(),
                          what.toHtmlEscaped(), bytes(t.bytes));
      }
      if (lines.isEmpty()) lines << tr("Nothing crosses tasks: the whole step runs on one task.");
      html += Paragraph(tr("%n tensor(s) cross tasks in each step, %1 in all:", nullptr, walk.transfers.size())
                            .arg(bytes(walk.transferBytes())) +
                        "<br>" + lines.join("<br>"));
      bool packed = false;
      for (const WalkTransfer& t : walk.transfers) packed = packed || !t.packed.isEmpty();
      if (packed)
        html +=
            Paragraph(tr("ClusterLab packs the tensors one device sends to another task into a single message "
                         "(<b>_PackTensors</b>, unpacked on arrival), so a step makes fewer calls."));
      break;
    }
    case TeachingPhase::kRegister: {
      html +=
          Paragraph(tr("The master sends each task its partition once (<b>RegisterGraph</b>). The task builds "
                       "a kernel for every node and returns a handle. Later steps with the same fetches "
                       "only say \"run handle H as step S\" (<b>RunGraph</b>): the graph is not sent again."));
      QStringList lines;
      for (const WalkPartition& p : walk.partitions)
        lines << tr("%1: %n node(s)", nullptr, p.nodes.size()).arg(shortTask(p.task).toHtmlEscaped());
      html += Paragraph(lines.join("<br>"));
      // A ps that both serves the session's task and waits for it (weights out, gradients in).
      QStringList both_ways;
      for (const WalkPartition& p : walk.partitions) {
        bool out = false, in = false;
        for (const WalkTransfer& t : walk.transfers) {
          out = out || (t.from_task == p.task && t.to_task == walk.session_task);
          in = in || (t.from_task == walk.session_task && t.to_task == p.task);
        }
        if (out && in && p.task != walk.session_task) both_ways << shortTask(p.task);
      }
      if (!both_ways.isEmpty())
        html += Paragraph(tr("%1 both sends to %2 and waits for it. ClusterLab registers such a partition as two "
                             "graphs: the first, which waits for nothing, returns what it sends in its RunGraph reply; "
                             "the second gets the tensors it waits for in its RunGraph request. A step then costs two "
                             "calls to that task and no RecvTensor.")
                              .arg(both_ways.join(", ").toHtmlEscaped(), shortTask(walk.session_task).toHtmlEscaped()));
      break;
    }
    case TeachingPhase::kRun:
      html +=
          Paragraph(tr("The master calls RunGraph on every task at once. Inside a task a node runs as soon as "
                       "all its inputs are ready; a <b>_Recv</b> waits until the tensor of its <b>_Send</b> "
                       "arrives over gRPC. Tokens show tensors moving along edges; a node lights up while it "
                       "runs. Use Step to go one node at a time."));
      if (!walk.fed.isEmpty())
        html += Paragraph(tr("For this walkthrough the placeholders were fed with zeros: %1.").arg(List(walk.fed)));
      break;
    case TeachingPhase::kDone:
      html +=
          Paragraph(tr("Every partition has finished, so the step is over. The master collects the fetched "
                       "tensors and returns them to the client:"));
      html += Paragraph(List(walk.result));
      html +=
          Paragraph(tr("The walkthrough ran on a private cluster in this window (one server per task on "
                       "127.0.0.1), so a run in progress is not disturbed. The timeline shows what each device "
                       "did in the traced steps."));
      break;
  }
  return html;
}

QString TeachingText::explainExecution(const WalkExecution& e, const StepWalkthrough& walk) {
  const QString where = shortTask(StepWalkthrough::taskOf(e.device));
  // The nodes the partitioning added (_Send, _Recv, packing) are not on the canvas: the
  // narration names the tensors they carry, whose nodes are.
  const auto drawn = [&walk](const QString& node) { return walk.kept.contains(node) || walk.pruned.contains(node); };
  const auto carried = [](const WalkTransfer& t) { return t.packed.isEmpty() ? QStringList{t.tensor} : t.packed; };
  const WalkTransfer* transfer = nullptr;
  for (const WalkTransfer& t : walk.transfers)
    if (t.send_node == e.node || t.recv_node == e.node || t.producer == e.node) transfer = &t;
  QString what;
  if (e.op == "_Send") {
    what =
        tr("hands its tensor to the rendezvous; the other task takes it with a RecvTensor call (or, for a task "
           "that only sends, in the reply to RunGraph).");
  } else if (e.op == "_Recv") {
    what = tr("has received a tensor from another task over gRPC; it was waiting for it since the step began.");
  } else if (e.op == "_PackTensors") {
    what = tr("packs the tensors bound for one task into a single message.");
  } else if (e.op == "_UnpackTensors") {
    what = tr("unpacks a message into the tensors it carries.");
  } else if (e.op == "VariableV2" || e.op == "Variable" || e.op == "VarHandleOp") {
    what = tr("is a variable: its value lives in this task's memory between steps.");
  } else if (e.op == "Identity" && e.node.endsWith("/read")) {
    what = tr("reads the variable's current value.");
  } else if (e.op.startsWith("Apply") || e.op.startsWith("Assign") || e.op.startsWith("Scatter")) {
    what = tr("updates a variable in place, on the task that stores it.");
  } else if (e.op == "Placeholder") {
    what = tr("holds the value the client fed.");
  } else if (e.op == "NoOp") {
    what = tr("does nothing itself; it only waits for what it depends on (a train op is such a node).");
  } else {
    what = tr("computes %1 from its inputs.").arg(e.op);
  }
  if (drawn(e.node))
    return tr("<b>%1</b> (%2) on %3 %4").arg(e.node.toHtmlEscaped(), e.op.toHtmlEscaped(), where.toHtmlEscaped(), what);
  if (!transfer && e.op == "_UnpackTensors") {
    // The unpacking on the receiving side: the packed transfer that arrived there.
    for (const WalkTransfer& t : walk.transfers)
      if (e.inputs.contains(t.recv_node)) transfer = &t;
    for (const WalkTransfer& t : walk.transfers)
      if (!transfer && !t.packed.isEmpty() && t.to_task == StepWalkthrough::taskOf(e.device)) transfer = &t;
  }
  if (!transfer) return tr("(%1) on %2 %3").arg(e.op.toHtmlEscaped(), where.toHtmlEscaped(), what);
  const QString tensors = carried(*transfer).join(", ");
  const QString route = tr("from %1 to %2").arg(shortTask(transfer->from_task), shortTask(transfer->to_task));
  return tr("<b>%1</b> (%2, %3) on %4 %5")
      .arg(tensors.toHtmlEscaped(), e.op.toHtmlEscaped(), route.toHtmlEscaped(), where.toHtmlEscaped(), what);
}

}  // namespace clab::ui
