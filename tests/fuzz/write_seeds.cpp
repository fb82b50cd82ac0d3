// Writes the fuzz targets' seed corpus (tests/fuzz/corpus/<target>/) with ClusterLab's own
// writers and graphs, so that every seed is a file ClusterLab itself makes or reads:
//
//   build/fuzz/fuzz/clab_fuzz_seeds tests/fuzz/corpus
//
// The files are small and deterministic: running it again rewrites the same bytes (the
// event files aside, which carry the time they were written).
#include "InProcessTask.h"
#include "clab/io/CsvTable.h"
#include "clab/io/EventFileWriter.h"
#include "clab/io/IdxFile.h"
#include "clab/io/RecordFile.h"
#include "clab/io/TensorBundle.h"
#include "clab/train/CheckpointState.h"
#include "distributed/RecvTensorCodec.h"
#include "examplegraphs/RegressionGraph.h"
#include "examplegraphs/SeedGraph.h"
#include "launch/project/LaunchSettings.h"

#include <google/protobuf/text_format.h>
#include <grpcpp/support/byte_buffer.h>
#include <zlib.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace fs = std::filesystem;
using namespace clab;

namespace {

fs::path root;

void Check(const Status& status, const char* what) {
  if (!status.ok()) {
    std::cerr << "clab_fuzz_seeds: " << what << ": " << status << "\n";
    std::exit(1);
  }
}

void Seed(const std::string& target, const std::string& name, const std::string& bytes) {
  fs::create_directories(root / target);
  std::ofstream(root / target / name, std::ios::binary) << bytes;
}

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

std::string Text(const google::protobuf::Message& message) {
  std::string text;
  google::protobuf::TextFormat::PrintToString(message, &text);
  return text;
}

std::string Gzip(const std::string& bytes) {
  z_stream stream{};
  deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&stream, bytes.size()) + 32, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

std::string Flatten(grpc::ByteBuffer buffer) {
  std::vector<grpc::Slice> slices;
  if (!buffer.Dump(&slices).ok()) Check(errors::Internal("cannot read the encoded reply"), "byte buffer");
  std::string bytes;
  for (const grpc::Slice& slice : slices) bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  return bytes;
}

std::vector<std::pair<std::string, tensorflow::GraphDef>> Graphs() {
  std::vector<std::pair<std::string, tensorflow::GraphDef>> graphs;
  {
    GraphBuilder g;
    tools::BuildSeedGraph(g);
    Check(g.status(), "seed graph");
    graphs.emplace_back("seed", g.graph_def());
  }
  {
    GraphBuilder g;
    Check(tools::BuildLinearRegression(g, 4, 0.1, 1).status(), "regression graph");
    graphs.emplace_back("regression", g.graph_def());
  }
  graphs.emplace_back("placed", fuzz::InProcessTask::Graph(/*on_cpu=*/true));
  return graphs;
}

void GraphSeeds() {
  for (const auto& [name, graph] : Graphs()) {
    Seed("fuzz_graph_text", name + ".pbtxt", Text(graph));
    Seed("fuzz_graph_binary", name + ".pb", graph.SerializeAsString());
  }
}

void ClusterSeeds() {
  const ClusterSpec spec = *ClusterSpec::Parse("ps=127.0.0.1:2223;worker=127.0.0.1:2222,127.0.0.1:2224");
  Seed("fuzz_cluster_spec", "inline", spec.ToInline());
  Seed("fuzz_cluster_spec", "json", spec.ToJson());
  Seed("fuzz_cluster_spec", "python_dict", spec.ToPythonDict());
  Seed("fuzz_cluster_spec", "sparse", R"({"ps": ["[::1]:2223"], "worker": {"1": "localhost:2224"}})");
  Seed("fuzz_cluster_spec", "tf_config",
       R"({"cluster": )" + spec.ToJson() + R"(, "task": {"type": "ps", "index": 0}})");
  Seed("fuzz_tf_config", "worker", R"({"cluster": )" + spec.ToJson() + R"(, "task": {"type": "worker", "index": 1}})");
  Seed("fuzz_tf_config", "chief",
       R"({"cluster": {"chief": ["10.0.0.1:2222"], "worker": ["10.0.0.2:2222"], "ps": ["10.0.0.3:2222"]},)"
       R"( "task": {"type": "chief", "index": 0}, "environment": "cloud"})");
  Seed("fuzz_tf_config", "evaluator", R"({"cluster": {"worker": ["h:1"]}, "task": {"type": "evaluator", "index": 0}})");
}

void ProjectSeeds() {
  const fs::path examples = fs::path(CLAB_SOURCE_DIR) / "examples" / "projects";
  for (const auto& entry : fs::directory_iterator(examples))
    if (entry.path().extension() == ".clab") Seed("fuzz_project_file", entry.path().filename(), ReadAll(entry.path()));
  launch::LaunchSettings settings;
  settings.method = "ssh";
  settings.hosts["198.18.0.2"].user = "root";
  settings.hosts["198.18.0.2"].ssh_port = 2022;
  settings.hosts["*"].data_dir = "/var/tmp/clusterlab";
  nlohmann::json project = {
      {"format", "clusterlab-project"},
      {"version", 1},
      {"name", "Own graph on two hosts"},
      {"cluster",
       nlohmann::json::parse(ClusterSpec::Parse("ps=198.18.0.2:2223;worker=198.18.0.3:2222").value().ToJson())},
      {"program", "seed"},
      {"run", {{"last_step", 50}, {"sync", true}, {"checkpoint_dir", "ckpt"}}},
      {"graph", Text(fuzz::InProcessTask::Graph(false))},
      {"launch", settings.ToJson()}};
  Seed("fuzz_project_file", "own_graph_ssh.clab", project.dump(2));
}

void CheckpointSeeds(const fs::path& scratch) {
  std::map<std::string, Tensor> tensors = {
      {"global_step", Tensor::Scalar<int64_t>(20)},
      {"w", Tensor::Matrix<float>({{1.5f, -2}, {0.25f, 4}})},
      {"labels", Tensor::Vector<int32_t>({0, 1, 2})},
  };
  const std::string prefix = (scratch / "model.ckpt-20").string();
  Check(WriteTensorBundle(prefix, tensors), "tensor bundle");
  const std::string index = ReadAll(prefix + ".index"), data = ReadAll(BundleDataFile(prefix));
  std::string length(4, '\0');
  for (int i = 0; i < 4; ++i) length[static_cast<size_t>(i)] = static_cast<char>(index.size() >> (8 * i));
  Seed("fuzz_tensor_bundle", "four_tensors", length + index + data);
  Check(WriteTensorBundle(prefix, {}), "empty tensor bundle");
  const std::string empty_index = ReadAll(prefix + ".index");
  length.assign(4, '\0');
  for (int i = 0; i < 4; ++i) length[static_cast<size_t>(i)] = static_cast<char>(empty_index.size() >> (8 * i));
  Seed("fuzz_tensor_bundle", "empty", length + empty_index + ReadAll(BundleDataFile(prefix)));

  tensorflow::CheckpointState state;
  state.set_model_checkpoint_path(prefix);
  state.add_all_model_checkpoint_paths((scratch / "model.ckpt-10").string());
  state.add_all_model_checkpoint_paths("model.ckpt-20");
  Check(WriteCheckpointState(scratch.string(), state), "checkpoint state");
  Seed("fuzz_checkpoint_state", "two_checkpoints", ReadAll(scratch / "checkpoint"));
}

void RecordSeeds(const fs::path& scratch) {
  RecordWriter writer;
  const std::string path = (scratch / "records").string();
  Check(writer.Open(path), "records");
  for (const char* record : {"first", "", "a longer third record with more bytes"})
    Check(writer.Write(record), "record");
  Check(writer.Close(), "records");
  Seed("fuzz_record_file", "three_records", ReadAll(path));

  auto events = EventFileWriter::Create((scratch / "events").string());
  Check(events.status(), "event file");
  Check((*events)->WriteScalars(10, {{"loss", 0.5f}, {"accuracy", 0.75f}}), "scalars");
  Check((*events)->WriteSessionLog(20, tensorflow::SessionLog::CHECKPOINT, "model.ckpt-20", "saved"), "log");
  Check((*events)->Close(), "event file");
  Seed("fuzz_event_file", "scalars_and_log", ReadAll((*events)->path()));
}

void IdxAndCsvSeeds(const fs::path& scratch) {
  IdxArray images(IdxType::kUint8, {2, 3, 3});
  for (int64_t i = 0; i < images.NumElements(); ++i) images.Set(i, static_cast<double>(i * 13 % 256));
  IdxArray values(IdxType::kFloat32, {4});
  for (int64_t i = 0; i < 4; ++i) values.Set(i, 0.5 * static_cast<double>(i) - 1);
  IdxArray wide(IdxType::kFloat64, {2, 2});
  IdxArray shorts(IdxType::kInt16, {3});
  shorts.Set(0, -300);
  for (const auto& [name, array] : std::vector<std::pair<std::string, const IdxArray*>>{{"images.idx", &images},
                                                                                        {"values.idx", &values},
                                                                                        {"wide.idx", &wide},
                                                                                        {"shorts.idx", &shorts},
                                                                                        {"images.idx.gz", &images}}) {
    const fs::path path = scratch / name;
    Check(WriteIdxFile(path.string(), *array), "idx file");
    Seed("fuzz_idx_file", name, ReadAll(path));
  }
  const std::string table = "x0,x1,label\n1,2.5,0\n-3e2,0.125,1\n4,5,2\n";
  Seed("fuzz_csv_table", "three_rows.csv", table);
  Seed("fuzz_csv_table", "header_only.csv", "a,b\n");
  Seed("fuzz_csv_gz_table", "three_rows.csv.gz", Gzip(table));
  // What the reader accepts must be what the seeds hold.
  std::ofstream(scratch / "t.csv") << table;
  Check(ReadCsvTable((scratch / "t.csv").string()).status(), "csv table");
}

void TensorSeeds() {
  const std::vector<std::pair<std::string, Tensor>> tensors = {
      {"float_matrix", Tensor::Matrix<float>({{1, 2, 3}, {4, 5, 6}})},
      {"int64_scalar", Tensor::Scalar<int64_t>(-7)},
      {"bool_vector", Tensor::Vector<bool>({true, false, true})},
      {"strings", Tensor::Vector<std::string>({"a", "bc"})},
      {"uint8", Tensor::Vector<uint8_t>({0, 255})},
      {"double", Tensor::Vector<double>({0.5, -1e300})},
  };
  for (const auto& [name, tensor] : tensors) {
    for (bool typed : {false, true}) {
      tensorflow::TensorProto proto;
      tensor.AsProto(&proto, typed);
      Seed("fuzz_tensor_proto", name + (typed ? "_typed" : "_content"), proto.SerializeAsString());
    }
    Seed("fuzz_recv_tensor_response", name,
         std::string(1, '\x02') + Flatten(EncodeRecvTensorResponse(tensor, false, 5)));
  }
  tensorflow::RecvTensorResponse typed;
  tensors[0].second.AsProto(typed.mutable_tensor(), true);
  typed.set_is_dead(true);
  Seed("fuzz_recv_tensor_response", "typed_dead", std::string(1, '\x00') + typed.SerializeAsString());

  const std::vector<std::pair<std::string, std::string>> json = {
      {"matrix", std::string(1, '\x00') + "[[1, 2, 3, 4]]"},
      {"float_scalar", std::string(1, '\x01') + "3.5"},
      {"bools", std::string(1, '\x05') + "[true, false]"},
      {"strings", std::string(1, '\x06') + "[\"a\", \"b\"]"},
      {"int64", std::string(1, '\x04') + "[[-9007199254740993]]"},
      {"uint8", std::string(1, '\x07') + "[0, 255]"},
  };
  for (const auto& [name, text] : json) Seed("fuzz_json_tensor", name, text);
}

void RequestSeeds() {
  const std::string cpu = fuzz::InProcessTask::kCpu;
  tensorflow::RegisterGraphRequest registered;
  *registered.mutable_graph_def() = fuzz::InProcessTask::Graph(/*on_cpu=*/true);
  registered.add_feed("x:0");
  registered.add_fetch("y:0");
  registered.add_fetch("c:0");
  Seed("fuzz_register_graph", "feed_and_fetches", registered.SerializeAsString());
  registered.clear_feed();
  registered.clear_fetch();
  registered.add_fetch("c:0");
  Seed("fuzz_register_graph", "constant", registered.SerializeAsString());

  tensorflow::RunGraphRequest run;
  run.set_graph_handle("graph");
  run.set_step_id(1);
  auto* sent = run.add_send();
  sent->set_name("x:0");
  Tensor::Vector<float>({3, 4}).AsProto(sent->mutable_tensor());
  Seed("fuzz_run_graph", "feed", run.SerializeAsString());
  run.set_store_errors_in_response_body(true);
  run.mutable_exec_opts()->set_record_timeline(true);
  Seed("fuzz_run_graph", "errors_in_body_timeline", run.SerializeAsString());
  run.clear_send();
  Seed("fuzz_run_graph", "missing_feed", run.SerializeAsString());
  tensorflow::RunGraphRequest delivered = run;
  auto* value = delivered.add_send();
  value->set_name("x:0");
  Tensor::Vector<float>({1, 1}).AsProto(value->mutable_tensor(), true);
  auto* pushed = delivered.add_delivered();
  pushed->set_name(cpu + ";0000000000000001;" + cpu + ";edge_9;0:0");
  Tensor::Scalar<int32_t>(5).AsProto(pushed->mutable_tensor());
  delivered.add_delivered_key(pushed->name());
  Seed("fuzz_run_graph", "delivered", delivered.SerializeAsString());

  tensorflow::RecvTensorRequest recv;
  recv.set_step_id(7);
  recv.set_rendezvous_key(cpu + ";0000000000000000;" + cpu + ";edge_3_y;0:0");
  Seed("fuzz_recv_tensor", "sent_first", std::string(1, '\x01') + recv.SerializeAsString());
  Seed("fuzz_recv_tensor", "never_sent", std::string(1, '\x00') + recv.SerializeAsString());
  recv.set_rendezvous_key("/job:ps/replica:0/task:0/device:CPU:0;0000000000000000;" + cpu + ";edge_3_y;0:0");
  Seed("fuzz_recv_tensor", "other_task", std::string(1, '\x01') + recv.SerializeAsString());

  tensorflow::RunStepRequest step;
  step.set_session_handle("session");
  step.add_target("init");
  Seed("fuzz_run_step", "init", step.SerializeAsString());
  step.clear_target();
  auto* feed = step.add_feed();
  feed->set_name("x:0");
  Tensor::Vector<float>({3, 4}).AsProto(feed->mutable_tensor());
  step.add_fetch("y:0");
  step.add_fetch("c:0");
  Seed("fuzz_run_step", "feed_fetch", step.SerializeAsString());
  step.mutable_options()->set_trace_level(tensorflow::RunOptions::FULL_TRACE);
  step.set_store_errors_in_response_body(true);
  step.add_target("v/Assign");
  Seed("fuzz_run_step", "traced_with_target", step.SerializeAsString());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: clab_fuzz_seeds CORPUS_DIR (tests/fuzz/corpus)\n";
    return 2;
  }
  root = argv[1];
  const fs::path scratch = fs::temp_directory_path() / ("clab-fuzz-seeds-" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  GraphSeeds();
  ClusterSeeds();
  ProjectSeeds();
  CheckpointSeeds(scratch);
  RecordSeeds(scratch);
  IdxAndCsvSeeds(scratch);
  TensorSeeds();
  RequestSeeds();
  fs::remove_all(scratch);
  std::cout << "seeds written under " << root << "\n";
  return 0;
}
