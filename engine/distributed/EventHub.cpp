#include "distributed/EventHub.h"

#include "clab/io/EventFileWriter.h"

namespace clab {

EventHub::EventHub(std::string task, size_t capacity) : task_(std::move(task)), capacity_(capacity) {}

void EventHub::Publish(TaskEvent event) {
  if (event.wall_time() == 0) event.set_wall_time(WallTimeSeconds());
  if (event.task().empty()) event.set_task(task_);
  if (event.source().empty()) event.set_source("server");
  {
    std::lock_guard<std::mutex> lock(mu_);
    event.set_seq(++seq_);
    if (event.has_state()) last_state_ = event.state();
    events_.push_back(std::move(event));
    while (events_.size() > capacity_) events_.pop_front();
  }
  cv_.notify_all();
}

std::vector<TaskEvent> EventHub::WaitSince(int64_t since_seq, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  ++waiting_;
  cv_.wait_for(lock, timeout, [&] { return closed_ || seq_ > since_seq; });
  --waiting_;
  std::vector<TaskEvent> found;
  if (seq_ <= since_seq) return found;
  // Sequence numbers are consecutive, so the first wanted event is found by arithmetic.
  const int64_t oldest = events_.empty() ? seq_ + 1 : events_.front().seq();
  const int64_t first = std::max(since_seq + 1, oldest);
  for (size_t i = static_cast<size_t>(first - oldest); i < events_.size(); ++i) found.push_back(events_[i]);
  return found;
}

void EventHub::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  cv_.notify_all();
}

bool EventHub::closed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return closed_;
}

void EventHub::WatcherAttached() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++watchers_;
  }
  cv_.notify_all();
}

void EventHub::WatcherDetached() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    --watchers_;
  }
  cv_.notify_all();
}

void EventHub::Delivered(int64_t seq) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    delivered_ = std::max(delivered_, seq);
  }
  cv_.notify_all();
}

bool EventHub::WaitForWatcher(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return watchers_ > 0; });
}

bool EventHub::WaitDelivered(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, timeout, [&] { return watchers_ == 0 || delivered_ >= seq_; });
  return delivered_ >= seq_;
}

int EventHub::waiting() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waiting_;
}

int64_t EventHub::last_seq() const {
  std::lock_guard<std::mutex> lock(mu_);
  return seq_;
}

TaskState EventHub::last_state() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_state_;
}

TaskEvent EventForLogLine(const std::string& line) {
  TaskEvent event;
  // "<node>: (<Op>): /job:..." as the placer prints it.
  const size_t open = line.find(": (");
  const size_t close = open == std::string::npos ? std::string::npos : line.find("): /job:", open);
  if (open != std::string::npos && close != std::string::npos && line.find(' ') > open &&
      line.find(' ', close + 3) == std::string::npos) {
    PlacementLine* placement = event.mutable_placement();
    placement->set_node(line.substr(0, open));
    placement->set_op(line.substr(open + 3, close - open - 3));
    placement->set_device(line.substr(close + 3));
    return event;
  }
  LogLine* log = event.mutable_log();
  log->set_level(20);
  log->set_text(line);
  return event;
}

}  // namespace clab
