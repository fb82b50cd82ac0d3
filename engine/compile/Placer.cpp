#include "clab/compile/Placer.h"

#include "clab/core/DeviceName.h"
#include "clab/graph/AttrValues.h"

#include <absl/strings/str_join.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <numeric>
#include <set>

namespace clab {
namespace {

struct ParsedDevice {
  std::string name;
  std::string type;
  DeviceName parsed;
};

// Union-find over node ids: nodes that must share a device end up with one root.
class ColocationSets {
 public:
  explicit ColocationSets(int n) : parent_(static_cast<size_t>(n)) { std::iota(parent_.begin(), parent_.end(), 0); }
  int Find(int x) {
    while (parent_[static_cast<size_t>(x)] != x) {
      parent_[static_cast<size_t>(x)] = parent_[static_cast<size_t>(parent_[static_cast<size_t>(x)])];
      x = parent_[static_cast<size_t>(x)];
    }
    return x;
  }
  // The lower id becomes the root, so a group is named after the node built first.
  void Union(int a, int b) {
    a = Find(a);
    b = Find(b);
    if (a != b) parent_[static_cast<size_t>(std::max(a, b))] = std::min(a, b);
  }

 private:
  std::vector<int> parent_;
};

// The colocation keys of a node: its "loc:@x" entries of _class, the legacy "@x" device,
// or its own name when it asks for nothing.
std::vector<std::string> ColocationKeys(const Node& node) {
  std::vector<std::string> keys;
  if (HasNodeAttr(node.def(), "_class")) {
    std::vector<std::string> classes;
    if (GetNodeAttr(node.def(), "_class", &classes).ok())
      for (auto& entry : classes)
        if (entry.rfind("loc:@", 0) == 0) keys.push_back(entry.substr(5));
  }
  const std::string& device = node.requested_device();
  if (!device.empty() && device[0] == '@') keys.push_back(device.substr(1));
  if (keys.empty()) keys.push_back(node.name());
  return keys;
}

// What a node asks for: a device assigned earlier (e.g. by the partitioner) wins over the
// request in its NodeDef; "@x" is colocation, not a device.
std::string RequestOf(const Node& node) {
  if (!node.assigned_device().empty()) return node.assigned_device();
  const std::string& device = node.requested_device();
  return !device.empty() && device[0] == '@' ? std::string() : device;
}

// Placement prefers accelerators, as TensorFlow does: GPU, then CPU, then anything else.
int TypePriority(const std::string& type) {
  if (type == "GPU") return 0;
  if (type == "CPU") return 1;
  return 2;
}

struct Group {
  std::vector<Node*> members;  // in id order
  DeviceName spec;             // the merge of every member's request
  const Node* first_requester = nullptr;
  std::set<std::string> kernel_types;  // device types every member has a kernel for
};

class Placer {
 public:
  Placer(Graph* graph, std::vector<ParsedDevice> devices, const PlacerOptions& options)
      : graph_(graph), devices_(std::move(devices)), options_(options) {}

  Status Run() {
    CLAB_ASSIGN_OR_RETURN(std::vector<Group> groups, BuildGroups());
    for (Group& group : groups) {
      CLAB_ASSIGN_OR_RETURN(std::string device, Choose(group));
      for (Node* node : group.members) node->set_assigned_device(device);
    }
    for (const std::string& note : notes_) Log(note);
    if (options_.log_device_placement)
      for (const Node* node : graph_->nodes())
        Log(StrCat(node->name(), ": (", node->type_string(), "): ", node->assigned_device()));
    return OkStatus();
  }

 private:
  void Log(const std::string& line) const {
    if (options_.log) options_.log(line);
    else std::cout << line << '\n';
  }

  StatusOr<std::vector<Group>> BuildGroups() {
    const auto& nodes = graph_->nodes();
    ColocationSets sets(static_cast<int>(nodes.size()));
    std::map<std::string, int> owner_of_key;
    for (const Node* node : nodes)
      for (const auto& key : ColocationKeys(*node)) {
        auto [it, inserted] = owner_of_key.emplace(key, node->id());
        if (!inserted) sets.Union(it->second, node->id());
      }
    // A node that takes a reference (Assign, AssignAdd...) writes the producer's memory,
    // so it must run where the variable lives.
    for (const Node* node : nodes)
      for (const Edge* edge : node->in_edges())
        if (!edge->IsControl() && node->IsRefInput(edge->dst_input)) sets.Union(node->id(), edge->src->id());

    std::map<int, Group> by_root;
    for (Node* node : nodes) by_root[sets.Find(node->id())].members.push_back(node);

    std::vector<Group> groups;
    for (auto& [root, group] : by_root) {
      // Variables state their device first: a node writing through a reference follows the
      // variable it writes, whatever device its own scope asked for.
      std::stable_partition(group.members.begin(), group.members.end(), [](const Node* n) {
        for (DataType t : n->output_types())
          if (IsRefType(t)) return true;
        return false;
      });
      bool first_member = true;
      for (Node* node : group.members) {
        std::set<std::string> types;
        for (const auto& [type, factory] : node->op_def().kernels) types.insert(type);
        if (first_member) {
          group.kernel_types = types;
          first_member = false;
        } else {
          std::set<std::string> both;
          std::set_intersection(group.kernel_types.begin(), group.kernel_types.end(), types.begin(), types.end(),
                                std::inserter(both, both.begin()));
          group.kernel_types = std::move(both);
        }
        const std::string request = RequestOf(*node);
        if (request.empty()) continue;
        auto spec = DeviceName::Parse(request);
        if (!spec.ok())
          return errors::InvalidArgument("Cannot assign a device for operation '", node->name(),
                                         "': ", spec.status().message());
        Status merged = group.spec.MergeFrom(*spec, options_.allow_soft_placement);
        bool writes_through_ref = false;
        for (int i = 0; i < node->num_inputs(); ++i) writes_through_ref = writes_through_ref || node->IsRefInput(i);
        if (!merged.ok() && writes_through_ref && group.first_requester != nullptr) {
          notes_.push_back(StrCat("Note: '", node->name(), "' (", node->type_string(), ") asked for ", request,
                                  " but writes variable '", group.first_requester->name(), "', so it runs on ",
                                  group.spec.ToString(), " with it."));
          continue;
        }
        if (!merged.ok())
          return errors::InvalidArgument("Cannot colocate nodes '", group.first_requester->name(), "' and '",
                                         node->name(), "': ", merged.message());
        if (group.first_requester == nullptr) group.first_requester = node;
      }
      groups.push_back(std::move(group));
    }
    return groups;
  }

  std::vector<const ParsedDevice*> Matching(const DeviceName& spec, const std::set<std::string>* types) const {
    std::vector<const ParsedDevice*> out;
    for (const auto& device : devices_)
      if (spec.Matches(device.parsed) && (types == nullptr || types->count(device.type))) out.push_back(&device);
    return out;
  }

  std::string AvailableList() const {
    std::vector<std::string> names;
    for (const auto& device : devices_) names.push_back(device.name);
    std::sort(names.begin(), names.end());
    return StrCat("[ ", absl::StrJoin(names, ", "), " ]");
  }

  StatusOr<std::string> Choose(Group& group) {
    const Node* named = group.first_requester != nullptr ? group.first_requester : group.members.front();
    // One node's own words when only it asked; the merged spec when a group asked together.
    std::string requested = group.spec.ToString();
    if (group.first_requester != nullptr) {
      int requesters = 0;
      for (const Node* node : group.members) requesters += RequestOf(*node).empty() ? 0 : 1;
      if (requesters == 1) requested = RequestOf(*group.first_requester);
    }
    auto cannot_assign = [&](const std::string& why) {
      return errors::InvalidArgument("Cannot assign a device for operation '", named->name(), "': ", why);
    };
    if (group.kernel_types.empty())
      return cannot_assign(StrCat("no device type has a kernel for every node colocated with it (",
                                  group.members.size(), " node(s) in the group)"));

    // As TensorFlow checks: first that such a device exists, then that it has a kernel.
    DeviceName spec = group.spec;
    if (Matching(spec, nullptr).empty() && (spec.has_type || spec.has_id) && options_.allow_soft_placement)
      SoftPlace(group, spec, "no such device exists");
    if (Matching(spec, nullptr).empty()) {
      if (group.spec.IsEmpty()) return cannot_assign(StrCat("no devices are available: ", AvailableList()));
      return cannot_assign(StrCat("Operation was explicitly assigned to ", requested, " but available devices are ",
                                  AvailableList(), ". Make sure the device specification refers to a valid device."));
    }
    if (spec.has_type && !group.kernel_types.count(spec.type)) {
      if (!options_.allow_soft_placement) {
        std::vector<std::string> kernels;
        for (const auto& type : group.kernel_types) kernels.push_back(StrCat("  device='", type, "'"));
        return cannot_assign(StrCat("Could not satisfy explicit device specification '", requested,
                                    "' because no supported kernel for ", spec.type,
                                    " devices is available.\nRegistered kernels:\n", absl::StrJoin(kernels, "\n")));
      }
      SoftPlace(group, spec, StrCat("op ", named->type_string(), " has no ", spec.type, " kernel"));
    }

    // The session's default device fills only what the group left open, and only when a
    // device then still fits (a node pinned to /job:ps ignores a worker default).
    std::vector<const ParsedDevice*> candidates;
    if (!options_.default_device.empty()) {
      auto fallback = DeviceName::Parse(options_.default_device);
      if (!fallback.ok()) return errors::InvalidArgument("PlacerOptions.default_device: ", fallback.status().message());
      DeviceName filled = *fallback;
      filled.OverrideWith(spec);
      if (filled.has_type && !group.kernel_types.count(filled.type) && !spec.has_type) {
        filled.has_type = false;  // the default's type does not suit this op; keep its task
        filled.has_id = false;
      }
      candidates = Matching(filled, &group.kernel_types);
    }
    if (candidates.empty()) candidates = Matching(spec, &group.kernel_types);
    if (candidates.empty()) {
      std::vector<std::string> kernels(group.kernel_types.begin(), group.kernel_types.end());
      return cannot_assign(StrCat("it has kernels for ", absl::StrJoin(kernels, ", "),
                                  " only, and no such device matches '", spec.ToString(),
                                  "' among the available devices ", AvailableList()));
    }

    // Stay in the task of the first candidate, then prefer a GPU there.
    const DeviceName& task = candidates.front()->parsed;
    const ParsedDevice* best = nullptr;
    for (const ParsedDevice* device : candidates) {
      if (!device->parsed.InSameTask(task)) continue;
      if (best == nullptr || TypePriority(device->type) < TypePriority(best->type)) best = device;
    }
    return best->name;
  }

  // Drops the type and id of a request that cannot be honoured, and says so.
  void SoftPlace(Group& group, DeviceName& spec, const std::string& reason) {
    const std::string before = spec.ToString();
    spec.has_type = false;
    spec.has_id = false;
    for (const Node* node : group.members) {
      if (RequestOf(*node).empty() && node != group.first_requester) continue;
      notes_.push_back(
          StrCat(node->name(), ": soft placement: ignoring the device type and id of '", before, "' because ", reason));
    }
  }

  Graph* graph_;
  std::vector<ParsedDevice> devices_;
  const PlacerOptions& options_;
  std::vector<std::string> notes_;
};

// Every op of the graph that has no kernel on any device, each with the nodes using it, in
// one error: a graph TensorFlow wrote loads with such ops, and only running them fails.
Status CheckKernelsExist(const Graph& graph) {
  std::map<std::string, std::vector<std::string>> users;
  for (const Node* node : graph.nodes())
    if (node->op_def().kernels.empty()) users[node->type_string()].push_back("'" + node->name() + "'");
  if (users.empty()) return OkStatus();
  std::vector<std::string> parts;
  for (const auto& [op, nodes] : users)
    parts.push_back(
        StrCat("'", op, "' (used by ", nodes.size() == 1 ? "node " : "nodes ", absl::StrJoin(nodes, ", "), ")"));
  return errors::Unimplemented("ClusterLab has no kernel for ", users.size() == 1 ? "op " : "ops ",
                               absl::StrJoin(parts, ", "), ", which this step needs; `clab ops` lists the ops it runs");
}

}  // namespace

Status PlaceGraph(Graph* graph, const std::vector<AvailableDevice>& devices, const PlacerOptions& options) {
  CLAB_RETURN_IF_ERROR(CheckKernelsExist(*graph));
  std::vector<ParsedDevice> parsed;
  parsed.reserve(devices.size());
  for (const auto& device : devices) {
    auto name = DeviceName::ParseFull(device.name);
    if (!name.ok()) return errors::InvalidArgument("Available device list: ", name.status().message());
    parsed.push_back({device.name, device.type.empty() ? name->type : device.type, *name});
  }
  return Placer(graph, std::move(parsed), options).Run();
}

}  // namespace clab
