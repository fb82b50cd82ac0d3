#include "clab/io/EventFileWriter.h"

#include <chrono>
#include <cstdio>
#include <filesystem>

#include <unistd.h>

namespace clab {

double WallTimeSeconds() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count() / 1e6;
}

StatusOr<std::unique_ptr<EventFileWriter>> EventFileWriter::Create(const std::string& log_dir,
                                                                   const std::string& suffix) {
  std::error_code ec;
  std::filesystem::create_directories(log_dir, ec);
  if (ec) return errors::Internal("Cannot create the log directory ", log_dir, ": ", ec.message());
  char host[256] = "localhost";
  ::gethostname(host, sizeof(host) - 1);
  const double now = WallTimeSeconds();
  char seconds[32];
  std::snprintf(seconds, sizeof(seconds), "%010lld", static_cast<long long>(now));
  // A second writer started in the same second on the same host (a restarted chief) gets
  // its own file, ".<pid>" (and ".<n>") added, instead of overwriting the first one's.
  const std::string base = StrCat(log_dir, "/events.out.tfevents.", seconds, ".", host);
  std::string path = StrCat(base, suffix);
  for (int n = 1; std::filesystem::exists(path, ec); ++n)
    path = StrCat(base, ".", ::getpid(), n > 1 ? StrCat(".", n) : std::string(), suffix);
  std::unique_ptr<EventFileWriter> writer(new EventFileWriter);
  CLAB_RETURN_IF_ERROR(writer->writer_.Open(path));
  tensorflow::Event first;
  first.set_wall_time(static_cast<double>(static_cast<long long>(now)));
  first.set_file_version("brain.Event:2");
  CLAB_RETURN_IF_ERROR(writer->WriteEvent(first));
  CLAB_RETURN_IF_ERROR(writer->Flush());
  return writer;
}

EventFileWriter::~EventFileWriter() { Close().IgnoreError(); }

Status EventFileWriter::WriteEvent(const tensorflow::Event& event) {
  std::lock_guard<std::mutex> lock(mu_);
  return writer_.Write(event.SerializeAsString());
}

Status EventFileWriter::WriteScalars(int64_t step, const std::map<std::string, float>& scalars) {
  tensorflow::Event event;
  event.set_wall_time(WallTimeSeconds());
  event.set_step(step);
  for (const auto& [tag, value] : scalars) {
    auto* v = event.mutable_summary()->add_value();
    v->set_tag(tag);
    v->set_simple_value(value);
  }
  return WriteEvent(event);
}

Status EventFileWriter::WriteSessionLog(int64_t step, tensorflow::SessionLog::SessionStatus status,
                                        const std::string& checkpoint_path, const std::string& msg) {
  tensorflow::Event event;
  event.set_wall_time(WallTimeSeconds());
  event.set_step(step);
  auto* log = event.mutable_session_log();
  log->set_status(status);
  log->set_checkpoint_path(checkpoint_path);
  log->set_msg(msg);
  return WriteEvent(event);
}

Status EventFileWriter::Flush() {
  std::lock_guard<std::mutex> lock(mu_);
  return writer_.Flush();
}

Status EventFileWriter::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  return writer_.Close();
}

Status ReadEventFile(const std::string& path, std::vector<tensorflow::Event>* events) {
  RecordReader reader;
  CLAB_RETURN_IF_ERROR(reader.Open(path));
  std::string record;
  while (true) {
    Status s = reader.Read(&record);
    if (absl::IsOutOfRange(s)) return OkStatus();
    CLAB_RETURN_IF_ERROR(s);
    tensorflow::Event event;
    if (!event.ParseFromString(record))
      return errors::DataLoss("Record at byte ", reader.offset(), " of ", path, " is not an Event");
    events->push_back(std::move(event));
  }
}

}  // namespace clab
