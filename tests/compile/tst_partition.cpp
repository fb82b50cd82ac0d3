// Partitioning a placed graph: cut edges become _Send/_Recv pairs that agree on their key,
// one pair per tensor and destination, and control edges survive the cut.
#include "clab/compile/Partition.h"
#include "clab/graph/AttrValues.h"
#include "clab/graph/Graph.h"

#include <QtTest>

#include <map>
#include <set>

using namespace clab;

namespace {

const std::string kDev0 = "/job:localhost/replica:0/task:0/device:CPU:0";
const std::string kDev1 = "/job:localhost/replica:0/task:0/device:CPU:1";
const std::string kDev2 = "/job:localhost/replica:0/task:0/device:CPU:2";

tensorflow::NodeDef NodeDefOf(const std::string& name, const std::string& op, const std::vector<std::string>& inputs,
                              const std::map<std::string, tensorflow::AttrValue>& attrs) {
  tensorflow::NodeDef node;
  node.set_name(name);
  node.set_op(op);
  for (const auto& input : inputs) node.add_input(input);
  for (const auto& [key, value] : attrs) (*node.mutable_attr())[key] = value;
  return node;
}

tensorflow::NodeDef ConstNode(const std::string& name) {
  return NodeDefOf(name, "Const", {}, {{"dtype", AttrOf(DT_FLOAT)}, {"value", AttrOf(Tensor::Scalar<float>(1))}});
}

tensorflow::NodeDef IdentityNode(const std::string& name, const std::string& input) {
  return NodeDefOf(name, "Identity", {input}, {{"T", AttrOf(DT_FLOAT)}});
}

// Builds the graph and assigns each node the device in `placement`.
std::unique_ptr<Graph> Placed(const std::vector<tensorflow::NodeDef>& nodes,
                              const std::map<std::string, std::string>& placement) {
  tensorflow::GraphDef def;
  for (const auto& node : nodes) *def.add_node() = node;
  auto graph = Graph::FromGraphDef(def);
  if (!graph.ok()) qFatal("%s", FormatStatus(graph.status()).c_str());
  for (Node* node : (*graph)->nodes()) node->set_assigned_device(placement.at(node->name()));
  return std::move(graph).value();
}

PartitionOptions ByDevice() {
  PartitionOptions options;
  options.partition_of = [](const std::string& device) { return device; };
  options.incarnation_of = [](const std::string& device) -> uint64_t { return device == kDev0 ? 0xabc : 0xdef; };
  return options;
}

std::vector<const tensorflow::NodeDef*> OfOp(const tensorflow::GraphDef& graph, const std::string& op) {
  std::vector<const tensorflow::NodeDef*> found;
  for (const auto& node : graph.node())
    if (node.op() == op) found.push_back(&node);
  return found;
}

const tensorflow::NodeDef* Named(const tensorflow::GraphDef& graph, const std::string& name) {
  for (const auto& node : graph.node())
    if (node.name() == name) return &node;
  return nullptr;
}

std::string StringAttr(const tensorflow::NodeDef& node, const std::string& attr) {
  std::string value;
  if (!GetNodeAttr(node, attr, &value).ok()) return "<missing>";
  return value;
}

}  // namespace

class TestPartition : public QObject {
  Q_OBJECT

 private slots:
  void singleDeviceIsUntouched();
  void crossDeviceEdgeBecomesSendRecv();
  void oneTransferPerTensorPerDestination_data();
  void oneTransferPerTensorPerDestination();
  void controlEdgeBecomesDummyTransfer();
  void partitionByTask();
  void unplacedNodeIsAnError();
};

void TestPartition::singleDeviceIsUntouched() {
  auto graph = Placed({ConstNode("a"), IdentityNode("b", "a")}, {{"a", kDev0}, {"b", kDev0}});
  std::map<std::string, tensorflow::GraphDef> partitions;
  QVERIFY(PartitionGraph(*graph, ByDevice(), &partitions).ok());
  QCOMPARE(partitions.size(), size_t{1});
  const auto& only = partitions.at(kDev0);
  QCOMPARE(only.node_size(), 2);
  QVERIFY(OfOp(only, "_Send").empty());
  QCOMPARE(Named(only, "b")->input(0), std::string("a"));
  QCOMPARE(Named(only, "b")->device(), kDev0);
}

void TestPartition::crossDeviceEdgeBecomesSendRecv() {
  auto graph = Placed({ConstNode("a"), IdentityNode("b", "a")}, {{"a", kDev0}, {"b", kDev1}});
  std::map<std::string, tensorflow::GraphDef> partitions;
  QVERIFY(PartitionGraph(*graph, ByDevice(), &partitions).ok());
  QCOMPARE(partitions.size(), size_t{2});
  const auto sends = OfOp(partitions[kDev0], "_Send");
  const auto recvs = OfOp(partitions[kDev1], "_Recv");
  QCOMPARE(sends.size(), size_t{1});
  QCOMPARE(recvs.size(), size_t{1});
  const auto& send = *sends[0];
  const auto& recv = *recvs[0];
  QCOMPARE(send.input(0), std::string("a"));
  QCOMPARE(Named(partitions[kDev1], "b")->input(0), recv.name());
  for (const char* attr : {"tensor_name", "send_device", "recv_device"})
    QCOMPARE(StringAttr(send, attr), StringAttr(recv, attr));
  QCOMPARE(StringAttr(send, "send_device"), kDev0);
  QCOMPARE(StringAttr(send, "recv_device"), kDev1);
  QVERIFY(StringAttr(send, "tensor_name").rfind("edge_", 0) == 0);
  int64_t incarnation = 0;
  QVERIFY(GetNodeAttr(recv, "send_device_incarnation", &incarnation).ok());
  QCOMPARE(incarnation, int64_t{0xabc});
  DataType dtype = DT_INVALID;
  // TensorFlow's attr names: "T" on _Send, "tensor_type" on _Recv.
  QVERIFY(GetNodeAttr(recv, "tensor_type", &dtype).ok());
  QCOMPARE(dtype, DT_FLOAT);
  QVERIFY(GetNodeAttr(send, "T", &dtype).ok());
  QCOMPARE(dtype, DT_FLOAT);
  QCOMPARE(send.device(), kDev0);
  QCOMPARE(recv.device(), kDev1);
}

void TestPartition::oneTransferPerTensorPerDestination_data() {
  // clang-format off
  QTest::addColumn<int>("consumers_on_dev1");
  QTest::addColumn<int>("consumers_on_dev2");
  QTest::newRow("three consumers, one destination") << 3 << 0;
  QTest::newRow("two destinations") << 2 << 1;
  QTest::newRow("one each") << 1 << 1;
  // clang-format on
}

void TestPartition::oneTransferPerTensorPerDestination() {
  QFETCH(int, consumers_on_dev1);
  QFETCH(int, consumers_on_dev2);
  std::vector<tensorflow::NodeDef> nodes = {ConstNode("a")};
  std::map<std::string, std::string> placement = {{"a", kDev0}};
  for (int i = 0; i < consumers_on_dev1 + consumers_on_dev2; ++i) {
    const std::string name = "use" + std::to_string(i);
    nodes.push_back(IdentityNode(name, "a"));
    placement[name] = i < consumers_on_dev1 ? kDev1 : kDev2;
  }
  auto graph = Placed(nodes, placement);
  std::map<std::string, tensorflow::GraphDef> partitions;
  QVERIFY(PartitionGraph(*graph, ByDevice(), &partitions).ok());
  const int destinations = (consumers_on_dev1 > 0) + (consumers_on_dev2 > 0);
  QCOMPARE(static_cast<int>(OfOp(partitions[kDev0], "_Send").size()), destinations);
  QCOMPARE(static_cast<int>(OfOp(partitions[kDev1], "_Recv").size()), consumers_on_dev1 > 0 ? 1 : 0);
  if (consumers_on_dev2 > 0) QCOMPARE(OfOp(partitions[kDev2], "_Recv").size(), size_t{1});

  // Every consumer on a device reads that device's single _Recv; keys differ per destination.
  std::set<std::string> tensor_names;
  for (const auto* send : OfOp(partitions[kDev0], "_Send")) tensor_names.insert(StringAttr(*send, "tensor_name"));
  QCOMPARE(static_cast<int>(tensor_names.size()), destinations);
  for (int i = 0; i < consumers_on_dev1; ++i) {
    const auto* use = Named(partitions[kDev1], "use" + std::to_string(i));
    QCOMPARE(use->input(0), OfOp(partitions[kDev1], "_Recv")[0]->name());
  }
}

void TestPartition::controlEdgeBecomesDummyTransfer() {
  auto graph = Placed({ConstNode("a"), NodeDefOf("after", "NoOp", {"^a"}, {})}, {{"a", kDev0}, {"after", kDev1}});
  std::map<std::string, tensorflow::GraphDef> partitions;
  QVERIFY(PartitionGraph(*graph, ByDevice(), &partitions).ok());
  const auto& source = partitions[kDev0];
  const auto sends = OfOp(source, "_Send");
  QCOMPARE(sends.size(), size_t{1});
  // The sent value is a small constant that runs after `a`.
  const auto* dummy = Named(source, sends[0]->input(0));
  QVERIFY(dummy);
  QCOMPARE(dummy->op(), std::string("Const"));
  QCOMPARE(dummy->input(0), std::string("^a"));
  const auto recvs = OfOp(partitions[kDev1], "_Recv");
  QCOMPARE(recvs.size(), size_t{1});
  QCOMPARE(Named(partitions[kDev1], "after")->input(0), "^" + recvs[0]->name());
  QCOMPARE(StringAttr(*sends[0], "tensor_name"), StringAttr(*recvs[0], "tensor_name"));
  // The partitions must still be valid graphs on their own.
  QVERIFY(Graph::FromGraphDef(source).ok());
  QVERIFY(Graph::FromGraphDef(partitions[kDev1]).ok());
}

void TestPartition::partitionByTask() {
  const std::string ps = "/job:ps/replica:0/task:0/device:CPU:0";
  const std::string worker = "/job:worker/replica:0/task:0/device:CPU:0";
  auto graph = Placed({ConstNode("w"), IdentityNode("read", "w"), IdentityNode("use", "read")},
                      {{"w", ps}, {"read", ps}, {"use", worker}});
  PartitionOptions options;
  options.partition_of = [](const std::string& device) { return device.substr(0, device.find("/device:")); };
  std::map<std::string, tensorflow::GraphDef> partitions;
  QVERIFY(PartitionGraph(*graph, options, &partitions).ok());
  QCOMPARE(partitions.size(), size_t{2});
  QVERIFY(partitions.count("/job:ps/replica:0/task:0"));
  QVERIFY(partitions.count("/job:worker/replica:0/task:0"));
  QCOMPARE(OfOp(partitions["/job:ps/replica:0/task:0"], "_Send").size(), size_t{1});
}

void TestPartition::unplacedNodeIsAnError() {
  auto graph = Placed({ConstNode("a")}, {{"a", ""}});
  std::map<std::string, tensorflow::GraphDef> partitions;
  const Status status = PartitionGraph(*graph, ByDevice(), &partitions);
  QCOMPARE(status.code(), absl::StatusCode::kInvalidArgument);
  QVERIFY(std::string(status.message()).find("'a'") != std::string::npos);
}

QTEST_APPLESS_MAIN(TestPartition)
#include "tst_partition.moc"
