// Kubernetes manifests as YAML text, built and read as JSON values: a manifest is made as a
// JSON object, written as one YAML document of a "---"-separated file, and a file is read
// back into JSON objects (with YAML's plain scalars typed as YAML 1.2's core schema types
// them: 2222 a number, true a boolean, "2222" a string). yaml-cpp does the YAML.
#pragma once

#include "clab/core/Status.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace clab::launch {

// Maps and lists inside each other; a manifest needs about ten.
inline constexpr int kMaxYamlNesting = 64;

std::string WriteYamlDocuments(const std::vector<nlohmann::json>& documents);
// INVALID_ARGUMENT naming `where`, the line and what yaml-cpp found wrong, or how deep a
// document nests beyond kMaxYamlNesting. Empty documents are skipped.
StatusOr<std::vector<nlohmann::json>> ReadYamlDocuments(const std::string& text, const std::string& where);

}  // namespace clab::launch
