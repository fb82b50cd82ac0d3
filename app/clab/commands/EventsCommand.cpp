#include "commands/EventsCommand.h"

#include "clab/io/EventFileWriter.h"
#include "cli/FlagParser.h"
#include "cli/TextTable.h"

#include <absl/strings/str_format.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <ostream>
#include <system_error>

namespace clab::cli {
namespace {

namespace fs = std::filesystem;

std::string LocalTime(double wall_time) {
  const std::time_t seconds = static_cast<std::time_t>(wall_time);
  std::tm parts{};
  ::localtime_r(&seconds, &parts);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", &parts);
  return text;
}

}  // namespace

std::string EventsCommand::description() const {
  return "Reads the event files (events.out.tfevents.*) of a directory, oldest first, or one\n"
         "file, and prints every scalar summary: global step, wall time, tag and value. Session\n"
         "log events (start, checkpoint, stop) are listed too. --tag keeps only the named tags.\n\n"
         "Example:  clab events /tmp/train --tag global_step/sec";
}

void EventsCommand::DeclareFlags(FlagParser& flags) {
  flags.AddPositional("PATH", "a directory of event files, or one event file", &path_);
  flags.AddStringList("tag", "TAG", "only this tag (may be given several times)", &tags_);
}

Status EventsCommand::Run(std::ostream& out) {
  std::error_code error;
  std::vector<std::string> files;
  if (fs::is_directory(path_, error)) {
    for (const auto& entry : fs::directory_iterator(path_, error))
      if (entry.path().filename().string().rfind("events.out.tfevents.", 0) == 0)
        files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());  // the name starts with the creation time
    if (files.empty()) return errors::NotFound("'", path_, "' has no event files (events.out.tfevents.*)");
  } else if (fs::exists(path_, error)) {
    files.push_back(path_);
  } else {
    return errors::NotFound("cannot read '", path_, "': No such file or directory");
  }

  TextTable table({"step", "time", "tag", "value"});
  for (const std::string& file : files) {
    std::vector<tensorflow::Event> events;
    CLAB_RETURN_IF_ERROR(ReadEventFile(file, &events));
    for (const tensorflow::Event& event : events) {
      if (event.has_summary()) {
        for (const auto& value : event.summary().value()) {
          if (value.value_case() != tensorflow::Summary::Value::kSimpleValue) continue;
          if (!tags_.empty() && std::find(tags_.begin(), tags_.end(), value.tag()) == tags_.end()) continue;
          table.AddRow({std::to_string(event.step()), LocalTime(event.wall_time()), value.tag(),
                        absl::StrFormat("%g", value.simple_value())});
        }
      } else if (event.has_session_log() && tags_.empty()) {
        const auto& log = event.session_log();
        std::string text = tensorflow::SessionLog::SessionStatus_Name(log.status());
        if (!log.checkpoint_path().empty()) text += " " + log.checkpoint_path();
        table.AddRow({std::to_string(event.step()), LocalTime(event.wall_time()), "(session log)", text});
      }
    }
  }
  out << files.size() << (files.size() == 1 ? " event file" : " event files") << ", " << table.num_rows() << " rows:\n";
  table.Print(out);
  return OkStatus();
}

}  // namespace clab::cli
