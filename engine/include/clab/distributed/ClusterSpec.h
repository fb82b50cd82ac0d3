// The cluster: job name -> task index -> "host:port". Built from a dict of lists, a sparse
// dict, a ClusterDef, TF_CONFIG JSON, a JSON file, or the inline form
// "ps=127.0.0.1:2223;worker=127.0.0.1:2222,127.0.0.1:2224". Task i of job j is
// "/job:j/replica:0/task:i".
#pragma once

#include "clab/core/Status.h"
#include "tensorflow/cluster.pb.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace clab {

struct HostPort {
  std::string host;
  int port = 0;
  // "host:port", "[::1]:port". INVALID_ARGUMENT names the address and what is wrong.
  static StatusOr<HostPort> Parse(std::string_view address);
  bool IsLoopback() const;  // localhost, 127.0.0.0/8, ::1
  std::string ToString() const;
};

class ClusterSpec {
 public:
  using Jobs = std::map<std::string, std::map<int, std::string>>;

  ClusterSpec() = default;
  // Validates: job names ([A-Za-z][A-Za-z0-9_]*), no empty job, every address a valid
  // host:port, no address used twice, task indices >= 0.
  static StatusOr<ClusterSpec> FromJobs(Jobs jobs);
  static StatusOr<ClusterSpec> FromDict(const std::map<std::string, std::vector<std::string>>& jobs);
  static StatusOr<ClusterSpec> FromClusterDef(const tensorflow::ClusterDef& def);
  // {"ps": ["h:1"], "worker": {"1": "h:2"}} or a TF_CONFIG object (its "cluster" member).
  static StatusOr<ClusterSpec> FromJson(std::string_view json);
  // Inline "job=addr,addr;job=addr", JSON text, the Python dict literal of a TensorFlow
  // program ({'ps': ['h:p'], ...}), or the path of a JSON file.
  static StatusOr<ClusterSpec> Parse(std::string_view text);

  tensorflow::ClusterDef ToClusterDef() const;  // jobs sorted by name, tasks by index
  std::string ToJson() const;                   // {"ps": ["..."], "worker": [...]}
  std::string ToInline() const;                 // "ps=...;worker=..."
  std::string ToPythonDict() const;             // {'ps': ['...'], 'worker': [...]}
  // Job -> addresses in task order, as ReplicaDeviceSetterOptions::cluster takes it.
  std::map<std::string, std::vector<std::string>> ToDict() const;

  bool empty() const { return jobs_.empty(); }
  std::vector<std::string> jobs() const;
  bool HasJob(std::string_view job) const { return jobs_.count(std::string(job)) > 0; }
  int num_tasks(std::string_view job) const;
  std::vector<int> task_indices(std::string_view job) const;
  // NOT_FOUND "No such job in cluster: 'x'" / "No task with index 5 in job 'worker'".
  StatusOr<std::string> TaskAddress(std::string_view job, int task) const;
  const Jobs& all_jobs() const { return jobs_; }
  // Every task as ("/job:j/replica:0/task:i", address), sorted.
  std::vector<std::pair<std::string, std::string>> Tasks() const;

  bool operator==(const ClusterSpec& other) const { return jobs_ == other.jobs_; }

 private:
  Jobs jobs_;
};

// TF_CONFIG: {"cluster": {...}, "task": {"type": "worker", "index": 1}}.
struct TfConfig {
  ClusterSpec cluster;
  std::string task_type;
  int task_index = 0;
  bool is_chief = false;  // the "chief" (or legacy "master") task, else worker 0 without a chief job
  // Errors name the member at fault: missing task, unknown task type, index out of range.
  static StatusOr<TfConfig> Parse(std::string_view json);
};

}  // namespace clab
