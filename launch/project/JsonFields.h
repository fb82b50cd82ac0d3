// Reads the members of one JSON object of a project file, each checked for its type and
// range, so that a wrong value is named ("launch.hosts.gpu1.ssh_port: wants a whole number")
// rather than silently replaced by a default. A member that is absent leaves the value as
// it was (its default); a member nobody asked for is an error too (a misspelt setting would
// otherwise be ignored).
#pragma once

#include "clab/core/Status.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace clab::launch {

class JsonFields {
 public:
  // `where` names the object in errors ("launch.ssh"); empty for the top level.
  JsonFields(const nlohmann::json& object, std::string where);

  // INVALID_ARGUMENT when the value read is not an object.
  Status CheckObject() const;
  Status String(const char* name, std::string* value);
  Status Int(const char* name, int64_t* value, int64_t minimum, int64_t maximum);
  Status Int(const char* name, int* value, int minimum, int maximum);
  Status Bool(const char* name, bool* value);
  // A string from `allowed`.
  Status Choice(const char* name, const std::vector<std::string>& allowed, std::string* value);
  // A list of strings.
  Status Strings(const char* name, std::vector<std::string>* values);
  // The member as it is (null when absent), for an object read by its own class.
  const nlohmann::json* Member(const char* name);
  // Every member must have been asked for.
  Status CheckNoOthers() const;

  // "launch.ssh.copy_binary" (or "copy_binary" at the top level).
  std::string PathOf(const std::string& name) const;

 private:
  const nlohmann::json* Find(const char* name);
  Status Wrong(const char* name, const std::string& wants) const;

  const nlohmann::json& object_;
  const std::string where_;
  std::set<std::string> asked_;
};

}  // namespace clab::launch
