// Event files for TensorBoard: "events.out.tfevents.<10-digit seconds>.<host>" in a log
// directory (".<pid>" added when a file of that name exists), TFRecord framing, Event
// messages, the first one carrying file_version "brain.Event:2".
#pragma once

#include "clab/core/Status.h"
#include "clab/io/RecordFile.h"
#include "tensorflow/event.pb.h"

#include <map>
#include <mutex>
#include <string>

namespace clab {

class EventFileWriter {
 public:
  // Creates the directory if needed and the file, and writes the file_version event.
  static StatusOr<std::unique_ptr<EventFileWriter>> Create(const std::string& log_dir, const std::string& suffix = "");
  ~EventFileWriter();

  Status WriteEvent(const tensorflow::Event& event);
  // One Summary with `simple_value` entries at `step`.
  Status WriteScalars(int64_t step, const std::map<std::string, float>& scalars);
  Status WriteSessionLog(int64_t step, tensorflow::SessionLog::SessionStatus status,
                         const std::string& checkpoint_path = "", const std::string& msg = "");
  Status Flush();
  Status Close();
  const std::string& path() const { return writer_.path(); }

 private:
  EventFileWriter() = default;
  std::mutex mu_;
  RecordWriter writer_;
};

// Reads every event of a file; DATA_LOSS names the file and offset of a corrupt record.
Status ReadEventFile(const std::string& path, std::vector<tensorflow::Event>* events);

// Current time as seconds since the epoch, with microseconds (Event.wall_time).
double WallTimeSeconds();

}  // namespace clab
