#include "clab/train/SummaryWriterCache.h"

#include <map>
#include <mutex>

namespace clab {
namespace {
std::mutex& CacheMutex() {
  static std::mutex mu;
  return mu;
}
std::map<std::string, std::shared_ptr<EventFileWriter>>& Cache() {
  static auto* cache = new std::map<std::string, std::shared_ptr<EventFileWriter>>;
  return *cache;
}
}  // namespace

StatusOr<std::shared_ptr<EventFileWriter>> SummaryWriterFor(const std::string& log_dir) {
  std::lock_guard<std::mutex> lock(CacheMutex());
  auto& slot = Cache()[log_dir];
  if (!slot) {
    auto writer = EventFileWriter::Create(log_dir);
    if (!writer.ok()) {
      Cache().erase(log_dir);
      return writer.status();
    }
    slot = std::move(*writer);
  }
  return slot;
}

void ClearSummaryWriters() {
  std::lock_guard<std::mutex> lock(CacheMutex());
  for (auto& [dir, writer] : Cache()) writer->Flush().IgnoreError();
  Cache().clear();
}

}  // namespace clab
