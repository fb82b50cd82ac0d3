#include "commands/RunCommand.h"

#include "clab/graph/Graph.h"
#include "cli/CliStatus.h"
#include "cli/FlagParser.h"
#include "formats/GraphFileReader.h"
#include "formats/JsonTensorParser.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <ostream>

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
         "Feeds replace a tensor's value with JSON: --feed 'x=[[1, 1, 1, 1]]'.\n\n"
         "Example:  clab run --graph examples/graphs/seed.pbtxt --init init --fetch MatMul";
}

void RunCommand::DeclareFlags(FlagParser& flags) {
  flags.AddString("graph", "FILE", "the GraphDef to run (.pbtxt or .pb)", &graph_path_,
                  FlagParser::Presence::kRequired);
  flags.AddStringList("fetch", "NAME", "a tensor to print after each step", &fetches_);
  flags.AddStringList("target", "NODE", "a node to run in each step without printing it", &targets_);
  flags.AddStringList("init", "NODE", "a node to run once before the steps (e.g. init)", &init_nodes_);
  flags.AddStringList("feed", "NAME=JSON", "a value for a tensor, as JSON", &feed_specs_);
  flags.AddInt("steps", "N", "how many steps to run", &steps_, 1);
  flags.AddBool("log_device_placement", "print each node's device, as TensorFlow does", &log_device_placement_);
  flags.AddBool("allow_soft_placement", "let ops without a kernel on the requested device move to the CPU",
                &allow_soft_placement_);
}

Status RunCommand::Run(std::ostream& out) {
  if (fetches_.empty() && targets_.empty())
    return UsageError("'clab run' needs --fetch NAME or --target NODE (see 'clab help run')");

  CLAB_ASSIGN_OR_RETURN(const tensorflow::GraphDef graph_def, tools::GraphFileReader::ReadSupported(graph_path_));
  auto graph_or = Graph::FromGraphDef(graph_def);
  if (!graph_or.ok()) return WithPrefix(graph_or.status(), absl::StrCat(graph_path_, ": "));
  const Graph& graph = **graph_or;
  CLAB_RETURN_IF_ERROR(CheckNamesExist(graph));
  CLAB_ASSIGN_OR_RETURN(const FeedList feeds, ParseFeeds(graph));

  SessionOptions options;
  options.config.set_log_device_placement(log_device_placement_);
  options.config.set_allow_soft_placement(allow_soft_placement_);
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
  for (int64_t step = 1; step <= steps_; ++step) {
    if (Status status = session->Run(feeds, fetches_, targets_, &outputs); !status.ok())
      return ExplainStepFailure(status, step);
    PrintFetches(out, outputs);
  }
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
    // The JSON is converted to the fed output's type, so "[[1, 1]]" feeds a float tensor too.
    const DataType dtype = BaseType(node->output_types()[static_cast<size_t>(id->index)]);
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
