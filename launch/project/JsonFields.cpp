#include "launch/project/JsonFields.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>

namespace clab::launch {

JsonFields::JsonFields(const nlohmann::json& object, std::string where) : object_(object), where_(std::move(where)) {}

std::string JsonFields::PathOf(const std::string& name) const {
  return where_.empty() ? name : absl::StrCat(where_, ".", name);
}

Status JsonFields::CheckObject() const {
  if (object_.is_object()) return OkStatus();
  return errors::InvalidArgument(where_.empty() ? "the file" : where_, ": wants an object {...}");
}

const nlohmann::json* JsonFields::Find(const char* name) {
  asked_.insert(name);
  if (!object_.is_object()) return nullptr;
  auto it = object_.find(name);
  return it == object_.end() ? nullptr : &*it;
}

Status JsonFields::Wrong(const char* name, const std::string& wants) const {
  return errors::InvalidArgument(PathOf(name), ": wants ", wants);
}

Status JsonFields::String(const char* name, std::string* value) {
  const nlohmann::json* member = Find(name);
  if (member == nullptr) return OkStatus();
  if (!member->is_string()) return Wrong(name, "a string");
  *value = member->get<std::string>();
  return OkStatus();
}

Status JsonFields::Int(const char* name, int64_t* value, int64_t minimum, int64_t maximum) {
  const nlohmann::json* member = Find(name);
  if (member == nullptr) return OkStatus();
  if (!member->is_number_integer()) return Wrong(name, "a whole number");
  // An unsigned value above int64's range would wrap to a negative number if read narrow.
  if (member->is_number_unsigned() && member->get<uint64_t>() > static_cast<uint64_t>(maximum))
    return errors::InvalidArgument(PathOf(name), ": ", member->dump(), " is out of range (", minimum, "-", maximum,
                                   ")");
  const int64_t number = member->get<int64_t>();
  if (number < minimum || number > maximum)
    return errors::InvalidArgument(PathOf(name), ": ", number, " is out of range (", minimum, "-", maximum, ")");
  *value = number;
  return OkStatus();
}

Status JsonFields::Int(const char* name, int* value, int minimum, int maximum) {
  int64_t wide = *value;
  CLAB_RETURN_IF_ERROR(Int(name, &wide, minimum, maximum));
  *value = static_cast<int>(wide);
  return OkStatus();
}

Status JsonFields::Bool(const char* name, bool* value) {
  const nlohmann::json* member = Find(name);
  if (member == nullptr) return OkStatus();
  if (!member->is_boolean()) return Wrong(name, "true or false");
  *value = member->get<bool>();
  return OkStatus();
}

Status JsonFields::Choice(const char* name, const std::vector<std::string>& allowed, std::string* value) {
  std::string text = *value;
  CLAB_RETURN_IF_ERROR(String(name, &text));
  if (std::find(allowed.begin(), allowed.end(), text) == allowed.end())
    return errors::InvalidArgument(PathOf(name), ": '", text, "' is not one of ", absl::StrJoin(allowed, ", "));
  *value = text;
  return OkStatus();
}

Status JsonFields::Strings(const char* name, std::vector<std::string>* values) {
  const nlohmann::json* member = Find(name);
  if (member == nullptr) return OkStatus();
  if (!member->is_array()) return Wrong(name, "a list of strings");
  std::vector<std::string> read;
  for (const nlohmann::json& item : *member) {
    if (!item.is_string()) return Wrong(name, "a list of strings");
    read.push_back(item.get<std::string>());
  }
  *values = std::move(read);
  return OkStatus();
}

const nlohmann::json* JsonFields::Member(const char* name) { return Find(name); }

Status JsonFields::CheckNoOthers() const {
  if (!object_.is_object()) return OkStatus();
  for (const auto& [name, value] : object_.items()) {
    if (asked_.count(name) > 0) continue;
    return errors::InvalidArgument(PathOf(name), ": unknown setting (known: ", absl::StrJoin(asked_, ", "), ")");
  }
  return OkStatus();
}

}  // namespace clab::launch
