// Device names and specs: "/job:ps/replica:0/task:0/device:CPU:0", partial specs such as
// "/job:worker/task:1", legacy short forms "/cpu:0" and "/gpu:1", "*" for any id, and a
// trailing "/" (accepted, as TensorFlow does). Type names are upper-cased ("cpu" -> "CPU").
#pragma once

#include "clab/core/Status.h"

#include <string>
#include <string_view>
#include <vector>

namespace clab {

struct DeviceName {
  bool has_job = false;
  std::string job;
  bool has_replica = false;
  int replica = 0;
  bool has_task = false;
  int task = 0;
  bool has_type = false;
  std::string type;     // "CPU", "GPU"
  bool has_id = false;  // false also for "*"
  int id = 0;

  // Parses a full or partial spec. The empty string is the empty spec. Errors are
  // INVALID_ARGUMENT naming the text and the part that is wrong.
  static StatusOr<DeviceName> Parse(std::string_view text);
  // Parses and requires every field: job, replica, task, type and id.
  static StatusOr<DeviceName> ParseFull(std::string_view text);

  // "/job:J/replica:R/task:T/device:TYPE:ID" with only the fields that are set; a type
  // without an id prints "*". The empty spec prints "".
  std::string ToString() const;
  bool IsFullySpecified() const { return has_job && has_replica && has_task && has_type && has_id; }
  bool IsEmpty() const { return !has_job && !has_replica && !has_task && !has_type && !has_id; }

  // Fills the fields this spec lacks from `other`. A field set in both with different values
  // is INVALID_ARGUMENT ("Cannot merge devices with incompatible jobs: 'A' and 'B'"), except
  // type and id under `allow_soft_placement`, where `other` is ignored for them.
  Status MergeFrom(const DeviceName& other, bool allow_soft_placement = false);
  // Like MergeFrom but `other`'s set fields win (the override used by device functions'
  // outer-to-inner merge where the inner, already set spec must be kept is MergeFrom).
  void OverrideWith(const DeviceName& other);

  // True when every field set in this spec has the same value in `device`.
  bool Matches(const DeviceName& device) const;
  // Same job, replica and task (the address space of one server).
  bool InSameTask(const DeviceName& other) const;

  // "/job:J/replica:0/task:T"
  static std::string TaskPrefix(std::string_view job, int task, int replica = 0);
  // The task part of a device name: "/job:ps/replica:0/task:0" for
  // "/job:ps/replica:0/task:0/device:CPU:0"; "" when it names no job and task.
  static std::string TaskOf(std::string_view device);
  // "/job:J/replica:R/task:T/device:TYPE:ID"
  static std::string Full(std::string_view job, int replica, int task, std::string_view type, int id);

  bool operator==(const DeviceName& o) const;
  bool operator!=(const DeviceName& o) const { return !(*this == o); }
};

}  // namespace clab
