// A cluster as the command line (--cluster), a program's flags and a JSON file give it:
// the inline form, JSON, or a Python dict literal. A spec that parses must survive its
// own round trips.
#include "clab/distributed/ClusterSpec.h"

#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // A text with neither '=' nor '{' names a JSON file to read: fuzz inputs must not reach
  // into the machine's files (a device such as /dev/zero would be read without end).
  if (text.find('=') == std::string_view::npos && text.find('{') == std::string_view::npos) return 0;
  auto spec = clab::ClusterSpec::Parse(text);
  (void)clab::ClusterSpec::FromJson(text);
  (void)clab::HostPort::Parse(text);
  if (!spec.ok() || spec->empty()) return 0;
  (void)spec->ToClusterDef();
  (void)spec->Tasks();
  // The written forms list each job's tasks in order: a sparse spec ({"worker": {"1": ...}})
  // comes back renumbered, so only dense ones are compared.
  for (const std::string& job : spec->jobs()) {
    const std::vector<int> indices = spec->task_indices(job);
    for (size_t i = 0; i < indices.size(); ++i)
      if (indices[i] != static_cast<int>(i)) return 0;
  }
  for (const std::string& form : {spec->ToInline(), spec->ToJson(), spec->ToPythonDict()}) {
    auto again = clab::ClusterSpec::Parse(form);
    if (!again.ok() || !(*again == *spec)) std::abort();
  }
  return 0;
}
