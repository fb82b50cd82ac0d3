// Checks a JSON value against a schema of the kind Kubernetes publishes: the JSON Schemas
// generated from its OpenAPI definitions, and the OpenAPI v3 structural schema of a custom
// resource (a CRD's openAPIV3Schema). The keywords those schemas use are checked: type
// (also a list of types), enum, properties, required, additionalProperties, items,
// oneOf/anyOf/allOf, pattern, format int32/int64, minimum/maximum, and the Kubernetes
// extensions x-kubernetes-int-or-string, x-kubernetes-preserve-unknown-fields and the
// keys of map lists (x-kubernetes-list-map-keys must be unique). A member the schema does
// not know is an error, as kubectl's strict field validation makes it.
#pragma once

#include <nlohmann/json.hpp>

#include <regex>
#include <set>
#include <string>
#include <vector>

namespace clab::testing {

class JsonSchemaCheck {
 public:
  explicit JsonSchemaCheck(nlohmann::json schema) : schema_(std::move(schema)) {}

  // One line per problem, each naming the path ("spec.containers[0].ports[0].containerPort").
  std::vector<std::string> Problems(const nlohmann::json& value) const {
    std::vector<std::string> problems;
    Check(schema_, value, "", &problems);
    return problems;
  }

 private:
  using Json = nlohmann::json;

  static std::string Member(const std::string& path, const std::string& name) {
    return path.empty() ? name : path + "." + name;
  }

  static bool HasType(const Json& value, const std::string& type) {
    if (type == "object") return value.is_object();
    if (type == "array") return value.is_array();
    if (type == "string") return value.is_string();
    if (type == "integer") return value.is_number_integer();
    if (type == "number") return value.is_number();
    if (type == "boolean") return value.is_boolean();
    if (type == "null") return value.is_null();
    return false;
  }

  static bool Passes(const Json& schema, const Json& value) {
    std::vector<std::string> problems;
    Check(schema, value, "", &problems);
    return problems.empty();
  }

  static void Check(const Json& schema, const Json& value, const std::string& path,
                    std::vector<std::string>* problems) {
    const std::string at = path.empty() ? "(top)" : path;
    if (schema.value("x-kubernetes-int-or-string", false)) {
      if (!value.is_number_integer() && !value.is_string()) problems->push_back(at + ": wants an integer or a string");
      if (value.is_string() && schema.contains("pattern") &&
          !std::regex_search(value.get<std::string>(), std::regex(schema["pattern"].get<std::string>())))
        problems->push_back(at + ": '" + value.get<std::string>() + "' does not match " +
                            schema["pattern"].get<std::string>());
      return;
    }
    if (schema.contains("type")) {
      std::vector<std::string> types;
      if (schema["type"].is_array()) {
        for (const Json& type : schema["type"]) types.push_back(type.get<std::string>());
      } else {
        types.push_back(schema["type"].get<std::string>());
      }
      bool matched = false;
      for (const std::string& type : types) matched = matched || HasType(value, type);
      if (!matched) {
        problems->push_back(at + ": wants " + schema["type"].dump() + ", not " + value.dump());
        return;
      }
    }
    if (schema.contains("enum")) {
      bool found = false;
      for (const Json& allowed : schema["enum"]) found = found || allowed == value;
      if (!found) problems->push_back(at + ": " + value.dump() + " is not one of " + schema["enum"].dump());
    }
    for (const char* combination : {"oneOf", "anyOf"}) {
      if (!schema.contains(combination)) continue;
      int passing = 0;
      for (const Json& option : schema[combination]) passing += Passes(option, value) ? 1 : 0;
      const bool ok = std::string(combination) == "oneOf" ? passing == 1 : passing >= 1;
      if (!ok)
        problems->push_back(at + ": " + value.dump() + " fits " + std::to_string(passing) + " of its " + combination);
    }
    if (schema.contains("allOf"))
      for (const Json& part : schema["allOf"]) Check(part, value, path, problems);
    if (value.is_string() && schema.contains("pattern") &&
        !std::regex_search(value.get<std::string>(), std::regex(schema["pattern"].get<std::string>())))
      problems->push_back(at + ": '" + value.get<std::string>() + "' does not match " +
                          schema["pattern"].get<std::string>());
    if (value.is_number_integer()) {
      const int64_t number = value.get<int64_t>();
      const std::string format = schema.value("format", "");
      if (format == "int32" && (number < INT32_MIN || number > INT32_MAX)) problems->push_back(at + ": out of int32");
      if (schema.contains("minimum") && number < schema["minimum"].get<int64_t>())
        problems->push_back(at + ": below its minimum");
      if (schema.contains("maximum") && number > schema["maximum"].get<int64_t>())
        problems->push_back(at + ": above its maximum");
    }
    if (value.is_object()) CheckObject(schema, value, path, problems);
    if (value.is_array() && schema.contains("items")) {
      for (size_t i = 0; i < value.size(); ++i)
        Check(schema["items"], value[i], path + "[" + std::to_string(i) + "]", problems);
      if (schema.value("x-kubernetes-list-type", "") == "map" && schema.contains("x-kubernetes-list-map-keys")) {
        std::set<std::string> keys;
        for (const Json& item : value) {
          std::string key;
          for (const Json& name : schema["x-kubernetes-list-map-keys"])
            key += (item.is_object() && item.contains(name.get<std::string>()) ? item[name.get<std::string>()].dump()
                                                                               : "-") +
                   "|";
          if (!keys.insert(key).second) problems->push_back(at + ": two items with the same key " + key);
        }
      }
    }
  }

  static void CheckObject(const Json& schema, const Json& value, const std::string& path,
                          std::vector<std::string>* problems) {
    if (schema.contains("required"))
      for (const Json& name : schema["required"])
        if (!value.contains(name.get<std::string>()))
          problems->push_back(Member(path, name.get<std::string>()) + ": missing");
    if (schema.value("x-kubernetes-preserve-unknown-fields", false)) return;
    const Json* properties = schema.contains("properties") ? &schema["properties"] : nullptr;
    const Json* additional = schema.contains("additionalProperties") ? &schema["additionalProperties"] : nullptr;
    // An object schema that says nothing of its members takes any.
    if (properties == nullptr && additional == nullptr) return;
    for (const auto& [name, member] : value.items()) {
      if (properties && properties->contains(name)) {
        Check((*properties)[name], member, Member(path, name), problems);
      } else if (additional && additional->is_object()) {
        Check(*additional, member, Member(path, name), problems);
      } else if (!(additional && additional->is_boolean() && additional->get<bool>())) {
        problems->push_back(Member(path, name) + ": unknown field");
      }
    }
  }

  const nlohmann::json schema_;
};

}  // namespace clab::testing
