#include "launch/kubernetes/YamlDocuments.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <regex>

namespace clab::launch {
namespace {

// A plain scalar as YAML 1.2's core schema reads it.
nlohmann::json PlainScalar(const std::string& text) {
  static const std::regex null_form("~|null|Null|NULL|");
  static const std::regex true_form("true|True|TRUE");
  static const std::regex false_form("false|False|FALSE");
  static const std::regex int_form("[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+");
  static const std::regex float_form(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  if (std::regex_match(text, null_form)) return nullptr;
  if (std::regex_match(text, true_form)) return true;
  if (std::regex_match(text, false_form)) return false;
  int64_t integer = 0;
  if (std::regex_match(text, int_form) && absl::SimpleAtoi(text, &integer)) return integer;
  double number = 0;
  if (std::regex_match(text, float_form) && absl::SimpleAtod(text, &number)) return number;
  return text;
}

// Whether a string written plainly would be read back as something else.
bool NeedsQuotes(const std::string& text) { return !PlainScalar(text).is_string(); }

void Emit(YAML::Emitter& out, const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object:
      out << YAML::BeginMap;
      for (const auto& [key, member] : value.items()) {
        out << YAML::Key << key << YAML::Value;
        Emit(out, member);
      }
      out << YAML::EndMap;
      break;
    case nlohmann::json::value_t::array:
      out << YAML::BeginSeq;
      for (const nlohmann::json& item : value) Emit(out, item);
      out << YAML::EndSeq;
      break;
    case nlohmann::json::value_t::string: {
      const std::string& text = value.get_ref<const std::string&>();
      if (text.find('\n') != std::string::npos) {
        out << YAML::Literal << text;
      } else if (NeedsQuotes(text)) {
        out << YAML::DoubleQuoted << text;
      } else {
        out << text;
      }
      break;
    }
    case nlohmann::json::value_t::boolean: out << (value.get<bool>() ? "true" : "false"); break;
    case nlohmann::json::value_t::null: out << YAML::Null; break;
    default: out << value.dump();  // numbers, exactly as JSON writes them
  }
}

Status TooDeep(const std::string& where, int line, const std::string& depth) {
  return errors::InvalidArgument(where, ": line ", line, ": nested ", depth, " levels deep; manifests may nest ",
                                 kMaxYamlNesting, " levels at most");
}

StatusOr<nlohmann::json> ToJson(const YAML::Node& node, const std::string& where, int depth = 1) {
  if (depth > kMaxYamlNesting && (node.IsMap() || node.IsSequence()))
    return TooDeep(where, node.Mark().line + 1, std::to_string(depth));
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json object = nlohmann::json::object();
      for (const auto& entry : node) {
        if (!entry.first.IsScalar())
          return errors::InvalidArgument(where, ": line ", entry.first.Mark().line + 1, ": a key that is not a string");
        CLAB_ASSIGN_OR_RETURN(object[entry.first.Scalar()], ToJson(entry.second, where, depth + 1));
      }
      return object;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json array = nlohmann::json::array();
      for (const auto& item : node) {
        CLAB_ASSIGN_OR_RETURN(nlohmann::json converted, ToJson(item, where, depth + 1));
        array.push_back(std::move(converted));
      }
      return array;
    }
    case YAML::NodeType::Scalar:
      // Quoted and block scalars carry the "!" tag: always strings.
      if (node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str") return nlohmann::json(node.Scalar());
      return PlainScalar(node.Scalar());
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined: return nlohmann::json(nullptr);
  }
  return nlohmann::json(nullptr);
}

}  // namespace

std::string WriteYamlDocuments(const std::vector<nlohmann::json>& documents) {
  std::string text;
  for (const nlohmann::json& document : documents) {
    YAML::Emitter out;
    out.SetIndent(2);
    Emit(out, document);
    absl::StrAppend(&text, "---\n", out.c_str(), "\n");
  }
  return text;
}

StatusOr<std::vector<nlohmann::json>> ReadYamlDocuments(const std::string& text, const std::string& where) {
  std::vector<YAML::Node> nodes;
  try {
    nodes = YAML::LoadAll(text);
  } catch (const YAML::DeepRecursion& error) {
    // yaml-cpp's own guard, far beyond ClusterLab's limit, says only "bad file".
    return TooDeep(where, error.mark.line + 1, StrCat("more than ", error.depth()));
  } catch (const YAML::Exception& error) {
    return errors::InvalidArgument(where, ": line ", error.mark.line + 1, ": ", error.msg);
  }
  std::vector<nlohmann::json> documents;
  for (const YAML::Node& node : nodes) {
    if (node.IsNull()) continue;
    CLAB_ASSIGN_OR_RETURN(nlohmann::json document, ToJson(node, where));
    documents.push_back(std::move(document));
  }
  return documents;
}

}  // namespace clab::launch
