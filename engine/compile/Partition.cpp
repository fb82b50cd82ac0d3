#include "clab/compile/Partition.h"

#include "clab/graph/AttrValues.h"

#include <map>
#include <set>
#include <tuple>

namespace clab {
namespace {

std::string InputString(const std::string& node, int slot) { return slot == 0 ? node : absl::StrCat(node, ":", slot); }

class Partitioner {
 public:
  Partitioner(const Graph& graph, const PartitionOptions& options,
              std::map<std::string, tensorflow::GraphDef>* partitions)
      : graph_(graph), options_(options), partitions_(*partitions) {}

  Status Run() {
    for (const Node* node : graph_.nodes()) {
      if (node->assigned_device().empty())
        return errors::InvalidArgument("Cannot partition the graph: node '", node->name(), "' (", node->type_string(),
                                       ") has no assigned device");
      partition_of_node_[node] = PartitionOf(node->assigned_device());
    }
    for (const Node* node : graph_.nodes()) AddNode(node);
    return OkStatus();
  }

 private:
  // A tensor (or, with slot kControlSlot, a node's completion) delivered to one partition.
  using TransferKey = std::tuple<int, int, std::string>;

  std::string PartitionOf(const std::string& device) const {
    return options_.partition_of ? options_.partition_of(device) : device;
  }

  uint64_t IncarnationOf(const std::string& device) const {
    return options_.incarnation_of ? options_.incarnation_of(device) : 0;
  }

  void AddNode(const Node* node) {
    const std::string& partition = partition_of_node_.at(node);
    tensorflow::NodeDef* def = partitions_[partition].add_node();
    *def = node->def();
    def->clear_input();
    def->set_device(node->assigned_device());
    for (const Edge* edge : node->in_edges()) {
      const std::string& src_partition = partition_of_node_.at(edge->src);
      if (edge->IsControl()) {
        const std::string src =
            src_partition == partition ? edge->src->name() : ControlRecv(edge->src, node, partition);
        def->add_input("^" + src);
      } else if (src_partition == partition) {
        def->add_input(InputString(edge->src->name(), edge->src_output));
      } else {
        def->add_input(DataRecv(edge->src, edge->src_output, node, partition));
      }
    }
  }

  // The _Recv in `dst_partition` that delivers src:slot, made (with its _Send) on first use:
  // every consumer in that partition shares it, so the tensor crosses once.
  std::string DataRecv(const Node* src, int slot, const Node* first_consumer, const std::string& dst_partition) {
    auto [it, inserted] = recv_of_.try_emplace(TransferKey{src->id(), slot, dst_partition});
    if (!inserted) return it->second;
    const DataType dtype = BaseType(src->output_types()[static_cast<size_t>(slot)]);
    it->second = AddSendRecvPair(src, InputString(src->name(), slot), dtype, absl::StrCat(src->name(), ":", slot),
                                 first_consumer, dst_partition);
    return it->second;
  }

  // Control edges carry no value; an empty float tensor made after `src` stands in for its
  // completion so that the ordering survives the cut.
  std::string ControlRecv(const Node* src, const Node* first_consumer, const std::string& dst_partition) {
    auto [it, inserted] = recv_of_.try_emplace(TransferKey{src->id(), Edge::kControlSlot, dst_partition});
    if (!inserted) return it->second;
    tensorflow::NodeDef* dummy = partitions_[partition_of_node_.at(src)].add_node();
    dummy->set_name(UniqueName(src->name() + "/_control_const"));
    dummy->set_op("Const");
    dummy->set_device(src->assigned_device());
    dummy->add_input("^" + src->name());
    (*dummy->mutable_attr())["dtype"] = AttrOf(DT_FLOAT);
    (*dummy->mutable_attr())["value"] = AttrOf(Tensor(DT_FLOAT, TensorShape{0}));
    it->second =
        AddSendRecvPair(src, dummy->name(), DT_FLOAT, absl::StrCat("^", src->name()), first_consumer, dst_partition);
    return it->second;
  }

  std::string AddSendRecvPair(const Node* src, const std::string& send_input, DataType dtype, const std::string& what,
                              const Node* first_consumer, const std::string& dst_partition) {
    const int edge_id = next_edge_id_++;
    const std::string& send_device = src->assigned_device();
    const std::string& recv_device = first_consumer->assigned_device();
    std::map<std::string, tensorflow::AttrValue> attrs = {
        {"T", AttrOf(dtype)},
        {"tensor_name", AttrOf(absl::StrCat("edge_", edge_id, "_", what))},
        {"send_device", AttrOf(send_device)},
        {"send_device_incarnation", AttrOf(static_cast<int64_t>(IncarnationOf(send_device)))},
        {"recv_device", AttrOf(recv_device)},
        {"client_terminated", AttrOf(false)},
    };

    tensorflow::NodeDef* send = partitions_[partition_of_node_.at(src)].add_node();
    send->set_name(UniqueName(absl::StrCat(src->name(), "/_send_", edge_id)));
    send->set_op("_Send");
    send->set_device(send_device);
    send->add_input(send_input);
    send->mutable_attr()->insert(attrs.begin(), attrs.end());

    tensorflow::NodeDef* recv = partitions_[dst_partition].add_node();
    recv->set_name(UniqueName(absl::StrCat(src->name(), "/_recv_", edge_id)));
    recv->set_op("_Recv");
    recv->set_device(recv_device);
    recv->mutable_attr()->insert(attrs.begin(), attrs.end());
    // _Recv names its type "tensor_type", as TensorFlow's does.
    recv->mutable_attr()->erase("T");
    (*recv->mutable_attr())["tensor_type"] = AttrOf(dtype);
    return recv->name();
  }

  // Names of added nodes must not collide with the graph's own nor with each other.
  std::string UniqueName(const std::string& base) {
    std::string name = base;
    for (int suffix = 1; graph_.FindNode(name) || !added_names_.insert(name).second; ++suffix)
      name = absl::StrCat(base, "_", suffix);
    return name;
  }

  const Graph& graph_;
  const PartitionOptions& options_;
  std::map<std::string, tensorflow::GraphDef>& partitions_;
  std::map<const Node*, std::string> partition_of_node_;
  std::map<TransferKey, std::string> recv_of_;
  std::set<std::string> added_names_;
  int next_edge_id_ = 0;
};

}  // namespace

Status PartitionGraph(const Graph& graph, const PartitionOptions& options,
                      std::map<std::string, tensorflow::GraphDef>* partitions) {
  partitions->clear();
  return Partitioner(graph, options, partitions).Run();
}

}  // namespace clab
