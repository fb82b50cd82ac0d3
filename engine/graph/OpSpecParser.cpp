// Parsers for TensorFlow's op spec syntax, used by OpDefBuilder.
//   inputs/outputs: "a: T", "x: Ref(T)", "values: N * T", "y: float", "args: Tlist"
//   attrs:          "transpose_a: bool = false", "T: {float, double} = DT_FLOAT",
//                   "N: int >= 1", "perm: list(int)", "padding: {'SAME', 'VALID'}",
//                   "shape: shape = { unknown_rank: true }"
#include "clab/graph/OpRegistry.h"

#include <google/protobuf/text_format.h>

#include <cctype>
#include <charconv>

namespace clab {
namespace {

using tensorflow::AttrValue;

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// Whole-text number parsers: Debian's Abseil takes only its own string_view.
bool ParseInt(std::string_view text, int64_t* value) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *value);
  return ec == std::errc() && ptr == end && !text.empty();
}

bool ParseFloat(std::string_view text, float* value) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *value);
  return ec == std::errc() && ptr == end && !text.empty();
}

bool IsIdentifier(std::string_view text) {
  if (text.empty() || !(std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_')) return false;
  for (char c : text)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// "float" -> DT_FLOAT, "DT_FLOAT" -> DT_FLOAT. Ref types are not spellable in specs: refs are
// written Ref(T).
std::optional<DataType> SpecTypeName(std::string_view word) {
  std::string upper(word);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper.rfind("DT_", 0) != 0) upper = "DT_" + upper;
  DataType dtype = DT_INVALID;
  if (!tensorflow::DataType_Parse(upper, &dtype) || dtype == DT_INVALID || IsRefType(dtype)) return std::nullopt;
  return dtype;
}

// Splits "name: rest" and checks the name.
Status SplitNameAndRest(std::string_view spec, std::string_view what, std::string* name, std::string_view* rest) {
  const size_t colon = spec.find(':');
  if (colon == std::string_view::npos)
    return errors::InvalidArgument("Malformed ", what, " spec '", spec, "': expected 'name: type'");
  *name = std::string(Trim(spec.substr(0, colon)));
  *rest = Trim(spec.substr(colon + 1));
  if (!IsIdentifier(*name))
    return errors::InvalidArgument("Malformed ", what, " spec '", spec, "': '", *name, "' is not a valid name");
  if (rest->empty()) return errors::InvalidArgument("Malformed ", what, " spec '", spec, "': the type is missing");
  return OkStatus();
}

// Splits "a, b, c" (inside braces or brackets) into trimmed items; "" gives no items.
std::vector<std::string_view> SplitList(std::string_view body) {
  std::vector<std::string_view> items;
  body = Trim(body);
  if (body.empty()) return items;
  size_t start = 0;
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i <= body.size(); ++i) {
    const char c = i < body.size() ? body[i] : ',';
    if (quote != 0) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    else if (c == '[' || c == '{' || c == '(') ++depth;
    else if (c == ']' || c == '}' || c == ')') --depth;
    else if (c == ',' && depth == 0) {
      items.push_back(Trim(body.substr(start, i - start)));
      start = i + 1;
    }
  }
  return items;
}

bool IsQuoted(std::string_view text) {
  return text.size() >= 2 && (text.front() == '\'' || text.front() == '"') && text.back() == text.front();
}

bool IsScalarAttrType(std::string_view type) {
  return type == "type" || type == "int" || type == "float" || type == "bool" || type == "string" || type == "shape" ||
         type == "tensor" || type == "func";
}

// "{float, double}" or "{'SAME', 'VALID'}": fills the allowed lists, returns the element type.
StatusOr<std::string> ParseAllowedSet(std::string_view spec, std::string_view set, AttrDef* attr) {
  const auto items = SplitList(set.substr(1, set.size() - 2));
  if (items.empty())
    return errors::InvalidArgument("Malformed attr spec '", spec, "': the set of allowed values is empty");
  const bool strings = IsQuoted(items.front());
  for (std::string_view item : items) {
    if (strings != IsQuoted(item))
      return errors::InvalidArgument("Malformed attr spec '", spec, "': an allowed set mixes strings and types");
    if (strings) {
      attr->allowed_values.emplace_back(item.substr(1, item.size() - 2));
      continue;
    }
    auto dtype = SpecTypeName(item);
    if (!dtype) return errors::InvalidArgument("Malformed attr spec '", spec, "': '", item, "' is not a data type");
    attr->allowed_types.push_back(*dtype);
  }
  return std::string(strings ? "string" : "type");
}

// Reads the attr type at the front of `rest` ("int", "{...}", "list(...)") and consumes it.
StatusOr<std::string> ParseAttrType(std::string_view spec, std::string_view* rest, AttrDef* attr) {
  std::string_view text = *rest;
  const bool is_list = text.rfind("list(", 0) == 0;
  if (is_list) text.remove_prefix(5);
  std::string element;
  size_t used = 0;
  if (!text.empty() && text.front() == '{') {
    const size_t close = text.find('}');
    if (close == std::string_view::npos)
      return errors::InvalidArgument("Malformed attr spec '", spec, "': '{' without '}'");
    CLAB_ASSIGN_OR_RETURN(element, ParseAllowedSet(spec, text.substr(0, close + 1), attr));
    used = close + 1;
  } else {
    while (used < text.size() && (std::isalnum(static_cast<unsigned char>(text[used])) || text[used] == '_')) ++used;
    element = std::string(text.substr(0, used));
    if (!IsScalarAttrType(element))
      return errors::InvalidArgument("Malformed attr spec '", spec, "': unknown attr type '", element, "'");
  }
  text.remove_prefix(used);
  if (is_list) {
    text = Trim(text);
    if (text.empty() || text.front() != ')')
      return errors::InvalidArgument("Malformed attr spec '", spec, "': 'list(' without ')'");
    text.remove_prefix(1);
  }
  *rest = Trim(text);
  return is_list ? "list(" + element + ")" : element;
}

Status ParseScalarDefault(std::string_view spec, std::string_view type, std::string_view text, AttrValue* value) {
  auto bad = [&](std::string_view why) {
    return errors::InvalidArgument("Malformed attr spec '", spec, "': default '", text, "' ", why);
  };
  if (type == "int") {
    int64_t i = 0;
    if (!ParseInt(text, &i)) return bad("is not an int");
    value->set_i(i);
  } else if (type == "float") {
    float f = 0;
    if (!ParseFloat(text, &f)) return bad("is not a float");
    value->set_f(f);
  } else if (type == "bool") {
    if (text != "true" && text != "false") return bad("is not true or false");
    value->set_b(text == "true");
  } else if (type == "string") {
    if (!IsQuoted(text)) return bad("is not a quoted string");
    value->set_s(std::string(text.substr(1, text.size() - 2)));
  } else if (type == "type") {
    auto dtype = SpecTypeName(text);
    if (!dtype) return bad("is not a data type");
    value->set_type(*dtype);
  } else if (type == "shape") {
    // Either the proto's text form "{ unknown_rank: true }" or "[2,?]".
    if (!text.empty() && text.front() == '{' && text.back() == '}') {
      if (!google::protobuf::TextFormat::ParseFromString(std::string(text.substr(1, text.size() - 2)),
                                                         value->mutable_shape()))
        return bad("is not a TensorShapeProto");
    } else if (!text.empty() && text.front() == '[' && text.back() == ']') {
      auto* shape = value->mutable_shape();
      for (std::string_view dim : SplitList(text.substr(1, text.size() - 2))) {
        int64_t size = -1;
        if (dim != "?" && !ParseInt(dim, &size)) return bad("has a dimension that is not a number");
        shape->add_dim()->set_size(size);
      }
    } else {
      return bad("is not a shape");
    }
  } else if (type == "tensor") {
    if (text.size() < 2 || text.front() != '{' || text.back() != '}' ||
        !google::protobuf::TextFormat::ParseFromString(std::string(text.substr(1, text.size() - 2)),
                                                       value->mutable_tensor()))
      return bad("is not a TensorProto");
  } else {
    return bad("cannot be given for this attr type");
  }
  return OkStatus();
}

// Appends a parsed scalar to the matching repeated field of a list.
void AppendToList(const AttrValue& element, AttrValue::ListValue* list) {
  switch (element.value_case()) {
    case AttrValue::kS: list->add_s(element.s()); break;
    case AttrValue::kI: list->add_i(element.i()); break;
    case AttrValue::kF: list->add_f(element.f()); break;
    case AttrValue::kB: list->add_b(element.b()); break;
    case AttrValue::kType: list->add_type(element.type()); break;
    case AttrValue::kShape: *list->add_shape() = element.shape(); break;
    case AttrValue::kTensor: *list->add_tensor() = element.tensor(); break;
    default: break;
  }
}

Status ParseDefault(std::string_view spec, const std::string& type, std::string_view text, AttrValue* value) {
  if (type.rfind("list(", 0) != 0) return ParseScalarDefault(spec, type, text, value);
  if (text.size() < 2 || text.front() != '[' || text.back() != ']')
    return errors::InvalidArgument("Malformed attr spec '", spec, "': default '", text,
                                   "' of a list attr must be written [a, b, ...]");
  const std::string element_type = type.substr(5, type.size() - 6);
  auto* list = value->mutable_list();
  for (std::string_view item : SplitList(text.substr(1, text.size() - 2))) {
    AttrValue element;
    CLAB_RETURN_IF_ERROR(ParseScalarDefault(spec, element_type, item, &element));
    AppendToList(element, list);
  }
  return OkStatus();
}

}  // namespace

StatusOr<ArgDef> ParseArgSpec(std::string_view spec) {
  ArgDef arg;
  std::string_view type;
  CLAB_RETURN_IF_ERROR(SplitNameAndRest(spec, "input/output", &arg.name, &type));
  if (type.rfind("Ref(", 0) == 0) {
    if (type.back() != ')')
      return errors::InvalidArgument("Malformed input/output spec '", spec, "': 'Ref(' without ')'");
    arg.is_ref = true;
    type = Trim(type.substr(4, type.size() - 5));
  }
  const size_t star = type.find('*');
  if (star != std::string_view::npos) {
    const std::string_view count = Trim(type.substr(0, star));
    if (!IsIdentifier(count))
      return errors::InvalidArgument("Malformed input/output spec '", spec, "': '", count,
                                     "' is not the name of an int attr");
    arg.number_attr = std::string(count);
    type = Trim(type.substr(star + 1));
  }
  if (auto fixed = SpecTypeName(type)) {
    arg.fixed_type = *fixed;
  } else if (IsIdentifier(type)) {
    arg.type_attr = std::string(type);  // OpDefBuilder turns it into type_list_attr for list(type)
  } else {
    return errors::InvalidArgument("Malformed input/output spec '", spec, "': '", type,
                                   "' is neither a data type nor an attr name");
  }
  return arg;
}

StatusOr<AttrDef> ParseAttrSpec(std::string_view spec) {
  AttrDef attr;
  std::string_view rest;
  CLAB_RETURN_IF_ERROR(SplitNameAndRest(spec, "attr", &attr.name, &rest));
  CLAB_ASSIGN_OR_RETURN(attr.type, ParseAttrType(spec, &rest, &attr));

  if (rest.rfind(">=", 0) == 0) {
    rest = Trim(rest.substr(2));
    size_t digits = 0;
    while (digits < rest.size() &&
           (std::isdigit(static_cast<unsigned char>(rest[digits])) || (digits == 0 && rest[0] == '-')))
      ++digits;
    if (attr.type != "int" && attr.type.rfind("list(", 0) != 0)
      return errors::InvalidArgument("Malformed attr spec '", spec, "': only int and list attrs have a minimum");
    if (!ParseInt(rest.substr(0, digits), &attr.minimum))
      return errors::InvalidArgument("Malformed attr spec '", spec, "': '>=' needs a number");
    attr.has_minimum = true;
    rest = Trim(rest.substr(digits));
  }
  if (!rest.empty() && rest.front() == '=') {
    AttrValue value;
    CLAB_RETURN_IF_ERROR(ParseDefault(spec, attr.type, Trim(rest.substr(1)), &value));
    attr.default_value = std::move(value);
    rest = {};
  }
  if (!rest.empty()) return errors::InvalidArgument("Malformed attr spec '", spec, "': unexpected '", rest, "'");
  return attr;
}

}  // namespace clab
