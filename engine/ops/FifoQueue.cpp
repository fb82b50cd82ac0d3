#include "ops/FifoQueue.h"

namespace clab {

FifoQueue::FifoQueue(std::string name, std::vector<DataType> types, std::vector<PartialShape> shapes, int64_t capacity)
    : name_(std::move(name)), types_(std::move(types)), shapes_(std::move(shapes)), capacity_(capacity) {}

Status FifoQueue::Validate(const Tuple& tuple) const {
  if (tuple.size() != types_.size())
    return errors::InvalidArgument("FIFOQueue '", name_, "' holds tuples of ", types_.size(), " components, got ",
                                   tuple.size());
  for (size_t i = 0; i < tuple.size(); ++i) {
    if (tuple[i].dtype() != types_[i])
      return errors::InvalidArgument("FIFOQueue '", name_, "' component ", i, " is ", DataTypeName(types_[i]), ", got ",
                                     DataTypeName(tuple[i].dtype()));
    if (!shapes_.empty() && !shapes_[i].IsCompatibleWith(PartialShape(tuple[i].shape())))
      return errors::InvalidArgument("FIFOQueue '", name_, "' component ", i, " has shape ", shapes_[i].DebugString(),
                                     ", got ", tuple[i].shape().DebugString());
  }
  return OkStatus();
}

Status FifoQueue::ClosedError() const {
  return errors::OutOfRange("FIFOQueue '", name_,
                            "' is closed and has insufficient elements (requested 1, current size ", buffer_.size(),
                            ")");
}

void FifoQueue::EnqueueAsync(std::vector<Tuple> tuples, EnqueueDone done) {
  std::vector<Callback> ready;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) {
      ready.push_back([done = std::move(done), name = name_] {
        done(errors::Cancelled("Enqueue on FIFOQueue '", name, "' which is closed"));
      });
    } else {
      enqueues_.push_back(PendingEnqueue{
          std::deque<Tuple>(std::make_move_iterator(tuples.begin()), std::make_move_iterator(tuples.end())),
          std::move(done)});
      ready = PumpLocked();
    }
  }
  for (auto& callback : ready) callback();
}

void FifoQueue::DequeueAsync(DequeueDone done) {
  std::vector<Callback> ready;
  {
    std::lock_guard<std::mutex> lock(mu_);
    dequeues_.push_back(std::move(done));
    ready = PumpLocked();
  }
  for (auto& callback : ready) callback();
}

std::vector<FifoQueue::Callback> FifoQueue::PumpLocked() {
  std::vector<Callback> ready;
  bool moved = true;
  while (moved) {
    moved = false;
    // Waiting enqueues fill the buffer up to its capacity, oldest first.
    while (!enqueues_.empty() && (capacity_ < 0 || static_cast<int64_t>(buffer_.size()) < capacity_)) {
      PendingEnqueue& front = enqueues_.front();
      if (!front.tuples.empty()) {
        buffer_.push_back(std::move(front.tuples.front()));
        front.tuples.pop_front();
        moved = true;
      }
      if (front.tuples.empty()) {
        ready.push_back([done = std::move(front.done)] { done(OkStatus()); });
        enqueues_.pop_front();
      }
    }
    // Waiting dequeues take from the buffer.
    while (!dequeues_.empty() && !buffer_.empty()) {
      ready.push_back([done = std::move(dequeues_.front()), tuple = std::move(buffer_.front())]() mutable {
        done(OkStatus(), std::move(tuple));
      });
      dequeues_.pop_front();
      buffer_.pop_front();
      moved = true;
    }
  }
  if (closed_ && buffer_.empty() && enqueues_.empty()) {
    const Status closed = ClosedError();
    for (auto& done : dequeues_) ready.push_back([done = std::move(done), closed] { done(closed, {}); });
    dequeues_.clear();
  }
  return ready;
}

void FifoQueue::Close(bool cancel_pending_enqueues) {
  std::vector<Callback> ready;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    if (cancel_pending_enqueues) {
      for (auto& pending : enqueues_) {
        ready.push_back([done = std::move(pending.done), name = name_] {
          done(errors::Cancelled("Enqueue operation was cancelled: FIFOQueue '", name, "' was closed"));
        });
      }
      enqueues_.clear();
    }
    auto more = PumpLocked();
    ready.insert(ready.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  for (auto& callback : ready) callback();
}

int64_t FifoQueue::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(buffer_.size());
}

bool FifoQueue::closed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return closed_;
}

std::string FifoQueue::DebugString() const {
  return StrCat("FIFOQueue '", name_, "' (", types_.size(), " components, capacity ", capacity_, ")");
}

}  // namespace clab
