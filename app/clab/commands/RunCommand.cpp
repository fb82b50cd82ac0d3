#include "commands/RunCommand.h"

#include "clab/distributed/Server.h"
#include "clab/graph/Graph.h"
#include "clab/graph/Prune.h"
#include "clab/train/QueueRunners.h"
#include "cli/CliStatus.h"
#include "cli/FlagParser.h"
#include "formats/ExampleFeed.h"
#include "formats/GraphFileReader.h"
#include "formats/GraphRoles.h"
#include "formats/JsonTensorParser.h"
#include "formats/NpyFile.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <absl/strings/match.h>

#include <algorithm>
#include <ostream>
#include <set>

namespace clab::cli {
namespace {

// Lists the graph's nodes in an error when there are few enough to read at a glance.
std::string NodeListHint(const Graph& graph) {
  constexpr int kMaxListed = 12;
  if (graph.num_nodes() > kMaxListed) return absl::StrCat(" (", graph.num_nodes(), " nodes; see 'clab graph show')");
  std::vector<std::string> names;
  for (const Node* node : graph.nodes()) names.push_back(node->name());
  return absl::StrCat(" (nodes: ", absl::StrJoin(names, ", "), ")");
}

}  // namespace

std::string RunCommand::summary() const { return "Run a graph in this process and print fetched values"; }

std::string RunCommand::description() const {
  return "Loads a GraphDef (.pbtxt or .pb), creates a local session (one process, this machine's\n"
         "devices), runs the --init nodes once, then runs --steps steps, each fetching the --fetch\n"
         "tensors and running the --target nodes, and prints the fetched values numpy-style.\n"
         "Names follow TensorFlow: a tensor is \"node\" or \"node:1\", a target is a node.\n"
         "Feeds replace a tensor's value with JSON, --feed 'x=[[1, 1, 1, 1]]', or a numpy file,\n"
         "--feed x=x.npy. The graph may be a GraphDef, a Saver's .meta or a saved_model.pb.\n\n"
         "For a graph TensorFlow wrote: --init auto runs the init op its collections or names give\n"
         "(init_op collection, a node named init, the variables' initializers); --target auto runs\n"
         "its training op (train_op collection, else the node reaching the most optimizer\n"
         "updates; a graph without one runs its outputs); --feed_random feeds every placeholder\n"
         "the run needs with generated values of its dtype and shape (unknown sizes: --feed_batch);\n"
         "a string placeholder that ParseExample reads gets serialized tf.Examples of its features.\n"
         "The graph's queue runners (its \"queue_runners\" collection) start after --init and stop\n"
         "at the end, one thread per enqueue op, unless --feed_random cuts the input pipeline; with\n"
         "--data_dir DIR the run happens in an in-process task whose readers open files only\n"
         "beneath DIR (elsewhere: PERMISSION_DENIED), and --feed_random then feeds placeholders only.\n\n"
         "Examples:  clab run --graph examples/graphs/seed.pbtxt --init init --fetch MatMul\n"
         "           clab run --graph model.ckpt.meta --init auto --target auto --feed_random";
}

void RunCommand::DeclareFlags(FlagParser& flags) {
  flags.AddString("graph", "FILE", "the GraphDef to run (.pbtxt or .pb)", &graph_path_,
                  FlagParser::Presence::kRequired);
  flags.AddStringList("fetch", "NAME", "a tensor to print after each step", &fetches_);
  flags.AddStringList("target", "NODE", "a node to run in each step without printing it", &targets_);
  flags.AddStringList("init", "NODE", "a node to run once before the steps (e.g. init; auto: found)", &init_nodes_);
  flags.AddStringList("feed", "NAME=JSON|FILE.npy", "a value for a tensor, as JSON or a .npy file", &feed_specs_);
  flags.AddStringList("data_dir", "DIR",
                      "a directory the graph's readers may read (input files; the pipeline is then run, not cut)",
                      &data_dirs_);
  flags.AddBool("feed_random", "feed the placeholders no --feed gives with generated values", &feed_random_);
  flags.AddInt("feed_batch", "N", "the size --feed_random gives unknown dimensions", &feed_batch_, 2);
  flags.AddInt("steps", "N", "how many steps to run", &steps_, 1);
  flags.AddBool("clear_devices", "ignore the devices the graph's nodes ask for (a ps/worker graph run here)",
                &clear_devices_);
  flags.AddBool("log_device_placement", "print each node's device, as TensorFlow does", &log_device_placement_);
  flags.AddBool("allow_soft_placement", "let ops without a kernel on the requested device move to the CPU",
                &allow_soft_placement_);
}

Status RunCommand::Run(std::ostream& out) {
  if (fetches_.empty() && targets_.empty())
    return UsageError("'clab run' needs --fetch NAME or --target NODE (see 'clab help run')");

  CLAB_ASSIGN_OR_RETURN(meta_, tools::GraphFileReader::ReadMetaGraph(graph_path_));
  if (clear_devices_)  // as TensorFlow's import_meta_graph(clear_devices=True)
    for (auto& node : *meta_.mutable_graph_def()->mutable_node()) node.clear_device();
  CLAB_RETURN_IF_ERROR(ResolveAutomaticNodes(out));
  const auto& declared = meta_.meta_info_def().stripped_op_list().op();
  auto graph_or = Graph::FromForeignGraphDef(meta_.graph_def(),
                                             std::vector<tensorflow::OpDefProto>(declared.begin(), declared.end()));
  if (!graph_or.ok()) return WithPrefix(graph_or.status(), absl::StrCat(graph_path_, ": "));
  const Graph& graph = **graph_or;
  CLAB_RETURN_IF_ERROR(CheckNamesExist(graph));
  CLAB_ASSIGN_OR_RETURN(FeedList feeds, ParseFeeds(graph));
  auto runner_defs = QueueRunners::FromMetaGraph(meta_);
  if (!runner_defs.ok()) return WithPrefix(runner_defs.status(), absl::StrCat(graph_path_, ": "));
  tensorflow::GraphDef full = meta_.graph_def();
  // --feed_random generates the pipelines' outputs unless --data_dir says the input files
  // are there to read (then only placeholders are fed).
  if (feed_random_) CLAB_RETURN_IF_ERROR(AddRandomFeeds(&feeds, &full, !data_dirs_.empty()));
  // Only what the run needs goes to the session: ops elsewhere in a user's graph (summaries,
  // input pipelines cut by --feed_random, serving signatures) need not be ones ClusterLab runs.
  std::vector<std::string> needed = targets_;
  // tf.data pipelines that run from the graph alone are kept; their iterators start after
  // the init op.
  std::vector<std::string> readers = targets_;
  for (const std::string& fetch : fetches_) readers.push_back(InputNodeName(fetch));
  const std::vector<std::string> pipeline_inits = tools::GraphRoles(meta_).PipelineInitializers(readers);
  if (!pipeline_inits.empty()) out << "input: " << absl::StrJoin(pipeline_inits, ", ") << " (tf.data iterators)\n";
  needed.insert(needed.end(), init_nodes_.begin(), init_nodes_.end());
  needed.insert(needed.end(), pipeline_inits.begin(), pipeline_inits.end());
  tensorflow::GraphDef graph_def;
  CLAB_RETURN_IF_ERROR(PruneGraph(full, {}, fetches_, needed, &graph_def));
  // The queue runners run when the step still reads one of their queues, and so do the
  // runners of the queues their enqueue ops read (a reader's file-name queue).
  std::vector<tensorflow::QueueRunnerDef> used_runners;
  std::set<std::string> used_queues;
  for (bool grew = true; grew;) {
    grew = false;
    std::set<std::string> kept;
    for (const auto& node : graph_def.node()) kept.insert(node.name());
    for (const auto& runner : *runner_defs) {
      if (!kept.count(runner.queue_name()) || !used_queues.insert(runner.queue_name()).second) continue;
      used_runners.push_back(runner);
      const std::vector<std::string> runner_ops = QueueRunners::OpNames({runner});
      needed.insert(needed.end(), runner_ops.begin(), runner_ops.end());
      grew = true;
    }
    if (grew) CLAB_RETURN_IF_ERROR(PruneGraph(full, {}, fetches_, needed, &graph_def));
  }

  SessionOptions options;
  options.config.set_log_device_placement(log_device_placement_);
  options.config.set_allow_soft_placement(allow_soft_placement_);
  // With --data_dir the graph runs in a task of this process confined to those directories.
  std::unique_ptr<Server> task;
  if (!data_dirs_.empty()) {
    CLAB_ASSIGN_OR_RETURN(ClusterSpec cluster, ClusterSpec::FromDict({{"localhost", {"127.0.0.1:0"}}}));
    ServerOptions server_options;
    server_options.cluster = cluster;
    server_options.job_name = "localhost";
    server_options.config = options.config;
    server_options.data_dirs = data_dirs_;
    server_options.log = [](const std::string&) {};
    auto server_or = Server::Create(server_options);
    if (!server_or.ok()) return WithPrefix(server_or.status(), "cannot start the task that reads --data_dir: ");
    task = std::move(server_or).value();
    options.target = task->target();
  }
  auto session_or = NewSession(options);
  if (!session_or.ok()) return WithPrefix(session_or.status(), "cannot start a local session: ");
  std::unique_ptr<Session> session = std::move(session_or).value();
  if (Status status = session->Create(graph_def); !status.ok())
    return WithPrefix(status, absl::StrCat(graph_path_, ": "));

  std::vector<Tensor> outputs;
  if (!init_nodes_.empty()) {
    if (Status status = session->Run({}, {}, init_nodes_, &outputs); !status.ok())
      return WithPrefix(status, absl::StrCat("--init ", absl::StrJoin(init_nodes_, ", "),
                                             " failed: ", absl::StatusCodeToString(status.code()), ": "));
  }
  if (!pipeline_inits.empty()) {
    if (Status status = session->Run({}, {}, pipeline_inits, &outputs); !status.ok())
      return WithPrefix(status, absl::StrCat("starting the input pipeline (", absl::StrJoin(pipeline_inits, ", "),
                                             ") failed: ", absl::StatusCodeToString(status.code()), ": "));
  }
  // Declared after the session: its threads are stopped and joined before the session goes.
  QueueRunners runners(used_runners, [&out](const std::string& line) { out << line << std::endl; });
  if (!runners.empty()) {
    out << "queue runners: " << used_runners.size() << " started\n";
    runners.Start(session.get());
  }
  for (int64_t step = 1; step <= steps_; ++step) {
    if (Status status = session->Run(feeds, fetches_, targets_, &outputs); !status.ok()) {
      // A runner that failed closed the queues: its error is the cause.
      Status cause = runners.Stop();
      return ExplainStepFailure(cause.ok() ? status : cause, step);
    }
    PrintFetches(out, outputs);
  }
  CLAB_RETURN_IF_ERROR(runners.Stop());
  return session->Close();
}

Status RunCommand::CheckNamesExist(const Graph& graph) const {
  auto check = [&](absl::string_view flag, const std::string& name) -> Status {
    auto id = TensorId::Parse(name);
    if (!id.ok()) return UsageError(absl::StrCat("--", flag, " '", name, "': ", id.status().message()));
    const Node* node = graph.FindNode(id->node);
    if (node == nullptr)
      return errors::NotFound("--", flag, " '", name, "': no node '", id->node, "' in '", graph_path_, "'",
                              NodeListHint(graph));
    if (flag == "fetch" && id->index >= node->num_outputs())
      return errors::NotFound("--fetch '", name, "': node '", node->name(), "' (", node->type_string(), ") has ",
                              node->num_outputs(), node->num_outputs() == 1 ? " output" : " outputs",
                              node->num_outputs() == 0 ? "; run it with --target instead" : "");
    return OkStatus();
  };
  for (const std::string& name : fetches_) CLAB_RETURN_IF_ERROR(check("fetch", name));
  for (const std::string& name : targets_) CLAB_RETURN_IF_ERROR(check("target", name));
  for (const std::string& name : init_nodes_) CLAB_RETURN_IF_ERROR(check("init", name));
  return OkStatus();
}

Status RunCommand::ResolveAutomaticNodes(std::ostream& out) {
  tools::GraphRoles roles(meta_);
  if (init_nodes_.size() == 1 && init_nodes_[0] == "auto") {
    std::string found_by;
    CLAB_ASSIGN_OR_RETURN(init_nodes_, roles.InitOps(&found_by));
    out << "init: " << (init_nodes_.empty() ? "-" : absl::StrJoin(init_nodes_, ", ")) << " (from " << found_by << ")\n";
  }
  auto automatic = std::find(targets_.begin(), targets_.end(), "auto");
  if (automatic != targets_.end()) {
    targets_.erase(automatic);
    std::string found_by;
    CLAB_ASSIGN_OR_RETURN(const std::vector<std::string> step, roles.StepTargets(&found_by));
    out << "step: " << absl::StrJoin(step, ", ") << " (from " << found_by << ")\n";
    targets_.insert(targets_.end(), step.begin(), step.end());
  }
  return OkStatus();
}

Status RunCommand::AddRandomFeeds(FeedList* feeds, tensorflow::GraphDef* graph, bool keep_pipelines) const {
  std::vector<std::string> needed = targets_;
  for (const std::string& fetch : fetches_) needed.push_back(InputNodeName(fetch));
  std::vector<tools::GraphRoles::FeedPoint> points;
  for (const auto& point : tools::GraphRoles(meta_).FeedPointsFor(needed)) {
    const std::string tensor = absl::StrCat(point.node, ":", point.output);
    const bool given = std::any_of(feeds->begin(), feeds->end(), [&](const auto& feed) {
      return feed.first == tensor || (point.output == 0 && feed.first == point.node);
    });
    if (!given && (point.is_placeholder || !keep_pipelines)) points.push_back(point);
  }
  tools::GraphRoles::CutPipelines(&points, graph);
  uint32_t seed = 1;
  for (const auto& point : points) {
    // A string input that a ParseExample reads gets serialized tf.Examples with its features.
    if (point.dtype == DT_STRING) {
      const int64_t batch = point.shape.known_rank() && point.shape.rank() == 1 && point.shape.dim(0) >= 0
                                ? point.shape.dim(0)
                                : feed_batch_;
      CLAB_ASSIGN_OR_RETURN(std::optional<Tensor> examples, tools::ExampleFeed::For(*graph, point.node, batch, seed));
      if (examples) {
        ++seed;
        feeds->emplace_back(point.node, std::move(*examples));
        continue;
      }
    }
    CLAB_ASSIGN_OR_RETURN(Tensor value, tools::GraphRoles::RandomFeed(point, feed_batch_, seed++));
    feeds->emplace_back(point.node, std::move(value));
  }
  return OkStatus();
}

StatusOr<FeedList> RunCommand::ParseFeeds(const Graph& graph) const {
  FeedList feeds;
  for (const std::string& spec : feed_specs_) {
    const size_t equals = spec.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == spec.size())
      return UsageError(
          absl::StrCat("--feed wants NAME=JSON, e.g. 'x=[[1, 2]]', got '", spec, "' (see 'clab help run')"));
    const std::string name = spec.substr(0, equals);
    auto id = TensorId::Parse(name);
    if (!id.ok()) return UsageError(absl::StrCat("--feed '", name, "': ", id.status().message()));
    const Node* node = graph.FindNode(id->node);
    if (node == nullptr)
      return errors::NotFound("--feed '", name, "': no node '", id->node, "' in '", graph_path_, "'",
                              NodeListHint(graph));
    if (id->index < 0 || id->index >= node->num_outputs())
      return errors::NotFound("--feed '", name, "': node '", node->name(), "' has no output ", id->index);
    const DataType dtype = BaseType(node->output_types()[static_cast<size_t>(id->index)]);
    if (absl::EndsWith(spec, ".npy")) {
      auto tensor = tools::NpyFile::Read(spec.substr(equals + 1));
      if (!tensor.ok()) return UsageError(absl::StrCat("--feed '", name, "': ", tensor.status().message()));
      if (dtype != DT_INVALID && tensor->dtype() != dtype)
        return UsageError(absl::StrCat("--feed '", name, "': the file holds ", DataTypeName(tensor->dtype()),
                                       ", the tensor is ", DataTypeName(dtype)));
      feeds.emplace_back(name, std::move(tensor).value());
      continue;
    }
    // The JSON is converted to the fed output's type, so "[[1, 1]]" feeds a float tensor too.
    auto tensor = tools::JsonTensorParser::Parse(absl::string_view(spec).substr(equals + 1), dtype);
    if (!tensor.ok()) return UsageError(absl::StrCat("--feed '", name, "': ", tensor.status().message()));
    feeds.emplace_back(name, std::move(tensor).value());
  }
  return feeds;
}

Status RunCommand::ExplainStepFailure(const Status& status, int64_t step) const {
  std::string hint;
  if (status.code() == absl::StatusCode::kFailedPrecondition && init_nodes_.empty())
    hint =
        " (no --init was given: variables start uninitialised; pass --init NODE to run their "
        "initializer first, e.g. --init init)";
  return Status(status.code(), absl::StrCat("step ", step, " failed: ", absl::StatusCodeToString(status.code()), ": ",
                                            status.message(), hint));
}

void RunCommand::PrintFetches(std::ostream& out, const std::vector<Tensor>& values) const {
  // One fetch prints bare, as the seed's print(mon_sess.run(mat)) does; several are labelled.
  if (fetches_.size() == 1 && values.size() == 1) {
    out << values[0].DebugString() << std::endl;
    return;
  }
  for (size_t i = 0; i < values.size() && i < fetches_.size(); ++i)
    out << fetches_[i] << ": " << values[i].DebugString() << "\n";
  out.flush();
}

}  // namespace clab::cli
