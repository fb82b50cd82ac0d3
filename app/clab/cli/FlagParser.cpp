#include "cli/FlagParser.h"

#include "cli/CliStatus.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <charconv>

namespace clab::cli {
namespace {

// "log-device-placement" and "log_device_placement" name the same flag.
std::string NormalizeName(absl::string_view name) {
  std::string normalized(name);
  std::replace(normalized.begin(), normalized.end(), '-', '_');
  return normalized;
}

bool LooksLikeFlag(absl::string_view arg) { return arg.size() > 2 && arg.substr(0, 2) == "--"; }

// A lone "-5" is a value (a negative number), "-x" is a flag.
bool LooksLikeShortFlag(absl::string_view arg) {
  return arg.size() > 1 && arg[0] == '-' && !(arg[1] >= '0' && arg[1] <= '9');
}

}  // namespace

FlagParser::FlagParser(std::string command) : command_(std::move(command)) {}

FlagParser::Flag& FlagParser::NewFlag(absl::string_view name, absl::string_view value_name, absl::string_view help,
                                      Kind kind) {
  Flag& flag = flags_.emplace_back();
  flag.name = NormalizeName(name);
  flag.value_name = std::string(value_name);
  flag.help = std::string(help);
  flag.kind = kind;
  return flag;
}

void FlagParser::AddString(absl::string_view name, absl::string_view value_name, absl::string_view help,
                           std::string* value, Presence presence) {
  Flag& flag = NewFlag(name, value_name, help, Kind::kString);
  flag.presence = presence;
  flag.default_text = *value;
  flag.string_value = value;
}

void FlagParser::AddStringList(absl::string_view name, absl::string_view value_name, absl::string_view help,
                               std::vector<std::string>* values, Presence presence) {
  Flag& flag = NewFlag(name, value_name, help, Kind::kStringList);
  flag.presence = presence;
  flag.list_value = values;
}

void FlagParser::AddInt(absl::string_view name, absl::string_view value_name, absl::string_view help, int64_t* value,
                        int64_t minimum, int64_t maximum) {
  Flag& flag = NewFlag(name, value_name, help, Kind::kInt);
  // A start value below the minimum means "not given": no default to show.
  if (*value >= minimum) flag.default_text = std::to_string(*value);
  flag.int_value = value;
  flag.minimum = minimum;
  flag.maximum = maximum;
}

void FlagParser::AddBool(absl::string_view name, absl::string_view help, bool* value) {
  Flag& flag = NewFlag(name, "", help, Kind::kBool);
  flag.bool_value = value;
}

void FlagParser::AddPositional(absl::string_view value_name, absl::string_view help, std::string* value) {
  positionals_.push_back({std::string(value_name), std::string(help), value});
}

void FlagParser::AddRemainingPositionals(absl::string_view value_name, absl::string_view help,
                                         std::vector<std::string>* values) {
  remaining_ = {std::string(value_name), std::string(help), nullptr, values};
}

Status FlagParser::Parse(const std::vector<std::string>& args) {
  // Help wins over anything else on the line, even mistakes: someone who asks for help
  // while writing a command line wants the help, not an error about the half-written line.
  for (const std::string& arg : args) {
    if (arg == "--") break;
    if (arg == "--help" || arg == "-h") {
      help_requested_ = true;
      return OkStatus();
    }
  }

  size_t next_positional = 0;
  bool flags_ended = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (!flags_ended && arg == "--") {
      flags_ended = true;
      continue;
    }
    if (!flags_ended && LooksLikeShortFlag(arg)) {
      CLAB_RETURN_IF_ERROR(ParseFlag(args, &i));
      continue;
    }
    if (next_positional >= positionals_.size() && remaining_.values != nullptr) {
      remaining_.values->push_back(arg);
      continue;
    }
    if (next_positional >= positionals_.size())
      return Error(absl::StrCat("unexpected argument '", arg, "' for 'clab ", command_, "'"));
    *positionals_[next_positional++].value = arg;
  }
  if (next_positional < positionals_.size())
    return Error(absl::StrCat("'clab ", command_, "' needs ", positionals_[next_positional].value_name));
  return CheckRequired();
}

Status FlagParser::ParseFlag(const std::vector<std::string>& args, size_t* index) {
  const std::string& arg = args[*index];
  absl::string_view body(arg);
  body.remove_prefix(body.substr(0, 2) == "--" ? 2 : 1);
  const size_t equals = body.find('=');
  const std::string name = NormalizeName(body.substr(0, equals));
  Flag* flag = FindFlag(name);
  if (flag == nullptr) {
    const std::string shown(arg.substr(0, arg.find('=')));
    return Error(absl::StrCat("unknown flag '", shown, "' for 'clab ", command_, "'"));
  }

  if (flag->kind == Kind::kBool) {
    if (equals == absl::string_view::npos) {
      *flag->bool_value = true;
      flag->seen = true;
      return OkStatus();
    }
    return AssignValue(*flag, std::string(body.substr(equals + 1)));
  }

  std::string value;
  if (equals != absl::string_view::npos) {
    value = std::string(body.substr(equals + 1));
  } else if (*index + 1 < args.size() && !LooksLikeFlag(args[*index + 1])) {
    value = args[++*index];
  }
  if (value.empty()) return Error(absl::StrCat("flag '--", flag->name, "' needs a value (", flag->value_name, ")"));
  return AssignValue(*flag, value);
}

Status FlagParser::AssignValue(Flag& flag, const std::string& text) {
  if (flag.seen && flag.kind != Kind::kStringList)
    return Error(absl::StrCat("flag '--", flag.name, "' is given more than once"));
  flag.seen = true;
  switch (flag.kind) {
    case Kind::kString: *flag.string_value = text; return OkStatus();
    case Kind::kStringList: flag.list_value->push_back(text); return OkStatus();
    case Kind::kInt: {
      int64_t number = 0;
      const char* end = text.data() + text.size();
      const auto [ptr, ec] = std::from_chars(text.data(), end, number);
      if (ec != std::errc() || ptr != end || number < flag.minimum || number > flag.maximum) {
        const std::string range = flag.maximum == std::numeric_limits<int64_t>::max()
                                      ? absl::StrCat(">= ", flag.minimum)
                                      : absl::StrCat("from ", flag.minimum, " to ", flag.maximum);
        return Error(absl::StrCat("flag '--", flag.name, "' wants a whole number ", range, ", got '", text, "'"));
      }
      *flag.int_value = number;
      return OkStatus();
    }
    case Kind::kBool:
      if (text == "true" || text == "1" || text == "yes") {
        *flag.bool_value = true;
      } else if (text == "false" || text == "0" || text == "no") {
        *flag.bool_value = false;
      } else {
        return Error(absl::StrCat("flag '--", flag.name, "' is a switch (true or false), got '", text, "'"));
      }
      return OkStatus();
  }
  return OkStatus();
}

Status FlagParser::CheckRequired() const {
  for (const Flag& flag : flags_) {
    if (flag.presence == Presence::kRequired && !flag.seen)
      return Error(absl::StrCat("'clab ", command_, "' needs ", Spelling(flag)));
  }
  return OkStatus();
}

FlagParser::Flag* FlagParser::FindFlag(absl::string_view name) {
  for (Flag& flag : flags_)
    if (flag.name == name) return &flag;
  return nullptr;
}

Status FlagParser::Error(absl::string_view message) const { return UsageError(absl::StrCat(message, " ", HelpHint())); }

std::string FlagParser::HelpHint() const { return absl::StrCat("(see 'clab help ", command_, "')"); }

std::string FlagParser::Spelling(const Flag& flag) {
  if (flag.kind == Kind::kBool) return absl::StrCat("--", flag.name);
  return absl::StrCat("--", flag.name, " ", flag.value_name);
}

std::string FlagParser::Synopsis() const {
  std::vector<std::string> words = {"clab", command_};
  for (const Flag& flag : flags_)
    if (flag.presence == Presence::kRequired) words.push_back(Spelling(flag));
  for (const Positional& positional : positionals_) words.push_back(positional.value_name);
  if (remaining_.values != nullptr) words.push_back(absl::StrCat("[", remaining_.value_name, "...]"));
  const bool has_optional =
      std::any_of(flags_.begin(), flags_.end(), [](const Flag& f) { return f.presence == Presence::kOptional; });
  if (has_optional) words.push_back("[flags]");
  return absl::StrJoin(words, " ");
}

std::string FlagParser::FlagHelp() const {
  std::vector<std::pair<std::string, std::string>> rows;
  for (const Positional& positional : positionals_) rows.emplace_back(positional.value_name, positional.help);
  if (remaining_.values != nullptr) rows.emplace_back(remaining_.value_name, remaining_.help);
  for (const Flag& flag : flags_) {
    std::string help = flag.help;
    if (flag.kind == Kind::kStringList) absl::StrAppend(&help, "; repeatable");
    if (flag.presence == Presence::kRequired) absl::StrAppend(&help, " (required)");
    else if (!flag.default_text.empty()) absl::StrAppend(&help, " (default: ", flag.default_text, ")");
    rows.emplace_back(Spelling(flag), help);
  }
  rows.emplace_back("-h, --help", "show this help");

  size_t width = 0;
  for (const auto& row : rows) width = std::max(width, row.first.size());
  std::string text;
  for (const auto& [spelling, help] : rows)
    absl::StrAppend(&text, "  ", spelling, std::string(width - spelling.size() + 2, ' '), help, "\n");
  return text;
}

}  // namespace clab::cli
