// The flags of one command: each command declares its flags once (name, value name, help,
// where the value goes) and gets parsing, validation, error messages and help text from here.
//
// Accepted forms: "--name value", "--name=value", "--switch", "--switch=false"; "-" and "_"
// are interchangeable in names (TensorFlow's flags use "_"); "--" ends the flags; "-h" and
// "--help" ask for help. Every error is a usage error naming the flag and the command.
#pragma once

#include "clab/core/Status.h"

#include <absl/strings/string_view.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace clab::cli {

class FlagParser {
 public:
  enum class Presence { kOptional, kRequired };

  // `command` is the command's words after "clab", e.g. "run" or "graph show".
  explicit FlagParser(std::string command);

  // The target's value before Parse is the default (shown in help when not empty).
  void AddString(absl::string_view name, absl::string_view value_name, absl::string_view help, std::string* value,
                 Presence presence = Presence::kOptional);
  // A flag that may be given several times; values keep their order.
  void AddStringList(absl::string_view name, absl::string_view value_name, absl::string_view help,
                     std::vector<std::string>* values, Presence presence = Presence::kOptional);
  void AddInt(absl::string_view name, absl::string_view value_name, absl::string_view help, int64_t* value,
              int64_t minimum, int64_t maximum = std::numeric_limits<int64_t>::max());
  void AddBool(absl::string_view name, absl::string_view help, bool* value);
  // Positionals are required and filled in declaration order.
  void AddPositional(absl::string_view value_name, absl::string_view help, std::string* value);
  // Takes every positional left after the required ones (none is fine).
  void AddRemainingPositionals(absl::string_view value_name, absl::string_view help, std::vector<std::string>* values);

  Status Parse(const std::vector<std::string>& args);
  // True when Parse met -h or --help; the values are then incomplete.
  bool help_requested() const { return help_requested_; }

  const std::string& command() const { return command_; }
  // "clab run --graph FILE --fetch NAME [flags]"
  std::string Synopsis() const;
  // One aligned line per flag and positional.
  std::string FlagHelp() const;
  // "(see 'clab help run')": appended to usage errors a command reports itself.
  std::string HelpHint() const;

 private:
  enum class Kind { kString, kStringList, kInt, kBool };
  struct Flag {
    std::string name;
    std::string value_name;
    std::string help;
    Kind kind = Kind::kString;
    Presence presence = Presence::kOptional;
    std::string default_text;
    std::string* string_value = nullptr;
    std::vector<std::string>* list_value = nullptr;
    int64_t* int_value = nullptr;
    int64_t minimum = 0;
    int64_t maximum = std::numeric_limits<int64_t>::max();
    bool* bool_value = nullptr;
    bool seen = false;
  };
  struct Positional {
    std::string value_name;
    std::string help;
    std::string* value = nullptr;
    std::vector<std::string>* values = nullptr;
  };

  Flag& NewFlag(absl::string_view name, absl::string_view value_name, absl::string_view help, Kind kind);
  Flag* FindFlag(absl::string_view name);
  Status ParseFlag(const std::vector<std::string>& args, size_t* index);
  Status AssignValue(Flag& flag, const std::string& text);
  Status CheckRequired() const;
  Status Error(absl::string_view message) const;
  static std::string Spelling(const Flag& flag);

  std::string command_;
  std::vector<Flag> flags_;
  std::vector<Positional> positionals_;
  Positional remaining_;  // value == nullptr: extra positionals are errors
  bool help_requested_ = false;
};

}  // namespace clab::cli
