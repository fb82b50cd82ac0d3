#include "distributed/PartialRuns.h"

#include "clab/graph/Graph.h"

#include <set>
#include <unordered_map>
#include <utility>

namespace clab {

std::string PartialRuns::Setup(const tensorflow::PartialRunSetupRequest& setup) {
  Run run;
  for (const std::string& feed : setup.feed()) run.feeds.emplace(feed, false);
  for (const std::string& fetch : setup.fetch()) run.fetches.emplace(fetch, false);
  run.targets.assign(setup.target().begin(), setup.target().end());
  MutexLock lock(mu_);
  std::string handle = std::to_string(next_handle_++);
  runs_.emplace(handle, std::move(run));
  return handle;
}

// A fetch must not depend on a tensor that is to be fed later: walking the graph up from the
// fetched nodes must meet no pending feed.
Status PartialRuns::CheckComputable(const tensorflow::RunStepRequest& call, const Run& run,
                                    const tensorflow::GraphDef& graph) {
  std::set<std::pair<std::string, int>> pending;
  for (const auto& [name, fed] : run.feeds) {
    if (fed) continue;
    CLAB_ASSIGN_OR_RETURN(TensorId id, TensorId::Parse(name));
    pending.emplace(id.node, id.index);
  }
  for (const tensorflow::NamedTensorProto& feed : call.feed()) {
    CLAB_ASSIGN_OR_RETURN(TensorId id, TensorId::Parse(feed.name()));
    pending.erase({id.node, id.index});
  }
  if (pending.empty()) return OkStatus();

  std::unordered_map<std::string, const tensorflow::NodeDef*> nodes;
  for (const tensorflow::NodeDef& node : graph.node()) nodes.emplace(node.name(), &node);
  std::vector<const tensorflow::NodeDef*> stack;
  std::set<std::string> seen;
  for (const std::string& fetch : call.fetch()) {
    CLAB_ASSIGN_OR_RETURN(TensorId id, TensorId::Parse(fetch));
    auto it = nodes.find(id.node);
    if (it == nodes.end()) return errors::NotFound("Fetch ", fetch, ": there is no node '", id.node, "' in the graph");
    if (seen.insert(id.node).second) stack.push_back(it->second);
  }
  while (!stack.empty()) {
    const tensorflow::NodeDef* node = stack.back();
    stack.pop_back();
    for (const std::string& input : node->input()) {
      const bool control = !input.empty() && input[0] == '^';
      CLAB_ASSIGN_OR_RETURN(TensorId id, TensorId::Parse(control ? std::string_view(input).substr(1) : input));
      if (!control && pending.count({id.node, id.index}))
        return errors::InvalidArgument("Fetch ", id.node, ":", id.index,
                                       " can't be computed from the feeds that have been fed so far (node '",
                                       node->name(), "' needs it, and it is fed by a later call)");
      auto it = nodes.find(id.node);
      if (it != nodes.end() && seen.insert(id.node).second) stack.push_back(it->second);
    }
  }
  return OkStatus();
}

Status PartialRuns::Prepare(const tensorflow::RunStepRequest& call, const tensorflow::GraphDef& graph,
                            tensorflow::RunStepRequest* step, bool* run_needed, bool* last) {
  MutexLock lock(mu_);
  auto it = runs_.find(call.partial_run_handle());
  if (it == runs_.end())
    return errors::InvalidArgument("Must run PartialRunSetup before performing partial runs (partial run handle '",
                                   call.partial_run_handle(), "' is not known: never set up, failed or complete)");
  Run& run = it->second;
  for (const tensorflow::NamedTensorProto& feed : call.feed()) {
    auto known = run.feeds.find(feed.name());
    if (known == run.feeds.end())
      return errors::InvalidArgument("The feed ", feed.name(), " was not specified in partial_run_setup.");
    if (known->second) return errors::InvalidArgument("The feed ", feed.name(), " has already been fed.");
  }
  for (const std::string& fetch : call.fetch()) {
    auto known = run.fetches.find(fetch);
    if (known == run.fetches.end())
      return errors::InvalidArgument("The fetch ", fetch, " was not specified in partial_run_setup.");
    if (known->second) return errors::InvalidArgument("The fetch ", fetch, " has already been fetched.");
  }
  CLAB_RETURN_IF_ERROR(CheckComputable(call, run, graph));

  for (const tensorflow::NamedTensorProto& feed : call.feed()) {
    run.feeds[feed.name()] = true;
    run.fed.push_back(feed);
  }
  for (const std::string& fetch : call.fetch()) run.fetches[fetch] = true;
  *last = true;
  for (const auto& [name, fed] : run.feeds) *last = *last && fed;
  for (const auto& [name, fetched] : run.fetches) *last = *last && fetched;

  step->Clear();
  step->set_session_handle(call.session_handle());
  *step->mutable_options() = call.options();
  step->set_store_errors_in_response_body(call.store_errors_in_response_body());
  *step->mutable_fetch() = call.fetch();
  if (*last) {
    for (const std::string& target : run.targets) step->add_target(target);
  }
  *run_needed = step->fetch_size() > 0 || step->target_size() > 0;
  if (*run_needed) {
    for (const tensorflow::NamedTensorProto& fed : run.fed) *step->add_feed() = fed;
  }
  return OkStatus();
}

void PartialRuns::Finish(const std::string& handle, const Status& status, bool last) {
  if (status.ok() && !last) return;
  MutexLock lock(mu_);
  runs_.erase(handle);
}

}  // namespace clab
