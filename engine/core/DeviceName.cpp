#include "clab/core/DeviceName.h"

#include <absl/strings/ascii.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <charconv>

namespace clab {
namespace {

// Field names as TensorFlow's messages spell them in "incompatible <field>s".
enum class Field { kJob, kReplica, kTask, kType, kId };

std::vector<std::string_view> SplitOnSlash(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t slash = text.find('/', start);
    parts.push_back(text.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) return parts;
    start = slash + 1;
  }
}

bool IsJobName(std::string_view name) {
  if (name.empty() || !absl::ascii_isalpha(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// Types are identifiers like "CPU", "GPU", "XLA_CPU"; written in either case.
bool IsTypeName(std::string_view name) { return IsJobName(name); }

// Digits only: TensorFlow rejects signs, spaces and hex in task, replica and id numbers.
bool ParseNumber(std::string_view text, int* value) {
  if (text.empty()) return false;
  for (char c : text)
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return ec == std::errc() && end == text.data() + text.size();
}

class SpecParser {
 public:
  explicit SpecParser(std::string_view text) : text_(text) {}

  StatusOr<DeviceName> Parse() {
    if (text_.empty()) return result_;
    if (text_.front() != '/') return ParseLocal(text_);

    std::string_view body = text_.substr(1);
    // "/job:worker/task:0/" is what people write when they format "%d/" (the seed program
    // does); TensorFlow accepts one trailing slash, so do we.
    if (!body.empty() && body.back() == '/') body.remove_suffix(1);
    if (body.empty()) return result_;

    std::vector<std::string_view> parts = SplitOnSlash(body);
    for (size_t i = 0; i < parts.size(); ++i) {
      if (parts[i].empty())
        return Error(StrCat("empty component ", i + 1, " (two '/' in a row, or a spec that ends in '//')"));
      CLAB_RETURN_IF_ERROR(ParseComponent(parts[i]));
    }
    return result_;
  }

 private:
  Status Error(std::string_view why) const {
    return errors::InvalidArgument("Malformed device specification '", text_, "': ", why);
  }

  // Each field may appear once: "/job:a/job:b" is almost always a concatenation mistake.
  Status MarkSeen(Field field, std::string_view part, std::string_view field_name) {
    auto& previous = seen_[static_cast<int>(field)];
    if (!previous.empty())
      return Error(StrCat("duplicate ", field_name, " in '", part, "' (already given by '", previous, "')"));
    previous = std::string(part);
    return OkStatus();
  }

  Status ParseNumberField(std::string_view part, std::string_view value, std::string_view field_name, bool* has,
                          int* out) {
    if (value == "*") {
      *has = false;
      return OkStatus();
    }
    if (!ParseNumber(value, out))
      return Error(StrCat(field_name, " '", value, "' in '", part, "' is not a non-negative number or '*'"));
    *has = true;
    return OkStatus();
  }

  // "TYPE", "TYPE:ID" or "TYPE:*" after "device:" (or the whole legacy/local form).
  Status ParseTypeAndId(std::string_view part, std::string_view spec, bool id_required) {
    CLAB_RETURN_IF_ERROR(MarkSeen(Field::kType, part, "device type"));
    std::string_view type = spec;
    std::string_view id;
    bool has_id_text = false;
    if (size_t colon = spec.find(':'); colon != std::string_view::npos) {
      type = spec.substr(0, colon);
      id = spec.substr(colon + 1);
      has_id_text = true;
    }
    if (type == "*") {
      result_.has_type = false;
    } else if (!IsTypeName(type)) {
      return Error(StrCat("device type '", type, "' in '", part, "' must be a name such as CPU or GPU"));
    } else {
      result_.has_type = true;
      result_.type = absl::AsciiStrToUpper(std::string(type));
    }
    if (!has_id_text) {
      if (id_required) return Error(StrCat("'", part, "' needs a device id, e.g. '", type, ":0'"));
      result_.has_id = false;
      return OkStatus();
    }
    return ParseNumberField(part, id, "device id", &result_.has_id, &result_.id);
  }

  Status ParseComponent(std::string_view part) {
    size_t colon = part.find(':');
    if (colon == std::string_view::npos)
      return Error(StrCat("component '", part, "' is not of the form key:value (job:, replica:, task:, device:)"));
    std::string_view key = part.substr(0, colon);
    std::string_view value = part.substr(colon + 1);

    if (key == "job") {
      CLAB_RETURN_IF_ERROR(MarkSeen(Field::kJob, part, "job"));
      if (value == "*") {
        result_.has_job = false;
        return OkStatus();
      }
      if (!IsJobName(value)) return Error(StrCat("job name '", value, "' must match [A-Za-z][A-Za-z0-9_]*"));
      result_.has_job = true;
      result_.job = std::string(value);
      return OkStatus();
    }
    if (key == "replica") {
      CLAB_RETURN_IF_ERROR(MarkSeen(Field::kReplica, part, "replica"));
      return ParseNumberField(part, value, "replica", &result_.has_replica, &result_.replica);
    }
    if (key == "task") {
      CLAB_RETURN_IF_ERROR(MarkSeen(Field::kTask, part, "task"));
      return ParseNumberField(part, value, "task", &result_.has_task, &result_.task);
    }
    if (key == "device") return ParseTypeAndId(part, value, /*id_required=*/false);
    // The legacy short forms "/cpu:0" and "/GPU:1" from TensorFlow before 1.4.
    std::string upper = absl::AsciiStrToUpper(std::string(key));
    if (upper == "CPU" || upper == "GPU") return ParseTypeAndId(part, part, /*id_required=*/true);
    return Error(StrCat("unknown field '", key, "' in '", part, "' (expected job, replica, task, device, cpu or gpu)"));
  }

  // "CPU:0" or "GPU:*": a device of this process, written without any slash.
  StatusOr<DeviceName> ParseLocal(std::string_view text) {
    if (text.starts_with("device:")) text.remove_prefix(7);
    if (text.find('/') != std::string_view::npos)
      return Error("a spec with fields must start with '/' (e.g. '/job:worker/task:0')");
    if (text.find(':') == std::string_view::npos) return Error("expected '/job:...' or a local device such as 'CPU:0'");
    CLAB_RETURN_IF_ERROR(ParseTypeAndId(text, text, /*id_required=*/true));
    if (!result_.has_type) return Error("a local device name needs a type such as CPU");
    return result_;
  }

  std::string_view text_;
  DeviceName result_;
  std::string seen_[5];
};

std::string Quote(const DeviceName& name) { return StrCat("'", name.ToString(), "'"); }

}  // namespace

StatusOr<DeviceName> DeviceName::Parse(std::string_view text) { return SpecParser(text).Parse(); }

StatusOr<DeviceName> DeviceName::ParseFull(std::string_view text) {
  CLAB_ASSIGN_OR_RETURN(DeviceName name, Parse(text));
  std::vector<std::string> missing;
  if (!name.has_job) missing.push_back("job");
  if (!name.has_replica) missing.push_back("replica");
  if (!name.has_task) missing.push_back("task");
  if (!name.has_type) missing.push_back("device type");
  if (!name.has_id) missing.push_back("device id");
  if (!missing.empty())
    return errors::InvalidArgument("'", text, "' is not a full device name (missing ", absl::StrJoin(missing, ", "),
                                   "); expected /job:J/replica:R/task:T/device:TYPE:ID");
  return name;
}

std::string DeviceName::ToString() const {
  std::string out;
  if (has_job) out += StrCat("/job:", job);
  if (has_replica) out += StrCat("/replica:", replica);
  if (has_task) out += StrCat("/task:", task);
  if (has_type || has_id) out += StrCat("/device:", has_type ? type : "*", ":", has_id ? StrCat(id) : "*");
  return out;
}

Status DeviceName::MergeFrom(const DeviceName& other, bool allow_soft_placement) {
  auto incompatible = [&](std::string_view what) {
    return errors::InvalidArgument("Cannot merge devices with incompatible ", what, ": ", Quote(*this), " and ",
                                   Quote(other));
  };
  if (other.has_job) {
    if (has_job && job != other.job) return incompatible("jobs");
    has_job = true;
    job = other.job;
  }
  if (other.has_replica) {
    if (has_replica && replica != other.replica) return incompatible("replicas");
    has_replica = true;
    replica = other.replica;
  }
  if (other.has_task) {
    if (has_task && task != other.task) return incompatible("tasks");
    has_task = true;
    task = other.task;
  }
  // Under soft placement a type or id clash is not fatal: the placer may still pick a
  // device of another type, so this spec keeps its own type and id and ignores other's.
  bool type_clash = other.has_type && has_type && type != other.type;
  if (type_clash) {
    if (!allow_soft_placement) return incompatible("types");
    return OkStatus();
  }
  if (other.has_type) {
    has_type = true;
    type = other.type;
  }
  if (other.has_id) {
    if (has_id && id != other.id) {
      if (!allow_soft_placement) return incompatible("ids");
      return OkStatus();
    }
    has_id = true;
    id = other.id;
  }
  return OkStatus();
}

void DeviceName::OverrideWith(const DeviceName& other) {
  if (other.has_job) {
    has_job = true;
    job = other.job;
  }
  if (other.has_replica) {
    has_replica = true;
    replica = other.replica;
  }
  if (other.has_task) {
    has_task = true;
    task = other.task;
  }
  if (other.has_type) {
    has_type = true;
    type = other.type;
  }
  if (other.has_id) {
    has_id = true;
    id = other.id;
  }
}

bool DeviceName::Matches(const DeviceName& device) const {
  if (has_job && (!device.has_job || device.job != job)) return false;
  if (has_replica && (!device.has_replica || device.replica != replica)) return false;
  if (has_task && (!device.has_task || device.task != task)) return false;
  if (has_type && (!device.has_type || device.type != type)) return false;
  if (has_id && (!device.has_id || device.id != id)) return false;
  return true;
}

bool DeviceName::InSameTask(const DeviceName& other) const {
  return has_job == other.has_job && (!has_job || job == other.job) && has_replica == other.has_replica &&
         (!has_replica || replica == other.replica) && has_task == other.has_task && (!has_task || task == other.task);
}

std::string DeviceName::TaskOf(std::string_view device) {
  auto name = Parse(device);
  if (!name.ok() || !name->has_job || !name->has_task) return "";
  return TaskPrefix(name->job, name->task, name->has_replica ? name->replica : 0);
}

std::string DeviceName::TaskPrefix(std::string_view job, int task, int replica) {
  return StrCat("/job:", job, "/replica:", replica, "/task:", task);
}

std::string DeviceName::Full(std::string_view job, int replica, int task, std::string_view type, int id) {
  return StrCat("/job:", job, "/replica:", replica, "/task:", task, "/device:", type, ":", id);
}

bool DeviceName::operator==(const DeviceName& o) const {
  // Values behind unset flags are meaningless, so compare only what is set.
  return has_job == o.has_job && (!has_job || job == o.job) && has_replica == o.has_replica &&
         (!has_replica || replica == o.replica) && has_task == o.has_task && (!has_task || task == o.task) &&
         has_type == o.has_type && (!has_type || type == o.type) && has_id == o.has_id && (!has_id || id == o.id);
}

}  // namespace clab
