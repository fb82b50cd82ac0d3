#include "teach/Lessons.h"

namespace clab::ui {
namespace {

using Action = LessonPage::Action;

LessonPage Page(QString title, QString text, Action action = Action::kNone, QString argument = {}, QString label = {}) {
  return LessonPage{std::move(title), std::move(text), action, std::move(argument), std::move(label)};
}

const char* const kPs = "/job:ps/replica:0/task:0";
const char* const kCheckpointedDigits = "digits-mlp-checkpointed";

}  // namespace

QList<Lesson> Lessons::all() {
  QList<Lesson> lessons;
  lessons << Lesson{
      "seed",
      tr("The seed program"),
      {Page(tr("Two tasks, one product"),
            tr("<p>The seed program builds two variables, <code>x</code> = [[1, 2, 3, 4]] and "
               "<code>w</code> = [[2], [2], [2], [2]], inside <i>replica_device_setter</i>, so both live on the "
               "ps. Their product <code>tf.matmul(x, w)</code> runs on the worker, which prints [[20]] at every "
               "step.</p><p>The ps task only creates its server and calls <i>server.join()</i>. The worker builds "
               "the graph and runs it in a <i>MonitoredTrainingSession</i>.</p>"),
            Action::kOpenExample, "seed", tr("Open the seed example")),
       Page(tr("One step, phase by phase"),
            tr("<p>Each <i>session.run</i> goes through the master: it prunes the graph to what the fetch "
               "needs, places every node, cuts the graph into one partition per task and registers them, then "
               "runs them. x and w cross from the ps to the worker as _Send/_Recv pairs.</p><p>Use Step in the "
               "teaching panel to go through the phases.</p>"),
            Action::kWalkThrough, {}, tr("Walk through one step")),
       Page(tr("Why StopAtStepHook alone never stops it"),
            tr("<p>The tutorial adds <i>StopAtStepHook(last_step=200)</i>. The hook reads the <b>global step</b> "
               "after every run and asks to stop once it reaches 200. But nothing in the seed's graph increments "
               "the global step: no optimizer, no <i>assign_add</i>. It stays at 0, so the loop "
               "<code>while not mon_sess.should_stop()</code> runs forever.</p><p>ClusterLab runs the global step "
               "increment with each step unless the run setting <b>Faithful</b> is on; then it runs the graph "
               "exactly as written, the step counter warns that the global step is not increasing, and the time "
               "limit ends the run.</p>"),
            Action::kRun, {}, tr("Run the seed"))}};
  lessons << Lesson{
      "chief",
      tr("Chief and non-chief start-up"),
      {Page(tr("Who initialises the variables"),
            tr("<p>With two workers, worker 0 is the <b>chief</b>. Its monitored session initialises the variables "
               "on the ps (or restores them from the last checkpoint) and writes checkpoints and summaries.</p>"
               "<p>Worker 1 is not the chief: it never initialises anything. It asks the ps whether the variables "
               "are ready and waits until they are.</p>"),
            Action::kOpenExample, "seed-two-workers", tr("Open the two-worker seed")),
       Page(tr("Watch the non-chief wait"),
            tr("<p>Start the run and look at worker 1's console tab: while the chief has not initialised "
               "<code>x</code> and <code>w</code>, it reports \"Waiting for model to be ready\" with the variables "
               "it still needs, and the dashboard lists them. As soon as the chief's initialiser has run, both "
               "workers step.</p>"),
            Action::kRun, {}, tr("Start the run")),
       Page(tr("The ps never waits"),
            tr("<p>A ps holds no session and runs no loop: it serves the variables to whoever asks. That is why a "
               "ps can start first, last, or be restarted without the workers' programs changing.</p>"),
            Action::kStop, {}, tr("Stop the run"))}};
  lessons << Lesson{
      "ps-failure",
      tr("A ps failure and recovery"),
      {Page(tr("Train, then lose the ps"),
            tr("<p>Open the digits MLP: a ps and two workers. The weights live on the ps; every worker step "
               "reads them and sends its gradients back.</p><p>For this lesson the run trains until you stop "
               "it, and the chief writes a checkpoint every %1 global steps into a scratch folder of its "
               "own.</p>")
                .arg(kLessonCheckpointSteps),
            Action::kOpenExample, kCheckpointedDigits, tr("Open the digits MLP")),
       Page(tr("Start training"),
            tr("<p>Start the run and watch the global step and the loss on the dashboard. The Checkpoints tab "
               "lists each checkpoint the chief writes (<i>model.ckpt-N</i>, N its global step). Wait for the "
               "first one before you kill the ps.</p>"),
            Action::kRun, {}, tr("Start the run")),
       Page(tr("Kill the ps"),
            tr("<p>Killing the ps (SIGKILL, as a crashed machine) loses every variable it held. The workers' "
               "next steps fail with <i>UNAVAILABLE</i>: their RunGraph and RecvTensor calls find nobody at the "
               "ps's address. The monitored sessions do not give up: they wait for the task to come back.</p>"),
            Action::kKillTask, kPs, tr("Kill the ps")),
       Page(tr("Restart it and recover"),
            tr("<p>The restarted ps is a new process with a new incarnation and empty memory. The workers' "
               "monitored sessions create new sessions; the chief restores the variables from the last "
               "checkpoint and training goes on from the checkpoint's global step. The chief's card and the "
               "dashboard say so: <i>restored from model.ckpt-N at step S</i>, S the global step the checkpoint "
               "holds. Steps taken after that checkpoint "
               "are lost: that is the price of the checkpoint interval.</p>"),
            Action::kRestartTask, kPs, tr("Restart the ps")),
       Page(tr("End the lesson"),
            tr("<p>The run trains until it is stopped. Stop it: every task ends as <i>stopped</i>, and the "
               "checkpoints stay in the Checkpoints tab until the window closes.</p>"),
            Action::kStop, {}, tr("Stop the run"))}};
  lessons << Lesson{
      "sync",
      tr("Asynchronous versus synchronous updates"),
      {Page(tr("Asynchronous: every worker for itself"),
            tr("<p>By default each worker applies its gradients to the ps as soon as it has them. The global step "
               "grows by one per worker step, and a worker may compute on weights that another worker has "
               "changed meanwhile (stale gradients). It is fast, and it usually still converges.</p>"),
            Action::kOpenExample, "digits-mlp", tr("Open the digits MLP")),
       Page(tr("Watch the asynchronous run"),
            tr("<p>Start it and note the global steps per second on the dashboard.</p>"), Action::kRun, {},
            tr("Start the run")),
       Page(tr("Synchronous replicas"),
            tr("<p>With <i>SyncReplicasOptimizer</i> the gradients go into an accumulator on the ps. When as many "
               "as <i>replicas_to_aggregate</i> have arrived, the chief applies their mean once and the global "
               "step grows by one; gradients computed on older weights are dropped. Each worker then takes a "
               "token from a queue before its next step, so no worker runs ahead.</p>"),
            Action::kSetSync, "on", tr("Stop and switch to synchronous replicas")),
       Page(tr("Compare"),
            tr("<p>Run again and compare the dashboards: the synchronous run makes fewer global steps per second "
               "(each waits for the slowest worker) but every update averages several minibatches.</p>"),
            Action::kRun, {}, tr("Start the run"))}};
  lessons << Lesson{
      "ps-scaling",
      tr("Why one ps stops scaling"),
      {Page(tr("A cluster this machine cannot hold"),
            tr("<p>This machine runs a few tasks. To see what a hundred workers would do, the <b>Simulate</b> tab "
               "plays the project's step on a simulated cluster: the same partitions and messages as a real "
               "step, each worker's compute, each ps serving, each message crossing the links.</p>"),
            Action::kOpenExample, "digits-mlp", tr("Open the digits MLP")),
       Page(tr("Add workers to one ps"),
            tr("<p>Every step, each worker reads all the weights from the ps and sends back as many bytes of "
               "gradients: 75 KiB for this MLP. With a few workers, throughput grows with them. Then the curve "
               "flattens: the ps's NIC carries every worker's bytes and is busy all the time. More workers only "
               "wait longer for it.</p><p>The sentence under the chart names the saturated link.</p>"),
            Action::kSimulate, "128,1,async", tr("Simulate 1 to 128 workers on one ps")),
       Page(tr("Add parameter servers"),
            tr("<p>More ps share the bytes, but replica_device_setter places whole variables, one ps each in turn. "
               "Here <code>hidden1/weights</code> is 32 KiB of the 37.5: its ps still carries most bytes and its "
               "NIC still saturates. That is why large models partition big variables across ps.</p>"),
            Action::kSimulate, "128,4,async", tr("Simulate the same on four ps")),
       Page(tr("Try the what-if panel"),
            tr("<p>Change the link bandwidth and latency, the hosts' cores and speed, or synchronous replicas, and "
               "watch where the curve bends. Links and hosts are saved with the project, and Undo takes them "
               "back.</p>"),
            Action::kSimulate, "128,1,sync", tr("Simulate synchronous replicas"))}};
  return lessons;
}

}  // namespace clab::ui
